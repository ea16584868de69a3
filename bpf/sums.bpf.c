// SPDX-License-Identifier: GPL-2.0
/* Counting a finished folio: see sums.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sums.bpf.h"
#include "bits.bpf.h"
#include "finish.bpf.h"
#include "cgroup_sums.bpf.h"

/*
 * Merges a thread's sum a into shared totals s. Several CPUs may fold
 * sums of one file at once: SUM fields are added atomically, and only if
 * there is something to add; MAX and GAUGE fields are stored.
 */
#define MERGE_SUM(f)	do { if (a->f) __sync_fetch_and_add(&s->f, a->f); } while (0);
#define MERGE_MAX(f)	do { if (a->f > s->f) s->f = a->f; } while (0);
#define MERGE_GAUGE(f)	s->f = a->f;
#define MERGE_FIRST(f)
#define MERGE_OWN(f)
#define MERGE(name, unit, merge, json, level, help)	MERGE_##merge(name)

static __always_inline void stats_merge(struct wa_stats *s, const struct wa_stats *a)
{
	WA_STATS_FIELDS(MERGE)
}

/*
 * A global function: rare (a folio that sent clean blocks), its two
 * structures off the stack of wb_fill(), which inlines finish_folio_body().
 */
__noinline int note_violation(struct wb_ctx *c, __u64 dirty)
{
	struct violation v;
	struct page_key key;

	if (!c)
		return 0;
	v = (struct violation){
		.first_offset = c->folio_pos + c->first_violation - 1,
		.clean_blocks = c->violation_blocks,
		.folio_bytes = c->folio_bytes,
		.dirty_blocks = dirty,
	};
	/* on the stack: before 6.2 a global function's argument cannot be a map key */
	key = c->key;
	/* the first offenders are kept; once full, later ones are counted */
	map_try_insert(&violations, &key, &v, CNT_VIOLATION_MAP_FULL);
	return 0;
}

/*
 * Adds a thread's histogram counts into a filesystem's. The buckets are
 * folded here, with the sums, and not counted in a map of their own as the
 * folio finishes: a sum reaches the shared totals up to ACC_MAX_NS later,
 * and an interval would count folios in its histograms that its totals
 * count only in the next one (issue 11, item 9: 5560 folios written back
 * against 6166 in the histograms of the same interval). Empties the
 * thread's buckets (finish_folio_body() counts into zeroed ones), also
 * where there is no filesystem entry to add them to (fs NULL).
 */
static __always_inline void fold_hist(struct fs_stats *fs, struct wb_ctx *c)
{
	if (c->acc_folios == 1) {
		/* one folio: one bucket per histogram, the last one counted */
		for (int h = 0; h < NR_HISTS; h++) {
			/* none (0) wraps: one unsigned test bounds it (6.1 too) */
			__u64 b = (__u64)c->acc_hist_last[h] - 1;

			barrier_var(b);
			if (b >= HIST_BUCKETS)
				continue;
			if (fs)
				__sync_fetch_and_add(&fs->hist[h][b], c->acc_hist[h][b]);
			c->acc_hist[h][b] = 0;
		}
	} else {
		for (int h = 0; h < NR_HISTS; h++)
			for (int b = 0; b < HIST_BUCKETS; b++)
				if (fs && c->acc_hist[h][b])
					__sync_fetch_and_add(&fs->hist[h][b], c->acc_hist[h][b]);
		__builtin_memset(c->acc_hist, 0, sizeof(c->acc_hist));
	}
	__builtin_memset(c->acc_hist_last, 0, sizeof(c->acc_hist_last));
}

/* A global function: called from finish_folio() and the flush. */
__noinline int acc_fold(struct wb_ctx *c)
{
	struct wa_stats *s, *cg;
	struct fs_stats *fs;

	if (!c || !c->acc_folios)
		return 0;
	/* when the totals changed: user space looks for files with news by it */
	c->acc.last_ns = bpf_ktime_get_ns();
	totals_of(c->acc_key.dev, c->acc_key.ino, &s, &fs);
	if (s)
		stats_merge(s, &c->acc);
	/* sums and histograms of the same folios, inside one fold (fs_stats) */
	if (fs) {
		fold_seq_bump(&fs->folds_begun);
		stats_merge(&fs->s, &c->acc);
		fold_hist(fs, c);
		fold_seq_bump(&fs->folds_done);
	} else {
		fold_hist(NULL, c);	/* lost (fs_map_full): emptied all the same */
	}
	/* after the filesystem: one reading of both finds it in the totals */
	cg = cgroup_totals_of(c->acc_key.dev, c->acc_key.ino);
	if (cg)
		stats_merge(cg, &c->acc);
	c->acc_folios = 0;
	return 0;
}

/* A global function: the verifier checks it once, not at every caller. */
__noinline int finish_folio(struct wb_ctx *c, __u64 now)
{
	return finish_folio_body(c, now);
}
