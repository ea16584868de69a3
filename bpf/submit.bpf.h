/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The submit moment: a range of the folio being written back is added to
 * an ioend for the device, or found to map a hole (tracepoints
 * iomap_add_to_ioend, iomap_writepage_map). Each submitted block is
 * checked against the folio's dirty blocks in the thread's context
 * (folio_ctx.bpf.h): a clean block sent is a violation. In verify mode its
 * physical block is remembered for the block layer (bio.bpf.h).
 * Included by tracepoint.bpf.c and buffer_heads.bpf.c: inline, one call
 * per range.
 */
#ifndef IOMAPDIRTY_SUBMIT_BPF_H
#define IOMAPDIRTY_SUBMIT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "bio.bpf.h"
#include "bits.bpf.h"
#include "core_fixes.bpf.h"
#include "folio_ctx.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

/*
 * What one range's check found, for a caller that tallies it at the block
 * layer itself (buffer heads in verify: the range is a write bio's).
 */
struct submit_tally {
	__u64 bytes;		/* submitted */
	__u64 blocks;
	__u64 clean;		/* violations */
	__u64 unchecked;
};

struct submit_walk {
	struct wb_ctx *c;
	__u64 first_block;	/* in the folio */
	__u64 end_block;	/* past the range */
	struct phys_key phys;	/* first physical block, when tracked */
	struct phys_origin origin;	/* its file and offset */
	__u32 block_bits;
};

/*
 * Checks the submitted blocks of bitmap word w (those of the range)
 * against the folio's dirty blocks, a word at a time: a block not dirty
 * is a violation, one dirty only in the kernel's bitmap (not seen
 * written) unexplained; in a folio whose dirty state is not fully known
 * every block is unchecked. The first violation is the lowest block.
 */
static __always_inline long submit_word(__u64 w, void *data)
{
	struct submit_walk *sw = data;
	struct wb_ctx *c = sw->c;
	__u64 word = sw->first_block / 64 + w, lo = word * 64, sent, bad, dirty;

	if (word >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2 || lo >= sw->end_block)
		return 1;
	sent = first_bits_word(sw->end_block, word);
	if (sw->first_block > lo)
		sent &= ~((1ULL << (sw->first_block - lo)) - 1);
	if (!c->checkable) {
		c->unchecked_blocks += popcount64(sent);
		return 0;
	}
	dirty = ctx_dirty_word(c, word);
	bad = sent & ~dirty;
	if (bad) {
		if (!c->violation_blocks)	/* its offset: the lowest bit's */
			c->first_violation = ((lo + lowest_bit(bad)) << c->block_bits) + 1;
		c->violation_blocks += popcount64(bad);
	}
	c->unexplained_blocks += popcount64(sent & dirty & ~ctx_seen_word(c, word));
	return 0;
}
LOOP_CB(submit_word)

/* Verify mode: remembers a submitted block's physical block for its bio. */
static long submit_phys_cb(__u64 i, void *data)
{
	struct submit_walk *w = data;
	struct phys_origin origin = w->origin;
	struct phys_key key = w->phys;

	if (w->first_block + i >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2 * 64)
		return 1;
	key.block += i;
	origin.offset += i << w->block_bits;
	if (bpf_map_update_elem(&pending_phys, &key, &origin, BPF_ANY))
		count(CNT_PHYS_MAP_FULL);
	return 0;
}

/*
 * A range of thread context c's folio goes to the device (or maps a hole);
 * what its check found is added to 'out' where a caller wants it.
 */
static __always_inline void wb_submit_ctx(struct wb_ctx *c, __u32 dev, __u64 ino,
					  __u64 pos, __u64 len, const struct iomap_facts *m,
					  struct submit_tally *out)
{
	__u64 map_len = len, end, nblocks, clean0, unchecked0;
	struct submit_walk w = {};

	if (!c || !c->active || c->key.dev != dev || c->key.ino != ino) {
		count(CNT_SUBMIT_WITHOUT_FOLIO);
		return;
	}
	if (submit_proto == SUBMIT_PER_BLOCK && !m->exact) {
		/*
		 * No offset in this tracepoint: which block is unknown here.
		 * Verify checks it at the bio instead (snapshot.bpf.h), on
		 * the device it goes to.
		 */
		if (m->type != IOMAP_HOLE_TYPE) {
			/* on the stack: 6.1 takes no other memory as a map key */
			__u32 bits = c->block_bits, bdev = m->bdev;

			c->submitted_bytes += 1ULL << c->block_bits;
			c->submitted_blocks += 1;
			c->unchecked_blocks += 1;
			if (track_physical)
				bpf_map_update_elem(&dev_block_bits, &bdev, &bits, BPF_ANY);
		} else {
			c->hole_bytes += 1ULL << c->block_bits;
		}
		return;
	}
	if (pos < c->folio_pos || pos >= c->folio_pos + c->folio_bytes) {
		count(CNT_SUBMIT_WITHOUT_FOLIO);
		return;
	}
	/* the same formula the kernel uses right after the tracepoint */
	end = m->offset + m->length;
	if (end > pos && end - pos < map_len)
		map_len = end - pos;
	if (m->type == IOMAP_HOLE_TYPE) {
		c->hole_bytes += map_len;
		return;
	}
	nblocks = (map_len + (1ULL << c->block_bits) - 1) >> c->block_bits;
	c->submit_end = pos - c->folio_pos + map_len;
	c->submitted_bytes += map_len;
	c->submitted_blocks += nblocks;

	clean0 = c->violation_blocks;
	unchecked0 = c->unchecked_blocks;
	w.c = c;
	w.first_block = (pos - c->folio_pos) >> c->block_bits;
	w.end_block = w.first_block + nblocks;
	/* one word but where the range crosses a word's end (or is large) */
	if (w.first_block % 64 + nblocks <= 64)
		submit_word(0, &w);
	else
		bpf_loop((w.first_block % 64 + nblocks + 63) / 64, submit_word_cb, &w, 0);
	if (out) {
		out->bytes += map_len;
		out->blocks += nblocks;
		out->clean += c->violation_blocks - clean0;
		out->unchecked += c->unchecked_blocks - unchecked0;
	}
	/* an exact range is a write bio's own (buffer heads): nothing to wait for */
	if (track_physical && !m->exact) {
		__u64 addr = m->addr + (pos - m->offset);
		__u32 bits = c->block_bits;

		w.phys.dev = m->bdev;
		w.phys.block = addr >> c->block_bits;
		w.origin.fs_dev = dev;
		w.origin.ino = ino;
		w.origin.offset = (pos >> bits) << bits;
		w.block_bits = bits;
		bpf_map_update_elem(&dev_block_bits, &w.phys.dev, &bits, BPF_ANY);
		bpf_loop(nblocks, submit_phys_cb, &w, 0);
	}
}

/* A range of the current folio goes to the device (or maps a hole). */
static __always_inline void wb_submit_tally(__u32 dev, __u64 ino, __u64 pos, __u64 len,
					    const struct iomap_facts *m, struct submit_tally *out)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wb_ctx *c;

	count(CNT_SUBMIT_EVENTS);
	if (!dev_wanted(dev))
		return;
	c = ctx_find(tid);
	wb_submit_ctx(c, dev, ino, pos, len, m, out);
	ctx_put(c, tid);
}

static __always_inline void wb_submit(__u32 dev, __u64 ino, __u64 pos, __u64 len,
				      const struct iomap_facts *m)
{
	wb_submit_tally(dev, ino, pos, len, m, NULL);
}

#endif /* IOMAPDIRTY_SUBMIT_BPF_H */
