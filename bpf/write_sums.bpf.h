/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The always-on level's write side: no page records, only what each file
 * was written (application bytes, write calls). A write adds to its CPU's
 * write_sum (a per-CPU array: inlined, no shared cache line) while the CPU
 * stays in one file; the sum is folded into the files and filesystems maps
 * (sums.bpf.h) when the CPU writes another file, and by the flush before
 * every report (flush.bpf.c folds every CPU's, bpf_map_lookup_percpu_elem).
 * 'busy' (taken with a compare-and-swap) keeps the flush, or a program
 * that preempted a writer on the same CPU, out of a sum being changed:
 * the program then folds its write directly, the flush says how many it
 * found busy and user space runs it again.
 * write_sum_fold(), a global function, is in write_sums.bpf.c.
 */
#ifndef IOMAPDIRTY_WRITE_SUMS_BPF_H
#define IOMAPDIRTY_WRITE_SUMS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct write_sum);
} write_sums_map_t;
SHARED_MAP(write_sums_map_t, write_sums);

/* Adds a sum's writes to its file's and filesystem's totals and empties it. */
int write_sum_fold(struct write_sum *ws);

/* Whether a sum holds writes not yet folded. */
static __always_inline bool write_sum_held(const struct write_sum *ws)
{
	return ws->write_calls || ws->app_bytes;
}

/*
 * 'calls' write(2)s and 'bytes' application bytes to file (dev, ino),
 * always-on level. Tracepoint plans count a call when it starts and its
 * bytes as they are committed (bpf/write.bpf.h): either may be 0.
 */
static __always_inline void write_sum_add(__u32 dev, __u64 ino, __u64 bytes, __u32 calls)
{
	struct write_sum direct = { .dev = dev, .ino = ino, .app_bytes = bytes,
				    .write_calls = calls };
	__u32 zero = 0;
	struct write_sum *ws = bpf_map_lookup_elem(&write_sums, &zero);

	if (!ws)
		return;
	if (__sync_val_compare_and_swap(&ws->busy, 0, 1)) {
		write_sum_fold(&direct);	/* held by a flush or a preempted writer */
		return;
	}
	if (write_sum_held(ws) && (ws->ino != ino || ws->dev != dev))
		write_sum_fold(ws);
	ws->dev = dev;
	ws->ino = ino;
	ws->app_bytes += bytes;
	ws->write_calls += calls;
	__sync_val_compare_and_swap(&ws->busy, 1, 0);
}

#endif /* IOMAPDIRTY_WRITE_SUMS_BPF_H */
