/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reading of everything the BPF side counts, and the arithmetic on
 * readings: intervals are the difference of two cumulative snapshots.
 */
#ifndef IOMAPDIRTY_SNAPSHOT_H
#define IOMAPDIRTY_SNAPSHOT_H

#include <stdint.h>
#include "iomapdirty.h"

struct fs_entry {
	uint32_t dev;
	struct wa_stats s;
};

struct file_entry {
	struct file_key key;
	struct wa_stats s;
};

struct snapshot {
	uint64_t counters[NR_COUNTERS];
	uint64_t hists[NR_HISTS][HIST_BUCKETS];
	struct fs_entry *fs;
	int nfs;
	struct file_entry *files;
	int nfiles;
	double seconds;		/* time covered */
};

void snapshot_free(struct snapshot *s);
/*
 * out = cur - prev (prev NULL: cur since attach), per key; gauges (max
 * folio, block size) from cur. 0 or -ENOMEM.
 */
int snapshot_delta(const struct snapshot *cur, const struct snapshot *prev,
		   struct snapshot *out);
/* Sum over filesystems. */
void snapshot_totals(const struct snapshot *s, struct wa_stats *t);
void stats_sub(struct wa_stats *out, const struct wa_stats *a,
	       const struct wa_stats *b);
void stats_add_into(struct wa_stats *t, const struct wa_stats *s);
uint64_t snapshot_losses(const struct snapshot *s);
/* Orders file entries by (dev, ino), for qsort and bsearch. */
int file_entry_cmp(const void *a, const void *b);

extern const char *const counter_names[NR_COUNTERS];

#endif
