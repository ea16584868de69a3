// SPDX-License-Identifier: GPL-2.0
/* Filesystem lookups: see fsinfo.h. */
#define _GNU_SOURCE		/* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "host/fsinfo.h"

/*
 * --path.rootfs DIR (node_exporter's flag): the host's root is mounted at
 * DIR, as in a container. The mount table is then the host's,
 * DIR/proc/1/mountinfo (the host's procfs is one of DIR's submounts, so
 * no host PID namespace is needed), and every path opened after it (a
 * mount point, a file's path, --mount) is a host path resolved inside DIR
 * with RESOLVE_IN_ROOT: a host's absolute symlink cannot lead out of it.
 */
static int rootfs_fd = -1;

int fsinfo_open(const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned int)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	if (rootfs_fd < 0)
		return open(path, flags | O_CLOEXEC);
	return syscall(SYS_openat2, rootfs_fd, path, &how, sizeof(how));
}

/* stat (flags 0) or lstat (O_NOFOLLOW) of a host path, inside DIR */
static int host_fstat(const char *path, struct stat *st, int flags)
{
	int fd = fsinfo_open(path, O_PATH | flags), r;

	if (fd < 0)
		return -1;
	r = fstat(fd, st);
	close(fd);
	return r;
}

int fsinfo_lstat(const char *path, struct stat *st)
{
	if (rootfs_fd < 0)
		return fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
	return host_fstat(path, st, O_NOFOLLOW);
}

static int open_mountinfo(void)
{
	return fsinfo_open(rootfs_fd < 0 ? "/proc/self/mountinfo" : "/proc/1/mountinfo",
			   O_RDONLY);
}

int fsinfo_set_rootfs(const char *dir, char *err, size_t len)
{
	int fd;

	rootfs_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfs_fd < 0) {
		snprintf(err, len, "--path.rootfs %s: %s", dir, strerror(errno));
		return -ENOENT;
	}
	fd = open_mountinfo();
	if (fd < 0) {
		snprintf(err, len, "--path.rootfs %s: %s/proc/1/mountinfo: %s (the host's "
			 "root must be mounted there with its submounts)", dir, dir,
			 strerror(errno));
		close(rootfs_fd);
		rootfs_fd = -1;
		return -ENOENT;
	}
	close(fd);
	return 0;
}

/* Filesystems whose buffered writes go through iomap's writeback. */
static bool fstype_is_iomap(const char *fstype)
{
	static const char *const iomap_fs[] = { "xfs", "zonefs", "gfs2", NULL };

	for (int i = 0; iomap_fs[i]; i++)
		if (!strcmp(fstype, iomap_fs[i]))
			return true;
	return false;
}

/* Written back with buffer heads by ext4's driver (ext2 and ext3 too). */
static bool fstype_is_ext4(const char *fstype)
{
	return !strcmp(fstype, "ext4") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext2");
}

/*
 * top resolves a path per file per refresh: keep what mountinfo said of
 * each device for a second instead of reading it every time.
 */
#define FSINFO_CACHE	32
static struct { struct fsinfo fi; time_t at; bool found; } cache[FSINFO_CACHE];

static bool lookup_uncached(uint32_t dev, struct fsinfo *fi);

bool fsinfo_lookup_dev(uint32_t dev, struct fsinfo *fi)
{
	time_t now = time(NULL);
	int slot = dev % FSINFO_CACHE;

	if (cache[slot].at && cache[slot].at >= now - 1 && cache[slot].fi.dev == dev) {
		if (cache[slot].found)
			*fi = cache[slot].fi;
		return cache[slot].found;
	}
	cache[slot].found = lookup_uncached(dev, fi);
	cache[slot].fi = *fi;
	cache[slot].fi.dev = dev;
	cache[slot].at = now;
	return cache[slot].found;
}

/*
 * mountinfo escapes space, tab, newline and backslash in paths as \ooo
 * (the kernel's show_path/mangle): undone here, in place.
 */
static void unmangle(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Whether the comma-separated list opts holds option 'want' whole. */
static bool has_option(const char *opts, const char *want)
{
	size_t len = strlen(want), n;

	for (const char *o = opts; *o; o += n + (o[n] == ',')) {
		n = strcspn(o, ",");
		if (n == len && !strncmp(o, want, len))
			return true;
	}
	return false;
}

int mountinfo_parse(const char *line, struct mountinfo_line *m)
{
	unsigned int maj, min;
	char mnt[4096], fstype[32], opts[1024] = "";
	const char *sep;
	int n = 0;

	if (sscanf(line, "%*d %*d %u:%u %*s %4095s%n", &maj, &min, mnt, &n) != 3 || !n)
		return -1;
	/* optional fields end with " - ", then the type, source, super options */
	sep = strstr(line + n, " - ");
	if (!sep || sscanf(sep + 3, "%31s %*s %1023s", fstype, opts) < 1)
		return -1;
	if (maj > 0xfff || min > 0xfffff)
		return -1;
	unmangle(mnt);
	m->dev = kdev_make(maj, min);
	snprintf(m->mount, sizeof(m->mount), "%s", mnt);
	snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
	m->data_journal = has_option(opts, "data=journal");
	return 0;
}

/*
 * A btrfs names its files by their subvolume's device (stat's st_dev), not
 * by the superblock's that mountinfo gives: a mount of one is found by the
 * device its mount point's stat() gives.
 */
static bool btrfs_subvol_mount(const struct mountinfo_line *m, uint32_t dev)
{
	struct stat st;
	int fd;
	bool same;

	if (strcmp(m->fstype, "btrfs"))
		return false;
	fd = fsinfo_open(m->mount, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return false;
	same = !fstat(fd, &st) && kdev_make(major(st.st_dev), minor(st.st_dev)) == dev;
	close(fd);
	return same;
}

/*
 * The first line of the mount table 'match' takes (given ctx) into m;
 * false if none does, or the table cannot be read.
 */
static bool mountinfo_find(bool (*match)(const struct mountinfo_line *m, void *ctx),
			   void *ctx, struct mountinfo_line *m)
{
	char line[3 * 4096];
	int fd = open_mountinfo();
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "r");
	bool found = false;

	if (!fp) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (!found && fgets(line, sizeof(line), fp))
		found = !mountinfo_parse(line, m) && match(m, ctx);
	fclose(fp);
	return found;
}

static bool same_dev(const struct mountinfo_line *m, void *ctx)
{
	uint32_t dev = *(uint32_t *)ctx;

	return m->dev == dev || btrfs_subvol_mount(m, dev);
}

static bool lookup_uncached(uint32_t dev, struct fsinfo *fi)
{
	struct mountinfo_line m;
	struct statvfs sv;
	int fd;

	if (!mountinfo_find(same_dev, &dev, &m))
		return false;
	fi->dev = dev;
	snprintf(fi->mount, sizeof(fi->mount), "%s", m.mount);
	snprintf(fi->fstype, sizeof(fi->fstype), "%s", m.fstype);
	fi->iomap = fstype_is_iomap(m.fstype);
	fi->data_journal = fstype_is_ext4(m.fstype) && m.data_journal;
	fi->buffer_heads = fstype_is_ext4(m.fstype) && !fi->data_journal;
	fi->btrfs = !strcmp(m.fstype, "btrfs");
	fd = fsinfo_open(fi->mount, O_PATH | O_DIRECTORY);
	if (fd >= 0 && !fstatvfs(fd, &sv))
		fi->block_bytes = sv.f_bsize;
	if (fd >= 0)
		close(fd);
	return true;
}

/* the k-th btrfs line: ctx counts down */
static bool kth_btrfs(const struct mountinfo_line *m, void *ctx)
{
	int *k = ctx;

	return !strcmp(m->fstype, "btrfs") && (*k)-- == 0;
}

bool fsinfo_btrfs_mount(int k, struct fsinfo *fi)
{
	struct mountinfo_line m;

	if (!mountinfo_find(kth_btrfs, &k, &m))
		return false;
	memset(fi, 0, sizeof(*fi));
	fi->dev = m.dev;
	fi->btrfs = true;
	snprintf(fi->mount, sizeof(fi->mount), "%s", m.mount);
	snprintf(fi->fstype, sizeof(fi->fstype), "%s", m.fstype);
	return true;
}

static int check_iomap(struct fsinfo *fi, const char *what, char *err, size_t len)
{
	if (fi->iomap)
		return 0;
	if (fi->data_journal) {
		snprintf(err, len, "%s is on %s (ext4 mounted data=journal): its file "
			 "data goes to the journal first and to its place at checkpoint, "
			 "not through the writeback the buffer-head backend follows",
			 what, fi->mount);
		return -EPROTONOSUPPORT;
	}
	snprintf(err, len, "%s is on %s (%s), which does not use iomap buffered "
		 "writeback (iomap filesystems: xfs, zonefs, gfs2; ext4 and btrfs have "
		 "backends of their own)", what,
		 fi->mount[0] ? fi->mount : "an unknown mount",
		 fi->fstype[0] ? fi->fstype : "unknown type");
	return -EOPNOTSUPP;
}

int fsinfo_from_path(const char *path, struct fsinfo *fi, char *err, size_t len)
{
	struct stat st;

	memset(fi, 0, sizeof(*fi));
	if (rootfs_fd < 0 ? stat(path, &st) : host_fstat(path, &st, 0)) {
		int ret = -errno;

		snprintf(err, len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	fi->dev = kdev_make(major(st.st_dev), minor(st.st_dev));
	if (!fsinfo_lookup_dev(fi->dev, fi)) {
		snprintf(err, len, "%s: device %u:%u not found in %s", path, major(st.st_dev),
			 minor(st.st_dev), rootfs_fd < 0 ? "/proc/self/mountinfo" :
			 "the host's /proc/1/mountinfo");
		return -ENOENT;
	}
	return check_iomap(fi, path, err, len);
}

int fsinfo_from_dev(const char *majmin, struct fsinfo *fi, char *err, size_t len)
{
	unsigned int maj, min;
	char extra;

	memset(fi, 0, sizeof(*fi));
	if (sscanf(majmin, "%u:%u%c", &maj, &min, &extra) != 2 || maj > 0xfff ||
	    min > 0xfffff) {
		snprintf(err, len, "--dev wants MAJOR:MINOR, got '%s'", majmin);
		return -EINVAL;
	}
	fi->dev = kdev_make(maj, min);
	if (!fsinfo_lookup_dev(fi->dev, fi)) {
		snprintf(err, len, "device %u:%u is not a mounted filesystem", maj, min);
		return -ENOENT;
	}
	return check_iomap(fi, majmin, err, len);
}
