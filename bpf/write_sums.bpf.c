// SPDX-License-Identifier: GPL-2.0
/* Folding the always-on level's write sums: see write_sums.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "write_sums.bpf.h"
#include "sums.bpf.h"

static __always_inline void add_writes(struct wa_stats *s, const struct write_sum *ws)
{
	__sync_fetch_and_add(&s->app_bytes, ws->app_bytes);
	__sync_fetch_and_add(&s->write_calls, ws->write_calls);
}

/* A global function: the verifier checks it once, not at every caller. */
__noinline int write_sum_fold(struct write_sum *ws)
{
	static const struct wa_stats zero;
	static const struct fs_stats fs_zero;
	struct file_key fkey = {};
	struct fs_stats *fs;
	struct wa_stats *s;
	__u32 dev;

	if (!ws || !ws->write_calls)
		return 0;
	fkey.ino = ws->ino;
	fkey.dev = ws->dev;
	dev = ws->dev;
	s = map_lookup_or_try_init(&files, &fkey, &zero, CNT_FILE_MAP_FULL);
	if (s)
		add_writes(s, ws);
	/* inside a fold's counts, as acc_fold() does (fs_stats) */
	fs = map_lookup_or_try_init(&filesystems, &dev, &fs_zero, CNT_FS_MAP_FULL);
	if (fs) {
		fold_seq_bump(&fs->folds_begun);
		add_writes(&fs->s, ws);
		fold_seq_bump(&fs->folds_done);
	}
	ws->app_bytes = 0;
	ws->write_calls = 0;
	return 0;
}
