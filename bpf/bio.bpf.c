// SPDX-License-Identifier: GPL-2.0
/* Block-layer matching (verify): see bio.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bio.bpf.h"
#include "biovec.bpf.h"
#include "bits.bpf.h"
#include "settings.bpf.h"
#include "snapshot.bpf.h"

/* Per-bio tallies live in a map value: counters on the stack would give
 * the verifier a new state for every iteration of the callback. */
struct bio_tally {
	__u64 matched;
	__u64 unmatched;
	__u64 agree;		/* matched blocks the bio's page placed alike */
	__u64 disagree;
	__u64 unplaced;
	__u64 first_disagree;	/* the submit hook's offset + 1 */
	__u64 first_disagree_bio;
	__u64 checked;		/* blocks judged by their folio's snapshot */
	__u64 checked_preattach;
	__u64 clean;
	__u64 unjudged;
	__u64 unsnapped;
	struct biovec_pos vec;
	bool vec_ok;		/* the walk is still in the bio_vecs */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bio_tally);
} bio_scratch SEC(".maps");

struct bio_walk {
	struct phys_key key;
	struct bio_tally *tally;
	__u32 shift;
};

/* A matched block: does the bio's page put it where the submit hook did? */
static __always_inline void bio_block_place(struct bio_tally *t, const struct phys_origin *o,
					    const struct biovec_place *p, bool placed)
{
	if (!placed) {
		t->unplaced++;
		return;
	}
	if (p->dev == o->fs_dev && p->ino == o->ino && p->offset == o->offset) {
		t->agree++;
		return;
	}
	if (!t->disagree) {
		t->first_disagree = o->offset + 1;
		t->first_disagree_bio = p->offset;
	}
	t->disagree++;
}

/* A clean block in a write bio: its folio kept among the first offenders. */
static __always_inline void bio_note_clean(const struct biovec_place *p,
					   const struct wb_snap *s, __u32 shift)
{
	struct page_key key = { .ino = p->ino, .dev = p->dev, .index = p->folio_index };
	struct violation init = {
		.first_offset = (p->offset >> shift) << shift,
		.clean_blocks = 1,
		.folio_bytes = (__u64)s->nr_blocks << shift,
		.dirty_blocks = s->dirty_blocks,
	};
	struct violation *v = bpf_map_lookup_elem(&bio_violations, &key);

	if (!v) {
		map_try_insert(&bio_violations, &key, &init, CNT_VIOLATION_MAP_FULL);
		return;
	}
	__sync_fetch_and_add(&v->clean_blocks, 1);
	if (init.first_offset < v->first_offset)
		v->first_offset = init.first_offset;
}

/*
 * A data block placed from the bio's page, judged by its folio's dirty
 * blocks as its writeback began (snapshot.bpf.h). A block met a second
 * time in one snapshot is not judged: the snapshot is not this
 * writeback's (its start was not seen). met is or-ed without an atomic
 * (6.1's ppc64 JIT has no atomic or): two CPUs meeting blocks of one word
 * at once may forget a bit, which only lets a block be judged again.
 * Returns whether the block is one of a watched filesystem's files.
 */
static __always_inline bool bio_block_check(struct bio_tally *t, const struct biovec_place *p,
					    __u32 shift)
{
	struct snap_key key = { .ino = p->ino, .dev = p->dev, .index = p->folio_index };
	__u64 blk, bit, page_off = p->folio_index << page_shift;
	struct wb_snap *s;

	if (!dev_wanted(p->dev) || p->offset < page_off)
		return false;
	blk = (p->offset - page_off) >> shift;
	key.word = blk / 64;
	s = bpf_map_lookup_elem(&wb_snaps, &key);
	if (!s) {
		t->unsnapped++;
		return true;
	}
	bit = 1ULL << (blk % 64);
	if (blk >= s->nr_blocks || (s->met & bit)) {
		t->unjudged++;
		return true;
	}
	s->met |= bit;
	if (s->dirty & bit) {
		t->checked++;
		if (s->preattach)
			t->checked_preattach++;
		return true;
	}
	t->clean++;
	bio_note_clean(p, s, shift);
	return true;
}

static long bio_block_cb(__u64 i, void *data)
{
	struct bio_walk *w = data;
	struct bio_tally *t = w->tally;
	struct phys_key key = w->key;
	struct biovec_place p = {};
	struct phys_origin *o;
	bool placed, in_file = false;

	key.block += i;
	if (t->vec_ok && !t->vec.left && !biovec_load(&t->vec)) {
		t->vec_ok = false;
		count(CNT_BIOVEC_BOUND);
	}
	placed = t->vec_ok && biovec_place(&t->vec, &p);
	if (placed)
		in_file = bio_block_check(t, &p, w->shift) && p.dev == key.dev;
	o = bpf_map_lookup_elem(&pending_phys, &key);
	if (o) {
		bio_block_place(t, o, &p, placed);
		bpf_map_delete_elem(&pending_phys, &key);
		t->matched++;
	} else if (in_file && submit_proto == SUBMIT_PER_BLOCK) {
		/* 6.1-6.8: the submit hook placed no block (no offsets);
		 * a block of a file on this device is data by its page */
		t->matched++;
	} else {
		t->unmatched++;
	}
	if (t->vec_ok && !biovec_skip(&t->vec, 1ULL << w->shift)) {
		t->vec_ok = false;
		count(CNT_BIOVEC_BOUND);
	}
	return 0;
}

/* The bio's placements added to its device's figures. */
static __always_inline void bio_placed_add(struct bio_stats *st, const struct bio_tally *t)
{
	__sync_fetch_and_add(&st->placed_agree_blocks, t->agree);
	__sync_fetch_and_add(&st->placed_disagree_blocks, t->disagree);
	__sync_fetch_and_add(&st->unplaced_blocks, t->unplaced);
	__sync_fetch_and_add(&st->bio_checked_blocks, t->checked);
	__sync_fetch_and_add(&st->bio_preattach_blocks, t->checked_preattach);
	__sync_fetch_and_add(&st->bio_violation_blocks, t->clean);
	__sync_fetch_and_add(&st->bio_unjudged_blocks, t->unjudged);
	__sync_fetch_and_add(&st->bio_unsnapped_blocks, t->unsnapped);
	/* the first one seen on the device; a race only picks another one */
	if (t->disagree && !st->first_disagree_offset) {
		st->first_disagree_offset = t->first_disagree;
		st->first_disagree_bio_offset = t->first_disagree_bio;
	}
}

/* Verify: a write bio reaches the block layer; which of it is our data? */
SEC("raw_tp/block_bio_queue")
int BPF_PROG(tp_bio_queue, struct bio *bio)
{
	static const struct bio_stats zero;
	struct bio_walk w = {};
	struct bio_stats *st;
	__u64 sector, size, matched, unmatched;
	__u32 *bits, dev, zero_key = 0, shift;
	struct block_device *bdev;

	/* REQ_OP_WRITE is 1 and the op is the low byte of bi_opf */
	if ((BPF_CORE_READ(bio, bi_opf) & 0xff) != 1)
		return 0;
	bdev = BPF_CORE_READ(bio, bi_bdev);
	dev = BPF_CORE_READ(bdev, bd_dev);
	bits = bpf_map_lookup_elem(&dev_block_bits, &dev);
	if (!bits || (*bits & DEV_BITS_AT_BIO))
		return 0;	/* no data submitted to this device yet, or ext4's */
	if (simulate_unseen_bios) {
		count(CNT_SIMULATED_BIOS);
		return 0;
	}
	shift = *bits & 63;
	w.tally = bpf_map_lookup_elem(&bio_scratch, &zero_key);
	if (!w.tally)
		return 0;
	__builtin_memset(w.tally, 0, sizeof(*w.tally));
	w.tally->vec_ok = biovec_start(&w.tally->vec, bio);
	count(CNT_BIO_EVENTS);
	sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	/*
	 * A bio sent to a partition: submit_bio_noacct() has added the
	 * partition's start (blk_partition_remap(), traced as block_bio_remap)
	 * before block_bio_queue fires, and left bi_bdev on the partition.
	 * The filesystem's addresses are partition-relative: take it back.
	 * (0 for a whole disk. Stacked devices, dm and md, are matched here,
	 * on the device the filesystem submitted to, before they remap.)
	 */
	if (bpf_core_field_exists(bdev->bd_start_sect))
		sector -= BPF_CORE_READ(bdev, bd_start_sect);
	size = BPF_CORE_READ(bio, bi_iter.bi_size);
	w.key.dev = dev;
	w.key.block = (sector << 9) >> shift;
	w.shift = shift;
	bpf_loop(size >> shift, bio_block_cb, &w, 0);
	matched = w.tally->matched;
	unmatched = w.tally->unmatched;

	/* keyed as dev_block_bits, of the same size: it cannot fill up first */
	st = map_lookup_or_try_init(&bio_stats_map, &dev, &zero, NO_COUNTER);
	if (!st)
		return 0;
	bio_stats_add(st, matched << shift, size, !unmatched);
	bio_placed_add(st, w.tally);
	return 0;
}
