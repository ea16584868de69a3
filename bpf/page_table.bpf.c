// SPDX-License-Identifier: GPL-2.0
/* The page table's take-and-free, and what is left in it: see page_table.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "page_table.bpf.h"

/* Per filesystem: pages written since attach, not yet written back. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* filesystem dev */
	__type(value, struct unwritten);
} unwritten SEC(".maps");

/*
 * A global function, verified once: inlined, the way it found (one of
 * eight values) multiplied the states of everything after it in the
 * writeback program (225 ms to load).
 */
__noinline int page_take(const struct page_key *key_arg, struct page_rec *out)
{
	/* on the stack: before 6.2 a global function's argument cannot be a map key */
	struct page_key key;
	struct page_rec *rec;
	struct page_set *s;
	__u64 tag;
	int w;

	if (!key_arg)
		return 0;
	key = *key_arg;
	s = page_locate(&key, &tag, &w);
	if (!s)
		return 0;
	if (w >= 0) {
		if (out)
			*out = s->way[w].rec;
		/* a full barrier: the record is read before the way can be reused */
		__sync_val_compare_and_swap(&s->tag[w], tag, 0);
		return 1;
	}
	if (!s->spilled)
		return 0;
	rec = bpf_map_lookup_elem(&page_overflow, &key);
	if (!rec)
		return 0;
	if (out)
		*out = *rec;
	if (!bpf_map_delete_elem(&page_overflow, &key))
		__sync_fetch_and_add(&s->spilled, -1);
	return 1;
}

/*
 * Takes back from the page's record what a write asked for and never
 * copied: 'bytes' of it, the blocks of 'blocks', and, where the request
 * reached the page from its first byte, its mark as a call on the page.
 * A record left empty goes. Global, as page_take() and for the same reason.
 */
__noinline int page_unwrite(const struct page_key *key_arg, __u64 bytes, __u64 blocks,
			    __u32 from_page_start)
{
	struct page_key key;
	struct page_rec *rec;

	if (!key_arg)
		return 0;
	key = *key_arg;
	rec = page_find(&key);
	if (!rec)
		return 0;
	__sync_fetch_and_sub(&rec->app_bytes, rec->app_bytes < bytes ? rec->app_bytes : bytes);
	rec->block_mask &= ~blocks;
	if (from_page_start && rec->continues)	/* the request reached this page */
		__sync_fetch_and_sub(&rec->continues, 1);
	else if (from_page_start && rec->starts)	/* ... or began in it */
		__sync_fetch_and_sub(&rec->starts, 1);
	if (!rec->app_bytes && !rec->block_mask && !rec->starts && !rec->continues &&
	    !rec->whole_dirty && !rec->folio_ptr && !rec->bh_flags)
		page_take(&key, NULL);
	return 1;
}

static __always_inline void unwritten_add(const struct page_key *k, const struct page_rec *r)
{
	static const struct unwritten zero;
	__u32 dev = k->dev;
	struct unwritten *u = map_lookup_or_try_init(&unwritten, &dev, &zero, NO_COUNTER);

	if (!u)
		return;
	u->pages += 1;
	u->app_bytes += r->app_bytes;
}

static long unwritten_set_cb(struct bpf_map *map, __u32 *idx, struct page_set *s,
			     void *ctx)
{
	/* published ways only: a busy one is still being filled (page_get) */
	for (int w = 0; w < PAGE_WAYS; w++)
		if (s->tag[w] && s->tag[w] != PAGE_TAG_BUSY)
			unwritten_add(&s->way[w].key, &s->way[w].rec);
	return 0;
}

static long unwritten_spill_cb(struct bpf_map *map, struct page_key *k,
			       struct page_rec *r, void *ctx)
{
	unwritten_add(k, r);
	return 0;
}

/*
 * Run by user space (BPF_PROG_TEST_RUN; `run`, after the command) into an
 * emptied 'unwritten': a page record lives from a page's first write until
 * writeback takes it, so the live ones are the pages written (or dirtied)
 * since attach and not written back yet, still dirty in the page cache.
 * Plain adds: nothing else writes the map meanwhile.
 */
SEC("raw_tp")
int BPF_PROG(count_unwritten)
{
	bpf_for_each_map_elem(&page_sets, unwritten_set_cb, NULL, 0);
	bpf_for_each_map_elem(&page_overflow, unwritten_spill_cb, NULL, 0);
	return 0;
}
