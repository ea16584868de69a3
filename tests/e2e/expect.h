/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ground-truth arithmetic for the e2e workloads: how many distinct units
 * (filesystem blocks, pages) a set of written byte ranges touches.
 *
 * Kept apart from the I/O code so it can be read, and self-tested, on its
 * own: the whole expected-figure model is "map every range to the inclusive
 * interval of unit numbers it touches, merge the intervals, add up their
 * lengths".
 */
#ifndef IOMAPDIRTY_E2E_EXPECT_H
#define IOMAPDIRTY_E2E_EXPECT_H

#include <stdint.h>
#include <stddef.h>

struct byte_range {
	uint64_t off;
	uint64_t len;
};

/*
 * Number of distinct units of @unit bytes touched by the union of @ranges.
 * Zero-length ranges touch nothing.  Returns UINT64_MAX on allocation failure.
 */
uint64_t units_touched(const struct byte_range *ranges, size_t n,
		       uint64_t unit);

/*
 * Number of distinct members of @groups (sorted, non-overlapping byte
 * intervals, e.g. the folios of a file) that the union of @ranges
 * touches, and the sum of their lengths in *bytes.
 */
uint64_t groups_touched(const struct byte_range *ranges, size_t n,
			const struct byte_range *groups, size_t ngroups,
			uint64_t *bytes, uint64_t *max_len);

/* Runs the hand-computed cases; prints one line per case; 0 if all pass. */
int expect_selftest(void);

#endif
