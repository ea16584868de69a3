/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine: loads the BPF object with the programs the plan chose,
 * attaches them, and reads snapshots. Every frontend goes through it.
 * struct engine is opaque (its insides: live/engine_priv.h, the engine's
 * own files only): callers hold the pointer engine_open() gives and ask
 * it questions.
 */
#ifndef IOMAPDIRTY_ENGINE_H
#define IOMAPDIRTY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include "model/files.h"
#include "model/snapshot.h"

struct engine_opts {
	uint32_t dev;		/* kernel dev_t to watch, 0 for all */
	uint32_t tgid;		/* process whose writes count, 0 for all */
	const char *comm;	/* command name whose writes count, or NULL */
	uint32_t max_pages;	/* page records: bounds memory (0: default) */
	bool verify;		/* also match write bios to submitted data */
	uint32_t simulate_clean_every;	/* verify --simulate-clean N */
	bool simulate_unseen_bios;	/* verify --simulate-unseen-bios */
	uint64_t cgroup_id;	/* run: CMD's cgroup v2 id, 0 for every cgroup */
	uint32_t cgroup_level;	/* its depth under the v2 root */
	bool count_others;	/* run: sum the other cgroups' writes apart */
	bool cgroup_sums;	/* exporter --collector.cgroup: sums per writer cgroup */
};

struct engine;
struct plan;

/*
 * A new engine in *out, 0; or a negative errno with a message in err, and
 * *out NULL. It keeps p: the plan outlives it.
 */
int engine_open(struct engine **out, const struct plan *p,
		const struct engine_opts *o, char *err, size_t errlen);
/* Detaches, unloads and frees it; NULL is nothing to do. */
void engine_close(struct engine *e);
/*
 * Interval reports fold the sums of threads idle this long. In tracepoint
 * mode no event ends a folio's writeback, so a flush also finishes the
 * folio of a thread idle ENGINE_FINISH_IDLE_NS: a thread preempted between
 * a folio's begin and its submits for longer than that would have its late
 * submits counted as submit_without_folio. 50 ms was too short for that:
 * under a kernel build on two cores one such preemption came in a million
 * folios (the exporter soak, cold CI); a second is not reached there.
 */
#define ENGINE_FLUSH_IDLE_NS	(50 * 1000 * 1000ull)
#define ENGINE_FINISH_IDLE_NS	(1000 * 1000 * 1000ull)

/*
 * Folds the sums of threads idle for idle_ns, finishes their folios in
 * tracepoint mode after ENGINE_FINISH_IDLE_NS; idle_ns 0: everything.
 */
int engine_flush(struct engine *e, uint64_t idle_ns);
int engine_snapshot(struct engine *e, struct snapshot *s);
/*
 * The final reading, for summaries: every folio context finished (a flush
 * with no idle threshold), everything since attach (d = now - zero).
 */
int engine_summary(struct engine *e, struct snapshot *d);
uint32_t engine_max_pages(const struct engine *e);
/* The engine's answers to a renderer's questions about files (model/files.h). */
struct file_lookup engine_file_lookup(struct engine *e);

/* Where a file is (model/files.h), and whether that still holds. */
enum path_state engine_file_path(struct engine *e, const struct file_key *key,
				 char *buf, size_t len);

struct violation_entry {
	struct page_key key;
	struct violation v;
};
/* The first folios that sent clean blocks (at most 'max'), by offset. */
int engine_violations(struct engine *e, struct violation_entry *out, int max);

int engine_bio_stats(struct engine *e, struct bio_entry *out, int max);
/*
 * The first folios whose write bios carried clean blocks, checked at the
 * block layer against their dirty bitmap as writeback began (verify).
 */
int engine_bio_violations(struct engine *e, struct violation_entry *out, int max);
/*
 * Verify's window has ended: folios whose writeback begins from now on
 * keep no dirty bitmap for the block layer (their bios count in no
 * figure). 0 or -errno.
 */
int engine_end_bio_window(struct engine *e);
/* Physical blocks submitted but not yet seen in a bio. */
uint64_t engine_pending_blocks(struct engine *e);
struct pending_entry {
	struct phys_key key;
	struct phys_origin origin;
};
/* Up to max of them; then which of those are still not seen (kept first). */
int engine_pending_keys(struct engine *e, struct pending_entry *out, int max);
int engine_pending_still(struct engine *e, struct pending_entry *p, int n);

struct unwritten_entry {
	uint32_t dev;
	struct unwritten u;
};
/*
 * Per filesystem: pages written or dirtied since attach that writeback
 * has not taken yet (still dirty in the page cache). Count, or -errno.
 */
int engine_unwritten(struct engine *e, struct unwritten_entry *out, int max);

/* A file's first writer since attach; false if none is known. */
bool engine_file_writer(struct engine *e, const struct file_key *key, struct writer_info *wi);

/*
 * The sums per writer cgroup (engine_opts.cgroup_sums, bpf/cgroup_sums.bpf.h):
 * id 0 holds the files with no writer known. Read them before the
 * snapshot they go with: a fold adds to the filesystem first, so that
 * snapshot's totals hold all that the cgroups read here hold.
 */
/* *out (free() it) and *n; 0 or -errno. Nothing (0, NULL) when off. */
int engine_cgroup_sums(struct engine *e, struct cgroup_entry **out, int *n);

/* run: what processes outside CMD's cgroup wrote, summed over its files. */
struct other_total {
	uint64_t app_bytes;
	uint64_t write_calls;
	uint64_t files;
};
void engine_other_writes(struct engine *e, struct other_total *t);

/* A loaded BPF program's own cost, from the kernel (bpf_prog_info). */
struct engine_prog_stats {
	const char *name;	/* the program's: valid while the engine is open */
	uint64_t run_time_ns;	/* these two: while kernel.bpf_stats_enabled is 1 */
	uint64_t run_cnt;
	uint64_t recursion_misses;	/* runs skipped: it was running on the CPU */
};
/* The first max loaded programs, in the BPF object's order: their count. */
int engine_prog_stats(struct engine *e, struct engine_prog_stats *out, int max);

#endif
