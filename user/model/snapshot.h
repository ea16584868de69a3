/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reading of everything the BPF side counts, and the arithmetic on
 * readings: intervals are the difference of two cumulative snapshots.
 */
#ifndef IOMAPDIRTY_SNAPSHOT_H
#define IOMAPDIRTY_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
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

/* A filesystem not watched, what was dirtied there (bpf/unwatched.bpf.c). */
struct unwatched_entry {
	struct unwatched_key key;
	struct unwatched_stats u;
};
#define UNWATCHED_MAX	256	/* = the BPF map's entries */

/* A block device's write bios (engine_bio_stats, verify). */
struct bio_entry {
	uint32_t dev;
	struct bio_stats s;
};

/* A writer cgroup's sums (engine_cgroup_sums), id 0: no writer known. */
struct cgroup_entry {
	uint64_t id;
	struct wa_stats s;
};

struct snapshot {
	uint64_t counters[NR_COUNTERS];
	uint64_t hists[NR_HISTS][HIST_BUCKETS];
	struct fs_entry *fs;
	int nfs;
	struct file_entry *files;
	int nfiles;
	/* cumulative in a reading; in a delta, those that moved */
	struct unwatched_entry unwatched[UNWATCHED_MAX];
	int nunwatched;
	double seconds;		/* time covered */
};

void snapshot_free(struct snapshot *s);
/*
 * out = cur - prev (prev NULL: cur since attach), per key; fields that
 * do not merge by sum (max folio, block size, ...) from cur. 0 or -ENOMEM.
 */
int snapshot_delta(const struct snapshot *cur, const struct snapshot *prev,
		   struct snapshot *out);
/* Sum over filesystems. */
void snapshot_totals(const struct snapshot *s, struct wa_stats *t);
/* out = a - b for SUM fields (b NULL: a), the others from a. */
void stats_sub(struct wa_stats *out, const struct wa_stats *a,
	       const struct wa_stats *b);
/* t += s, each field as it merges (GAUGE: from the later last_ns). */
void stats_add_into(struct wa_stats *t, const struct wa_stats *s);
uint64_t snapshot_losses(const struct snapshot *s);
/*
 * b, read after a, is a filesystem record as it was between two folds:
 * nothing changed from a to b and no fold was half done (struct fs_stats).
 */
bool fs_stats_settled(const struct fs_stats *a, const struct fs_stats *b);
/*
 * Whether a file's figures may miss what it had before an eviction from
 * the files map: they count from its entry's first_ns, not from attach.
 */
static inline bool stats_partial(const struct wa_stats *f)
{
	return f->readmitted != 0;
}
/* Orders file entries by (dev, ino), for qsort and bsearch. */
int file_entry_cmp(const void *a, const void *b);

extern const char *const counter_names[NR_COUNTERS];

/* The fields of struct wa_stats (WA_STATS_FIELDS in fields.h), in order. */
struct wa_field {
	const char *name;
	const char *unit;
	size_t offset;
	enum wa_merge merge;
	enum wa_json json;
	enum wa_need need;	/* of the accounting level */
};
#define WA_STATS_COUNT(name, unit, merge, json, level, help)	+ 1
enum { NR_WA_STATS_FIELDS = 0 WA_STATS_FIELDS(WA_STATS_COUNT) };
#undef WA_STATS_COUNT
extern const struct wa_field wa_stats_fields[NR_WA_STATS_FIELDS];

static inline uint64_t wa_field_get(const struct wa_stats *s, const struct wa_field *f)
{
	return *(const uint64_t *)((const char *)s + f->offset);
}

#endif
