// SPDX-License-Identifier: GPL-2.0
/* Folding the always-on level's write sums: see write_sums.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "write_sums.bpf.h"
#include "sums.bpf.h"
#include "cgroup_sums.bpf.h"

static __always_inline void add_writes(struct wa_stats *s, const struct write_sum *ws)
{
	__sync_fetch_and_add(&s->app_bytes, ws->app_bytes);
	__sync_fetch_and_add(&s->write_calls, ws->write_calls);
}

/* A global function: the verifier checks it once, not at every caller. */
__noinline int write_sum_fold(struct write_sum *ws)
{
	struct wa_stats *s, *cg;
	struct fs_stats *fs;

	if (!ws || !write_sum_held(ws))
		return 0;
	totals_of(ws->dev, ws->ino, &s, &fs);
	if (s)
		add_writes(s, ws);
	/* inside a fold's counts, as acc_fold() does (fs_stats) */
	if (fs) {
		fold_seq_bump(&fs->folds_begun);
		add_writes(&fs->s, ws);
		fold_seq_bump(&fs->folds_done);
	}
	/* after the filesystem, as acc_fold() */
	cg = cgroup_totals_of(ws->dev, ws->ino);
	if (cg)
		add_writes(cg, ws);
	ws->app_bytes = 0;
	ws->write_calls = 0;
	return 0;
}
