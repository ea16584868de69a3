/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-file and per-filesystem sums (struct wa_stats, include/iomapdirty.h),
 * the histograms and the first violations: where a finished folio is
 * counted. finish_folio() and acc_fold(), global functions, are in
 * sums.bpf.c.
 *
 * A thread's finished folios are summed in its context (wb_ctx.acc and
 * the histogram buckets acc_hist, plain adds: nobody else writes it) while it stays in one file, and folded into
 * the shared totals (two hash lookups, atomic adds) only when it moves to
 * another file, when the sum is older than ACC_MAX_NS, or when user space
 * flushes before a report: writeback goes through a file's folios in a
 * row, so most folios cost no shared update. The histograms are summed
 * and folded with the sums (into struct fs_stats), never on their own, so
 * both always count the same folios.
 */
#ifndef IOMAPDIRTY_SUMS_BPF_H
#define IOMAPDIRTY_SUMS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

#define ACC_MAX_NS	(100 * 1000 * 1000ULL)

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct file_key);
	__type(value, struct wa_stats);
} files_map_t;
SHARED_MAP(files_map_t, files);

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* dev */
	__type(value, struct fs_stats);
} filesystems_map_t;
SHARED_MAP(filesystems_map_t, filesystems);

/* Folios that sent clean blocks, by first page: the first offenders. */
typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct page_key);
	__type(value, struct violation);
} violations_map_t;
SHARED_MAP(violations_map_t, violations);

/*
 * The shared totals of file (dev, ino) and of its filesystem, each
 * inserted zeroed if new; NULL where its map is full (counted).
 */
static __always_inline void totals_of(__u32 dev, __u64 ino, struct wa_stats **file,
				      struct fs_stats **fs)
{
	static const struct wa_stats zero;
	static const struct fs_stats fs_zero;
	struct file_key fkey = {};

	fkey.ino = ino;
	fkey.dev = dev;
	*file = map_lookup_or_try_init(&files, &fkey, &zero, CNT_FILE_MAP_FULL);
	*fs = map_lookup_or_try_init(&filesystems, &dev, &fs_zero, CNT_FS_MAP_FULL);
}

/*
 * Adds 1 to a fold's sequence counter with a fetching atomic (the result is
 * kept alive): a full barrier on every JIT, where a plain atomic add may be
 * relaxed (arm64 STADD), so the fold's adds stay between its two counts.
 */
static __always_inline void fold_seq_bump(__u64 *seq)
{
	__u64 old = __sync_fetch_and_add(seq, 1);

	asm volatile("" : : "r"(old));
}

/*
 * Folds one finished folio writeback (c, finished at 'now') into the
 * thread's sum and the histograms.
 */
int finish_folio(struct wb_ctx *c, __u64 now);

/* Folds a thread's sum into the shared per-file and per-filesystem totals. */
int acc_fold(struct wb_ctx *c);

/* Keeps a folio that sent clean blocks (dirty: its dirty blocks) in violations. */
int note_violation(struct wb_ctx *c, __u64 dirty);

#endif /* IOMAPDIRTY_SUMS_BPF_H */
