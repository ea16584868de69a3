/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which files get per-file series on /metrics (--top-files N): the N most
 * active in the last window, so that the series are bounded (N files,
 * five counters and a gauge each) and the newest active files are there.
 *
 * Order: submitted bytes in the window, then application bytes in the
 * window, then the newest entry (first_ns: a file's entry is made when it
 * is first written or written back), then (dev, ino). The window is what
 * each file gained since a baseline reading; the baseline is renewed by
 * the first render at least PROM_FILES_WINDOW_S after it was taken, so a
 * window spans 60 to 120 s of the scrapes. A file whose entry was made
 * again after an eviction (first_ns changed) counts from its new entry.
 * Bounded memory: the baseline holds at most FILES_MAX_ENTRIES files.
 */
#ifndef IOMAPDIRTY_PROM_FILES_H
#define IOMAPDIRTY_PROM_FILES_H

#include <stdint.h>
#include "model/snapshot.h"

#define PROM_FILES_WINDOW_S	60

/*
 * Fills idx with the indices (into s->files) of the top n files at
 * monotonic time now_ns; returns how many (at most n). Keeps the
 * baseline between calls (the caller serializes them).
 */
int prom_files_top(const struct snapshot *s, int n, uint64_t now_ns, int *idx);
/* Forgets the baseline (tests). */
void prom_files_reset(void);

#endif
