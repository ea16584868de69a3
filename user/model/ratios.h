/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The derived figures of a struct wa_stats, each computed here and only
 * here; text, JSON, top and the HTML report format them:
 *   block_rounding      = app_dirty_bytes / app_bytes
 *   folio_amplification = amplified blocks / dirty_blocks, where the
 *                         amplified blocks are submitted_blocks less
 *                         unseen_submitted_blocks (folios whose dirtying
 *                         was not seen have no dirty blocks to compare)
 * A ratio is kept as its two terms: a denominator of 0 has no value
 * ("n/a", JSON null), and rows sort exactly (ratio_cmp).
 */
#ifndef IOMAPDIRTY_RATIOS_H
#define IOMAPDIRTY_RATIOS_H

#include <stddef.h>
#include <stdint.h>
#include "iomapdirty.h"

struct ratio {
	uint64_t num, den;	/* den 0: no value */
};

/* Submitted blocks of folios whose dirtying was seen. */
uint64_t stats_amplified_blocks(const struct wa_stats *s);
/* Submitted blocks checked against the folio's dirty blocks (verify). */
uint64_t stats_checked_blocks(const struct wa_stats *s);
struct ratio stats_block_rounding(const struct wa_stats *s);
struct ratio stats_folio_amplification(const struct wa_stats *s);
/* "1.25x", or "n/a" for no value: how text and top show a ratio. */
void ratio_text(struct ratio r, char *buf, size_t len);
/* <0, 0, >0 as a < b; a ratio with no value sorts below every other. */
int ratio_cmp(struct ratio a, struct ratio b);

#endif
