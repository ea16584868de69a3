// SPDX-License-Identifier: GPL-2.0
/* Block-layer matching (verify): see bio.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "bio.bpf.h"
#include "settings.bpf.h"

/* Per-bio tallies live in a map value: counters on the stack would give
 * the verifier a new state for every iteration of the callback. */
struct bio_tally {
	__u64 matched;
	__u64 unmatched;
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
};

static long bio_block_cb(__u64 i, void *data)
{
	struct bio_walk *w = data;
	struct phys_key key = w->key;

	key.block += i;
	if (bpf_map_delete_elem(&pending_phys, &key) == 0)
		w->tally->matched++;
	else
		w->tally->unmatched++;
	return 0;
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
	w.tally->matched = 0;
	w.tally->unmatched = 0;
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
	return 0;
}
