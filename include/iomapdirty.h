/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the BPF programs (bpf/) and the frontends (user/).
 *
 * Everything the kernel side counts is a u64. Counters are cumulative
 * since attach: user space reads them and subtracts the previous reading
 * to get an interval, so nothing is ever read-and-deleted (no lost
 * increments between a read and a delete).
 */
#ifndef IOMAPDIRTY_H
#define IOMAPDIRTY_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "fields.h"
#include "fs_kinds.h"

/* Largest folio whose pages and bitmap the writeback program scans. */
#define IOMAPDIRTY_MAX_FOLIO_PAGES	512
/* 2 bits (uptodate, dirty) per block, 512-byte blocks, 2 MiB folio. */
#define IOMAPDIRTY_MAX_BITMAP_WORDS	128
/* Half of them per bitmap, each summarized by one bit of a __u64 */
_Static_assert(IOMAPDIRTY_MAX_BITMAP_WORDS / 2 <= 64, "a word summary is one __u64");
/* Largest block writeback places (2 MiB); XFS allows 64 KiB. */
#define IOMAPDIRTY_MAX_BLOCK_BITS	21
/* Largest write(2) the tracepoint write path splits into pages. */
#define IOMAPDIRTY_MAX_WRITE_PAGES	65536

/* Identifies one page of one file: the unit of write accounting. */
struct page_key {
	__u64 ino;
	__u32 dev;	/* kernel dev_t: major << 20 | minor */
	__u32 pad;
	__u64 index;	/* page index in the file */
};

/*
 * What the application did to one page since its folio was last written
 * back. A write(2) that covers several pages is counted once as a call:
 * in 'starts' of the page it starts in and in 'continues' of the others,
 * so the calls that touched a folio are the starts of all its pages plus
 * the continues of its first page.
 */
struct page_rec {
	__u64 app_bytes;
	__u64 block_mask;	/* bit b: block b of this page was written */
	__u32 starts;
	__u32 continues;
	__u32 whole_dirty;	/* folio dirtied whole (mmap, iomap_dirty_folio) */
	/*
	 * Buffer-head filesystems (ext4, bpf/buffer_heads.bpf.c):
	 * PAGE_REC_BH_FOLIO_DIRTIED (first page of a folio: it went clean ->
	 * dirty when a buffer of it was dirtied since attach),
	 * PAGE_REC_BH_WANTED.
	 */
	__u32 bh_flags;
	union {
		/*
		 * iomap, tracepoint mode, first page of a folio: the folio,
		 * learnt when it went clean -> dirty; writeback reads its
		 * dirty bitmap through it.
		 */
		__u64 folio_ptr;
		/*
		 * Buffer heads: bit b, block b of this page went clean ->
		 * dirty (mark_buffer_dirty) since its last writeback.
		 */
		__u64 bh_dirty;
	};
};
#define PAGE_REC_BH_FOLIO_DIRTIED	1
/* any page: a block of it was dirtied by a wanted writer (run's CMD, --pid) */
#define PAGE_REC_BH_WANTED		2

/*
 * Entries of the per-file maps (files, paths): LRU hashes, the least
 * recently used file makes room (bpf/sums.bpf.h). Memory, fixed at load:
 * about 16384 x (wa_stats + key + LRU node) and 16384 x 1 KiB of paths.
 */
#define FILES_MAX_ENTRIES	16384
/* writer cgroups with sums of their own (--collector.cgroup, bpf/cgroup_sums.bpf.h) */
#define CGROUP_SUMS_MAX		4096

struct file_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

/*
 * Where a file is, from the kernel's dentries at the time it was first
 * seen: path components from the file up to the filesystem's root
 * (component 0 is the file's own name). User space joins them under the
 * mount point and checks whether the file was renamed or deleted since.
 */
#define PATH_MAX_COMPONENTS	16
#define PATH_COMPONENT_LEN	64
struct file_path {
	char comp[PATH_MAX_COMPONENTS][PATH_COMPONENT_LEN];
	__u32 depth;		/* components filled */
	__u32 truncated;	/* deeper than PATH_MAX_COMPONENTS */
	__u32 nlink;		/* at first sight (wa_stats.nlink is newer) */
	__u32 pad;
};

/* One folio written back with blocks that were not dirty. */
struct violation {
	__u64 first_offset;	/* file offset of the first clean block sent */
	__u64 clean_blocks;	/* clean blocks submitted from this folio */
	__u64 folio_bytes;
	__u64 dirty_blocks;
};

/* Block layer, per device: bios matched to submitted data ranges. */
struct bio_stats {
	__u64 write_bios;
	__u64 matched_bios;		/* every block was submitted data */
	__u64 partial_bios;		/* some blocks were */
	__u64 unmatched_bios;		/* none were (journal, metadata, ...) */
	__u64 matched_bytes;
	__u64 unmatched_bytes;
	/*
	 * Data blocks placed a second way, from the bio's own pages (bio_vec
	 * -> folio -> mapping, index; bv_offset): the file position the
	 * bio carries agrees with the submit hook's, or not; or the page
	 * could not be placed (no file, or the walk ran out of bio_vecs).
	 */
	__u64 placed_agree_blocks;
	__u64 placed_disagree_blocks;
	__u64 unplaced_blocks;
	__u64 first_disagree_offset;	/* the submit hook's offset, + 1 (0: none) */
	__u64 first_disagree_bio_offset; /* where the bio's page put that block */
	/*
	 * Data blocks checked at the bio against their folio's dirty bitmap
	 * as its writeback began (bpf/snapshot.bpf.h): dirty (checked),
	 * clean (a violation), not judged (past the folio's blocks, or met
	 * twice), and blocks of a watched filesystem's file with no snapshot
	 * (their writeback began before attach or after the end, or the
	 * snapshot was evicted).
	 */
	__u64 bio_checked_blocks;
	__u64 bio_preattach_blocks;	/* of the checked, in folios dirtied before attach */
	__u64 bio_violation_blocks;
	__u64 bio_unjudged_blocks;
	__u64 bio_unsnapped_blocks;
	/*
	 * Of the data blocks, those of buffer-head files (ext4): their
	 * writeback is seen at the write bio itself (buffer_heads.bpf.c),
	 * so each is placed once, from the bio's page, and checked there.
	 */
	__u64 bh_blocks;
};

/*
 * dev_block_bits (bpf/bio.bpf.h): a device whose data the buffer-head
 * backend tallies at its own bio event; bio.bpf.c leaves its bios alone.
 */
#define DEV_BITS_AT_BIO	0x100

/*
 * Pages written (or dirtied) since attach whose folio has not been written
 * back yet, per filesystem: the page records still live (count_unwritten).
 */
struct unwritten {
	__u64 pages;
	__u64 app_bytes;
};

/*
 * Who writes a file (bpf/writers.bpf.h): the first writer seen since
 * attach (its cgroup v2 id and command, at the write), and whether a
 * writer of another cgroup wrote it too.
 */
struct file_writer {
	__u64 cgroup_id;
	char comm[16];
	__u32 several;		/* 1: more than one cgroup wrote it */
	__u32 pad;
};

/* The last file and cgroup a CPU noted, so that a run of writes costs one note. */
struct writer_last {
	__u64 ino;
	__u64 cgroup_id;
	__u32 dev;
	__u32 pad;
};

/* run: another process's writes into one file (bpf/other_writes.bpf.h). */
struct other_write {
	__u64 app_bytes;
	__u64 write_calls;
};

/* A filesystem not watched (bpf/unwatched.bpf.c): device and kind. */
struct unwatched_key {
	__u32 dev;		/* s_dev; the block device's i_rdev for its page cache */
	__u32 kind;		/* enum fs_kind (fs_kinds.h) */
};

struct unwatched_stats {
#define UNWATCHED_MEMBER(name, unit)	__u64 name;
	UNWATCHED_FIELDS(UNWATCHED_MEMBER)
#undef UNWATCHED_MEMBER
};

struct phys_key {
	__u64 block;		/* physical address >> block bits */
	__u32 dev;		/* block device */
	__u32 pad;
};

/*
 * Verify's check at the block layer (bpf/snapshot.bpf.h): word 'word' of
 * a folio's dirty bitmap as its writeback began, kept for its write bios.
 */
struct snap_key {
	__u64 ino;
	__u32 dev;		/* the filesystem's */
	__u32 word;		/* blocks [64 word, 64 word + 64) of the folio */
	__u64 index;		/* the folio's first page */
};

struct wb_snap {
	__u64 dirty;		/* the word's dirty blocks */
	__u64 met;		/* its blocks met in a write bio so far */
	__u32 nr_blocks;	/* the folio's */
	__u32 dirty_blocks;	/* the folio's, all words */
	__u32 preattach;	/* dirtied before attach */
	__u32 pad;
};

/* Where the submit hook placed a physical block: file and offset. */
struct phys_origin {
	__u64 ino;
	__u64 offset;		/* in the file, bytes */
	__u32 fs_dev;
	__u32 pad;
};

/*
 * Accumulated per file and per filesystem; all cumulative. The fields,
 * their units and how they merge: WA_STATS_FIELDS in fields.h.
 */
struct wa_stats {
#define WA_STATS_MEMBER(name, unit, merge, json, level, help)	__u64 name;
	WA_STATS_FIELDS(WA_STATS_MEMBER)
#undef WA_STATS_MEMBER
};

/* Histograms: log2 buckets (see buckets.h), one row of buckets each. */
enum hist_id {
#define HIST_ENUM(id, name, unit, sum, help)	id,
	HISTOGRAMS(HIST_ENUM)
#undef HIST_ENUM
	NR_HISTS,
};
#define HIST_BUCKETS	40

/*
 * Per filesystem: the sums and the histograms of the same folios, both
 * folded from a thread's running sum (wb_ctx.acc, acc_hist) by one
 * acc_fold(). A fold adds 1 to folds_begun first and to folds_done last
 * (fetching atomics: full barriers), so user space can tell a reading
 * taken while no fold was half done (fs_stats_settled(), user/model/snapshot.c)
 * and an interval's totals always count the folios its histograms count.
 */
struct fs_stats {
	__u64 folds_begun;
	struct wa_stats s;
	__u64 hist[NR_HISTS][HIST_BUCKETS];
	__u64 folds_done;
};

/*
 * One writeback of one folio, in progress in one thread. The entry of a
 * thread is kept between its folios (reset, not reallocated: it is 1 KiB)
 * and dropped by the flush when the thread has been idle for a second.
 */
struct wb_ctx {
	struct page_key key;		/* first page of the folio */
	__u64 folio_pos;
	__u64 folio_bytes;
	__u64 start_ns;
	__u64 app_bytes;
	__u64 write_calls;
	__u64 app_dirty_blocks;
	__u64 other_dirty_blocks;
	__u64 kernel_dirty_blocks;
	__u64 submitted_blocks;
	__u64 submitted_bytes;
	__u64 hole_bytes;
	__u64 violation_blocks;
	__u64 first_violation;		/* folio offset of the first, + 1 */
	__u64 unexplained_blocks;
	__u64 unchecked_blocks;
	__u64 nlink;
	__u64 submit_end;		/* folio offset past the last range sent */
	__u32 block_bits;
	__u32 whole_dirty;
	__u32 bitmap_read;		/* kernel_dirty_blocks is valid */
	__u32 counted;			/* this folio passes the filters */
	__u32 checkable;		/* its whole dirty state is known */
	__u32 active;			/* a folio is in progress */
	/*
	 * Dirtied before attach: its clean -> dirty was not seen (no folio
	 * pointer in its first page's record), its dirty blocks are read
	 * from the kernel's bitmap and its figures also counted apart.
	 */
	__u32 preattach;
	/*
	 * Its clean -> dirty was seen (its first page's record has the folio
	 * pointer): on a kernel without a dirty bitmap, the writes seen are
	 * then all its dirty blocks (verify's check at the bio).
	 */
	__u32 dirtied_seen;
	/*
	 * Bit w set: dirty[w] and seen[w] are this folio's. The other words
	 * count as 0 (they may hold an older folio's bits): only the words
	 * with a bit set are written (a 2 MiB folio with one dirty block
	 * writes one of 32), all are read through ctx_dirty_word() and
	 * ctx_seen_word().
	 */
	__u64 dirty_words;
	__u64 dirty[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* dirty, any cause */
	__u64 seen[IOMAPDIRTY_MAX_BITMAP_WORDS / 2];	/* by writes or whole */
	/*
	 * This thread's finished folios of one file, not yet folded into the
	 * shared totals (see ACC_MAX_NS in bpf/sums.bpf.h); kept across
	 * folios, never reset with the folio fields above.
	 */
	struct wa_stats acc;
	/*
	 * The same folios' histogram buckets, folded with acc (fs_stats), and
	 * the bucket each histogram counted last, + 1 (0: none): where acc
	 * holds one folio (a writeback that moves to another file at every
	 * folio), the fold adds those 3 or 4 buckets, not a scan of all 160.
	 */
	__u32 acc_hist[NR_HISTS][HIST_BUCKETS];
	__u32 acc_hist_last[NR_HISTS];
	struct file_key acc_key;
	__u64 acc_first_ns;
	__u64 acc_folios;		/* 0: acc is empty */
	/*
	 * Who may touch this context: 0 free, the thread's id (idle between
	 * hooks), the id | CTX_IN (inside a hook), or CTX_FLUSHING (held
	 * by the flush). Changed only by compare-and-swap: bpf/folio_ctx.bpf.h.
	 */
	__u32 owner;
	__u32 pad;
};

/*
 * Global counters (EVENT_COUNTERS, LOSS_COUNTERS in fields.h): the events
 * first, then the losses, from CNT_LOSS_FIRST.
 */
#define COUNTER_ENUM(id, name)	id,
#define COUNTER_ONE(id, name)	+ 1
enum counter_id {
	EVENT_COUNTERS(COUNTER_ENUM)
	LOSS_COUNTERS(COUNTER_ENUM)
	NR_COUNTERS,
	CNT_LOSS_FIRST = 0 EVENT_COUNTERS(COUNTER_ONE),
};
#undef COUNTER_ENUM
#undef COUNTER_ONE

/* Which variant of a hook is attached; set by user space in .rodata. */
enum submit_proto {
	SUBMIT_RANGE,		/* (inode, pos, dirty_len, iomap) */
	SUBMIT_PER_BLOCK,	/* (inode, iomap): one block per event */
};

enum write_end_proto {
	WRITE_END_POS,		/* (iter, pos, len, copied, folio) */
	WRITE_END_ITER,		/* (iter, len, copied, folio), pos = iter->pos */
};

/*
 * How much the BPF side records (user/model/accounting.h names them). full: a
 * record per page written (application bytes and blocks per folio);
 * always-on: no per-page records, application bytes and write calls per
 * file only, the rest at writeback from the kernel's own dirty bitmap.
 */
enum accounting_level {
	ACCOUNTING_FULL,
	ACCOUNTING_ALWAYS_ON,
	NR_ACCOUNTING_LEVELS,
};

/*
 * always-on: the application bytes and write calls of one CPU's last file,
 * not yet folded into the files and filesystems maps (bpf/write_sums.bpf.c).
 */
struct write_sum {
	__u64 busy;		/* 1 while a program on this CPU or a flush holds it */
	__u64 ino;
	__u64 app_bytes;
	__u64 write_calls;
	__u32 dev;
	__u32 pad;
};

enum bitmap_kind {
	BITMAP_NONE,		/* no per-block dirty state in this kernel */
	BITMAP_IFS,		/* struct iomap_folio_state, state[] */
	BITMAP_IOP_STATE,	/* RFCv4 struct iomap_page, state[] */
};

#endif /* IOMAPDIRTY_H */
