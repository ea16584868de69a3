// SPDX-License-Identifier: GPL-2.0
/* Interval arithmetic on snapshots, and the derived figures. */
#include <stdlib.h>
#include "output/json.h"
#include "live/plan.h"
#include "output/report.h"
#include "model/measured.h"
#include "model/ratios.h"
#include "model/snapshot.h"
#include "unit.h"

static struct snapshot make(int nfiles, __u64 scale)
{
	struct snapshot s = {};

	s.fs = calloc(1, sizeof(*s.fs));
	s.nfs = 1;
	s.fs[0].dev = (7 << 20) | 3;
	s.fs[0].s.app_bytes = 100 * scale;
	s.fs[0].s.submitted_blocks = 10 * scale;
	s.fs[0].s.max_folio_bytes = 4096 * scale;
	s.files = calloc(nfiles, sizeof(*s.files));
	s.nfiles = nfiles;
	for (int i = 0; i < nfiles; i++) {
		s.files[i].key.dev = s.fs[0].dev;
		s.files[i].key.ino = 100 + i;
		/* file 0 idle: nothing changes between two readings */
		s.files[i].s.app_bytes = i == 0 ? 1 : (i + 1) * scale;
		s.files[i].s.last_ns = i == 0 ? 1 : scale;
	}
	s.counters[CNT_PAGE_MAP_FULL] = scale;
	s.hists[HIST_DIRTY_BLOCKS][3] = 5 * scale;
	s.seconds = scale;
	return s;
}

/*
 * fs_stats_settled() against a model of the BPF fold (sums.bpf.c
 * acc_fold): a writer folds n folios in four steps (folds_begun, the sum,
 * the histogram bucket, folds_done) while a reader copies the four fields
 * one at a time, in a random order, a writer step between two with
 * probability 1/4, twice.
 * Whenever the pair is called settled, the second copy must be a record
 * between folds (its folios equal its histogram's count); and torn copies
 * must occur, or the model tests nothing.
 */
struct fold_model {
	struct fs_stats live;
	int step;		/* 0..3: the next step of the fold in progress */
	__u64 n;		/* folios of that fold */
};

static void fold_step(struct fold_model *m)
{
	switch (m->step) {
	case 0: m->n = 1 + rand() % 50; m->live.folds_begun++; break;
	case 1: m->live.s.folios += m->n; break;
	case 2: m->live.hist[HIST_FOLIO_BYTES][13] += m->n; break;
	case 3: m->live.folds_done++; break;
	}
	m->step = (m->step + 1) % 4;
}

static void model_read(struct fold_model *m, struct fs_stats *out)
{
	__u64 *field[4] = { &out->folds_begun, &out->s.folios,
			    &out->hist[HIST_FOLIO_BYTES][13], &out->folds_done };
	const __u64 *live[4] = { &m->live.folds_begun, &m->live.s.folios,
				 &m->live.hist[HIST_FOLIO_BYTES][13], &m->live.folds_done };
	int order[4] = { 0, 1, 2, 3 };

	*out = m->live;
	for (int i = 3; i > 0; i--) {
		int j = rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i < 4; i++) {
		if (rand() % 4 == 0)
			fold_step(m);
		*field[order[i]] = *live[order[i]];
	}
}

static void check_fold_reads(void)
{
	struct fold_model m = {};
	long settled = 0, wrong = 0, torn = 0, torn_naive = 0;

	srand(11);
	for (int trial = 0; trial < 200000; trial++) {
		struct fs_stats a, b;
		bool whole;

		model_read(&m, &a);
		if (rand() % 2)
			fold_step(&m);
		model_read(&m, &b);
		whole = b.s.folios == b.hist[HIST_FOLIO_BYTES][13];
		torn += !whole;
		/* counts equal alone would let torn copies through */
		torn_naive += !whole && b.folds_begun == b.folds_done;
		if (fs_stats_settled(&a, &b)) {
			settled++;
			wrong += !whole;
		}
	}
	CHECK(torn > 1000 && torn_naive > 100, "fold model: the reader sees torn records");
	CHECK(settled > 1000, "fold model: readings settle");
	CHECK_U64(wrong, 0, "fold model: a settled reading is whole (sums = histogram)");
}

/* The stats object as JSON, into buf. */
static const char *stats_json(const struct wa_stats *s, const struct plan *p,
			      char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	struct json j;

	if (!f)
		return "(fmemopen failed)";
	json_init(&j, f);
	stats_write_json(&j, s, p);
	fclose(f);
	return buf;
}

/*
 * The stats object's fields, their order and when they are null, as
 * docs/json-schema.md and the scripts that read it know them: written out
 * here by hand, so that a change to the field list that moves, renames or
 * drops one shows.
 */
static void check_stats_json(void)
{
	struct wa_stats s = {
		.app_bytes = 1, .write_calls = 2, .app_dirty_blocks = 3,
		.app_dirty_bytes = 4, .other_dirty_blocks = 5, .other_dirty_folios = 6,
		.whole_folio_dirty_events = 7, .dirty_blocks = 8, .dirty_bytes = 9,
		.folios = 10, .folios_no_dirty_seen = 11, .folio_bytes = 12,
		.max_folio_bytes = 13, .block_bytes = 14, .submitted_blocks = 40,
		.submitted_bytes = 16, .unseen_submitted_blocks = 17, .hole_bytes = 18,
		.violation_blocks = 19, .violation_folios = 20, .unexplained_blocks = 21,
		.unchecked_blocks = 22, .kernel_dirty_blocks = 23, .bitmap_folios = 24,
		.nlink = 25, .last_ns = 26, .preattach_folios = 27,
		.preattach_checked_blocks = 28, .preattach_violation_blocks = 29,
	};
	struct plan no_bitmap = { .bitmap = BITMAP_NONE }, bitmap = { .bitmap = BITMAP_IFS };
	char buf[2048];

	CHECK_STR(stats_json(&s, NULL, buf, sizeof(buf)),
		  "{\"app_bytes\":1,\"write_calls\":2,\"app_dirty_blocks\":3,"
		  "\"app_dirty_bytes\":4,\"other_dirty_blocks\":5,\"other_dirty_folios\":6,"
		  "\"whole_folio_dirty_events\":7,\"dirty_blocks\":8,\"dirty_bytes\":9,"
		  "\"folios\":10,\"folios_no_dirty_seen\":11,\"folio_bytes\":12,"
		  "\"max_folio_bytes\":13,\"block_bytes\":14,\"submitted_blocks\":40,"
		  "\"submitted_bytes\":16,\"unseen_submitted_blocks\":17,\"hole_bytes\":18,"
		  "\"violation_blocks\":19,\"violation_folios\":20,\"unexplained_blocks\":21,"
		  "\"unchecked_blocks\":22,\"preattach_folios\":27,"
		  "\"preattach_checked_blocks\":28,\"preattach_violation_blocks\":29,"
		  "\"kernel_dirty_blocks\":23,\"bitmap_folios\":24,"
		  "\"block_rounding\":4.0000,\"folio_amplification\":2.8750}\n",
		  "stats JSON: every field, in the documented order");
	CHECK_STR(stats_json(&s, &no_bitmap, buf, sizeof(buf)),
		  "{\"app_bytes\":1,\"write_calls\":2,\"app_dirty_blocks\":3,"
		  "\"app_dirty_bytes\":4,\"other_dirty_blocks\":null,\"other_dirty_folios\":null,"
		  "\"whole_folio_dirty_events\":null,\"dirty_blocks\":8,\"dirty_bytes\":9,"
		  "\"folios\":10,\"folios_no_dirty_seen\":11,\"folio_bytes\":12,"
		  "\"max_folio_bytes\":13,\"block_bytes\":14,\"submitted_blocks\":40,"
		  "\"submitted_bytes\":16,\"unseen_submitted_blocks\":17,\"hole_bytes\":18,"
		  "\"violation_blocks\":19,\"violation_folios\":20,\"unexplained_blocks\":null,"
		  "\"unchecked_blocks\":22,\"preattach_folios\":null,"
		  "\"preattach_checked_blocks\":null,\"preattach_violation_blocks\":null,"
		  "\"kernel_dirty_blocks\":null,\"bitmap_folios\":null,"
		  "\"block_rounding\":4.0000,\"folio_amplification\":2.8750}\n",
		  "stats JSON: null where neither a bitmap nor a whole-folio hook measures");
	CHECK(strstr(stats_json(&s, &bitmap, buf, sizeof(buf)),
		     "\"other_dirty_blocks\":5,\"other_dirty_folios\":6,"
		     "\"whole_folio_dirty_events\":null,") != NULL,
	      "stats JSON: a bitmap measures other dirty blocks, not whole-folio events");
}

/* Each field merges as WA_STATS_FIELDS says: sum, max, or the newer gauge. */
static void check_merge(void)
{
	struct wa_stats t = { .app_bytes = 5, .max_folio_bytes = 8192, .block_bytes = 4096,
			      .nlink = 1, .last_ns = 50 };
	struct wa_stats newer = { .app_bytes = 7, .max_folio_bytes = 4096, .block_bytes = 1024,
				  .nlink = 0, .last_ns = 90 };
	struct wa_stats older = { .app_bytes = 1, .max_folio_bytes = 65536, .block_bytes = 512,
				  .nlink = 3, .last_ns = 10 };

	stats_add_into(&t, &newer);
	CHECK_U64(t.app_bytes, 12, "merge: a sum adds");
	CHECK_U64(t.max_folio_bytes, 8192, "merge: a max keeps the larger");
	CHECK_U64(t.block_bytes, 1024, "merge: a gauge takes the newer value");
	CHECK_U64(t.nlink, 0, "merge: the link count is a gauge");
	CHECK_U64(t.last_ns, 90, "merge: last_ns is the newer");
	stats_add_into(&t, &older);
	CHECK_U64(t.max_folio_bytes, 65536, "merge: a larger max from an older reading counts");
	CHECK_U64(t.block_bytes, 1024, "merge: an older reading's gauge does not");
	stats_sub(&t, &t, &older);
	CHECK_U64(t.app_bytes, 12, "difference: a sum subtracts");
	CHECK_U64(t.max_folio_bytes, 65536, "difference: a max is the newer reading's");
}

int main(void)
{
	struct snapshot a = make(3, 1), b = make(4, 3), d;
	struct wa_stats t = {}, s = {};

	CHECK(snapshot_delta(&b, &a, &d) == 0, "delta computed");
	CHECK_U64(d.fs[0].s.app_bytes, 200, "fs counters subtract");
	CHECK_U64(d.fs[0].s.max_folio_bytes, 3 * 4096, "gauges come from the newer reading");
	CHECK_U64(d.counters[CNT_PAGE_MAP_FULL], 2, "loss counters subtract");
	CHECK_U64(d.hists[HIST_DIRTY_BLOCKS][3], 10, "histogram buckets subtract");
	CHECK_U64(d.nfiles, 3, "idle file left out, new file kept");
	CHECK_U64(d.files[2].s.app_bytes, 12, "a file new in the interval counts whole");
	snapshot_free(&d);
	/*
	 * always-on: writes folded into a file without a folio leave last_ns
	 * as it was; the file has news all the same
	 */
	b.files[0].s.app_bytes += 4096;
	b.files[0].s.write_calls += 1;
	CHECK(snapshot_delta(&b, &a, &d) == 0, "delta computed (writes only)");
	CHECK_U64(d.nfiles, 4, "a file only written in the interval is kept (last_ns unchanged)");
	CHECK_U64(d.files[0].s.app_bytes, 4096, "its writes are the interval's");
	CHECK_U64(d.files[0].s.write_calls, 1, "and its calls");
	b.files[0].s.app_bytes -= 4096;
	b.files[0].s.write_calls -= 1;
	CHECK_U64((__u64)(d.seconds * 10), 20, "interval length");
	snapshot_free(&d);
	/*
	 * file 1 evicted from the LRU files map and made again inside the
	 * interval: its new entry (later first_ns) holds less than the old
	 * one did; the interval is the new entry's figures, not a wrap-around
	 */
	a.files[1].s.first_ns = 5;
	b.files[1].s.first_ns = 9;
	b.files[1].s.readmitted = 1;
	b.files[1].s.app_bytes = 1;
	CHECK(snapshot_delta(&b, &a, &d) == 0, "delta computed (entry made again)");
	/* files[0] of the interval is file 1: file 0 was idle */
	CHECK_U64(d.files[0].key.ino, 101, "the file made again is in the interval");
	CHECK_U64(d.files[0].s.app_bytes, 1, "a file made again counts from its new entry");
	CHECK(stats_partial(&d.files[0].s), "and is marked partial");
	CHECK(!stats_partial(&d.files[1].s), "a file never evicted is whole");
	b.files[1].s = a.files[1].s;
	b.files[1].s.app_bytes = 2 * 3;
	b.files[1].s.last_ns = 3;
	snapshot_totals(&b, &t);
	CHECK_U64(t.app_bytes, 300, "totals sum filesystems");
	CHECK_U64(snapshot_losses(&b), 3, "losses summed");
	snapshot_free(&d);

	s.submitted_blocks = 60;
	s.unseen_submitted_blocks = 4;
	s.dirty_blocks = 56;
	CHECK_U64(stats_amplified_blocks(&s), 56,
		  "folios dirtied before attach are kept out of amplification");
	/* ratios compared exactly: 1/3 == 2/6, 1/3 < 34/100; none below any */
	CHECK(!ratio_cmp((struct ratio){ 1, 3 }, (struct ratio){ 2, 6 }),
	      "model.ratio_cmp.equal_terms_scaled");
	CHECK(ratio_cmp((struct ratio){ 1, 3 }, (struct ratio){ 34, 100 }) < 0,
	      "model.ratio_cmp.exact_not_rounded");
	CHECK(ratio_cmp((struct ratio){ 5, 0 }, (struct ratio){ 0, 1 }) < 0,
	      "model.ratio_cmp.no_value_sorts_first");
	{
		/* always-on, no dirty bitmap: no dirty blocks, so no such histogram */
		const struct measures aon = { .accounting = ACCOUNTING_ALWAYS_ON };

		CHECK(MEASURES(&aon, app_bytes), "model.measures.aon_app_bytes");
		CHECK(!MEASURES(&aon, dirty_blocks), "model.measures.aon_no_bitmap_dirty");
		CHECK(!measures_hist(&aon, HIST_DIRTY_BLOCKS), "model.measures.aon_no_dirty_hist");
		CHECK(MEASURES(&measures_any, kernel_dirty_blocks) &&
		      measures_hist(&measures_any, HIST_AMPLIFICATION),
		      "model.measures.no_plan_all_measured");
	}
	{
		int unnamed = 0;

		for (int i = 0; i < NR_COUNTERS; i++)
			unnamed += counter_names[i] == NULL;
		CHECK_U64(unnamed, 0, "every counter has a name for the outputs");
		unnamed = 0;
		for (int i = 0; i < NR_HISTS; i++)
			unnamed += !hist_names[i] || !hist_units[i];
		CHECK_U64(unnamed, 0, "every histogram has a name and a unit");
	}
	check_stats_json();
	check_merge();
	check_fold_reads();
	snapshot_free(&a);
	snapshot_free(&b);
	UNIT_EXIT();
}
