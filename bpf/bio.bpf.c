// SPDX-License-Identifier: GPL-2.0
/* Block-layer matching (verify): see bio.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bio.bpf.h"
#include "biovec.bpf.h"
#include "settings.bpf.h"

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
static __always_inline void bio_block_place(struct bio_tally *t, const struct phys_origin *o)
{
	struct biovec_place p = {};

	if (!t->vec_ok || !biovec_place(&t->vec, &p)) {
		t->unplaced++;
		return;
	}
	if (p.dev == o->fs_dev && p.ino == o->ino && p.offset == o->offset) {
		t->agree++;
		return;
	}
	if (!t->disagree) {
		t->first_disagree = o->offset + 1;
		t->first_disagree_bio = p.offset;
	}
	t->disagree++;
}

static long bio_block_cb(__u64 i, void *data)
{
	struct bio_walk *w = data;
	struct bio_tally *t = w->tally;
	struct phys_key key = w->key;
	struct phys_origin *o;

	key.block += i;
	if (t->vec_ok && !t->vec.left && !biovec_load(&t->vec)) {
		t->vec_ok = false;
		count(CNT_BIOVEC_BOUND);
	}
	o = bpf_map_lookup_elem(&pending_phys, &key);
	if (o) {
		bio_block_place(t, o);
		bpf_map_delete_elem(&pending_phys, &key);
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
	if (!bits)
		return 0;	/* no data submitted to this device yet */
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
	__sync_fetch_and_add(&st->write_bios, 1);
	if (matched && !unmatched)
		__sync_fetch_and_add(&st->matched_bios, 1);
	else if (matched)
		__sync_fetch_and_add(&st->partial_bios, 1);
	else
		__sync_fetch_and_add(&st->unmatched_bios, 1);
	__sync_fetch_and_add(&st->matched_bytes, matched << shift);
	__sync_fetch_and_add(&st->unmatched_bytes, size - (matched << shift));
	bio_placed_add(st, w.tally);
	return 0;
}
