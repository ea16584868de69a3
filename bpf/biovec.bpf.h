/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A write bio's blocks placed from its own pages (verify): the bio_vecs
 * say which page carries each byte (bv_page, bv_offset, bv_len); the
 * page's folio gives the file (mapping->host) and the offset (folio
 * index, the page's place in the folio). This is the block layer's own
 * word on which part of which file a bio wrote, whatever the iomap
 * tracepoints carry; bio.bpf.c compares it with the submit hook's
 * placement. Included by bio.bpf.c, and by buffer_heads.bpf.c (ext4
 * writeback: its bios are its only writeback event).
 */
#ifndef IOMAPDIRTY_BIOVEC_BPF_H
#define IOMAPDIRTY_BIOVEC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "kernel_facts.bpf.h"
#include "settings.bpf.h"

/* BIO_MAX_VECS is 256; a bio never holds more, this is a sanity bound */
#define BIOVEC_MAX		1024
/* bio_vecs one block may span (64 KiB blocks in 4 KiB pages: 16) */
#define BIOVEC_PER_BLOCK_MAX	32

/* Where the walk is in the bio's vector: kept in a map value (bio.bpf.c). */
struct biovec_pos {
	__u64 vecs;		/* bi_io_vec, a kernel pointer */
	__u64 page;		/* bv_page of the current bio_vec */
	__u32 vcnt;		/* bi_vcnt */
	__u32 vidx;		/* the next bio_vec to load */
	__u32 off;		/* from page's start: bv_offset + bytes consumed */
	__u32 left;		/* bytes left in the current bio_vec */
};

/* A block's place in its file, from the bio's page. */
struct biovec_place {
	__u64 ino;
	__u64 offset;
	__u64 folio_index;	/* the folio's first page */
	__u32 dev;
};

/* Loads bio_vec v->vidx; false past bi_vcnt (or the bound). */
static __always_inline bool biovec_load(struct biovec_pos *v)
{
	struct bio_vec *bv;

	if (v->vidx >= v->vcnt || v->vidx >= BIOVEC_MAX)
		return false;
	bv = (void *)(v->vecs + (__u64)v->vidx * bpf_core_type_size(struct bio_vec));
	v->page = (__u64)BPF_CORE_READ(bv, bv_page);
	v->off = BPF_CORE_READ(bv, bv_offset);
	v->left = BPF_CORE_READ(bv, bv_len);
	v->vidx++;
	return true;
}

/* Starts the walk at the bio's iterator (bi_idx, bi_bvec_done). */
static __always_inline bool biovec_start(struct biovec_pos *v, struct bio *bio)
{
	__u32 done = BPF_CORE_READ(bio, bi_iter.bi_bvec_done);

	v->vecs = (__u64)BPF_CORE_READ(bio, bi_io_vec);
	v->vcnt = BPF_CORE_READ(bio, bi_vcnt);
	v->vidx = BPF_CORE_READ(bio, bi_iter.bi_idx);
	v->left = 0;
	if (!v->vecs || !biovec_load(v) || done >= v->left)
		return false;
	v->off += done;
	v->left -= done;
	return true;
}

/* Moves the walk on by bytes; false when the bio_vecs ran out first. */
static __always_inline bool biovec_skip(struct biovec_pos *v, __u64 bytes)
{
	for (int k = 0; k < BIOVEC_PER_BLOCK_MAX; k++) {
		if (bytes < v->left) {
			v->off += bytes;
			v->left -= bytes;
			return true;
		}
		bytes -= v->left;
		v->left = 0;
		if (!bytes)
			return true;	/* the next block loads the next bio_vec */
		if (!biovec_load(v))
			return false;
	}
	return false;
}

/*
 * Places the byte the walk is at: its page (bv_offset may pass a page
 * when a bio_vec holds a whole folio or merged pages), the page's folio
 * (compound_head, bit 0 on a tail page), the folio's file and index.
 * False for a page of no file (anonymous, journal and metadata buffers).
 */
static __always_inline bool biovec_place(const struct biovec_pos *v, struct biovec_place *p)
{
	__u64 psize = bpf_core_type_size(struct page);
	__u64 page_mask = (1ULL << page_shift) - 1;
	struct page *pg, *head;
	struct address_space *mapping;
	unsigned long ch;
	struct inode *host;

	if (!v->left)
		return false;
	pg = (void *)(v->page + (v->off >> page_shift) * psize);
	ch = BPF_CORE_READ(pg, compound_head);
	head = ch & 1 ? (void *)(ch - 1) : pg;
	mapping = BPF_CORE_READ((struct folio *)head, mapping);
	/* the low bits mark anonymous and movable mappings */
	if (!mapping || ((__u64)mapping & 3))
		return false;
	host = BPF_CORE_READ(mapping, host);
	if (!host)
		return false;
	inode_ids(host, &p->dev, &p->ino);
	p->folio_index = BPF_CORE_READ((struct folio *)head, index);
	p->offset = ((p->folio_index +
		      ((__u64)pg - (__u64)head) / psize) << page_shift) + (v->off & page_mask);
	return true;
}

#endif /* IOMAPDIRTY_BIOVEC_BPF_H */
