/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per writer cgroup (the exporter's --collector.cgroup): what each file's
 * figures add to its filesystem's totals is added to the record of the
 * file's writer, the first cgroup v2 seen writing it since attach
 * (file_writers, bpf/writers.bpf.h: taken at the write, in the writer's
 * own context; writeback runs in the flusher's or in whoever called
 * sync). A file written by several cgroups counts for its first writer
 * (its JSON writer says several_cgroups). A file with no writer known
 * (dirtied before attach, its writer's entry evicted) counts under id 0;
 * the exporter refuses --collector.cgroup where the kernel gives no cgroup
 * ids (writer_cgroup_id(), user/live/session.c).
 *
 * An LRU hash, so that a host making cgroups for days (containers come
 * and go) never fills it: the cgroup not folded into for longest makes
 * room. Entries made are counted (CNT_CGROUP_ENTRIES); user space
 * subtracts the entries live for the evictions. What an evicted cgroup
 * had stays in its filesystems' totals, so user space's "other" (totals
 * minus the cgroups shown) keeps the sum exact.
 *
 * Off (the setting per_cgroup_sums false) it costs nothing: the branch is
 * removed at load and the map is given one entry.
 */
#ifndef IOMAPDIRTY_CGROUP_SUMS_BPF_H
#define IOMAPDIRTY_CGROUP_SUMS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"
#include "settings.bpf.h"
#include "writers.bpf.h"

typedef struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, CGROUP_SUMS_MAX);
	__type(key, __u64);			/* cgroup v2 id, 0: no writer known */
	__type(value, struct wa_stats);
} cgroup_sums_map_t;
SHARED_MAP(cgroup_sums_map_t, cgroup_sums);

/* The record of the writer of file (dev, ino); NULL when off or not made. */
static __always_inline struct wa_stats *cgroup_totals_of(__u32 dev, __u64 ino)
{
	static const struct wa_stats zero;
	struct file_key key = { .ino = ino, .dev = dev };
	struct file_writer *fw;
	struct wa_stats *s;
	bool is_new;
	__u64 cg;

	if (!per_cgroup_sums)
		return NULL;
	fw = bpf_map_lookup_elem(&file_writers, &key);
	cg = fw ? fw->cgroup_id : 0;
	s = bpf_map_lookup_elem(&cgroup_sums, &cg);
	if (s)
		return s;
	return map_insert_new(&cgroup_sums, &cg, &zero, CNT_CGROUP_MAP_FULL,
			      CNT_CGROUP_ENTRIES, &is_new);
}

#endif /* IOMAPDIRTY_CGROUP_SUMS_BPF_H */
