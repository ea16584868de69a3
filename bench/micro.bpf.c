// SPDX-License-Identifier: GPL-2.0
/*
 * Building blocks of iomapdirty's per-event cost, each as its own program
 * on xfs_file_buffered_write (one event per write(2)), measured by the
 * kernel's BPF statistics over the same events:
 *
 *   empty        tp_btf program that returns: the floor of this hook
 *   reads_core   the 12 field reads tp_xfs_buffered_write does before its
 *                map work, as BPF_CORE_READ in a raw_tp program (each hop
 *                is a bpf_probe_read_kernel call), as the tool does today
 *   reads_btf    the same reads as direct loads in a tp_btf program
 *   lookup_big   one hash lookup of a (dev, ino, index) key in a
 *                131072-entry preallocated hash (the size the page records'
 *                hash had at the default --max-pages before they moved to
 *                the set-associative page_sets, bpf/page_table.bpf.h)
 *   lookup_small the same lookup in a 1024-entry hash
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

__u64 sink;

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(empty) { return 0; }

SEC("raw_tp/xfs_file_buffered_write")
int BPF_PROG(reads_core, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = BPF_CORE_READ(iocb, ki_filp, f_inode);
	struct dentry *dentry = BPF_CORE_READ(iocb, ki_filp, f_path.dentry);
	__u64 v = BPF_CORE_READ(iocb, ki_pos) + BPF_CORE_READ(from, count);

	v += BPF_CORE_READ(inode, i_sb, s_dev) + BPF_CORE_READ(inode, i_ino);
	v += BPF_CORE_READ(inode, i_nlink) + BPF_CORE_READ(inode, i_blkbits);
	v += dentry ? 1 : 0;
	sink = v;
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(reads_btf, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = iocb->ki_filp->f_inode;
	struct dentry *dentry = iocb->ki_filp->f_path.dentry;
	__u64 v = iocb->ki_pos + from->count;

	v += inode->i_sb->s_dev + inode->i_ino;
	v += inode->i_nlink + inode->i_blkbits;
	v += dentry ? 1 : 0;
	sink = v;
	return 0;
}

struct micro_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
	__u64 index;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);
	__type(key, struct micro_key);
	__type(value, __u64);
} big SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct micro_key);
	__type(value, __u64);
} small SEC(".maps");

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(lookup_big, struct kiocb *iocb, struct iov_iter *from)
{
	struct micro_key k = { .ino = iocb->ki_filp->f_inode->i_ino,
			       .index = iocb->ki_pos >> 12 };
	__u64 *p = bpf_map_lookup_elem(&big, &k);

	sink += p ? *p : 1;
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(lookup_small, struct kiocb *iocb, struct iov_iter *from)
{
	struct micro_key k = { .ino = iocb->ki_filp->f_inode->i_ino,
			       .index = iocb->ki_pos >> 12 };
	__u64 *p = bpf_map_lookup_elem(&small, &k);

	sink += p ? *p : 1;
	return 0;
}
