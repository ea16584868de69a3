/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How maps are shared between the BPF compilation units, the one
 * insert-or-lookup helper, and the map every unit writes: the global
 * counters. (The histograms are per filesystem: sums.bpf.h.)
 *
 * The object is linked from several units (see the Makefile and
 * docs/design.md). A map shared by units is declared once, with
 * SHARED_MAP() in the header of the structure it belongs to (page table in
 * page_table.bpf.h, contexts in folio_ctx.bpf.h, ...): every unit sees an
 * extern declaration, and maps.bpf.c, which defines SHARED_MAPS_HERE
 * before including those headers, the one definition. libbpf's linker
 * requires the declarations to match, which one declaration guarantees.
 */
#ifndef IOMAPDIRTY_MAPS_BPF_H
#define IOMAPDIRTY_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"

#ifdef SHARED_MAPS_HERE
#define SHARED_MAP(type, name)	type name SEC(".maps")
#else
#define SHARED_MAP(type, name)	extern type name SEC(".maps")
#endif

typedef struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters_map_t;
SHARED_MAP(counters_map_t, counters);

/*
 * Per-CPU, but added atomically: fentry/fexit programs run preemptible
 * (migrate_disable() only) and the flush from user space under
 * BPF_PROG_TEST_RUN, so another program on the same CPU can interleave
 * with a load-add-store and one of the two counts would be lost. On a line
 * no other CPU writes the locked add costs a few ns. Adds n to counter id.
 */
static __always_inline void count_n(enum counter_id id, __u64 n)
{
	__u32 key = id;
	__u64 *val = bpf_map_lookup_elem(&counters, &key);

	if (val)
		__sync_fetch_and_add(val, n);
}

/* Counts one event or loss in counter id. */
static __always_inline void count(enum counter_id id)
{
	count_n(id, 1);
}

/* No counter for a full map: for map_try_insert()'s 'full' argument. */
#define NO_COUNTER	NR_COUNTERS

/*
 * The value under key after trying to insert init (a value inserted by a
 * racing CPU first is as good); NULL if the map is full, counted in 'full'
 * unless it is NO_COUNTER. For callers that know the key is absent.
 * 'made' (unless NO_COUNTER) counts the entries this call made: in an LRU
 * map, made minus live is what was evicted (user space subtracts), and
 * *is_new says this call made it.
 */
static __always_inline void *map_insert_new(void *map, const void *key, const void *init,
					    enum counter_id full, enum counter_id made,
					    bool *is_new)
{
	void *val;

	*is_new = !bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (*is_new && made != NO_COUNTER)
		count(made);
	val = bpf_map_lookup_elem(map, key);
	if (!val && full != NO_COUNTER)
		count(full);
	return val;
}

static __always_inline void *map_try_insert(void *map, const void *key, const void *init,
					    enum counter_id full)
{
	bool is_new;

	return map_insert_new(map, key, init, full, NO_COUNTER, &is_new);
}

/* The value under key, inserting init if there is none (libbpf-tools' shape). */
static __always_inline void *map_lookup_or_try_init(void *map, const void *key,
						    const void *init, enum counter_id full)
{
	void *val = bpf_map_lookup_elem(map, key);

	return val ? val : map_try_insert(map, key, init, full);
}

#endif /* IOMAPDIRTY_MAPS_BPF_H */
