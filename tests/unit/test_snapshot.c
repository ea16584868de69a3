// SPDX-License-Identifier: GPL-2.0
/* Interval arithmetic on snapshots, and the derived figures. */
#include <stdlib.h>
#include "report.h"
#include "snapshot.h"
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
		s.files[i].s.app_bytes = (i + 1) * scale;
		s.files[i].s.last_ns = i == 0 ? 1 : scale;	/* file 0 idle */
	}
	s.counters[CNT_PAGE_MAP_FULL] = scale;
	s.hists[HIST_DIRTY_BLOCKS][3] = 5 * scale;
	s.seconds = scale;
	return s;
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
	CHECK_U64((__u64)(d.seconds * 10), 20, "interval length");
	snapshot_totals(&b, &t);
	CHECK_U64(t.app_bytes, 300, "totals sum filesystems");
	CHECK_U64(snapshot_losses(&b), 3, "losses summed");
	snapshot_free(&d);

	s.submitted_blocks = 60;
	s.unseen_submitted_blocks = 4;
	s.dirty_blocks = 56;
	CHECK_U64(stats_amplified_blocks(&s), 56,
		  "folios dirtied before attach are kept out of amplification");
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
	snapshot_free(&a);
	snapshot_free(&b);
	UNIT_EXIT();
}
