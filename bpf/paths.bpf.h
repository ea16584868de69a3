/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paths: where each file is, learnt from the kernel's dentries the first
 * time the file is written back (struct file_path, include/iomapdirty.h);
 * user space joins the components under the mount point. note_path() (a
 * global function) is in paths.bpf.c.
 */
#ifndef IOMAPDIRTY_PATHS_BPF_H
#define IOMAPDIRTY_PATHS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

/*
 * An LRU hash like files (sums.bpf.h): never full, the path of a file
 * not written back for long makes room (counted: CNT_PATH_ENTRIES made
 * minus live) and is learnt again at its next writeback.
 */
typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILES_MAX_ENTRIES);
	__type(key, struct file_key);
	__type(value, struct file_path);
} paths_map_t;
SHARED_MAP(paths_map_t, paths);

/* Per CPU: the last file whose path was found in (or put into) paths. */
typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_key);
} path_seen_map_t;
SHARED_MAP(path_seen_map_t, path_seen);

/*
 * Learns where a file is the first time it is seen, from the inode's
 * first alias. The inode pointer is an integer: a global function's
 * pointer arguments must point to memory the verifier can size.
 */
int note_path(__u64 inode_ptr, __u32 dev, __u64 ino);

/*
 * Whether this CPU last saw this file's path known: writeback goes through
 * a file's folios in a row, so the large paths map is looked up once per
 * run of folios, not per folio.
 */
static __always_inline bool path_seen_here(__u32 dev, __u64 ino)
{
	__u32 zero = 0;
	struct file_key *seen = bpf_map_lookup_elem(&path_seen, &zero);

	return seen && seen->ino == ino && seen->dev == dev;
}

#endif /* IOMAPDIRTY_PATHS_BPF_H */
