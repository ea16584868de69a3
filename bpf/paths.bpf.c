// SPDX-License-Identifier: GPL-2.0
/* Paths from dentries: see paths.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "paths.bpf.h"

/* A file_path is 1 KiB: built here, off the stack, then inserted. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_path);
} path_scratch SEC(".maps");

struct path_walk {
	struct dentry *d;
	struct file_path *fp;
};

static long path_component_cb(__u64 i, void *data)
{
	struct path_walk *w = data;
	struct dentry *d = w->d;	/* not inside BPF_CORE_READ: not a kernel type */
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	const unsigned char *name;

	if (!parent || parent == d)
		return 1;		/* the filesystem's root */
	if (i >= PATH_MAX_COMPONENTS) {
		w->fp->truncated = 1;
		return 1;
	}
	name = BPF_CORE_READ(d, d_name.name);
	bpf_probe_read_kernel_str(w->fp->comp[i], PATH_COMPONENT_LEN, name);
	w->fp->depth = i + 1;
	w->d = parent;
	return 0;
}

static __always_inline struct dentry *inode_dentry(struct inode *inode)
{
	struct hlist_node *first = BPF_CORE_READ(inode, i_dentry.first);

	if (!first)
		return NULL;
	/* d_alias is the first member of the d_u union */
	return (void *)first - bpf_core_field_offset(struct dentry, d_u);
}

/*
 * A global function: called from every writeback program, verified once.
 * The link count is refreshed at each writeback (wa_stats.nlink), so
 * deleted files can be marked.
 */
__noinline int note_path(__u64 inode_ptr, __u32 dev, __u64 ino)
{
	struct inode *inode = (void *)inode_ptr;
	struct file_key fkey = { .ino = ino, .dev = dev }, *key = &fkey;
	struct path_walk w = {};
	struct file_key *seen;
	struct file_path *fp;
	__u32 zero = 0, *made;
	bool is_new;

	seen = bpf_map_lookup_elem(&path_seen, &zero);
	made = bpf_map_lookup_elem(&paths_made, &zero);
	if (!seen || !made)
		return 0;
	if (bpf_map_lookup_elem(&paths, key)) {
		*seen = fkey;
		return *made;
	}
	fp = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!fp)
		return 0;
	fp->depth = 0;
	fp->truncated = 0;
	fp->nlink = BPF_CORE_READ(inode, i_nlink);
	w.d = inode_dentry(inode);
	w.fp = fp;
	if (w.d)
		bpf_loop(PATH_MAX_COMPONENTS + 1, path_component_cb, &w, 0);
	if (!map_insert_new(&paths, key, fp, CNT_PATH_MAP_FULL, CNT_PATH_ENTRIES, &is_new))
		return 0;
	*seen = fkey;
	/* the window (paths.bpf.h) counts from after this entry */
	if (is_new)
		return __sync_add_and_fetch(made, 1);
	return *made;
}
