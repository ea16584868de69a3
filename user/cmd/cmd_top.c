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
#include "lib/clock.h"
#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "output/report.h"
#include "live/sampler.h"
#include "output/top_group.h"
#include "output/top_view.h"
#include "output/unwatched.h"

/* Longest wait for a key: how soon a signal or the refresh is noticed. */
#define KEY_POLL_MS	100

struct top_args {
	struct session_opts so;
	struct sampling sampling;
	bool batch;
	bool json;
	bool cumulative;
	bool reverse;
	int sort;
	int group_by;		/* enum top_group_by */
};

enum { OPT_JSON = 0x500, OPT_GROUP };

static const struct argp_option top_options[] = {
	{ "batch", 'b', NULL, 0, "Batch mode: print reports instead of a live screen "
	  "(the default when stdout is not a terminal)", 0 },
	{ "json", OPT_JSON, NULL, 0, "JSON Lines output (schema iomapdirty/1); implies -b", 0 },
	{ "sort", 's', "COLUMN", 0, "Sort by COLUMN: path, dev, app, dirty, wb, folios, "
	  "round, amp, maxfolio, comm, cgroup (default wb)", 0 },
	{ "group", OPT_GROUP, "BY", 0, "Also one row per writer: BY cgroup or comm, "
	  "summing the files it first wrote (batch: a table after the files', JSON: "
	  "\"groups\")", 0 },
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
	case OPT_GROUP:
		a->group_by = top_group_parse(arg);
		if (a->group_by < 0)
			argp_error(state, "--group: '%s' is neither cgroup nor comm", arg);
		break;
	case 'C':
		a->cumulative = true;
		break;
	case 'r':
		a->reverse = true;
		break;
	case ARGP_KEY_END:
		/* a live screen needs a terminal on both sides */
		if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
			a->batch = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------ the view */

/* d (taken over) becomes the view. Rows get their paths now (state can change). */
static int view_build(struct top_view *v, struct session *s, struct snapshot *d,
		      bool cumulative)
{
	top_view_free(v);
	v->d = *d;
	memset(d, 0, sizeof(*d));
	v->rows = calloc(v->d.nfiles ? v->d.nfiles : 1, sizeof(*v->rows));
	if (!v->rows) {
		snapshot_free(&v->d);
		return -ENOMEM;
	}
	v->no_round = s->plan.accounting != ACCOUNTING_FULL;
	for (int i = 0; i < v->d.nfiles; i++) {
		struct top_row *r = &v->rows[i];

		r->no_round = v->no_round;
		r->key = v->d.files[i].key;
		r->s = v->d.files[i].s;
		r->state = engine_file_path(s->engine, &r->key, r->path, sizeof(r->path));
		r->writer_known = engine_file_writer(s->engine, &r->key, &r->writer);
		r->partial = stats_partial(&r->s);
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
	struct sampler sm;		/* the last two readings */
	int sort;
	bool reverse;
	bool cumulative;
	struct top_view v;
};

/* The view of the last two readings (or since attach), sorted. */
static int top_rebuild(struct top *t)
{
	struct snapshot d;
	int ret = sampler_delta(&t->sm, t->cumulative, &d);

	if (!ret)
		ret = view_build(&t->v, t->s, &d, t->cumulative);
	if (!ret) {
		t->v.group_by = t->a->group_by;
		ret = top_view_order(&t->v, t->sort, t->reverse);
	}
	return ret;
}

/* Takes a reading; the view is rebuilt from it. */
static int top_refresh(struct top *t, uint64_t flush_idle_ns)
{
	int ret = sampler_read(&t->sm, flush_idle_ns);

	return ret ? ret : top_rebuild(t);
}

static const char *order_name(const struct top *t)
{
	return top_order_name(t->sort, t->reverse);
}

static void interval_text(const struct top *t, bool cumulative, char *buf, size_t len)
{
	if (cumulative)
		snprintf(buf, len, "cumulative since attach, every %g s",
			 t->a->sampling.interval);
	else
		snprintf(buf, len, "per interval of %g s", t->a->sampling.interval);
}

/* ---------------------------------------------------------------- batch */

static int run_batch(struct top *t)
{
	const struct top_args *a = t->a;
	struct top_view sum = {};
	struct snapshot d = {};
	char title[64];
	int ret = EXIT_OK;

	if (!a->json)
		report_header_text(stdout, &t->s->report);
	if (report_flush(stdout))
		return EXIT_RUNTIME;
	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	while (sampler_wait(&t->sm)) {
		if (top_refresh(t, ENGINE_FLUSH_IDLE_NS)) {
			fprintf(stderr, "iomapdirty: cannot read the BPF maps\n");
			ret = EXIT_RUNTIME;
			break;
		}
		if (a->json) {
			top_print_json(stdout, "top", t->sm.n, a->sampling.interval, &t->v,
				       t->sort, t->reverse, &t->s->plan, t->s->report.host);
		} else {
			snprintf(title, sizeof(title), "interval %llu", t->sm.n);
			top_print_text(stdout, title, &t->v, t->sort, t->reverse,
				       t->s->report.host);
		}
		if (report_flush(stdout)) {
			ret = EXIT_RUNTIME;	/* nobody can read us: stop */
			break;
		}
	}
	/* summary: everything since attach, every context finished */
	if (engine_summary(t->s->engine, &d) ||
	    view_build(&sum, t->s, &d, true)) {
		fprintf(stderr, "iomapdirty: cannot read the BPF maps\n");
		snapshot_free(&d);
		return EXIT_RUNTIME;
	}
	sum.group_by = a->group_by;
	if (top_view_order(&sum, t->sort, t->reverse)) {
		top_view_free(&sum);
		return EXIT_RUNTIME;
	}
	if (a->json)
		top_print_json(stdout, "summary", 0, a->sampling.interval, &sum,
			       t->sort, t->reverse, &t->s->plan, t->s->report.host);
	else
		top_print_text(stdout, "summary", &sum, t->sort, t->reverse,
			       t->s->report.host);
	top_view_free(&sum);
	return report_flush(stdout) ? EXIT_RUNTIME : ret;
}

/* ---------------------------------------------------------- interactive */

static SCREEN *screen;

/* Any exit while the screen is up leaves the terminal as it was. */
static void screen_end(void)
{
	if (screen && !isendwin())
		endwin();
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
	const struct top_view *v = &t->v;
	const struct top_row *rows = v->rows;
	struct top_layout l;
	char line[TOP_PATH_LEN + 512], iv[96];
	const char *p, *nl;
	int y = 0, body, x, w, nrows = v->nrows;
	time_t now = time(NULL);
	struct tm tm;

	erase();
	localtime_r(&now, &tm);
	interval_text(t, t->cumulative, iv, sizeof(iv));
	snprintf(line, sizeof(line), "iomapdirty top - %s - reading %llu - %02d:%02d:%02d",
		 iv, t->sm.n, tm.tm_hour, tm.tm_min, tm.tm_sec);
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
		top_fmt_totals(&v->totals, true, v->no_round, line, sizeof(line));
		put_wrapped(&y, line, 2);
	} else {
		put_line(&y, 0, "totals: waiting for the first reading");
	}
	/* lost events since attach stay on screen, whatever the interval */
	top_fmt_losses("losses since attach", &t->sm.cur, line, sizeof(line));
	put_line(&y, snapshot_losses(&t->sm.cur) ? A_BOLD : 0, line);
	top_fmt_evicted(&t->sm.cur, line, sizeof(line));
	if (line[0])
		put_line(&y, 0, line);
	/* filesystems written that no figure counts, since attach */
	for (int i = 0; i < t->sm.cur.nunwatched; i++) {
		unwatched_fmt(&t->sm.cur.unwatched[i], t->s->report.host, line,
			      sizeof(line));
		put_wrapped(&y, line, 2);
	}
	if (v->valid && !v->cumulative)
		snprintf(line, sizeof(line), "%d file%s (%d since attach)   sort: %s %s",
			 v->nrows, v->nrows == 1 ? "" : "s", t->sm.cur.nfiles,
			 top_cols[t->sort].title, order_name(t));
	else
		snprintf(line, sizeof(line), "%d file%s   sort: %s %s", v->nrows,
			 v->nrows == 1 ? "" : "s", top_cols[t->sort].title, order_name(t));
	put_line(&y, 0, line);
	if (v->group_by) {
		/* --group: the table shows one row per writer, named in PATH */
		snprintf(line, sizeof(line), "%d writer %s%s (rows: PATH is the %s)",
			 v->ngroups, top_group_names[v->group_by], v->ngroups == 1 ? "" : "s",
			 top_group_names[v->group_by]);
		put_line(&y, 0, line);
		rows = v->groups;
		nrows = v->ngroups;
	}
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
	if (*scroll > nrows - body)
		*scroll = nrows - body;
	if (*scroll < 0)
		*scroll = 0;
	for (int i = *scroll; i < nrows && y < LINES - 1; i++) {
		top_fmt_line(&l, &rows[i], line, sizeof(line));
		put_line(&y, 0, line);
	}
	if (!v->valid && y < LINES - 1)
		put_line(&y, 0, "(collecting the first interval)");
	if (LINES > 1) {
		y = LINES - 1;
		snprintf(line, sizeof(line), "q quit  < > s column  r reverse  "
			 "c cumulative  1-9 pDadwfRAmog pick  arrows scroll%s",
			 nrows > *scroll + body ? "  (more below)" : "");
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
	char *header = capture_header(&t->s->report);
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
	next = mono_seconds() + a->sampling.interval;
	draw(t, header, &scroll);
	while (!session_exiting) {
		double left = next - mono_seconds();
		int ch;

		if (left <= 0) {
			if (top_refresh(t, ENGINE_FLUSH_IDLE_NS)) {
				ret = EXIT_RUNTIME;
				break;
			}
			draw(t, header, &scroll);
			if (a->sampling.count && t->sm.n >= a->sampling.count)
				break;
			next += a->sampling.interval;
			if (next < mono_seconds())	/* fell behind: no burst of refreshes */
				next = mono_seconds() + a->sampling.interval;
			continue;
		}
		timeout(left * 1000 < KEY_POLL_MS ? (int)(left * 1000) + 1 : KEY_POLL_MS);
		ch = getch();
		if (ch == ERR)
			continue;	/* timeout, or a signal: the loop checks */
		if (handle_key(t, ch, &scroll, &rebuild))
			break;
		if (rebuild && t->sm.n && top_rebuild(t)) {
			ret = EXIT_RUNTIME;
			break;
		}
		rebuild = false;
		if (top_view_order(&t->v, t->sort, t->reverse)) {
			ret = EXIT_RUNTIME;
			break;
		}
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

static int run_top(struct session *s, void *args)
{
	const struct top_args *a = args;
	struct top t = {
		.s = s,
		.a = a,
		.sm = { .engine = s->engine, .o = a->sampling },
		.sort = a->sort,
		.reverse = a->reverse,
		.cumulative = a->cumulative,
	};
	bool batch = a->batch;
	int ret;

	if (!batch) {
		setlocale(LC_ALL, "");
		/*
		 * Every terminating signal that can be caught ends the loop
		 * and restores the terminal (SIGINT and SIGTERM: main.c): a
		 * closed ssh session or tmux kill-session (SIGHUP), a core
		 * dump (SIGQUIT) would leave it raw.
		 */
		static const int term_sigs[] = { SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
						 SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
						 SIGXFSZ, SIGPIPE };

		for (size_t i = 0; i < sizeof(term_sigs) / sizeof(term_sigs[0]); i++)
			session_catch_signal(term_sigs[i]);
		screen = newterm(NULL, stdout, stdin);
		if (!screen) {
			fprintf(stderr, "iomapdirty: cannot use the terminal "
				"(TERM=%s); batch mode\n",
				getenv("TERM") ? getenv("TERM") : "");
			batch = true;
		}
	}
	ret = batch ? run_batch(&t) : run_interactive(&t);
	top_view_free(&t.v);
	sampler_free(&t.sm);
	return ret;
}

static struct top_args top_args = {
	.so.mode = MODE_AUTO,
	.sampling.interval = 2.0,
	.sort = TOP_COL_WB,
};

static const struct argp top_argp = { .options = top_options, .parser = top_parse };

const struct command top_command = {
	.name = "top",
	.help = "live per-file view of write amplification",
	.doc = "Live per-file view of write amplification: one row per file written, "
	"per interval or (-C) since attach.\v"
	"Columns: PATH, DEV, APP (bytes written by the application), DIRTY "
	"(bytes dirtied), WB (bytes written back), FOLIOS (folios written "
	"back), ROUND (block rounding = app_dirty_bytes / app_bytes), AMP "
	"(folio amplification = submitted blocks of seen folios / dirty "
	"blocks), MAXFOLIO (largest folio), COMM and CGROUP (the file's first "
	"writer: its command; its container, unit or cgroup path). Keys: q quit, "
	"< > s move the sort column, r reverse, c cumulative, 1-9 or "
	"p D a d w f R A m o g pick a "
	"column, arrows scroll.",
	.argp = &top_argp,
	.args = &top_args,
	.session = &top_args.so,
	.sampling = &top_args.sampling,
	.run = run_top,
};
