/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run (exact, user/host/cgroup.c): what processes outside CMD's cgroup wrote
 * in the same window, per file (application bytes, write calls), so that
 * it is reported apart ("other processes: N B into M files") and never in
 * the run's totals. Bounded; a write into a file with no room is counted
 * (other_writes_map_full, a loss).
 */
#ifndef IOMAPDIRTY_OTHER_WRITES_BPF_H
#define IOMAPDIRTY_OTHER_WRITES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

#define OTHER_WRITES_MAX_FILES	4096

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OTHER_WRITES_MAX_FILES);
	__type(key, struct file_key);
	__type(value, struct other_write);
} other_writes_map_t;
SHARED_MAP(other_writes_map_t, other_writes);

/* As write_sum_add(): calls and bytes apart, either may be 0. */
static __always_inline void other_write_add(__u32 dev, __u64 ino, __u64 bytes, __u32 calls)
{
	struct file_key key = { .ino = ino, .dev = dev };
	struct other_write zero = {};
	struct other_write *o;

	o = map_lookup_or_try_init(&other_writes, &key, &zero, CNT_OTHER_MAP_FULL);
	if (!o)
		return;
	if (bytes)
		__sync_fetch_and_add(&o->app_bytes, bytes);
	if (calls)
		__sync_fetch_and_add(&o->write_calls, calls);
}

#endif /* IOMAPDIRTY_OTHER_WRITES_BPF_H */
