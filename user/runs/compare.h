/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The comparison of run files, as rows of figures: one value per run and
 * the change of each run against the first, as a factor ("16.0x less").
 * compare prints the rows as text, markdown or JSON; report draws them in
 * HTML. The figures and their order are defined here only.
 */
#ifndef IOMAPDIRTY_COMPARE_H
#define IOMAPDIRTY_COMPARE_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include "runs/runfile.h"

#define CMP_MAX_RUNS	16
#define CMP_MAX_ROWS	64
#define CMP_LABEL_LEN	64

enum cmp_kind {
	CMP_COUNT,		/* exact integer */
	CMP_BYTES,		/* exact integer, bytes */
	CMP_RATIO,		/* dimensionless, from the file */
	CMP_SECONDS,
	CMP_BW,			/* bytes per second (fio) */
	CMP_IOPS,		/* fio */
	CMP_LAT_NS,		/* fio, mean */
	CMP_TEXT,		/* a name: compared for equality only */
};

struct cmp_row {
	char key[40];		/* its name in compare --format json */
	char label[32];		/* its name for people */
	enum cmp_kind kind;
	struct run_num val[CMP_MAX_RUNS];
	const char *text[CMP_MAX_RUNS];	/* CMP_TEXT; NULL: unknown */
};

struct cmp_table {
	int nruns;
	const struct run_file *runs;
	char labels[CMP_MAX_RUNS][CMP_LABEL_LEN];	/* as given: escape on output */
	int nrows;
	struct cmp_row rows[CMP_MAX_ROWS];
};

void cmp_format_value(const struct cmp_row *r, int run, char *buf, size_t len);
/* b / a of run against run 0, when both are known and a is not 0. */
bool cmp_ratio(const struct cmp_row *r, int run, double *ratio);
/* "16.0x less", "2.50x more", "same", "from 0", "to 0", "differs", "n/a". */
void cmp_format_change(const struct cmp_row *r, int run, char *buf, size_t len);
/*
 * The run files and --labels that compare and report take, parsed by
 * run_set_argp (an argp child whose input is this).
 */
struct run_set_args {
	int min_files;		/* the command's minimum */
	char *labels_arg;
	char *labels[CMP_MAX_RUNS];
	int nlabels;
	char **files;
	int nfiles;
};

extern const struct argp run_set_argp;

/*
 * Loads the run files and builds the table; at the first bad file says
 * why on stderr and returns EXIT_USAGE (nothing left loaded).
 */
int run_set_load(const struct run_set_args *a, struct run_file *runs,
		 struct cmp_table *t);
void run_set_free(const struct run_set_args *a, struct run_file *runs);
/* "4 KiB", "2 MiB": sizes of folios and blocks. */
void cmp_format_size(uint64_t bytes, char *buf, size_t len);

#endif
