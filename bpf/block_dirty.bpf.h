/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The blocks of a folio gone clean -> dirty, for the backends that count
 * at the write bio (bpf/buffer_heads.bpf.c: ext4's buffers; bpf/btrfs.bpf.c:
 * btrfs's folios of one block): set in their pages' records (bh_dirty),
 * which the writeback takes at the folio's first write bio (wb_fill_bh()).
 */
#ifndef IOMAPDIRTY_BLOCK_DIRTY_BPF_H
#define IOMAPDIRTY_BLOCK_DIRTY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "kernel_facts.bpf.h"
#include "page_table.bpf.h"
#include "settings.bpf.h"

/* The folio of a page (compound_head: bit 0 set on a tail page). */
static __always_inline struct page *page_head(struct page *pg)
{
	unsigned long ch = BPF_CORE_READ(pg, compound_head);

	return ch & 1 ? (void *)(ch - 1) : pg;
}

/* A block of page 'index' of file fi gone clean -> dirty. */
static __always_inline void bh_block_dirtied(const struct inode_facts *fi, __u64 pos,
					     __u64 folio_index, bool folio_clean, bool wanted)
{
	struct page_key key = { .dev = fi->dev, .ino = fi->ino };
	struct page_rec *rec;
	__u64 bit = (pos & ((1ULL << page_shift) - 1)) >> fi->blkbits;

	key.index = folio_index;
	if (folio_clean) {
		rec = page_rec_get(&key);
		if (rec)
			__sync_fetch_and_or(&rec->bh_flags, PAGE_REC_BH_FOLIO_DIRTIED);
	}
	key.index = pos >> page_shift;
	rec = page_rec_get(&key);
	if (!rec)
		return;
	if (bit < 64)
		__sync_fetch_and_or(&rec->bh_dirty, 1ULL << bit);
	/* a wanted writer's dirtying (mmap: no write(2)) counts its folio */
	if (wanted && !(rec->bh_flags & PAGE_REC_BH_WANTED))
		__sync_fetch_and_or(&rec->bh_flags, PAGE_REC_BH_WANTED);
}

#endif /* IOMAPDIRTY_BLOCK_DIRTY_BPF_H */
