// SPDX-License-Identifier: GPL-2.0
/* The page table's take-and-free: see page_table.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "page_table.bpf.h"

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
