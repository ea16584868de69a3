// SPDX-License-Identifier: GPL-2.0
/*
 * The pure parts of `iomapdirty top` (user/output/top_view.c): sorting by every
 * column (u64 values above 2^32, exact ratios, equal keys), byte
 * formatting, path state suffixes, column names and keys, table lines.
 * Expected values are written out by hand, not computed with the code
 * under test.
 */
#include <stdlib.h>
#include "output/report.h"
#include "model/ratios.h"
#include "output/top_view.h"
#include "unit.h"

#define G4 (1ull << 32)

static struct top_row mkrow(const char *path, uint32_t dev, uint64_t ino)
{
	struct top_row r;

	memset(&r, 0, sizeof(r));
	snprintf(r.path, sizeof(r.path), "%s", path);
	r.key.dev = dev;
	r.key.ino = ino;
	r.state = PATH_OK;
	return r;
}

/* "a,b,c": the last path component of each row, in order */
static const char *order(const struct top_row *rows, int n)
{
	static char buf[256];
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(rows[i].path, '/');

		len += snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? "," : "",
				slash ? slash + 1 : rows[i].path);
	}
	return buf;
}

/* sorts a copy, in the given input order, and returns the names */
static const char *sorted(const struct top_row *in, int n, const int *perm,
			  enum top_col col, bool reverse)
{
	struct top_row rows[8];

	for (int i = 0; i < n; i++)
		rows[i] = in[perm[i]];
	top_sort(rows, n, col, reverse);
	return order(rows, n);
}

static void test_sort_numbers(void)
{
	static const int fwd[] = { 0, 1, 2, 3 }, bwd[] = { 3, 2, 1, 0 },
			 mix[] = { 2, 0, 3, 1 };
	struct top_row r[4] = {
		mkrow("/m/a", kdev_make(7, 0), 10),
		mkrow("/m/b", kdev_make(7, 0), 11),
		mkrow("/m/c", kdev_make(8, 1), 12),
		mkrow("/m/d", kdev_make(7, 0), 13),
	};

	/* above 2^32: a truncating "return a - b" would get these wrong */
	r[0].s.app_bytes = G4 + 5;
	r[1].s.app_bytes = 7;
	r[2].s.app_bytes = G4 * 3;
	r[3].s.app_bytes = 1;
	for (int p = 0; p < 3; p++) {
		const int *perm = p == 0 ? fwd : p == 1 ? bwd : mix;

		CHECK_STR(sorted(r, 4, perm, TOP_COL_APP, false), "c,a,b,d",
			  "sort app desc, u64 > 2^32, input order %d", p);
		CHECK_STR(sorted(r, 4, perm, TOP_COL_APP, true), "d,b,a,c",
			  "sort app reversed (asc), input order %d", p);
	}

	r[0].s.dirty_bytes = 1ull << 40;
	r[1].s.dirty_bytes = (1ull << 40) + 1;
	r[2].s.dirty_bytes = 0;
	r[3].s.dirty_bytes = 1ull << 33;
	CHECK_STR(sorted(r, 4, mix, TOP_COL_DIRTY, false), "b,a,d,c", "sort dirty desc");

	r[0].s.submitted_bytes = 1ull << 63;	/* a - b overflows int64 too */
	r[1].s.submitted_bytes = 1;
	r[2].s.submitted_bytes = UINT64_MAX;
	r[3].s.submitted_bytes = (1ull << 63) - 1;
	CHECK_STR(sorted(r, 4, fwd, TOP_COL_WB, false), "c,a,d,b", "sort wb desc near 2^64");
	CHECK_STR(sorted(r, 4, bwd, TOP_COL_WB, true), "b,d,a,c", "sort wb asc near 2^64");

	r[0].s.folios = 3;
	r[1].s.folios = G4 + 3;		/* equal low 32 bits */
	r[2].s.folios = 2 * G4 + 3;
	r[3].s.folios = 4;
	CHECK_STR(sorted(r, 4, mix, TOP_COL_FOLIOS, false), "c,b,d,a",
		  "sort folios desc, same low 32 bits");

	r[0].s.max_folio_bytes = 4096;
	r[1].s.max_folio_bytes = 2u << 20;
	r[2].s.max_folio_bytes = 16384;
	r[3].s.max_folio_bytes = 1ull << 36;
	CHECK_STR(sorted(r, 4, fwd, TOP_COL_MAXFOLIO, false), "d,b,c,a", "sort maxfolio desc");

	/* dev: natural order ascending; 8:1 above every 7:x */
	CHECK_STR(sorted(r, 4, mix, TOP_COL_DEV, false), "a,b,d,c",
		  "sort dev asc, ties by path");
	CHECK_STR(sorted(r, 4, mix, TOP_COL_DEV, true), "c,a,b,d",
		  "sort dev desc, ties still by path ascending");
}

static void test_sort_ratios(void)
{
	static const int fwd[] = { 0, 1, 2, 3, 4 }, bwd[] = { 4, 3, 2, 1, 0 };
	struct top_row r[5] = {
		mkrow("/m/a", 1, 1), mkrow("/m/b", 1, 2), mkrow("/m/c", 1, 3),
		mkrow("/m/d", 1, 4), mkrow("/m/e", 1, 5),
	};

	/* ROUND = app_dirty_bytes / app_bytes */
	r[0].s.app_dirty_bytes = 1024;  r[0].s.app_bytes = 100;	/* 10.24 */
	r[1].s.app_dirty_bytes = 1024;  r[1].s.app_bytes = 0;	/* n/a */
	r[2].s.app_dirty_bytes = 2048;  r[2].s.app_bytes = 200;	/* 10.24: tie with a */
	r[3].s.app_dirty_bytes = 3;     r[3].s.app_bytes = 1;	/* 3 */
	/* 10.24 + 1e-12 or so: distinct only in exact arithmetic */
	r[4].s.app_dirty_bytes = 1024 * (G4 * 8) + 1;  r[4].s.app_bytes = 100 * (G4 * 8);
	CHECK_STR(sorted(r, 5, fwd, TOP_COL_ROUND, false), "e,a,c,d,b",
		  "sort round desc: exact ratios, tie by path, n/a last");
	CHECK_STR(sorted(r, 5, bwd, TOP_COL_ROUND, true), "b,d,a,c,e",
		  "sort round asc: n/a first");

	/* AMP = (submitted_blocks - unseen_submitted_blocks) / dirty_blocks */
	for (int i = 0; i < 5; i++)
		memset(&r[i].s, 0, sizeof(r[i].s));
	r[0].s.submitted_blocks = 8; r[0].s.dirty_blocks = 2;			/* 4 */
	r[1].s.submitted_blocks = 9; r[1].s.unseen_submitted_blocks = 5;
	r[1].s.dirty_blocks = 2;						/* 2, not 4.5 */
	r[2].s.submitted_blocks = 3; r[2].s.dirty_blocks = 3;			/* 1 */
	r[3].s.submitted_blocks = 7;						/* n/a */
	r[4].s.submitted_blocks = 3 * G4; r[4].s.dirty_blocks = G4;		/* 3 */
	CHECK_STR(sorted(r, 5, bwd, TOP_COL_AMP, false), "a,e,b,c,d",
		  "sort amp desc uses stats_amplified_blocks");
	CHECK_U64(stats_amplified_blocks(&r[1].s), 4, "amp numerator excludes unseen");
}

static void test_sort_ties(void)
{
	static const int p1[] = { 0, 1, 2, 3 }, p2[] = { 3, 1, 0, 2 };
	struct top_row r[4] = {
		mkrow("/m/z", 1, 9), mkrow("/m/b", 1, 8),
		mkrow("/m/y", 1, 7), mkrow("/m/b", 2, 1),	/* same path, other dev */
	};
	char a[256];

	for (int i = 0; i < 4; i++)
		r[i].s.submitted_bytes = 4096;	/* all equal */
	snprintf(a, sizeof(a), "%s", sorted(r, 4, p1, TOP_COL_WB, false));
	CHECK_STR(a, "b,b,y,z", "equal wb: by path");
	CHECK_STR(sorted(r, 4, p2, TOP_COL_WB, false), a, "equal wb: same order from any input");
	CHECK_STR(sorted(r, 4, p2, TOP_COL_WB, true), a, "equal wb reversed: ties unchanged");
	{
		struct top_row x[4];

		for (int i = 0; i < 4; i++)
			x[i] = r[p2[i]];
		top_sort(x, 4, TOP_COL_WB, false);
		CHECK_U64(x[0].key.dev, 1, "same path: dev breaks the tie");
		CHECK_U64(x[1].key.dev, 2, "same path: dev breaks the tie (2nd)");
	}
	CHECK(top_row_cmp(&r[0], &r[0], TOP_COL_APP, false) == 0, "row equals itself");
	CHECK(top_row_cmp(&r[1], &r[3], TOP_COL_APP, false) < 0 &&
	      top_row_cmp(&r[3], &r[1], TOP_COL_APP, false) > 0, "cmp antisymmetric");
	/* path column: A to Z, reverse Z to A */
	CHECK_STR(sorted(r, 4, p1, TOP_COL_PATH, false), "b,b,y,z", "sort path asc");
	CHECK_STR(sorted(r, 4, p1, TOP_COL_PATH, true), "z,y,b,b", "sort path reversed");
}

static void test_bytes(void)
{
	static const struct { uint64_t v; const char *want; } cases[] = {
		{ 0, "0" }, { 1, "1" }, { 1000, "1000" }, { 1023, "1023" },
		{ 1024, "1.0K" }, { 1075, "1.0K" },	/* 1.0498 */
		{ 1076, "1.1K" },			/* 1.0508 */
		{ 1700, "1.7K" }, { 2700, "2.6K" },	/* 2.6367 */
		{ 10240, "10.0K" }, { 19456, "19.0K" },
		{ 1048064, "1023.5K" },			/* 1023.5 exactly */
		{ 1048575, "1.0M" },			/* 1023.999: rounds to the next unit */
		{ 1048576, "1.0M" }, { 1572864, "1.5M" },
		{ 1ull << 30, "1.0G" }, { 5ull << 40, "5.0T" },
		{ 1ull << 50, "1.0P" }, { 1ull << 60, "1.0E" },
		{ UINT64_MAX, "16.0E" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		top_fmt_bytes(cases[i].v, true, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want, "human bytes %llu", (unsigned long long)cases[i].v);
	}
	top_fmt_bytes(1700, false, buf, sizeof(buf));
	CHECK_STR(buf, "1700", "exact bytes 1700");
	top_fmt_bytes(UINT64_MAX, false, buf, sizeof(buf));
	CHECK_STR(buf, "18446744073709551615", "exact bytes u64 max");
	ratio_text((struct ratio){ 1024, 100 }, buf, sizeof(buf));
	CHECK_STR(buf, "10.24x", "ratio 1024/100");
	ratio_text((struct ratio){ 5, 0 }, buf, sizeof(buf));
	CHECK_STR(buf, "n/a", "ratio with zero denominator");
}

static void test_paths(void)
{
	struct top_row r = mkrow("/mnt/x/sub/dir/b.dat", kdev_make(7, 3), 131);
	char buf[TOP_PATH_LEN + 32];

	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, "/mnt/x/sub/dir/b.dat", "path ok: no suffix");
	r.state = PATH_DELETED;
	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, "/mnt/x/sub/dir/b.dat (deleted)", "path deleted suffix");
	r.state = PATH_MOVED;
	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, "/mnt/x/sub/dir/b.dat (moved)", "path moved suffix");
	r.state = PATH_TRUNCATED;
	snprintf(r.path, sizeof(r.path), ".../deep/f");
	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, ".../deep/f (truncated)", "path truncated: marked so");
	r.state = PATH_UNKNOWN;
	r.path[0] = '\0';
	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, "[ino 131]", "path unknown: inode");
	r.state = PATH_OK;
	snprintf(r.path, sizeof(r.path), "/m/new\nline\tx");
	top_fmt_path(&r, buf, sizeof(buf));
	CHECK_STR(buf, "/m/new\\x0aline\\x09x", "control characters shown as \\xHH");
	CHECK_STR(top_path_suffix(PATH_OK), "", "suffix ok");
	CHECK_STR(path_state_names[PATH_MOVED], "moved", "JSON path_state name moved");

	top_fit_left("/mnt/x/sub/dir/b.dat", 12, buf, sizeof(buf));
	CHECK_STR(buf, "...dir/b.dat", "fit_left keeps the end (file name) in 12");
	top_fit_left("/short", 12, buf, sizeof(buf));
	CHECK_STR(buf, "/short", "fit_left: fits");
	top_fit_left("/abcdef", 2, buf, sizeof(buf));
	CHECK_STR(buf, "..", "fit_left: tiny width");
}

static void test_columns(void)
{
	char buf[256];

	CHECK_U64(top_col_parse("wb"), TOP_COL_WB, "parse wb");
	CHECK_U64(top_col_parse("MAXFOLIO"), TOP_COL_MAXFOLIO, "parse case-insensitive");
	CHECK(top_col_parse("bogus") == -1, "parse unknown -> -1");
	CHECK(top_col_parse("") == -1, "parse empty -> -1");
	top_col_list(buf, sizeof(buf));
	CHECK_STR(buf, "path, dev, app, dirty, wb, folios, round, amp, maxfolio, comm, cgroup",
		  "column list");
	for (int c = 0; c < TOP_NR_COLS; c++) {
		if (c < 9)
			CHECK_U64(top_col_from_key('1' + c), c, "digit %d picks %s", c + 1,
				  top_cols[c].name);
		CHECK_U64(top_col_from_key(top_cols[c].key), c, "key '%c' picks %s",
			  top_cols[c].key, top_cols[c].name);
		for (int d = 0; d < c; d++)
			CHECK(top_cols[c].key != top_cols[d].key, "keys of %s and %s differ",
			      top_cols[c].name, top_cols[d].name);
		CHECK(top_cols[c].key != 'q' && top_cols[c].key != 'r' &&
		      top_cols[c].key != 'c' && top_cols[c].key != 's',
		      "key of %s is not a command key", top_cols[c].name);
	}
	CHECK(top_col_from_key('0') == -1 && top_col_from_key('x') == -1, "other keys: -1");
}

static void test_lines(void)
{
	struct top_row r = mkrow("/mnt/x/a.dat", kdev_make(7, 5), 68);
	struct top_layout l;
	struct snapshot d;
	char buf[TOP_PATH_LEN + 512];

	/* 10 writes of 100 bytes, 1 KiB blocks, order-0 folios */
	r.s.app_bytes = 1000;
	r.s.app_dirty_bytes = 10240;
	r.s.dirty_bytes = 10240;
	r.s.dirty_blocks = 10;
	r.s.submitted_bytes = 10240;
	r.s.submitted_blocks = 10;
	r.s.folios = 10;
	r.s.max_folio_bytes = 4096;
	top_layout_fit(&l, &r, 1, false);
	top_fmt_line(&l, NULL, buf, sizeof(buf));
	CHECK_STR(buf, "PATH         DEV  APP DIRTY    WB FOLIOS  ROUND   AMP MAXFOLIO COMM CGROUP",
		  "batch title line");
	top_fmt_line(&l, &r, buf, sizeof(buf));
	CHECK_STR(buf, "/mnt/x/a.dat 7:5 1000 10240 10240     10 10.24x 1.00x     4096 ?    ?     ",
		  "batch row: exact numbers, writer unknown");
	top_layout_fixed(&l, 100);
	CHECK_U64(top_line_width(&l), 100, "interactive line fills the screen");
	top_fmt_line(&l, &r, buf, sizeof(buf));
	CHECK(strstr(buf, "   1000   10.0K   10.0K       10  10.24x   1.00x     4.0K") != NULL,
	      "interactive row: human bytes, fixed widths ('%.80s')", buf + 30);
	CHECK_U64(strlen(buf), 100, "interactive row width");
	CHECK_U64(top_col_offset(&l, TOP_COL_DEV), l.width[TOP_COL_PATH] + 1, "offset of DEV");
	top_layout_fixed(&l, 80);	/* a classic terminal: the figures fit */
	CHECK_U64(top_line_width(&l), 80, "80 columns: the table fits");
	CHECK_U64(l.width[TOP_COL_CGROUP], 0, "80 columns: CGROUP dropped");
	CHECK_U64(l.width[TOP_COL_COMM], 0, "80 columns: COMM dropped");
	top_layout_fixed(&l, 93);
	CHECK(l.width[TOP_COL_COMM] == 12 && !l.width[TOP_COL_CGROUP],
	      "93 columns: COMM kept, CGROUP dropped");
	top_fmt_line(&l, &r, buf, sizeof(buf));
	CHECK(!strncmp(buf, "/mnt/x/a.dat   ", 15), "80 columns: path in 14 ('%.15s')", buf);
	top_layout_fixed(&l, 40);	/* too narrow: PATH keeps its minimum */
	CHECK_U64(l.width[TOP_COL_PATH], 12, "narrow screen: minimum PATH width");
	snprintf(r.path, sizeof(r.path), "/mnt/xy/a.dat");
	top_fmt_line(&l, &r, buf, sizeof(buf));
	CHECK(!strncmp(buf, ".../xy/a.dat ", 13), "narrow screen: path cut from the left "
	      "('%.13s')", buf);

	top_fmt_totals(&r.s, true, false, buf, sizeof(buf));
	CHECK_STR(buf, "totals: app 1000  dirty 10.0K  wb 10.0K  folios 10  round 10.24x  "
		  "amp 1.00x  maxfolio 4.0K", "totals line");
	/* always-on accounting: no page records, no rounding; n/a, never a 0 */
	top_fmt_totals(&r.s, true, true, buf, sizeof(buf));
	CHECK_STR(buf, "totals: app 1000  dirty 10.0K  wb 10.0K  folios 10  round n/a  "
		  "amp 1.00x  maxfolio 4.0K", "totals line, rounding not measured");
	r.no_round = true;
	top_fmt_cell(&r, TOP_COL_ROUND, true, buf, sizeof(buf));
	CHECK_STR(buf, "n/a", "rounding cell not measured");
	r.no_round = false;

	memset(&d, 0, sizeof(d));
	d.counters[CNT_WRITE_EVENTS] = 99;	/* an event, not a loss */
	top_fmt_losses("losses", &d, buf, sizeof(buf));
	CHECK_STR(buf, "losses: none", "no losses");
	d.counters[CNT_PAGE_MAP_FULL] = 2;
	d.counters[CNT_READ_FAILURES] = 1;
	top_fmt_losses("losses since attach", &d, buf, sizeof(buf));
	CHECK_STR(buf, "losses since attach: 3 (page_map_full=2 read_failures=1)",
		  "losses named");
}

#include "test_top_writer.h"

int main(void)
{
	test_sort_numbers();
	test_sort_ratios();
	test_sort_ties();
	test_bytes();
	test_paths();
	test_columns();
	test_lines();
	test_writer_cells();
	test_groups();
	UNIT_EXIT();
}
