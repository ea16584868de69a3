// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel lab probe check: one program per attach method the iomapdirty tool
 * may use.  The loader opens this object once per program and loads only
 * that program, so a target missing from one kernel does not hide the
 * others, and `hits` (the only .bss variable) counts for that program alone.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 hits;

SEC("fentry/iomap_write_end")
int BPF_PROG(fentry_iomap_write_end)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("kprobe/iomap_write_end")
int kprobe_iomap_write_end(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("raw_tp/iomap_writepage")
int raw_tp_iomap_writepage(void *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* RFCv4 and 6.6+ only */
SEC("fentry/iomap_dirty_folio")
int BPF_PROG(fentry_iomap_dirty_folio)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

/* RFCv4 only: sets uptodate and dirty bits */
SEC("fentry/iomap_iop_set_range")
int BPF_PROG(fentry_iomap_iop_set_range)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
