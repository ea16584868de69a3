// SPDX-License-Identifier: GPL-2.0
/*
 * Entry points on tracepoints. Each hook has two programs: tp_btf ("btf_"
 * names), whose arguments the verifier knows as kernel types, so fields
 * are plain loads (kernel_facts.bpf.h's *_btf readers); and raw_tp ("tp_"
 * names), where every field is a probe read, for kernels or policies that
 * refuse tp_btf. The plan says which one is attached. Each program reads
 * its arguments and calls its moment: write.bpf.h, writeback.bpf.h,
 * submit.bpf.h. A tracepoint renamed between kernels (iomap_writepage,
 * iomap_writepage_map in 6.1-6.16) keeps one program pair, its section
 * naming one of the names: the engine binds a tp_btf program to the
 * plan's tracepoint before it is loaded, and attaches a raw_tp by name.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fs_kind.bpf.h"
#include "kernel_facts.bpf.h"
#include "submit.bpf.h"
#include "write.bpf.h"
#include "writeback.bpf.h"

/*
 * iomap_iter, every iomap user's loop over mappings. An operation's first
 * call (no mapping yet: iomap.length 0) gives the request, [pos, pos +
 * len), before anything is copied: its page records and its call, as XFS's
 * own tracepoint would. Each later call ends a pass, and the iter says
 * which bytes the pass committed (core_fixes.bpf.h): the per-file sums
 * (always-on, run's other processes) count those. A pass that ended in an
 * error (a copy that faulted half way) ends the operation with [pos, pos
 * + len) never copied: the request's records give it back. Only buffered
 * write(2)s (the flags), only filesystems written back through iomap (a
 * block device's page cache is written with buffer heads: a record made
 * for it would never end).
 */
static __always_inline bool iomap_iter_is_write(unsigned int flags)
{
	return (flags & IOMAP_FLAG_WRITE) && !(flags & IOMAP_FLAGS_NOT_WRITE2);
}

/* A pass's end needs the file only for the sums, or to give bytes back. */
static __always_inline bool pass_end_counts(__u64 bytes, bool failed)
{
	return failed || (bytes && (always_on() || count_others));
}

/*
 * The first call (no mapping: length 0) requests [pos, pos + len); a
 * later one committed 'bytes' and, failed, left [pos, pos + len) uncopied.
 */
static __always_inline void iomap_iter_seen(const struct inode_facts *fi, __u64 length,
					    __u64 pos, __u64 len, __u64 bytes, bool failed)
{
	if (!length) {
		write_seen(fi, pos, len, 0, 1);
		return;
	}
	write_seen(fi, 0, 0, bytes, 0);		/* the sums only */
	if (failed)
		record_write_uncopied(fi, pos, len);
}

SEC("tp_btf/iomap_iter")
int BPF_PROG(btf_iomap_iter_write, struct iomap_iter *iter, const void *ops,
	     unsigned long caller)
{
	struct inode_facts fi = {};
	__u64 bytes = 0;
	bool failed = false;
	struct inode *inode;

	if (!iter || !iomap_iter_is_write(iter->flags))
		return 0;
	inode = iter->inode;
	if (iter->iomap.length)
		bytes = iomap_iter_committed_btf(iter, &failed);
	if (!inode || (iter->iomap.length && !pass_end_counts(bytes, failed)) ||
	    !fs_kind_watched(fs_kind_of_magic(inode->i_sb->s_magic))) {
		count(CNT_WRITE_EVENTS);
		return 0;
	}
	inode_facts_btf(inode, &fi, false);
	iomap_iter_seen(&fi, iter->iomap.length, iter->pos, iter->len, bytes, failed);
	return 0;
}

SEC("raw_tp/iomap_iter")
int BPF_PROG(tp_iomap_iter_write, struct iomap_iter *iter, const void *ops,
	     unsigned long caller)
{
	struct inode_facts fi = {};
	__u64 length, bytes = 0;
	bool failed = false;
	struct inode *inode;

	if (!iomap_iter_is_write(BPF_CORE_READ(iter, flags)))
		return 0;
	inode = BPF_CORE_READ(iter, inode);
	length = BPF_CORE_READ(iter, iomap.length);
	if (length)
		bytes = iomap_iter_committed(iter, &failed);
	if (!inode || (length && !pass_end_counts(bytes, failed)) ||
	    !fs_kind_watched(fs_kind_of(inode))) {
		count(CNT_WRITE_EVENTS);
		return 0;
	}
	inode_facts_core(inode, &fi, false);
	iomap_iter_seen(&fi, length, BPF_CORE_READ(iter, pos), BPF_CORE_READ(iter, len),
			bytes, failed);
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(btf_xfs_buffered_write, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode_facts fi = {};
	__u64 bytes;

	if (!iocb || !from || !iocb->ki_filp)
		return 0;
	bytes = from->count;
	if (!bytes) {
		count(CNT_WRITE_EVENTS);
		return 0;
	}
	inode_facts_btf(iocb->ki_filp->f_inode, &fi, false);
	record_write(&fi, iocb->ki_pos, bytes);
	return 0;
}

SEC("raw_tp/xfs_file_buffered_write")
int BPF_PROG(tp_xfs_buffered_write, struct kiocb *iocb, struct iov_iter *from)
{
	record_write_core(BPF_CORE_READ(iocb, ki_filp, f_inode),
			  BPF_CORE_READ(iocb, ki_pos), BPF_CORE_READ(from, count));
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode_facts fi = {};
	struct inode *inode;

	count(CNT_DIRTY_FOLIO_EVENTS);
	/* some tracepoint arguments may be NULL: the verifier insists */
	if (!mapping || !folio)
		return 0;
	inode = mapping->host;
	/* other filesystems' folios are never written back through iomap:
	 * a record made for one would stay until the end (bpf/unwatched.bpf.c
	 * counts them instead) */
	if (!inode || !fs_kind_watched(fs_kind_of(inode)))
		return 0;
	inode_facts_btf(inode, &fi, false);
	record_dirty_folio(&fi, (__u64)folio, folio->index);
	return 0;
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(tp_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *inode = BPF_CORE_READ(mapping, host);
	struct inode_facts fi = {};

	count(CNT_DIRTY_FOLIO_EVENTS);
	if (!inode)
		return 0;
	if (!fs_kind_watched(fs_kind_of(inode)))
		return 0;
	inode_facts_core(inode, &fi, false);
	record_dirty_folio(&fi, (__u64)folio, BPF_CORE_READ(folio, index));
	return 0;
}

/* 6.17+ iomap_writeback_folio, 6.1-6.16 iomap_writepage: (inode, pos, len) */
static __always_inline void wb_folio_btf(struct inode *inode, const void *inode_slot,
					 loff_t pos, u64 len, bool direct)
{
	struct inode_facts fi = {};

	if (!inode)
		return;
	inode_facts_btf(inode, &fi, true);
	wb_begin(&fi, 0, inode_slot, NULL, pos, len, direct);
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(btf_wb_folio, struct inode *inode, loff_t pos, u64 len)
{
	wb_folio_btf(inode, &ctx[0], pos, len, false);
	return 0;
}

/* The same reading the kernel with guarded loads: where it has bpf_rdonly_cast */
SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(btf_wb_folio_ld, struct inode *inode, loff_t pos, u64 len)
{
	wb_folio_btf(inode, &ctx[0], pos, len, true);
	return 0;
}

SEC("raw_tp/iomap_writeback_folio")
int BPF_PROG(tp_wb_folio, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};

	inode_facts_core(inode, &fi, true);
	wb_begin(&fi, (__u64)inode, NULL, NULL, pos, len, false);
	return 0;
}

/* 6.17+ iomap_add_to_ioend, 6.9-6.16 iomap_writepage_map */
SEC("tp_btf/iomap_add_to_ioend")
int BPF_PROG(btf_submit_range, struct inode *inode, u64 pos, unsigned int dirty_len,
	     struct iomap *iomap)
{
	struct iomap_facts m = {};

	if (!inode || !iomap)
		return 0;
	iomap_facts_btf(iomap, &m);
	wb_submit(inode->i_sb->s_dev, inode->i_ino, pos, dirty_len, &m);
	return 0;
}

SEC("raw_tp/iomap_add_to_ioend")
int BPF_PROG(tp_submit_range, struct inode *inode, u64 pos, unsigned int dirty_len,
	     struct iomap *iomap)
{
	struct iomap_facts m = {};
	__u32 dev;
	__u64 ino;

	inode_ids(inode, &dev, &ino);
	iomap_facts_core(iomap, &m);
	wb_submit(dev, ino, pos, dirty_len, &m);
	return 0;
}

/* 6.1-6.8 iomap_writepage_map: one event per block mapped */
SEC("tp_btf/iomap_writepage_map")
int BPF_PROG(btf_submit_block, struct inode *inode, struct iomap *iomap)
{
	struct iomap_facts m = {};

	if (!inode || !iomap)
		return 0;
	iomap_facts_btf(iomap, &m);
	wb_submit(inode->i_sb->s_dev, inode->i_ino, 0, 0, &m);
	return 0;
}

SEC("raw_tp/iomap_writepage_map")
int BPF_PROG(tp_submit_block, struct inode *inode, struct iomap *iomap)
{
	struct iomap_facts m = {};
	__u32 dev;
	__u64 ino;

	inode_ids(inode, &dev, &ino);
	iomap_facts_core(iomap, &m);
	wb_submit(dev, ino, 0, 0, &m);
	return 0;
}

SEC("raw_tp/iomap_invalidate_folio")
int BPF_PROG(tp_invalidate, struct inode *inode, loff_t off, u64 len)
{
	record_invalidate(inode, off, len);
	return 0;
}
