// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty top: a live per-file view of write amplification. One row
 * per file, per interval (differences of consecutive cumulative
 * snapshots) or, with -C, since attach. Interactive with ncurses on a
 * terminal; batch text or JSON Lines otherwise, ending with a cumulative
 * summary. The rows, sorting and formatting are in top_view.c.
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curses.h>
#include "commands.h"
#include "exitcodes.h"
#include "json.h"
#include "report.h"
#include "top_view.h"

/* In tracepoint mode a folio context idle this long is finished. */
/* Longest wait for a key: how soon a signal or the refresh is noticed. */
#define KEY_POLL_MS	100

struct top_args {
	struct session_opts so;
	double interval;
	unsigned long long count;
	bool batch;
	bool json;
	bool cumulative;
	bool reverse;
	int sort;
};

enum { OPT_JSON = 0x500 };

static const struct argp_option top_options[] = {
	{ "interval", 'i', "SECONDS", 0, "Refresh every SECONDS (default 2)", 0 },
	{ "count", 'n', "COUNT", 0, "Stop after COUNT refreshes (default: until q or a signal)", 0 },
	{ "batch", 'b', NULL, 0, "Batch mode: print reports instead of a live screen "
	  "(the default when stdout is not a terminal)", 0 },
	{ "json", OPT_JSON, NULL, 0, "JSON Lines output (schema iomapdirty/1); implies -b", 0 },
	{ "sort", 's', "COLUMN", 0, "Sort by COLUMN: path, dev, app, dirty, wb, folios, "
	  "round, amp, maxfolio (default wb)", 0 },
	{ "cumulative", 'C', NULL, 0, "Totals since attach instead of per interval", 0 },
	{ "reverse", 'r', NULL, 0, "Reverse the order (default: numbers largest first, "
	  "path and dev A to Z)", 0 },
	{},
};

static error_t top_parse(int key, char *arg, struct argp_state *state)
{
	struct top_args *a = state->input;
	char list[128];

	switch (key) {
	case 'i':
		if (parse_seconds(arg, &a->interval))
			argp_error(state, "--interval wants seconds from 0.01 to 86400, "
				   "got '%s'", arg);
		break;
	case 'n':
		if (parse_u64(arg, 1, 1ull << 40, &a->count))
			argp_error(state, "--count wants a positive number, got '%s'", arg);
		break;
	case 'b':
		a->batch = true;
		break;
	case OPT_JSON:
		a->json = true;
		a->batch = true;
		break;
	case 's':
		a->sort = top_col_parse(arg);
		if (a->sort < 0) {
			top_col_list(list, sizeof(list));
			argp_error(state, "--sort: unknown column '%s'; columns are: %s",
				   arg, list);
		}
		break;
	case 'C':
		a->cumulative = true;
		break;
	case 'r':
		a->reverse = true;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->so;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------ the view */

/* What one screen or report shows. */
struct view {
	struct snapshot d;		/* interval or since attach */
	struct top_row *rows;
	int nrows;
	struct wa_stats totals;
	bool cumulative;
	bool valid;
};

static void view_free(struct view *v)
{
	snapshot_free(&v->d);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

/* prev NULL: since attach. Rows get their paths now (state can change). */
static int view_build(struct view *v, struct engine *e, const struct snapshot *cur,
		      const struct snapshot *prev, bool cumulative)
{
	view_free(v);
	if (snapshot_delta(cur, cumulative ? NULL : prev, &v->d))
		return -1;
	v->rows = calloc(v->d.nfiles ? v->d.nfiles : 1, sizeof(*v->rows));
	if (!v->rows) {
		snapshot_free(&v->d);
		return -1;
	}
	for (int i = 0; i < v->d.nfiles; i++) {
		struct top_row *r = &v->rows[i];

		r->key = v->d.files[i].key;
		r->s = v->d.files[i].s;
		r->state = engine_file_path(e, &r->key, r->path, sizeof(r->path));
	}
	v->nrows = v->d.nfiles;
	snapshot_totals(&v->d, &v->totals);
	v->cumulative = cumulative;
	v->valid = true;
	return 0;
}

struct top {
	struct session *s;
	const struct top_args *a;
	struct report_ctx rc;
	struct snapshot prev, cur;	/* the last two readings */
	bool have_cur;
	unsigned long long n;		/* readings taken */
	int sort;
	bool reverse;
	bool cumulative;
	struct view v;
};

/* Takes a reading; the view is rebuilt from it. */
static int top_refresh(struct top *t, uint64_t flush_idle_ns)
{
	struct snapshot next;

	engine_flush(&t->s->engine, flush_idle_ns);
	if (engine_snapshot(&t->s->engine, &next))
		return -1;
	snapshot_free(&t->prev);
	t->prev = t->cur;
	t->cur = next;
	t->have_cur = true;
	t->n++;
	if (view_build(&t->v, &t->s->engine, &t->cur, &t->prev, t->cumulative))
		return -1;
	top_sort(t->v.rows, t->v.nrows, t->sort, t->reverse);
	return 0;
}

static const char *order_name(const struct top *t)
{
	return top_cols[t->sort].ascending != t->reverse ? "asc" : "desc";
}

static void interval_text(const struct top *t, bool cumulative, char *buf, size_t len)
{
	if (cumulative)
		snprintf(buf, len, "cumulative since attach, every %g s", t->a->interval);
	else
		snprintf(buf, len, "per interval of %g s", t->a->interval);
}

/* ---------------------------------------------------------------- batch */

static void emit_json(FILE *out, const struct top *t, const char *type,
		      unsigned long long n, const struct view *v)
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
	json_double(&j, t->a->interval);
	json_kv_bool(&j, "cumulative", v->cumulative);
	json_kv_string(&j, "sort", top_cols[t->sort].name);
	json_kv_string(&j, "order", order_name(t));
	json_kv_u64(&j, "nfiles", v->nrows);
	json_key(&j, "totals");
	stats_write_json(&j, &v->totals);
	json_key(&j, "files");
	json_array_begin(&j);
	for (int i = 0; i < v->nrows; i++) {
		const struct top_row *r = &v->rows[i];

		json_object_begin(&j);
		json_kv_string(&j, "path", r->state == PATH_UNKNOWN ? NULL : r->path);
		json_kv_string(&j, "path_state", path_state_names[r->state]);
		snprintf(dev, sizeof(dev), "%u:%u", kdev_major(r->key.dev),
			 kdev_minor(r->key.dev));
		json_kv_string(&j, "dev", dev);
		json_kv_u64(&j, "ino", r->key.ino);
		json_key(&j, "stats");
		stats_write_json(&j, &r->s);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "losses");
	json_object_begin(&j);
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		json_kv_u64(&j, counter_names[i], v->d.counters[i]);
	json_object_end(&j);
	json_kv_u64(&j, "lost", snapshot_losses(&v->d));
	json_object_end(&j);
	fflush(out);
}

static void emit_text(FILE *out, const struct top *t, const char *title,
		      const struct view *v)
{
	struct top_layout l;
	char line[TOP_PATH_LEN + 512];

	fprintf(out, "\n=== %s ===\n", title);
	fprintf(out, "%.2f s %s; sort: %s %s; %d files\n", v->d.seconds,
		v->cumulative ? "since attach" : "interval", top_cols[t->sort].name,
		order_name(t), v->nrows);
	top_fmt_totals(&v->totals, false, line, sizeof(line));
	fprintf(out, "%s\n", line);
	top_fmt_losses("losses", &v->d, line, sizeof(line));
	fprintf(out, "%s\n", line);
	top_layout_fit(&l, v->rows, v->nrows, false);
	top_fmt_line(&l, NULL, line, sizeof(line));
	fprintf(out, "%s\n", line);
	for (int i = 0; i < v->nrows; i++) {
		top_fmt_line(&l, &v->rows[i], line, sizeof(line));
		fprintf(out, "%s\n", line);
	}
	fflush(out);
}

static int run_batch(struct top *t)
{
	const struct top_args *a = t->a;
	struct view sum = {};
	char title[64];
	int ret = EXIT_OK;

	if (!a->json)
		report_header_text(stdout, &t->rc);
	fflush(stdout);
	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	while (!session_exiting && (!a->count || t->n < a->count)) {
		session_sleep(a->interval);
		if (session_exiting)
			break;
		if (top_refresh(t, ENGINE_FLUSH_IDLE_NS)) {
			fprintf(stderr, "iomapdirty: cannot read the BPF maps\n");
			ret = EXIT_RUNTIME;
			break;
		}
		if (a->json) {
			emit_json(stdout, t, "top", t->n, &t->v);
		} else {
			snprintf(title, sizeof(title), "interval %llu", t->n);
			emit_text(stdout, t, title, &t->v);
		}
	}
	/* summary: everything since attach, every context finished */
	if (top_refresh(t, 0) ||
	    view_build(&sum, &t->s->engine, &t->cur, NULL, true)) {
		fprintf(stderr, "iomapdirty: cannot read the BPF maps\n");
		view_free(&sum);
		return EXIT_RUNTIME;
	}
	top_sort(sum.rows, sum.nrows, t->sort, t->reverse);
	if (a->json)
		emit_json(stdout, t, "summary", 0, &sum);
	else
		emit_text(stdout, t, "summary", &sum);
	view_free(&sum);
	return ret;
}

/* ---------------------------------------------------------- interactive */

static SCREEN *screen;

/* Any exit while the screen is up leaves the terminal as it was. */
static void screen_end(void)
{
	if (screen && !isendwin())
		endwin();
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A line, cut at the screen's width; true while it fits on the screen. */
static bool put_line(int *y, int attr, const char *s)
{
	if (*y >= LINES)
		return false;
	move(*y, 0);
	clrtoeol();
	if (attr)
		attron(attr);
	addnstr(s, COLS);
	if (attr)
		attroff(attr);
	(*y)++;
	return true;
}

/*
 * A long header line (the attach plan) wrapped at spaces over at most
 * maxl screen lines; what does not fit then ends in "...".
 */
static void put_wrapped(int *y, const char *s, int maxl)
{
	char part[TOP_PATH_LEN + 512];
	int n = (int)strlen(s), w = COLS > 16 ? COLS : 16, cut, l = 0;
	const char *indent = "";

	while (n > 0 && *y < LINES) {
		int room = w - (int)strlen(indent);

		if (++l == maxl && n > room) {
			snprintf(part, sizeof(part), "%s%.*s...", indent, room - 3, s);
			put_line(y, 0, part);
			return;
		}
		cut = n;
		if (cut > room) {
			cut = room;
			while (cut > room / 2 && s[cut] != ' ')
				cut--;
			if (s[cut] != ' ')
				cut = room;	/* no space: hard break */
		}
		snprintf(part, sizeof(part), "%s%.*s", indent, cut, s);
		put_line(y, 0, part);
		s += cut;
		n -= cut;
		while (*s == ' ') {
			s++;
			n--;
		}
		indent = "    ";
	}
}

static void draw(struct top *t, const char *header, int *scroll)
{
	const struct view *v = &t->v;
	struct top_layout l;
	char line[TOP_PATH_LEN + 512], iv[96];
	const char *p, *nl;
	int y = 0, body, x, w;
	time_t now = time(NULL);
	struct tm tm;

	erase();
	localtime_r(&now, &tm);
	interval_text(t, t->cumulative, iv, sizeof(iv));
	snprintf(line, sizeof(line), "iomapdirty top - %s - reading %llu - %02d:%02d:%02d",
		 iv, t->n, tm.tm_hour, tm.tm_min, tm.tm_sec);
	put_line(&y, A_BOLD, line);
	for (p = header; *p; p = nl + 1) {	/* report_header_text(), line by line */
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		snprintf(line, sizeof(line), "%.*s", (int)(nl - p), p);
		put_wrapped(&y, line, 3);
		if (!*nl)
			break;
	}
	if (v->valid) {
		top_fmt_totals(&v->totals, true, line, sizeof(line));
		put_wrapped(&y, line, 2);
	} else {
		put_line(&y, 0, "totals: waiting for the first reading");
	}
	/* lost events since attach stay on screen, whatever the interval */
	top_fmt_losses("losses since attach", &t->cur, line, sizeof(line));
	put_line(&y, snapshot_losses(&t->cur) ? A_BOLD : 0, line);
	if (v->valid && !v->cumulative)
		snprintf(line, sizeof(line), "%d file%s (%d since attach)   sort: %s %s",
			 v->nrows, v->nrows == 1 ? "" : "s", t->cur.nfiles,
			 top_cols[t->sort].title, order_name(t));
	else
		snprintf(line, sizeof(line), "%d file%s   sort: %s %s", v->nrows,
			 v->nrows == 1 ? "" : "s", top_cols[t->sort].title, order_name(t));
	put_line(&y, 0, line);
	y++;

	top_layout_fixed(&l, COLS);
	top_fmt_line(&l, NULL, line, sizeof(line));
	if (y < LINES) {
		put_line(&y, A_REVERSE, line);
		/* the sort column's title stands out */
		x = top_col_offset(&l, t->sort);
		w = l.width[t->sort];
		if (x < COLS)
			mvchgat(y - 1, x, w, A_REVERSE | A_BOLD | A_UNDERLINE, 0, NULL);
	}
	body = LINES - y - 1;
	if (body < 0)
		body = 0;
	if (*scroll > v->nrows - body)
		*scroll = v->nrows - body;
	if (*scroll < 0)
		*scroll = 0;
	for (int i = *scroll; i < v->nrows && y < LINES - 1; i++) {
		top_fmt_line(&l, &v->rows[i], line, sizeof(line));
		put_line(&y, 0, line);
	}
	if (!v->valid && y < LINES - 1)
		put_line(&y, 0, "(collecting the first interval)");
	if (LINES > 1) {
		y = LINES - 1;
		snprintf(line, sizeof(line), "q quit  < > s column  r reverse  "
			 "c cumulative  1-9 pDadwfRAm pick  arrows scroll%s",
			 v->nrows > *scroll + body ? "  (more below)" : "");
		put_line(&y, A_DIM, line);
	}
	refresh();
}

/* Returns true when the key asks to quit. */
static bool handle_key(struct top *t, int ch, int *scroll, bool *rebuild)
{
	int c;

	switch (ch) {
	case 'q':
	case 'Q':
		return true;
	case '<':
		t->sort = (t->sort + TOP_NR_COLS - 1) % TOP_NR_COLS;
		break;
	case '>':
	case 's':
		t->sort = (t->sort + 1) % TOP_NR_COLS;
		break;
	case 'r':
		t->reverse = !t->reverse;
		break;
	case 'c':
		t->cumulative = !t->cumulative;
		*rebuild = true;
		break;
	case KEY_UP:
		(*scroll)--;
		break;
	case KEY_DOWN:
		(*scroll)++;
		break;
	case KEY_PPAGE:
		*scroll -= LINES / 2;
		break;
	case KEY_NPAGE:
		*scroll += LINES / 2;
		break;
	case KEY_HOME:
		*scroll = 0;
		break;
	case KEY_END:
		*scroll = t->v.nrows;
		break;
	case 12:	/* ^L */
		clearok(curscr, TRUE);
		break;
	default:
		c = top_col_from_key(ch);
		if (c >= 0)
			t->sort = c;
	}
	return false;
}

static char *capture_header(const struct report_ctx *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return strdup("");
	report_header_text(f, rc);
	fclose(f);
	return buf;
}

static int run_interactive(struct top *t)
{
	const struct top_args *a = t->a;
	char *header = capture_header(&t->rc);
	double next;
	int scroll = 0, ret = EXIT_OK;
	bool rebuild = false;

	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	atexit(screen_end);
	cbreak();		/* keys at once; ^C still sends SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	next = now_s() + a->interval;
	draw(t, header, &scroll);
	while (!session_exiting) {
		double left = next - now_s();
		int ch;

		if (left <= 0) {
			if (top_refresh(t, ENGINE_FLUSH_IDLE_NS)) {
				ret = EXIT_RUNTIME;
				break;
			}
			draw(t, header, &scroll);
			if (a->count && t->n >= a->count)
				break;
			next += a->interval;
			if (next < now_s())	/* fell behind: no burst of refreshes */
				next = now_s() + a->interval;
			continue;
		}
		timeout(left * 1000 < KEY_POLL_MS ? (int)(left * 1000) + 1 : KEY_POLL_MS);
		ch = getch();
		if (ch == ERR)
			continue;	/* timeout, or a signal: the loop checks */
		if (handle_key(t, ch, &scroll, &rebuild))
			break;
		if (rebuild && t->have_cur &&
		    view_build(&t->v, &t->s->engine, &t->cur, &t->prev, t->cumulative)) {
			ret = EXIT_RUNTIME;
			break;
		}
		rebuild = false;
		top_sort(t->v.rows, t->v.nrows, t->sort, t->reverse);
		draw(t, header, &scroll);
	}
	endwin();
	delscreen(screen);
	screen = NULL;
	free(header);
	if (ret == EXIT_RUNTIME)
		fprintf(stderr, "iomapdirty: cannot read the BPF maps\n");
	return ret;
}

/* ---------------------------------------------------------------- main */

int cmd_top(int argc, char **argv)
{
	static const struct argp argp = {
		top_options, top_parse, NULL,
		"Live per-file view of write amplification: one row per file written, "
		"per interval or (-C) since attach.\v"
		"Columns: PATH, DEV, APP (bytes written by the application), DIRTY "
		"(bytes dirtied), WB (bytes written back), FOLIOS (folios written "
		"back), ROUND (block rounding = app_dirty_bytes / app_bytes), AMP "
		"(folio amplification = submitted blocks of seen folios / dirty "
		"blocks), MAXFOLIO (largest folio). Keys: q quit, < > s move the sort "
		"column, r reverse, c cumulative, 1-9 or p D a d w f R A m pick a "
		"column, arrows scroll.",
		filter_children, NULL, NULL,
	};
	struct top_args a = { .interval = 2.0, .so.mode = MODE_AUTO, .sort = TOP_COL_WB };
	struct top t = {};
	struct session s;
	int ret;

	filter_opts_target = &a.so;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (!a.batch && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)))
		a.batch = true;
	session_install_signals();	/* before newterm: ncurses keeps ours */
	ret = session_start(&s, &a.so);
	if (ret == EXIT_OK) {
		t.s = &s;
		t.a = &a;
		t.rc = (struct report_ctx){
			.plan = &s.plan,
			.target_dev = s.fs.dev,
			.max_pages = engine_max_pages(&s.engine),
		};
		t.sort = a.sort;
		t.reverse = a.reverse;
		t.cumulative = a.cumulative;
		if (!a.batch) {
			setlocale(LC_ALL, "");
			screen = newterm(NULL, stdout, stdin);
			if (!screen) {
				fprintf(stderr, "iomapdirty: cannot use the terminal "
					"(TERM=%s); batch mode\n",
					getenv("TERM") ? getenv("TERM") : "");
				a.batch = true;
			}
		}
		ret = a.batch ? run_batch(&t) : run_interactive(&t);
	}
	view_free(&t.v);
	snapshot_free(&t.prev);
	snapshot_free(&t.cur);
	session_stop(&s);
	return ret;
}
