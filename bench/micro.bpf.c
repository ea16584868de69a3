// SPDX-License-Identifier: GPL-2.0
/*
 * Building blocks of iomapdirty's per-event cost, each as its own program
 * on xfs_file_buffered_write (one event per write(2)), measured by the
 * kernel's BPF statistics over the same events of one run of each of
 * bench/'s workloads:
 *
 *   empty        tp_btf program that returns: the floor of this hook
 *   reads_core   the 12 field reads tp_xfs_buffered_write does before its
 *                map work, as BPF_CORE_READ in a raw_tp program (each hop
 *                is a bpf_probe_read_kernel call), as the tool does today
 *   reads_btf    the same reads as direct loads in a tp_btf program
 *   lookup_big   one hash lookup of a (dev, ino, index) key in a
 *                131072-entry preallocated hash (the size the page records'
 *                hash had at the default --max-pages before they moved to
 *                the set-associative page_sets, bpf/page_table.bpf.h)
 *   lookup_small the same lookup in a 1024-entry hash
 *   table_miss   one word read at a hashed index of a 131072 x 128-byte
 *                array (16 MiB, the page table's size at the default
 *                --max-pages): the memory access alone, what any record
 *                per dirty page costs to find, with no hashing helper
 *   table_hit    the same in a 4096 x 128-byte array (512 KiB): what the
 *                access costs when the table fits the caches
 *
 * and on the writeback hooks (6.17+: iomap_writeback_folio, one event per
 * folio, and iomap_add_to_ioend, one per range sent), the parts of what
 * iomapdirty's writeback and submit programs must do, with the tool's own
 * code (the headers in bpf/; its maps and settings defined here, apart from the
 * tool's):
 *
 *   wb_floor     the floor of any design that keeps per-file figures and
 *                knows which blocks the kernel holds dirty: the folio
 *                from the page cache, its whole dirty bitmap read (one
 *                read of all its words, as the tool does: 32 words for a
 *                2 MiB folio of 1 KiB blocks), and the file's entry in an LRU
 *                hash like the tool's files map, looked up when the folio
 *                is another file's than the CPU's last (every folio, in
 *                bench/'s many-files workload). Defined first, so that it
 *                runs first on the hook: it pays the first touch of the
 *                kernel's data, as the tool does, and the blocks after it
 *                read that data warm
 *   wb_empty     tp_btf program that returns: the floor of this hook
 *   wb_inode     the inode's facts (dev, ino, size, mapping, nlink,
 *                block size) as direct loads: inode_facts_btf()
 *   wb_dirty_bits  a part of wb_floor, after it (the kernel's data warm):
 *                the folio from the page cache (the tracepoint has none:
 *                page_cache_folio(), guarded loads), its head (mapping,
 *                index, private) and the first word of its per-block
 *                state (iomap_folio_state)
 *   wb_ctx       the thread's folio context found and released
 *                (ctx_find()/ctx_create(), ctx_put(): an array lookup and
 *                two compare-and-swaps, issue 11's protocol with the flush)
 *   wb_counts    three global counters counted (count(): a per-CPU
 *                counter, locked add), as the writeback program does
 *   wb_call      one call of a global BPF function that returns (a
 *                BPF-to-BPF call and its return: with this host's return
 *                thunks a return is not free)
 *   wb_clock     one helper call: bpf_ktime_get_ns(), the clock the tool
 *                reads once per folio
 *   wb_jiffies   bpf_jiffies64() instead (5.5+: a load of jiffies_64, a
 *                tick's resolution; bpf_ktime_get_coarse_ns() is refused
 *                in tracing programs)
 *   ioend_empty  tp_btf program that returns, on iomap_add_to_ioend
 *   ioend_ctx    the context found and released again, as the submit
 *                program does for every range
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
/* the tool's maps and settings, defined in this object (not shared) */
#define SHARED_MAPS_HERE
#define SETTINGS_HERE
#include "folio_ctx.bpf.h"
#include "kernel_facts.bpf.h"
#include "page_cache.bpf.h"

char LICENSE[] SEC("license") = "GPL";

__u64 sink;
__u64 sink2;

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(empty) { return 0; }

SEC("raw_tp/xfs_file_buffered_write")
int BPF_PROG(reads_core, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = BPF_CORE_READ(iocb, ki_filp, f_inode);
	struct dentry *dentry = BPF_CORE_READ(iocb, ki_filp, f_path.dentry);
	__u64 v = BPF_CORE_READ(iocb, ki_pos) + BPF_CORE_READ(from, count);

	v += BPF_CORE_READ(inode, i_sb, s_dev) + BPF_CORE_READ(inode, i_ino);
	v += BPF_CORE_READ(inode, i_nlink) + BPF_CORE_READ(inode, i_blkbits);
	v += dentry ? 1 : 0;
	sink = v;
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(reads_btf, struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = iocb->ki_filp->f_inode;
	struct dentry *dentry = iocb->ki_filp->f_path.dentry;
	__u64 v = iocb->ki_pos + from->count;

	v += inode->i_sb->s_dev + inode->i_ino;
	v += inode->i_nlink + inode->i_blkbits;
	v += dentry ? 1 : 0;
	sink = v;
	return 0;
}

struct micro_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
	__u64 index;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 131072);
	__type(key, struct micro_key);
	__type(value, __u64);
} big SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct micro_key);
	__type(value, __u64);
} small SEC(".maps");

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(lookup_big, struct kiocb *iocb, struct iov_iter *from)
{
	struct micro_key k = { .ino = iocb->ki_filp->f_inode->i_ino,
			       .index = iocb->ki_pos >> 12 };
	__u64 *p = bpf_map_lookup_elem(&big, &k);

	sink += p ? *p : 1;
	return 0;
}

struct micro_slot {
	__u64 word[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 131072);
	__type(key, __u32);
	__type(value, struct micro_slot);
} table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct micro_slot);
} table_small SEC(".maps");

/* The first word of the slot the write's page hashes to, in an array of n (a power of 2). */
static __always_inline __u64 table_word(void *map, __u32 n, struct kiocb *iocb)
{
	__u64 h = (iocb->ki_filp->f_inode->i_ino ^ (iocb->ki_pos >> 12)) *
		  0x9e3779b97f4a7c15ULL;
	__u32 i = (h >> 40) & (n - 1);
	struct micro_slot *v = bpf_map_lookup_elem(map, &i);

	return v ? v->word[0] : 1;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(table_miss, struct kiocb *iocb, struct iov_iter *from)
{
	sink += table_word(&table, 131072, iocb);
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(table_hit, struct kiocb *iocb, struct iov_iter *from)
{
	sink += table_word(&table_small, 4096, iocb);
	return 0;
}

SEC("tp_btf/xfs_file_buffered_write")
int BPF_PROG(lookup_small, struct kiocb *iocb, struct iov_iter *from)
{
	struct micro_key k = { .ino = iocb->ki_filp->f_inode->i_ino,
			       .index = iocb->ki_pos >> 12 };
	__u64 *p = bpf_map_lookup_elem(&small, &k);

	sink += p ? *p : 1;
	return 0;
}

/* ----------------------------------------------- the writeback hooks */

/* a zeroed context to create one from (1 KiB: not on the stack) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wb_ctx);
} micro_zero_ctx SEC(".maps");

/*
 * The floor of any design that keeps per-file figures and knows which
 * blocks the kernel holds dirty (wb_floor below). An LRU hash like the
 * tool's files map (bpf/sums.bpf.h: same key, value and size), and per
 * CPU the file it last added to.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILES_MAX_ENTRIES);
	__type(key, struct file_key);
	__type(value, struct wa_stats);
} micro_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_key);
} micro_last_file SEC(".maps");

/* the dirty half of a folio's bitmap, read as the tool reads it */
struct micro_bits {
	__u64 word[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct micro_bits);
} micro_scratch SEC(".maps");

/*
 * Whether the folio of 'bytes' at pos has a dirty block, from its whole
 * dirty bitmap: the folio from the page cache, its head, and the dirty
 * words of its iomap_folio_state (one read of all of them where the folio
 * has 64 blocks or more, as read_kernel_dirty() in bpf/writeback.bpf.c).
 */
static __always_inline __u64 any_dirty(const struct inode_facts *fi, loff_t pos, __u64 bytes)
{
	struct folio_head h = {};
	struct folio *folio = page_cache_folio(fi->mapping, pos >> 12, true);
	__u64 nr = bytes >> (fi->blkbits & 63), words, any = 0;
	struct micro_bits *b;
	unsigned long *state;
	__u32 zero = 0;

	if (!folio)
		return 0;
	folio_head_read(folio, &h, true);
	if (h.mapping != fi->mapping || !h.priv)
		return 0;
	state = folio_state_bits((void *)h.priv, BITMAP_IFS);
	if (nr < 64)
		return kword((__u64)state, true) >> nr;
	b = bpf_map_lookup_elem(&micro_scratch, &zero);
	if (!b)
		return 0;
	words = nr / 64;
	if (words > IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		words = IOMAPDIRTY_MAX_BITMAP_WORDS / 2;
	if (bpf_probe_read_kernel(b->word, (words * 8) & (sizeof(b->word) * 2 - 1),
				  state + nr / 64))
		return 0;
	for (int i = 0; i < IOMAPDIRTY_MAX_BITMAP_WORDS / 2; i++)
		if (i < words)
			any |= b->word[i];
	return any;
}

/* Adds to the file's entry, looked up only when this CPU's last file was another. */
static __always_inline void file_add(const struct inode_facts *fi, __u64 v)
{
	static const struct wa_stats zero;
	struct file_key k = { .ino = fi->ino, .dev = fi->dev }, *last;
	struct wa_stats *s;
	__u32 zero_key = 0;

	last = bpf_map_lookup_elem(&micro_last_file, &zero_key);
	if (!last || (last->ino == k.ino && last->dev == k.dev))
		return;
	*last = k;
	s = map_lookup_or_try_init(&micro_files, &k, &zero, NO_COUNTER);
	if (s)
		__sync_fetch_and_add(&s->folios, v);
}

/* First of the hook's programs: it pays the first touch, as the tool does. */
SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_floor, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};

	inode_facts_btf(inode, &fi, true);
	file_add(&fi, 1 + !!any_dirty(&fi, pos, len));
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_empty) { return 0; }

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_inode, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};

	inode_facts_btf(inode, &fi, true);
	sink = fi.dev + fi.ino + fi.size + fi.nlink + fi.blkbits;
	sink2 = fi.mapping;	/* a pointer: not added to numbers */
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_dirty_bits, struct inode *inode, loff_t pos, u64 len)
{
	struct inode_facts fi = {};
	struct folio_head h = {};
	struct folio *folio;
	unsigned long *state;

	inode_facts_btf(inode, &fi, true);
	folio = page_cache_folio(fi.mapping, pos >> 12, true);
	if (!folio) {
		sink++;
		return 0;
	}
	folio_head_read(folio, &h, true);
	if (h.mapping != fi.mapping || !h.priv)
		return 0;
	state = folio_state_bits((void *)h.priv, BITMAP_IFS);
	sink += kword((__u64)state, true) + h.index;
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wb_ctx *c = ctx_find(tid);
	__u32 zero_key = 0;

	if (!c) {
		const struct wb_ctx *zero = bpf_map_lookup_elem(&micro_zero_ctx, &zero_key);

		if (!zero)
			return 0;
		c = ctx_create(tid, zero);
	}
	if (c)
		c->start_ns++;
	ctx_put(c, tid);
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_counts)
{
	count(CNT_WB_START_EVENTS);
	count(CNT_WB_END_EVENTS);
	count(CNT_SUBMIT_EVENTS);
	return 0;
}

__noinline int micro_callee(__u64 v)
{
	return v == 1;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_call, struct inode *inode, loff_t pos)
{
	sink += micro_callee(pos);
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_clock)
{
	sink += bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/iomap_writeback_folio")
int BPF_PROG(wb_jiffies)
{
	sink += bpf_jiffies64();
	return 0;
}

SEC("tp_btf/iomap_add_to_ioend")
int BPF_PROG(ioend_empty) { return 0; }

SEC("tp_btf/iomap_add_to_ioend")
int BPF_PROG(ioend_ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wb_ctx *c = ctx_find(tid);

	if (c)
		c->submitted_blocks++;
	ctx_put(c, tid);
	return 0;
}
