/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writeback moment: one folio is written back (iomap_writeback_folio,
 * iomap_writepage_map, iomap_do_writepage, or the iomap_writeback_folio /
 * iomap_writepage tracepoints). wb_begin() finds the thread's context
 * (folio_ctx.bpf.h); wb_fill(), a global function in writeback.bpf.c,
 * finishes the previous folio in it, resets it, and collects the folio's
 * page records and the kernel's own dirty bitmap into it. Submits (submit.bpf.h) then add to
 * the context, and the folio is counted (sums.bpf.h) when it is done:
 * wb_end() (fexit/kretprobe), the thread's next folio, or the flush.
 */
#ifndef IOMAPDIRTY_WRITEBACK_BPF_H
#define IOMAPDIRTY_WRITEBACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "clock.bpf.h"
#include "folio_ctx.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "paths.bpf.h"
#include "settings.bpf.h"
#include "snapshot.bpf.h"

/* A folio whose writeback begins, for wb_fill(). */
struct wb_folio {
	struct inode_facts fi;
	__u64 folio;		/* 0 in tracepoint mode */
	__u64 pos;
	__u64 bytes;
	__u64 now;
};

/* Per-CPU scratch: block bitmaps of the folio being written back. */
struct folio_bits {
	__u64 app[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* blocks written */
	__u64 kern[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* kernel dirty bits */
	/* bit w: app[w] is this folio's (the others are not reset: 0) */
	__u64 app_words;
	__u64 kern_words;	/* bit w: kern[w] is not 0 */
	/*
	 * All ones: every block the kernel holds dirty was seen going dirty
	 * (buffer heads, the folio's clean -> dirty seen: mark_buffer_dirty,
	 * by a write or otherwise, mmap), so none is unexplained. Here, not
	 * in the walk: wb_fill_bh()'s caller is a bpf_loop callback.
	 */
	__u64 kern_seen;
	/*
	 * wb_fill()'s loops: the words a loop has still to visit, and the
	 * steps taken (CNT_WB_FILL_STEPS). Here, not in the walks on the
	 * stack: wb_fill()'s call chain has 512 bytes of stack for all.
	 */
	__u64 todo;
	__u64 steps;
	struct wb_ctx zero_ctx;	/* a new context's value, see ctx_create() */
	/*
	 * The folio's first page's record, taken by wb_fill(): here, not on
	 * its stack, which is under a bpf_loop callback's for buffer heads
	 * (buffer_heads.bpf.c) and must leave 6.1's 512 bytes room.
	 */
	struct page_rec rec0;
	struct wb_folio folio;	/* wb_begin() -> wb_fill(), off the stack */
	struct file_key file;	/* path_learn()'s key, off the stack */
};

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct folio_bits);
} scratch_map_t;
SHARED_MAP(scratch_map_t, scratch);

/*
 * Fills a thread's context (from ctx_begin()) for the folio in
 * bits->folio: finishes the context's previous folio if one is in
 * progress (finish.bpf.h), resets it, takes the folio's page records and
 * reads the kernel's dirty bits.
 */
int wb_fill(struct wb_ctx *c, struct folio_bits *bits);
/* The same with guarded loads (bpf_rdonly_cast, 6.2+): see writeback.bpf.c. */
int wb_fill_ld(struct wb_ctx *c, struct folio_bits *bits);
/* The same for a buffer-head folio (ext4): the records' dirty bits. */
int wb_fill_bh(struct wb_ctx *c, struct folio_bits *bits);
/* Always-on: a buffer-head folio's dirty blocks into bits->kern; 0 if read. */
int bh_read_dirty(struct folio_bits *bits);
/* ... and counted in the folio's context once wb_fill_bh() has filled it. */
int bh_count_read(struct wb_ctx *c, struct folio_bits *bits);

/*
 * Start of one folio's writeback. 'folio' is NULL in tracepoint mode: it
 * is then taken from the first page's record (recorded_folio()), and
 * without one the kernel's dirty bitmap is unknown. The inode pointer is
 * only needed (by note_path(), as an integer) the first time a file is
 * seen: 'inode' holds it, or else 'inode_slot' (a tp_btf argument, whose
 * typed value the verifier does not let become an integer) is read.
 */
static __always_inline void wb_begin_kind(const struct inode_facts *fi, __u64 inode,
					  const void *inode_slot, struct folio *folio,
					  __u64 fpos, __u64 fbytes, bool direct, bool bh)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero_key = 0;
	struct folio_bits *bits;
	struct wb_folio *f;
	struct wb_ctx *c;

	count(CNT_WB_START_EVENTS);
	bits = bpf_map_lookup_elem(&scratch, &zero_key);
	if (!bits)
		return;
	f = &bits->folio;
	f->fi = *fi;
	f->folio = (__u64)folio;
	f->pos = fpos;
	f->bytes = fbytes;
	f->now = tick_ns();
	c = ctx_begin(tid, dev_wanted(fi->dev), &bits->zero_ctx, f->now);
	if (!c)
		return;
	if (!path_seen_here(fi->dev, fi->ino)) {
		bits->file.ino = fi->ino;
		bits->file.dev = fi->dev;
		bits->file.pad = 0;
		path_learn(&bits->file, inode, inode_slot);
	}
	if (bh) {
		/* always-on: the buffers read before the fill, counted after */
		bool read = always_on() && !bh_read_dirty(bits);

		wb_fill_bh(c, bits);
		if (read)
			bh_count_read(c, bits);
	} else if (direct)
		wb_fill_ld(c, bits);
	else
		wb_fill(c, bits);
	/* verify: its dirty blocks kept for its write bios (buffer heads:
	 * checked at the bio already, the submit is the bio) */
	if (track_physical && !bh)
		snap_save(c);
	ctx_put(c, tid);
}

/* Start of an iomap folio's writeback. */
static __always_inline void wb_begin(const struct inode_facts *fi, __u64 inode,
				     const void *inode_slot, struct folio *folio,
				     __u64 fpos, __u64 fbytes, bool direct)
{
	wb_begin_kind(fi, inode, inode_slot, folio, fpos, fbytes, direct, false);
}

/* Start of a folio's writeback where the folio is known (fentry, kprobe). */
static __always_inline void wb_begin_folio(struct folio *folio)
{
	struct inode *inode = BPF_CORE_READ(folio, mapping, host);
	struct inode_facts fi = {};

	if (!inode)
		return;
	inode_facts_core(inode, &fi, true);
	wb_begin(&fi, (__u64)inode, NULL, folio,
		 (__u64)BPF_CORE_READ(folio, index) << page_shift,
		 folio_bytes(folio), false);
}

/* End of the thread's folio writeback (fexit, kretprobe). */
static __always_inline void wb_end(void)
{
	count(CNT_WB_END_EVENTS);
	finish_thread_folio((__u32)bpf_get_current_pid_tgid());
}

#endif /* IOMAPDIRTY_WRITEBACK_BPF_H */
