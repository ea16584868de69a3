// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text renderer (prom.c): label escaping against strings
 * written out by hand from the exposition format's rules, and a fixed
 * snapshot whose expected lines are computed here from the bucket rules
 * in buckets.h' comment (bucket k of a log2 histogram holds
 * [2^(k-1), 2^k - 1]).
 */
#include <stdlib.h>
#include "output/prom.h"
#include "output/prom_files.h"
#include "unit.h"

static void check_escape(const char *in, const char *want, const char *name)
{
	char buf[256];
	size_t n = prom_escape_label(in, buf, sizeof(buf));

	CHECK_STR(buf, want, "prom.escape.%s", name);
	CHECK_U64(n, strlen(want), "prom.escape.%s.length", name);
}

static bool fake_fs(uint32_t dev, struct fsinfo *fi)
{
	memset(fi, 0, sizeof(*fi));
	snprintf(fi->mount, sizeof(fi->mount), "/mnt/a\"b\\c");
	snprintf(fi->fstype, sizeof(fi->fstype), "xfs");
	return true;
}

#define CTR_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static bool fake_cgroup_path(uint64_t id, char *buf, size_t len)
{
	if (id != 5)
		return false;	/* 6: removed since */
	snprintf(buf, len, "/system.slice/docker-" CTR_ID ".scope");
	return true;
}

/* what the host would say of the device and the cgroups the snapshots name */
static const struct host_lookup fake_host = { .fs = fake_fs, .cgroup_path = fake_cgroup_path };

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Lines the fixture below must render, computed from its counts by hand. */
static const char *const want_lines[] = {
	/* dirty blocks 1, 2, 4: buckets 1, 2, 3, cumulative at le = 2^k - 1 */
	"iomapdirty_dirty_blocks_per_folio_bucket{le=\"0\"} 0",
	"iomapdirty_dirty_blocks_per_folio_bucket{le=\"1\"} 1",
	"iomapdirty_dirty_blocks_per_folio_bucket{le=\"3\"} 2",
	"iomapdirty_dirty_blocks_per_folio_bucket{le=\"7\"} 3",
	"iomapdirty_dirty_blocks_per_folio_bucket{le=\"+Inf\"} 3",
	"iomapdirty_dirty_blocks_per_folio_count 3",
	"iomapdirty_dirty_blocks_per_folio_sum 7",	/* dirty_blocks_total */
	/* amplification: ratio < 1 has no bound of its own, it is in le="1" */
	"iomapdirty_folio_amplification_ratio_bucket{le=\"1\"} 3",
	"iomapdirty_folio_amplification_ratio_bucket{le=\"4\"} 3",
	"iomapdirty_folio_amplification_ratio_bucket{le=\"8\"} 4",
	"iomapdirty_folio_amplification_below_one_total 1",
	"iomapdirty_lost_total{reason=\"submit_without_folio\"} 2",
	"iomapdirty_per_block_dirty_tracking 0",
};

static void render_fixture(void)
{
	struct fs_entry fs = { .dev = (7u << 20) | 3 };
	struct plan plan = { .family = 'b', .family_desc = "test", .bitmap = BITMAP_NONE };
	struct snapshot s = { .fs = &fs, .nfs = 1 };
	struct prom_ctx c = { .plan = &plan, .host = &fake_host, .version = "9.9" };
	struct textbuf tb;
	const char *lbl = "{dev=\"7:3\",mountpoint=\"/mnt/a\\\"b\\\\c\",fstype=\"xfs\"}";
	char line[512];

	fs.s.app_bytes = 5100;
	fs.s.dirty_blocks = 7;
	fs.s.submitted_bytes = 7168;
	fs.s.folio_bytes = 3 * 4096;
	/* three folios: 1, 2 and 4 dirty blocks: buckets 1, 2 and 3 */
	s.hists[HIST_DIRTY_BLOCKS][1] = 1;
	s.hists[HIST_DIRTY_BLOCKS][2] = 1;
	s.hists[HIST_DIRTY_BLOCKS][3] = 1;
	/* amplification: one folio below 1, two at exactly 1, one in (4, 8] */
	s.hists[HIST_AMPLIFICATION][0] = 1;
	s.hists[HIST_AMPLIFICATION][1] = 2;
	s.hists[HIST_AMPLIFICATION][4] = 1;
	s.counters[CNT_SUBMIT_WITHOUT_FOLIO] = 2;
	textbuf_init(&tb, 1 << 20);
	CHECK(prom_render(&tb, &s, &c), "prom.render.ok");
	snprintf(line, sizeof(line), "iomapdirty_app_bytes_total%s 5100", lbl);
	CHECK(has_line(tb.buf, line), "prom.render.app_bytes_escaped_labels");
	snprintf(line, sizeof(line), "iomapdirty_submitted_bytes_total%s 7168", lbl);
	CHECK(has_line(tb.buf, line), "prom.render.submitted_bytes");
	for (size_t i = 0; i < sizeof(want_lines) / sizeof(want_lines[0]); i++)
		CHECK(has_line(tb.buf, want_lines[i]), "prom.render.line %s", want_lines[i]);
	CHECK(!strstr(tb.buf, "iomapdirty_folio_amplification_ratio_sum"),
	      "prom.render.amp_no_sum");
	/* no dirty bitmap in this plan: not measured, so not exported as 0 */
	CHECK(!strstr(tb.buf, "iomapdirty_kernel_dirty_blocks_total"),
	      "prom.render.bitmap_metric_absent_without_bitmap");
	CHECK(!strstr(tb.buf, "iomapdirty_unexplained_blocks_total"),
	      "prom.render.unexplained_absent_without_bitmap");
	CHECK(strstr(tb.buf, "accounting_level=\"full\"") != NULL,
	      "prom.render.accounting_level");
	CHECK(!strstr(tb.buf, "iomapdirty_file_"), "prom.render.no_files_by_default");
	CHECK(!strstr(tb.buf, "whole_folio_dirty_events_total"),
	      "prom.render.whole_dirty_absent_without_hook");
	textbuf_free(&tb);

	/* a whole-folio hook derived from the bitmap is no hook of its own */
	plan.bitmap = BITMAP_IFS;
	plan.hooks[HOOK_WHOLE_DIRTY].chosen = true;
	plan.hooks[HOOK_WHOLE_DIRTY].mech = MECH_DERIVED;
	textbuf_init(&tb, 1 << 20);
	prom_render(&tb, &s, &c);
	CHECK(!strstr(tb.buf, "whole_folio_dirty_events_total"),
	      "prom.render.whole_dirty_absent_when_derived");
	CHECK(strstr(tb.buf, "iomapdirty_kernel_dirty_blocks_total{") != NULL,
	      "prom.render.bitmap_metric_present_with_bitmap");
	plan.hooks[HOOK_WHOLE_DIRTY].mech = MECH_FENTRY;	/* needs no program row */
	textbuf_reset(&tb);
	prom_render(&tb, &s, &c);
	CHECK(strstr(tb.buf, "iomapdirty_whole_folio_dirty_events_total{") != NULL,
	      "prom.render.whole_dirty_present_with_hook");
	textbuf_free(&tb);

	/* a buffer limit below the body's size fails the render, not memory */
	textbuf_init(&tb, 4096);
	CHECK(!prom_render(&tb, &s, &c), "prom.render.limit_enforced");
	CHECK(tb.cap <= 4096, "prom.render.limit_bounds_memory");
	textbuf_free(&tb);
}

/*
 * Every statistic of include/fields.h that JSON shows is exported, as
 * "<field>_total" for a summed one, with a HELP text of its own (not its
 * bare unit): adding a field to the list without describing it fails here.
 */
static void every_field_exported(void)
{
	struct fs_entry fs = { .dev = 7u << 20 };
	struct plan plan = { .family = 'd', .family_desc = "x", .bitmap = BITMAP_IFS };
	struct snapshot s = { .fs = &fs, .nfs = 1 };
	struct prom_ctx c = { .plan = &plan, .host = &fake_host };
	struct textbuf tb;

	plan.hooks[HOOK_WHOLE_DIRTY].chosen = true;
	plan.hooks[HOOK_WHOLE_DIRTY].mech = MECH_FENTRY;	/* needs no program row */
	plan.hooks[HOOK_FOLIO_PTR].chosen = true;	/* tells pre-attach folios apart */
	textbuf_init(&tb, 1 << 20);
	prom_render(&tb, &s, &c);
#define FIELD_EXPORTED(name, unit, merge, json, level, help_text) do {				\
	char hlp[128], bare[256];						\
	const char *sfx = WA_##merge == WA_SUM ? "_total" : "";			\
										\
	if (WA_##json == WA_NEVER)						\
		break;								\
	snprintf(hlp, sizeof(hlp), "\n# HELP iomapdirty_%s%s ", #name, sfx);	\
	snprintf(bare, sizeof(bare), "%s%s\n", hlp, unit);			\
	CHECK(strstr(tb.buf, hlp) && !strstr(tb.buf, bare),			\
	      "prom.field_exported_with_help %s%s", #name, sfx);		\
} while (0);
	WA_STATS_FIELDS(FIELD_EXPORTED)
#undef FIELD_EXPORTED
	textbuf_free(&tb);
}

/*
 * The always-on level keeps no per-page records: what needs them is left
 * out (never exported as 0), what it counts is there; the names are
 * written out here from the list, not taken from fields.h.
 */
static void always_on_level(void)
{
	static const char *const absent[] = {
		"iomapdirty_app_dirty_blocks_total{", "iomapdirty_app_dirty_bytes_total{",
		"iomapdirty_other_dirty_blocks_total{", "iomapdirty_other_dirty_folios_total{",
		"iomapdirty_whole_folio_dirty_events_total{",
		"iomapdirty_unexplained_blocks_total{", "iomapdirty_page_records_max",
		"iomapdirty_preattach_folios_total{", "iomapdirty_preattach_checked_blocks_total{",
	};
	static const char *const present[] = {
		"iomapdirty_app_bytes_total{", "iomapdirty_write_calls_total{",
		"iomapdirty_dirty_blocks_total{", "iomapdirty_folios_total{",
		"iomapdirty_submitted_blocks_total{", "iomapdirty_kernel_dirty_blocks_total{",
		"iomapdirty_violation_blocks_total{", "iomapdirty_max_folio_bytes{",
		"iomapdirty_dirty_blocks_per_folio_bucket{",
	};
	/* without the kernel's bitmap: which blocks were dirty, and how many
	 * in each folio (no histogram of them, not every folio in bucket 0) */
	static const char *const no_bitmap_absent[] = {
		"iomapdirty_dirty_blocks_total{", "iomapdirty_violation_blocks_total{",
		"iomapdirty_dirty_blocks_per_folio_bucket{",
		"iomapdirty_folio_amplification_ratio_bucket{",
		"iomapdirty_folio_amplification_below_one_total",
	};
	struct fs_entry fs = { .dev = 7u << 20 };
	struct plan plan = { .family = 'd', .family_desc = "x", .bitmap = BITMAP_IFS,
			     .accounting = ACCOUNTING_ALWAYS_ON };
	struct snapshot s = { .fs = &fs, .nfs = 1 };
	struct prom_ctx c = { .plan = &plan, .host = &fake_host };
	struct textbuf tb;

	textbuf_init(&tb, 1 << 20);
	prom_render(&tb, &s, &c);
	CHECK(strstr(tb.buf, "accounting_level=\"always-on\"") != NULL,
	      "prom.always_on.level_named");
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		CHECK(!strstr(tb.buf, absent[i]), "prom.always_on.absent %s", absent[i]);
	for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++)
		CHECK(strstr(tb.buf, present[i]) != NULL, "prom.always_on.present %s",
		      present[i]);
	/* without the kernel's bitmap nothing says which blocks were dirty */
	plan.bitmap = BITMAP_NONE;
	textbuf_reset(&tb);
	prom_render(&tb, &s, &c);
	for (size_t i = 0; i < sizeof(no_bitmap_absent) / sizeof(no_bitmap_absent[0]); i++)
		CHECK(!strstr(tb.buf, no_bitmap_absent[i]), "prom.always_on.no_bitmap_absent %s",
		      no_bitmap_absent[i]);
	CHECK(strstr(tb.buf, "iomapdirty_app_bytes_total{") != NULL,
	      "prom.always_on.no_bitmap_app_bytes_present");
	CHECK(strstr(tb.buf, "iomapdirty_submitted_blocks_per_folio_bucket{") != NULL,
	      "prom.always_on.no_bitmap_submitted_histogram_present");
	textbuf_free(&tb);
}

/*
 * --top-files: the files most active in the last window, the newest
 * first among equals. Ino 10 wrote a lot long ago and nothing since; 11
 * and 12 wrote 1 KiB each in the window (12 the newer entry); 13 was
 * evicted and made again (a new first_ns, less than before): its window
 * is its new entry's figures.
 */
static void top_files_window(void)
{
	struct fs_entry fs = { .dev = (7u << 20) | 3 };
	struct plan plan = { .family = 'd', .family_desc = "test", .bitmap = BITMAP_NONE };
	struct file_entry f[4] = {};
	struct snapshot s = { .fs = &fs, .nfs = 1, .files = f, .nfiles = 4 };
	struct prom_ctx c = { .plan = &plan, .host = &fake_host, .top_files = 1,
			      .scrape_start_ns = 1000000000ull };
	struct textbuf tb;
	int idx[4];

	for (int i = 0; i < 4; i++) {
		f[i].key = (struct file_key){ .dev = fs.dev, .ino = 10 + i };
		f[i].s.first_ns = 100 + i;
	}
	f[0].s.submitted_bytes = 1 << 20;
	f[3].s.submitted_bytes = 1 << 19;
	prom_files_reset();
	CHECK_U64(prom_files_top(&s, 1, c.scrape_start_ns, idx), 1, "prom.top_files.first");
	CHECK_U64(f[idx[0]].key.ino, 10, "prom.top_files.first_window_is_since_attach");
	f[1].s.submitted_bytes = f[2].s.submitted_bytes = 1024;
	f[3].s.first_ns = 200;		/* evicted, made again */
	f[3].s.submitted_bytes = 512;
	CHECK_U64(prom_files_top(&s, 4, c.scrape_start_ns + 1, idx), 4, "prom.top_files.all");
	CHECK_U64(f[idx[0]].key.ino, 12, "prom.top_files.window_then_newest");
	CHECK_U64(f[idx[1]].key.ino, 11, "prom.top_files.window_then_newest.second");
	CHECK_U64(f[idx[2]].key.ino, 13, "prom.top_files.readmitted_counts_from_new_entry");
	CHECK_U64(f[idx[3]].key.ino, 10, "prom.top_files.idle_big_file_last");
	/* the series: one file, the newest active, its partial gauge */
	f[3].s.readmitted = 1;
	textbuf_init(&tb, 1 << 20);
	c.scrape_start_ns += 2;
	CHECK(prom_render(&tb, &s, &c), "prom.top_files.render");
	CHECK(strstr(tb.buf, "iomapdirty_file_submitted_bytes_total{dev=\"7:3\",ino=\"12\"") != NULL,
	      "prom.top_files.series_newest_active");
	CHECK(strstr(tb.buf, "ino=\"10\"") == NULL, "prom.top_files.bounded_to_n");
	CHECK(strstr(tb.buf, "iomapdirty_file_partial{dev=\"7:3\",ino=\"12\",path=\"[ino 12]\"} 0") != NULL,
	      "prom.top_files.partial_gauge");
	textbuf_free(&tb);
	prom_files_reset();
}

/*
 * --collector.cgroup: cgroups 5, 6 and 0 (no writer known) submitted 3000,
 * 500 and 100 bytes; with a bound of 2, 5 and 6 get series, the rest of
 * the filesystem's totals (which also hold what no cgroup record has) is
 * "other": app 1000 - 600 - 300, submitted 4000 - 3000 - 500.
 */
static void per_cgroup_series(void)
{
	struct fs_entry fs = { .dev = (7u << 20) | 3,
			       .s = { .app_bytes = 1000, .submitted_bytes = 4000 } };
	/* always-on without a bitmap: which blocks were dirty is unknown */
	struct plan plan = { .family = 'd', .family_desc = "test", .bitmap = BITMAP_NONE,
			     .accounting = ACCOUNTING_ALWAYS_ON };
	struct cgroup_entry cg[3] = {
		{ .id = 0, .s = { .app_bytes = 50, .submitted_bytes = 100 } },
		{ .id = 6, .s = { .app_bytes = 300, .submitted_bytes = 500 } },
		{ .id = 5, .s = { .app_bytes = 600, .submitted_bytes = 3000 } },
	};
	struct snapshot s = { .fs = &fs, .nfs = 1 };
	struct prom_ctx c = { .plan = &plan, .host = &fake_host, .cgroups = cg, .ncgroups = 3,
			      .cgroup_top = 2 };
	struct textbuf tb;

	textbuf_init(&tb, 1 << 20);
	CHECK(prom_render(&tb, &s, &c), "prom.cgroup.render");
	CHECK(has_line(tb.buf, "iomapdirty_cgroup_submitted_bytes_total{cgroup=\"/system.slice/"
		       "docker-" CTR_ID ".scope\",cgroup_id=\"5\",unit=\"docker-" CTR_ID
		       ".scope\",container=\"" CTR_ID "\",pod_uid=\"\"} 3000"),
	      "prom.cgroup.first_with_names");
	CHECK(has_line(tb.buf, "iomapdirty_cgroup_app_bytes_total{cgroup=\"\",cgroup_id=\"6\","
		       "unit=\"\",container=\"\",pod_uid=\"\"} 300"),
	      "prom.cgroup.removed_cgroup_by_id");
	CHECK(has_line(tb.buf, "iomapdirty_cgroup_app_bytes_total{cgroup=\"other\",cgroup_id=\"\","
		       "unit=\"\",container=\"\",pod_uid=\"\"} 100"),
	      "prom.cgroup.other_is_totals_minus_shown");
	CHECK(has_line(tb.buf, "iomapdirty_cgroup_submitted_bytes_total{cgroup=\"other\","
		       "cgroup_id=\"\",unit=\"\",container=\"\",pod_uid=\"\"} 500"),
	      "prom.cgroup.other_submitted");
	CHECK(strstr(tb.buf, "cgroup=\"unknown\"") == NULL, "prom.cgroup.bounded_to_n");
	CHECK(has_line(tb.buf, "iomapdirty_cgroups_folded 1"), "prom.cgroup.folded_counted");
	CHECK(strstr(tb.buf, "iomapdirty_cgroup_dirty_blocks_total") == NULL,
	      "prom.cgroup.unmeasured_absent");
	textbuf_free(&tb);
	/* a bound over the cgroups: every one shown, id 0 as "unknown" */
	c.cgroup_top = 5;
	textbuf_init(&tb, 1 << 20);
	CHECK(prom_render(&tb, &s, &c), "prom.cgroup.render_all");
	CHECK(has_line(tb.buf, "iomapdirty_cgroup_app_bytes_total{cgroup=\"unknown\",cgroup_id=\"\","
		       "unit=\"\",container=\"\",pod_uid=\"\"} 50"),
	      "prom.cgroup.no_writer_known");
	CHECK(has_line(tb.buf, "iomapdirty_cgroups_folded 0"), "prom.cgroup.none_folded");
	textbuf_free(&tb);
	/* off: no family at all */
	c.cgroup_top = 0;
	textbuf_init(&tb, 1 << 20);
	CHECK(prom_render(&tb, &s, &c), "prom.cgroup.render_off");
	CHECK(strstr(tb.buf, "iomapdirty_cgroup") == NULL, "prom.cgroup.off_no_series");
	textbuf_free(&tb);
}

int main(void)
{
	check_escape("/mnt/data", "/mnt/data", "plain");
	check_escape("a\"b", "a\\\"b", "quote");
	check_escape("a\\b", "a\\\\b", "backslash");
	check_escape("a\nb", "a\\nb", "newline");
	/* mountinfo's own octal escape stays as written, its backslash doubled */
	check_escape("/mnt/a\\040b", "/mnt/a\\\\040b", "mountinfo_octal");
	check_escape("caf\xc3\xa9", "caf\xc3\xa9", "utf8_kept");
	check_escape("\xe2\x82\xac", "\xe2\x82\xac", "utf8_3byte_kept");
	check_escape("a\xff" "b", "a\\\\377b", "invalid_byte_octal");
	check_escape("\xc3", "\\\\303", "truncated_sequence");
	check_escape("\xc0\xaf", "\\\\300\\\\257", "overlong");
	check_escape("\xed\xa0\x80", "\\\\355\\\\240\\\\200", "surrogate");
	check_escape("a\tb\r", "a\\\\011b\\\\015", "controls");
	check_escape("\xc2\x85", "\\\\302\\\\205", "c1_control");
	render_fixture();
	every_field_exported();
	always_on_level();
	top_files_window();
	per_cgroup_series();
	UNIT_EXIT();
}
