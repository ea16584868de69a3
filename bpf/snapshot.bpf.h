/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Verify's check at the block layer (issue 22): each folio's dirty blocks
 * as writeback began, kept for the write bios that carry it. The submit
 * hook of 6.1-6.8 (tracepoint iomap_writepage_map, one event per block)
 * says nothing of which block it sends; a write bio's pages do (biovec.bpf.h:
 * page -> folio -> file, offset). So at the start of each folio's writeback
 * snap_save() keeps the dirty bitmap the folio's context was filled with
 * (writeback.bpf.c: the kernel's own bitmap, or, on a kernel without one,
 * the writes and whole-folio dirtying seen since the folio went clean ->
 * dirty inside the window), a word per entry; bio.bpf.c looks up each
 * block a write bio carries in it: dirty, checked; clean, a violation.
 * On kernels whose submit hook has offsets both checks run and verify
 * requires them to agree.
 *
 * A word's entry is replaced (or deleted) by the folio's next writeback,
 * which cannot begin before this one's bios are done (PG_writeback): a
 * bio never meets a snapshot of a later writeback. A block met twice in
 * one snapshot (a writeback whose start was not seen, its snapshot a
 * previous one's) is not judged: counted unknown. LRU: an entry evicted
 * before its bio leaves that bio's blocks unchecked, and verify's count
 * (blocks checked at the bio = blocks submitted) then cannot pass.
 */
#ifndef IOMAPDIRTY_SNAPSHOT_BPF_H
#define IOMAPDIRTY_SNAPSHOT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);		/* resized by --max-pages */
	__type(key, struct snap_key);
	__type(value, struct wb_snap);
} wb_snaps_map_t;
SHARED_MAP(wb_snaps_map_t, wb_snaps);

/* Folios whose write bios carried clean blocks: the first offenders. */
typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct page_key);		/* the folio's first page */
	__type(value, struct violation);
} bio_violations_map_t;
SHARED_MAP(bio_violations_map_t, bio_violations);

/*
 * Key 0: non-zero once verify's window has ended (user space writes it
 * before its final reading): folios whose writeback begins later keep no
 * snapshot, so their bios count in no figure of the window.
 */
typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} snap_window_map_t;
SHARED_MAP(snap_window_map_t, snap_window);

/* Keeps (or drops) the dirty bitmap of the folio c has just been filled for. */
int snap_save(struct wb_ctx *c);

#endif /* IOMAPDIRTY_SNAPSHOT_BPF_H */
