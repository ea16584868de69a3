/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folio contexts (struct wb_ctx, include/iomapdirty.h): one per thread
 * writing back, holding the folio in progress and the thread's running
 * sum. A thread owns slot (tid mod CTX_SLOTS) of ctx_slots if it was free
 * when the thread first wrote back, and until the thread has been idle
 * for a second (flush.bpf.c hands it back); otherwise its context is in
 * wb_ctxs. The array lookup is inlined by the verifier, a hash lookup
 * costs ~130 ns here, and there are two per folio.
 */
#ifndef IOMAPDIRTY_FOLIO_CTX_BPF_H
#define IOMAPDIRTY_FOLIO_CTX_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"
#include "sums.bpf.h"

#define CTX_SLOTS	1024

typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CTX_SLOTS);
	__type(key, __u32);
	__type(value, struct wb_ctx);
} ctx_slots_map_t;
SHARED_MAP(ctx_slots_map_t, ctx_slots);

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);			/* thread id */
	__type(value, struct wb_ctx);
} wb_ctxs_map_t;
SHARED_MAP(wb_ctxs_map_t, wb_ctxs);

/* Finishes the context's folio, if one is in progress. */
static __always_inline void ctx_finish(struct wb_ctx *c, __u64 now)
{
	if (!c || !c->active)
		return;
	finish_folio(c, now);
	c->active = 0;
}

/* The thread's writeback context, or NULL if it has none yet. */
static __always_inline struct wb_ctx *ctx_find(__u32 tid)
{
	__u32 slot = tid % CTX_SLOTS;
	struct wb_ctx *c = bpf_map_lookup_elem(&ctx_slots, &slot);

	if (c && tid && c->owner == tid)
		return c;
	return bpf_map_lookup_elem(&wb_ctxs, &tid);
}

/*
 * A context for a thread that has none: its slot if free (a slot is
 * handed back with its sum folded and no folio in progress, see
 * flush_ctx()), else an entry of wb_ctxs, inserted as 'zero' (a zeroed
 * context: 1 KiB does not fit on the stack).
 */
static __always_inline struct wb_ctx *ctx_create(__u32 tid, const struct wb_ctx *zero)
{
	__u32 slot = tid % CTX_SLOTS;
	struct wb_ctx *c = bpf_map_lookup_elem(&ctx_slots, &slot);

	if (c && tid && !c->owner && !__sync_val_compare_and_swap(&c->owner, 0, tid))
		return c;
	return map_try_insert(&wb_ctxs, &tid, zero, CNT_CTX_MAP_FULL);
}

static __always_inline void finish_thread_folio(__u32 tid)
{
	ctx_finish(ctx_find(tid), bpf_ktime_get_ns());
}

/*
 * The thread's context, its previous folio finished (nothing nests in
 * writeback), reset for a new folio; NULL if this folio is not wanted.
 */
static __always_inline struct wb_ctx *ctx_begin(__u32 tid, bool wanted,
						 const struct wb_ctx *zero, __u64 now)
{
	struct wb_ctx *c = ctx_find(tid);

	ctx_finish(c, now);
	if (!wanted)
		return NULL;
	if (!c)
		c = ctx_create(tid, zero);
	if (c)
		__builtin_memset(c, 0, __builtin_offsetof(struct wb_ctx, dirty));
	return c;
}

#endif /* IOMAPDIRTY_FOLIO_CTX_BPF_H */
