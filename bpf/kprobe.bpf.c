// SPDX-License-Identifier: GPL-2.0
/*
 * Entry points on kprobes/kretprobes, for kernels without fentry. A kprobe
 * sees registers, not a prototype: one program per hook reads the
 * arguments where the plan's prototype (write_end_proto, wb_folio_arg)
 * puts them, with kernel_facts.bpf.h's *_core readers, and calls its
 * moment: write.bpf.h, writeback.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "write.bpf.h"
#include "writeback.bpf.h"

/* What iomap_write_end copied: a kprobe does not see its return value. */
static __always_inline __u64 write_end_bytes(struct folio *folio, __u64 len,
					     __u64 copied)
{
	unsigned long uptodate = 1UL << bpf_core_enum_value(enum pageflags, PG_uptodate);

	/* __iomap_write_end refuses a short copy into a folio not uptodate */
	if (copied < len && !(folio_flags(folio) & uptodate))
		return 0;
	return copied;
}

static __always_inline struct folio *wb_arg_folio(__u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	switch (wb_folio_arg) {
	case 0: return (void *)a0;
	case 1: return (void *)a1;
	case 2: return (void *)a2;
	default: return (void *)a3;
	}
}

SEC("kprobe/iomap_write_end")
int BPF_KPROBE(kprobe_write_end, void *a0, __u64 a1, __u64 a2, __u64 a3, void *a4)
{
	struct iomap_iter *iter = a0;
	struct inode *inode = BPF_CORE_READ(iter, inode);

	if (write_end_proto == WRITE_END_POS)	/* (iter, pos, len, copied, folio) */
		record_write_core(inode, a1, write_end_bytes(a4, a2, a3));
	else					/* (iter, len, copied, folio) */
		record_write_core(inode, BPF_CORE_READ(iter, pos),
				  write_end_bytes((void *)a3, a1, a2));
	return 0;
}

SEC("kprobe/iomap_dirty_folio")
int BPF_KPROBE(kprobe_dirty_folio, struct address_space *mapping, struct folio *folio)
{
	record_whole_dirty(BPF_CORE_READ(mapping, host), folio);
	return 0;
}

SEC("kprobe/iomap_writeback_folio")
int BPF_KPROBE(kprobe_wb_begin, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	wb_begin_folio(wb_arg_folio(a0, a1, a2, a3));
	return 0;
}

SEC("kretprobe/iomap_writeback_folio")
int BPF_KRETPROBE(kretprobe_wb_end)
{
	wb_end();
	return 0;
}
