// SPDX-License-Identifier: GPL-2.0
/* Verify's dirty bitmaps kept for the block layer: see snapshot.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "snapshot.bpf.h"
#include "bits.bpf.h"
#include "folio_ctx.bpf.h"
#include "settings.bpf.h"

struct snap_walk {
	struct wb_ctx *c;
	struct snap_key key;
	struct wb_snap val;
	bool keep;
};

static __always_inline long snap_word(__u64 w, void *data)
{
	struct snap_walk *s = data;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	s->key.word = w;
	if (!s->keep) {
		bpf_map_delete_elem(&wb_snaps, &s->key);
		return 0;
	}
	s->val.dirty = ctx_dirty_word(s->c, w);
	if (bpf_map_update_elem(&wb_snaps, &s->key, &s->val, BPF_ANY))
		count(CNT_SNAP_MAP_FULL);
	return 0;
}
LOOP_CB(snap_word)

/*
 * The folio's whole dirty state must be known to be kept: the kernel's
 * bitmap was read (or the folio is one block); on a kernel without one,
 * the folio went clean -> dirty inside the window, so the writes and
 * whole-folio dirtying seen are all of it. Anything else (and a folio
 * left out of the figures) drops what an earlier writeback of the same
 * folio kept: its bios must not be judged by that.
 */
__noinline int snap_save(struct wb_ctx *c)
{
	struct snap_walk s = {};
	__u32 zero = 0, *ended;
	__u64 nr = 0, words = 1;
	bool fits;

	if (!c || !c->active)
		return 0;
	ended = bpf_map_lookup_elem(&snap_window, &zero);
	if (ended && *ended)
		return 0;
	s.c = c;
	s.key.ino = c->key.ino;
	s.key.dev = c->key.dev;
	s.key.index = c->key.index;
	if (c->block_bits >= 9 && c->block_bits <= IOMAPDIRTY_MAX_BLOCK_BITS)
		nr = c->folio_bytes >> c->block_bits;
	fits = nr && nr <= IOMAPDIRTY_MAX_BITMAP_WORDS / 2 * 64;
	s.keep = c->counted && fits &&
		 (c->bitmap_read || (bitmap_kind == BITMAP_NONE && c->checkable &&
				     c->dirtied_seen));
	if (fits)
		words = (nr + 63) / 64;
	s.val.nr_blocks = nr;
	s.val.dirty_blocks = c->app_dirty_blocks + c->other_dirty_blocks;
	s.val.preattach = c->preattach;
	if (words == 1)
		snap_word(0, &s);
	else
		bpf_loop(words, snap_word_cb, &s, 0);
	return 0;
}
