/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accounting levels (enum accounting_level, include/iomapdirty.h): how
 * much the BPF side records. full: per-page records, per-folio
 * application bytes (what hist, top, run and verify measure by default);
 * always-on: no per-page records (the exporter's default): application
 * bytes and write calls per file, everything else from the kernel's dirty
 * bitmap at writeback. Each statistic says what it needs (the level column
 * of WA_STATS_FIELDS, include/fields.h); outputs leave out what a level
 * does not count instead of showing 0.
 */
#ifndef IOMAPDIRTY_ACCOUNTING_H
#define IOMAPDIRTY_ACCOUNTING_H

#include <stdbool.h>
#include "iomapdirty.h"

extern const char *const accounting_level_names[NR_ACCOUNTING_LEVELS];

/* -1 if unknown; *why then says which names there are */
int accounting_level_parse(const char *s, const char **why);
/* Whether level l counts a field that needs n (enum wa_need), given
 * whether the plan reads the kernel's dirty bitmap. */
bool accounting_measures(enum accounting_level l, enum wa_need n, bool bitmap);

#endif
