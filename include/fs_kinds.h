/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filesystems told apart by their superblock's magic number (s_magic, one
 * load in BPF), shared by the BPF side (bpf/fs_kind.bpf.h) and user space
 * (user/output/unwatched.c):
 *   X(id, magic, name, watched, why)
 * watched  1: written back through iomap, the figures count it; 0: its
 *          folios dirtied are only counted per filesystem, as "not
 *          watched", and every observing command says so with 'why';
 *          ext4 and btrfs are counted instead where the plan attaches
 *          their backends (bpf/buffer_heads.bpf.c, bpf/btrfs.bpf.c:
 *          fs_kind_bio_walked()).
 * ext4 whose file data is journalled is a kind of its own, not counted
 * (FS_KIND_EXT4_JOURNAL), and so is btrfs with blocks smaller than the
 * page (FS_KIND_BTRFS_SUBPAGE).
 * The block device's own page cache (raw writes to /dev/X, and the
 * metadata buffers of a filesystem on it) has the bdev pseudo-filesystem's
 * magic; it is reported under the device's number (inode->i_rdev).
 */
#ifndef IOMAPDIRTY_FS_KINDS_H
#define IOMAPDIRTY_FS_KINDS_H

/*
 * A kind no superblock's magic names: ext4's files whose data is
 * journalled, told apart from ext4's by the mount's options and the
 * inode's flags (fs_kind_of_file(), bpf/fs_kind.bpf.h). Above 32 bits,
 * where no s_magic is.
 */
#define FS_MAGIC_NONE_EXT4_JOURNAL	0x1000000ef53ULL
/* btrfs with blocks smaller than a page (fs_kind_of_file()) */
#define FS_MAGIC_NONE_BTRFS_SUBPAGE	0x1009123683eULL

#define FS_KINDS(X)							\
	X(FS_KIND_OTHER, 0, "other", 0,					\
	  "not an iomap filesystem: no backend counts its writeback")	\
	X(FS_KIND_XFS, 0x58465342, "xfs", 1, NULL)			\
	X(FS_KIND_ZONEFS, 0x5a4f4653, "zonefs", 1, NULL)		\
	X(FS_KIND_GFS2, 0x01161970, "gfs2", 1, NULL)			\
	X(FS_KIND_EXT4, 0xef53, "ext4", 0,				\
	  "buffer heads (a dirty bit per block), not iomap: its backend needs " \
	  "tp_btf programs, not in this plan")				\
	X(FS_KIND_EXT4_JOURNAL, FS_MAGIC_NONE_EXT4_JOURNAL, "ext4 data=journal", 0, \
	  "ext4 journalling file data (data=journal, or chattr +j without "	\
	  "delalloc): the data goes to the journal first and to its place at "	\
	  "checkpoint, not through the writeback the buffer-head backend follows") \
	X(FS_KIND_BTRFS, 0x9123683e, "btrfs", 0,			\
	  "its own writeback, not iomap: its backend needs tp_btf "	\
	  "programs and btrfs's types in BTF, not in this plan")	\
	X(FS_KIND_BTRFS_SUBPAGE, FS_MAGIC_NONE_BTRFS_SUBPAGE, "btrfs subpage", 0, \
	  "btrfs with blocks smaller than the page: which blocks of a "	\
	  "folio are dirty is in btrfs's own subpage bitmap, which no hook " \
	  "of the btrfs backend reads")					\
	X(FS_KIND_BDEV, 0x62646576, "block device", 0,			\
	  "the device's own page cache (raw writes, or metadata of a "	\
	  "filesystem on it): written back with buffer heads, no backend") \
	X(FS_KIND_FUSE, 0x65735546, "fuse", 0,				\
	  "FUSE: its writeback cache goes through iomap (6.17+), but "	\
	  "writeback sends the server WRITE requests, not bios: no submit " \
	  "hook sees them, no backend")

enum fs_kind {
#define FS_KIND_ENUM(id, magic, name, watched, why)	id,
	FS_KINDS(FS_KIND_ENUM)
#undef FS_KIND_ENUM
	NR_FS_KINDS,
};

#endif /* IOMAPDIRTY_FS_KINDS_H */
