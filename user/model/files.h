/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a file's key names: its path and whether that still holds, and
 * its first writer. The engine answers these (live/engine_paths.c, from
 * the BPF maps and lstat()); renderers ask through a struct file_lookup.
 * What a device or a cgroup id names (mount point, type; the cgroup's
 * path) the host answers (host/names.h); renderers ask through a struct
 * host_lookup. So they never touch BPF, the file system or the mount
 * table (tests/build/layering.sh).
 */
#ifndef IOMAPDIRTY_FILES_H
#define IOMAPDIRTY_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iomapdirty.h"
#include "model/cgroup_names.h"
#include "model/fs.h"

/* Where a file is: "MOUNT/dir/name", and whether that still holds. */
enum path_state {
	PATH_OK, PATH_UNKNOWN, PATH_DELETED, PATH_MOVED, PATH_TRUNCATED,
	PATH_UNCHECKED,		/* the check did not answer in time (host/pathcheck.h) */
};
extern const char *const path_state_names[];

/* A file's first writer since attach, with the names its cgroup path gives. */
struct writer_info {
	uint64_t cgroup_id;
	bool cgroup_known;	/* the id was found under the v2 mount */
	char cgroup[512];	/* relative to the v2 root */
	struct cgroup_names names;
	char comm[17];
	bool several;		/* other cgroups wrote the file too */
};

/* The questions a renderer may ask about a file it shows. */
struct file_lookup {
	enum path_state (*path)(void *ctx, const struct file_key *key, char *buf, size_t len);
	/* false if no writer of the file is known */
	bool (*writer)(void *ctx, const struct file_key *key, struct writer_info *wi);
	void *ctx;
};

/* The questions a renderer may ask about a device or a cgroup it shows. */
struct host_lookup {
	/* fills fi from the mount table; false if dev is not mounted */
	bool (*fs)(uint32_t dev, struct fsinfo *fi);
	/* the path of the cgroup with this id, relative to the v2 root; false if not known */
	bool (*cgroup_path)(uint64_t id, char *buf, size_t len);
};

#endif
