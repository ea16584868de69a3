// SPDX-License-Identifier: GPL-2.0
/*
 * The btrfs backend (issue 26): btrfs's regular files with blocks as large
 * as their folios (4 KiB blocks on 4 KiB pages, no large folios), counted
 * with the same page records, folio contexts and sums as iomap's, from
 * tracepoints every kernel has (tp_btf; btrfs's own tracepoints give no
 * byte of a write: its ranges are rounded to blocks).
 *
 * - write: the write syscalls (write, pwrite64, writev, pwritev,
 *   pwritev2) into a btrfs regular file not opened O_DIRECT. At the
 *   syscall's entry the request, [pos, pos + count), makes the page
 *   records and the call, before anything is copied (a folio the copy
 *   dirties may be written back before the syscall returns); at its exit
 *   the bytes it wrote go to the sums, and what it did not write is taken
 *   back from the records, as iomap_iter's first and last passes do
 *   (tracepoint.bpf.c). The request is kept for the exit in task storage.
 *   Not seen: io_uring, aio, splice and in-kernel writers (nfsd, a loop
 *   device's file): their folios are counted at writeback with no
 *   application bytes, as a mmap store's are.
 * - dirty: writeback_dirty_folio, a btrfs folio going clean -> dirty:
 *   its one block is dirty (the records' bh_dirty, as ext4's buffers).
 * - writeback and submit: btrfs's write bios, walked by buffer_heads.bpf.c
 *   (btrfs_bio_counted(): the btrfs's own devices, no clone).
 * - forget: mm_filemap_delete_from_page_cache, a folio leaving the page
 *   cache (truncate, hole punch): its pages' records.
 * A btrfs file is named by its subvolume's device (btrfs_subvol_dev()), as
 * stat() names it: inode numbers repeat across subvolumes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "block_dirty.bpf.h"
#include "fs_kind.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "write.bpf.h"

/* the write syscalls' numbers, and open(2)'s flags, per architecture */
#if defined(__TARGET_ARCH_x86)
#define NR_WRITE	1
#define NR_PWRITE64	18
#define NR_WRITEV	20
#define NR_PWRITEV	296
#define NR_PWRITEV2	328
#define O_DIRECT_BIT	040000
#define TS_COMPAT_BIT	0x0002	/* arch/x86/include/asm/thread_info.h */
#elif defined(__TARGET_ARCH_powerpc)
#define NR_WRITE	4
#define NR_PWRITE64	180
#define NR_WRITEV	146
#define NR_PWRITEV	321
#define NR_PWRITEV2	381
#define O_DIRECT_BIT	0400000
#else
#error "the write syscalls' numbers of this architecture are not known"
#endif
#define O_APPEND_BIT	02000
#define IOV_MAX_COUNT	1024	/* UIO_MAXIOV */

/* One write syscall's request, from its entry to its exit. */
struct btrfs_write_req {
	__u64 pos;
	__u64 requested;
	struct inode_facts fi;
	__u32 live;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct btrfs_write_req);
} btrfs_writes SEC(".maps");

/* A btrfs regular file the backend counts, named by its subvolume. */
static __always_inline bool btrfs_facts(struct inode *inode, struct inode_facts *fi,
					bool for_writeback)
{
	if (!inode || walked_kind(inode) != FS_KIND_BTRFS)
		return false;
	inode_facts_core(inode, fi, for_writeback);
	fi->dev = btrfs_subvol_dev(inode);
	return fi->dev != 0;
}

static __always_inline int write_nr_kind(long id)
{
	switch (id) {
	case NR_WRITE:
	case NR_WRITEV:
		return 1;	/* at the file's position */
	case NR_PWRITE64:
	case NR_PWRITEV:
	case NR_PWRITEV2:
		return 2;	/* at the given offset (pwritev2: -1 = the position) */
	}
	return 0;
}

static __always_inline struct file *fd_file(struct task_struct *task, __u64 fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (!fds || bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]))
		return NULL;
	return file;
}

struct iov_sum {
	const struct iovec *iov;
	__u64 total;
};

static long iov_add(__u64 i, void *data)
{
	struct iov_sum *s = data;
	__u64 len = 0;

	if (bpf_probe_read_user(&len, sizeof(len), &s->iov[i].iov_len))
		return 1;
	s->total += len;
	return 0;
}

/* A 32-bit process's syscall numbers are another table's (x86 only). */
static __always_inline bool task_compat(struct task_struct *task)
{
#if defined(__TARGET_ARCH_x86)
	if (bpf_core_field_exists(struct thread_info, status))
		return BPF_CORE_READ(task, thread_info.status) & TS_COMPAT_BIT;
#endif
	return false;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(btf_btrfs_write_enter, struct pt_regs *regs, long id)
{
	struct task_struct *task;
	struct btrfs_write_req *req;
	struct inode_facts fi = {};
	struct iov_sum sum = {};
	struct inode *inode;
	struct file *file;
	unsigned int flags;
	__u64 pos, requested;
	int how = write_nr_kind(id);

	if (!how)
		return 0;
	task = bpf_get_current_task_btf();
	if (task_compat(task))
		return 0;
	file = fd_file(task, PT_REGS_PARM1_CORE_SYSCALL(regs));
	if (!file)
		return 0;
	inode = BPF_CORE_READ(file, f_inode);
	flags = BPF_CORE_READ(file, f_flags);
	if ((flags & O_DIRECT_BIT) || !btrfs_facts(inode, &fi, false))
		return 0;
	count(CNT_BTRFS_WRITE_SYSCALLS);
	if (id == NR_WRITE || id == NR_PWRITE64) {
		requested = PT_REGS_PARM3_CORE_SYSCALL(regs);
	} else {
		sum.iov = (const struct iovec *)PT_REGS_PARM2_CORE_SYSCALL(regs);
		bpf_loop(PT_REGS_PARM3_CORE_SYSCALL(regs) & (IOV_MAX_COUNT * 2 - 1),
			 iov_add, &sum, 0);
		requested = sum.total;
	}
	pos = how == 2 ? PT_REGS_PARM4_CORE_SYSCALL(regs) : BPF_CORE_READ(file, f_pos);
	if (how == 2 && (long)pos == -1)
		pos = BPF_CORE_READ(file, f_pos);
	/* appended, at any offset asked (pwrite(2) on Linux too) */
	if (flags & O_APPEND_BIT)
		pos = BPF_CORE_READ(inode, i_size);
	if (!requested || (long)requested < 0)
		return 0;
	req = bpf_task_storage_get(&btrfs_writes, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!req) {
		count(CNT_BTRFS_WRITE_UNKEPT);
		return 0;
	}
	req->pos = pos;
	req->requested = requested;
	req->fi = fi;
	req->live = 1;
	write_seen(&fi, pos, requested, 0, 1);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(btf_btrfs_write_exit, struct pt_regs *regs, long ret)
{
	struct btrfs_write_req *req;
	__u64 done;

	req = bpf_task_storage_get(&btrfs_writes, bpf_get_current_task_btf(), NULL, 0);
	if (!req || !req->live)
		return 0;
	req->live = 0;
	done = ret > 0 ? ret : 0;
	if (done > req->requested)
		done = req->requested;
	write_seen(&req->fi, 0, 0, done, 0);		/* the sums only */
	if (done < req->requested)
		record_write_uncopied(&req->fi, req->pos + done, req->requested - done);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_btrfs_dirty, struct folio *folio, struct address_space *mapping)
{
	struct inode_facts fi = {};
	__u64 index;

	if (!folio || !mapping || always_on() || !btrfs_facts(mapping->host, &fi, false))
		return 0;
	count(CNT_BTRFS_DIRTY_EVENTS);
	if (!dev_wanted(fi.dev))
		return 0;
	index = folio->index;
	/* a folio of several blocks is left out at its write bio, counted */
	bh_block_dirtied(&fi, index << page_shift, index, true, task_wanted());
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(btf_btrfs_forget, struct folio *folio)
{
	struct address_space *mapping;
	struct inode_facts fi = {};

	if (!folio)
		return 0;
	mapping = BPF_CORE_READ(folio, mapping);
	if (!mapping || ((__u64)mapping & 3) ||
	    !btrfs_facts(BPF_CORE_READ(mapping, host), &fi, false))
		return 0;
	record_invalidate_ids(fi.dev, fi.ino, (__u64)BPF_CORE_READ(folio, index) << page_shift,
			      folio_bytes(folio));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
