// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer-head backend (issue 26): ext4's regular files, counted with
 * the same page records, folio contexts and sums as iomap's, from the
 * kernel's own tracepoints (tp_btf: this host allows nothing else).
 *
 * - write: ext4_da_write_end / ext4_write_end (inode, pos, len, copied),
 *   once per folio of a write(2), after the copy and before the folio's
 *   buffers are dirtied, the folio locked. A short copy (copied < len)
 *   may then commit nothing (block_write_end, for a folio not uptodate),
 *   which the tracepoint cannot tell: its bytes are left out and counted
 *   (buffer_head_short_copy, a loss).
 * - dirty: block_dirty_buffer (mark_buffer_dirty), which fires before its
 *   already-dirty test: a buffer whose BH_Dirty bit is clear goes clean
 *   -> dirty now, and its block is set in its page's record (bh_dirty).
 *   Where its folio is still clean, the folio goes clean -> dirty now:
 *   its first page's record says so (PAGE_REC_BH_FOLIO_DIRTIED), and the
 *   blocks seen are then the folio's whole dirty state (writeback.bpf.c).
 * - writeback and submit: block_bio_queue. ext4 writes a folio's dirty
 *   buffers into bios (ext4_bio_write_folio, one inode per bio); each
 *   bio_vec segment within one folio of an ext4 regular file on the bio's
 *   own device (a stacked device's clone goes to another: not counted
 *   twice) begins that folio in the thread's context if it is not the one
 *   in progress, and submits its blocks there. A folio is finished by the
 *   thread's next folio or by the flush, as in tracepoint mode.
 * Journal and metadata bios carry pages of the block device's own page
 * cache, not of a regular file: never counted here.
 * - verify: the submit is the bio, so each block is placed once (from
 *   its page) and checked there; the bio's data and other bytes are
 *   tallied on its device as bio.bpf.c does for iomap (bh_bio_tally).
 * - always-on (no page records, block_dirty_buffer and invalidate not
 *   attached): the writes go to the per-CPU write sums, and a folio's
 *   dirty blocks are read from its buffer heads at its first write bio
 *   (bh_read_dirty(), writeback.bpf.c); bh_same_writeback() tells a new
 *   writeback of the folio in progress without records.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "biovec.bpf.h"
#include "block_dirty.bpf.h"
#include "fs_kind.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "page_table.bpf.h"
#include "settings.bpf.h"
#include "submit.bpf.h"
#include "write.bpf.h"
#include "writeback.bpf.h"

#define REQ_OP_BITS_MASK	0xff
#define REQ_OP_WRITE_VAL	1
/* include/linux/blk_types.h: BIO_CLONED, 1 from 4.x to 6.18 (an anonymous
 * enum, which CO-RE cannot relocate) */
#define BIO_CLONED_BIT		1

/* ext4's regular files the buffer-head backend counts */
static __always_inline bool bh_counted(struct inode *inode)
{
	return walked_kind(inode) == FS_KIND_EXT4;
}

/* ext4_da_write_end, ext4_write_end: one folio's part of a write(2). */
static __always_inline void bh_write_end(struct inode *inode, __u64 pos, __u32 len,
					 __u32 copied)
{
	struct inode_facts fi = {};

	if (!inode || !bh_counted(inode))
		return;
	inode_facts_core(inode, &fi, false);
	if (copied < len) {
		count(CNT_WRITE_EVENTS);
		/* a loss only where the figures would have counted it */
		if (dev_wanted(fi.dev) && task_wanted())
			count(CNT_BH_SHORT_COPY);
		return;
	}
	record_write(&fi, pos, copied);
}

SEC("tp_btf/ext4_da_write_end")
int BPF_PROG(btf_ext4_da_write_end, struct inode *inode, loff_t pos, unsigned int len,
	     unsigned int copied)
{
	bh_write_end(inode, pos, len, copied);
	return 0;
}

SEC("tp_btf/ext4_write_end")
int BPF_PROG(btf_ext4_write_end, struct inode *inode, loff_t pos, unsigned int len,
	     unsigned int copied)
{
	bh_write_end(inode, pos, len, copied);
	return 0;
}

/* Dirty data thrown away (truncate, hole punch): its pages' records forgotten. */
SEC("tp_btf/ext4_invalidate_folio")
int BPF_PROG(btf_ext4_invalidate, struct folio *folio, size_t offset, size_t length)
{
	struct address_space *mapping;
	struct inode *inode;

	if (!folio)
		return 0;
	mapping = BPF_CORE_READ(folio, mapping);
	if (!mapping || ((__u64)mapping & 3))
		return 0;
	inode = BPF_CORE_READ(mapping, host);
	if (!inode || !bh_counted(inode))
		return 0;
	record_invalidate(inode, ((__u64)BPF_CORE_READ(folio, index) << page_shift) + offset,
			  length);
	return 0;
}

SEC("tp_btf/block_dirty_buffer")
int BPF_PROG(btf_bh_dirty, struct buffer_head *bh)
{
	unsigned long dirty_bit = 1UL << bpf_core_enum_value(enum bh_state_bits, BH_Dirty);
	unsigned long pg_dirty = 1UL << bpf_core_enum_value(enum pageflags, PG_dirty);
	struct address_space *mapping;
	struct inode_facts fi = {};
	struct page *head;
	struct inode *inode;
	__u64 fbytes, off, index;

	if (!bh || (BPF_CORE_READ(bh, b_state) & dirty_bit) || always_on())
		return 0;
	head = page_head(BPF_CORE_READ(bh, b_page));
	mapping = BPF_CORE_READ((struct folio *)head, mapping);
	if (!mapping || ((__u64)mapping & 3))
		return 0;
	inode = BPF_CORE_READ(mapping, host);
	if (!inode || !bh_counted(inode))
		return 0;
	count(CNT_BH_DIRTY_EVENTS);
	inode_facts_core(inode, &fi, false);
	/*
	 * Any writer's: these bits are the kernel's view, which the blocks
	 * submitted are checked against; a folio no wanted writer wrote is
	 * left out at writeback (wb_fill: counted = 0).
	 */
	if (!dev_wanted(fi.dev))
		return 0;
	/* offset_in_folio(): a folio's address is aligned to its size */
	fbytes = folio_bytes((struct folio *)head);
	off = (__u64)BPF_CORE_READ(bh, b_data) & (fbytes - 1);
	index = BPF_CORE_READ((struct folio *)head, index);
	bh_block_dirtied(&fi, (index << page_shift) + off, index,
			 !(folio_flags((struct folio *)head) & pg_dirty), task_wanted());
	return 0;
}

/*
 * The walk through one write bio's bio_vecs, a segment per step, and what
 * a segment needs: in a per-CPU map value, not on the stack, where the
 * program, bpf_loop's callback and wb_fill()'s own call chain must fit
 * 512 bytes together.
 */
struct bh_bio_walk {
	struct biovec_pos v;
	struct inode_facts fi;
	struct iomap_facts m;
	struct submit_tally t;	/* the bio's data blocks, for verify */
	__u64 holder;		/* who opened the bio's device (bd_holder) */
	__u32 bdev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bh_bio_walk);
} bh_walks SEC(".maps");

/*
 * The folio in progress in the thread's context is this one: the same
 * writeback (its blocks split over two bios), or a new one of the folio,
 * written again since (a write and fsync after the last). A new one finds
 * the block it submits dirty again in its page's record, which the last
 * writeback took; the same one finds it taken.
 */
static __always_inline bool bh_redirtied(const struct inode_facts *fi, __u64 pos)
{
	struct page_key key = { .dev = fi->dev, .ino = fi->ino, .index = pos >> page_shift };
	__u64 bit = (pos & ((1ULL << page_shift) - 1)) >> fi->blkbits;
	struct page_rec *rec = page_find(&key);

	return rec && bit < 64 && (rec->bh_dirty >> bit) & 1;
}

/*
 * Always-on (no page records): the folio in progress in the thread's
 * context goes on with the segment at 'off' if the segment lies past what
 * it sent last (a writeback adds a folio's blocks to its bios in order)
 * and its first block was dirty as that writeback began. Otherwise the
 * folio is written back again (a write and fsync after the last).
 */
static __always_inline bool bh_same_writeback(const struct wb_ctx *c, __u64 off)
{
	__u64 block = off >> (c->block_bits & 63);

	if (off < c->submit_end || block >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2 * 64)
		return false;
	return (ctx_dirty_word(c, block / 64) >> (block % 64)) & 1;
}

/*
 * The blocks of [pos, pos + bytes) sent, in the thread's folio context. A
 * call of its own: its walk of bitmap words would add its frame to
 * bh_segment()'s, which is under wb_fill()'s call chain.
 */
__noinline int bh_submit(struct bh_bio_walk *w, __u64 pos, __u64 bytes)
{
	if (!w)
		return 0;
	w->m.type = IOMAP_HOLE_TYPE + 1;	/* any but a hole */
	w->m.exact = 1;
	w->m.offset = pos;
	w->m.length = bytes;
	wb_submit_tally(w->fi.dev, w->fi.ino, pos, bytes, &w->m, &w->t);
	return 0;
}

/*
 * A btrfs folio's segment is counted on a device the btrfs opened itself
 * (bd_holder: its superblock, or its filesystem type before 6.8; a loop
 * device's backing disk, or a stacked device's, is someone else's). Its
 * clones are not walked (btf_bh_bio): a mirrored block (DUP, RAID1) is
 * counted once, in the bio the copies were cloned from. Folios of several
 * blocks (large folios, btrfs 6.17+ with CONFIG_BTRFS_EXPERIMENTAL) keep
 * their dirty blocks in btrfs's own bitmap, which no hook reads: a loss.
 */
static __always_inline bool btrfs_bio_counted(const struct bh_bio_walk *w,
					      struct inode *inode, __u64 fbytes,
					      __u32 blkbits)
{
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);

	if (w->holder != (__u64)sb && w->holder != (__u64)BPF_CORE_READ(sb, s_type))
		return false;
	if (fbytes != 1ULL << (blkbits & 63)) {
		count(CNT_BTRFS_MULTIBLOCK_FOLIO);
		return false;
	}
	return true;
}

/*
 * The segment of one folio the walk is at ('pg', 'bytes'), submitted in
 * its folio context, which it begins unless that folio is in progress
 * there. A global function, verified once: inlined in bpf_loop's callback
 * it was verified at every step of the walk (230,000 instructions, 200 ms
 * at each start), and a frame of its own for the begin under the callback
 * put wb_fill()'s call chain past the 512 bytes of stack (6.1: 544).
 */
__noinline int bh_segment(struct bh_bio_walk *w, __u64 pg, __u64 bytes)
{
	__u64 psize = bpf_core_type_size(struct page);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct address_space *mapping;
	struct inode_facts *fi;
	struct page *head;
	struct inode *inode;
	enum fs_kind kind;
	struct wb_ctx *c;
	__u64 fpos, fbytes, off;
	bool same;

	if (!w)
		return 0;
	fi = &w->fi;
	head = page_head((struct page *)pg);
	mapping = BPF_CORE_READ((struct folio *)head, mapping);
	if (!mapping || ((__u64)mapping & 3))
		return 0;
	inode = BPF_CORE_READ(mapping, host);
	if (!inode)
		return 0;
	kind = walked_kind(inode);
	if (kind == FS_KIND_OTHER)
		return 0;
	inode_facts_core(inode, fi, true);
	fbytes = folio_bytes((struct folio *)head);
	if (kind == FS_KIND_BTRFS) {
		if (!btrfs_bio_counted(w, inode, fbytes, fi->blkbits))
			return 0;
		fi->dev = btrfs_subvol_dev(inode);
	} else if (fi->dev != w->bdev) {
		return 0;	/* a stacked device's clone: counted at the top */
	}
	fpos = (__u64)BPF_CORE_READ((struct folio *)head, index) << page_shift;
	off = ((pg - (__u64)head) / psize << page_shift) +
	      (w->v.off & ((1ULL << page_shift) - 1));
	if (off >= fbytes)
		return 0;
	if (bytes > fbytes - off)
		bytes = fbytes - off;
	c = ctx_find(tid);
	same = c && c->active && c->key.dev == fi->dev && c->key.ino == fi->ino &&
	       c->folio_pos == fpos;
	if (same && always_on())
		same = bh_same_writeback(c, off);
	ctx_put(c, tid);
	if (same && !always_on() && bh_redirtied(fi, fpos + off))
		same = false;
	if (!same)
		wb_begin_kind(fi, (__u64)inode, NULL, (struct folio *)head, fpos, fbytes,
			      false, true);
	bh_submit(w, fpos + off, bytes);
	return 0;
}

/*
 * One step: the rest of the current bio_vec within its page's folio (a
 * bio_vec may hold several pages of a folio, or of physically adjacent
 * folios merged into it).
 */
static long bh_bio_step(__u64 n, void *data)
{
	struct bh_bio_walk *w = *(struct bh_bio_walk **)data;
	__u64 psize = bpf_core_type_size(struct page);
	__u64 page_mask = (1ULL << page_shift) - 1;
	struct page *pg, *head;
	__u64 bytes, in_folio;

	if (!w->v.left && !biovec_load(&w->v))
		return 1;
	pg = (void *)(w->v.page + (w->v.off >> page_shift) * psize);
	head = page_head(pg);
	/* bytes to the end of pg's folio: whole pages after pg, and pg's rest */
	in_folio = folio_bytes((struct folio *)head) -
		   ((((__u64)pg - (__u64)head) / psize) << page_shift) -
		   (w->v.off & page_mask);
	bytes = w->v.left < in_folio ? w->v.left : in_folio;
	if (!bytes)
		return 1;
	bh_segment(w, (__u64)pg, bytes);
	w->v.off += bytes;
	w->v.left -= bytes;
	return 0;
}

/*
 * Verify: the write bio's figures on its device, like bio.bpf.c's for
 * iomap's devices: the bytes of ext4 files' blocks it carried (data, each
 * placed from its page and checked in bh_submit against its folio's dirty
 * blocks as that writeback began) and the rest (journal, metadata). A
 * device is tallied from its first data block on, as iomap's are, and
 * marked so that bio.bpf.c leaves it alone.
 */
static __always_inline void bh_bio_tally(struct bh_bio_walk *w, __u64 size)
{
	static const struct bio_stats zero;
	const struct submit_tally *t = &w->t;
	__u32 *bits, mark = DEV_BITS_AT_BIO | (w->fi.blkbits & 63);
	struct bio_stats *st;
	__u64 data = t->bytes < size ? t->bytes : size;

	if (t->blocks)
		bpf_map_update_elem(&dev_block_bits, &w->bdev, &mark, BPF_NOEXIST);
	bits = bpf_map_lookup_elem(&dev_block_bits, &w->bdev);
	if (!bits || !(*bits & DEV_BITS_AT_BIO))
		return;
	if (simulate_unseen_bios) {
		count(CNT_SIMULATED_BIOS);
		return;
	}
	st = map_lookup_or_try_init(&bio_stats_map, &w->bdev, &zero, NO_COUNTER);
	if (!st)
		return;
	bio_stats_add(st, data, size, data == size);
	__sync_fetch_and_add(&st->bh_blocks, t->blocks);
	__sync_fetch_and_add(&st->bio_checked_blocks, t->blocks - t->clean - t->unchecked);
	__sync_fetch_and_add(&st->bio_violation_blocks, t->clean);
	/* no known dirty state (dirtied before attach): in no figure */
	__sync_fetch_and_add(&st->bio_unsnapped_blocks, t->unchecked);
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(btf_bh_bio, struct bio *bio)
{
	__u32 zero = 0;
	struct bh_bio_walk *w;

	if (!bio || (BPF_CORE_READ(bio, bi_opf) & REQ_OP_BITS_MASK) != REQ_OP_WRITE_VAL)
		return 0;
	count(CNT_BH_BIO_EVENTS);
	/*
	 * A clone shares its parent's bio_vecs, with none of its own
	 * (bi_vcnt 0): a mirror's copy (btrfs DUP, RAID1), a part split off
	 * (btrfs's stripes: RAID0/10/5/6), a stacked device's. Not walked,
	 * counted.
	 */
	if ((BPF_CORE_READ(bio, bi_flags) >> BIO_CLONED_BIT) & 1) {
		count(CNT_CLONED_WRITE_BIOS);
		return 0;
	}
	w = bpf_map_lookup_elem(&bh_walks, &zero);
	if (!w)
		return 0;
	w->bdev = BPF_CORE_READ(bio, bi_bdev, bd_dev);
	w->holder = (__u64)BPF_CORE_READ(bio, bi_bdev, bd_holder);
	__builtin_memset(&w->t, 0, sizeof(w->t));
	if (!biovec_start(&w->v, bio))
		return 0;
	/* bpf_loop wants its context on the stack: the map value's address */
	bpf_loop(BIOVEC_MAX, bh_bio_step, &w, 0);
	if (track_physical)
		bh_bio_tally(w, BPF_CORE_READ(bio, bi_iter.bi_size));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
