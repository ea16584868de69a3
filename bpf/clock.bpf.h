/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks' clock: bpf_ktime_get_ns() read at most once per tick on each
 * CPU. That helper call costs ~55 ns per event here (bench/micro
 * wb_helper), bpf_jiffies64() nothing (the verifier inlines it): the time
 * read at the first event of a tick stands for the tick's other events on
 * that CPU, so a time is late by less than a tick (1-10 ms). What the
 * hooks time needs no more: how long a thread has been idle (the flush,
 * 50 ms and 1 s) and how old a thread's running sum is (ACC_MAX_NS). A
 * file's last_ns, which user space compares to find the files with news,
 * is read precisely when a sum is folded into the totals (acc_fold()).
 */
#ifndef IOMAPDIRTY_CLOCK_BPF_H
#define IOMAPDIRTY_CLOCK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "maps.bpf.h"

struct tick_time {
	__u64 jiffies;		/* the tick ns was read in */
	__u64 ns;		/* bpf_ktime_get_ns() */
};

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tick_time);
} tick_times_map_t;
SHARED_MAP(tick_times_map_t, tick_times);

/*
 * bpf_ktime_get_ns() as read at this CPU's first call in the current
 * tick. A program that preempts another between the two stores below
 * (fentry programs are preemptible) reads a time a tick old at worst.
 */
static __always_inline __u64 tick_ns(void)
{
	__u32 zero = 0;
	struct tick_time *t = bpf_map_lookup_elem(&tick_times, &zero);
	__u64 now_jiffies = bpf_jiffies64();

	if (!t)
		return bpf_ktime_get_ns();
	if (t->jiffies != now_jiffies) {
		t->ns = bpf_ktime_get_ns();
		t->jiffies = now_jiffies;
	}
	return t->ns;
}

#endif /* IOMAPDIRTY_CLOCK_BPF_H */
