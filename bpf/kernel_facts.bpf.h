/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel readers: what the programs need of an inode, an iomap and a
 * folio, read once per event, in two flavors where a program can have
 * either:
 *
 *   *_core  probe reads (BPF_CORE_READ): raw_tp, kprobe, and fentry
 *           programs whose arguments are declared as integers;
 *   *_btf   direct loads: tp_btf programs, whose arguments the verifier
 *           knows as kernel types (a load costs a few ns where a probe
 *           read costs ~30).
 *
 * What differs between kernel versions is in core_fixes.bpf.h.
 */
#ifndef IOMAPDIRTY_KERNEL_FACTS_BPF_H
#define IOMAPDIRTY_KERNEL_FACTS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "core_fixes.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

struct inode_facts {
	__u64 ino;
	__u64 size;		/* i_size: blocks past EOF are never dirty */
	__u64 mapping;		/* i_mapping: checks a recorded folio pointer */
	__u32 dev;
	__u32 nlink;
	__u32 blkbits;
	__u32 pad;
};

static __always_inline void inode_facts_core(struct inode *inode, struct inode_facts *fi,
					     bool for_writeback)
{
	fi->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	fi->ino = BPF_CORE_READ(inode, i_ino);
	fi->blkbits = BPF_CORE_READ(inode, i_blkbits);
	if (!for_writeback)
		return;
	fi->nlink = BPF_CORE_READ(inode, i_nlink);
	fi->size = BPF_CORE_READ(inode, i_size);
	fi->mapping = (__u64)BPF_CORE_READ(inode, i_mapping);
}

/* Only where 'inode' is a BTF-typed pointer (tp_btf arguments). */
static __always_inline void inode_facts_btf(struct inode *inode, struct inode_facts *fi,
					    bool for_writeback)
{
	fi->dev = inode->i_sb->s_dev;
	fi->ino = inode->i_ino;
	fi->blkbits = inode->i_blkbits;
	if (!for_writeback)
		return;
	fi->nlink = inode->i_nlink;
	fi->size = inode->i_size;
	fi->mapping = (__u64)inode->i_mapping;
}

static __always_inline void inode_ids(struct inode *inode, __u32 *dev, __u64 *ino)
{
	*dev = BPF_CORE_READ(inode, i_sb, s_dev);
	*ino = BPF_CORE_READ(inode, i_ino);
}

/* What the submit hook needs of the iomap the range is mapped by. */
struct iomap_facts {
	__u64 offset;
	__u64 length;
	__u64 addr;		/* verify only */
	__u32 bdev;		/* verify only */
	__u16 type;
	/*
	 * 1: [offset, offset + length) is exactly the range sent, whatever
	 * the kernel's iomap tracepoints carry: a write bio's bio_vec (buffer
	 * heads), already at the block layer, so never waited for there
	 */
	__u16 exact;
};

static __always_inline void iomap_facts_core(struct iomap *iomap, struct iomap_facts *m)
{
	m->type = BPF_CORE_READ(iomap, type);
	m->offset = BPF_CORE_READ(iomap, offset);
	m->length = BPF_CORE_READ(iomap, length);
	if (track_physical) {
		m->addr = BPF_CORE_READ(iomap, addr);
		m->bdev = BPF_CORE_READ(iomap, bdev, bd_dev);
	}
}

/* Only where 'iomap' is a BTF-typed pointer (tp_btf arguments). */
static __always_inline void iomap_facts_btf(struct iomap *iomap, struct iomap_facts *m)
{
	m->type = iomap->type;
	m->offset = iomap->offset;
	m->length = iomap->length;
	if (track_physical) {
		m->addr = iomap->addr;
		m->bdev = iomap->bdev->bd_dev;
	}
}

static __always_inline unsigned long folio_flags(struct folio *folio)
{
	unsigned long flags = 0;

	if (folio_flags_read(folio, &flags))
		count(CNT_READ_FAILURES);
	return flags;
}

static __always_inline __u64 folio_bytes(struct folio *folio)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);
	__u64 order;

	if (!(folio_flags(folio) & head))
		return 1ULL << page_shift;
	/* read before page_shift: a volatile load kept across the read spills */
	order = folio_order_of(folio);
	return (1ULL << page_shift) << order;
}

/*
 * bpf_rdonly_cast() (6.2+): the verifier turns it into a register move and
 * the loads through its result into guarded loads (a fault reads 0), a few
 * ns where a probe read costs ~30 (a helper call, with this host's return
 * thunks). Weak: only the programs the plan loads where the kernel has it
 * (the *_ld programs, wb_fill_ld()) call it, so an older kernel, which
 * refuses a program with an unknown kfunc, never sees it.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * The word at a kernel address: with 'direct', a guarded load (read as
 * struct folio's index, an unsigned long, which the verifier gives as a
 * number, wherever that member is: a void * would be an untrusted pointer
 * on newer kernels); else a probe read. 0 if unreadable.
 */
static __always_inline __u64 kword(__u64 addr, bool direct)
{
	__u64 v = 0;

	if (direct) {
		struct folio *w = bpf_rdonly_cast((void *)(addr -
				bpf_core_field_offset(struct folio, index)),
				bpf_core_type_id_kernel(struct folio));

		return w->index;
	}
	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

/* What writeback reads of a folio. */
struct folio_head {
	__u64 mapping;
	__u64 index;
	__u64 priv;		/* iomap_folio_state (iomap_page in RFCv4) */
};

/*
 * One probe read where the three fields are adjacent in struct folio (every
 * kernel so far: the offsets are relocated at load, the test is constant),
 * three otherwise; with 'direct', three guarded loads.
 */
static __always_inline int folio_head_read(struct folio *folio, struct folio_head *h,
					   bool direct)
{
	__u32 at = bpf_core_field_offset(struct folio, mapping);

	if (direct) {
		h->mapping = kword((__u64)folio + at, true);
		h->index = kword((__u64)folio + bpf_core_field_offset(struct folio, index), true);
		h->priv = kword((__u64)folio + bpf_core_field_offset(struct folio, private), true);
		return 0;
	}
	if (bpf_core_field_offset(struct folio, index) == at + 8 &&
	    bpf_core_field_offset(struct folio, private) == at + 16)
		return bpf_probe_read_kernel(h, sizeof(*h), (void *)folio + at);
	h->mapping = (__u64)BPF_CORE_READ(folio, mapping);
	h->index = BPF_CORE_READ(folio, index);
	h->priv = (__u64)BPF_CORE_READ(folio, private);
	return 0;
}

#endif /* IOMAPDIRTY_KERNEL_FACTS_BPF_H */
