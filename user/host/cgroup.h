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
 * --unit NAME: the cgroup systemd made for unit NAME (".service" added
 * when NAME has no unit suffix, as systemctl does), found by its name in
 * the v2 tree (a bounded walk; systemd names a unit's cgroup after the
 * unit, under its slice). Its path relative to the v2 root in rel. 0, or
 * -errno with err said: no such cgroup (the unit is not running: systemd
 * makes the cgroup only then), several (give --cgroup PATH), a bad name.
 */
int cgroup_unit_lookup(const char *unit, char *rel, size_t rlen, char *err, size_t len);
/*
 * The path (relative to the v2 root) of the cgroup with this id, from a
 * cache filled by a walk of the v2 tree (bounded: CGROUP_WALK_MAX
 * directories, at most one walk a second, so a report never waits on
 * more than one). false: not found (removed since, or not yet walked).
 */
bool cgroup_path_of(uint64_t id, char *buf, size_t len);
/*
 * Whether this process is in the host's cgroup namespace. In another one
 * (a container's), cgroup paths start at the namespace's root, so a
 * cgroup's depth below the host's root, which the BPF filter compares at
 * (bpf_get_current_ancestor_cgroup_id), is not known: --cgroup, --unit
 * and run are refused there rather than count nothing.
 */
bool cgroup_ns_is_host(void);
/* Why a level filter is refused in a cgroup namespace of our own (the text) */
extern const char cgroup_ns_refusal[];
/* Makes CMD's cgroup, a child of ours: 0, or -errno with err said. */
int run_cgroup_make(struct run_cgroup *c, char *err, size_t len);
/* In the child before exec: moves the calling process into c. 0 or -1. */
int run_cgroup_enter(const struct run_cgroup *c);
/* Kills what is left in c (cgroup.kill) and removes it; idempotent. */
void run_cgroup_remove(struct run_cgroup *c);

#endif
