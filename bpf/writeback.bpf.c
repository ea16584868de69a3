// SPDX-License-Identifier: GPL-2.0
/*
 * Filling a folio's context at the start of its writeback (wb_fill(), see
 * writeback.bpf.h): the folio's page records are taken from the page table
 * and its blocks' bitmaps built: which blocks the seen writes touched, and
 * which the kernel holds dirty (read from the folio's own bitmap where the
 * kernel has one, core_fixes.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "writeback.bpf.h"
#include "bits.bpf.h"
#include "core_fixes.bpf.h"
#include "finish.bpf.h"
#include "page_cache.bpf.h"
#include "page_table.bpf.h"

struct collect_walk {
	struct wb_ctx *c;
	struct folio_bits *bits;
	__u64 npages;			/* pages of the folio looked at */
	__u64 word;			/* the word's dirty bits not visited yet */
	__u64 word_first_page;		/* its first page */
	__u32 blocks_per_page_shift;	/* log2(blocks per page), 0 if fewer */
	__u32 pages_per_block_shift;	/* log2(pages per block), 0 if fewer */
	bool guided;			/* only pages with kernel dirty bits */
	bool bh;			/* buffer heads: the records' bh_dirty */
	bool wanted;			/* ... dirtied by a wanted writer */
};

/* Adds the write record of page i of the folio (taken) to the folio's context. */
static __always_inline void collect_page(struct collect_walk *w, __u64 i,
					 const struct page_rec *rec)
{
	/* the page's first block; a block larger than a page holds several */
	__u64 bit = (i << w->blocks_per_page_shift) >> w->pages_per_block_shift;
	__u64 word = bit / 64, keep;

	w->c->app_bytes += rec->app_bytes;
	w->c->write_calls += rec->starts + (i == 0 ? rec->continues : 0);
	w->c->whole_dirty |= rec->whole_dirty;
	if (word >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return;
	/* the word's older bits kept only if this folio wrote them: no branch */
	keep = (w->bits->app_words >> word) & 1;
	w->bits->app[word] = (w->bits->app[word] & -keep) | (rec->block_mask << (bit % 64));
	w->bits->app_words |= 1ULL << word;
	if (!w->bh)
		return;
	w->wanted |= rec->bh_flags & PAGE_REC_BH_WANTED;
	/* the kernel's view, from the blocks seen going dirty (bh_dirty) */
	keep = (w->bits->kern_words >> word) & 1;
	w->bits->kern[word] = (w->bits->kern[word] & -keep) | (rec->bh_dirty << (bit % 64));
	w->bits->kern_words |= 1ULL << word;
}

/* Takes page i's write record, if it has one, into the folio's context. */
static __always_inline long collect_page_take(struct collect_walk *w, __u64 i)
{
	struct page_key key = w->c->key;
	struct page_rec rec = {};

	key.index += i;
	w->bits->steps++;
	if (page_take(&key, &rec))
		collect_page(w, i, &rec);
	return 0;
}

/*
 * Page i (>= 1) of the folio. With the kernel's bitmap read, a page none
 * of whose blocks is dirty has no write since the last writeback (a write
 * dirties what it copies), so its record is not looked for: a 2 MiB folio
 * with one dirty block costs one lookup, not 512.
 */
static __always_inline long collect_page_at(struct collect_walk *w, __u64 i)
{
	__u64 shift = w->blocks_per_page_shift;
	__u64 first = i << shift, word = first / 64, dirty;

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
	return collect_page_take(w, i);
}

static long collect_page_cb(__u64 n, void *data)
{
	return collect_page_at(data, n + 1);
}

/*
 * collect_page_take() as a call of its own, for collect_dirty_word_cb():
 * inlined there, its key and record would sit in that callback's frame,
 * under the inner bpf_loop's, and wb_fill()'s call chain would pass the
 * 512 bytes of stack 6.1 allows (ppc64le 6.1: 544, refused).
 */
static __noinline long collect_page_take_call(struct collect_walk *w, __u64 i)
{
	return collect_page_take(w, i);
}

/*
 * The next page of the kernel's dirty word being walked (several pages
 * per word) with a dirty block: its lowest dirty bit's page, whose bits
 * are then cleared from the word.
 */
static long collect_word_page_cb(__u64 n, void *data)
{
	struct collect_walk *w = data;
	__u64 shift = w->blocks_per_page_shift, j, i;

	if (!w->word || shift >= 6)
		return 1;	/* no dirty block further in this word */
	j = lowest_bit(w->word) >> shift;
	w->word &= ~(low_bits(1ULL << shift) << (j << shift));
	i = w->word_first_page + j;
	if (i >= w->npages)
		return 1;
	if (i == 0)
		return 0;	/* page 0 is taken first, by the caller */
	return collect_page_take(w, i);
}

/*
 * The next word of the kernel's dirty bitmap with a dirty bit (bits->todo:
 * the bitmap's summary), and in it the pages with a dirty block: a 2 MiB folio
 * with one dirty block costs one word and one page's lookup, not 32 words
 * or 511 pages. A page of 64 or 128 blocks is one or two words: its words
 * are cleared from bits->todo together.
 */
static long collect_dirty_word_cb(__u64 n, void *data)
{
	struct collect_walk *cw = data;
	__u64 shift = cw->blocks_per_page_shift, w, per, page;

	if (!cw->bits->todo)
		return 1;
	w = lowest_bit(cw->bits->todo);
	cw->bits->steps++;
	if (shift < 6) {
		cw->bits->todo &= cw->bits->todo - 1;
		if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
			return 1;
		cw->word = cw->bits->kern[w];
		cw->word_first_page = w << (6 - shift);
		bpf_loop(1U << (6 - shift), collect_word_page_cb, cw, 0);
		return 0;
	}
	per = shift - 6;		/* log2(words per page): 0 or 1 */
	page = w >> per;
	cw->bits->todo &= ~(low_bits(1ULL << per) << (page << per));
	if (page == 0)
		return 0;	/* page 0 is taken first, by the caller */
	if (page >= cw->npages)
		return 1;
	return collect_page_take_call(cw, page);
}

struct bits_walk {
	struct wb_ctx *c;
	struct folio_bits *bits;
	unsigned long *state;
	__u64 nr_blocks;
	__u64 eof_blocks;
};

/*
 * Reads the per-block dirty bits of a folio whose private data is priv;
 * 'direct': guarded loads (kword()). A parameter, not a member of the walk,
 * so that it stays a constant: the walk escapes into bpf_loop, and a
 * 'direct' read from it left the bpf_rdonly_cast call in wb_fill() too,
 * where a JIT without kfunc calls (ppc64 6.1) refuses every program that
 * calls wb_fill, before verifying a single instruction.
 */
static __always_inline int read_kernel_dirty(void *priv, struct bits_walk *b, bool direct)
{
	__u64 nr = b->nr_blocks, word = 0, kern;

	b->state = folio_state_bits(priv, bitmap_kind);
	if (!b->state)
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
	if (direct) {
		word = kword((__u64)b->state, true);
	} else if (bpf_probe_read_kernel(&word, sizeof(word), b->state)) {
		return -1;
	}
	kern = word >> nr;
	if (2 * nr > 64) {
		if (direct)
			word = kword((__u64)(b->state + 1), true);
		else if (bpf_probe_read_kernel(&word, sizeof(word), b->state + 1))
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
	b->bits->steps++;
	app = (b->bits->app_words >> w) & 1 ? b->bits->app[w] : 0;
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
	c->seen[w] = app | (c->whole_dirty ? first_bits_word(b->eof_blocks, w) : 0) |
		     (kern & b->bits->kern_seen);
	return 0;
}

/* The next word of bits->todo, lowest first. */
static long count_next_cb(__u64 n, void *data)
{
	struct bits_walk *b = data;
	__u64 w;

	if (!b->bits->todo)
		return 1;
	w = lowest_bit(b->bits->todo);
	b->bits->todo &= b->bits->todo - 1;
	return count_word(w, b);
}

/*
 * Counts the folio's words that may have a dirty block: written, dirty in
 * the kernel's bitmap (kern_words), or below EOF in a folio dirtied whole;
 * the others are all clean, and left unwritten in c (c->dirty_words).
 */
static __always_inline void count_words(struct bits_walk *b, __u64 kern_words,
					__u64 nwords)
{
	struct wb_ctx *c = b->c;
	__u64 todo = b->bits->app_words;

	if (c->bitmap_read)
		todo |= kern_words;
	if (c->whole_dirty)
		todo |= low_bits((b->eof_blocks + 63) / 64);
	todo &= low_bits(nwords);
	c->dirty_words = todo;
	if (nwords == 1) {		/* a small folio: no callback */
		count_word(0, b);
		return;
	}
	b->bits->todo = todo;
	bpf_loop(popcount64(todo), count_next_cb, b, 0);
}

/* No state to read: writeback treats every block up to EOF as dirty. */
static __always_inline long all_dirty_word(__u64 w, void *data)
{
	struct bits_walk *b = data;

	if (w >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	b->bits->kern[w] = first_bits_word(b->eof_blocks, w);
	return 0;
}
LOOP_CB(all_dirty_word)

/* bh_read_dirty()'s walk of a folio's buffers, on its stack (bpf_loop) */
struct bh_walk {
	struct folio_bits *bits;
	struct buffer_head *bh;		/* the next buffer */
	__u64 nr_blocks;
};

/*
 * Buffer i of a buffer-head folio (w->bh: its buffer; the ring's next one
 * after it): dirty at writeback if its BH_Dirty bit is still set (not
 * written this time: delayed, unmapped) or its BH_Async_Write bit is (the
 * filesystem took it for this writeback: ext4_bio_write_folio() clears
 * BH_Dirty and sets BH_Async_Write before any of the folio's blocks is
 * added to a bio; the bio's end clears it).
 */
static long bh_dirty_buffer_cb(__u64 i, void *data)
{
	unsigned long dirty = 1UL << bpf_core_enum_value(enum bh_state_bits, BH_Dirty);
	unsigned long async = 1UL << bpf_core_enum_value(enum bh_state_bits, BH_Async_Write);
	struct bh_walk *w = data;
	struct buffer_head *bh = w->bh;	/* kernel memory from here on */
	__u64 word = i / 64;

	if (!bh || i >= w->nr_blocks || word >= IOMAPDIRTY_MAX_BITMAP_WORDS / 2)
		return 1;
	if (BPF_CORE_READ(bh, b_state) & (dirty | async))
		w->bits->kern[word] |= 1ULL << (i % 64);
	w->bh = BPF_CORE_READ(bh, b_this_page);
	return 0;
}

/*
 * The always-on level's view of a buffer-head folio (no page records):
 * its buffers' state, read at its first write bio, one buffer per block
 * (the ring at folio->private), into bits->kern, before wb_fill_bh() (which
 * leaves bits->kern alone for buffer heads); bh_count_read() counts it
 * after. A global function beside the fill, see bh_count_read(). 0 if
 * read, -1 if the folio has no buffers.
 */
__noinline int bh_read_dirty(struct folio_bits *bits)
{
	struct bh_walk w = {};
	struct folio *folio;
	__u64 nwords, blkbits;

	if (!bits)
		return -1;
	folio = (struct folio *)bits->folio.folio;
	blkbits = bits->folio.fi.blkbits;
	if (!folio || blkbits < 9 || blkbits > IOMAPDIRTY_MAX_BLOCK_BITS)
		return -1;
	w.bh = BPF_CORE_READ(folio, private);
	if (!w.bh)
		return -1;
	w.bits = bits;
	w.nr_blocks = bits->folio.bytes >> blkbits;
	nwords = (w.nr_blocks + 63) / 64;
	/* a constant bound, the test inside: clang makes a memset of the other */
	for (int k = 0; k < IOMAPDIRTY_MAX_BITMAP_WORDS / 2; k++)
		if (k < nwords)
			bits->kern[k] = 0;
	bpf_loop(w.nr_blocks, bh_dirty_buffer_cb, &w, 0);
	return 0;
}

/*
 * Always-on, a buffer-head folio filled by wb_fill_bh() (no records: no
 * block known dirty): its dirty blocks are the buffers bh_read_dirty()
 * read (bits->kern), as count_word() counts a read bitmap where no write
 * was seen. A global function after the fill, not a branch in it: there
 * it grew wb_fill_bh()'s frame, whose call chain under the bio walk's
 * callback is at 6.1's 512 bytes of stack (6.1 counts the calls of dead
 * code too).
 */
__noinline int bh_count_read(struct wb_ctx *c, struct folio_bits *bits)
{
	__u64 nr, nwords, kern;

	if (!c || !bits || !c->active || !c->counted)
		return 0;
	nr = c->folio_bytes >> (c->block_bits & 63);
	nwords = (nr + 63) / 64;
	c->dirty_words = 0;
	for (int w = 0; w < IOMAPDIRTY_MAX_BITMAP_WORDS / 2; w++) {
		if (w >= nwords)
			break;
		kern = bits->kern[w];
		c->dirty[w] = kern;
		c->seen[w] = 0;
		if (kern)
			c->dirty_words |= 1ULL << w;
		c->kernel_dirty_blocks += popcount64(kern);
		c->other_dirty_blocks += popcount64(kern);
	}
	c->bitmap_read = 1;
	c->checkable = 1;
	return 0;
}

/*
 * The folio pointer a first page's record kept since the folio went clean
 * -> dirty, its head read into h; NULL if none, or if the folio was freed
 * and reused since.
 */
static __always_inline struct folio *recorded_folio(const struct inode_facts *fi,
						    __u64 ptr, __u64 index,
						    struct folio_head *h, bool direct)
{
	struct folio *folio = (struct folio *)ptr;

	if (!ptr) {
		if (bitmap_kind != BITMAP_NONE)
			count(CNT_FOLIO_PTR_MISSING);
		return NULL;
	}
	if (folio_head_read(folio, h, direct) || h->mapping != fi->mapping ||
	    h->index != index) {
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
					     struct bits_walk *bw, __u64 nwords, bool direct)
{
	if (bw->nr_blocks == 1) {
		bw->bits->kern[0] = 1;
		return 0;
	}
	if (!folio || bitmap_kind == BITMAP_NONE)
		return -1;
	if (h->priv)
		return read_kernel_dirty((void *)h->priv, bw, direct) == 0 ? 1 : -1;
	if (nwords == 1)
		all_dirty_word(0, bw);
	else
		bpf_loop(nwords, all_dirty_word_cb, bw, 0);
	return 0;
}

/*
 * bits->kern_words for the first nwords words of bits->kern. A global
 * function: verified once, not on each of wb_fill()'s paths to it (64
 * steps each). Large folios only: the call costs 10-30 ns.
 */
__noinline int kern_summary(struct folio_bits *bits, __u64 nwords)
{
	if (!bits)
		return 0;
	bits->kern_words = nonzero_words(bits->kern, nwords);
	return 0;
}

/* wb_fill() and wb_fill_ld(): 'direct' reads with guarded loads (kword()). */
static __always_inline int wb_fill_body(struct wb_ctx *c, struct folio_bits *bits,
					bool direct, bool bh)
{
	const struct wb_folio *f;
	struct folio *folio;
	const struct inode_facts *fi;
	struct collect_walk walk = {};
	struct bits_walk bw = {};
	struct folio_head head = {};
	struct page_rec *rec0;
	__u64 nr_blocks, npages, nwords, kern_words;
	int view, have0;

	if (!c || !bits)
		return 0;
	f = &bits->folio;
	fi = &f->fi;
	folio = (struct folio *)f->folio;
	/* the thread's previous folio, if no end event finished it */
	if (c->active)
		finish_folio_body(c, f->now);
	__builtin_memset(c, 0, __builtin_offsetof(struct wb_ctx, dirty));
	c->active = 1;
	c->key.dev = fi->dev;
	c->key.ino = fi->ino;
	c->key.index = f->pos >> page_shift;
	c->folio_pos = f->pos;
	c->folio_bytes = f->bytes;
	c->start_ns = f->now;
	c->nlink = fi->nlink;
	c->block_bits = fi->blkbits;
	nr_blocks = f->bytes >> (c->block_bits & 63);
	/*
	 * Blocks of 512 B up to the folio's own size (a block larger than a
	 * page, XFS since 6.12, comes in folios at least one block large),
	 * and no more blocks than the bitmaps hold. Anything else is
	 * dropped, and counted.
	 */
	if (c->block_bits < 9 || c->block_bits > IOMAPDIRTY_MAX_BLOCK_BITS || !nr_blocks ||
	    nr_blocks > IOMAPDIRTY_MAX_BITMAP_WORDS / 2 * 64 ||
	    (f->bytes & ((1ULL << c->block_bits) - 1))) {
		count(CNT_GEOMETRY_UNSUPPORTED);
		return 0;
	}

	nwords = (nr_blocks + 63) / 64;
	bw.c = c;
	bw.bits = bits;
	bw.nr_blocks = nr_blocks;
	bits->app_words = 0;	/* app[] is written from its first page on */

	/*
	 * The first page's record: its writes, and the folio pointer. The
	 * stacks of the program, this function, the nested bpf_loop callbacks
	 * and page_take() must stay within 512 bytes together (6.1 counts a
	 * callback as a call, at least 32 bytes): 448 now.
	 */
	rec0 = &bits->rec0;
	have0 = always_on() ? 0 : page_take(&c->key, rec0);
	c->dirtied_seen = have0 && (bh ? rec0->bh_flags & PAGE_REC_BH_FOLIO_DIRTIED :
					    rec0->folio_ptr != 0);
	if (bh) {
		/* private data: buffer heads; the kernel's view is the records'
		 * (always-on: the buffers', bh_read_dirty()) */
		folio = NULL;
	} else if (!folio) {
		/* tracepoint mode: the folio the first page's record kept */
		__u64 ptr = have0 ? rec0->folio_ptr : 0;

		/* none: its clean -> dirty came before attach (issue 22) */
		c->preattach = folio_ptr_hook && bitmap_kind != BITMAP_NONE && !ptr;
		/*
		 * The page cache has it (always-on keeps no records at all):
		 * needed only for the bitmap of a folio of several blocks.
		 */
		if (!ptr && nr_blocks > 1 && bitmap_kind != BITMAP_NONE)
			ptr = (__u64)page_cache_folio(fi->mapping, c->key.index, direct);
		if (nr_blocks > 1)
			folio = recorded_folio(fi, ptr, c->key.index, &head, direct);
	} else if (folio_head_read(folio, &head, direct)) {
		folio = NULL;
	}
	/* The kernel's own view of which blocks are dirty, where it has one
	 * (without per-block state yet: every block before EOF) */
	bw.eof_blocks = blocks_before_eof(fi, c, nr_blocks);
	/* buffer heads: the records' (always-on: bh_count_read(), after) */
	view = bh ? -1 : kernel_dirty_view(folio, &head, &bw, nwords, direct);
	/*
	 * Through memory: after the branches, one value the verifier knows
	 * nothing of, not three ranges each verified through what follows.
	 */
	if (view < 0)
		bits->kern_words = 0;
	else if (nwords == 1)
		bits->kern_words = nonzero(bits->kern[0]);
	else
		kern_summary(bits, nwords);
	kern_words = *(volatile __u64 *)&bits->kern_words;

	npages = f->bytes >> page_shift;
	if (npages > IOMAPDIRTY_MAX_FOLIO_PAGES) {
		if (!always_on())	/* pages are walked only for their records */
			count(CNT_FOLIO_TOO_LARGE);
		npages = IOMAPDIRTY_MAX_FOLIO_PAGES;
	}
	walk.c = c;
	walk.bits = bits;
	if (c->block_bits <= page_shift)
		walk.blocks_per_page_shift = page_shift - c->block_bits;
	else
		walk.pages_per_block_shift = c->block_bits - page_shift;
	/* guided by the bitmap where a page holds whole blocks */
	walk.guided = view == 1 && c->block_bits <= page_shift &&
		      walk.blocks_per_page_shift <= 7;
	walk.npages = npages;
	walk.bh = bh;
	bits->steps = !always_on();	/* page 0's lookup */
	if (have0)
		collect_page(&walk, 0, rec0);
	if (always_on()) {
		;	/* no page records to collect */
	} else if (npages > 1 && walk.guided) {
		bits->todo = kern_words;
		bpf_loop(popcount64(kern_words), collect_dirty_word_cb, &walk, 0);
	} else if (npages > 1) {
		bpf_loop(npages - 1, collect_page_cb, &walk, 0);
	}
	/*
	 * Buffer heads: the blocks seen going dirty are the kernel's whole
	 * view only where the folio's own clean -> dirty was seen.
	 */
	bits->kern_seen = 0;
	if (bh && c->dirtied_seen) {
		view = 1;
		bits->kern_seen = ~0ULL;
		kern_words = *(volatile __u64 *)&bits->kern_words;
	}
	c->bitmap_read = view >= 0;

	count_words(&bw, kern_words, nwords);
	count_n(CNT_WB_FILL_STEPS, bits->steps);
	if (simulate_clean_every && ctx_dirty_word(c, 0) &&
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
		(!bh && bitmap_kind == BITMAP_NONE && (c->app_bytes || c->whole_dirty));
	c->counted = 1;
	if (writer_filtered() && !c->app_bytes && !c->whole_dirty && !walk.wanted) {
		/* nothing of the wanted process in this folio */
		c->counted = 0;
		count(CNT_FILTERED_FOLIOS);
	}
	return 0;
}

/*
 * Global functions: the context comes from either of two maps (ctx_slots,
 * wb_ctxs), and inlined, everything here was verified once for each.
 * wb_fill_ld() reads the kernel with guarded loads (bpf_rdonly_cast, 6.2+):
 * only the *_ld programs call it, which the plan loads where the kernel
 * has that kfunc.
 */
__noinline int wb_fill(struct wb_ctx *c, struct folio_bits *bits)
{
	return wb_fill_body(c, bits, false, false);
}

__noinline int wb_fill_ld(struct wb_ctx *c, struct folio_bits *bits)
{
	return wb_fill_body(c, bits, true, false);
}

/*
 * A buffer-head folio (ext4, buffer_heads.bpf.c): no iomap bitmap, so none
 * of the guided walk's nested loops, a shallower call chain for a caller
 * that is itself a bpf_loop callback.
 */
__noinline int wb_fill_bh(struct wb_ctx *c, struct folio_bits *bits)
{
	return wb_fill_body(c, bits, false, true);
}
