/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting one finished folio into its thread's running sum and histogram
 * buckets (wb_ctx.acc, acc_hist; folded into the shared totals by
 * acc_fold(), sums.bpf.c). The body of the global finish_folio(), and
 * inlined into wb_fill() (writeback.bpf.c), which finishes a thread's
 * previous folio in the same call that fills its next one: a call and a
 * return less per folio (10-30 ns each with this host's return thunks).
 */
#ifndef IOMAPDIRTY_FINISH_BPF_H
#define IOMAPDIRTY_FINISH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "buckets.h"
#include "maps.bpf.h"
#include "sums.bpf.h"

/*
 * Adds v to a thread's sum field f (plain: nobody else writes it), as f
 * merges (WA_STATS_FIELDS in include/fields.h): the branches on the
 * constant kind fold away.
 */
#define ACC(s, f, v) do {						\
	__u64 _v = (v);							\
									\
	if (WA_MERGE_##f == WA_SUM)					\
		(s)->f += _v;						\
	else if (WA_MERGE_##f == WA_MAX)				\
		(s)->f = _v > (s)->f ? _v : (s)->f;			\
	else								\
		(s)->f = _v;						\
} while (0)

/* What one finished folio adds to each field of the thread's sum. */
static __always_inline void acc_add_folio(struct wa_stats *s, struct wb_ctx *c,
					  __u64 dirty_blocks)
{
	ACC(s, app_bytes, c->app_bytes);
	ACC(s, write_calls, c->write_calls);
	ACC(s, app_dirty_blocks, c->app_dirty_blocks);
	ACC(s, app_dirty_bytes, c->app_dirty_blocks << c->block_bits);
	ACC(s, other_dirty_blocks, c->other_dirty_blocks);
	ACC(s, other_dirty_folios, c->other_dirty_blocks ? 1 : 0);
	ACC(s, whole_folio_dirty_events, c->whole_dirty);
	ACC(s, dirty_blocks, dirty_blocks);
	ACC(s, dirty_bytes, dirty_blocks << c->block_bits);
	ACC(s, folios, 1);
	if (!dirty_blocks) {		/* no dirtying seen */
		ACC(s, folios_no_dirty_seen, 1);
		ACC(s, unseen_submitted_blocks, c->submitted_blocks);
	}
	ACC(s, folio_bytes, c->folio_bytes);
	ACC(s, max_folio_bytes, c->folio_bytes);
	ACC(s, block_bytes, 1ULL << (c->block_bits & 63));
	ACC(s, submitted_blocks, c->submitted_blocks);
	ACC(s, submitted_bytes, c->submitted_bytes);
	ACC(s, hole_bytes, c->hole_bytes);
	ACC(s, violation_blocks, c->violation_blocks);
	ACC(s, violation_folios, c->violation_blocks ? 1 : 0);
	ACC(s, unexplained_blocks, c->unexplained_blocks);
	ACC(s, unchecked_blocks, c->unchecked_blocks);
	if (c->preattach) {	/* also in the figures above: counted apart */
		ACC(s, preattach_folios, 1);
		ACC(s, preattach_checked_blocks, c->submitted_blocks - c->unchecked_blocks);
		ACC(s, preattach_violation_blocks, c->violation_blocks);
	}
	ACC(s, kernel_dirty_blocks, c->kernel_dirty_blocks);
	ACC(s, bitmap_folios, c->bitmap_read);
	ACC(s, nlink, c->nlink);
	/* last_ns: set by acc_fold(), precisely (the hooks' clock has ticks) */
}

/* Counts a folio in the thread's histogram (acc_hist: folded with acc). */
static __always_inline void acc_hist_add(struct wb_ctx *c, enum hist_id h,
					 __u64 bucket)
{
	/*
	 * The buckets are below HIST_BUCKETS already; the barrier keeps the
	 * check, which clang would drop, and the register it checks is the
	 * one used as the index (the verifier bounds only that one).
	 */
	barrier_var(bucket);
	if (bucket < HIST_BUCKETS) {
		c->acc_hist[h][bucket]++;
		c->acc_hist_last[h] = bucket + 1;
	}
}

/*
 * Folds the thread's finished folio in context c into its sum and
 * histograms (finish_folio(), and wb_fill() inline before it reuses c).
 */
static __always_inline int finish_folio_body(struct wb_ctx *c, __u64 now)
{
	__u64 dirty;

	/* a global function's pointer argument may be NULL: check first */
	if (!c || !c->counted)
		return 0;
	dirty = c->app_dirty_blocks + c->other_dirty_blocks;
	if (c->acc_folios && (c->acc_key.ino != c->key.ino || c->acc_key.dev != c->key.dev))
		acc_fold(c);
	if (!c->acc_folios) {
		/* acc_hist: all 0 already, see fold_hist() */
		__builtin_memset(&c->acc, 0, sizeof(c->acc));
		c->acc_key.ino = c->key.ino;
		c->acc_key.dev = c->key.dev;
		c->acc_first_ns = now;
	}
	/*
	 * Without this, clang merges the zeroed and the loaded sum into
	 * registers it spills: 160 bytes of stack, too many for the call
	 * chain of wb_fill(), which inlines this. Each field is added in
	 * place instead.
	 */
	asm volatile("" ::: "memory");
	acc_add_folio(&c->acc, c, dirty);
	c->acc_folios++;
	acc_hist_add(c, HIST_DIRTY_BLOCKS, log2_bucket(dirty));
	acc_hist_add(c, HIST_SUBMITTED_BLOCKS, log2_bucket(c->submitted_blocks));
	acc_hist_add(c, HIST_FOLIO_BYTES, log2_bucket(c->folio_bytes));
	if (dirty)
		acc_hist_add(c, HIST_AMPLIFICATION, amp_bucket(c->submitted_blocks, dirty));
	if (dirty && c->violation_blocks)
		note_violation(c, dirty);
	if (now - c->acc_first_ns >= ACC_MAX_NS)
		acc_fold(c);
	return 0;
}

#endif /* IOMAPDIRTY_FINISH_BPF_H */
