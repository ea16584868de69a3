/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run files read back: the JSON that `run --json FILE` writes (schema
 * "iomapdirty/1", docs/json-schema.md), loaded for compare and report.
 *
 * A value the file gives as null (the plan could not measure it) or does
 * not have (an older file) is "unknown", never 0.
 */
#ifndef IOMAPDIRTY_RUNFILE_H
#define IOMAPDIRTY_RUNFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "runs/fio_results.h"
#include "iomapdirty.h"
#include "lib/json_input.h"

/*
 * The per-folio statistics of a run file's `stats` objects: the list the
 * JSON writer writes them from (WA_STATS_FIELDS, include/fields.h), so the
 * two cannot drift. Fields the writer never writes (json NEVER: nlink,
 * last_ns) are not read and stay unknown.
 */
enum run_field {
#define RUN_FIELD_ENUM(name, unit, merge, json, level, help) RF_##name,
	WA_STATS_FIELDS(RUN_FIELD_ENUM)
#undef RUN_FIELD_ENUM
	NR_RUN_FIELDS,
};

extern const char *const run_field_names[NR_RUN_FIELDS];

struct run_stats {
	struct run_num f[NR_RUN_FIELDS];
	struct run_num block_rounding;
	struct run_num folio_amplification;
};

struct run_filestat {
	char dev[32];
	uint64_t ino;
	char *path;		/* NULL when the file does not say */
	char path_state[16];	/* "" when the file does not say */
	struct run_stats s;
};

struct run_hook {
	char hook[32];
	char mechanism[16];
	char program_type[16];
	char *target;
};

#define RUN_MAX_HOOKS	16
#define RUN_MAX_LOSSES	32

struct run_counter {
	char name[48];
	uint64_t value;
};

struct run_file {
	char *path;		/* as given */
	char type[16];		/* "run" or "summary" */
	struct run_num seconds;
	char *host;		/* NULL: not in the file (older runs) */
	char *kernel;
	char *machine;
	char *accounting;	/* NULL: the file names no accounting level */
	char family[4];
	char *family_desc;
	char *dirty_bitmap;
	char *mode;
	char probes[64];	/* the program types attached: "tp_btf+raw_tp" */
	int nhooks;		/* chosen hooks only */
	struct run_hook hooks[RUN_MAX_HOOKS];
	struct run_num max_page_records;
	struct run_stats totals;
	int nfiles;
	struct run_filestat *files;
	uint64_t hists[NR_HISTS][HIST_BUCKETS];
	bool hist_known[NR_HISTS];
	int nlosses;
	struct run_counter losses[RUN_MAX_LOSSES];
	struct fio_summary fio;
};

/*
 * Loads a run file. Returns 0, or a negative errno with a message naming
 * the file and what is wrong in err: the file's own errors as
 * input_open() gives them (-ENOENT, -ELOOP, ...), -EINVAL (not JSON,
 * unknown schema, not a run), -ENOMEM.
 */
int run_file_load(const char *path, struct run_file *rf, char *err, size_t len);
/* The same from text (n bytes, NUL-terminated); path names it in err. */
int run_file_parse(const char *text, size_t n, const char *path, struct run_file *rf,
		   char *err, size_t len);
void run_file_free(struct run_file *rf);
uint64_t run_file_losses(const struct run_file *rf);

#endif
