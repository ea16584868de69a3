// SPDX-License-Identifier: GPL-2.0
/* Histogram names, units, HELP texts and bucket bounds: see histograms.h. */
#include <stdio.h>
#include "buckets.h"
#include "fields.h"
#include "model/histograms.h"

#define HIST_NAME(id, name, unit, help)	[id] = name,
#define HIST_UNIT(id, name, unit, help)	[id] = unit,
#define HIST_HELP(id, name, unit, help)	[id] = help,
const char *const hist_names[NR_HISTS] = { HISTOGRAMS(HIST_NAME) };
const char *const hist_units[NR_HISTS] = { HISTOGRAMS(HIST_UNIT) };
const char *const hist_help[NR_HISTS] = { HISTOGRAMS(HIST_HELP) };

void hist_bucket_bounds(enum hist_id h, unsigned int k, struct bucket_bounds *b)
{
	__u64 min, max;
	int minx = 0, maxx = 0;

	if (h == HIST_AMPLIFICATION) {
		amp_bucket_bounds(k, &min, &max, &minx, &maxx);
	} else {
		min = log2_bucket_min(k);
		max = log2_bucket_max(k);
	}
	b->min = min;
	b->max = max;
	b->min_exclusive = minx;
	b->max_exclusive = maxx;
	b->open_ended = k == HIST_BUCKETS - 1;
}

void hist_bucket_label(enum hist_id h, unsigned int k, char *buf, size_t len)
{
	struct bucket_bounds b;
	unsigned long long min, max;

	hist_bucket_bounds(h, k, &b);
	min = b.min;
	max = b.max;
	if (h != HIST_AMPLIFICATION) {
		if (b.open_ended)
			snprintf(buf, len, "%llu -> inf", min);
		else
			snprintf(buf, len, "%llu -> %llu", min, max);
		return;
	}
	if (b.open_ended)
		snprintf(buf, len, "(%llu, inf)", min);
	else
		snprintf(buf, len, "%c%llu, %llu%c", b.min_exclusive ? '(' : '[',
			 min, max, b.max_exclusive ? ')' : ']');
}
