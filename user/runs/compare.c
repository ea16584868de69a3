// SPDX-License-Identifier: GPL-2.0
/* The rows of a comparison of run files: see compare.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model/histograms.h"
#include "runs/compare.h"
#include "output/escape.h"
#include "lib/exitcodes.h"

/* The stats figures compared, in their order on the page. */
static const struct {
	enum run_field field;
	const char *label;
	enum cmp_kind kind;
} stats_rows[] = {
	{ RF_app_bytes, "application bytes", CMP_BYTES },
	{ RF_write_calls, "write calls", CMP_COUNT },
	{ RF_dirty_blocks, "dirty blocks", CMP_COUNT },
	{ RF_dirty_bytes, "dirty bytes", CMP_BYTES },
	{ RF_submitted_blocks, "submitted blocks", CMP_COUNT },
	{ RF_submitted_bytes, "submitted bytes", CMP_BYTES },
	{ RF_folios, "folios written back", CMP_COUNT },
	{ RF_folio_bytes, "folio bytes", CMP_BYTES },
	{ RF_block_bytes, "block size", CMP_BYTES },
};

static struct cmp_row *add_row(struct cmp_table *t, const char *key,
			       const char *label, enum cmp_kind kind)
{
	struct cmp_row *r;

	if (t->nrows >= CMP_MAX_ROWS)
		return NULL;
	r = &t->rows[t->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->label, sizeof(r->label), "%s", label);
	r->kind = kind;
	return r;
}

static struct run_num known_u64(uint64_t u)
{
	return (struct run_num){ .u = u, .v = (double)u, .known = true };
}

static struct run_num known_double(double v)
{
	return (struct run_num){ .v = v, .known = true };
}

void cmp_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (u < 4 && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", bytes, units[u]);
}

/* The folio-size mix: one row per folio_bytes bucket any run has. */
static void add_folio_mix(struct cmp_table *t)
{
	for (unsigned int k = 0; k < HIST_BUCKETS; k++) {
		char key[40], label[32], size[16];
		struct bucket_bounds b;
		struct cmp_row *r;
		bool any = false;

		for (int i = 0; i < t->nruns; i++)
			any |= t->runs[i].hists[HIST_FOLIO_BYTES][k] != 0;
		if (!any)
			continue;
		/* folios are powers of two: a bucket's lower bound is the size */
		hist_bucket_bounds(HIST_FOLIO_BYTES, k, &b);
		cmp_format_size(b.min, size, sizeof(size));
		snprintf(key, sizeof(key), "folios_%" PRIu64, b.min);
		snprintf(label, sizeof(label), "folios of %s%s", size,
			 k == HIST_BUCKETS - 1 ? "+" : "");
		r = add_row(t, key, label, CMP_COUNT);
		for (int i = 0; r && i < t->nruns; i++)
			if (t->runs[i].hist_known[HIST_FOLIO_BYTES])
				r->val[i] = known_u64(t->runs[i].hists[HIST_FOLIO_BYTES][k]);
	}
}

/* fio's figures for one direction, if any run did I/O that way. */
static void add_fio(struct cmp_table *t, bool write)
{
	static const struct {
		const char *key, *label;
		enum cmp_kind kind;
	} rows[] = {
		{ "bw_bytes", "bandwidth", CMP_BW },
		{ "iops", "IOPS", CMP_IOPS },
		{ "lat_mean_ns", "latency", CMP_LAT_NS },
	};
	const char *dir = write ? "write" : "read";
	bool any = false;

	for (int i = 0; i < t->nruns; i++) {
		const struct fio_summary *f = &t->runs[i].fio;

		any |= f->present && (write ? f->write.io_bytes : f->read.io_bytes);
	}
	if (!any)
		return;
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		char key[40], label[32];
		struct cmp_row *r;

		snprintf(key, sizeof(key), "fio_%s_%s", dir, rows[k].key);
		snprintf(label, sizeof(label), "fio %s %s", dir, rows[k].label);
		r = add_row(t, key, label, rows[k].kind);
		for (int i = 0; r && i < t->nruns; i++) {
			const struct fio_summary *f = &t->runs[i].fio;
			const struct fio_dir *d = write ? &f->write : &f->read;

			if (!f->present)
				continue;
			r->val[i] = k == 0 ? known_u64(d->bw_bytes) :
				    known_double(k == 1 ? d->iops : d->lat_mean_ns);
		}
	}
}

/* The names compared: equal or not. */
enum text_figure { TEXT_FAMILY, TEXT_ACCOUNTING, TEXT_PROBES };

static const char *run_text(const struct run_file *rf, enum text_figure f)
{
	const char *s = f == TEXT_FAMILY ? rf->family :
			f == TEXT_ACCOUNTING ? rf->accounting : rf->probes;

	return s && *s ? s : NULL;
}

/* A row only when some run names it (no accounting level yet: no row). */
static void add_text(struct cmp_table *t, const char *key, const char *label,
		     enum text_figure f)
{
	struct cmp_row *r;
	bool any = false;

	for (int i = 0; i < t->nruns; i++)
		any |= run_text(&t->runs[i], f) != NULL;
	if (!any)
		return;
	r = add_row(t, key, label, CMP_TEXT);
	for (int i = 0; r && i < t->nruns; i++)
		r->text[i] = run_text(&t->runs[i], f);
}

static void default_label(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, base);
}

/*
 * Builds the rows for n runs. labels: NULL for the file names without
 * their directory and ".json".
 */
static void cmp_build(struct cmp_table *t, const struct run_file *runs, int n,
	       char *const *labels)
{
	struct cmp_row *r;

	memset(t, 0, sizeof(*t));
	t->nruns = n < CMP_MAX_RUNS ? n : CMP_MAX_RUNS;
	t->runs = runs;
	for (int i = 0; i < t->nruns; i++) {
		if (labels)
			snprintf(t->labels[i], CMP_LABEL_LEN, "%s", labels[i]);
		else
			default_label(runs[i].path, t->labels[i], CMP_LABEL_LEN);
	}
	r = add_row(t, "seconds", "seconds", CMP_SECONDS);
	for (int i = 0; i < t->nruns; i++)
		r->val[i] = runs[i].seconds;
	for (size_t k = 0; k < sizeof(stats_rows) / sizeof(stats_rows[0]); k++) {
		r = add_row(t, run_field_names[stats_rows[k].field],
			    stats_rows[k].label, stats_rows[k].kind);
		for (int i = 0; i < t->nruns; i++)
			r->val[i] = runs[i].totals.f[stats_rows[k].field];
	}
	r = add_row(t, "block_rounding", "block rounding", CMP_RATIO);
	for (int i = 0; i < t->nruns; i++)
		r->val[i] = runs[i].totals.block_rounding;
	r = add_row(t, "folio_amplification", "folio amplification", CMP_RATIO);
	for (int i = 0; i < t->nruns; i++)
		r->val[i] = runs[i].totals.folio_amplification;
	add_folio_mix(t);
	r = add_row(t, "losses", "losses (all kinds)", CMP_COUNT);
	for (int i = 0; i < t->nruns; i++)
		r->val[i] = known_u64(run_file_losses(&runs[i]));
	add_fio(t, true);
	add_fio(t, false);
	add_text(t, "family", "kernel family", TEXT_FAMILY);
	add_text(t, "accounting", "accounting level", TEXT_ACCOUNTING);
	add_text(t, "probes", "probes", TEXT_PROBES);
}

void cmp_format_value(const struct cmp_row *r, int run, char *buf, size_t len)
{
	const struct run_num *v = &r->val[run];

	if (r->kind == CMP_TEXT) {
		snprintf(buf, len, "%s", r->text[run] ? r->text[run] : "n/a");
		return;
	}
	if (!v->known) {
		snprintf(buf, len, "n/a");
		return;
	}
	switch (r->kind) {
	case CMP_RATIO:
		snprintf(buf, len, "%.2f", v->v);
		break;
	case CMP_SECONDS:
		snprintf(buf, len, "%.3f s", v->v);
		break;
	case CMP_BW:
		snprintf(buf, len, "%.1f MB/s", v->v / 1e6);
		break;
	case CMP_IOPS:
		snprintf(buf, len, "%.0f", v->v);
		break;
	case CMP_LAT_NS:
		snprintf(buf, len, "%.1f us", v->v / 1e3);
		break;
	default:
		snprintf(buf, len, "%" PRIu64, v->u);
	}
}

bool cmp_ratio(const struct cmp_row *r, int run, double *ratio)
{
	const struct run_num *a = &r->val[0], *b = &r->val[run];

	if (r->kind == CMP_TEXT || !a->known || !b->known || a->v == 0)
		return false;
	*ratio = b->v / a->v;
	return true;
}

/* Integers compare exactly; the others as the files wrote them. */
static bool values_equal(const struct cmp_row *r, int run)
{
	const struct run_num *a = &r->val[0], *b = &r->val[run];

	if (r->kind == CMP_COUNT || r->kind == CMP_BYTES || r->kind == CMP_BW)
		return a->u == b->u;
	return a->v == b->v;
}

void cmp_format_change(const struct cmp_row *r, int run, char *buf, size_t len)
{
	const struct run_num *a = &r->val[0], *b = &r->val[run];
	double f;

	if (r->kind == CMP_TEXT) {
		if (!r->text[0] || !r->text[run])
			snprintf(buf, len, "n/a");
		else
			snprintf(buf, len, "%s", strcmp(r->text[0], r->text[run]) ?
				 "differs" : "same");
		return;
	}
	if (!a->known || !b->known || !isfinite(a->v) || !isfinite(b->v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (values_equal(r, run)) {
		snprintf(buf, len, "same");
		return;
	}
	if (a->v == 0 || b->v == 0) {
		snprintf(buf, len, a->v == 0 ? "from 0" : "to 0");
		return;
	}
	f = b->v > a->v ? b->v / a->v : a->v / b->v;
	snprintf(buf, len, f < 10 ? "%.2fx %s" : "%.1fx %s", f,
		 b->v > a->v ? "more" : "less");
}

static int run_files_load(char *const *files, int n, struct run_file *runs)
{
	char err[1024], safe[1024];

	for (int i = 0; i < n; i++) {
		if (!run_file_load(files[i], &runs[i], err, sizeof(err)))
			continue;
		text_sanitize(err, safe, sizeof(safe));
		fprintf(stderr, "iomapdirty: %s\n", safe);
		while (i-- > 0)
			run_file_free(&runs[i]);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int run_set_load(const struct run_set_args *a, struct run_file *runs,
		 struct cmp_table *t)
{
	int ret = run_files_load(a->files, a->nfiles, runs);

	if (!ret)
		cmp_build(t, runs, a->nfiles, a->labels_arg ? a->labels : NULL);
	return ret;
}

void run_set_free(const struct run_set_args *a, struct run_file *runs)
{
	for (int i = 0; i < a->nfiles; i++)
		run_file_free(&runs[i]);
}

enum { OPT_LABELS = 0x700 };

static const struct argp_option run_set_options[] = {
	{ "labels", OPT_LABELS, "A,B,...", 0,
	  "Names of the runs, one per file (default: the file names)", 0 },
	{},
};

static error_t run_set_parse(int key, char *arg, struct argp_state *state)
{
	struct run_set_args *a = state->input;

	switch (key) {
	case OPT_LABELS:
		a->labels_arg = arg;
		a->nlabels = 0;
		for (char *save = NULL, *l = strtok_r(arg, ",", &save); l;
		     l = strtok_r(NULL, ",", &save)) {
			if (a->nlabels == CMP_MAX_RUNS)
				argp_error(state, "--labels: at most %d", CMP_MAX_RUNS);
			a->labels[a->nlabels++] = l;
		}
		break;
	case ARGP_KEY_ARGS:
		a->files = state->argv + state->next;
		a->nfiles = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (a->nfiles < a->min_files)
			argp_error(state, "needs at least %s run file%s (`run --json "
				   "FILE`), got %d", a->min_files == 1 ? "one" : "two",
				   a->min_files == 1 ? "" : "s", a->nfiles);
		if (a->nfiles > CMP_MAX_RUNS)
			argp_error(state, "takes at most %d run files", CMP_MAX_RUNS);
		if (a->labels_arg && a->nlabels != a->nfiles)
			argp_error(state, "--labels names %d runs for %d files",
				   a->nlabels, a->nfiles);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp run_set_argp = { .options = run_set_options, .parser = run_set_parse };
