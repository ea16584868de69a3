// SPDX-License-Identifier: GPL-2.0
/* Counting a finished folio: see sums.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sums.bpf.h"
#include "buckets.h"

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
					  __u64 dirty_blocks, __u64 now)
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
	ACC(s, kernel_dirty_blocks, c->kernel_dirty_blocks);
	ACC(s, bitmap_folios, c->bitmap_read);
	ACC(s, nlink, c->nlink);
	ACC(s, last_ns, now);
}

/*
 * Merges a thread's sum a into shared totals s. Several CPUs may fold
 * sums of one file at once: SUM fields are added atomically, and only if
 * there is something to add; MAX and GAUGE fields are stored.
 */
#define MERGE_SUM(f)	do { if (a->f) __sync_fetch_and_add(&s->f, a->f); } while (0);
#define MERGE_MAX(f)	do { if (a->f > s->f) s->f = a->f; } while (0);
#define MERGE_GAUGE(f)	s->f = a->f;
#define MERGE(name, unit, merge, json, level)	MERGE_##merge(name)

static __always_inline void stats_merge(struct wa_stats *s, const struct wa_stats *a)
{
	WA_STATS_FIELDS(MERGE)
}

static __always_inline void note_violation(struct wb_ctx *c, __u64 dirty)
{
	struct violation v = {
		.first_offset = c->folio_pos + c->first_violation - 1,
		.clean_blocks = c->violation_blocks,
		.folio_bytes = c->folio_bytes,
		.dirty_blocks = dirty,
	};
	/* on the stack: before 6.2 a global function's argument cannot be a map key */
	struct page_key key = c->key;

	/* the first offenders are kept; once full, later ones are counted */
	map_try_insert(&violations, &key, &v, CNT_VIOLATION_MAP_FULL);
}

/*
 * Adds a thread's histogram counts into a filesystem's. The buckets are
 * folded here, with the sums, and not counted in a map of their own as the
 * folio finishes: a sum reaches the shared totals up to ACC_MAX_NS later,
 * and an interval would count folios in its histograms that its totals
 * count only in the next one (issue 11, item 9: 5560 folios written back
 * against 6166 in the histograms of the same interval).
 */
static __always_inline void fold_hist(struct fs_stats *fs, const struct wb_ctx *c)
{
	for (int h = 0; h < NR_HISTS; h++)
		for (int b = 0; b < HIST_BUCKETS; b++)
			if (c->acc_hist[h][b])
				__sync_fetch_and_add(&fs->hist[h][b], c->acc_hist[h][b]);
}

/* A global function: called from finish_folio() and the flush. */
__noinline int acc_fold(struct wb_ctx *c)
{
	struct fs_stats *fs;
	struct wa_stats *s;

	if (!c || !c->acc_folios)
		return 0;
	totals_of(c->acc_key.dev, c->acc_key.ino, &s, &fs);
	if (s)
		stats_merge(s, &c->acc);
	/* sums and histograms of the same folios, inside one fold (fs_stats) */
	if (fs) {
		fold_seq_bump(&fs->folds_begun);
		stats_merge(&fs->s, &c->acc);
		fold_hist(fs, c);
		fold_seq_bump(&fs->folds_done);
	}
	c->acc_folios = 0;
	return 0;
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
	if (bucket < HIST_BUCKETS)
		c->acc_hist[h][bucket]++;
}

/* A global function: the verifier checks it once, not at every caller. */
__noinline int finish_folio(struct wb_ctx *c, __u64 now)
{
	__u64 dirty;

	/* a global function's pointer argument may be NULL: check first */
	if (!c || !c->counted)
		return 0;
	dirty = c->app_dirty_blocks + c->other_dirty_blocks;
	if (c->acc_folios && (c->acc_key.ino != c->key.ino || c->acc_key.dev != c->key.dev))
		acc_fold(c);
	if (!c->acc_folios) {
		__builtin_memset(&c->acc, 0, sizeof(c->acc));
		__builtin_memset(c->acc_hist, 0, sizeof(c->acc_hist));
		c->acc_key.ino = c->key.ino;
		c->acc_key.dev = c->key.dev;
		c->acc_first_ns = now;
	}
	acc_add_folio(&c->acc, c, dirty, now);
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
