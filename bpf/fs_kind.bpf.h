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

#define S_IFMT_BITS	00170000
#define S_IFREG_BITS	0100000

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
 * Counted where the plan attaches its backend, at its write bios
 * (bpf/buffer_heads.bpf.c): ext4 (buffer heads) and btrfs (bpf/btrfs.bpf.c).
 */
static __always_inline bool fs_kind_bio_walked(enum fs_kind kind)
{
	return (bh_backend && kind == FS_KIND_EXT4) ||
	       (btrfs_backend && kind == FS_KIND_BTRFS);
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
 * journalled apart (FS_KIND_EXT4_JOURNAL: not counted, named), and btrfs
 * with blocks smaller than the page (FS_KIND_BTRFS_SUBPAGE: the same).
 */
static __always_inline enum fs_kind fs_kind_of_file(struct inode *inode)
{
	enum fs_kind kind = fs_kind_of(inode);

	if (kind == FS_KIND_EXT4 && ext4_journals_data(inode))
		return FS_KIND_EXT4_JOURNAL;
	if (kind == FS_KIND_BTRFS && BPF_CORE_READ(inode, i_sb, s_blocksize_bits) < page_shift)
		return FS_KIND_BTRFS_SUBPAGE;
	return kind;
}

/*
 * The device a btrfs file's stat() gives: its subvolume's (btrfs_root's
 * anon_dev), not the superblock's, since inode numbers repeat across the
 * subvolumes of one btrfs. Read at the offsets user space found in BTF
 * (settings btrfs_*, as ext4's above); 0 if unreadable.
 */
static __always_inline __u32 btrfs_subvol_dev(struct inode *inode)
{
	void *root = NULL;
	__u32 dev = 0;

	if (bpf_probe_read_kernel(&root, sizeof(root),
				  (void *)inode - btrfs_bi_vfs_inode + btrfs_bi_root) || !root)
		return 0;
	bpf_probe_read_kernel(&dev, sizeof(dev), root + btrfs_root_anon_dev);
	return dev;
}

/*
 * The kind of a regular file whose write bios a backend counts here (ext4,
 * btrfs), FS_KIND_OTHER for any other: not one whose data ext4 journals
 * (its bios are the journal's and the checkpoint's, fs_kind_of_file()),
 * nor a btrfs's own metadata (its btree inode is not a regular file).
 */
static __always_inline enum fs_kind walked_kind(struct inode *inode)
{
	__u16 mode = BPF_CORE_READ(inode, i_mode);
	enum fs_kind kind;

	if ((mode & S_IFMT_BITS) != S_IFREG_BITS)
		return FS_KIND_OTHER;
	kind = fs_kind_of_file(inode);
	return fs_kind_bio_walked(kind) ? kind : FS_KIND_OTHER;
}

#endif /* IOMAPDIRTY_FS_KIND_BPF_H */
