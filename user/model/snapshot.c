// SPDX-License-Identifier: GPL-2.0
/* Snapshot arithmetic: see snapshot.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "model/snapshot.h"

#define COUNTER_NAME(id, name)	[id] = name,
const char *const counter_names[NR_COUNTERS] = {
	EVENT_COUNTERS(COUNTER_NAME)
	LOSS_COUNTERS(COUNTER_NAME)
};
#undef COUNTER_NAME

#define WA_FIELD_ROW(name, unit, merge, json, level, help)				\
	{ #name, unit, offsetof(struct wa_stats, name), WA_##merge, WA_##json,	\
	  WA_NEED_##level },
const struct wa_field wa_stats_fields[NR_WA_STATS_FIELDS] = {
	WA_STATS_FIELDS(WA_FIELD_ROW)
};
#undef WA_FIELD_ROW

void snapshot_free(struct snapshot *s)
{
	free(s->fs);
	free(s->files);
	memset(s, 0, sizeof(*s));
}

void stats_sub(struct wa_stats *out, const struct wa_stats *a,
	       const struct wa_stats *b)
{
	struct wa_stats r = *a;

#define SUB_SUM(f)	r.f = a->f - (b ? b->f : 0);
#define SUB_MAX(f)
#define SUB_GAUGE(f)
#define SUB_FIRST(f)
#define SUB_OWN(f)
#define SUB(name, unit, merge, json, level, help)	SUB_##merge(name)
	WA_STATS_FIELDS(SUB)
#undef SUB
#undef SUB_SUM
#undef SUB_MAX
#undef SUB_GAUGE
#undef SUB_FIRST
#undef SUB_OWN
	*out = r;
}

void stats_add_into(struct wa_stats *t, const struct wa_stats *s)
{
	bool newer = s->last_ns > t->last_ns;

#define ADD_SUM(f)	t->f += s->f;
#define ADD_MAX(f)	if (s->f > t->f) t->f = s->f;
#define ADD_GAUGE(f)	if (newer) t->f = s->f;
#define ADD_FIRST(f)	if (!t->f || (s->f && s->f < t->f)) t->f = s->f;
#define ADD_OWN(f)
#define ADD(name, unit, merge, json, level, help)	ADD_##merge(name)
	WA_STATS_FIELDS(ADD)
#undef ADD
#undef ADD_SUM
#undef ADD_MAX
#undef ADD_GAUGE
#undef ADD_FIRST
#undef ADD_OWN
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

/*
 * Each fold adds 1 to folds_begun, then its sums and buckets (every fold
 * adds at least one folio), then 1 to folds_done. Let a be read before t
 * and b after t, with a == b and b's counts equal. Counts only grow: at
 * t, done >= a.folds_done = b.folds_begun >= begun >= done, so no fold
 * was half done at t; and a field a fold changed after t before b read it
 * would differ from a's, read before t. So b is the record at t.
 */
bool fs_stats_settled(const struct fs_stats *a, const struct fs_stats *b)
{
	return b->folds_begun == b->folds_done && !memcmp(a, b, sizeof(*a));
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

/*
 * Whether a file's totals moved between two readings: a later fold
 * (last_ns) or any sum. last_ns alone is not enough: at the always-on
 * level a write is folded into its file (write_sums.bpf.c) without a
 * folio, so without touching last_ns, and a file only written in an
 * interval was left out of it.
 */
static bool stats_moved(const struct wa_stats *cur, const struct wa_stats *prev)
{
	if (cur->last_ns != prev->last_ns)
		return true;
#define MOVED_SUM(f)	if (cur->f != prev->f) return true;
#define MOVED_MAX(f)
#define MOVED_GAUGE(f)
#define MOVED_FIRST(f)	if (cur->f != prev->f) return true;
#define MOVED_OWN(f)
#define MOVED(name, unit, merge, json, level, help)	MOVED_##merge(name)
	WA_STATS_FIELDS(MOVED)
#undef MOVED
#undef MOVED_SUM
#undef MOVED_MAX
#undef MOVED_GAUGE
#undef MOVED_FIRST
#undef MOVED_OWN
	return false;
}

static const struct unwatched_stats *find_unwatched(const struct snapshot *s,
						    const struct unwatched_key *k)
{
	for (int i = 0; s && i < s->nunwatched; i++)
		if (s->unwatched[i].key.dev == k->dev && s->unwatched[i].key.kind == k->kind)
			return &s->unwatched[i].u;
	return NULL;
}

/* The filesystems not watched that moved since prev, and by how much. */
static void unwatched_delta(const struct snapshot *cur, const struct snapshot *prev,
			    struct snapshot *out)
{
	for (int i = 0; i < cur->nunwatched; i++) {
		const struct unwatched_entry *c = &cur->unwatched[i];
		const struct unwatched_stats *p = find_unwatched(prev, &c->key);
		struct unwatched_entry *o = &out->unwatched[out->nunwatched];

		o->key = c->key;
#define UNWATCHED_SUB(name, unit)	o->u.name = c->u.name - (p ? p->name : 0);
		UNWATCHED_FIELDS(UNWATCHED_SUB)
#undef UNWATCHED_SUB
		if (o->u.folios_dirtied)
			out->nunwatched++;
	}
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
	unwatched_delta(cur, prev, out);
	for (int i = 0; i < cur->nfiles; i++) {
		const struct wa_stats *p = find_file(prev, &cur->files[i].key);

		/* files with nothing new in the interval are left out */
		if (p && !stats_moved(&cur->files[i].s, p))
			continue;
		/* evicted and made again: its figures start inside the interval */
		if (p && p->first_ns && p->first_ns != cur->files[i].s.first_ns)
			p = NULL;
		out->files[out->nfiles].key = cur->files[i].key;
		stats_sub(&out->files[out->nfiles].s, &cur->files[i].s, p);
		out->nfiles++;
	}
	return 0;
}
