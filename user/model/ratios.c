// SPDX-License-Identifier: GPL-2.0
/* The derived figures of a struct wa_stats: see ratios.h. */
#include <stdio.h>
#include "model/ratios.h"

uint64_t stats_amplified_blocks(const struct wa_stats *s)
{
	return s->submitted_blocks - s->unseen_submitted_blocks;
}

uint64_t stats_checked_blocks(const struct wa_stats *s)
{
	return s->submitted_blocks - s->unchecked_blocks;
}

struct ratio stats_block_rounding(const struct wa_stats *s)
{
	return (struct ratio){ s->app_dirty_bytes, s->app_bytes };
}

struct ratio stats_folio_amplification(const struct wa_stats *s)
{
	return (struct ratio){ stats_amplified_blocks(s), s->dirty_blocks };
}

void ratio_text(struct ratio r, char *buf, size_t len)
{
	if (!r.den)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.2fx", (double)r.num / (double)r.den);
}

/* Cross-multiplied in 128 bits: no rounding, no overflow. */
int ratio_cmp(struct ratio a, struct ratio b)
{
	unsigned __int128 l, r;

	if (!a.den || !b.den)
		return (a.den != 0) - (b.den != 0);
	l = (unsigned __int128)a.num * b.den;
	r = (unsigned __int128)b.num * a.den;
	return l < r ? -1 : l > r;
}
