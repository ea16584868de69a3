/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's insides, for its own files only (live/engine*.c:
 * tests/build/layering.sh checks that no other file reaches this header).
 * engine.c opens, attaches, flushes and closes; engine_read.c reads the
 * maps into snapshots; engine_paths.c answers for files (paths, writers).
 * Each part keeps its state in its own member below and frees what it
 * allocates.
 */
#ifndef IOMAPDIRTY_ENGINE_PRIV_H
#define IOMAPDIRTY_ENGINE_PRIV_H

#include "live/engine.h"
#include "live/plan.h"

struct iomapdirty_bpf;
struct bpf_link;

/* engine_read.c's: scratch for reading maps, and the evictions seen so far */
struct engine_reader {
	uint64_t *percpu;	/* one per CPU, for per-CPU reads */
	/* batch reads of a stats map: keys, values */
	struct batch_buf {
		void *keys;
		struct wa_stats *vals;
		uint32_t cap;
	} batch;
	/* evictions from the LRU file maps so far: they never go back */
	uint64_t files_evicted, paths_evicted, cgroups_evicted;
};

/*
 * engine_paths.c's: files whose path check did not answer in time
 * (host/pathcheck.h): not asked again, so one hung mount costs one
 * deadline, not one per refresh.
 */
#define ENGINE_HUNG_MAX	64
struct engine_paths {
	struct file_key hung[ENGINE_HUNG_MAX];
	int nhung;
};

/* engine.c's, but for rd and paths */
struct engine {
	struct iomapdirty_bpf *skel;
	const struct plan *plan;
	struct engine_opts opts;
	struct bpf_link *links[NR_HOOKS + 1];
	int nlinks;
	int ncpus;
	uint64_t start_ns;
	struct engine_reader rd;	/* engine_read.c */
	struct engine_paths paths;	/* engine_paths.c */
};

/* engine_read.c's scratch, once e->ncpus is known: 0 or -ENOMEM. */
int engine_read_init(struct engine *e);
/* Frees it (engine_close()); safe on a zeroed or freed reader. */
void engine_read_free(struct engine *e);

#endif
