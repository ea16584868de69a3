/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which filesystem a superblock belongs to, from its magic number
 * (include/fs_kinds.h): one load, and a switch the compiler turns into
 * compares. Used where a hook fires for every filesystem (the clean ->
 * dirty tracepoint) to keep apart what the iomap figures count.
 */
#ifndef IOMAPDIRTY_FS_KIND_BPF_H
#define IOMAPDIRTY_FS_KIND_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "fs_kinds.h"
#include "settings.bpf.h"

static __always_inline enum fs_kind fs_kind_of_magic(unsigned long magic)
{
	switch (magic) {
#define FS_KIND_CASE(id, m, name, watched, why)	case m: return id;
	FS_KINDS(FS_KIND_CASE)
#undef FS_KIND_CASE
	}
	return FS_KIND_OTHER;
}

static __always_inline bool fs_kind_watched(enum fs_kind kind)
{
	switch (kind) {
#define FS_KIND_WATCHED(id, m, name, watched, why)	case id: return watched;
	FS_KINDS(FS_KIND_WATCHED)
	default:
		break;
#undef FS_KIND_WATCHED
	}
	return false;
}

/*
 * Written back with buffer heads, counted by the buffer-head backend
 * (bpf/buffer_heads.bpf.c) where the plan attaches it: ext4.
 */
static __always_inline bool fs_kind_bh(enum fs_kind kind)
{
	return kind == FS_KIND_EXT4;
}

static __always_inline enum fs_kind fs_kind_of(struct inode *inode)
{
	return fs_kind_of_magic(BPF_CORE_READ(inode, i_sb, s_magic));
}

/* fs/ext4/ext4.h: the mount options' data mode, delalloc, an inode flag */
#define EXT4_MOUNT_DATA_FLAGS_BITS	0x00C00
#define EXT4_MOUNT_JOURNAL_DATA_BITS	0x00400
#define EXT4_MOUNT_DELALLOC_BIT		0x8000000
#define EXT4_INODE_JOURNAL_DATA_BIT	14

/*
 * ext4_should_journal_data() for a regular file: the mount journals data
 * (data=journal), or the inode asks for it (chattr +j) on a mount without
 * delalloc (with delalloc, ext4 ignores the flag). ext4's types are read
 * at the offsets user space found in the BTF that has them (settings
 * ext4_*: vmlinux's, or the ext4 module's where ext4 is a module, as in
 * Debian's kernels, whose types CO-RE relocated against vmlinux alone
 * would not see); without them the plan attaches no ext4 backend.
 */
static __always_inline bool ext4_journals_data(struct inode *inode)
{
	unsigned int opt = 0;
	__u64 flags = 0;
	void *sbi;

	if (!ext4_layout_known)
		return false;
	sbi = BPF_CORE_READ(inode, i_sb, s_fs_info);
	if (!sbi || bpf_probe_read_kernel(&opt, sizeof(opt), sbi + ext4_sbi_mount_opt))
		return false;
	if ((opt & EXT4_MOUNT_DATA_FLAGS_BITS) == EXT4_MOUNT_JOURNAL_DATA_BITS)
		return true;
	if (opt & EXT4_MOUNT_DELALLOC_BIT)
		return false;
	/* i_flags is an unsigned long: its low bits are its first bytes only
	 * on a little-endian CPU, so it is read whole */
	bpf_probe_read_kernel(&flags, ext4_ei_flags_size == 8 ? 8 : 4,
			      (void *)inode - ext4_ei_vfs_inode + ext4_ei_flags);
	return (flags >> EXT4_INODE_JOURNAL_DATA_BIT) & 1;
}

/*
 * A file's kind: its filesystem's, with ext4's files whose data is
 * journalled apart (FS_KIND_EXT4_JOURNAL: not counted, named).
 */
static __always_inline enum fs_kind fs_kind_of_file(struct inode *inode)
{
	enum fs_kind kind = fs_kind_of(inode);

	if (kind == FS_KIND_EXT4 && ext4_journals_data(inode))
		return FS_KIND_EXT4_JOURNAL;
	return kind;
}

#endif /* IOMAPDIRTY_FS_KIND_BPF_H */
