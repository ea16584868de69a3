/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block-layer matching (verify): each data block the submit moment sends
 * (submit.bpf.h) is remembered by its physical address in pending_phys;
 * bio.bpf.c's program finds them in the write bios that reach the block
 * layer and tallies, per device, bios and bytes that carried our data
 * and those that did not (journal, metadata, other writers).
 */
#ifndef IOMAPDIRTY_BIO_BPF_H
#define IOMAPDIRTY_BIO_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

/* Physical blocks submitted as data, waiting for their bio. */
typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);		/* resized by --max-pages */
	__type(key, struct phys_key);
	__type(value, struct phys_origin);	/* where the submit hook placed it */
} pending_phys_map_t;
SHARED_MAP(pending_phys_map_t, pending_phys);

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* block device */
	__type(value, __u32);			/* block bits of its filesystem */
} dev_block_bits_map_t;
SHARED_MAP(dev_block_bits_map_t, dev_block_bits);

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* block device */
	__type(value, struct bio_stats);
} bio_stats_map_t;
SHARED_MAP(bio_stats_map_t, bio_stats_map);

/*
 * One write bio on its device: 'data' of its 'size' bytes were submitted
 * data ('all_data': every block of it), the rest journal, metadata or
 * other writers'. Shared by bio.bpf.c (iomap's devices) and the
 * buffer-head backend (buffer_heads.bpf.c, ext4's).
 */
static __always_inline void bio_stats_add(struct bio_stats *st, __u64 data, __u64 size,
					  bool all_data)
{
	__sync_fetch_and_add(&st->write_bios, 1);
	if (data && all_data)
		__sync_fetch_and_add(&st->matched_bios, 1);
	else if (data)
		__sync_fetch_and_add(&st->partial_bios, 1);
	else
		__sync_fetch_and_add(&st->unmatched_bios, 1);
	__sync_fetch_and_add(&st->matched_bytes, data);
	__sync_fetch_and_add(&st->unmatched_bytes, size - data);
}

#endif /* IOMAPDIRTY_BIO_BPF_H */
