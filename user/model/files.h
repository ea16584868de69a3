/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a file's key names: its path and whether that still holds, and
 * its first writer. The engine answers these (live/engine_read.c, from
 * the BPF maps and lstat()); renderers ask through a struct file_lookup
 * and so never touch BPF or the file system (tests/build/layering.sh).
 */
#ifndef IOMAPDIRTY_FILES_H
#define IOMAPDIRTY_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iomapdirty.h"
#include "model/cgroup_names.h"

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

#endif
