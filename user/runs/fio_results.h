/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fio's own JSON results (--output-format=json), summed over its jobs,
 * which `run --fio-json` keeps in the run file (as its "fio" object), so
 * that compare and report show fio's bandwidth and IOPS beside the bytes.
 */
#ifndef IOMAPDIRTY_FIO_RESULTS_H
#define IOMAPDIRTY_FIO_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* fio's figures for one direction, summed over its jobs. */
struct fio_dir {
	uint64_t io_bytes;
	uint64_t bw_bytes;	/* bytes per second */
	double iops;
	uint64_t runtime_ms;	/* the longest job's */
	double lat_mean_ns;	/* mean completion latency, weighted by I/Os */
	uint64_t total_ios;
};

struct fio_summary {
	bool present;
	char version[32];
	uint32_t jobs;
	struct fio_dir read, write;
};

/*
 * Reads fio's --output-format=json results from a file modified at or
 * after not_before (a file left by an earlier run is refused). Returns 0
 * or a negative errno with err (-EINVAL: not fio's JSON, or older than
 * not_before; the file's own errors as input_open() gives them).
 */
int fio_summary_load(const char *path, time_t not_before, struct fio_summary *fs,
		     char *err, size_t len);
/* The same from text (n bytes, NUL-terminated); path names it in err. */
int fio_summary_parse(const char *text, size_t n, const char *path,
		      struct fio_summary *fs, char *err, size_t len);

#endif
