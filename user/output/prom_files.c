// SPDX-License-Identifier: GPL-2.0
/* The files with per-file series on /metrics: see prom_files.h. */
#include <stdlib.h>
#include <string.h>
#include "output/prom_files.h"

/* What a file had at the baseline: the window is what it gained since. */
static struct {
	struct file_entry *files;
	int nfiles;
	uint64_t taken_ns;
} base;

struct ranked {
	int idx;
	uint64_t submitted, app, first_ns;
	struct file_key key;
};

static int ranked_cmp(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->submitted != y->submitted)
		return x->submitted > y->submitted ? -1 : 1;
	if (x->app != y->app)
		return x->app > y->app ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns > y->first_ns ? -1 : 1;
	return file_entry_cmp(&x->key, &y->key);
}

static void rank_one(struct ranked *r, const struct file_entry *f, int i)
{
	const struct file_entry *was = NULL;

	if (base.nfiles)
		was = bsearch(&f->key, base.files, base.nfiles, sizeof(*was), file_entry_cmp);
	/* an entry made again after an eviction counts from its new start */
	if (was && was->s.first_ns != f->s.first_ns)
		was = NULL;
	r->idx = i;
	r->key = f->key;
	r->first_ns = f->s.first_ns;
	r->submitted = f->s.submitted_bytes - (was ? was->s.submitted_bytes : 0);
	r->app = f->s.app_bytes - (was ? was->s.app_bytes : 0);
}

/* The baseline becomes s (files sorted by key, as engine_snapshot leaves them). */
static void rebase(const struct snapshot *s, uint64_t now_ns)
{
	struct file_entry *copy = malloc((s->nfiles ? s->nfiles : 1) * sizeof(*copy));

	if (!copy)
		return;		/* the old baseline stays: a longer window */
	memcpy(copy, s->files, s->nfiles * sizeof(*copy));
	free(base.files);
	base.files = copy;
	base.nfiles = s->nfiles;
	base.taken_ns = now_ns;
}

int prom_files_top(const struct snapshot *s, int n, uint64_t now_ns, int *idx)
{
	struct ranked *r;

	if (n > s->nfiles)
		n = s->nfiles;
	if (n <= 0)
		return 0;
	r = malloc(s->nfiles * sizeof(*r));
	if (!r)
		return -1;
	for (int i = 0; i < s->nfiles; i++)
		rank_one(&r[i], &s->files[i], i);
	qsort(r, s->nfiles, sizeof(*r), ranked_cmp);
	for (int i = 0; i < n; i++)
		idx[i] = r[i].idx;
	free(r);
	if (!base.taken_ns || now_ns - base.taken_ns >= PROM_FILES_WINDOW_S * 1000000000ull)
		rebase(s, now_ns);
	return n;
}

void prom_files_reset(void)
{
	free(base.files);
	memset(&base, 0, sizeof(base));
}
