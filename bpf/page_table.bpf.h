/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page table: what the application wrote to each page since its folio
 * was last written back (struct page_rec, include/iomapdirty.h). Every hot
 * write creates a record and every writeback takes it back, so this is
 * the busiest structure of the tool. A hash map costs 300-650 ns per
 * operation here (bucket lock, element allocation, two or three cache
 * misses); a set-associative table in an array costs one or two cache
 * misses: the verifier inlines the array lookup, the seven ways' tags
 * share one cache line, and a record is claimed with one compare-and-swap
 * and freed with another.
 *
 * A set whose seven ways are taken puts further records in page_overflow
 * (a hash) and counts them in 'spilled', so a lookup that misses in the
 * set consults the hash only when something of its set is there.
 * Sizes (user/live/engine.c): --max-pages N gives N/4 sets (1.75 N ways,
 * 128 B per N) and an overflow of N/8: seven ways per set keep spills
 * rare up to N live records (mean 4 of 7 ways taken).
 *
 * page_get() (find or add, inline: the write path's hot call) is here;
 * page_take() (move out and free, a global function) is in page_table.bpf.c.
 */
#ifndef IOMAPDIRTY_PAGE_TABLE_BPF_H
#define IOMAPDIRTY_PAGE_TABLE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

#define PAGE_WAYS	7

struct page_slot {
	struct page_key key;		/* valid while the way's tag is set */
	struct page_rec rec;
};

struct page_set {
	__u64 tag[PAGE_WAYS];		/* 0: the way is free */
	__u64 spilled;			/* this set's records in page_overflow */
	struct page_slot way[PAGE_WAYS];
};

typedef struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized by --max-pages */
	__type(key, __u32);
	__type(value, struct page_set);
} page_sets_map_t;
SHARED_MAP(page_sets_map_t, page_sets);

typedef struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized by --max-pages */
	__type(key, struct page_key);
	__type(value, struct page_rec);
} page_overflow_map_t;
SHARED_MAP(page_overflow_map_t, page_overflow);

static __always_inline __u64 page_hash(const struct page_key *k)
{
	__u64 h = (k->ino ^ ((__u64)k->dev << 32)) * 0x9e3779b97f4a7c15ULL;

	h ^= k->index * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/*
 * A way's tag: 0 free, PAGE_TAG_BUSY claimed and being filled (page_get),
 * else the page's tag, always odd. A way is matched only with its tag
 * published, so only by a page whose key was written in full before.
 * Two CPUs adding the same page at the same moment would both miss and
 * take a way each: the kernel serializes the adders of one page (a
 * write(2) holds the inode lock, iomap_write_end and iomap_dirty_folio
 * the folio lock) except a tracepoint-mode write(2) racing an mmap store
 * that dirties that very page; page_take() then finds the first record
 * and the second waits for the page's next writeback (not lost: late).
 */
#define PAGE_TAG_BUSY	2ULL

/* The set a page's record belongs to, and the page's tag in it (odd). */
static __always_inline struct page_set *page_set_of(const struct page_key *key, __u64 *tag)
{
	__u64 h = page_hash(key);
	__u32 idx = h % page_set_count;

	*tag = h | 1;
	return bpf_map_lookup_elem(&page_sets, &idx);
}

/*
 * The way of set s that holds key, or -1. The tag only narrows the search:
 * the key is compared in full, so a record is never taken for another
 * page's.
 */
static __always_inline int page_way(struct page_set *s, const struct page_key *key,
				    __u64 tag)
{
	for (int w = 0; w < PAGE_WAYS; w++) {
		struct page_key *k = &s->way[w].key;

		if (s->tag[w] == tag && k->ino == key->ino && k->index == key->index &&
		    k->dev == key->dev)
			return w;
	}
	return -1;
}

/* The page's set (NULL if none) and its way there (-1: not in the set). */
static __always_inline struct page_set *page_locate(const struct page_key *key,
						    __u64 *tag, int *way)
{
	struct page_set *s = page_set_of(key, tag);
	int w = s ? page_way(s, key, *tag) : -1;

	*way = w >= 0 && w < PAGE_WAYS ? w : -1;
	return s;
}

/*
 * The page's record; a page without one gets 'fresh' (*added set). NULL
 * when the set and the overflow are both full (counted).
 */
static __always_inline struct page_rec *page_get(const struct page_key *key,
						 const struct page_rec *fresh, bool *added)
{
	struct page_rec *rec;
	struct page_set *s;
	__u64 tag;
	int w;

	*added = false;
	s = page_locate(key, &tag, &w);
	if (!s)
		return NULL;
	if (w >= 0)
		return &s->way[w].rec;
	/* spilled while the set was full: stays in the overflow until taken */
	if (s->spilled && (rec = bpf_map_lookup_elem(&page_overflow, key)))
		return rec;
	*added = true;
	for (w = 0; w < PAGE_WAYS; w++) {
		/*
		 * Claimed as PAGE_TAG_BUSY by the swap (a racing claimer moves
		 * on to the next way), filled, and only then given its tag by
		 * an exchange (a full barrier): a lookup on another CPU never
		 * matches a way whose key or record is half written, which a
		 * tag set before the key allowed (issue 11, item 14).
		 */
		if (s->tag[w] || __sync_val_compare_and_swap(&s->tag[w], 0, PAGE_TAG_BUSY))
			continue;
		s->way[w].key = *key;
		s->way[w].rec = *fresh;
		__sync_lock_test_and_set(&s->tag[w], tag);
		return &s->way[w].rec;
	}
	if (!bpf_map_update_elem(&page_overflow, key, fresh, BPF_NOEXIST)) {
		__sync_fetch_and_add(&s->spilled, 1);
		count(CNT_PAGE_SPILLS);
	} else {
		*added = false;		/* there already (a racing write), or full */
	}
	rec = bpf_map_lookup_elem(&page_overflow, key);
	if (!rec)
		count(CNT_PAGE_MAP_FULL);
	return rec;
}

/* The page's record, or NULL: never adds one. */
static __always_inline struct page_rec *page_find(const struct page_key *key)
{
	struct page_set *s;
	__u64 tag;
	int w;

	s = page_locate(key, &tag, &w);
	if (!s)
		return NULL;
	if (w >= 0)
		return &s->way[w].rec;
	return s->spilled ? bpf_map_lookup_elem(&page_overflow, key) : NULL;
}

static __always_inline struct page_rec *page_rec_get(const struct page_key *key)
{
	static const struct page_rec zero;
	bool added;

	return page_get(key, &zero, &added);
}

/*
 * Moves a page's record to *out and frees it (out may be NULL: the record
 * is dropped); 0 if the page has none.
 */
int page_take(const struct page_key *key_arg, struct page_rec *out);

/* Takes a write's uncopied bytes and blocks back from a page's record (write.bpf.h). */
int page_unwrite(const struct page_key *key_arg, __u64 bytes, __u64 blocks,
		 __u32 from_page_start);

#endif /* IOMAPDIRTY_PAGE_TABLE_BPF_H */
