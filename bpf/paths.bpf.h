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
#include "sums.bpf.h"

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
 * Path entries made since attach (wraps: compared by difference). A file
 * whose entry in files says its path was found in paths, or put there,
 * fewer than PATHS_KNOWN_WINDOW entries ago is known without a lookup of
 * paths: an LRU entry found or made that recently is not the least
 * recently used of FILES_MAX_ENTRIES, so it was not evicted. Past the
 * window, paths itself is looked up again: an evicted path is learnt
 * again at the file's next writeback (tests/cli/limits.sh,
 * limits.many.readmitted_*).
 */
#define PATHS_KNOWN_WINDOW	(FILES_MAX_ENTRIES / 4)
typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} paths_made_map_t;
SHARED_MAP(paths_made_map_t, paths_made);

/*
 * Learns where a file is the first time it is seen, from the inode's
 * first alias, unless paths has it. Returns paths_made once the path is
 * in paths, 0 if not. The inode pointer is an integer: a global
 * function's pointer arguments must point to memory the verifier can
 * size.
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

/*
 * Makes sure the path of file (dev, ino), whose folio is being written
 * back, is in paths; where the file's entry in files says it is (see
 * paths_made), paths is not looked up. When a host writes back many files
 * in turn, each folio another file's, that is one cold lookup less per
 * folio: the entry in files is the one the thread's sum of this file is
 * folded into next (bpf/sums.bpf.c), then at hand (bench/'s many-files
 * workload: about 300 ns of a 1000 ns writeback event). 'key' in map
 * memory (the caller's scratch): a key on the stack would grow the
 * writeback programs' frames, whose call chains have 6.1's 512 bytes
 * for all. 'inode' as for wb_begin_kind() (writeback.bpf.h).
 */
static __always_inline void path_learn(const struct file_key *key, __u64 inode,
				       const void *inode_slot)
{
	struct wa_stats *file = bpf_map_lookup_elem(&files, key);
	__u32 zero = 0, *made = bpf_map_lookup_elem(&paths_made, &zero), now;
	struct file_key *seen;

	if (file && made && file->path_made &&
	    *made - (__u32)file->path_made < PATHS_KNOWN_WINDOW) {
		seen = bpf_map_lookup_elem(&path_seen, &zero);
		if (seen)
			*seen = *key;
		return;
	}
	if (!inode)
		bpf_probe_read_kernel(&inode, sizeof(inode), inode_slot);
	now = note_path(inode, key->dev, key->ino);
	if (file && now)
		file->path_made = now;
}

#endif /* IOMAPDIRTY_PATHS_BPF_H */
