/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version shims, in one place: each describes one shape a kernel
 * change left behind, names the change, and gives an accessor that works
 * on every shape. libbpf matches a "name___suffix" type against the
 * kernel's "name"; bpf_core_field_exists() tells which shape the running
 * kernel has. vmlinux/vmlinux.h comes from 6.18 (see vmlinux/README.md).
 *
 * Which per-block dirty bitmap a kernel has (none, RFCv4's iomap_page,
 * 6.6's iomap_folio_state) is decided by the attach plan from the
 * kernel's BTF (user/live/facts.c) and given as the bitmap_kind setting.
 */
#ifndef IOMAPDIRTY_CORE_FIXES_BPF_H
#define IOMAPDIRTY_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"

/* IOMAP_HOLE in every kernel since 4.x: no flavor needed. */
#define IOMAP_HOLE_TYPE	0

/*
 * RFCv4-patched 5.x/6.1-6.5 (the seeds in /work/shared/seeds): uptodate
 * bits then dirty bits in struct iomap_page's state[]. Mainline renamed it
 * struct iomap_folio_state with the same state[] in 6.6 ("iomap: Rename
 * iomap_page to iomap_folio_state and others", "iomap: Add per-block dirty
 * state tracking to improve performance"), which vmlinux.h has.
 * (Unpatched 5.18-6.5 have iomap_page with uptodate[] only: nothing to
 * read, bitmap_kind is BITMAP_NONE and no flavor is needed.)
 */
struct iomap_page___rfc {
	atomic_t read_bytes_pending;
	atomic_t write_bytes_pending;
	spinlock_t state_lock;
	unsigned long state[];
} __attribute__((preserve_access_index));

/* Where state[] starts in a folio's private data, for the given kind. */
static __always_inline unsigned long *folio_state_bits(void *priv, __u32 kind)
{
	if (kind == BITMAP_IFS)
		return priv + bpf_core_field_offset(struct iomap_folio_state, state);
	if (kind == BITMAP_IOP_STATE)
		return priv + bpf_core_field_offset(struct iomap_page___rfc, state);
	return NULL;
}

/*
 * 6.1-6.5: the order of a large folio is _folio_order, a byte of its
 * second page; 6.6 ("mm: free up a word in the first tail page") moved it
 * to the low byte of _flags_1.
 */
struct folio___v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

static __always_inline __u64 folio_order_of(struct folio *folio)
{
	__u64 order = 0;

	if (bpf_core_field_exists(struct folio___v61, _folio_order)) {
		struct folio___v61 *old = (void *)folio;

		order = BPF_CORE_READ(old, _folio_order);
	} else {
		order = BPF_CORE_READ(folio, _flags_1) & 0xff;
	}
	return order;
}

/*
 * Reads a folio's page flags into *flags; 0 or a negative error. 'flags'
 * became memdesc_flags_t in 6.17 ("mm: introduce memdesc_flags_t"); it is
 * one long, first in struct folio, in all kernels. No CO-RE field
 * relocation: libbpf finds memdesc_flags_t and a 6.1 kernel's unsigned
 * long incompatible.
 */
static __always_inline long folio_flags_read(struct folio *folio, unsigned long *flags)
{
	return bpf_probe_read_kernel(flags, sizeof(*flags), folio);
}

/*
 * What one pass of iomap_iter() committed, read at the iomap_iter
 * tracepoint of the call that ends it (the first call of an operation has
 * no mapping yet: iomap.length 0). Up to 6.13 the operation returned its
 * bytes in iter->processed and iomap_iter() advanced pos after the
 * tracepoint: [pos, pos + processed). "iomap: support incremental
 * iomap_iter advances" (6.14) added iter_start_pos and lets an operation
 * advance pos itself: [iter_start_pos, pos), processed > 0 only from an
 * operation not yet converted; "iomap: rename iomap_iter processed field
 * to status" (6.15) removed processed. iomap_iter() itself takes
 * processed > 0 first, then pos - iter_start_pos; so does this.
 * *failed: the pass ended in an error (processed or status < 0), which
 * ends the operation: [pos, pos + len) was asked for and never copied.
 */
struct iomap_iter___processed {
	s64 processed;
} __attribute__((preserve_access_index));

static __always_inline __u64 iter_pass_bytes(__s64 pos, __s64 from, __s64 done)
{
	if (done > 0)
		return done;
	return pos > from ? pos - from : 0;
}

/* Probe reads (raw_tp). */
static __always_inline __u64 iomap_iter_committed(struct iomap_iter *iter, bool *failed)
{
	struct iomap_iter___processed *old = (void *)iter;
	__s64 pos = BPF_CORE_READ(iter, pos), from = pos, done = 0;

	if (bpf_core_field_exists(iter->iter_start_pos))
		from = BPF_CORE_READ(iter, iter_start_pos);
	if (bpf_core_field_exists(old->processed))
		done = BPF_CORE_READ(old, processed);
	*failed = done < 0;
	if (bpf_core_field_exists(iter->status))
		*failed = BPF_CORE_READ(iter, status) < 0;
	return iter_pass_bytes(pos, from, done);
}

/* Plain loads: only where iter is a BTF-typed pointer (tp_btf arguments). */
static __always_inline __u64 iomap_iter_committed_btf(struct iomap_iter *iter, bool *failed)
{
	struct iomap_iter___processed *old = (void *)iter;
	__s64 pos = iter->pos, from = pos, done = 0;

	if (bpf_core_field_exists(iter->iter_start_pos))
		from = iter->iter_start_pos;
	if (bpf_core_field_exists(old->processed))
		done = old->processed;
	*failed = done < 0;
	if (bpf_core_field_exists(iter->status))
		*failed = iter->status < 0;
	return iter_pass_bytes(pos, from, done);
}

/*
 * iomap_iter's flags (include/linux/iomap.h; bits only added, never
 * moved): a buffered write(2) (iomap_file_buffered_write) is IOMAP_WRITE,
 * maybe with NOWAIT or DONTCACHE, never with ZERO, REPORT, FAULT, DIRECT,
 * UNSHARE or DAX: zeroing, fiemap, page faults, direct I/O, unsharing.
 */
#define IOMAP_FLAG_WRITE	(1U << 0)
#define IOMAP_FLAGS_NOT_WRITE2	((1U << 1) | (1U << 2) | (1U << 3) | (1U << 4) | \
				 (1U << 7) | (1U << 8))

#endif /* IOMAPDIRTY_CORE_FIXES_BPF_H */
