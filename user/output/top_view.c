// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
/* Rows, columns, sorting and formatting of `iomapdirty top`: see top_view.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "model/ratios.h"
#include "output/json.h"
#include "output/report.h"
#include "output/safetext.h"
#include "output/top_group.h"
#include "output/top_view.h"
#include "output/unwatched.h"

const struct top_col_info top_cols[TOP_NR_COLS] = {
	[TOP_COL_PATH]     = { "path",     "PATH",     'p', true,  12 },
	[TOP_COL_DEV]      = { "dev",      "DEV",      'D', true,  7 },
	[TOP_COL_APP]      = { "app",      "APP",      'a', false, 7 },
	[TOP_COL_DIRTY]    = { "dirty",    "DIRTY",    'd', false, 7 },
	[TOP_COL_WB]       = { "wb",       "WB",       'w', false, 7 },
	[TOP_COL_FOLIOS]   = { "folios",   "FOLIOS",   'f', false, 8 },
	[TOP_COL_ROUND]    = { "round",    "ROUND",    'R', false, 7 },
	[TOP_COL_AMP]      = { "amp",      "AMP",      'A', false, 7 },
	[TOP_COL_MAXFOLIO] = { "maxfolio", "MAXFOLIO", 'm', false, 8 },
	[TOP_COL_COMM]     = { "comm",     "COMM",     'o', true,  12 },
	[TOP_COL_CGROUP]   = { "cgroup",   "CGROUP",   'g', true,  16 },
};

int top_col_parse(const char *name)
{
	for (int c = 0; name && c < TOP_NR_COLS; c++)
		if (!strcasecmp(name, top_cols[c].name))
			return c;
	return -1;
}

int top_col_from_key(int ch)
{
	if (ch >= '1' && ch <= '9' && ch - '1' < TOP_NR_COLS)
		return ch - '1';
	for (int c = 0; c < TOP_NR_COLS; c++)
		if (ch == top_cols[c].key)
			return c;
	return -1;
}

void top_col_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_NR_COLS && n < len; c++)
		n += snprintf(buf + n, len - n, "%s%s", c ? ", " : "", top_cols[c].name);
}

/* ------------------------------------------------------------ sorting */

static int u64_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* a/b against c/d, exactly; a ratio with a zero denominator is lowest. */
static int writer_cmp(const struct top_row *a, const struct top_row *b, enum top_col col)
{
	char x[TOP_PATH_LEN], y[TOP_PATH_LEN];

	top_fmt_writer(a, col, false, x, sizeof(x));
	top_fmt_writer(b, col, false, y, sizeof(y));
	return strcmp(x, y);
}

static int key_cmp(const struct top_row *a, const struct top_row *b, enum top_col col)
{
	const struct wa_stats *x = &a->s, *y = &b->s;

	switch (col) {
	case TOP_COL_COMM:
	case TOP_COL_CGROUP:
		return writer_cmp(a, b, col);
	case TOP_COL_PATH:
		return strcmp(a->path, b->path);
	case TOP_COL_DEV:
		return u64_cmp(a->key.dev, b->key.dev);
	case TOP_COL_APP:
		return u64_cmp(x->app_bytes, y->app_bytes);
	case TOP_COL_DIRTY:
		return u64_cmp(x->dirty_bytes, y->dirty_bytes);
	case TOP_COL_WB:
		return u64_cmp(x->submitted_bytes, y->submitted_bytes);
	case TOP_COL_FOLIOS:
		return u64_cmp(x->folios, y->folios);
	case TOP_COL_ROUND:
		return ratio_cmp(stats_block_rounding(x), stats_block_rounding(y));
	case TOP_COL_AMP:
		return ratio_cmp(stats_folio_amplification(x),
				 stats_folio_amplification(y));
	case TOP_COL_MAXFOLIO:
		return u64_cmp(x->max_folio_bytes, y->max_folio_bytes);
	default:
		return 0;
	}
}

int top_row_cmp(const struct top_row *a, const struct top_row *b,
		enum top_col col, bool reverse)
{
	int c = 0;

	if (col >= 0 && col < TOP_NR_COLS) {
		c = key_cmp(a, b, col);
		if (!top_cols[col].ascending)
			c = -c;
		if (reverse)
			c = -c;
	}
	if (c)
		return c;
	/* ties: always by path, then (dev, ino), ascending */
	c = strcmp(a->path, b->path);
	if (c)
		return c < 0 ? -1 : 1;
	c = u64_cmp(a->key.dev, b->key.dev);
	return c ? c : u64_cmp(a->key.ino, b->key.ino);
}

struct sort_how {
	enum top_col col;
	bool reverse;
};

static int row_qsort_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_how *h = arg;

	return top_row_cmp(a, b, h->col, h->reverse);
}

void top_sort(struct top_row *rows, int n, enum top_col col, bool reverse)
{
	struct sort_how h = { col, reverse };

	if (n > 1)
		qsort_r(rows, n, sizeof(*rows), row_qsort_cmp, &h);
}

/* --------------------------------------------------------- formatting */

void top_fmt_bytes(uint64_t v, bool human, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	unsigned __int128 unit = 1024, tenths;
	int k = 0;

	if (!human || v < 1024) {
		snprintf(buf, len, "%" PRIu64, v);
		return;
	}
	/* largest 1024^(k+1) <= v */
	while (k < 5 && (unit << 10) <= v) {
		unit <<= 10;
		k++;
	}
	tenths = ((unsigned __int128)v * 10 + unit / 2) / unit;
	if (tenths >= 10240 && k < 5) {
		unit <<= 10;
		k++;
		tenths = ((unsigned __int128)v * 10 + unit / 2) / unit;
	}
	snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c", (uint64_t)(tenths / 10),
		 (uint64_t)(tenths % 10), units[k]);
}

const char *top_path_suffix(enum path_state st)
{
	switch (st) {
	case PATH_DELETED:
		return " (deleted)";
	case PATH_MOVED:
		return " (moved)";
	case PATH_TRUNCATED:
		return " (truncated)";
	case PATH_UNCHECKED:
		return " (unchecked)";
	default:
		return "";
	}
}

void top_fmt_path(const struct top_row *r, char *buf, size_t len)
{
	size_t n;

	if (r->state == PATH_UNKNOWN || !r->path[0]) {
		snprintf(buf, len, "[ino %llu]%s", (unsigned long long)r->key.ino,
			 r->partial ? TOP_PARTIAL_SUFFIX : "");
		return;
	}
	/* any user chose the name: nothing in it may reach the terminal raw */
	n = text_sanitize(r->path, buf, len);
	if (n < len)
		n += snprintf(buf + n, len - n, "%s", top_path_suffix(r->state));
	if (n < len && r->partial)
		snprintf(buf + n, len - n, "%s", TOP_PARTIAL_SUFFIX);
}

void top_fmt_cell(const struct top_row *r, enum top_col c, bool human,
		  char *buf, size_t len)
{
	const struct wa_stats *s = &r->s;

	switch (c) {
	case TOP_COL_PATH:
		top_fmt_path(r, buf, len);
		break;
	case TOP_COL_DEV:
		if (r->nfiles)
			snprintf(buf, len, "-");	/* a group: its files' devices */
		else
			kdev_name(r->key.dev, buf, len);
		break;
	case TOP_COL_APP:
		top_fmt_bytes(s->app_bytes, human, buf, len);
		break;
	case TOP_COL_DIRTY:
		top_fmt_bytes(s->dirty_bytes, human, buf, len);
		break;
	case TOP_COL_WB:
		top_fmt_bytes(s->submitted_bytes, human, buf, len);
		break;
	case TOP_COL_FOLIOS:
		snprintf(buf, len, "%llu", (unsigned long long)s->folios);
		break;
	case TOP_COL_ROUND:
		if (r->no_round)
			snprintf(buf, len, "n/a");
		else
			ratio_text(stats_block_rounding(s), buf, len);
		break;
	case TOP_COL_AMP:
		ratio_text(stats_folio_amplification(s), buf, len);
		break;
	case TOP_COL_MAXFOLIO:
		top_fmt_bytes(s->max_folio_bytes, human, buf, len);
		break;
	case TOP_COL_COMM:
	case TOP_COL_CGROUP:
		top_fmt_writer(r, c, false, buf, len);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

void top_fmt_writer(const struct top_row *r, enum top_col c, bool by_id, char *buf,
		    size_t len)
{
	const struct writer_info *w = &r->writer;
	const struct cgroup_names *n = &w->names;
	char raw[sizeof(w->cgroup) + sizeof(n->runtime)];

	if (!r->writer_known || (c == TOP_COL_COMM && !w->comm[0]) ||
	    (c == TOP_COL_CGROUP && !w->cgroup_known && !(w->several && !by_id))) {
		snprintf(buf, len, "?");
		return;
	}
	if (c == TOP_COL_COMM)
		snprintf(raw, sizeof(raw), "%s", w->comm);
	else if (w->several && !by_id)
		snprintf(raw, sizeof(raw), "several");
	else if (n->container[0])
		snprintf(raw, sizeof(raw), "%s:%.12s", n->runtime, n->container);
	else if (n->unit[0])
		snprintf(raw, sizeof(raw), "%s", n->unit);
	else
		snprintf(raw, sizeof(raw), "%s", w->cgroup);
	/* a command and a cgroup's name are anyone's choice: never raw to a terminal */
	text_sanitize(raw, buf, len);
}

void top_fit_left(const char *s, int width, char *buf, size_t len)
{
	int n = (int)strlen(s);

	if (width < 0)
		width = 0;
	if (n <= width) {
		snprintf(buf, len, "%s", s);
	} else if (width <= 3) {
		snprintf(buf, len, "%.*s", width, "...");
	} else {
		const char *tail = s + n - (width - 3);

		/* start at a whole UTF-8 character, never a continuation byte */
		while (*tail && ((unsigned char)*tail & 0xc0) == 0x80)
			tail++;
		snprintf(buf, len, "...%s", tail);
	}
}

/* ------------------------------------------------------------- tables */

void top_layout_fixed(struct top_layout *l, int cols)
{
	int rest = cols;

	l->human = true;
	for (int c = 0; c < TOP_NR_COLS; c++)
		l->width[c] = top_cols[c].width;
	for (int c = TOP_COL_PATH + 1; c < TOP_NR_COLS; c++)
		rest -= l->width[c] + 1;
	/* a narrow screen (80 columns) drops CGROUP, then COMM, before the figures */
	for (int c = TOP_COL_CGROUP; c >= TOP_COL_COMM && rest < l->width[TOP_COL_PATH]; c--) {
		rest += l->width[c] + 1;
		l->width[c] = 0;
	}
	if (rest > l->width[TOP_COL_PATH])
		l->width[TOP_COL_PATH] = rest;
}

static bool col_left(int c)
{
	return c == TOP_COL_PATH || c == TOP_COL_COMM || c == TOP_COL_CGROUP;
}

void top_layout_fit(struct top_layout *l, const struct top_row *rows, int n,
		    bool human)
{
	char cell[TOP_PATH_LEN + 32];

	l->human = human;
	for (int c = 0; c < TOP_NR_COLS; c++) {
		l->width[c] = (int)strlen(top_cols[c].title);
		for (int i = 0; i < n; i++) {
			int w;

			top_fmt_cell(&rows[i], c, human, cell, sizeof(cell));
			w = (int)strlen(cell);
			if (w > l->width[c])
				l->width[c] = w;
		}
		if (c != TOP_COL_PATH && col_left(c) && l->width[c] > TOP_NAME_MAX)
			l->width[c] = TOP_NAME_MAX;
	}
}

int top_col_offset(const struct top_layout *l, enum top_col c)
{
	int off = 0;

	for (int i = 0; i < (int)c && i < TOP_NR_COLS; i++)
		off += l->width[i] ? l->width[i] + 1 : 0;	/* 0: dropped */
	return off;
}

int top_line_width(const struct top_layout *l)
{
	return top_col_offset(l, TOP_NR_COLS) - 1;
}

void top_fmt_line(const struct top_layout *l, const struct top_row *r,
		  char *buf, size_t len)
{
	char cell[TOP_PATH_LEN + 32], fit[TOP_PATH_LEN + 32];
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < TOP_NR_COLS && n < len; c++) {
		if (c && !l->width[c])
			continue;	/* dropped: the screen is too narrow */
		if (r)
			top_fmt_cell(r, c, l->human, cell, sizeof(cell));
		else
			snprintf(cell, sizeof(cell), "%s", top_cols[c].title);
		if (col_left(c)) {
			/* cut names keep their end ("...b/c.dat", "...d.service") */
			top_fit_left(cell, l->width[c], fit, sizeof(fit));
			n += snprintf(buf + n, len - n, "%s%-*s", c ? " " : "", l->width[c], fit);
		} else {
			n += snprintf(buf + n, len - n, " %*s", l->width[c], cell);
		}
	}
}

void top_fmt_totals(const struct wa_stats *t, bool human, bool no_round, char *buf,
		    size_t len)
{
	char app[32], dirty[32], wb[32], round[32] = "n/a", amp[32], maxf[32];

	top_fmt_bytes(t->app_bytes, human, app, sizeof(app));
	top_fmt_bytes(t->dirty_bytes, human, dirty, sizeof(dirty));
	top_fmt_bytes(t->submitted_bytes, human, wb, sizeof(wb));
	if (!no_round)
		ratio_text(stats_block_rounding(t), round, sizeof(round));
	ratio_text(stats_folio_amplification(t), amp, sizeof(amp));
	top_fmt_bytes(t->max_folio_bytes, human, maxf, sizeof(maxf));
	snprintf(buf, len, "totals: app %s  dirty %s  wb %s  folios %llu  round %s  "
		 "amp %s  maxfolio %s", app, dirty, wb, (unsigned long long)t->folios,
		 round, amp, maxf);
}

void top_fmt_losses(const char *label, const struct snapshot *d, char *buf,
		    size_t len)
{
	uint64_t total = snapshot_losses(d);
	size_t n;

	if (!total) {
		snprintf(buf, len, "%s: none", label);
		return;
	}
	n = snprintf(buf, len, "%s: %llu (", label, (unsigned long long)total);
	for (int i = CNT_LOSS_FIRST, first = 1; i < NR_COUNTERS && n < len; i++) {
		if (!d->counters[i])
			continue;
		n += snprintf(buf + n, len - n, "%s%s=%llu", first ? "" : " ",
			      counter_names[i], (unsigned long long)d->counters[i]);
		first = 0;
	}
	if (n < len)
		snprintf(buf + n, len - n, ")");
}

void top_fmt_evicted(const struct snapshot *d, char *buf, size_t len)
{
	uint64_t n = d->counters[CNT_FILES_EVICTED];

	buf[0] = '\0';
	if (n)
		snprintf(buf, len, "%llu file%s evicted from the per-file maps, their figures "
			 "still in the totals; rows marked%s count since they came back",
			 (unsigned long long)n, n == 1 ? "" : "s", TOP_PARTIAL_SUFFIX);
}

/* ------------------------------------------------------ batch reports */

void top_view_free(struct top_view *v)
{
	snapshot_free(&v->d);
	free(v->rows);
	free(v->groups);
	memset(v, 0, sizeof(*v));
}

const char *top_order_name(enum top_col sort, bool reverse)
{
	return top_cols[sort].ascending != reverse ? "asc" : "desc";
}

void top_print_json(FILE *out, const char *type, unsigned long long n,
		    double interval, const struct top_view *v, enum top_col sort,
		    bool reverse, const struct plan *p, const struct host_lookup *host)
{
	struct json j;
	char dev[32];

	json_init(&j, out);
	json_object_begin(&j);
	json_kv_string(&j, "schema", IOMAPDIRTY_SCHEMA);
	json_kv_string(&j, "type", type);
	if (n)
		json_kv_u64(&j, "interval", n);
	json_key(&j, "seconds");
	json_double(&j, v->d.seconds);
	json_key(&j, "interval_seconds");
	json_double(&j, interval);
	json_kv_bool(&j, "cumulative", v->cumulative);
	json_kv_string(&j, "sort", top_cols[sort].name);
	json_kv_string(&j, "order", top_order_name(sort, reverse));
	json_kv_u64(&j, "nfiles", v->nrows);
	json_key(&j, "totals");
	stats_write_json(&j, &v->totals, p);
	json_key(&j, "files");
	json_array_begin(&j);
	for (int i = 0; i < v->nrows; i++) {
		const struct top_row *r = &v->rows[i];

		json_object_begin(&j);
		json_kv_path(&j, "path", r->state == PATH_UNKNOWN ? NULL : r->path);
		json_kv_string(&j, "path_state", path_state_names[r->state]);
		kdev_name(r->key.dev, dev, sizeof(dev));
		json_kv_string(&j, "dev", dev);
		json_kv_u64(&j, "ino", r->key.ino);
		if (r->writer_known)
			writer_json(&j, &r->writer);
		json_kv_bool(&j, "partial", r->partial);
		json_key(&j, "stats");
		stats_write_json(&j, &r->s, p);
		json_object_end(&j);
	}
	json_array_end(&j);
	if (v->group_by)
		top_groups_json(&j, v->group_by, v->groups, v->ngroups, p);
	unwatched_json(&j, &v->d, host, p);
	report_losses_json(&j, &v->d);
	json_kv_u64(&j, "lost", snapshot_losses(&v->d));
	json_object_end(&j);
	fflush(out);
}

void top_print_text(FILE *out, const char *title, const struct top_view *v,
		    enum top_col sort, bool reverse, const struct host_lookup *host)
{
	struct top_layout l;
	char line[TOP_PATH_LEN + 512];

	fprintf(out, "\n=== %s ===\n", title);
	fprintf(out, "%.2f s %s; sort: %s %s; %d files\n", v->d.seconds,
		v->cumulative ? "since attach" : "interval", top_cols[sort].name,
		top_order_name(sort, reverse), v->nrows);
	top_fmt_totals(&v->totals, false, v->no_round, line, sizeof(line));
	fprintf(out, "%s\n", line);
	top_fmt_losses("losses", &v->d, line, sizeof(line));
	fprintf(out, "%s\n", line);
	top_fmt_evicted(&v->d, line, sizeof(line));
	if (line[0])
		fprintf(out, "%s\n", line);
	unwatched_text(out, &v->d, host, NULL);
	top_layout_fit(&l, v->rows, v->nrows, false);
	top_fmt_line(&l, NULL, line, sizeof(line));
	fprintf(out, "%s\n", line);
	for (int i = 0; i < v->nrows; i++) {
		top_fmt_line(&l, &v->rows[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	if (v->group_by)
		top_print_groups_text(out, v->group_by, v->groups, v->ngroups);
	fflush(out);
}
