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

/*
 * Per file: an LRU hash, so that it never fills. When it is full a new
 * file's entry takes the place of one used least recently (the kernel's
 * LRU lists: a lookup marks an entry used, an insert into a full map
 * evicts from the inactive list). An evicted file's figures stay in its
 * filesystem's totals (filesystems, never evicted); the evictions are
 * counted (entries made, CNT_FILE_ENTRIES, minus entries live), and a
 * file seen again starts a new entry with a later first_ns. Memory is
 * fixed at load (LRU maps are preallocated).
 */
typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILES_MAX_ENTRIES);
	__type(key, struct file_key);
	__type(value, struct wa_stats);
} files_map_t;
SHARED_MAP(files_map_t, files);

/*
 * One bit per file ever given an entry (a hash of dev and ino), never
 * cleared: an entry made for a file whose bit is set is marked readmitted
 * (evicted before: its figures are partial). Fixed memory; two files on
 * one bit mark the second readmitted though it never was (about 3% once
 * a million files were seen), never the reverse.
 */
#define FILES_SEEN_BITS_LOG2	25
typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1u << (FILES_SEEN_BITS_LOG2 - 6));
	__type(key, __u32);
	__type(value, __u64);
} files_seen_map_t;
SHARED_MAP(files_seen_map_t, files_seen);

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

/* A new entry for (dev, ino): when it starts, and whether the file had one before. */
static __always_inline void file_entry_begin(struct wa_stats *file, __u32 dev, __u64 ino)
{
	__u64 h = (ino ^ ((__u64)dev << 40)) * 0x9E3779B97F4A7C15ULL;
	__u32 bit = h >> (64 - FILES_SEEN_BITS_LOG2), word = bit >> 6;
	__u64 mask = 1ULL << (bit & 63), *w;

	file->first_ns = bpf_ktime_get_ns();
	w = bpf_map_lookup_elem(&files_seen, &word);
	if (w && (__sync_fetch_and_or(w, mask) & mask))
		file->readmitted = 1;
}

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
	*file = bpf_map_lookup_elem(&files, &fkey);
	if (!*file) {
		bool is_new;

		*file = map_insert_new(&files, &fkey, &zero, CNT_FILE_MAP_FULL,
				       CNT_FILE_ENTRIES, &is_new);
		/* where this file's figures start (a racing fold adds only sums) */
		if (*file && is_new)
			file_entry_begin(*file, dev, ino);
	}
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
