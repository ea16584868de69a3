/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filesystems: from a path or MAJ:MIN to device, type, block size, mount
 * (struct fsinfo, model/fs.h), read from the mount table.
 */
#ifndef IOMAPDIRTY_FSINFO_H
#define IOMAPDIRTY_FSINFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include "model/fs.h"

/*
 * 0, or a negative errno with a message in err: -EINVAL for a MAJ:MIN that
 * does not parse, -EOPNOTSUPP for a filesystem that is not iomap's, the
 * stat() error or -ENOENT for a path or device not found.
 */
int fsinfo_from_path(const char *path, struct fsinfo *fi, char *err, size_t len);
int fsinfo_from_dev(const char *majmin, struct fsinfo *fi, char *err, size_t len);
/* Fills what the mount table says of dev; false if not mounted. */
bool fsinfo_lookup_dev(uint32_t dev, struct fsinfo *fi);
/*
 * The k-th btrfs mount of the mount table (0, 1, ...): a btrfs names a
 * subvolume not mounted by itself by a device no mount has (stat's
 * st_dev), so what holds it is one of these. false past the last.
 */
bool fsinfo_btrfs_mount(int k, struct fsinfo *fi);

/*
 * --path.rootfs DIR: the host's root is mounted at DIR (fsinfo.c). 0, or
 * -ENOENT with a message when DIR or DIR/proc/1/mountinfo cannot be opened.
 */
int fsinfo_set_rootfs(const char *dir, char *err, size_t len);
/* open() of a host path (O_CLOEXEC added): under --path.rootfs, inside DIR */
int fsinfo_open(const char *path, int flags);
/* lstat() of a host path, the same way */
int fsinfo_lstat(const char *path, struct stat *st);

/* One line of /proc/self/mountinfo, its escapes (\040...) undone. */
struct mountinfo_line {
	uint32_t dev;		/* kernel dev_t */
	char mount[4096];
	char fstype[32];
	bool data_journal;	/* super options hold data=journal (ext4) */
};
/* 0, or -1 when the line is not one mountinfo writes. */
int mountinfo_parse(const char *line, struct mountinfo_line *m);

#endif
