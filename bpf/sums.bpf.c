// SPDX-License-Identifier: GPL-2.0
/* Counting a finished folio: see sums.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sums.bpf.h"
#include "buckets.h"

static __always_inline void acc_add_folio(struct wa_stats *s, struct wb_ctx *c,
					  __u64 dirty_blocks, __u64 now)
{
	s->app_bytes += c->app_bytes;
	s->write_calls += c->write_calls;
	s->app_dirty_blocks += c->app_dirty_blocks;
	s->other_dirty_blocks += c->other_dirty_blocks;
	s->dirty_blocks += dirty_blocks;
	s->app_dirty_bytes += c->app_dirty_blocks << c->block_bits;
	s->dirty_bytes += dirty_blocks << c->block_bits;
	s->whole_folio_dirty_events += c->whole_dirty;
	s->other_dirty_folios += c->other_dirty_blocks ? 1 : 0;
	s->folios += 1;
	if (!dirty_blocks) {
		s->folios_no_dirty_seen += 1;
		s->unseen_submitted_blocks += c->submitted_blocks;
	}
	s->folio_bytes += c->folio_bytes;
	if (c->folio_bytes > s->max_folio_bytes)
		s->max_folio_bytes = c->folio_bytes;
	s->block_bytes = 1ULL << (c->block_bits & 63);
	s->submitted_blocks += c->submitted_blocks;
	s->submitted_bytes += c->submitted_bytes;
	s->kernel_dirty_blocks += c->kernel_dirty_blocks;
	s->bitmap_folios += c->bitmap_read;
	s->hole_bytes += c->hole_bytes;
	s->violation_blocks += c->violation_blocks;
	s->violation_folios += c->violation_blocks ? 1 : 0;
	s->unexplained_blocks += c->unexplained_blocks;
	s->unchecked_blocks += c->unchecked_blocks;
	s->nlink = c->nlink;
	s->last_ns = now;
}

/* Adds v to *f, atomically, and only if there is something to add. */
#define ADD_IF(f, v) do { if (v) __sync_fetch_and_add(&(f), (v)); } while (0)

/* Several CPUs may fold sums of one file at once: atomic adds. */
static __always_inline void stats_merge(struct wa_stats *s, const struct wa_stats *a)
{
	ADD_IF(s->app_bytes, a->app_bytes);
	ADD_IF(s->write_calls, a->write_calls);
	ADD_IF(s->app_dirty_blocks, a->app_dirty_blocks);
	ADD_IF(s->other_dirty_blocks, a->other_dirty_blocks);
	ADD_IF(s->dirty_blocks, a->dirty_blocks);
	ADD_IF(s->app_dirty_bytes, a->app_dirty_bytes);
	ADD_IF(s->dirty_bytes, a->dirty_bytes);
	ADD_IF(s->whole_folio_dirty_events, a->whole_folio_dirty_events);
	ADD_IF(s->other_dirty_folios, a->other_dirty_folios);
	ADD_IF(s->folios, a->folios);
	ADD_IF(s->folios_no_dirty_seen, a->folios_no_dirty_seen);
	ADD_IF(s->folio_bytes, a->folio_bytes);
	if (a->max_folio_bytes > s->max_folio_bytes)
		s->max_folio_bytes = a->max_folio_bytes;
	s->block_bytes = a->block_bytes;
	ADD_IF(s->submitted_blocks, a->submitted_blocks);
	ADD_IF(s->submitted_bytes, a->submitted_bytes);
	ADD_IF(s->unseen_submitted_blocks, a->unseen_submitted_blocks);
	ADD_IF(s->kernel_dirty_blocks, a->kernel_dirty_blocks);
	ADD_IF(s->bitmap_folios, a->bitmap_folios);
	ADD_IF(s->hole_bytes, a->hole_bytes);
	ADD_IF(s->violation_blocks, a->violation_blocks);
	ADD_IF(s->violation_folios, a->violation_folios);
	ADD_IF(s->unexplained_blocks, a->unexplained_blocks);
	ADD_IF(s->unchecked_blocks, a->unchecked_blocks);
	s->nlink = a->nlink;
	s->last_ns = a->last_ns;
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

/* A global function: called from finish_folio() and the flush. */
__noinline int acc_fold(struct wb_ctx *c)
{
	static const struct wa_stats zero;
	struct file_key fkey = {};
	struct wa_stats *s;
	__u32 dev;

	if (!c || !c->acc_folios)
		return 0;
	fkey.ino = c->acc_key.ino;
	fkey.dev = c->acc_key.dev;
	dev = c->acc_key.dev;
	s = map_lookup_or_try_init(&files, &fkey, &zero, CNT_FILE_MAP_FULL);
	if (s)
		stats_merge(s, &c->acc);
	s = map_lookup_or_try_init(&filesystems, &dev, &zero, CNT_FS_MAP_FULL);
	if (s)
		stats_merge(s, &c->acc);
	c->acc_folios = 0;
	return 0;
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
		c->acc_key.ino = c->key.ino;
		c->acc_key.dev = c->key.dev;
		c->acc_first_ns = now;
	}
	acc_add_folio(&c->acc, c, dirty, now);
	c->acc_folios++;
	hist_add(HIST_DIRTY_BLOCKS, log2_bucket(dirty));
	hist_add(HIST_SUBMITTED_BLOCKS, log2_bucket(c->submitted_blocks));
	hist_add(HIST_FOLIO_BYTES, log2_bucket(c->folio_bytes));
	if (dirty)
		hist_add(HIST_AMPLIFICATION, amp_bucket(c->submitted_blocks, dirty));
	if (dirty && c->violation_blocks)
		note_violation(c, dirty);
	if (now - c->acc_first_ns >= ACC_MAX_NS)
		acc_fold(c);
	return 0;
}
