/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One list per kind of field, shared by the BPF side and user space: the
 * statistics of struct wa_stats, the global counters, the histograms.
 * Everything else is generated from them: the struct and the enums
 * (iomapdirty.h), the BPF fold and merge (bpf/sums.bpf.c), the names user
 * space prints, the interval arithmetic (user/model/snapshot.c), what is
 * measured (user/model/measured.c), the histograms' tables and sums
 * (user/model/histograms.c), the JSON writer (user/output/report.c) and the
 * exposition (user/output/prom.c). Adding a quantity is one line here, plus
 * the code that measures it.
 */
#ifndef IOMAPDIRTY_FIELDS_H
#define IOMAPDIRTY_FIELDS_H

/*
 * Statistics, per file and per filesystem, all u64, in JSON order:
 *   X(name, unit, merge, json, level, help)
 * unit   what the field counts (docs/json-schema.md)
 * merge  how two values of it combine: SUM (added; intervals are
 *        differences), MAX (the larger), GAUGE (the newer one: the value
 *        with the later last_ns), FIRST (set once when the entry is made,
 *        never merged), OWN (the BPF side's own, per file: never merged,
 *        subtracted or compared)
 * json   when the stats object shows it: ALWAYS; IF_OTHER, IF_WHOLE,
 *        IF_BITMAP, IF_PREATTACH (null unless the plan can measure it:
 *        the kernel's dirty bitmap or a whole-folio dirtying hook, such a
 *        hook, the bitmap; the clean -> dirty hook, which tells a folio
 *        dirtied before attach); NEVER (kept for the tool's own use)
 * help   the exporter's HELP text ("" for a field never exported)
 * level  what it needs of the accounting level (enum accounting_level):
 *        ANY (every level), RECORDS (per-page records: the full level
 *        only), DIRTY (which blocks were dirty: the full level's records,
 *        or at the always-on level the kernel's dirty bitmap); where the
 *        level lacks it, the field is null like a json one the plan lacks
 */
#define WA_STATS_FIELDS(X)						\
	/* paths_made when the file's path was last found in paths or	\
	 * put there (files only, 0: not yet; bpf/paths.bpf.h). First:	\
	 * on the cache line of the entry's key, the one line a lookup	\
	 * that needs only it touches */				\
	X(path_made,		"entries",	OWN,	NEVER, ANY,	\
	  "")	\
	X(app_bytes,		"bytes",	SUM,	ALWAYS, ANY,	\
	  "Bytes applications wrote with write(2), counted when their folios "	\
	  "were written back (accounting level always-on: when written)")	\
	X(write_calls,		"calls",	SUM,	ALWAYS, ANY,	\
	  "write(2) calls, per folio written back: a call spanning k folios "	\
	  "counts k times (always-on: each call once, as the write hook sees it)")	\
	/* blocks touched by those writes, and as bytes */		\
	X(app_dirty_blocks,	"blocks",	SUM,	ALWAYS, RECORDS,	\
	  "Filesystem blocks touched by those writes, per folio written back")	\
	X(app_dirty_bytes,	"bytes",	SUM,	ALWAYS, RECORDS,	\
	  "app_dirty_blocks_total in bytes (blocks times block size)")	\
	/* dirty in the kernel, not by a seen write; folios with some */ \
	X(other_dirty_blocks,	"blocks",	SUM,	IF_OTHER, RECORDS,	\
	  "Blocks dirty at writeback that no seen write(2) dirtied "	\
	  "(mmap stores, dirtied before attach)")	\
	X(other_dirty_folios,	"folios",	SUM,	IF_OTHER, RECORDS,	\
	  "Folios written back with other_dirty_blocks")	\
	/* seen through iomap_dirty_folio */				\
	X(whole_folio_dirty_events, "folios",	SUM,	IF_WHOLE, RECORDS,	\
	  "Folios dirtied whole (iomap_dirty_folio, e.g. by mmap)")	\
	/* union of app and other: what had to be written */		\
	X(dirty_blocks,		"blocks",	SUM,	ALWAYS, DIRTY,	\
	  "Blocks dirty at writeback, any cause (sum over folios written back)")	\
	X(dirty_bytes,		"bytes",	SUM,	ALWAYS, DIRTY,	\
	  "dirty_blocks_total in bytes")	\
	X(folios,		"folios",	SUM,	ALWAYS, ANY,	\
	  "Folios written back")	\
	/* written back with no dirtying seen */			\
	X(folios_no_dirty_seen,	"folios",	SUM,	ALWAYS, DIRTY,	\
	  "Folios written back with no dirtying seen (dirtied before attach)")	\
	/* sum and largest of the folios' sizes */			\
	X(folio_bytes,		"bytes",	SUM,	ALWAYS, ANY,	\
	  "Sum of the sizes of the folios written back")	\
	X(max_folio_bytes,	"bytes",	MAX,	ALWAYS, ANY,	\
	  "Largest folio written back since attach")	\
	/* block size of the last folio seen */				\
	X(block_bytes,		"bytes",	GAUGE,	ALWAYS, ANY,	\
	  "Block size of the filesystem (of the last folio written back)")	\
	X(submitted_blocks,	"blocks",	SUM,	ALWAYS, ANY,	\
	  "Blocks writeback submitted to the device")	\
	X(submitted_bytes,	"bytes",	SUM,	ALWAYS, ANY,	\
	  "Bytes writeback submitted to the device")	\
	/* of folios with no dirtying seen */				\
	X(unseen_submitted_blocks, "blocks",	SUM,	ALWAYS, DIRTY,	\
	  "Submitted blocks of folios with no dirtying seen (left "	\
	  "out of the amplification ratio)")	\
	/* dirty ranges mapped to holes */				\
	X(hole_bytes,		"bytes",	SUM,	ALWAYS, ANY,	\
	  "Dirty bytes mapped to holes at writeback")	\
	/* submitted, dirty by no cause seen (verify) */		\
	X(violation_blocks,	"blocks",	SUM,	ALWAYS, DIRTY,	\
	  "VIOLATION: clean blocks submitted to the device (dirty by no "	\
	  "cause seen); 0 on a correct kernel")	\
	X(violation_folios,	"folios",	SUM,	ALWAYS, DIRTY,	\
	  "VIOLATION: folios that submitted clean blocks")	\
	/* submitted, dirty only in the kernel's bitmap */		\
	X(unexplained_blocks,	"blocks",	SUM,	IF_BITMAP, RECORDS,	\
	  "Submitted blocks dirty only in the kernel's bitmap, by no write "	\
	  "or whole-folio dirtying seen")	\
	/* submitted where the blocks are unknown */			\
	X(unchecked_blocks,	"blocks",	SUM,	ALWAYS, ANY,	\
	  "Submitted blocks that could not be checked (dirtied before "	\
	  "attach, no per-block offsets)")	\
	/* folios dirtied before attach (their clean -> dirty not seen),	\
	 * checked against the kernel's bitmap: the folios, their submitted	\
	 * blocks checked, and those written clean (violations too) */	\
	X(preattach_folios,	"folios",	SUM,	IF_PREATTACH, RECORDS,	\
	  "Folios dirtied before attach (their clean -> dirty not seen), "	\
	  "checked against the kernel's dirty bitmap at writeback")	\
	X(preattach_checked_blocks, "blocks",	SUM,	IF_PREATTACH, RECORDS,	\
	  "Submitted blocks of folios dirtied before attach, "	\
	  "checked against the kernel's dirty bitmap")	\
	X(preattach_violation_blocks, "blocks",	SUM,	IF_PREATTACH, RECORDS,	\
	  "VIOLATION: clean blocks submitted in folios dirtied "	\
	  "before attach (in violation_blocks_total too); 0 on a correct kernel")	\
	/* read from the kernel's dirty bitmap; folios it was read for */ \
	X(kernel_dirty_blocks,	"blocks",	SUM,	IF_BITMAP, ANY,	\
	  "Blocks the kernel's per-block dirty bitmap marked dirty at "	\
	  "writeback")	\
	X(bitmap_folios,	"folios",	SUM,	IF_BITMAP, ANY,	\
	  "Folios whose dirty bitmap was read at writeback")	\
	/* link count at the last writeback (deleted files: 0) */	\
	X(nlink,		"links",	GAUGE,	NEVER, ANY,	\
	  "")	\
	/* last update (bpf_ktime_get_ns) */				\
	X(last_ns,		"ns",		GAUGE,	NEVER, ANY,	\
	  "")	\
	/* when a file's entry was made (files only): its figures count	\
	 * from then; a file evicted and seen again has a later one */	\
	X(first_ns,		"ns",		FIRST,	NEVER, ANY,	\
	  "")	\
	/* 1: the entry was made for a file seen before (files_seen,	\
	 * bpf/sums.bpf.h): evicted once, its figures are partial */	\
	X(readmitted,		"flag",		FIRST,	NEVER, ANY,	\
	  "")

/* How a field merges, and when JSON shows it: see WA_STATS_FIELDS. */
enum wa_merge { WA_SUM, WA_MAX, WA_GAUGE, WA_FIRST, WA_OWN };
enum wa_json { WA_ALWAYS, WA_IF_OTHER, WA_IF_WHOLE, WA_IF_BITMAP, WA_IF_PREATTACH, WA_NEVER };
/* What a field needs of the accounting level: see WA_STATS_FIELDS. */
enum wa_need { WA_NEED_ANY, WA_NEED_RECORDS, WA_NEED_DIRTY };

/* WA_MERGE_<field>: the field's merge, a constant the compiler folds. */
#define WA_MERGE_ENUM(name, unit, merge, json, level, help)	WA_MERGE_##name = WA_##merge,
enum wa_field_merge { WA_STATS_FIELDS(WA_MERGE_ENUM) };
#undef WA_MERGE_ENUM

/*
 * Global counters, X(id, name): how often each hook fired, and everything
 * lost, dropped or not attributable (every output shows the losses).
 */
#define EVENT_COUNTERS(X)						\
	X(CNT_WRITE_EVENTS,		"write_events")			\
	X(CNT_WHOLE_DIRTY_EVENTS,	"whole_dirty_events")		\
	X(CNT_DIRTY_FOLIO_EVENTS,	"dirty_folio_events")		\
	X(CNT_WB_START_EVENTS,		"writeback_begin_events")	\
	X(CNT_WB_END_EVENTS,		"writeback_end_events")		\
	X(CNT_SUBMIT_EVENTS,		"submit_events")		\
	X(CNT_INVALIDATE_EVENTS,	"invalidate_events")		\
	X(CNT_FILTERED_WRITES,		"filtered_writes")		\
	X(CNT_FILTERED_FOLIOS,		"filtered_folios")		\
	X(CNT_FLUSHED_CTX,		"flushed_contexts")		\
	X(CNT_BIO_EVENTS,		"bio_events")			\
	X(CNT_SIMULATED_FOLIOS,		"simulated_clean_folios")	\
	/* records put in page_overflow: a full set (not a loss) */	\
	X(CNT_PAGE_SPILLS,		"page_records_spilled")		\
	/* entries made in the files and paths maps (LRU: the oldest	\
	 * unused one makes room, not a loss); and, read by user space	\
	 * (made minus live), those evicted so far (engine_read.c) */	\
	X(CNT_FILE_ENTRIES,		"file_entries_created")		\
	X(CNT_PATH_ENTRIES,		"path_entries_created")		\
	X(CNT_FILES_EVICTED,		"file_entries_evicted")		\
	X(CNT_PATHS_EVICTED,		"path_entries_evicted")		\
	/* the same for the writer cgroups' sums (--collector.cgroup,	\
	 * bpf/cgroup_sums.bpf.h): made, and evicted (user space) */	\
	X(CNT_CGROUP_ENTRIES,		"cgroup_entries_created")	\
	X(CNT_CGROUPS_EVICTED,		"cgroup_entries_evicted")	\
	/* entries made in file_writers (bpf/writers.bpf.h, LRU): a	\
	 * file's first write since attach, or since its entry was	\
	 * evicted (made minus the map's entries: those evicted) */	\
	X(CNT_WRITER_ENTRIES,		"writer_entries_created")	\
	/* verify --simulate-unseen-bios: write bios ignored (a test) */	\
	X(CNT_SIMULATED_BIOS,		"simulated_unseen_bios")	\
	/* folios going clean -> dirty on filesystems not watched */	\
	X(CNT_UNWATCHED_DIRTY_EVENTS,	"unwatched_dirty_events")	\
	/* the work of filling writeback's folios (bpf/writeback.bpf.c):	\
	 * bitmap words counted or walked, and page records looked up */ \
	X(CNT_WB_FILL_STEPS,		"writeback_fill_steps")		\
	/* buffer heads (ext4, bpf/buffer_heads.bpf.c): blocks of	\
	 * watched files gone clean -> dirty, and write bios looked at */	\
	X(CNT_BH_DIRTY_EVENTS,		"buffer_dirty_events")		\
	X(CNT_BH_BIO_EVENTS,		"buffer_head_bio_events")		\
	/* write bios that are clones (bpf/buffer_heads.bpf.c: a	\
	 * mirror's copy, a split part, a stacked device's), not walked */ \
	X(CNT_CLONED_WRITE_BIOS,	"cloned_write_bios")		\
	/* btrfs (bpf/btrfs.bpf.c): write syscalls into its files seen	\
	 * at their start, and folios gone clean -> dirty */		\
	X(CNT_BTRFS_WRITE_SYSCALLS,	"btrfs_write_syscalls")		\
	X(CNT_BTRFS_DIRTY_EVENTS,	"btrfs_dirty_events")

#define LOSS_COUNTERS(X)						\
	X(CNT_PAGE_MAP_FULL,		"page_map_full")		\
	X(CNT_FILE_MAP_FULL,		"file_map_full")		\
	X(CNT_FS_MAP_FULL,		"fs_map_full")			\
	X(CNT_CTX_MAP_FULL,		"context_map_full")		\
	X(CNT_WRITE_TOO_LARGE,		"write_too_large")		\
	X(CNT_FOLIO_TOO_LARGE,		"folio_too_large")		\
	X(CNT_FOLIO_PTR_MISSING,	"folio_pointer_missing")	\
	X(CNT_FOLIO_PTR_STALE,		"folio_pointer_stale")		\
	X(CNT_SUBMIT_WITHOUT_FOLIO,	"submit_without_folio")		\
	X(CNT_READ_FAILURES,		"read_failures")		\
	X(CNT_PATH_MAP_FULL,		"path_map_full")		\
	X(CNT_VIOLATION_MAP_FULL,	"violation_map_full")		\
	X(CNT_PHYS_MAP_FULL,		"physical_map_full")		\
	/* a write bio's blocks went past its bio_vecs (bi_vcnt) or	\
	 * past the walk's bound: those blocks were not placed */	\
	X(CNT_BIOVEC_BOUND,		"bio_vec_walk_bound")		\
	/* a hook found its thread's context held by the flush	\
	 * (bpf/folio_ctx.bpf.h): that hook's event is not counted */	\
	X(CNT_CTX_FLUSH_RACE,		"context_flush_race")		\
	/* verify: a folio's dirty bitmap could not be kept for its	\
	 * write bios (bpf/snapshot.bpf.h): its blocks go unchecked */	\
	X(CNT_SNAP_MAP_FULL,		"snapshot_map_full")		\
	/* a folio whose block or folio size writeback cannot place */	\
	X(CNT_GEOMETRY_UNSUPPORTED,	"folio_geometry_unsupported")	\
	/* run: another process's write into a file other_writes	\
	 * had no room for (its bytes are in no figure) */		\
	X(CNT_OTHER_MAP_FULL,		"other_writes_map_full")	\
	/* a file whose writer file_writers had no room for */	\
	X(CNT_WRITER_MAP_FULL,		"writer_map_full")		\
	/* a filesystem not watched that unwatched_fs had no room for */ \
	X(CNT_UNWATCHED_MAP_FULL,	"unwatched_map_full")		\
	/* a writer cgroup cgroup_sums had no room for (LRU: not seen) */ \
	X(CNT_CGROUP_MAP_FULL,		"cgroup_map_full")		\
	/* ext4: a write_end whose copy came short (copied < len): the	\
	 * kernel may then commit nothing, which the tracepoint cannot	\
	 * tell; its bytes are in no figure */				\
	X(CNT_BH_SHORT_COPY,		"buffer_head_short_copy")	\
	/* btrfs: a folio of several blocks, whose dirty blocks are in	\
	 * btrfs's own bitmap (large folios): not counted */		\
	X(CNT_BTRFS_MULTIBLOCK_FOLIO,	"btrfs_multiblock_folio")	\
	/* btrfs: a write syscall with no room to keep its request for	\
	 * its end (task storage): its bytes are in no figure */		\
	X(CNT_BTRFS_WRITE_UNKEPT,	"btrfs_write_unkept")		\
	/* kernel-side misses, read by user space (engine.c), never	\
	 * counted by the BPF programs: runs skipped by recursion	\
	 * protection (bpf_prog_info), kprobe/kretprobe hits missed	\
	 * (bpf_link_info, 6.7+); they stay last */		\
	X(CNT_RECURSION_MISSES,		"recursion_misses")		\
	X(CNT_KPROBE_MISSES,		"kprobe_misses")

/*
 * Per filesystem not watched (include/fs_kinds.h: not written back
 * through iomap), X(name, unit): what the watched writers dirtied there,
 * at its folios' clean -> dirty (bpf/unwatched.bpf.c), so that run, hist
 * and top can say what they do not count. All u64, cumulative, summed.
 */
#define UNWATCHED_FIELDS(X)						\
	X(folios_dirtied,	"folios")				\
	X(bytes_dirtied,	"bytes")

/*
 * Histograms, log2 buckets (include/buckets.h), one row each:
 *   X(id, name, unit, sum, help)
 * sum    the statistic of WA_STATS_FIELDS the histogram's values add up
 *        to over the same folios, SUM_OF(field) (the exposition's _sum),
 *        or NO_SUM
 * help   the exporter's HELP text
 * user/model/histograms.c makes every table that names them from it.
 */
#define HISTOGRAMS(X)							\
	X(HIST_DIRTY_BLOCKS,	"dirty_blocks_per_folio",	"blocks",	\
	  SUM_OF(dirty_blocks),						\
	  "Dirty blocks per folio at writeback (log2 buckets, include/buckets.h); " \
	  "_sum is dirty_blocks_total summed over filesystems")		\
	X(HIST_SUBMITTED_BLOCKS, "submitted_blocks_per_folio",	"blocks",	\
	  SUM_OF(submitted_blocks),					\
	  "Blocks submitted per folio (log2 buckets); _sum is "		\
	  "submitted_blocks_total summed over filesystems")		\
	X(HIST_AMPLIFICATION,	"folio_amplification",		"ratio",	\
	  NO_SUM,							\
	  "Submitted over dirty blocks per folio with dirty blocks (le=1 " \
	  "includes ratios below 1, see folio_amplification_below_one_total). No _sum: " \
	  "the kernel keeps per-folio ratios only as bucket counts; the aggregate ratio " \
	  "is the recording rule iomapdirty:folio_amplification:ratio_rate5m") \
	X(HIST_FOLIO_BYTES,	"folio_bytes",			"bytes",	\
	  SUM_OF(folio_bytes),						\
	  "Size of each folio written back (log2 buckets); _sum is "	\
	  "folio_bytes_total summed over filesystems")

#endif /* IOMAPDIRTY_FIELDS_H */
