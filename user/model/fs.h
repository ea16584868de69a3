/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a filesystem's device names: its MAJ:MIN, type, mount point and
 * block size. host/fsinfo.c fills these from the mount table; renderers
 * only read them, through a struct host_lookup (model/files.h).
 */
#ifndef IOMAPDIRTY_MODEL_FS_H
#define IOMAPDIRTY_MODEL_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsinfo {
	uint32_t dev;		/* kernel dev_t */
	char fstype[32];
	char mount[4096];
	uint64_t block_bytes;	/* 0 when unknown */
	bool iomap;		/* uses iomap buffered writeback */
	/* ext2/3/4 (ext4's driver): buffer heads, the buffer-head backend's */
	bool buffer_heads;
	/* btrfs: the btrfs backend's (dev: the subvolume's, as stat gives) */
	bool btrfs;
	/* ext4 mounted data=journal: its file data goes through the journal */
	bool data_journal;
};

/* Kernel dev_t encoding, as in the kernel's MKDEV(). */
static inline uint32_t kdev_make(unsigned int major, unsigned int minor)
{
	return (major << 20) | minor;
}
static inline unsigned int kdev_major(uint32_t dev) { return dev >> 20; }
static inline unsigned int kdev_minor(uint32_t dev) { return dev & 0xfffff; }
/* "MAJ:MIN", as /proc/self/mountinfo and the reports write it. */
void kdev_name(uint32_t dev, char *buf, size_t len);

#endif
