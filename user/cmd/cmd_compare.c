// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty compare A.json B.json [...]: the runs side by side, and how
 * each differs from the first as a factor; text for mail (80 columns),
 * markdown for pull requests, JSON for scripts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "runs/compare.h"
#include "output/escape.h"
#include "lib/exitcodes.h"
#include "output/json.h"
#include "output/report.h"

enum cmp_format { FORMAT_TEXT, FORMAT_MARKDOWN, FORMAT_JSON };

struct compare_args {
	struct run_set_args set;
	enum cmp_format format;
};

enum { OPT_FORMAT = 0x500 };

static const struct argp_option compare_options[] = {
	{ "format", OPT_FORMAT, "FORMAT", 0, "text (default, 80 columns), markdown or json", 0 },
	{},
};

static error_t compare_parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->set;
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->format = FORMAT_TEXT;
		else if (!strcmp(arg, "markdown") || !strcmp(arg, "md"))
			a->format = FORMAT_MARKDOWN;
		else if (!strcmp(arg, "json"))
			a->format = FORMAT_JSON;
		else
			argp_error(state, "--format wants text, markdown or json");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------- text */

#define TEXT_LABEL_COLS	22
#define TEXT_CELL_COLS	14
#define TEXT_MAX_CELLS	4	/* 22 + 4 * 14 = 78 columns */

/*
 * s sanitized and cut to at most cols columns (one per code point; names
 * here are not expected to hold double-width characters), '~' marking a
 * cut. Returns the columns used.
 */
static int fit(const char *s, int cols, char *buf, size_t len)
{
	char safe[512];
	int used = 0;
	size_t n = 0;

	text_sanitize(s, safe, sizeof(safe));
	for (const unsigned char *p = (const unsigned char *)safe; *p;) {
		uint32_t cp;
		size_t k = utf8_decode(p, strlen((const char *)p), &cp);

		if (used == cols - 1 && p[k]) {
			if (n + 1 < len)
				buf[n++] = '~';
			used++;
			break;
		}
		if (n + k >= len)
			break;
		memcpy(buf + n, p, k);
		n += k;
		p += k;
		used++;
	}
	buf[n] = '\0';
	return used;
}

static void put_cell(FILE *out, const char *s, int cols, bool right)
{
	char buf[256];
	int used = fit(s, cols - 1, buf, sizeof(buf));

	if (right)
		fprintf(out, "%*s%s", cols - used, "", buf);
	else
		fprintf(out, "%s%*s", buf, cols - used, "");
}

/* A column of the text table: a run's values, or its change against A. */
struct text_col {
	int run;
	bool change;
};

static void text_table(FILE *out, const struct cmp_table *t, const struct text_col *cols,
		       int ncols)
{
	char buf[64];

	put_cell(out, "figure", TEXT_LABEL_COLS, false);
	for (int c = 0; c < ncols; c++) {
		if (cols[c].change)
			snprintf(buf, sizeof(buf), "%c vs A", 'A' + cols[c].run);
		else
			snprintf(buf, sizeof(buf), "%c %s", 'A' + cols[c].run,
				 t->labels[cols[c].run]);
		put_cell(out, buf, TEXT_CELL_COLS, true);
	}
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];

		put_cell(out, row->label, TEXT_LABEL_COLS, false);
		for (int c = 0; c < ncols; c++) {
			if (cols[c].change)
				cmp_format_change(row, cols[c].run, buf, sizeof(buf));
			else
				cmp_format_value(row, cols[c].run, buf, sizeof(buf));
			put_cell(out, buf, TEXT_CELL_COLS, true);
		}
		fputc('\n', out);
	}
}

/* Each run in a line or two, cut at 80 columns. */
static void text_runs(FILE *out, const struct cmp_table *t)
{
	char line[1024], buf[512];

	for (int i = 0; i < t->nruns; i++) {
		const struct run_file *rf = &t->runs[i];

		snprintf(line, sizeof(line), "%s: %s", t->labels[i], rf->path);
		fit(line, 76, buf, sizeof(buf));
		fprintf(out, "  %c %s\n", 'A' + i, buf);
		snprintf(line, sizeof(line), "host %s, kernel %s, family %s%s%s",
			 rf->host ? rf->host : "n/a", rf->kernel ? rf->kernel : "n/a",
			 rf->family[0] ? rf->family : "n/a",
			 rf->accounting ? ", accounting " : "",
			 rf->accounting ? rf->accounting : "");
		fit(line, 76, buf, sizeof(buf));
		fprintf(out, "    %s\n", buf);
	}
}

static void print_text(FILE *out, const struct cmp_table *t)
{
	struct text_col cols[CMP_MAX_RUNS];
	int n = 0;

	fprintf(out, "iomapdirty compare: %d runs\n", t->nruns);
	text_runs(out, t);
	if (t->nruns == 2) {
		cols[0] = (struct text_col){ 0, false };
		cols[1] = (struct text_col){ 1, false };
		cols[2] = (struct text_col){ 1, true };
		fputc('\n', out);
		text_table(out, t, cols, 3);
		return;
	}
	/* more runs: the values, then the changes, TEXT_MAX_CELLS at a time */
	for (int i = 0; i < t->nruns; i++)
		cols[n++] = (struct text_col){ i, false };
	for (int i = 1; i < t->nruns; i++)
		cols[n++] = (struct text_col){ i, true };
	for (int c = 0; c < n;) {
		int k = 0;

		while (c + k < n && k < TEXT_MAX_CELLS &&
		       cols[c + k].change == cols[c].change)
			k++;
		fputc('\n', out);
		text_table(out, t, cols + c, k);
		c += k;
	}
}

/* --------------------------------------------------------- markdown */

static void print_markdown(FILE *out, const struct cmp_table *t)
{
	char buf[64];

	fprintf(out, "**iomapdirty compare**: %d runs\n\n", t->nruns);
	for (int i = 0; i < t->nruns; i++) {
		const struct run_file *rf = &t->runs[i];

		fputs("- **", out);
		markdown_escape(out, t->labels[i]);
		fputs("**: ", out);
		markdown_escape(out, rf->path);
		fputs("; host ", out);
		markdown_escape(out, rf->host ? rf->host : "n/a");
		fputs(", kernel ", out);
		markdown_escape(out, rf->kernel ? rf->kernel : "n/a");
		fputs(", family ", out);
		markdown_escape(out, rf->family[0] ? rf->family : "n/a");
		if (rf->accounting) {
			fputs(", accounting ", out);
			markdown_escape(out, rf->accounting);
		}
		fputc('\n', out);
	}
	fputs("\n| figure |", out);
	for (int i = 0; i < t->nruns; i++) {
		fputc(' ', out);
		markdown_escape(out, t->labels[i]);
		fputs(" |", out);
	}
	for (int i = 1; i < t->nruns; i++) {
		fputc(' ', out);
		markdown_escape(out, t->labels[i]);
		fputs(" vs ", out);
		markdown_escape(out, t->labels[0]);
		fputs(" |", out);
	}
	fputs("\n|---|", out);
	for (int i = 0; i < 2 * t->nruns - 1; i++)
		fputs("---:|", out);
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];

		fprintf(out, "| %s |", row->label);
		for (int i = 0; i < t->nruns; i++) {
			cmp_format_value(row, i, buf, sizeof(buf));
			fputc(' ', out);
			markdown_escape(out, buf);
			fputs(" |", out);
		}
		for (int i = 1; i < t->nruns; i++) {
			cmp_format_change(row, i, buf, sizeof(buf));
			fprintf(out, " %s |", buf);
		}
		fputc('\n', out);
	}
}

/* ------------------------------------------------------------- JSON */

static const char *const kind_units[] = {
	[CMP_COUNT] = "count", [CMP_BYTES] = "bytes", [CMP_RATIO] = "ratio",
	[CMP_SECONDS] = "seconds", [CMP_BW] = "bytes_per_second",
	[CMP_IOPS] = "iops", [CMP_LAT_NS] = "ns", [CMP_TEXT] = "text",
};

static void json_value(struct json *j, const struct cmp_row *r, int i)
{
	if (r->kind == CMP_TEXT)
		json_string(j, r->text[i]);
	else if (!r->val[i].known)
		json_null(j);
	else if (r->kind == CMP_COUNT || r->kind == CMP_BYTES || r->kind == CMP_BW)
		json_u64(j, r->val[i].u);
	else
		json_double(j, r->val[i].v);
}

static void json_row(struct json *j, const struct cmp_table *t, const struct cmp_row *r)
{
	char buf[64];
	double ratio;

	json_object_begin(j);
	json_kv_string(j, "figure", r->key);
	json_kv_string(j, "label", r->label);
	json_kv_string(j, "unit", kind_units[r->kind]);
	json_key(j, "values");
	json_array_begin(j);
	for (int i = 0; i < t->nruns; i++)
		json_value(j, r, i);
	json_array_end(j);
	json_key(j, "ratio_to_first");
	json_array_begin(j);
	for (int i = 0; i < t->nruns; i++) {
		if (i > 0 && cmp_ratio(r, i, &ratio))
			json_double(j, ratio);
		else
			json_null(j);
	}
	json_array_end(j);
	json_key(j, "change");
	json_array_begin(j);
	json_null(j);
	for (int i = 1; i < t->nruns; i++) {
		cmp_format_change(r, i, buf, sizeof(buf));
		json_string(j, buf);
	}
	json_array_end(j);
	json_object_end(j);
}

static void print_json(FILE *out, const struct cmp_table *t)
{
	struct json j;

	json_init(&j, out);
	json_object_begin(&j);
	json_kv_string(&j, "schema", IOMAPDIRTY_SCHEMA);
	json_kv_string(&j, "type", "compare");
	json_key(&j, "runs");
	json_array_begin(&j);
	for (int i = 0; i < t->nruns; i++) {
		const struct run_file *rf = &t->runs[i];

		json_object_begin(&j);
		json_kv_string(&j, "label", t->labels[i]);
		json_kv_string(&j, "file", rf->path);
		json_kv_string(&j, "host", rf->host);
		json_kv_string(&j, "kernel", rf->kernel);
		json_kv_string(&j, "family", rf->family[0] ? rf->family : NULL);
		json_kv_string(&j, "accounting", rf->accounting);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "rows");
	json_array_begin(&j);
	for (int r = 0; r < t->nrows; r++)
		json_row(&j, t, &t->rows[r]);
	json_array_end(&j);
	json_object_end(&j);
}

/* ------------------------------------------------------------------ */

static int run_compare(struct session *unused, void *args)
{
	static struct run_file runs[CMP_MAX_RUNS];
	static struct cmp_table table;
	const struct compare_args *a = args;
	int ret = run_set_load(&a->set, runs, &table);

	if (ret)
		return ret;
	if (a->format == FORMAT_TEXT)
		print_text(stdout, &table);
	else if (a->format == FORMAT_MARKDOWN)
		print_markdown(stdout, &table);
	else
		print_json(stdout, &table);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "iomapdirty: writing the comparison: %s\n", strerror(errno));
		ret = EXIT_RUNTIME;
	}
	run_set_free(&a->set, runs);
	return ret;
}

static struct compare_args compare_args = { .set.min_files = 2 };

static const struct argp_child compare_children[] = {
	{ &run_set_argp, 0, NULL, 0 },
	{},
};

static const struct argp compare_argp = {
	.options = compare_options, .parser = compare_parse, .children = compare_children,
};

/* No session: it reads files only, and needs no privilege. */
const struct command compare_command = {
	.name = "compare",
	.help = "compare run files side by side (text, markdown, json)",
	.doc = "Compare runs (`iomapdirty run --json FILE`): each figure side by "
	       "side, and the change against the first as a factor.",
	.args_doc = "A.json B.json [MORE.json...]",
	.argp = &compare_argp,
	.args = &compare_args,
	.run = run_compare,
};
