// SPDX-License-Identifier: GPL-2.0
/*
 * Entry points on fentry/fexit. An fentry/fexit program may read only the
 * arguments its target has, so each prototype gets its own program; the
 * plan loads the one that fits. The arguments are declared as integers
 * and read with kernel_facts.bpf.h's *_core readers. Each program calls
 * its moment: write.bpf.h, writeback.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "write.bpf.h"
#include "writeback.bpf.h"
#include "wb_funcs.h"

static __always_inline void fexit_write_end(struct iomap_iter *iter, __u64 pos,
					    __u64 copied, __u64 ret)
{
	if (write_end_ret_bool)
		ret = (ret & 0xff) ? copied : 0;
	record_write_core(BPF_CORE_READ(iter, inode), pos, ret);
}

/* 6.1-6.15: (iter, pos, len, copied, folio) -> size_t, or bool from 6.10 */
SEC("fexit/iomap_write_end")
int BPF_PROG(fexit_write_end_pos, u64 iter, u64 pos, u64 len, u64 copied, u64 folio,
	     u64 ret)
{
	fexit_write_end((void *)iter, pos, copied, ret);
	return 0;
}

/* 6.16+: (iter, len, copied, folio) -> bool; pos is still iter->pos */
SEC("fexit/iomap_write_end")
int BPF_PROG(fexit_write_end_iter, u64 iter, u64 len, u64 copied, u64 folio, u64 ret)
{
	struct iomap_iter *it = (void *)iter;

	fexit_write_end(it, BPF_CORE_READ(it, pos), copied, ret);
	return 0;
}

SEC("fentry/iomap_dirty_folio")
int BPF_PROG(fentry_dirty_folio, struct address_space *mapping, struct folio *folio)
{
	record_whole_dirty(BPF_CORE_READ(mapping, host), folio);
	return 0;
}

/* The arguments up to the folio's, as integers (see fexit_write_end) */
#define WB_ARGS_0	u64 a0
#define WB_ARGS_1	WB_ARGS_0, u64 a1
#define WB_ARGS_2	WB_ARGS_1, u64 a2
#define WB_ARGS_3	WB_ARGS_2, u64 a3

/* One program per writeback function and folio position: wb_funcs.h */
#define FENTRY_WB_BEGIN(func, N, type)					\
SEC("fentry/" #func)							\
int BPF_PROG(fentry_wb_begin_a##N, WB_ARGS_##N)				\
{									\
	wb_begin_folio((void *)a##N);					\
	return 0;							\
}
WB_BEGIN_FUNCS(FENTRY_WB_BEGIN)

/*
 * Every writeback function's end: bound when it is loaded to the function
 * the plan chose for the begin (engine.c); the section names the newest.
 */
SEC("fexit/iomap_writeback_folio")
int BPF_PROG(fexit_wb_end)
{
	wb_end();
	return 0;
}
