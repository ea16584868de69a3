/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The write moment: the application copies bytes into the page cache
 * (iomap_write_end, or the xfs_file_buffered_write tracepoint), a folio is
 * dirtied whole (iomap_dirty_folio: mmap), goes clean -> dirty
 * (writeback_dirty_folio: where tracepoint mode learns the folio), or its
 * dirty data is thrown away (iomap_invalidate_folio). Each updates the
 * page records (page_table.bpf.h) that writeback collects.
 * Included by the entry units (tracepoint.bpf.c, fentry.bpf.c,
 * kprobe.bpf.c): inline, the hot path has no call.
 */
#ifndef IOMAPDIRTY_WRITE_BPF_H
#define IOMAPDIRTY_WRITE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "bits.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "page_table.bpf.h"
#include "settings.bpf.h"
#include "write_sums.bpf.h"
#include "other_writes.bpf.h"
#include "writers.bpf.h"

struct write_walk {
	struct page_key key;
	struct page_rec fresh;	/* the record of a page not written before */
	__u64 first_index;
	__u64 pos;
	__u64 end;
	__u32 block_bits;
};

/* Sets w up for [pos, pos + bytes) of file fi; the pages it spans. */
static __always_inline __u64 write_walk_init(struct write_walk *w, const struct inode_facts *fi,
					     __u64 pos, __u64 bytes)
{
	w->key.dev = fi->dev;
	w->key.ino = fi->ino;
	w->pos = pos;
	w->end = pos + bytes;
	w->block_bits = fi->blkbits;
	w->first_index = pos >> page_shift;
	return ((w->end - 1) >> page_shift) - w->first_index + 1;
}

/* Adds the part of one write that falls in page (first_index + i). */
static __always_inline long write_page(__u64 i, void *data)
{
	struct write_walk *w = data;
	__u64 page_size = 1ULL << page_shift;
	__u64 start, a, b, mask;
	struct page_rec *rec;
	bool added;

	w->key.index = w->first_index + i;
	start = w->key.index << page_shift;
	a = w->pos > start ? w->pos : start;
	b = w->end < start + page_size ? w->end : start + page_size;
	if (b <= a)
		return 1;
	mask = bit_range((a - start) >> w->block_bits, (b - 1 - start) >> w->block_bits);
	/* usually the page is clean and has no record: it gets this one */
	w->fresh.app_bytes = b - a;
	w->fresh.block_mask = mask;
	w->fresh.starts = i == 0;
	w->fresh.continues = i != 0;
	rec = page_get(&w->key, &w->fresh, &added);
	if (!rec)
		return 1;
	if (added)
		return 0;
	__sync_fetch_and_add(&rec->app_bytes, b - a);
	if (i == 0)
		__sync_fetch_and_add(&rec->starts, 1);
	else
		__sync_fetch_and_add(&rec->continues, 1);
	rec->block_mask |= mask;
	return 0;
}
LOOP_CB(write_page)

/* The page records of 'bytes' written at 'pos' (full accounting). */
static __always_inline void record_pages(const struct inode_facts *fi, __u64 pos,
					 __u64 bytes)
{
	struct write_walk w = {};
	__u64 pages_spanned = write_walk_init(&w, fi, pos, bytes);

	if (pages_spanned > IOMAPDIRTY_MAX_WRITE_PAGES) {
		count(CNT_WRITE_TOO_LARGE);
		pages_spanned = IOMAPDIRTY_MAX_WRITE_PAGES;
	}
	if (pages_spanned == 1)		/* the common case: no loop set-up */
		write_page(0, &w);
	else
		bpf_loop(pages_spanned, write_page_cb, &w, 0);
}

/*
 * One write event: 'bytes' at 'pos' into the page records (full
 * accounting), 'sum_bytes' and 'calls' into the per-file sums (always-on,
 * and run's other processes). A per-folio hook (iomap_write_end) or
 * XFS's tracepoint gives all three at once: record_write(). iomap_iter
 * gives them apart (tracepoint.bpf.c): an operation's request, before
 * anything is copied (the records and the call: a folio the copy dirties
 * is never written back before its record exists), then what each pass
 * committed (the sums, which no writeback reads).
 */
static __always_inline void write_seen(const struct inode_facts *fi, __u64 pos, __u64 bytes,
				       __u64 sum_bytes, __u32 calls)
{
	count(CNT_WRITE_EVENTS);
	if ((!bytes && !sum_bytes) || !dev_wanted(fi->dev))
		return;
	if (!task_wanted()) {
		if (calls)
			count(CNT_FILTERED_WRITES);
		if (count_others)	/* run: reported apart, never in its totals */
			other_write_add(fi->dev, fi->ino, sum_bytes, calls);
		return;
	}
	if (calls)
		writer_note(fi->dev, fi->ino);
	if (always_on()) {		/* no page records: the file's sum only */
		write_sum_add(fi->dev, fi->ino, sum_bytes, calls);
		return;
	}
	if (bytes)
		record_pages(fi, pos, bytes);
}

/*
 * One write of 'bytes' at 'pos'. From iomap_write_end it lies in one
 * folio; from XFS's tracepoint it is a whole write(2), split here by page.
 */
static __always_inline void record_write(const struct inode_facts *fi, __u64 pos,
					 __u64 bytes)
{
	write_seen(fi, pos, bytes, bytes, 1);
}

/* Takes back from page (first_index + i) what [pos, end) never copied. */
static long unwrite_page_cb(__u64 i, void *data)
{
	struct write_walk *w = data;
	__u64 page_size = 1ULL << page_shift;
	__u64 start, a, b, first, last;

	w->key.index = w->first_index + i;
	start = w->key.index << page_shift;
	a = w->pos > start ? w->pos : start;
	b = w->end < start + page_size ? w->end : start + page_size;
	if (b <= a)
		return 0;
	/* the blocks that start in the range: one the copy reached stays */
	first = (a - start + (1ULL << w->block_bits) - 1) >> w->block_bits;
	last = (b - 1 - start) >> w->block_bits;
	page_unwrite(&w->key, b - a, first <= last ? bit_range(first, last) : 0, a == start);
	return 0;
}

/*
 * iomap_iter: an operation that ended in an error (a copy that faulted)
 * asked for [pos, pos + bytes) and copied none of it; full accounting
 * recorded the request: taken back here.
 */
static __always_inline void record_write_uncopied(const struct inode_facts *fi, __u64 pos,
						  __u64 bytes)
{
	struct write_walk w = {};
	__u64 pages_spanned;

	if (!bytes || always_on() || !dev_wanted(fi->dev) || !task_wanted())
		return;
	pages_spanned = write_walk_init(&w, fi, pos, bytes);
	if (pages_spanned > IOMAPDIRTY_MAX_WRITE_PAGES)
		pages_spanned = IOMAPDIRTY_MAX_WRITE_PAGES;
	bpf_loop(pages_spanned, unwrite_page_cb, &w, 0);
}

static __always_inline void record_write_core(struct inode *inode, __u64 pos, __u64 bytes)
{
	struct inode_facts fi = {};

	if (!bytes) {
		count(CNT_WRITE_EVENTS);
		return;
	}
	inode_facts_core(inode, &fi, false);
	record_write(&fi, pos, bytes);
}

/* A folio dirtied whole, not through write(2) (mmap, iomap_dirty_folio). */
static __always_inline void record_whole_dirty(struct inode *inode, struct folio *folio)
{
	struct page_key key = {};
	struct page_rec *rec;

	count(CNT_WHOLE_DIRTY_EVENTS);
	if (always_on())	/* not attached at that level: no records */
		return;
	inode_ids(inode, &key.dev, &key.ino);
	if (!dev_wanted(key.dev))
		return;
	if (!task_wanted()) {
		count(CNT_FILTERED_WRITES);
		return;
	}
	key.index = BPF_CORE_READ(folio, index);
	rec = page_rec_get(&key);
	if (rec)
		rec->whole_dirty = 1;
}

/* clean -> dirty; in tracepoint mode this is where the folio is learnt */
static __always_inline void record_dirty_folio(const struct inode_facts *fi, __u64 folio,
					       __u64 index)
{
	struct page_key key = {};
	struct page_rec *rec;

	if (!dev_wanted(fi->dev) || always_on())
		return;
	key.dev = fi->dev;
	key.ino = fi->ino;
	key.index = index;
	/* a write(2) recorded this page just before: usually a lookup only */
	rec = page_rec_get(&key);
	if (rec)
		rec->folio_ptr = folio;
}

struct invalidate_walk {
	struct page_key key;
	__u64 first;
};

static long invalidate_page_cb(__u64 i, void *data)
{
	struct invalidate_walk *w = data;

	w->key.index = w->first + i;
	page_take(&w->key, NULL);
	return 0;
}

/*
 * Dirty data of file (dev, ino) thrown away (truncate, hole punch): forget
 * its records.
 */
static __always_inline void record_invalidate_ids(__u32 dev, __u64 ino, __u64 off, __u64 len)
{
	__u64 page_size = 1ULL << page_shift;
	struct invalidate_walk w = {};
	__u64 first, last;

	count(CNT_INVALIDATE_EVENTS);
	if (always_on())	/* not attached at that level: no records */
		return;
	w.key.dev = dev;
	w.key.ino = ino;
	if (!dev_wanted(w.key.dev) || !len)
		return;
	/* only pages wholly inside the range */
	first = (off + page_size - 1) >> page_shift;
	last = (off + len) >> page_shift;
	if (last <= first)
		return;
	w.first = first;
	bpf_loop(last - first > IOMAPDIRTY_MAX_FOLIO_PAGES ?
		 IOMAPDIRTY_MAX_FOLIO_PAGES : last - first,
		 invalidate_page_cb, &w, 0);
}

static __always_inline void record_invalidate(struct inode *inode, __u64 off, __u64 len)
{
	__u32 dev;
	__u64 ino;

	inode_ids(inode, &dev, &ino);
	record_invalidate_ids(dev, ino, off, len);
}

#endif /* IOMAPDIRTY_WRITE_BPF_H */
