/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The folio at a page index of a file, looked up in the page cache's
 * xarray (include/linux/xarray.h, lib/xarray.c: xas_load()). The always-on
 * level keeps no page records, so in tracepoint mode, whose writeback
 * event has no folio argument, this is where writeback finds the folio
 * whose dirty bitmap it reads. The kernel has just walked the same nodes
 * to find the folio it writes back: they are in the cache.
 *
 * Entry encoding (stable since the xarray replaced the radix tree, 4.20):
 * the two low bits 10 mark an internal entry; an internal entry above
 * 4096 is a node (pointer + 2), one below (chunk size - 1) << 2 a sibling
 * of a multi-index entry (a large folio: its slot number), others (retry,
 * zero) say the entry is not there now; bit 0 set is a value (shadow)
 * entry. The chunk size is read from BTF (64; 16 with CONFIG_BASE_SMALL).
 * A node's shift is its parent's minus the chunk's bits (xas_create()),
 * so only the top node's is read: one probe read per level below it.
 * Races (a folio freed or moved meanwhile) are caught by the caller, who
 * checks the folio's mapping and index.
 */
#ifndef IOMAPDIRTY_PAGE_CACHE_BPF_H
#define IOMAPDIRTY_PAGE_CACHE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "kernel_facts.bpf.h"

#define XA_MAX_LEVELS	11	/* 64-bit indexes, at least 6 bits a level */

static __always_inline bool xa_entry_internal(__u64 e)
{
	return (e & 3) == 2;
}

/* Slot 'offset' of the node whose address is 'node'; 0 if unreadable. */
static __always_inline __u64 xa_slot(__u64 node, __u64 offset, bool direct)
{
	return kword(node + bpf_core_field_offset(struct xa_node, slots) +
		     offset * sizeof(void *), direct);
}

/* A node's shift (a byte). */
static __always_inline __u32 xa_shift(__u64 node, bool direct)
{
	if (direct) {
		struct xa_node *n = bpf_rdonly_cast((void *)node,
						    bpf_core_type_id_kernel(struct xa_node));

		return n->shift;
	}
	return BPF_CORE_READ((struct xa_node *)node, shift);
}

/*
 * The folio at 'index' in the page cache of 'mapping', or NULL; 'direct':
 * guarded loads instead of probe reads (kword()).
 */
static __always_inline struct folio *page_cache_folio(__u64 mapping, __u64 index,
						      bool direct)
{
	__u64 chunk = bpf_core_field_size(struct xa_node, slots) / sizeof(void *);
	__u64 mask = chunk - 1, step = chunk == 16 ? 4 : 6, entry, node = 0, offset;
	__u32 shift = 0;

	entry = kword(mapping + bpf_core_field_offset(struct address_space, i_pages) +
		      bpf_core_field_offset(struct xarray, xa_head), direct);
	for (int level = 0; level < XA_MAX_LEVELS; level++) {
		if (!xa_entry_internal(entry) || entry <= 4096)
			break;
		if (level && shift < step)
			return NULL;	/* a node below the bottom: not a tree */
		node = entry - 2;
		if (level == 0)
			shift = xa_shift(node, direct);
		else
			shift -= step;
		if (shift >= 64 || (level == 0 && (index >> shift) > mask))
			return NULL;	/* beyond the tree */
		offset = (index >> shift) & mask;
		entry = xa_slot(node, offset, direct);
		if (xa_entry_internal(entry) && entry < (((chunk - 1) << 2) | 2))
			entry = xa_slot(node, entry >> 2, direct);	/* a sibling */
	}
	if (!entry || (entry & 3) || (!node && index))
		return NULL;	/* empty, value, retry; a lone head is index 0 */
	return (struct folio *)entry;
}

#endif /* IOMAPDIRTY_PAGE_CACHE_BPF_H */
