// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty report A.json [B.json ...] -o report.html: one self-contained
 * HTML page (inline CSS and SVG; no script, font, image or link to fetch;
 * readable without JavaScript, printable): the runs, their totals and, for
 * two or more, the change against the first; the four histograms as bars
 * with their numbers; the files by submitted bytes; the losses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "buckets.h"
#include "cmd/commands.h"
#include "runs/compare.h"
#include "output/escape.h"
#include "lib/exitcodes.h"
#include "output/outfile.h"
#include "output/report.h"

#define REPORT_TOP_FILES	20
#define SVG_W		480
#define SVG_H		190
#define SVG_PLOT_TOP	20
#define SVG_PLOT_H	140

struct report_args {
	struct run_set_args set;
	const char *output;
	const char *title;
};

enum { OPT_TITLE = 0x600 };

static const struct argp_option report_options[] = {
	{ "output", 'o', "FILE", 0, "Write the page to FILE (\"-\": standard output)", 0 },
	{ "title", OPT_TITLE, "TEXT", 0, "The page's title", 0 },
	{},
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->set;
		break;
	case 'o':
		a->output = arg;
		break;
	case OPT_TITLE:
		a->title = arg;
		break;
	case ARGP_KEY_END:
		if (!a->output)
			argp_error(state, "no output file: -o report.html (or -o - for "
				   "standard output)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------- page */

static const char page_css[] =
	":root{--ink:#1f2933;--muted:#5f6b7a;--rule:#d9dee5;--soft:#f4f6f8;"
	"--bad:#b42318}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0 auto;max-width:1120px;padding:24px 28px;color:var(--ink);"
	"font:15px/1.45 system-ui,-apple-system,'Segoe UI','DejaVu Sans',sans-serif;"
	"background:#fff}\n"
	"h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:28px 0 8px;"
	"padding-bottom:4px;border-bottom:2px solid var(--rule)}"
	"h3{font-size:1em;margin:0 0 6px}\n"
	".sub{color:var(--muted);margin:0 0 12px}\n"
	".scroll{overflow-x:auto}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:4px 0}\n"
	"th,td{padding:4px 10px;border-bottom:1px solid var(--rule);text-align:right;"
	"vertical-align:top}\n"
	"th:first-child,td.name{text-align:left}\n"
	"thead th{background:var(--soft);font-weight:600}\n"
	"td.text{text-align:left;word-break:break-all;max-width:420px}\n"
	"td.change{font-weight:600}\n"
	"#run-table th{text-align:left}\n"
	"td.bad{color:var(--bad);font-weight:700}\n"
	".cards{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0 4px}\n"
	".card{border:1px solid var(--rule);border-radius:8px;padding:10px 14px;"
	"min-width:200px;background:var(--soft)}\n"
	".card b{display:block;font-size:1.5em}.card span{color:var(--muted)}\n"
	".hists{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));"
	"gap:18px}\n"
	"figure{margin:0;border:1px solid var(--rule);border-radius:8px;padding:10px}\n"
	"svg{width:100%;height:auto;display:block}\n"
	"svg text{font-size:11px;fill:var(--ink)}svg .axis{stroke:var(--muted)}\n"
	"svg text.tick{fill:var(--muted)}\n"
	".swatch{display:inline-block;width:.8em;height:.8em;border-radius:2px;"
	"margin-right:5px;vertical-align:baseline}\n"
	".r0{fill:#2563eb;background:#2563eb}.r1{fill:#ea580c;background:#ea580c}"
	".r2{fill:#16a34a;background:#16a34a}.r3{fill:#9333ea;background:#9333ea}"
	".r4{fill:#0891b2;background:#0891b2}.r5{fill:#ca8a04;background:#ca8a04}"
	".r6{fill:#db2777;background:#db2777}.r7{fill:#4b5563;background:#4b5563}\n"
	"footer{margin-top:32px;color:var(--muted);font-size:.85em}\n"
	"@media (max-width:700px){body{padding:12px}.hists{grid-template-columns:1fr}}\n"
	"@page{size:A4;margin:14mm}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt}"
	"*{-webkit-print-color-adjust:exact;print-color-adjust:exact}"
	"section,figure,table,.card{break-inside:avoid}h2{break-after:avoid}"
	".hists{display:block}figure{margin-bottom:10px}"
	".scroll{overflow:visible}td.text{max-width:none}}\n";

static void esc(FILE *out, const char *s)
{
	html_escape(out, s ? s : "n/a");
}

/* <th> with the run's colour and label. */
static void run_header(FILE *out, const struct cmp_table *t, int i)
{
	fprintf(out, "<th><span class=\"swatch r%d\"></span>", i % 8);
	esc(out, t->labels[i]);
	fputs("</th>", out);
}

static void runs_table_row(FILE *out, const struct cmp_table *t, const char *name,
			   const char *const *values)
{
	fprintf(out, "<tr><td class=\"name\">%s</td>", name);
	for (int i = 0; i < t->nruns; i++) {
		fputs("<td class=\"text\">", out);
		esc(out, values[i]);
		fputs("</td>", out);
	}
	fputs("</tr>\n", out);
}

/* The attach plan of a run: "write=tp_btf:xfs_file_buffered_write, ...". */
static void plan_text(const struct run_file *rf, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k < rf->nhooks && n < len; k++) {
		const struct run_hook *h = &rf->hooks[k];

		n += snprintf(buf + n, len - n, "%s%s=%s%s%s", n ? ", " : "", h->hook,
			      h->program_type[0] ? h->program_type : h->mechanism,
			      h->target ? ":" : "", h->target ? h->target : "");
	}
}

static void section_runs(FILE *out, const struct cmp_table *t)
{
	const char *v[CMP_MAX_RUNS];
	char plans[CMP_MAX_RUNS][1024], fam[CMP_MAX_RUNS][256], secs[CMP_MAX_RUNS][32];
	char fio[CMP_MAX_RUNS][64];
	bool any_accounting = false, any_fio = false;

	fputs("<section id=\"runs\"><h2>Runs</h2><div class=\"scroll\">"
	      "<table id=\"run-table\"><thead><tr><th>run</th>", out);
	for (int i = 0; i < t->nruns; i++)
		run_header(out, t, i);
	fputs("</tr></thead><tbody>\n", out);
#define ROW(name, expr) do {						\
		for (int i = 0; i < t->nruns; i++)			\
			v[i] = (expr);					\
		runs_table_row(out, t, name, v);			\
	} while (0)
	ROW("file", t->runs[i].path);
	ROW("host", t->runs[i].host);
	ROW("kernel", t->runs[i].kernel);
	for (int i = 0; i < t->nruns; i++) {
		const struct run_file *rf = &t->runs[i];

		snprintf(fam[i], sizeof(fam[i]), "%s%s%s%s", rf->family,
			 rf->family_desc ? " (" : "", rf->family_desc ? rf->family_desc : "",
			 rf->family_desc ? ")" : "");
		plan_text(rf, plans[i], sizeof(plans[i]));
		snprintf(secs[i], sizeof(secs[i]), "%.3f s", rf->seconds.v);
		snprintf(fio[i], sizeof(fio[i]), "%s, %u job%s", rf->fio.version,
			 rf->fio.jobs, rf->fio.jobs == 1 ? "" : "s");
		any_accounting |= rf->accounting != NULL;
		any_fio |= rf->fio.present;
	}
	ROW("kernel family", fam[i]);
	ROW("dirty bitmap", t->runs[i].dirty_bitmap);
	ROW("attach plan", plans[i]);
	/* no accounting level in any file (older runs): no row, not a guess */
	if (any_accounting)
		ROW("accounting level", t->runs[i].accounting);
	ROW("measured for", t->runs[i].seconds.known ? secs[i] : NULL);
	if (any_fio)
		ROW("fio", t->runs[i].fio.present ? fio[i] : NULL);
#undef ROW
	fputs("</tbody></table></div></section>\n", out);
}

/* Cards for what an A/B is about: bytes to the device, amplification, fio. */
static void headline(FILE *out, const struct cmp_table *t)
{
	static const char *const keys[] = {
		"submitted_bytes", "folio_amplification", "fio_write_bw_bytes",
		"fio_write_iops",
	};
	char buf[64];

	fputs("<div class=\"cards\">", out);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (int r = 0; r < t->nrows; r++) {
			const struct cmp_row *row = &t->rows[r];

			if (strcmp(row->key, keys[k]))
				continue;
			for (int i = 1; i < t->nruns; i++) {
				cmp_format_change(row, i, buf, sizeof(buf));
				if (!strcmp(buf, "n/a"))
					continue;
				fputs("<div class=\"card\"><span>", out);
				esc(out, row->label);
				fputs(", ", out);
				esc(out, t->labels[i]);
				fputs(" vs ", out);
				esc(out, t->labels[0]);
				fprintf(out, "</span><b>%s</b></div>", buf);
			}
		}
	}
	fputs("</div>\n", out);
}

static void section_totals(FILE *out, const struct cmp_table *t)
{
	char buf[64];

	fputs("<section id=\"totals\"><h2>Totals</h2>\n", out);
	if (t->nruns > 1)
		headline(out, t);
	fputs("<div class=\"scroll\"><table id=\"totals-table\"><thead><tr><th>figure</th>",
	      out);
	for (int i = 0; i < t->nruns; i++)
		run_header(out, t, i);
	for (int i = 1; i < t->nruns; i++) {
		fputs("<th>", out);
		esc(out, t->labels[i]);
		fputs(" vs ", out);
		esc(out, t->labels[0]);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (int r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];

		fputs("<tr><td class=\"name\">", out);
		esc(out, row->label);
		fputs("</td>", out);
		for (int i = 0; i < t->nruns; i++) {
			cmp_format_value(row, i, buf, sizeof(buf));
			fputs("<td>", out);
			esc(out, buf);
			fputs("</td>", out);
		}
		for (int i = 1; i < t->nruns; i++) {
			cmp_format_change(row, i, buf, sizeof(buf));
			fprintf(out, "<td class=\"change\">%s</td>", buf);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div></section>\n", out);
}

/* Short bucket names under the bars; the table under them has the bounds. */
static void bucket_tick(enum hist_id h, unsigned int k, char *buf, size_t len)
{
	struct bucket_bounds b;
	uint64_t lo, hi;

	hist_bucket_bounds(h, k, &b);
	lo = b.min;
	hi = b.max;

	if (h == HIST_AMPLIFICATION)
		hist_bucket_label(h, k, buf, len);
	else if (h == HIST_FOLIO_BYTES)
		cmp_format_size(lo, buf, len);
	else if (b.open_ended)
		snprintf(buf, len, "%" PRIu64 "+", lo);
	else if (lo == hi)
		snprintf(buf, len, "%" PRIu64, lo);
	else
		snprintf(buf, len, "%" PRIu64 "-%" PRIu64, lo, hi);
}

static bool hist_range(const struct cmp_table *t, enum hist_id h, int *first,
		       int *last, uint64_t *peak)
{
	*first = -1;
	*last = -1;
	*peak = 0;
	for (int i = 0; i < t->nruns; i++)
		for (int k = 0; k < HIST_BUCKETS; k++) {
			uint64_t c = t->runs[i].hists[h][k];

			if (!c)
				continue;
			if (*first < 0 || k < *first)
				*first = k;
			if (k > *last)
				*last = k;
			if (c > *peak)
				*peak = c;
		}
	return *first >= 0;
}

/* Bars grouped by bucket, one per run, each with its count above it. */
static void hist_svg(FILE *out, const struct cmp_table *t, enum hist_id h,
		     int first, int last, uint64_t peak)
{
	int nb = last - first + 1;
	double gw = (double)(SVG_W - 20) / nb, bw = gw * 0.8 / t->nruns;
	int base = SVG_PLOT_TOP + SVG_PLOT_H;
	char tick[64];

	fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"%s\">\n",
		SVG_W, SVG_H, hist_names[h]);
	fprintf(out, "<line class=\"axis\" x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		base, SVG_W - 10, base);
	for (int k = first; k <= last; k++) {
		double gx = 10 + (k - first) * gw + gw * 0.1;

		for (int i = 0; i < t->nruns; i++) {
			uint64_t c = t->runs[i].hists[h][k];
			double bh = (double)SVG_PLOT_H * (double)c / (double)peak;
			double x = gx + i * bw;

			fprintf(out, "<rect class=\"bar r%d\" data-hist=\"%s\" data-run=\"%d\" "
				"data-count=\"%" PRIu64 "\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.3f\"/>", i % 8, hist_names[h], i, c, x,
				base - bh, bw * 0.92, bh);
			if (bw >= 14 || t->nruns == 1)
				fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">"
					"%" PRIu64 "</text>", x + bw * 0.46, base - bh - 4, c);
			fputc('\n', out);
		}
		bucket_tick(h, k, tick, sizeof(tick));
		if (gw >= 26 || (k - first) % 4 == 0)
			fprintf(out, "<text class=\"tick\" x=\"%.2f\" y=\"%d\" "
				"text-anchor=\"middle\">%s</text>\n",
				10 + (k - first) * gw + gw / 2, base + 16, tick);
	}
	fputs("</svg>\n", out);
}

static void hist_table(FILE *out, const struct cmp_table *t, enum hist_id h,
		       int first, int last)
{
	char label[64];

	fprintf(out, "<div class=\"scroll\"><table id=\"h-%s\"><thead><tr><th>%s</th>",
		hist_names[h], hist_units[h]);
	for (int i = 0; i < t->nruns; i++)
		run_header(out, t, i);
	fputs("</tr></thead><tbody>\n", out);
	for (int k = first; k <= last; k++) {
		hist_bucket_label(h, k, label, sizeof(label));
		fprintf(out, "<tr><td class=\"name\">%s</td>", label);
		for (int i = 0; i < t->nruns; i++)
			fprintf(out, "<td>%" PRIu64 "</td>", t->runs[i].hists[h][k]);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
}

static const char *const hist_titles[NR_HISTS] = {
	[HIST_DIRTY_BLOCKS] = "Dirty blocks per folio",
	[HIST_SUBMITTED_BLOCKS] = "Blocks submitted per folio",
	[HIST_AMPLIFICATION] = "Folio amplification (submitted / dirty)",
	[HIST_FOLIO_BYTES] = "Folio size",
};

static void section_histograms(FILE *out, const struct cmp_table *t)
{
	fputs("<section id=\"histograms\"><h2>Histograms (folios written back)</h2>"
	      "<div class=\"hists\">\n", out);
	for (int h = 0; h < NR_HISTS; h++) {
		int first, last;
		uint64_t peak;

		fprintf(out, "<figure id=\"fig-%s\"><h3>%s</h3>\n", hist_names[h],
			hist_titles[h]);
		if (!hist_range(t, h, &first, &last, &peak)) {
			fputs("<p class=\"sub\">no folios</p></figure>\n", out);
			continue;
		}
		hist_svg(out, t, h, first, last, peak);
		hist_table(out, t, h, first, last);
		fputs("</figure>\n", out);
	}
	fputs("</div></section>\n", out);
}

static int by_submitted(const void *a, const void *b)
{
	const struct run_filestat *x = *(const struct run_filestat *const *)a;
	const struct run_filestat *y = *(const struct run_filestat *const *)b;
	uint64_t u = x->s.f[RF_submitted_bytes].u, v = y->s.f[RF_submitted_bytes].u;

	return u < v ? 1 : u > v ? -1 : 0;
}

static void num_cell(FILE *out, const struct run_num *n, bool ratio)
{
	if (!n->known)
		fputs("<td>n/a</td>", out);
	else if (ratio)
		fprintf(out, "<td>%.2f</td>", n->v);
	else
		fprintf(out, "<td>%" PRIu64 "</td>", n->u);
}

static void files_table(FILE *out, const struct cmp_table *t, int i)
{
	const struct run_file *rf = &t->runs[i];
	const struct run_filestat **order = calloc(rf->nfiles ? rf->nfiles : 1, sizeof(*order));
	int shown = rf->nfiles < REPORT_TOP_FILES ? rf->nfiles : REPORT_TOP_FILES;
	char ino[32];

	fprintf(out, "<h3><span class=\"swatch r%d\"></span>", i % 8);
	esc(out, t->labels[i]);
	fprintf(out, ": %d file%s</h3>\n", rf->nfiles, rf->nfiles == 1 ? "" : "s");
	if (!order || !rf->nfiles) {
		free(order);
		return;
	}
	for (int k = 0; k < rf->nfiles; k++)
		order[k] = &rf->files[k];
	qsort(order, rf->nfiles, sizeof(*order), by_submitted);
	fprintf(out, "<div class=\"scroll\"><table id=\"files-%d\"><thead><tr><th>path</th>"
		"<th>dev</th><th>inode</th><th>app bytes</th><th>dirty blocks</th>"
		"<th>submitted bytes</th><th>folios</th><th>block rounding</th>"
		"<th>folio amp.</th></tr></thead><tbody>\n", i);
	for (int k = 0; k < shown; k++) {
		const struct run_filestat *f = order[k];

		fputs("<tr><td class=\"text\">", out);
		if (f->path) {
			esc(out, f->path);
			if (f->path_state[0] && strcmp(f->path_state, "ok")) {
				fputs(" (", out);
				esc(out, f->path_state);
				fputs(")", out);
			}
		} else {
			snprintf(ino, sizeof(ino), "[ino %" PRIu64 "]", f->ino);
			esc(out, ino);
		}
		fputs("</td><td>", out);
		esc(out, f->dev);
		fprintf(out, "</td><td>%" PRIu64 "</td>", f->ino);
		num_cell(out, &f->s.f[RF_app_bytes], false);
		num_cell(out, &f->s.f[RF_dirty_blocks], false);
		num_cell(out, &f->s.f[RF_submitted_bytes], false);
		num_cell(out, &f->s.f[RF_folios], false);
		num_cell(out, &f->s.block_rounding, true);
		num_cell(out, &f->s.folio_amplification, true);
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div>\n", out);
	if (shown < rf->nfiles)
		fprintf(out, "<p class=\"sub\">%d more not shown (the run file lists all)</p>\n",
			rf->nfiles - shown);
	free(order);
}

static void section_files(FILE *out, const struct cmp_table *t)
{
	fprintf(out, "<section id=\"files\"><h2>Files by submitted bytes (top %d)</h2>\n",
		REPORT_TOP_FILES);
	for (int i = 0; i < t->nruns; i++)
		files_table(out, t, i);
	fputs("</section>\n", out);
}

static void section_losses(FILE *out, const struct cmp_table *t)
{
	const struct run_file *first = &t->runs[0];
	uint64_t total = 0;

	for (int i = 0; i < t->nruns; i++)
		total += run_file_losses(&t->runs[i]);
	fprintf(out, "<section id=\"losses\"><h2>Losses</h2><p class=\"sub\">%s</p>\n",
		total ? "Some events were lost or not attributable: the figures above "
		"are lower bounds where these are not 0." :
		"None: every event was counted; the figures are exact.");
	fputs("<div class=\"scroll\"><table id=\"loss-table\"><thead><tr><th>counter</th>", out);
	for (int i = 0; i < t->nruns; i++)
		run_header(out, t, i);
	fputs("</tr></thead><tbody>\n", out);
	/* the first run's counters name the rows; others are matched by name */
	for (int k = 0; k < first->nlosses; k++) {
		fputs("<tr><td class=\"name\">", out);
		esc(out, first->losses[k].name);
		fputs("</td>", out);
		for (int i = 0; i < t->nruns; i++) {
			const struct run_file *rf = &t->runs[i];
			int m = 0;

			while (m < rf->nlosses && strcmp(rf->losses[m].name, first->losses[k].name))
				m++;
			if (m == rf->nlosses)
				fputs("<td>n/a</td>", out);
			else
				fprintf(out, "<td%s>%" PRIu64 "</td>",
					rf->losses[m].value ? " class=\"bad\"" : "",
					rf->losses[m].value);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table></div></section>\n", out);
}

static void write_page(FILE *out, const struct cmp_table *t, const char *title)
{
	char buf[256];

	if (!title) {
		size_t n = snprintf(buf, sizeof(buf), "iomapdirty report:");

		for (int i = 0; i < t->nruns && n < sizeof(buf); i++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " vs " : " ",
				      t->labels[i]);
		title = buf;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", out);
	esc(out, title);
	fprintf(out, "</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>", page_css);
	esc(out, title);
	fprintf(out, "</h1><p class=\"sub\">Per-folio write amplification of iomap "
		"buffered writeback, %d run%s, from <code>iomapdirty run --json</code> "
		"(schema %s).</p></header>\n", t->nruns, t->nruns == 1 ? "" : "s",
		IOMAPDIRTY_SCHEMA);
	section_runs(out, t);
	section_totals(out, t);
	section_histograms(out, t);
	section_files(out, t);
	section_losses(out, t);
	fputs("<footer>Block rounding = dirty bytes / application bytes; folio "
	      "amplification = submitted blocks / dirty blocks (1.00 with per-block "
	      "dirty tracking). n/a: not measured by that run's attach plan. This page "
	      "is self-contained: no script, font or link to load.</footer>\n"
	      "</body></html>\n", out);
}

static int run_report(struct session *unused, void *args)
{
	static struct run_file runs[CMP_MAX_RUNS];
	static struct cmp_table table;
	const struct report_args *a = args;
	struct out_file of;
	char err[1024], safe[1024];
	int ret = run_set_load(&a->set, runs, &table);
	FILE *out;

	if (ret)
		return ret;
	out = out_file_open(&of, a->output, err, sizeof(err));
	if (!out)
		ret = EXIT_USAGE;
	else if (write_page(out, &table, a->title), out_file_commit(&of, err, sizeof(err)))
		ret = EXIT_RUNTIME;
	if (ret) {
		text_sanitize(err, safe, sizeof(safe));
		fprintf(stderr, "iomapdirty: %s\n", safe);
	}
	run_set_free(&a->set, runs);
	return ret;
}

static struct report_args report_args = { .set.min_files = 1 };

static const struct argp_child report_children[] = {
	{ &run_set_argp, 0, NULL, 0 },
	{},
};

static const struct argp report_argp = {
	.options = report_options, .parser = report_parse, .children = report_children,
};

/* No session: it reads files only, and needs no privilege. */
const struct command report_command = {
	.name = "report",
	.help = "one self-contained HTML page of run files",
	.doc = "One self-contained HTML page of runs (`iomapdirty run --json FILE`): "
	       "totals, histograms, files, losses; for two or more, the change "
	       "against the first.",
	.args_doc = "A.json [B.json...] -o report.html",
	.argp = &report_argp,
	.args = &report_args,
	.run = run_report,
};
