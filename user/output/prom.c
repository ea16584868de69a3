// SPDX-License-Identifier: GPL-2.0
/* Prometheus text exposition: see prom.h and docs/metrics.md. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "buckets.h"
#include "live/plan_measures.h"
#include "output/prom.h"
#include "output/safetext.h"
#include "output/prom_files.h"
#include "output/report.h"

#define NS	"iomapdirty_"

/* ------------------------------------------------------------ buffer */

void textbuf_init(struct textbuf *tb, size_t limit)
{
	memset(tb, 0, sizeof(*tb));
	tb->limit = limit;
}

void textbuf_reset(struct textbuf *tb)
{
	tb->len = 0;
	tb->failed = false;
	if (tb->buf)
		tb->buf[0] = '\0';
}

void textbuf_free(struct textbuf *tb)
{
	free(tb->buf);
	textbuf_init(tb, tb->limit);
}

static bool textbuf_reserve(struct textbuf *tb, size_t more)
{
	size_t want = tb->len + more + 1, cap = tb->cap ? tb->cap : 16384;
	char *bigger;

	if (want <= tb->cap)
		return true;
	while (cap < want)
		cap *= 2;
	if (cap > tb->limit)
		cap = tb->limit;
	if (want > cap)
		return false;
	bigger = realloc(tb->buf, cap);
	if (!bigger)
		return false;
	tb->buf = bigger;
	tb->cap = cap;
	return true;
}

void textbuf_printf(struct textbuf *tb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (tb->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !textbuf_reserve(tb, n)) {
		tb->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(tb->buf + tb->len, tb->cap - tb->len, fmt, ap);
	va_end(ap);
	tb->len += n;
}

/* ------------------------------------------------------------ labels */

/*
 * Length of the valid UTF-8 sequence at s that is no control (safetext.c's
 * decoder and list, as every output), or 0.
 */
static int utf8_printable_len(const unsigned char *s)
{
	uint32_t cp;
	int n = utf8_decode(s, strnlen((const char *)s, 4), &cp);

	return n && !codepoint_is_control(cp) ? n : 0;
}

size_t prom_escape_label(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;

	while (*s) {
		char tmp[8];
		const char *piece = tmp;
		int k = 1;

		if (*s == '\\')
			piece = "\\\\";
		else if (*s == '"')
			piece = "\\\"";
		else if (*s == '\n')
			piece = "\\n";
		else if ((k = utf8_printable_len(s)) > 0)
			snprintf(tmp, sizeof(tmp), "%.*s", k, (const char *)s);
		else {
			k = 1;		/* one byte, as mountinfo writes it */
			snprintf(tmp, sizeof(tmp), "\\\\%03o", *s);
		}
		for (; *piece; piece++, n++)
			if (n + 1 < len)
				buf[n] = *piece;
		s += k;
	}
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

/* Appends label="value", escaped, with a comma before it unless first. */
void prom_label(struct textbuf *tb, bool first, const char *name, const char *value)
{
	char small[512], *esc = small;
	size_t n = prom_escape_label(value, small, sizeof(small));

	if (n >= sizeof(small)) {
		esc = malloc(n + 1);
		if (!esc) {
			tb->failed = true;
			return;
		}
		prom_escape_label(value, esc, n + 1);
	}
	textbuf_printf(tb, "%s%s=\"%s\"", first ? "" : ",", name, esc);
	if (esc != small)
		free(esc);
}

/* ------------------------------------------------------------ families */

void prom_family(struct textbuf *tb, const char *name, const char *type, const char *help)
{
	textbuf_printf(tb, "# HELP " NS "%s %s\n# TYPE " NS "%s %s\n",
		       name, help, name, type);
}

/*
 * The per-filesystem metrics come from include/fields.h's list of
 * struct wa_stats: a SUM field is the counter "<field>_total", a MAX or
 * GAUGE field the gauge "<field>", its HELP text the row's; fields JSON
 * never shows are not exported, and one JSON writes as null where the plan
 * does not measure it (its json column, or its level column at the plan's
 * accounting level: measures_field(), model/measured.h) is left out
 * (rather than exported as 0).
 */
/* Each field's index in wa_stats_fields[] (snapshot.h): the same list. */
#define FIELD_ID(name, unit, merge, json, level, help)	PF_##name,
enum prom_field { WA_STATS_FIELDS(FIELD_ID) NR_PROM_FIELDS };
#undef FIELD_ID

#define FIELD_HELP(name, unit, merge, json, level, help)	[PF_##name] = help,
static const char *const field_help[NR_PROM_FIELDS] = { WA_STATS_FIELDS(FIELD_HELP) };
#undef FIELD_HELP

/* dev, mountpoint, fstype of each filesystem, rendered once per scrape */
static char **fs_labels(const struct snapshot *s, const struct prom_ctx *c)
{
	char **labels = calloc(s->nfs ? s->nfs : 1, sizeof(*labels));

	for (int i = 0; labels && i < s->nfs; i++) {
		struct fsinfo fi = {};
		struct textbuf tb;
		char dev[32];

		c->host->fs(s->fs[i].dev, &fi);
		kdev_name(s->fs[i].dev, dev, sizeof(dev));
		textbuf_init(&tb, 4096);
		prom_label(&tb, true, "dev", dev);
		prom_label(&tb, false, "mountpoint", fi.mount);
		prom_label(&tb, false, "fstype", fi.fstype);
		labels[i] = tb.failed ? NULL : tb.buf;
		if (!labels[i]) {
			textbuf_free(&tb);
			labels[i] = strdup("");
		}
	}
	return labels;
}

static void render_fs(struct textbuf *tb, const struct snapshot *s,
		      const struct prom_ctx *c, char **labels)
{
	const struct measures ms = plan_measures(c->plan);

	for (int m = 0; m < NR_PROM_FIELDS; m++) {
		const struct wa_field *fm = &wa_stats_fields[m];
		bool counter = fm->merge == WA_SUM;
		char name[64];

		if (!measures_field(&ms, fm))
			continue;
		snprintf(name, sizeof(name), "%s%s", fm->name, counter ? "_total" : "");
		prom_family(tb, name, counter ? "counter" : "gauge",
		       field_help[m] ? field_help[m] : fm->unit);
		for (int i = 0; i < s->nfs; i++)
			textbuf_printf(tb, NS "%s{%s} %" PRIu64 "\n", name, labels[i],
				       wa_field_get(&s->fs[i].s, fm));
	}
}

/* ------------------------------------------------------------ histograms */

/*
 * Metric name of each histogram: hist_names[], which carry their unit
 * ("dirty_blocks_per_folio", "folio_bytes"), but for the amplification
 * whose unit "ratio" becomes the suffix Prometheus's conventions ask for.
 */
static void hist_metric_name(enum hist_id h, char *buf, size_t len)
{
	bool ratio = !strcmp(hist_units[h], "ratio");

	snprintf(buf, len, "%s%s", hist_names[h], ratio ? "_ratio" : "");
}

/*
 * Inclusive upper bound of bucket k as a Prometheus 'le' (values are
 * integers for the log2 histograms: v <= 2^k - 1). Amplification: bucket
 * 0 (ratio < 1) has no bound of its own and is folded into le="1" with
 * bucket 1 (ratio == 1); bucket k >= 2 ends at 2^(k-1). false: no 'le'.
 */
static bool bucket_le(enum hist_id h, unsigned int k, char *buf, size_t len)
{
	if (k >= HIST_BUCKETS - 1) {
		snprintf(buf, len, "+Inf");
		return true;
	}
	struct bucket_bounds b;

	if (h == HIST_AMPLIFICATION && k == 0)
		return false;
	hist_bucket_bounds(h, k, &b);
	snprintf(buf, len, "%llu", (unsigned long long)b.max);
	return true;
}

static void render_hists(struct textbuf *tb, const struct snapshot *s, const struct plan *p)
{
	const struct measures m = plan_measures(p);
	struct wa_stats t;
	char name[64], le[32];

	snapshot_totals(s, &t);
	for (int h = 0; h < NR_HISTS; h++) {
		uint64_t cum = 0, sum;

		if (!measures_hist(&m, h))
			continue;	/* absent, not every folio in the 0 bucket */
		hist_metric_name(h, name, sizeof(name));
		prom_family(tb, name, "histogram", hist_help[h]);
		for (unsigned int k = 0; k < HIST_BUCKETS; k++) {
			cum += s->hists[h][k];
			if (bucket_le(h, k, le, sizeof(le)))
				textbuf_printf(tb, NS "%s_bucket{le=\"%s\"} %" PRIu64 "\n",
					       name, le, cum);
		}
		/* the totals and the buckets are folded together (struct
		 * fs_stats) and read between folds: the same folios */
		if (hist_sum(h, &t, &sum))
			textbuf_printf(tb, NS "%s_sum %" PRIu64 "\n", name, sum);
		textbuf_printf(tb, NS "%s_count %" PRIu64 "\n", name, cum);
	}
	if (!measures_hist(&m, HIST_AMPLIFICATION))
		return;
	prom_family(tb, "folio_amplification_below_one_total", "counter",
	       "Folios that submitted fewer blocks than were dirty (amplification bucket [0, 1))");
	textbuf_printf(tb, NS "folio_amplification_below_one_total %" PRIu64 "\n",
		       s->hists[HIST_AMPLIFICATION][0]);
}

/* ------------------------------------------------------------ global */

static void render_counters(struct textbuf *tb, const struct snapshot *s)
{
	prom_family(tb, "lost_total", "counter",
	       "Events lost or not attributable, by reason (full maps, oversized writes or "
	       "folios, unreadable kernel memory); any increase makes the counts incomplete");
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		textbuf_printf(tb, NS "lost_total{reason=\"%s\"} %" PRIu64 "\n",
			       counter_names[i], s->counters[i]);
	prom_family(tb, "events_total", "counter",
	       "Hook events and bookkeeping of the BPF programs, by kind");
	for (int i = 0; i < CNT_LOSS_FIRST; i++)
		textbuf_printf(tb, NS "events_total{event=\"%s\"} %" PRIu64 "\n",
			       counter_names[i], s->counters[i]);
}

static void render_info(struct textbuf *tb, const struct prom_ctx *c)
{
	const struct plan *p = c->plan;
	char fam[2] = { p->family, 0 };

	prom_family(tb, "build_info", "gauge", "Versions this exporter was built with; always 1");
	textbuf_printf(tb, NS "build_info{");
	prom_label(tb, true, "version", c->version ? c->version : "");
	prom_label(tb, false, "libbpf", c->libbpf_version ? c->libbpf_version : "");
	prom_label(tb, false, "libmicrohttpd", c->httpd_version ? c->httpd_version : "");
	textbuf_printf(tb, "} 1\n");

	prom_family(tb, "info", "gauge", "Kernel family, accounting level and dirty bitmap in use; always 1");
	textbuf_printf(tb, NS "info{");
	prom_label(tb, true, "kernel_family", fam);
	prom_label(tb, false, "kernel_family_description", p->family_desc ? p->family_desc : "");
	prom_label(tb, false, "kernel_release", c->kernel_release ? c->kernel_release : "");
	prom_label(tb, false, "accounting_level", accounting_level_names[p->accounting]);
	prom_label(tb, false, "dirty_bitmap", plan_bitmap_name(p));
	textbuf_printf(tb, "} 1\n");

	prom_family(tb, "per_block_dirty_tracking", "gauge",
	       "1 if the kernel tracks dirty state per block (writeback can send only dirty "
	       "blocks), 0 if it sends whole folios");
	textbuf_printf(tb, NS "per_block_dirty_tracking %d\n", p->bitmap != BITMAP_NONE);

	prom_family(tb, "attach_info", "gauge", "The attach plan: mechanism and kernel target per hook; always 1");
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		if (!h->chosen || (i == HOOK_BIO && !c->block_layer))
			continue;	/* block_bio: attached for verify only */
		textbuf_printf(tb, NS "attach_info{");
		prom_label(tb, true, "hook", hook_names[i]);
		prom_label(tb, false, "mechanism", plan_mech_detail(h));
		prom_label(tb, false, "target", h->target);
		textbuf_printf(tb, "} 1\n");
	}
	if (p->accounting == ACCOUNTING_FULL) {	/* always-on keeps none */
		prom_family(tb, "page_records_max", "gauge",
		       "Page records the kernel side may keep (--max-pages)");
		textbuf_printf(tb, NS "page_records_max %u\n", c->max_pages);
	}
	prom_family(tb, "attach_time_seconds", "gauge", "When the programs were attached, seconds since the epoch");
	textbuf_printf(tb, NS "attach_time_seconds %.3f\n", c->attach_unix_seconds);
	prom_family(tb, "exporter_scrapes_total", "counter", "/metrics responses, this one included");
	textbuf_printf(tb, NS "exporter_scrapes_total %" PRIu64 "\n", c->scrapes);
	prom_family(tb, "exporter_scrape_errors_total", "counter",
	       "/metrics requests answered with an error (reading the BPF maps failed)");
	textbuf_printf(tb, NS "exporter_scrape_errors_total %" PRIu64 "\n", c->scrape_errors);
}

/* ------------------------------------------------------------ top files */

#define PROM_FILE_COUNTERS(X) \
	X("file_app_bytes_total", app_bytes) \
	X("file_dirty_blocks_total", dirty_blocks) \
	X("file_submitted_blocks_total", submitted_blocks) \
	X("file_submitted_bytes_total", submitted_bytes) \
	X("file_violation_blocks_total", violation_blocks)

static void render_top_files(struct textbuf *tb, const struct snapshot *s,
			     const struct prom_ctx *c)
{
	int n = s->nfiles < c->top_files ? s->nfiles : c->top_files, *idx;
	char **labels;

	if (n <= 0)
		return;
	idx = malloc(n * sizeof(*idx));
	labels = calloc(n, sizeof(*labels));
	/* the caller serializes renders: prom_files keeps its window */
	if (!idx || !labels || prom_files_top(s, n, c->scrape_start_ns ? c->scrape_start_ns :
					       mono_ns(), idx) != n) {
		tb->failed = true;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const struct file_key *k = &s->files[idx[i]].key;
		char dev[32], ino[32], path[4096];
		struct textbuf lt;

		kdev_name(k->dev, dev, sizeof(dev));
		snprintf(ino, sizeof(ino), "%llu", (unsigned long long)k->ino);
		snprintf(path, sizeof(path), "[ino %s]", ino);
		if (c->file_path)
			c->file_path(c->file_path_data, k, path, sizeof(path));
		textbuf_init(&lt, 8192);
		prom_label(&lt, true, "dev", dev);
		prom_label(&lt, false, "ino", ino);
		prom_label(&lt, false, "path", path);
		labels[i] = lt.buf;
		if (lt.failed)
			goto out;
	}
#define FILE_FAMILY(name, field)						\
	prom_family(tb, name, "counter", "Top files by submitted, then application bytes in " \
	       "the last 60-120 s, then newest (--top-files), since the file's entry was " \
	       "made: " #field);						\
	for (int i = 0; i < n; i++)						\
		textbuf_printf(tb, NS name "{%s} %llu\n", labels[i],		\
			       (unsigned long long)s->files[idx[i]].s.field);
	PROM_FILE_COUNTERS(FILE_FAMILY)
#undef FILE_FAMILY
	prom_family(tb, "file_partial", "gauge", "1: the file was evicted from the per-file map and "
	       "seen again, its counters start then (its filesystem's totals have all of it)");
	for (int i = 0; i < n; i++)
		textbuf_printf(tb, NS "file_partial{%s} %d\n", labels[i],
			       stats_partial(&s->files[idx[i]].s));
out:
	for (int i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
	free(idx);
}

/* ------------------------------------------------------------ all */

bool prom_render(struct textbuf *tb, const struct snapshot *s, const struct prom_ctx *c)
{
	char **labels = fs_labels(s, c);

	if (!labels)
		return false;
	render_info(tb, c);
	render_fs(tb, s, c, labels);
	render_hists(tb, s, c->plan);
	render_counters(tb, s);
	render_top_files(tb, s, c);
	prom_render_cgroups(tb, s, c);
	for (int i = 0; i < s->nfs; i++)
		free(labels[i]);
	free(labels);
	/* last, so that it covers reading the maps and everything above */
	prom_family(tb, "scrape_duration_seconds", "gauge",
	       "Time this response took: flushing and reading the BPF maps, rendering");
	textbuf_printf(tb, NS "scrape_duration_seconds %.6f\n",
		       c->scrape_start_ns ? (mono_ns() - c->scrape_start_ns) / 1e9 : 0.0);
	return !tb->failed;
}
