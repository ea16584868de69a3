// SPDX-License-Identifier: GPL-2.0
/*
 * The flush: run by user space before each report (engine_flush() in
 * user/live/engine.c, BPF_PROG_TEST_RUN), it folds the running sums of idle
 * threads' contexts (folio_ctx.bpf.h) into the shared totals
 * (sums.bpf.h), finishes folios that no end event will finish, and frees
 * the contexts of threads gone quiet; at the always-on level it also folds
 * every CPU's write sum (write_sums.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "folio_ctx.bpf.h"
#include "maps.bpf.h"
#include "sums.bpf.h"
#include "write_sums.bpf.h"
#include "settings.bpf.h"

struct flush_args {
	__u64 idle_ns;
	__u64 finish_idle_ns;	/* finish the folio of a thread idle this long */
	__u64 now;
};

/*
 * How long the context's thread has been idle, if at least args->idle_ns
 * (else 0: it is busy and folds its own sum). A hint read without the
 * context held: flush_ctx() rereads it once it holds it.
 */
static __always_inline __u64 ctx_idle(const struct wb_ctx *c, const struct flush_args *args)
{
	__u64 start = c->start_ns;

	/*
	 * 'now' was read before the walk: a folio begun since then has a
	 * later start, and the unsigned difference would look like an age.
	 */
	if (start >= args->now || args->now - start < args->idle_ns)
		return 0;
	return args->now - start;
}

/*
 * Takes context c from its idle thread (CTX_HELD, bpf/folio_ctx.bpf.h):
 * the thread's owner value, or 0 if it is free, busy, in a hook, or came
 * back in the meantime.
 */
static __always_inline __u32 flush_take(struct wb_ctx *c, const struct flush_args *args)
{
	__u32 owner = c->owner;

	if (!owner || (owner & CTX_FLAGS) || !ctx_idle(c, args))
		return 0;
	if (__sync_val_compare_and_swap(&c->owner, owner, owner | CTX_HELD) != owner)
		return 0;
	return owner;
}

/*
 * Folds the sum of a context taken by flush_take(), and finishes its
 * folio if asked; true if the thread has gone quiet (idle a second, no
 * folio in progress): its context may be freed.
 */
static __always_inline bool flush_ctx(struct wb_ctx *c, struct flush_args *args)
{
	__u64 idle = ctx_idle(c, args);

	if (!idle)
		return false;
	if (c->active && idle >= args->finish_idle_ns) {
		count(CNT_FLUSHED_CTX);
		finish_folio(c, args->now);
		c->active = 0;
	}
	acc_fold(c);
	return !c->active && idle >= 1000000000ULL;
}

static long flush_hashed_cb(struct bpf_map *map, __u32 *tid, struct wb_ctx *c,
			    struct flush_args *args)
{
	__u32 owner = flush_take(c, args);

	if (!owner)
		return 0;
	/* deleted while held: its thread makes a new one, never writes this */
	if (flush_ctx(c, args))
		bpf_map_delete_elem(map, tid);
	else
		__sync_val_compare_and_swap(&c->owner, owner | CTX_HELD, owner);
	return 0;
}

static long flush_slot_cb(struct bpf_map *map, __u32 *slot, struct wb_ctx *c,
			  struct flush_args *args)
{
	__u32 owner = flush_take(c, args);

	if (!owner)
		return 0;
	/* handed back (free) if its thread has gone quiet, else given back */
	__sync_val_compare_and_swap(&c->owner, owner | CTX_HELD,
				    flush_ctx(c, args) ? 0 : owner);
	return 0;
}

/* CPU 'cpu''s write sum folded, unless busy: then *busy counts it. */
static long fold_cpu_writes_cb(__u64 cpu, void *busy)
{
	__u32 zero = 0;
	struct write_sum *ws = bpf_map_lookup_percpu_elem(&write_sums, &zero, cpu);

	if (!ws)
		return 1;
	if (!write_sum_held(ws))
		return 0;
	if (__sync_val_compare_and_swap(&ws->busy, 0, 1)) {
		(*(__u64 *)busy)++;
		return 0;
	}
	write_sum_fold(ws);
	__sync_val_compare_and_swap(&ws->busy, 1, 0);
	return 0;
}

/*
 * Run by user space (BPF_PROG_TEST_RUN) before each report, for contexts
 * idle for longer than idle_ns: their sums are folded into the shared
 * totals, and the folio of those idle for finish_idle_ns is finished
 * (user space: tracepoint mode, where nothing marks the end of a thread's
 * last folio, and the final flush; otherwise never).
 * Returns how many CPUs' write sums were busy (not folded).
 */
SEC("raw_tp")
int BPF_PROG(flush_idle, __u64 idle_ns, __u64 finish_idle_ns)
{
	struct flush_args args = {
		.idle_ns = idle_ns,
		.finish_idle_ns = finish_idle_ns,
		.now = bpf_ktime_get_ns(),
	};

	bpf_for_each_map_elem(&ctx_slots, flush_slot_cb, &args, 0);
	bpf_for_each_map_elem(&wb_ctxs, flush_hashed_cb, &args, 0);
	if (always_on()) {
		__u64 busy = 0;

		bpf_loop(nr_cpus, fold_cpu_writes_cb, &busy, 0);
		return busy;	/* user space runs the flush again */
	}
	return 0;
}
