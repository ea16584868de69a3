/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folio contexts (struct wb_ctx, include/iomapdirty.h): one per thread
 * writing back, holding the folio in progress and the thread's running
 * sum. A thread owns slot (tid mod CTX_SLOTS) of ctx_slots if it was free
 * when the thread first wrote back, and until the thread has been idle
 * for a second (flush.bpf.c hands it back); otherwise its context is in
 * wb_ctxs. Who may touch a context, and when: wb_ctx.owner, below. The array lookup is inlined by the verifier, a hash lookup
 * costs ~130 ns here, and there are two per folio.
 */
#ifndef IOMAPDIRTY_FOLIO_CTX_BPF_H
#define IOMAPDIRTY_FOLIO_CTX_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "clock.bpf.h"
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

/*
 * A context is used by its thread's hooks and by the flush (flush.bpf.c),
 * which folds, finishes and hands back the contexts of idle threads from
 * user space's CPU. Both take the context by a compare-and-swap on
 * wb_ctx.owner, so neither ever writes a context the other is in:
 *   0 -> tid | CTX_IN          a thread claims a free slot or new entry
 *   tid -> tid | CTX_IN        its hook begins (ctx_find)
 *   tid | CTX_IN -> tid        its hook ends (ctx_put)
 *   tid -> tid | CTX_HELD      the flush takes an idle thread's context
 *   tid | CTX_HELD -> tid, 0   it gives it back, or frees it (a slot; a
 *                              wb_ctxs entry is deleted instead)
 * Without this, the flush could hand a slot back, or fold its sum, while
 * its thread started a new folio in it (issue 11, item 14): that folio
 * was lost and counted nowhere. Now a thread whose context the flush
 * holds at that moment (a microsecond, for a thread idle 50 ms) goes
 * without it for that hook, and counts it: context_flush_race.
 * Thread ids are below 2^22 (PID_MAX_LIMIT): bits 30 and 31 are free.
 */
#define CTX_IN		0x80000000U
#define CTX_HELD	0x40000000U
#define CTX_FLAGS	(CTX_IN | CTX_HELD)

/* Finishes the context's folio, if one is in progress. */
static __always_inline void ctx_finish(struct wb_ctx *c, __u64 now)
{
	if (!c || !c->active)
		return;
	finish_folio(c, now);
	c->active = 0;
}

/* Whether c (NULL: no) is thread tid's, in whatever state. */
static __always_inline bool ctx_owned_by(const struct wb_ctx *c, __u32 tid)
{
	return c && tid && (c->owner & ~CTX_FLAGS) == tid;
}

/* Enters tid's context c; NULL (counted) if the flush holds it. */
static __always_inline struct wb_ctx *ctx_enter(struct wb_ctx *c, __u32 tid)
{
	if (__sync_val_compare_and_swap(&c->owner, tid, tid | CTX_IN) == tid)
		return c;
	count(CNT_CTX_FLUSH_RACE);
	return NULL;
}

/*
 * The end of the hook that entered c: its writes to c must be visible
 * before the flush can take c. Nobody else writes owner while CTX_IN is
 * set, so the exchange needs no compare; where stores are seen in program
 * order (x86: its JIT's mov, after a compiler barrier) a plain store does
 * that without a locked instruction; elsewhere a compare-and-swap (a full
 * barrier: arm64 and powerpc reorder plain stores).
 */
static __always_inline void ctx_put(struct wb_ctx *c, __u32 tid)
{
	if (!c)
		return;
#ifdef __TARGET_ARCH_x86
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&c->owner = tid;
#else
	__sync_val_compare_and_swap(&c->owner, tid | CTX_IN, tid);
#endif
}

/*
 * The thread's writeback context, entered (ctx_put() it), or NULL if it
 * has none yet or the flush holds it.
 */
static __always_inline struct wb_ctx *ctx_find(__u32 tid)
{
	__u32 slot = tid % CTX_SLOTS;
	struct wb_ctx *c = bpf_map_lookup_elem(&ctx_slots, &slot);

	if (ctx_owned_by(c, tid))
		return ctx_enter(c, tid);
	c = bpf_map_lookup_elem(&wb_ctxs, &tid);
	return ctx_owned_by(c, tid) ? ctx_enter(c, tid) : NULL;
}

/*
 * A context for a thread that has none, entered: its slot if free (a slot
 * is handed back with its sum folded and no folio in progress, see
 * flush_ctx()), else an entry of wb_ctxs, inserted as 'zero' (a zeroed
 * context: 1 KiB does not fit on the stack).
 */
static __always_inline struct wb_ctx *ctx_create(__u32 tid, const struct wb_ctx *zero)
{
	__u32 slot = tid % CTX_SLOTS;
	struct wb_ctx *c = bpf_map_lookup_elem(&ctx_slots, &slot);

	if (!tid)
		return NULL;
	if (c && !c->owner && !__sync_val_compare_and_swap(&c->owner, 0, tid | CTX_IN))
		return c;
	c = map_try_insert(&wb_ctxs, &tid, zero, CNT_CTX_MAP_FULL);
	/* an entry the flush holds (about to delete it) is not claimed */
	if (c && __sync_val_compare_and_swap(&c->owner, 0, tid | CTX_IN)) {
		count(CNT_CTX_FLUSH_RACE);
		return NULL;
	}
	return c;
}

static __always_inline void finish_thread_folio(__u32 tid)
{
	struct wb_ctx *c = ctx_find(tid);

	ctx_finish(c, tick_ns());
	ctx_put(c, tid);
}

/*
 * The thread's context for a new folio, entered (ctx_put() it); NULL if
 * this folio is not wanted, its previous folio then finished here.
 * Otherwise wb_fill() finishes the previous folio (nothing nests in
 * writeback) and resets the context, in one call.
 */
static __always_inline struct wb_ctx *ctx_begin(__u32 tid, bool wanted,
						 const struct wb_ctx *zero, __u64 now)
{
	struct wb_ctx *c = ctx_find(tid);

	if (!wanted) {
		ctx_finish(c, now);
		ctx_put(c, tid);
		return NULL;
	}
	return c ? c : ctx_create(tid, zero);
}

/* Whether word w of c's dirty[] and seen[] is this folio's (dirty_words). */
static __always_inline bool ctx_word_written(const struct wb_ctx *c, __u64 w)
{
	return w < IOMAPDIRTY_MAX_BITMAP_WORDS / 2 && ((c->dirty_words >> w) & 1);
}

/* Word w of the folio's dirty blocks (0 if not written for this folio). */
static __always_inline __u64 ctx_dirty_word(const struct wb_ctx *c, __u64 w)
{
	return ctx_word_written(c, w) ? c->dirty[w] : 0;
}

/* Word w of the blocks dirtied by what was seen (writes, whole-folio). */
static __always_inline __u64 ctx_seen_word(const struct wb_ctx *c, __u64 w)
{
	return ctx_word_written(c, w) ? c->seen[w] : 0;
}

#endif /* IOMAPDIRTY_FOLIO_CTX_BPF_H */
