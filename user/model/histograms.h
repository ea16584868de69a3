/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each histogram is: its name, unit, HELP text and the statistic
 * its values sum to (one row of HISTOGRAMS in include/fields.h), and the
 * bounds of its buckets (the rules of include/buckets.h). Text, JSON, the exposition format and the
 * HTML report all take them from here.
 */
#ifndef IOMAPDIRTY_HISTOGRAMS_H
#define IOMAPDIRTY_HISTOGRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "iomapdirty.h"

extern const char *const hist_names[NR_HISTS];
extern const char *const hist_units[NR_HISTS];
extern const char *const hist_help[NR_HISTS];

struct bucket_bounds {
	uint64_t min, max;	/* max is meaningless when open_ended */
	bool min_exclusive;	/* amplification only: (min, ... */
	bool max_exclusive;	/* amplification only: ..., max) */
	bool open_ended;	/* the last bucket: no upper bound */
};

/* The bounds of bucket k of histogram h. */
void hist_bucket_bounds(enum hist_id h, unsigned int k, struct bucket_bounds *b);
/*
 * The sum of histogram h's values, from totals t over the same folios
 * (its sum column in fields.h): false for a histogram without one.
 */
bool hist_sum(enum hist_id h, const struct wa_stats *t, uint64_t *sum);
/* "4 -> 7", "(1, 2]": bucket k of histogram h. */
void hist_bucket_label(enum hist_id h, unsigned int k, char *buf, size_t len);

#endif
