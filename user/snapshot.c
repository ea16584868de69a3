// SPDX-License-Identifier: GPL-2.0
/* Snapshot arithmetic: see snapshot.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "snapshot.h"

const char *const counter_names[NR_COUNTERS] = {
	[CNT_WRITE_EVENTS] = "write_events",
	[CNT_WHOLE_DIRTY_EVENTS] = "whole_dirty_events",
	[CNT_DIRTY_FOLIO_EVENTS] = "dirty_folio_events",
	[CNT_WB_START_EVENTS] = "writeback_begin_events",
	[CNT_WB_END_EVENTS] = "writeback_end_events",
	[CNT_SUBMIT_EVENTS] = "submit_events",
	[CNT_INVALIDATE_EVENTS] = "invalidate_events",
	[CNT_FILTERED_WRITES] = "filtered_writes",
	[CNT_FILTERED_FOLIOS] = "filtered_folios",
	[CNT_FLUSHED_CTX] = "flushed_contexts",
	[CNT_BIO_EVENTS] = "bio_events",
	[CNT_SIMULATED_FOLIOS] = "simulated_clean_folios",
	[CNT_PAGE_SPILLS] = "page_records_spilled",
	[CNT_PAGE_MAP_FULL] = "page_map_full",
	[CNT_FILE_MAP_FULL] = "file_map_full",
	[CNT_FS_MAP_FULL] = "fs_map_full",
	[CNT_CTX_MAP_FULL] = "context_map_full",
	[CNT_WRITE_TOO_LARGE] = "write_too_large",
	[CNT_FOLIO_TOO_LARGE] = "folio_too_large",
	[CNT_FOLIO_PTR_MISSING] = "folio_pointer_missing",
	[CNT_FOLIO_PTR_STALE] = "folio_pointer_stale",
	[CNT_SUBMIT_WITHOUT_FOLIO] = "submit_without_folio",
	[CNT_READ_FAILURES] = "read_failures",
	[CNT_PATH_MAP_FULL] = "path_map_full",
	[CNT_VIOLATION_MAP_FULL] = "violation_map_full",
	[CNT_PHYS_MAP_FULL] = "physical_map_full",
};

void snapshot_free(struct snapshot *s)
{
	free(s->fs);
	free(s->files);
	memset(s, 0, sizeof(*s));
}

#define STATS_SUMMED(X) \
	X(app_bytes) X(write_calls) X(app_dirty_blocks) X(other_dirty_blocks) \
	X(dirty_blocks) X(app_dirty_bytes) X(dirty_bytes) X(whole_folio_dirty_events) X(other_dirty_folios) \
	X(folios) X(folios_no_dirty_seen) X(folio_bytes) X(submitted_blocks) \
	X(submitted_bytes) X(unseen_submitted_blocks) X(kernel_dirty_blocks) X(bitmap_folios) X(hole_bytes) \
	X(violation_blocks) X(violation_folios) X(unexplained_blocks) X(unchecked_blocks)

void stats_sub(struct wa_stats *out, const struct wa_stats *a,
	       const struct wa_stats *b)
{
	struct wa_stats r = *a;

#define SUB(f) r.f = a->f - (b ? b->f : 0);
	STATS_SUMMED(SUB)
#undef SUB
	*out = r;
}

void stats_add_into(struct wa_stats *t, const struct wa_stats *s)
{
#define ADD(f) t->f += s->f;
	STATS_SUMMED(ADD)
#undef ADD
	if (s->max_folio_bytes > t->max_folio_bytes)
		t->max_folio_bytes = s->max_folio_bytes;
	if (s->last_ns > t->last_ns) {
		t->last_ns = s->last_ns;
		t->block_bytes = s->block_bytes;
	}
}

void snapshot_totals(const struct snapshot *s, struct wa_stats *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < s->nfs; i++)
		stats_add_into(t, &s->fs[i].s);
}

uint64_t snapshot_losses(const struct snapshot *s)
{
	uint64_t n = 0;

	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		n += s->counters[i];
	return n;
}

static const struct wa_stats *find_fs(const struct snapshot *s, uint32_t dev)
{
	for (int i = 0; s && i < s->nfs; i++)
		if (s->fs[i].dev == dev)
			return &s->fs[i].s;
	return NULL;
}

int file_entry_cmp(const void *a, const void *b)
{
	const struct file_key *x = a, *y = b;	/* key is the first member */

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

/* Files are kept sorted by (dev, ino): see engine_snapshot(). */
static const struct wa_stats *find_file(const struct snapshot *s,
					const struct file_key *k)
{
	const struct file_entry *e;

	if (!s || !s->nfiles)
		return NULL;
	e = bsearch(k, s->files, s->nfiles, sizeof(*e), file_entry_cmp);
	return e ? &e->s : NULL;
}

int snapshot_delta(const struct snapshot *cur, const struct snapshot *prev,
		   struct snapshot *out)
{
	memset(out, 0, sizeof(*out));
	out->seconds = cur->seconds - (prev ? prev->seconds : 0);
	for (int i = 0; i < NR_COUNTERS; i++)
		out->counters[i] = cur->counters[i] - (prev ? prev->counters[i] : 0);
	for (int h = 0; h < NR_HISTS; h++)
		for (int b = 0; b < HIST_BUCKETS; b++)
			out->hists[h][b] = cur->hists[h][b] -
					   (prev ? prev->hists[h][b] : 0);
	out->fs = calloc(cur->nfs ? cur->nfs : 1, sizeof(*out->fs));
	out->files = calloc(cur->nfiles ? cur->nfiles : 1, sizeof(*out->files));
	if (!out->fs || !out->files) {
		snapshot_free(out);
		return -ENOMEM;
	}
	for (int i = 0; i < cur->nfs; i++) {
		out->fs[i].dev = cur->fs[i].dev;
		stats_sub(&out->fs[i].s, &cur->fs[i].s, find_fs(prev, cur->fs[i].dev));
	}
	out->nfs = cur->nfs;
	for (int i = 0; i < cur->nfiles; i++) {
		const struct wa_stats *p = find_file(prev, &cur->files[i].key);

		/* files with nothing new in the interval are left out */
		if (p && p->last_ns == cur->files[i].s.last_ns)
			continue;
		out->files[out->nfiles].key = cur->files[i].key;
		stats_sub(&out->files[out->nfiles].s, &cur->files[i].s, p);
		out->nfiles++;
	}
	return 0;
}
