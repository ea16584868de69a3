/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run file says besides the counts, so that compare and report can
 * tell runs apart: the host and kernel it ran on, and fio's own figures
 * when the command was fio (run --fio-json).
 */
#ifndef IOMAPDIRTY_RUN_META_H
#define IOMAPDIRTY_RUN_META_H

#include <stdio.h>
#include <sys/utsname.h>
#include "runs/runfile.h"

struct json;

struct run_meta {
	struct utsname uts;
	bool uts_known;
	struct fio_summary fio;	/* fio.present: fio's results were read */
	/*
	 * Whose writes the run counts: CMD's cgroup (and its descendants),
	 * or every process (run --all, scoped false). Scoped: what the
	 * others wrote meanwhile, apart.
	 */
	bool scoped;
	const char *cgroup;	/* relative to the v2 root */
	uint64_t cgroup_id;
	uint64_t other_app_bytes, other_write_calls, other_files;
};

void run_meta_gather(struct run_meta *m);
/* Writes "host" and, when present, "fio" into the open run document. */
void run_meta_write_json(struct json *j, const void *run_meta);
/* "counted: ..." and "other processes: ..." lines for the text summary. */
void run_scope_print(FILE *out, const struct run_meta *m);
/* One line for the text summary: "fio: write 28.6 MB/s, 7000 IOPS ...". */
void fio_summary_print(FILE *out, const struct fio_summary *fs);

#endif
