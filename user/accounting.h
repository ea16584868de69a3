/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Accounting levels: how much the BPF side records. Only "full" exists
 * (per-page records, per-folio application bytes: what hist, top, run and
 * verify measure). A cheaper always-on level is planned; it will add an
 * entry here, a way for the engine to load it, and say per quantity
 * whether it is measured (accounting_measures()), so that outputs leave
 * out what it does not count instead of showing 0.
 */
#ifndef IOMAPDIRTY_ACCOUNTING_H
#define IOMAPDIRTY_ACCOUNTING_H

#include <stdbool.h>

enum accounting_level {
	ACCOUNTING_FULL,
	NR_ACCOUNTING_LEVELS,
};

/* What a quantity needs beyond the plan's hooks. */
enum accounting_need {
	NEED_NOTHING,		/* every level counts it */
	NEED_PAGE_RECORDS,	/* per-page records: application bytes per folio */
};

extern const char *const accounting_level_names[NR_ACCOUNTING_LEVELS];

/* -1 if unknown; *why says why a known but unavailable name is refused */
int accounting_level_parse(const char *s, const char **why);
bool accounting_measures(enum accounting_level l, enum accounting_need n);

#endif
