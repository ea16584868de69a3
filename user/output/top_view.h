/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure half of `iomapdirty top`: rows (one per file), the columns,
 * sorting, text formatting and the batch reports. No terminal and no BPF
 * here, so all of it is unit-tested (tests/unit/test_top.c); cmd_top.c
 * fills the rows from the engine and draws them with ncurses.
 *
 * The two ratio columns are the derived figures of model/ratios.h:
 * ROUND = stats_block_rounding(), AMP = stats_folio_amplification();
 * "n/a" when the denominator is 0.
 */
#ifndef IOMAPDIRTY_TOP_VIEW_H
#define IOMAPDIRTY_TOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "model/files.h"
#include "model/snapshot.h"

enum top_col {
	TOP_COL_PATH,		/* where the file is (file_lookup.path) */
	TOP_COL_DEV,		/* MAJ:MIN */
	TOP_COL_APP,		/* app_bytes: written by the application */
	TOP_COL_DIRTY,		/* dirty_bytes */
	TOP_COL_WB,		/* submitted_bytes: written back */
	TOP_COL_FOLIOS,		/* folios written back */
	TOP_COL_ROUND,		/* block rounding */
	TOP_COL_AMP,		/* folio amplification */
	TOP_COL_MAXFOLIO,	/* max_folio_bytes */
	TOP_COL_COMM,		/* the writer's command (top_fmt_writer) */
	TOP_COL_CGROUP,		/* the writer's unit, container or cgroup path */
	TOP_NR_COLS,
};

struct top_col_info {
	const char *name;	/* for -s and JSON "sort": "wb" */
	const char *title;	/* column header: "WB" */
	int key;		/* interactive key that picks it (besides 1-9) */
	bool ascending;		/* natural order: path and dev A-Z, numbers largest first */
	int width;		/* interactive (human-readable) width */
};

extern const struct top_col_info top_cols[TOP_NR_COLS];

/* -s NAME (case-insensitive) -> column, or -1. */
int top_col_parse(const char *name);
/* Interactive key ('1'-'9' or the column's key) -> column, or -1. */
int top_col_from_key(int ch);
/* "path, dev, app, ..." for error messages. */
void top_col_list(char *buf, size_t len);

#define TOP_PATH_LEN	(PATH_MAX_COMPONENTS * PATH_COMPONENT_LEN + 512)

struct top_row {
	struct file_key key;
	enum path_state state;
	char path[TOP_PATH_LEN];	/* as file_lookup.path wrote it */
	struct wa_stats s;
	bool no_round;		/* block rounding not measured (accounting level) */
	bool writer_known;
	struct writer_info writer;	/* the file's first writer (file_lookup.writer) */
	bool partial;		/* evicted before: counted since, not since attach */
	int nfiles;		/* group rows (top_group.h): files summed */
	int nseveral;		/* group rows: of them, written by several cgroups */
};

/*
 * Order of two rows by a column: <0, 0, >0. Numbers compare as u64,
 * ratios exactly (cross-multiplied in 128 bits; n/a below every number).
 * 'reverse' flips the column's natural order (top_cols[].ascending).
 * Equal keys fall back to path, then dev and inode, always ascending, so
 * the order is total and does not depend on the order rows came in.
 */
int top_row_cmp(const struct top_row *a, const struct top_row *b,
		enum top_col col, bool reverse);
void top_sort(struct top_row *rows, int n, enum top_col col, bool reverse);

/*
 * Bytes. Exact ("1700") unless human. Human: below 1024 the exact integer;
 * else v / 1024^k for the largest k with 1024^k <= v, suffix K M G T P E,
 * one decimal rounded half up (tenths = (10 v + 1024^k / 2) / 1024^k, in
 * integers); a result that rounds to 1024.0 moves to the next unit.
 * 1000 -> "1000", 1700 -> "1.7K", 1048575 -> "1.0M".
 */
void top_fmt_bytes(uint64_t v, bool human, char *buf, size_t len);
/* num/den as "%.2fx", or "n/a" when den is 0 (as report.c prints them). */
/* " (deleted)", " (moved)" or "" */
const char *top_path_suffix(enum path_state st);
/*
 * The PATH cell: path plus its state's suffix ("[ino N]" when unknown);
 * control characters (a newline in a file name) shown as '?'.
 */
void top_fmt_path(const struct top_row *r, char *buf, size_t len);
/* One cell, as shown. */
void top_fmt_cell(const struct top_row *r, enum top_col c, bool human,
		  char *buf, size_t len);
/*
 * The COMM and CGROUP cells of a file's writer, sanitized. COMM: the
 * command, "?" when no writer is known. CGROUP: "several" when writers of
 * several cgroups wrote the file (unless by_id: the first writer's own
 * cgroup, as the group view files it), else the container
 * ("RUNTIME:ID12"), else the systemd unit, else the path relative to the
 * v2 root; "?" when the cgroup is not known.
 */
#define TOP_NAME_MAX	40	/* batch width of COMM and CGROUP: longer is cut */
void top_fmt_writer(const struct top_row *r, enum top_col c, bool by_id, char *buf,
		    size_t len);
/* Keeps the end of s (the file name): "...b/c.dat" in at most width. */
void top_fit_left(const char *s, int width, char *buf, size_t len);

/*
 * Column widths of a table. top_layout_fixed: the interactive widths,
 * PATH getting what is left of 'cols' screen columns. top_layout_fit:
 * each column as wide as its widest cell (batch: nothing is cut).
 */
struct top_layout {
	int width[TOP_NR_COLS];
	bool human;
};
void top_layout_fixed(struct top_layout *l, int cols);
void top_layout_fit(struct top_layout *l, const struct top_row *rows, int n,
		    bool human);
/* Start column of c in a line, and the line's total width. */
int top_col_offset(const struct top_layout *l, enum top_col c);
int top_line_width(const struct top_layout *l);
/* One table line (r == NULL: the titles). PATH left, numbers right. */
void top_fmt_line(const struct top_layout *l, const struct top_row *r,
		  char *buf, size_t len);

/* "totals: app 1.7K  dirty 17K  wb 17K  folios 17  round ...". */
/* no_round: block rounding is not measured at this accounting level ("n/a") */
void top_fmt_totals(const struct wa_stats *t, bool human, bool no_round, char *buf,
		    size_t len);
/*
 * "LABEL: none", or "LABEL: 3 (page_map_full=2 read_failures=1)": the
 * sum (snapshot_losses) and every non-zero loss counter by name.
 */
void top_fmt_losses(const char *label, const struct snapshot *d, char *buf,
		    size_t len);
/*
 * "" when no file was evicted from the LRU file maps, else how many and
 * what a row marked TOP_PARTIAL_SUFFIX means.
 */
#define TOP_PARTIAL_SUFFIX	" (partial)"
void top_fmt_evicted(const struct snapshot *d, char *buf, size_t len);

/* What one screen or batch report shows: a reading's rows, sorted. */
struct top_view {
	struct snapshot d;		/* interval or since attach */
	struct top_row *rows;
	int nrows;
	struct wa_stats totals;
	bool cumulative;
	bool valid;
	bool no_round;			/* see top_row */
	int group_by;			/* enum top_group_by: rows per writer too */
	struct top_row *groups;		/* top_view_order() builds them */
	int ngroups;
};
void top_view_free(struct top_view *v);

/* "asc" or "desc": the column's natural order, or reversed. */
const char *top_order_name(enum top_col sort, bool reverse);

/*
 * Batch mode: a titled text table, or one JSON line (schema iomapdirty/1).
 * host names the filesystems not watched.
 */
void top_print_text(FILE *out, const char *title, const struct top_view *v,
		    enum top_col sort, bool reverse, const struct host_lookup *host);
void top_print_json(FILE *out, const char *type, unsigned long long n,
		    double interval, const struct top_view *v, enum top_col sort,
		    bool reverse, const struct plan *p, const struct host_lookup *host);

#endif
