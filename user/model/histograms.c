// SPDX-License-Identifier: GPL-2.0
/* Histogram names, units, HELP texts and bucket bounds: see histograms.h. */
#include <stdio.h>
#include "buckets.h"
#include "fields.h"
#include "model/histograms.h"

#define HIST_NAME(id, name, unit, sum, help)	[id] = name,
#define HIST_UNIT(id, name, unit, sum, help)	[id] = unit,
#define HIST_HELP(id, name, unit, sum, help)	[id] = help,
const char *const hist_names[NR_HISTS] = { HISTOGRAMS(HIST_NAME) };
const char *const hist_units[NR_HISTS] = { HISTOGRAMS(HIST_UNIT) };
const char *const hist_help[NR_HISTS] = { HISTOGRAMS(HIST_HELP) };

/* The sum column: 1 + the field's offset in struct wa_stats, 0 for none. */
#define SUM_OF(field)	(offsetof(struct wa_stats, field) + 1)
#define NO_SUM		0
#define HIST_SUM(id, name, unit, sum, help)	[id] = sum,
static const size_t hist_sum_at[NR_HISTS] = { HISTOGRAMS(HIST_SUM) };

bool hist_sum(enum hist_id h, const struct wa_stats *t, uint64_t *sum)
{
	if (!hist_sum_at[h])
		return false;
	*sum = *(const uint64_t *)((const char *)t + hist_sum_at[h] - 1);
	return true;
}

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
