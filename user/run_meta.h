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
#include "runfile.h"

struct json;

struct run_meta {
	struct utsname uts;
	bool uts_known;
	struct fio_summary fio;	/* fio.present: fio's results were read */
};

void run_meta_gather(struct run_meta *m);
/* Writes "host" and, when present, "fio" into the open run document. */
void run_meta_write_json(struct json *j, const void *run_meta);
/* One line for the text summary: "fio: write 28.6 MB/s, 7000 IOPS ...". */
void fio_summary_print(FILE *out, const struct fio_summary *fs);

#endif
