/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who writes each file, at both accounting levels: at the write hook (the
 * writer's own context; writeback runs in the flusher's, or in whoever
 * called sync), the first writer seen since attach is kept per file (its
 * cgroup v2 id, writer_cgroup_id(): 0 where the kernel has no cgroup
 * helpers, and its command), and
 * 'several' is set when a writer of another cgroup writes the file too.
 * A CPU remembers the last (file, cgroup) it noted: a run of writes of one
 * writer into one file costs a per-CPU array access, not a hash lookup.
 */
#ifndef IOMAPDIRTY_WRITERS_BPF_H
#define IOMAPDIRTY_WRITERS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

#define FILE_WRITERS_MAX	16384

/*
 * LRU: on a host that writes more files than this over days (the
 * exporter), the files not written for longest give way, instead of the
 * map filling up for good; a file written again is noted again.
 */
typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILE_WRITERS_MAX);
	__type(key, struct file_key);
	__type(value, struct file_writer);
} file_writers_map_t;
SHARED_MAP(file_writers_map_t, file_writers);

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct writer_last);
} writer_last_map_t;
SHARED_MAP(writer_last_map_t, writer_last);

static __always_inline void writer_note(__u32 dev, __u64 ino)
{
	struct file_key key = { .ino = ino, .dev = dev };
	__u64 cg = writer_cgroup_id(-1);
	struct file_writer init = { .cgroup_id = cg };
	struct writer_last *last;
	struct file_writer *fw;
	__u32 zero = 0;
	bool is_new;

	last = bpf_map_lookup_elem(&writer_last, &zero);
	if (last && last->ino == ino && last->dev == dev && last->cgroup_id == cg)
		return;
	fw = bpf_map_lookup_elem(&file_writers, &key);
	if (!fw) {
		bpf_get_current_comm(init.comm, sizeof(init.comm));
		fw = map_insert_new(&file_writers, &key, &init, CNT_WRITER_MAP_FULL,
				    CNT_WRITER_ENTRIES, &is_new);
		if (!fw)
			return;
	}
	if (fw->cgroup_id != cg && !fw->several)
		fw->several = 1;
	if (last) {
		last->ino = ino;
		last->dev = dev;
		last->cgroup_id = cg;
	}
}

#endif /* IOMAPDIRTY_WRITERS_BPF_H */
