/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rendering of snapshots, in text and in JSON (schema "iomapdirty/1",
 * docs/json-schema.md). The derived figures (block_rounding,
 * folio_amplification) are model/ratios.h's.
 */
#ifndef IOMAPDIRTY_REPORT_H
#define IOMAPDIRTY_REPORT_H

#include <stdio.h>
#include "model/files.h"
#include "model/histograms.h"
#include "lib/exitcodes.h"
#include "live/plan.h"
#include "model/snapshot.h"

#define IOMAPDIRTY_SCHEMA	"iomapdirty/1"

struct json;

/*
 * run: the command's own time, the wait for the writeback of what it
 * wrote, and what was still dirty (not written back) at the end.
 */
struct run_writeback {
	double command_seconds;
	bool synced;			/* false: --no-sync */
	double sync_seconds;
	int filesystems_synced;
	int sync_failures;
	uint64_t unwritten_pages;	/* page records still live at the end */
	uint64_t unwritten_app_bytes;
};

struct report_ctx {
	const struct plan *plan;
	uint32_t target_dev;	/* 0: all */
	uint32_t max_pages;
	const struct file_lookup *files;	/* JSON: files[] get path, path_state, writer */
	const struct host_lookup *host;		/* filesystems' mount points and types */
	/* JSON: adds members to the document before it closes (run's host) */
	void (*extra_json)(struct json *j, const void *arg);
	const void *extra_arg;
	const struct run_writeback *run;	/* run only, else NULL */
};


/*
 * Flushes out; -1 when it (or an earlier write) failed, the reason said on
 * stderr once (ENOSPC, EPIPE when SIGPIPE is ignored): the caller stops.
 */
int report_flush(FILE *out);
void report_header_text(FILE *out, const struct report_ctx *rc);
void report_text(FILE *out, const char *title, const struct snapshot *d,
		 const struct report_ctx *rc);
/* "writer": {cgroup_id, cgroup, unit, container, ..., comm, several_cgroups} */
void writer_json(struct json *j, const struct writer_info *wi);
void report_json(FILE *out, const char *type, int interval, const struct snapshot *d,
		 const struct report_ctx *rc);

/*
 * What the plan (NULL: any) cannot measure (no dirty bitmap, no
 * whole-folio hook) is written as null instead of a 0.
 */
void stats_write_json(struct json *j, const struct wa_stats *s, const struct plan *p);
/* "losses": { counter: n, ... } for every loss counter. */
void report_losses_json(struct json *j, const struct snapshot *d);

/* ------------------------------------------------- verify (report_verify.c) */

/*
 * verify's verdicts, which are also its exit codes. INCOMPLETE is "no
 * evidence" when no block at all was checked (verify_report.no_evidence).
 */
enum verdict {
	VERDICT_PASS = 0,
	VERDICT_FAIL = 1,
	VERDICT_ERROR = 2,
	VERDICT_INCOMPLETE = EXIT_INCOMPLETE,
};

struct verify_offender {
	char path[4096];	/* as file_lookup.path wrote it */
	enum path_state state;
	uint64_t ino;
	struct violation v;
};

/* What verify found, ready to be written. */
struct verify_report {
	const struct snapshot *d;	/* since attach */
	const struct bio_entry *bios;
	int nbios;
	bool bios_watched;		/* the plan has the block_bio hook */
	uint64_t pending;		/* submitted blocks not seen in a bio */
	double settle_seconds;		/* waited for them after the end */
	int nviolations;		/* folios found (up to verify's maximum) */
	const struct verify_offender *offenders;	/* the first --list of them */
	int noffenders;
	unsigned long long simulate;	/* --simulate-clean N, 0 if not */
	bool simulate_unseen;		/* --simulate-unseen-bios */
	enum verdict verdict;
	bool no_evidence;		/* INCOMPLETE: nothing was checked */
	/*
	 * Submitted blocks checked: of folios dirtied inside the window, and
	 * of folios dirtied before attach (reported apart, issue 22; only
	 * where the plan tells them apart: tells_preattach).
	 */
	uint64_t checked_blocks;
	bool tells_preattach;
	/*
	 * The submit hook has no offsets (6.1-6.8): the blocks were checked
	 * in the write bios only (bio_totals.bio_*), not by the submit hook.
	 */
	bool checked_at_bio_only;
	uint64_t blocks_goal;		/* --blocks N, 0 if not */
	bool blocks_reached;		/* stopped because N were checked */
	struct wa_stats totals;		/* over the filesystems */
	struct bio_stats bio_totals;	/* over the block devices */
	char why[1024];
};

void report_verify_text(FILE *out, const struct report_ctx *rc,
			const struct verify_report *r);
void report_verify_json(FILE *out, const struct report_ctx *rc,
			const struct verify_report *r);

#endif
