/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 for `run`: the v2 hierarchy found from /proc/self/mountinfo
 * (/sys/fs/cgroup on a unified host, /sys/fs/cgroup/unified on a hybrid
 * one), the caller's cgroup in it, and a child cgroup made for CMD with a
 * unique name, entered by CMD before exec and removed at the end. Its id
 * (what bpf_get_current_cgroup_id() returns) is its directory's inode.
 */
#ifndef IOMAPDIRTY_CGROUP_H
#define IOMAPDIRTY_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_cgroup {
	char path[4096];	/* absolute, under the v2 mount */
	char rel[4096];		/* the same, relative to the v2 root ("/a/b") */
	uint64_t id;		/* the directory's inode number */
	uint32_t level;		/* depth under the root (root: 0) */
	bool made;
};

/*
 * --cgroup PATH: a directory of the v2 hierarchy, given under its mount
 * or relative to its root; its id and level. 0, or -errno with err said.
 */
int cgroup_v2_lookup(const char *arg, uint64_t *id, uint32_t *level, char *err, size_t len);
/*
 * The path (relative to the v2 root) of the cgroup with this id, from a
 * cache filled by a walk of the v2 tree (bounded: CGROUP_WALK_MAX
 * directories, at most one walk a second, so a report never waits on
 * more than one). false: not found (removed since, or not yet walked).
 */
bool cgroup_path_of(uint64_t id, char *buf, size_t len);
/* Makes CMD's cgroup, a child of ours: 0, or -errno with err said. */
int run_cgroup_make(struct run_cgroup *c, char *err, size_t len);
/* In the child before exec: moves the calling process into c. 0 or -1. */
int run_cgroup_enter(const struct run_cgroup *c);
/* Kills what is left in c (cgroup.kill) and removes it; idempotent. */
void run_cgroup_remove(struct run_cgroup *c);

#endif
