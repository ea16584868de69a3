// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty: per-folio write amplification of iomap buffered writeback.
 *
 * Three moments are observed, each through whichever mechanism the
 * frontend's attach plan chose (fentry/fexit, kprobe, raw tracepoint):
 *
 *   write     the application copies bytes into the page cache
 *             (iomap_write_end, or the xfs_file_buffered_write tracepoint)
 *             -> page_rec per page: bytes, calls, blocks touched
 *   writeback one folio is written back (iomap_writeback_folio,
 *             iomap_writepage_map, iomap_do_writepage, or the
 *             iomap_writeback_folio / iomap_writepage tracepoints)
 *             -> wb_ctx per thread: collects the folio's page_recs and the
 *             kernel's own dirty bitmap
 *   submit    a range of the folio is added to an ioend for the device
 *             (tracepoints iomap_add_to_ioend / iomap_writepage_map)
 *             -> adds to the thread's wb_ctx
 *
 * When the folio is done (fexit/kretprobe, the thread's next folio, or a
 * flush run by user space) wb_ctx is folded into per-file and
 * per-filesystem totals and the histograms: see finish_folio().
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "buckets.h"
#include "compat.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the frontend before load (see user/engine.c). */
const volatile __u32 target_dev = 0;		/* 0: every device */
const volatile __u32 target_tgid = 0;		/* 0: every process */
const volatile bool filter_comm = false;
const volatile char target_comm[16] = {};
const volatile __u32 page_shift = 12;
const volatile __u32 bitmap_kind = BITMAP_NONE;
const volatile __u32 write_end_proto = WRITE_END_POS;
const volatile bool write_end_ret_bool = false;
const volatile __u32 submit_proto = SUBMIT_RANGE;
const volatile __u32 wb_folio_arg = 0;		/* which argument is the folio */
const volatile bool track_physical = false;	/* verify: match bios to data */
/*
 * verify --simulate-clean N: in folios whose first page index is a
 * multiple of N, the first dirty block is hidden from the check, so the
 * kernel's (correct) submission of it shows as a violation. Exercises the
 * detection path on a kernel that has no real violations; reported as
 * simulated in every output.
 */
const volatile __u32 simulate_clean_every = 0;

#define IOMAP_HOLE_TYPE	0	/* IOMAP_HOLE in every kernel since 4.x */

/*
 * Page records: what the application wrote to each page since its folio
 * was last written back. Every hot write creates one and every writeback
 * takes it back, so this is the busiest structure of the tool. A hash
 * map costs 300-650 ns per operation here (bucket lock, element
 * allocation, two or three cache misses); a set-associative table in an
 * array costs one or two cache misses: the verifier inlines the array
 * lookup, the seven ways' tags share one cache line, and a record is
 * claimed with one compare-and-swap and freed with another.
 *
 * A set whose seven ways are taken puts further records in page_overflow
 * (a hash) and counts them in 'spilled', so a lookup that misses in the
 * set consults the hash only when something of its set is there.
 * Sizes (user/engine.c): --max-pages N gives N/4 sets (1.75 N ways,
 * 128 B per N) and an overflow of N/8: seven ways per set keep spills
 * rare up to N live records (mean 4 of 7 ways taken).
 */
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

const volatile __u32 page_set_count = 1;	/* = max_entries of page_sets */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);			/* resized by --max-pages */
	__type(key, __u32);
	__type(value, struct page_set);
} page_sets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);			/* resized by --max-pages */
	__type(key, struct page_key);
	__type(value, struct page_rec);
} page_overflow SEC(".maps");

/*
 * Writeback contexts, one per thread writing back (see ctx_find()): a
 * thread owns slot (tid mod CTX_SLOTS) of ctx_slots if it was free when
 * the thread first wrote back, and until the thread has been idle for a
 * second; otherwise its context is in wb_ctxs. The array lookup is
 * inlined by the verifier, a hash lookup costs ~130 ns here, and there
 * are two per folio.
 */
#define CTX_SLOTS	1024

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CTX_SLOTS);
	__type(key, __u32);
	__type(value, struct wb_ctx);
} ctx_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);			/* thread id */
	__type(value, struct wb_ctx);
} wb_ctxs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct file_key);
	__type(value, struct wa_stats);
} files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* dev */
	__type(value, struct wa_stats);
} filesystems SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct file_key);
	__type(value, struct file_path);
} paths SEC(".maps");

/* Folios that sent clean blocks, by first page: the first offenders. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct page_key);
	__type(value, struct violation);
} violations SEC(".maps");

/* Verify: physical blocks submitted as data, waiting for their bio. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);
	__type(key, struct phys_key);
	__type(value, __u32);			/* filesystem dev */
} pending_phys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* block device */
	__type(value, __u32);			/* block bits of its filesystem */
} dev_block_bits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);			/* block device */
	__type(value, struct bio_stats);
} bio_stats_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_path);
} path_scratch SEC(".maps");

/* Per CPU: the last file whose path was found in (or put into) paths. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_key);
} path_seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_HISTS * HIST_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * What the programs need of an inode, read once per event. Filled by
 * probe reads (inode_facts_core: raw_tp, kprobe, and fentry programs
 * whose arguments are declared as integers) or by direct loads
 * (inode_facts_btf: tp_btf programs, whose arguments the verifier knows
 * as kernel types; a load costs a few ns where a probe read costs ~30).
 */
struct inode_facts {
	__u64 ino;
	__u64 size;		/* i_size: blocks past EOF are never dirty */
	__u64 mapping;		/* i_mapping: checks a recorded folio pointer */
	__u32 dev;
	__u32 nlink;
	__u32 blkbits;
	__u32 pad;
};

/* A folio whose writeback begins, for wb_fill(). */
struct wb_folio {
	struct inode_facts fi;
	__u64 folio;		/* 0 in tracepoint mode */
	__u64 pos;
	__u64 bytes;
	__u64 now;
};

/* Per-CPU scratch: block bitmaps of the folio being written back. */
struct folio_bits {
	__u64 app[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* blocks written */
	__u64 kern[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* kernel dirty bits */
	struct wb_ctx zero_ctx;
	struct violation zero_violation;
	struct wb_folio folio;	/* wb_begin() -> wb_fill(), off the stack */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct folio_bits);
} scratch SEC(".maps");

static __always_inline void count(enum counter_id id)
{
	__u32 key = id;
	__u64 *val = bpf_map_lookup_elem(&counters, &key);

	if (val)
		*val += 1;
}

static __always_inline void hist_add(enum hist_id hist, unsigned int bucket)
{
	__u32 key = hist * HIST_BUCKETS + bucket;
	__u64 *val = bpf_map_lookup_elem(&hists, &key);

	if (val)
		*val += 1;
}

static __always_inline __u64 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/* Bits [first, last] set; 0 <= first <= last <= 63. */
static __always_inline __u64 bit_range(__u32 first, __u32 last)
{
	__u64 upto = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;

	return upto & ~((1ULL << (first & 63)) - 1);
}

static __always_inline bool dev_wanted(__u32 dev)
{
	return !target_dev || dev == target_dev;
}

static __always_inline bool task_wanted(void)
{
	char comm[16];
	int i;

	if (target_tgid && (bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return false;
	if (!filter_comm)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++) {
		if (comm[i] != target_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}


static __always_inline void inode_facts_core(struct inode *inode, struct inode_facts *fi,
					     bool for_writeback)
{
	fi->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	fi->ino = BPF_CORE_READ(inode, i_ino);
	fi->blkbits = BPF_CORE_READ(inode, i_blkbits);
	if (!for_writeback)
		return;
	fi->nlink = BPF_CORE_READ(inode, i_nlink);
	fi->size = BPF_CORE_READ(inode, i_size);
	fi->mapping = (__u64)BPF_CORE_READ(inode, i_mapping);
}

/* Only where 'inode' is a BTF-typed pointer (tp_btf arguments). */
static __always_inline void inode_facts_btf(struct inode *inode, struct inode_facts *fi,
					    bool for_writeback)
{
	fi->dev = inode->i_sb->s_dev;
	fi->ino = inode->i_ino;
	fi->blkbits = inode->i_blkbits;
	if (!for_writeback)
		return;
	fi->nlink = inode->i_nlink;
	fi->size = inode->i_size;
	fi->mapping = (__u64)inode->i_mapping;
}

static __always_inline void inode_ids(struct inode *inode, __u32 *dev, __u64 *ino)
{
	*dev = BPF_CORE_READ(inode, i_sb, s_dev);
	*ino = BPF_CORE_READ(inode, i_ino);
}

static __always_inline unsigned long folio_flags(struct folio *folio)
{
	unsigned long flags = 0;

	/*
	 * 'flags' became memdesc_flags_t in 6.17; it is one long, first in
	 * struct folio, in all. No CO-RE field relocation: libbpf finds
	 * memdesc_flags_t and a 6.1 kernel's unsigned long incompatible.
	 */
	if (bpf_probe_read_kernel(&flags, sizeof(flags), folio))
		count(CNT_READ_FAILURES);
	return flags;
}

static __always_inline __u64 folio_bytes(struct folio *folio)
{
	unsigned long head = 1UL << bpf_core_enum_value(enum pageflags, PG_head);
	__u64 order = 0;

	if (!(folio_flags(folio) & head))
		return 1ULL << page_shift;
	if (bpf_core_field_exists(struct folio___v61, _folio_order)) {
		struct folio___v61 *old = (void *)folio;

		order = BPF_CORE_READ(old, _folio_order);
	} else {
		order = BPF_CORE_READ(folio, _flags_1) & 0xff;
	}
	return (1ULL << page_shift) << order;
}

/*
 * bpf_loop callback NAME_cb around the inline body NAME: the one-iteration
 * case (a write within one page, a folio of one bitmap word) calls the body
 * without a BPF-to-BPF call, whose call and return cost 10-30 ns each on
 * hosts with return-thunk mitigations (this one: SRSO safe RET).
 */
#define LOOP_CB(name)						\
static long name##_cb(__u64 i, void *data)			\
{								\
	return name(i, data);					\
}

/* ---------------------------------------------------------------- paths */

struct path_walk {
	struct dentry *d;
	struct file_path *fp;
};

static long path_component_cb(__u64 i, void *data)
{
	struct path_walk *w = data;
	struct dentry *d = w->d;	/* not inside BPF_CORE_READ: not a kernel type */
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	const unsigned char *name;

	if (!parent || parent == d)
		return 1;		/* the filesystem's root */
	if (i >= PATH_MAX_COMPONENTS) {
		w->fp->truncated = 1;
		return 1;
	}
	name = BPF_CORE_READ(d, d_name.name);
	bpf_probe_read_kernel_str(w->fp->comp[i], PATH_COMPONENT_LEN, name);
	w->fp->depth = i + 1;
	w->d = parent;
	return 0;
}

static __always_inline struct dentry *inode_dentry(struct inode *inode)
{
	struct hlist_node *first = BPF_CORE_READ(inode, i_dentry.first);

	if (!first)
		return NULL;
	/* d_alias is the first member of the d_u union */
	return (void *)first - bpf_core_field_offset(struct dentry, d_u);
}

/*
 * Learns where a file is the first time it is seen. 'dentry' may be NULL:
 * then the inode's first alias is used. The link count is refreshed at
 * each writeback, so deleted files can be marked.
 */
__noinline int note_path(__u64 inode_ptr, __u64 dentry_ptr, __u32 dev, __u64 ino)
{
	struct inode *inode = (void *)inode_ptr;
	struct dentry *dentry = (void *)dentry_ptr;
	struct file_key fkey = { .ino = ino, .dev = dev }, *key = &fkey;
	struct path_walk w = {};
	struct file_key *seen;
	struct file_path *fp;
	__u32 zero = 0;

	seen = bpf_map_lookup_elem(&path_seen, &zero);
	if (!seen)
		return 0;
	if (bpf_map_lookup_elem(&paths, key)) {
		*seen = fkey;
		return 0;
	}
	fp = bpf_map_lookup_elem(&path_scratch, &zero);
	if (!fp)
		return 0;
	fp->depth = 0;
	fp->truncated = 0;
	fp->nlink = BPF_CORE_READ(inode, i_nlink);
	w.d = dentry ? dentry : inode_dentry(inode);
	w.fp = fp;
	if (w.d)
		bpf_loop(PATH_MAX_COMPONENTS + 1, path_component_cb, &w, 0);
	if (bpf_map_update_elem(&paths, key, fp, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&paths, key)) {
		count(CNT_PATH_MAP_FULL);
		return 0;
	}
	*seen = fkey;
	return 0;
}

/*
 * Whether this CPU last saw this file's path known: writeback goes through
 * a file's folios in a row, so the large paths map is looked up once per
 * run of folios, not per folio.
 */
static __always_inline bool path_seen_here(__u32 dev, __u64 ino)
{
	__u32 zero = 0;
	struct file_key *seen = bpf_map_lookup_elem(&path_seen, &zero);

	return seen && seen->ino == ino && seen->dev == dev;
}

/* ---------------------------------------------------------- page records */

static __always_inline __u64 page_hash(const struct page_key *k)
{
	__u64 h = (k->ino ^ ((__u64)k->dev << 32)) * 0x9e3779b97f4a7c15ULL;

	h ^= k->index * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

/* The set a page's record belongs to, and the page's tag in it (never 0). */
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
		/* claimed by the swap; a racing claimer moves on to the next way */
		if (s->tag[w] || __sync_val_compare_and_swap(&s->tag[w], 0, tag))
			continue;
		s->way[w].key = *key;
		s->way[w].rec = *fresh;
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

static __always_inline struct page_rec *page_rec_get(const struct page_key *key)
{
	static const struct page_rec zero;
	bool added;

	return page_get(key, &zero, &added);
}

/*
 * Moves a page's record to *out and frees it (out may be NULL: the record
 * is dropped); 0 if the page has none. A global function, verified once:
 * inlined, the way it found (one of eight values) multiplied the states of
 * everything after it in the writeback program (225 ms to load).
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

/* ---------------------------------------------------------------- write */

struct write_walk {
	struct page_key key;
	struct page_rec fresh;	/* the record of a page not written before */
	__u64 first_index;
	__u64 pos;
	__u64 end;
	__u32 block_bits;
};

/* Adds the part of one write that falls in page (first_index + i). */
static __always_inline long write_page(__u64 i, void *data)
{
	struct write_walk *w = data;
	__u64 page_size = 1ULL << page_shift;
	__u64 start, a, b, mask;
	struct page_rec *rec;
	bool added;

	w->key.index = w->first_index + i;
	start = w->key.index << page_shift;
	a = w->pos > start ? w->pos : start;
	b = w->end < start + page_size ? w->end : start + page_size;
	if (b <= a)
		return 1;
	mask = bit_range((a - start) >> w->block_bits, (b - 1 - start) >> w->block_bits);
	/* usually the page is clean and has no record: it gets this one */
	w->fresh.app_bytes = b - a;
	w->fresh.block_mask = mask;
	w->fresh.starts = i == 0;
	w->fresh.continues = i != 0;
	rec = page_get(&w->key, &w->fresh, &added);
	if (!rec)
		return 1;
	if (added)
		return 0;
	__sync_fetch_and_add(&rec->app_bytes, b - a);
	if (i == 0)
		__sync_fetch_and_add(&rec->starts, 1);
	else
		__sync_fetch_and_add(&rec->continues, 1);
	rec->block_mask |= mask;
	return 0;
}
LOOP_CB(write_page)

/*
 * One write of 'bytes' at 'pos'. From iomap_write_end it lies in one
 * folio; from the tracepoint it is a whole write(2), split here by page.
 */
static __always_inline void record_write(const struct inode_facts *fi, __u64 pos,
					 __u64 bytes)
{
	struct write_walk w = {};
	__u64 pages_spanned;

	count(CNT_WRITE_EVENTS);
	if (!bytes || !dev_wanted(fi->dev))
		return;
	if (!task_wanted()) {
		count(CNT_FILTERED_WRITES);
		return;
	}
	w.key.dev = fi->dev;
	w.key.ino = fi->ino;
	w.pos = pos;
	w.end = pos + bytes;
	w.block_bits = fi->blkbits;
	w.first_index = pos >> page_shift;
	pages_spanned = ((w.end - 1) >> page_shift) - w.first_index + 1;
	if (pages_spanned > IOMAPDIRTY_MAX_WRITE_PAGES) {
		count(CNT_WRITE_TOO_LARGE);
		pages_spanned = IOMAPDIRTY_MAX_WRITE_PAGES;
	}
	if (pages_spanned == 1)		/* the common case: no loop set-up */
		write_page(0, &w);
	else
		bpf_loop(pages_spanned, write_page_cb, &w, 0);
}

static __always_inline void record_write_core(struct inode *inode, __u64 pos, __u64 bytes)
{
	struct inode_facts fi = {};

	if (!bytes) {
		count(CNT_WRITE_EVENTS);
		return;
	}
	inode_facts_core(inode, &fi, false);
	record_write(&fi, pos, bytes);
}

/* A folio dirtied whole, not through write(2) (mmap, iomap_dirty_folio). */
static __always_inline void record_whole_dirty(struct inode *inode, struct folio *folio)
{
	struct page_key key = {};
	struct page_rec *rec;

	count(CNT_WHOLE_DIRTY_EVENTS);
	inode_ids(inode, &key.dev, &key.ino);
	if (!dev_wanted(key.dev))
		return;
	if (!task_wanted()) {
		count(CNT_FILTERED_WRITES);
		return;
	}
	key.index = BPF_CORE_READ(folio, index);
	rec = page_rec_get(&key);
	if (rec)
		rec->whole_dirty = 1;
}

/* ------------------------------------------------------------ writeback */

/*
 * A thread's finished folios are summed in its context (acc, plain adds:
 * nobody else writes it) while it stays in one file, and folded into the
 * shared per-file and per-filesystem totals (two hash lookups, atomic
 * adds) only when it moves to another file, when the sum is older than
 * ACC_MAX_NS, or when user space flushes before a report: writeback goes
 * through a file's folios in a row, so most folios cost no shared update.
 */
#define ACC_MAX_NS	(100 * 1000 * 1000ULL)

static __always_inline void acc_add_folio(struct wa_stats *s, struct wb_ctx *c,
					  __u64 dirty_blocks, __u64 now)
{
	s->app_bytes += c->app_bytes;
	s->write_calls += c->write_calls;
	s->app_dirty_blocks += c->app_dirty_blocks;
	s->other_dirty_blocks += c->other_dirty_blocks;
	s->dirty_blocks += dirty_blocks;
	s->app_dirty_bytes += c->app_dirty_blocks << c->block_bits;
	s->dirty_bytes += dirty_blocks << c->block_bits;
	s->whole_folio_dirty_events += c->whole_dirty;
	s->other_dirty_folios += c->other_dirty_blocks ? 1 : 0;
	s->folios += 1;
	if (!dirty_blocks) {
		s->folios_no_dirty_seen += 1;
		s->unseen_submitted_blocks += c->submitted_blocks;
	}
	s->folio_bytes += c->folio_bytes;
	if (c->folio_bytes > s->max_folio_bytes)
		s->max_folio_bytes = c->folio_bytes;
	s->block_bytes = 1ULL << (c->block_bits & 63);
	s->submitted_blocks += c->submitted_blocks;
	s->submitted_bytes += c->submitted_bytes;
	s->kernel_dirty_blocks += c->kernel_dirty_blocks;
	s->bitmap_folios += c->bitmap_read;
	s->hole_bytes += c->hole_bytes;
	s->violation_blocks += c->violation_blocks;
	s->violation_folios += c->violation_blocks ? 1 : 0;
	s->unexplained_blocks += c->unexplained_blocks;
	s->unchecked_blocks += c->unchecked_blocks;
	s->nlink = c->nlink;
	s->last_ns = now;
}

/* Adds v to *f, atomically, and only if there is something to add. */
#define ADD_IF(f, v) do { if (v) __sync_fetch_and_add(&(f), (v)); } while (0)

/* Several CPUs may fold sums of one file at once: atomic adds. */
static __always_inline void stats_merge(struct wa_stats *s, const struct wa_stats *a)
{
	ADD_IF(s->app_bytes, a->app_bytes);
	ADD_IF(s->write_calls, a->write_calls);
	ADD_IF(s->app_dirty_blocks, a->app_dirty_blocks);
	ADD_IF(s->other_dirty_blocks, a->other_dirty_blocks);
	ADD_IF(s->dirty_blocks, a->dirty_blocks);
	ADD_IF(s->app_dirty_bytes, a->app_dirty_bytes);
	ADD_IF(s->dirty_bytes, a->dirty_bytes);
	ADD_IF(s->whole_folio_dirty_events, a->whole_folio_dirty_events);
	ADD_IF(s->other_dirty_folios, a->other_dirty_folios);
	ADD_IF(s->folios, a->folios);
	ADD_IF(s->folios_no_dirty_seen, a->folios_no_dirty_seen);
	ADD_IF(s->folio_bytes, a->folio_bytes);
	if (a->max_folio_bytes > s->max_folio_bytes)
		s->max_folio_bytes = a->max_folio_bytes;
	s->block_bytes = a->block_bytes;
	ADD_IF(s->submitted_blocks, a->submitted_blocks);
	ADD_IF(s->submitted_bytes, a->submitted_bytes);
	ADD_IF(s->unseen_submitted_blocks, a->unseen_submitted_blocks);
	ADD_IF(s->kernel_dirty_blocks, a->kernel_dirty_blocks);
	ADD_IF(s->bitmap_folios, a->bitmap_folios);
	ADD_IF(s->hole_bytes, a->hole_bytes);
	ADD_IF(s->violation_blocks, a->violation_blocks);
	ADD_IF(s->violation_folios, a->violation_folios);
	ADD_IF(s->unexplained_blocks, a->unexplained_blocks);
	ADD_IF(s->unchecked_blocks, a->unchecked_blocks);
	s->nlink = a->nlink;
	s->last_ns = a->last_ns;
}

static __always_inline struct wa_stats *stats_get(void *map, void *key,
						  enum counter_id full)
{
	static const struct wa_stats zero;
	struct wa_stats *s = bpf_map_lookup_elem(map, key);

	if (s)
		return s;
	bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(map, key);
	if (!s)
		count(full);
	return s;
}

static __always_inline void note_violation(struct wb_ctx *c, __u64 dirty)
{
	struct violation v = {
		.first_offset = c->folio_pos + c->first_violation - 1,
		.clean_blocks = c->violation_blocks,
		.folio_bytes = c->folio_bytes,
		.dirty_blocks = dirty,
	};
	/* on the stack: before 6.2 a global function's argument cannot be a map key */
	struct page_key key = c->key;

	/* the first offenders are kept; once full, later ones are counted */
	if (bpf_map_update_elem(&violations, &key, &v, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&violations, &key))
		count(CNT_VIOLATION_MAP_FULL);
}

/* Folds a thread's sum into the shared per-file and per-filesystem totals. */
__noinline int acc_fold(struct wb_ctx *c)
{
	struct file_key fkey = {};
	struct wa_stats *s;
	__u32 dev;

	if (!c || !c->acc_folios)
		return 0;
	fkey.ino = c->acc_key.ino;
	fkey.dev = c->acc_key.dev;
	dev = c->acc_key.dev;
	s = stats_get(&files, &fkey, CNT_FILE_MAP_FULL);
	if (s)
		stats_merge(s, &c->acc);
	s = stats_get(&filesystems, &dev, CNT_FS_MAP_FULL);
	if (s)
		stats_merge(s, &c->acc);
	c->acc_folios = 0;
	return 0;
}

/*
 * Folds one finished folio writeback into the thread's sum and the
 * histograms. A global function: the verifier checks it once, not at
 * every caller.
 */
__noinline int finish_folio(struct wb_ctx *c, __u64 now)
{
	__u64 dirty;

	/* a global function's pointer argument may be NULL: check first */
	if (!c || !c->counted)
		return 0;
	dirty = c->app_dirty_blocks + c->other_dirty_blocks;
	if (c->acc_folios && (c->acc_key.ino != c->key.ino || c->acc_key.dev != c->key.dev))
		acc_fold(c);
	if (!c->acc_folios) {
		__builtin_memset(&c->acc, 0, sizeof(c->acc));
		c->acc_key.ino = c->key.ino;
		c->acc_key.dev = c->key.dev;
		c->acc_first_ns = now;
	}
	acc_add_folio(&c->acc, c, dirty, now);
	c->acc_folios++;
	hist_add(HIST_DIRTY_BLOCKS, log2_bucket(dirty));
	hist_add(HIST_SUBMITTED_BLOCKS, log2_bucket(c->submitted_blocks));
	hist_add(HIST_FOLIO_BYTES, log2_bucket(c->folio_bytes));
	if (dirty)
		hist_add(HIST_AMPLIFICATION, amp_bucket(c->submitted_blocks, dirty));
	if (dirty && c->violation_blocks)
		note_violation(c, dirty);
	if (now - c->acc_first_ns >= ACC_MAX_NS)
		acc_fold(c);
	return 0;
}

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
 * flush_ctx()), else an entry of wb_ctxs.
 */
static __always_inline struct wb_ctx *ctx_create(__u32 tid, struct folio_bits *bits)
{
	__u32 slot = tid % CTX_SLOTS;
	struct wb_ctx *c = bpf_map_lookup_elem(&ctx_slots, &slot);

	if (c && tid && !c->owner && !__sync_val_compare_and_swap(&c->owner, 0, tid))
		return c;
	if (bpf_map_update_elem(&wb_ctxs, &tid, &bits->zero_ctx, BPF_NOEXIST))
		count(CNT_CTX_MAP_FULL);
	return bpf_map_lookup_elem(&wb_ctxs, &tid);
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
						 struct folio_bits *bits, __u64 now)
{
	struct wb_ctx *c = ctx_find(tid);

	ctx_finish(c, now);
	if (!wanted)
		return NULL;
	if (!c)
		c = ctx_create(tid, bits);
	if (c)
		__builtin_memset(c, 0, __builtin_offsetof(struct wb_ctx, dirty));
	return c;
}

struct collect_walk {
	struct wb_ctx *c;
	struct folio_bits *bits;
	__u64 npages;			/* pages of the folio looked at */
	__u64 word;			/* collect_dirty_word_cb: the word */
	__u64 word_first_page;		/* its first page */
	__u32 blocks_per_page_shift;	/* log2(blocks per page) */
	bool guided;			/* only pages with kernel dirty bits */
};

/* Adds the write record of page i of the folio (taken) to the folio's context. */
static __always_inline void collect_page(struct collect_walk *w, __u64 i,
					 const struct page_rec *rec)
{
	__u64 bit = i << w->blocks_per_page_shift, word = bit / 64;

	w->c->app_bytes += rec->app_bytes;
	w->c->write_calls += rec->starts + (i == 0 ? rec->continues : 0);
	w->c->whole_dirty |= rec->whole_dirty;
	if (word < IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		w->bits->app[word] |= rec->block_mask << (bit % 64);
}

/*
 * Page i (>= 1) of the folio. With the kernel's bitmap read, a page none
 * of whose blocks is dirty has no write since the last writeback (a write
 * dirties what it copies), so its record is not looked for: a 2 MiB folio
 * with one dirty block costs one lookup, not 512.
 */
static __always_inline long collect_page_at(struct collect_walk *w, __u64 i)
{
	struct page_key key = w->c->key;
	__u64 shift = w->blocks_per_page_shift;
	__u64 first = i << shift, word = first / 64, dirty;
	struct page_rec rec = {};

	if (w->guided) {
		if (word >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
			return 1;
		dirty = w->bits->kern[word];
		if (shift < 6)		/* the page's blocks within the word */
			dirty &= ((1ULL << (1U << shift)) - 1) << (first % 64);
		else if (shift == 7 && word + 1 < IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
			dirty |= w->bits->kern[word + 1];	/* 128 blocks */
		if (!dirty)
			return 0;
	}
	key.index += i;
	if (page_take(&key, &rec))
		collect_page(w, i, &rec);
	return 0;
}

static long collect_page_cb(__u64 n, void *data)
{
	return collect_page_at(data, n + 1);
}

/* Page word_first_page + j of the word being walked, if it has a dirty block. */
static long collect_word_page_cb(__u64 j, void *data)
{
	struct collect_walk *w = data;
	__u64 shift = w->blocks_per_page_shift, at = j << shift;
	__u64 i = w->word_first_page + j;

	if (at >= 64 || !(w->word >> at) || i >= w->npages)
		return 1;	/* no dirty block further in this word */
	if (i == 0 || !((w->word >> at) & ((1ULL << (1U << shift)) - 1)))
		return 0;	/* page 0 is taken first, by the caller */
	return collect_page_at(w, i);
}

/*
 * Word w of the kernel's dirty bitmap, where a word holds several pages
 * (fewer than 64 blocks per page): a clean word costs one test, not a
 * callback per page, so a 2 MiB folio with one dirty block costs 32
 * tests and one page's lookup, not 511 callbacks. (A plain loop over the
 * word's pages instead of the inner bpf_loop took the verifier 2.4 s.)
 */
static long collect_dirty_word_cb(__u64 w, void *data)
{
	struct collect_walk *cw = data;
	__u64 shift = cw->blocks_per_page_shift;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2 || shift >= 6)
		return 1;
	cw->word = cw->bits->kern[w];
	if (!cw->word)
		return 0;
	cw->word_first_page = w << (6 - shift);
	bpf_loop(1U << (6 - shift), collect_word_page_cb, cw, 0);
	return 0;
}

struct bits_walk {
	struct wb_ctx *c;
	struct folio_bits *bits;
	unsigned long *state;
	__u64 nr_blocks;
	__u64 eof_blocks;
};

static __always_inline long zero_word(__u64 w, void *data)
{
	struct bits_walk *b = data;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	b->bits->app[w] = 0;
	b->bits->kern[w] = 0;
	return 0;
}
LOOP_CB(zero_word)

/* Reads the per-block dirty bits of a folio whose private data is priv. */
static __always_inline int read_kernel_dirty(void *priv, struct bits_walk *b)
{
	__u64 nr = b->nr_blocks, word = 0, kern;

	if (bitmap_kind == BITMAP_IFS)
		b->state = priv + bpf_core_field_offset(struct iomap_folio_state, state);
	else if (bitmap_kind == BITMAP_IOP_STATE)
		b->state = priv + bpf_core_field_offset(struct iomap_page___rfc, state);
	else
		return -1;

	if (nr >= 64) {
		/* uptodate words [0, nr/64), then as many dirty words: one read */
		__u64 words = nr / 64, bytes;

		if (words > IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
			words = IOMAPDIRTY_MAX_BITMAP_WORDS / 2;
		/* a bound the verifier keeps (clang may rewrite the one above) */
		bytes = (words * sizeof(__u64)) & (2 * sizeof(b->bits->kern) - 1);
		return bpf_probe_read_kernel(b->bits->kern, bytes, b->state + nr / 64) ? -1 : 0;
	}
	/* uptodate bits [0, nr) and dirty bits [nr, 2nr) share words */
	if (bpf_probe_read_kernel(&word, sizeof(word), b->state))
		return -1;
	kern = word >> nr;
	if (2 * nr > 64) {
		if (bpf_probe_read_kernel(&word, sizeof(word), b->state + 1))
			return -1;
		kern |= word << (64 - nr);
	}
	b->bits->kern[0] = kern & ((1ULL << nr) - 1);
	return 0;
}

static __always_inline __u64 blocks_before_eof(const struct inode_facts *fi,
					       struct wb_ctx *c, __u64 nr_blocks)
{
	__u64 bsize = 1ULL << c->block_bits;
	__u64 n;

	if (fi->size <= c->folio_pos)
		return 0;
	n = (fi->size - c->folio_pos + bsize - 1) >> c->block_bits;
	return n < nr_blocks ? n : nr_blocks;
}

/* Bits [0, n) of word w of a bitmap. */
static __always_inline __u64 first_bits_word(__u64 n, __u64 w)
{
	if (n <= w * 64)
		return 0;
	return n - w * 64 >= 64 ? ~0ULL : (1ULL << (n - w * 64)) - 1;
}

/*
 * Counts word w: app = blocks write(2) touched; other = blocks dirty for
 * another reason (whole-folio dirtying such as mmap, or dirty in the
 * kernel's bitmap without a write we saw).
 */
static __always_inline long count_word(__u64 w, void *data)
{
	struct bits_walk *b = data;
	struct wb_ctx *c = b->c;
	__u64 app, kern, dirty;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	app = b->bits->app[w];
	kern = b->bits->kern[w];
	dirty = app;
	if (c->whole_dirty)
		dirty |= first_bits_word(b->eof_blocks, w);
	if (c->bitmap_read) {
		dirty |= kern;
		c->kernel_dirty_blocks += popcount64(kern);
	}
	c->app_dirty_blocks += popcount64(app);
	c->other_dirty_blocks += popcount64(dirty & ~app);
	c->dirty[w] = dirty;
	c->seen[w] = app | (c->whole_dirty ? first_bits_word(b->eof_blocks, w) : 0);
	return 0;
}
LOOP_CB(count_word)

/* No state to read: writeback treats every block up to EOF as dirty. */
static long all_dirty_word_cb(__u64 w, void *data)
{
	struct bits_walk *b = data;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	b->bits->kern[w] = first_bits_word(b->eof_blocks, w);
	return 0;
}

/* What writeback reads of a folio. */
struct folio_head {
	__u64 mapping;
	__u64 index;
	__u64 priv;		/* iomap_folio_state (iomap_page in RFCv4) */
};

/*
 * One probe read where the three fields are adjacent in struct folio (every
 * kernel so far: the offsets are relocated at load, the test is constant),
 * three otherwise.
 */
static __always_inline int folio_head_read(struct folio *folio, struct folio_head *h)
{
	__u32 at = bpf_core_field_offset(struct folio, mapping);

	if (bpf_core_field_offset(struct folio, index) == at + 8 &&
	    bpf_core_field_offset(struct folio, private) == at + 16)
		return bpf_probe_read_kernel(h, sizeof(*h), (void *)folio + at);
	h->mapping = (__u64)BPF_CORE_READ(folio, mapping);
	h->index = BPF_CORE_READ(folio, index);
	h->priv = (__u64)BPF_CORE_READ(folio, private);
	return 0;
}

/*
 * The folio pointer a first page's record kept since the folio went clean
 * -> dirty, its head read into h; NULL if none, or if the folio was freed
 * and reused since.
 */
static __always_inline struct folio *recorded_folio(const struct inode_facts *fi,
						    __u64 ptr, __u64 index,
						    struct folio_head *h)
{
	struct folio *folio = (struct folio *)ptr;

	if (!ptr) {
		if (bitmap_kind != BITMAP_NONE)
			count(CNT_FOLIO_PTR_MISSING);
		return NULL;
	}
	if (folio_head_read(folio, h) || h->mapping != fi->mapping || h->index != index) {
		count(CNT_FOLIO_PTR_STALE);
		return NULL;
	}
	return folio;
}

/*
 * Fills bits->kern with the blocks the kernel holds dirty in this folio;
 * returns 1 if that came from the folio's own bitmap, 0 if the kernel's
 * view is known otherwise (one block; no bitmap yet: all dirty), -1 if it
 * is unknown.
 */
static __always_inline int kernel_dirty_view(struct folio *folio, const struct folio_head *h,
					     struct bits_walk *bw, __u64 nwords)
{
	if (bw->nr_blocks == 1) {
		bw->bits->kern[0] = 1;
		return 0;
	}
	if (!folio || bitmap_kind == BITMAP_NONE)
		return -1;
	if (h->priv)
		return read_kernel_dirty((void *)h->priv, bw) == 0 ? 1 : -1;
	bpf_loop(nwords, all_dirty_word_cb, bw, 0);
	return 0;
}

/*
 * Fills a thread's context, just reset by ctx_begin(), for the folio f:
 * takes its page records, reads the kernel's dirty bits. A global
 * function: the context comes from either of two maps (ctx_slots,
 * wb_ctxs), and inlined, everything here was verified once for each.
 */
__noinline int wb_fill(struct wb_ctx *c, struct folio_bits *bits)
{
	const struct wb_folio *f;
	struct folio *folio;
	const struct inode_facts *fi;
	struct collect_walk walk = {};
	struct bits_walk bw = {};
	struct page_rec rec0 = {};
	struct folio_head head = {};
	__u64 nr_blocks, npages, nwords;
	int view, have0;

	if (!c || !bits)
		return 0;
	f = &bits->folio;
	fi = &f->fi;
	folio = (struct folio *)f->folio;
	c->active = 1;
	c->key.dev = fi->dev;
	c->key.ino = fi->ino;
	c->key.index = f->pos >> page_shift;
	c->folio_pos = f->pos;
	c->folio_bytes = f->bytes;
	c->start_ns = f->now;
	c->nlink = fi->nlink;
	c->block_bits = fi->blkbits;
	if (c->block_bits > page_shift || c->block_bits < 9)
		return 0;	/* block larger than a page: not tracked per page */
	nr_blocks = f->bytes >> c->block_bits;

	nwords = (nr_blocks + 63) / 64;
	bw.c = c;
	bw.bits = bits;
	bw.nr_blocks = nr_blocks;
	if (nwords == 1)
		zero_word(0, &bw);
	else
		bpf_loop(nwords, zero_word_cb, &bw, 0);

	/*
	 * The first page's record: its writes, and the folio pointer. The
	 * stacks of the program, this function, the nested bpf_loop callbacks
	 * and page_take() must stay within 512 bytes together (6.1 counts a
	 * callback as a call, at least 32 bytes): 448 now.
	 */
	have0 = page_take(&c->key, &rec0);
	if (!folio)
		folio = recorded_folio(fi, have0 ? rec0.folio_ptr : 0, c->key.index, &head);
	else if (folio_head_read(folio, &head))
		folio = NULL;
	/* The kernel's own view of which blocks are dirty, where it has one. */
	view = kernel_dirty_view(folio, &head, &bw, nwords);
	c->bitmap_read = view >= 0;

	npages = f->bytes >> page_shift;
	if (npages > IOMAPDIRTY_MAX_FOLIO_PAGES) {
		count(CNT_FOLIO_TOO_LARGE);
		npages = IOMAPDIRTY_MAX_FOLIO_PAGES;
	}
	walk.c = c;
	walk.bits = bits;
	walk.blocks_per_page_shift = page_shift - c->block_bits;
	walk.guided = view == 1 && walk.blocks_per_page_shift <= 7;
	walk.npages = npages;
	if (have0)
		collect_page(&walk, 0, &rec0);
	if (npages > 1 && walk.guided && walk.blocks_per_page_shift < 6)
		bpf_loop(nwords, collect_dirty_word_cb, &walk, 0);
	else if (npages > 1)
		bpf_loop(npages - 1, collect_page_cb, &walk, 0);

	bw.eof_blocks = blocks_before_eof(fi, c, nr_blocks);
	if (nwords == 1)
		count_word(0, &bw);
	else
		bpf_loop(nwords, count_word_cb, &bw, 0);
	if (simulate_clean_every && c->dirty[0] &&
	    c->key.index % simulate_clean_every == 0) {
		__u64 lowest = c->dirty[0] & -c->dirty[0];

		c->dirty[0] &= ~lowest;
		c->seen[0] &= ~lowest;
		count(CNT_SIMULATED_FOLIOS);
	}
	/*
	 * Clean blocks can be told apart only when the whole dirty state is
	 * known: the kernel's bitmap was read, or the kernel has none and
	 * this folio's dirtying was seen (not dirtied before attach).
	 */
	c->checkable = c->bitmap_read ||
		(bitmap_kind == BITMAP_NONE && (c->app_bytes || c->whole_dirty));
	c->counted = 1;
	if ((target_tgid || filter_comm) && !c->app_bytes && !c->whole_dirty) {
		/* nothing of the wanted process in this folio */
		c->counted = 0;
		count(CNT_FILTERED_FOLIOS);
	}
	return 0;
}

/*
 * Start of one folio's writeback. 'folio' is NULL in tracepoint mode: it
 * is then taken from the first page's record (recorded_folio()), and
 * without one the kernel's dirty bitmap is unknown. The inode pointer is
 * only needed (by note_path(), as an integer) the first time a file is
 * seen: 'inode' holds it, or else 'inode_slot' (a tp_btf argument, whose
 * typed value the verifier does not let become an integer) is read.
 */
static __always_inline void wb_begin(const struct inode_facts *fi, __u64 inode,
				     const void *inode_slot, struct folio *folio,
				     __u64 fpos, __u64 fbytes)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero_key = 0;
	struct folio_bits *bits;
	struct wb_folio *f;
	struct wb_ctx *c;

	count(CNT_WB_START_EVENTS);
	bits = bpf_map_lookup_elem(&scratch, &zero_key);
	if (!bits)
		return;
	f = &bits->folio;
	f->fi = *fi;
	f->folio = (__u64)folio;
	f->pos = fpos;
	f->bytes = fbytes;
	f->now = bpf_ktime_get_ns();
	c = ctx_begin(tid, dev_wanted(fi->dev), bits, f->now);
	if (!c)
		return;
	if (!path_seen_here(fi->dev, fi->ino)) {
		if (!inode)
			bpf_probe_read_kernel(&inode, sizeof(inode), inode_slot);
		note_path(inode, 0, fi->dev, fi->ino);
	}
	wb_fill(c, bits);
}

struct submit_walk {
	struct wb_ctx *c;
	__u64 first_block;	/* in the folio */
	struct phys_key phys;	/* first physical block, when tracked */
	__u32 fs_dev;
};

/*
 * Checks one submitted block against the folio's dirty blocks, and in
 * verify mode remembers its physical block for the bio that carries it.
 */
static __always_inline long submit_block(__u64 i, void *data)
{
	struct submit_walk *w = data;
	struct wb_ctx *c = w->c;
	__u64 b = w->first_block + i, word = b / 64, bit = 1ULL << (b % 64);

	if (word >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	if (!c->checkable) {
		c->unchecked_blocks++;
	} else if (!(c->dirty[word] & bit)) {
		if (!c->violation_blocks)
			c->first_violation = (b << c->block_bits) + 1;
		c->violation_blocks++;
	} else if (!(c->seen[word] & bit)) {
		c->unexplained_blocks++;
	}
	if (track_physical) {
		struct phys_key key = w->phys;

		key.block += i;
		if (bpf_map_update_elem(&pending_phys, &key, &w->fs_dev, BPF_ANY))
			count(CNT_PHYS_MAP_FULL);
	}
	return 0;
}
LOOP_CB(submit_block)

/* What the submit hook needs of the iomap the range is mapped by. */
struct iomap_facts {
	__u64 offset;
	__u64 length;
	__u64 addr;		/* verify only */
	__u32 bdev;		/* verify only */
	__u16 type;
};

static __always_inline void iomap_facts_core(struct iomap *iomap, struct iomap_facts *m)
{
	m->type = BPF_CORE_READ(iomap, type);
	m->offset = BPF_CORE_READ(iomap, offset);
	m->length = BPF_CORE_READ(iomap, length);
	if (track_physical) {
		m->addr = BPF_CORE_READ(iomap, addr);
		m->bdev = BPF_CORE_READ(iomap, bdev, bd_dev);
	}
}

/* Only where 'iomap' is a BTF-typed pointer (tp_btf arguments). */
static __always_inline void iomap_facts_btf(struct iomap *iomap, struct iomap_facts *m)
{
	m->type = iomap->type;
	m->offset = iomap->offset;
	m->length = iomap->length;
	if (track_physical) {
		m->addr = iomap->addr;
		m->bdev = iomap->bdev->bd_dev;
	}
}

/* A range of the current folio goes to the device (or maps a hole). */
static __always_inline void wb_submit(__u32 dev, __u64 ino, __u64 pos, __u64 len,
				      const struct iomap_facts *m)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 map_len = len, end, nblocks;
	struct submit_walk w = {};
	struct wb_ctx *c;

	count(CNT_SUBMIT_EVENTS);
	if (!dev_wanted(dev))
		return;
	c = ctx_find(tid);
	if (!c || !c->active || c->key.dev != dev || c->key.ino != ino) {
		count(CNT_SUBMIT_WITHOUT_FOLIO);
		return;
	}
	if (submit_proto == SUBMIT_PER_BLOCK) {
		/* no offset in this tracepoint: which block is unknown */
		if (m->type != IOMAP_HOLE_TYPE) {
			c->submitted_bytes += 1ULL << c->block_bits;
			c->submitted_blocks += 1;
			c->unchecked_blocks += 1;
		} else {
			c->hole_bytes += 1ULL << c->block_bits;
		}
		return;
	}
	if (pos < c->folio_pos || pos >= c->folio_pos + c->folio_bytes) {
		count(CNT_SUBMIT_WITHOUT_FOLIO);
		return;
	}
	/* the same formula the kernel uses right after the tracepoint */
	end = m->offset + m->length;
	if (end > pos && end - pos < map_len)
		map_len = end - pos;
	if (m->type == IOMAP_HOLE_TYPE) {
		c->hole_bytes += map_len;
		return;
	}
	nblocks = (map_len + (1ULL << c->block_bits) - 1) >> c->block_bits;
	c->submitted_bytes += map_len;
	c->submitted_blocks += nblocks;

	w.c = c;
	w.first_block = (pos - c->folio_pos) >> c->block_bits;
	if (track_physical) {
		__u64 addr = m->addr + (pos - m->offset);
		__u32 bits = c->block_bits;

		w.phys.dev = m->bdev;
		w.phys.block = addr >> c->block_bits;
		w.fs_dev = dev;
		bpf_map_update_elem(&dev_block_bits, &w.phys.dev, &bits, BPF_ANY);
	}
	if (nblocks == 1)
		submit_block(0, &w);
	else
		bpf_loop(nblocks, submit_block_cb, &w, 0);
}

static __always_inline void wb_end(void)
{
	count(CNT_WB_END_EVENTS);
	finish_thread_folio((__u32)bpf_get_current_pid_tgid());
}

/* ---------------------------------------------------------- tracepoints */
/*
 * Each tracepoint hook has two programs: tp_btf ("btf_" names), whose
 * arguments the verifier knows as kernel types, so fields are plain loads;
 * and raw_tp ("tp_" names), where every field is a probe read, for kernels
 * or policies that refuse tp_btf. The plan says which one is attached.
 */

/* clean -> dirty; in tracepoint mode this is where the folio is learnt */
static __always_inline void on_dirty_folio(const struct inode_facts *fi, __u64 folio,
					   __u64 index)
{
	struct page_key key = {};
	struct page_rec *rec;

	if (!dev_wanted(fi->dev))
		return;
	key.dev = fi->dev;
	key.ino = fi->ino;
	key.index = index;
	/* a write(2) recorded this page just before: usually a lookup only */
	rec = page_rec_get(&key);
	if (rec)
		rec->folio_ptr = folio;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(btf_xfs_buffered_write, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode_facts fi = {};
	__u64 bytes;

	if (!iocb || !from || !iocb->ki_filp)
		return 0;
	bytes = from->count;
	if (!bytes) {
		count(CNT_WRITE_EVENTS);
		return 0;
	}
	inode_facts_btf(iocb->ki_filp->f_inode, &fi, false);
	record_write(&fi, iocb->ki_pos, bytes);
	return 0;
}

SEC("raw_tp/xfs_file_buffered_write")
int BPF_PROG(tp_xfs_buffered_write, struct kiocb *iocb, struct iov_iter *from)
{
	record_write_core(BPF_CORE_READ(iocb, ki_filp, f_inode),
			  BPF_CORE_READ(iocb, ki_pos), BPF_CORE_READ(from, count));
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode_facts fi = {};
	struct inode *inode;

	count(CNT_DIRTY_FOLIO_EVENTS);
	/* some tracepoint arguments may be NULL: the verifier insists */
	if (!mapping || !folio)
		return 0;
	inode = mapping->host;
	if (!inode)
		return 0;
	inode_facts_btf(inode, &fi, false);
	on_dirty_folio(&fi, (__u64)folio, folio->index);
	return 0;
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(tp_dirty_folio, struct folio *folio, struct address_space *mapping)
{
	struct inode *inode = BPF_CORE_READ(mapping, host);
	struct inode_facts fi = {};

	count(CNT_DIRTY_FOLIO_EVENTS);
	if (!inode)
		return 0;
	inode_facts_core(inode, &fi, false);
	on_dirty_folio(&fi, (__u64)folio, BPF_CORE_READ(folio, index));
	return 0;
}

/* 6.17+ iomap_writeback_folio, 6.1-6.16 iomap_writepage: (inode, pos, len) */
SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(btf_wb_folio, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};

	if (!inode)
		return 0;
	inode_facts_btf(inode, &fi, true);
	wb_begin(&fi, 0, &ctx[0], NULL, pos, len);
	return 0;
}

SEC("raw_tp/iomap_writeback_folio")
int BPF_PROG(tp_wb_folio, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};

	inode_facts_core(inode, &fi, true);
	wb_begin(&fi, (__u64)inode, NULL, NULL, pos, len);
	return 0;
}

/* 6.17+ iomap_add_to_ioend, 6.9-6.16 iomap_writepage_map */
SEC("tp_btf/iomap_add_to_ioend")
int BPF_PROG(btf_submit_range, struct inode *inode, u64 pos, unsigned int dirty_len,
	     struct iomap *iomap)
{
	struct iomap_facts m = {};

	if (!inode || !iomap)
		return 0;
	iomap_facts_btf(iomap, &m);
	wb_submit(inode->i_sb->s_dev, inode->i_ino, pos, dirty_len, &m);
	return 0;
}

SEC("raw_tp/iomap_add_to_ioend")
int BPF_PROG(tp_submit_range, struct inode *inode, u64 pos, unsigned int dirty_len,
	     struct iomap *iomap)
{
	struct iomap_facts m = {};
	__u32 dev;
	__u64 ino;

	inode_ids(inode, &dev, &ino);
	iomap_facts_core(iomap, &m);
	wb_submit(dev, ino, pos, dirty_len, &m);
	return 0;
}

/* 6.1-6.8 iomap_writepage_map: one event per block mapped */
SEC("tp_btf/iomap_writepage_map")
int BPF_PROG(btf_submit_block, struct inode *inode, struct iomap *iomap)
{
	struct iomap_facts m = {};

	if (!inode || !iomap)
		return 0;
	iomap_facts_btf(iomap, &m);
	wb_submit(inode->i_sb->s_dev, inode->i_ino, 0, 0, &m);
	return 0;
}

SEC("raw_tp/iomap_writepage_map")
int BPF_PROG(tp_submit_block, struct inode *inode, struct iomap *iomap)
{
	struct iomap_facts m = {};
	__u32 dev;
	__u64 ino;

	inode_ids(inode, &dev, &ino);
	iomap_facts_core(iomap, &m);
	wb_submit(dev, ino, 0, 0, &m);
	return 0;
}

struct invalidate_walk {
	struct page_key key;
	__u64 first;
};

static long invalidate_page_cb(__u64 i, void *data)
{
	struct invalidate_walk *w = data;

	w->key.index = w->first + i;
	page_take(&w->key, NULL);
	return 0;
}

/* Dirty data thrown away (truncate, hole punch): forget its records. */
SEC("raw_tp/iomap_invalidate_folio")
int BPF_PROG(tp_invalidate, struct inode *inode, loff_t off, u64 len)
{
	__u64 page_size = 1ULL << page_shift;
	struct invalidate_walk w = {};
	__u64 first, last;

	count(CNT_INVALIDATE_EVENTS);
	inode_ids(inode, &w.key.dev, &w.key.ino);
	if (!dev_wanted(w.key.dev) || !len)
		return 0;
	/* only pages wholly inside the range */
	first = (off + page_size - 1) >> page_shift;
	last = (off + len) >> page_shift;
	if (last <= first)
		return 0;
	w.first = first;
	bpf_loop(last - first > IOMAPDIRTY_MAX_FOLIO_PAGES ?
		 IOMAPDIRTY_MAX_FOLIO_PAGES : last - first,
		 invalidate_page_cb, &w, 0);
	return 0;
}

/* Per-bio tallies live in a map value: counters on the stack would give
 * the verifier a new state for every iteration of the callback. */
struct bio_tally {
	__u64 matched;
	__u64 unmatched;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bio_tally);
} bio_scratch SEC(".maps");

struct bio_walk {
	struct phys_key key;
	struct bio_tally *tally;
};

static long bio_block_cb(__u64 i, void *data)
{
	struct bio_walk *w = data;
	struct phys_key key = w->key;

	key.block += i;
	if (bpf_map_delete_elem(&pending_phys, &key) == 0)
		w->tally->matched++;
	else
		w->tally->unmatched++;
	return 0;
}

/* Verify: a write bio reaches the block layer; which of it is our data? */
SEC("raw_tp/block_bio_queue")
int BPF_PROG(tp_bio_queue, struct bio *bio)
{
	static const struct bio_stats zero;
	struct bio_walk w = {};
	struct bio_stats *st;
	__u64 sector, size, matched, unmatched;
	__u32 *bits, dev, zero_key = 0, shift;

	/* REQ_OP_WRITE is 1 and the op is the low byte of bi_opf */
	if ((BPF_CORE_READ(bio, bi_opf) & 0xff) != 1)
		return 0;
	dev = BPF_CORE_READ(bio, bi_bdev, bd_dev);
	bits = bpf_map_lookup_elem(&dev_block_bits, &dev);
	if (!bits)
		return 0;	/* no data submitted to this device yet */
	shift = *bits & 63;
	w.tally = bpf_map_lookup_elem(&bio_scratch, &zero_key);
	if (!w.tally)
		return 0;
	w.tally->matched = 0;
	w.tally->unmatched = 0;
	count(CNT_BIO_EVENTS);
	sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	size = BPF_CORE_READ(bio, bi_iter.bi_size);
	w.key.dev = dev;
	w.key.block = (sector << 9) >> shift;
	bpf_loop(size >> shift, bio_block_cb, &w, 0);
	matched = w.tally->matched;
	unmatched = w.tally->unmatched;

	st = bpf_map_lookup_elem(&bio_stats_map, &dev);
	if (!st) {
		bpf_map_update_elem(&bio_stats_map, &dev, &zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&bio_stats_map, &dev);
		if (!st)
			return 0;
	}
	__sync_fetch_and_add(&st->write_bios, 1);
	if (matched && !unmatched)
		__sync_fetch_and_add(&st->matched_bios, 1);
	else if (matched)
		__sync_fetch_and_add(&st->partial_bios, 1);
	else
		__sync_fetch_and_add(&st->unmatched_bios, 1);
	__sync_fetch_and_add(&st->matched_bytes, matched << shift);
	__sync_fetch_and_add(&st->unmatched_bytes, size - (matched << shift));
	return 0;
}

struct flush_args {
	__u64 idle_ns;
	__u64 finish_active;	/* no end event in this plan, or the last flush */
	__u64 now;
};

/*
 * Folds the sum of a context idle for args->idle_ns, and finishes its folio
 * if asked; true if the thread has gone quiet (idle a second, no folio in
 * progress): its context may be freed.
 */
static __always_inline bool flush_ctx(struct wb_ctx *c, struct flush_args *args)
{
	__u64 idle;

	/*
	 * 'now' was read before the walk: a folio begun since then has a
	 * later start, and the unsigned difference would look like an age.
	 */
	if (c->start_ns >= args->now)
		return false;
	idle = args->now - c->start_ns;
	if (idle < args->idle_ns)
		return false;	/* the thread is busy: it folds its own sum */
	if (c->active && args->finish_active) {
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
	if (flush_ctx(c, args))
		bpf_map_delete_elem(map, tid);
	return 0;
}

static long flush_slot_cb(struct bpf_map *map, __u32 *slot, struct wb_ctx *c,
			  struct flush_args *args)
{
	__u32 owner = c->owner;

	/* handed back only if still the same owner's */
	if (owner && flush_ctx(c, args))
		__sync_val_compare_and_swap(&c->owner, owner, 0);
	return 0;
}

/*
 * Run by user space (BPF_PROG_TEST_RUN) before each report, for contexts
 * idle for longer than args[0] ns: their sums are folded into the shared
 * totals and, if args[1] (tracepoint mode, where nothing marks the end of
 * a thread's last folio, or the final flush) their folio is finished.
 */
SEC("raw_tp")
int BPF_PROG(flush_idle, __u64 idle_ns, __u64 finish_active)
{
	struct flush_args args = {
		.idle_ns = idle_ns,
		.finish_active = finish_active,
		.now = bpf_ktime_get_ns(),
	};

	bpf_for_each_map_elem(&ctx_slots, flush_slot_cb, &args, 0);
	bpf_for_each_map_elem(&wb_ctxs, flush_hashed_cb, &args, 0);
	return 0;
}

/* ------------------------------------------------------- fentry / fexit */

static __always_inline __u64 write_end_bytes(struct folio *folio, __u64 len,
					     __u64 copied)
{
	unsigned long uptodate = 1UL << bpf_core_enum_value(enum pageflags, PG_uptodate);

	/* __iomap_write_end refuses a short copy into a folio not uptodate */
	if (copied < len && !(folio_flags(folio) & uptodate))
		return 0;
	return copied;
}

/*
 * An fentry/fexit program may read only the arguments its target has, so
 * each prototype gets its own program; the plan loads the one that fits.
 */
static __always_inline void fexit_write_end(struct iomap_iter *iter, __u64 pos,
					    __u64 copied, __u64 ret)
{
	if (write_end_ret_bool)
		ret = (ret & 0xff) ? copied : 0;
	record_write_core(BPF_CORE_READ(iter, inode), pos, ret);
}

/* 6.1-6.15: (iter, pos, len, copied, folio) -> size_t, or bool from 6.10 */
SEC("fexit/iomap_write_end")
int BPF_PROG(fexit_write_end_pos, u64 iter, u64 pos, u64 len, u64 copied, u64 folio,
	     u64 ret)
{
	fexit_write_end((void *)iter, pos, copied, ret);
	return 0;
}

/* 6.16+: (iter, len, copied, folio) -> bool; pos is still iter->pos */
SEC("fexit/iomap_write_end")
int BPF_PROG(fexit_write_end_iter, u64 iter, u64 len, u64 copied, u64 folio, u64 ret)
{
	struct iomap_iter *it = (void *)iter;

	fexit_write_end(it, BPF_CORE_READ(it, pos), copied, ret);
	return 0;
}

SEC("fentry/iomap_dirty_folio")
int BPF_PROG(fentry_dirty_folio, struct address_space *mapping, struct folio *folio)
{
	record_whole_dirty(BPF_CORE_READ(mapping, host), folio);
	return 0;
}

static __always_inline struct folio *wb_arg_folio(__u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	switch (wb_folio_arg) {
	case 0: return (void *)a0;
	case 1: return (void *)a1;
	case 2: return (void *)a2;
	default: return (void *)a3;
	}
}

static __always_inline void wb_begin_folio(struct folio *folio)
{
	struct inode *inode = BPF_CORE_READ(folio, mapping, host);
	struct inode_facts fi = {};

	if (!inode)
		return;
	inode_facts_core(inode, &fi, true);
	wb_begin(&fi, (__u64)inode, NULL, folio,
		 (__u64)BPF_CORE_READ(folio, index) << page_shift,
		 folio_bytes(folio));
}

/* One program per position of the folio argument (see fexit_write_end). */
#define FENTRY_WB_BEGIN(N, ...)						\
SEC("fentry/iomap_writeback_folio")					\
int BPF_PROG(fentry_wb_begin_a##N, __VA_ARGS__)				\
{									\
	wb_begin_folio((void *)a##N);					\
	return 0;							\
}
FENTRY_WB_BEGIN(0, u64 a0)			/* iomap_do_writepage (6.1) */
FENTRY_WB_BEGIN(1, u64 a0, u64 a1)		/* iomap_writeback_folio (6.17+) */
FENTRY_WB_BEGIN(2, u64 a0, u64 a1, u64 a2)	/* iomap_writepage_map 6.9-6.16 */
FENTRY_WB_BEGIN(3, u64 a0, u64 a1, u64 a2, u64 a3) /* iomap_writepage_map 6.1-6.6 */

SEC("fexit/iomap_writeback_folio")
int BPF_PROG(fexit_wb_end)
{
	wb_end();
	return 0;
}

/* ----------------------------------------------------- kprobe / kretprobe */

SEC("kprobe/iomap_write_end")
int BPF_KPROBE(kprobe_write_end, void *a0, __u64 a1, __u64 a2, __u64 a3, void *a4)
{
	struct iomap_iter *iter = a0;
	struct inode *inode = BPF_CORE_READ(iter, inode);

	if (write_end_proto == WRITE_END_POS)	/* (iter, pos, len, copied, folio) */
		record_write_core(inode, a1, write_end_bytes(a4, a2, a3));
	else					/* (iter, len, copied, folio) */
		record_write_core(inode, BPF_CORE_READ(iter, pos),
			     write_end_bytes((void *)a3, a1, a2));
	return 0;
}

SEC("kprobe/iomap_dirty_folio")
int BPF_KPROBE(kprobe_dirty_folio, struct address_space *mapping, struct folio *folio)
{
	record_whole_dirty(BPF_CORE_READ(mapping, host), folio);
	return 0;
}

SEC("kprobe/iomap_writeback_folio")
int BPF_KPROBE(kprobe_wb_begin, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	wb_begin_folio(wb_arg_folio(a0, a1, a2, a3));
	return 0;
}

SEC("kretprobe/iomap_writeback_folio")
int BPF_KRETPROBE(kretprobe_wb_end)
{
	wb_end();
	return 0;
}
