/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram bucket rules, defined once for the BPF side (which counts)
 * and the frontends (which print bounds in text and JSON).
 *
 * Count histograms (blocks, bytes) use log2 buckets:
 *   bucket 0 holds 0; bucket k >= 1 holds [2^(k-1), 2^k - 1];
 *   the last bucket is open-ended.
 * The amplification histogram compares submitted with dirty blocks
 * exactly, in integers (no floating point in BPF):
 *   bucket 0: ratio < 1; bucket 1: ratio == 1;
 *   bucket k >= 2: 2^(k-2) < ratio <= 2^(k-1); the last is open-ended.
 */
#ifndef IOMAPDIRTY_BUCKETS_H
#define IOMAPDIRTY_BUCKETS_H

#include "iomapdirty.h"

/*
 * 1 if x != 0, for x < 2^bits, without a branch: x + 2^bits - 1 carries
 * into bit 'bits' exactly when x >= 1. The mask changes nothing for such
 * an x; it tells the verifier, which cannot follow a shift by a variable
 * amount, that the result is 0 or 1.
 */
static inline __u64 nonzero_below(__u64 x, unsigned int bits)
{
	__u64 mask = (1ULL << bits) - 1;

	return ((x & mask) + mask) >> bits;
}

/*
 * Position of the highest set bit plus one (0 for 0), without clz (BPF has
 * none) and without a branch: the BPF verifier walks both sides of every
 * branch, and with six of them per call and four calls per finished folio
 * it walked 64 paths per call (flush_idle: 104,000 instructions, about
 * 170 ms of every start; bench/loadcost). Each step halves the width left:
 * s is 32, 16, ... if the upper half is not empty, else 0.
 */
static inline unsigned int bit_width_u64(__u64 v)
{
	__u64 s, n;

	s = nonzero_below(v >> 32, 32) << 5;
	v >>= s;
	n = s;
	s = nonzero_below(v >> 16, 16) << 4;
	v >>= s;
	n += s;
	s = nonzero_below(v >> 8, 8) << 3;
	v >>= s;
	n += s;
	s = nonzero_below(v >> 4, 4) << 2;
	v >>= s;
	n += s;
	s = nonzero_below(v >> 2, 2) << 1;
	v >>= s;
	n += s;
	s = (v >> 1) & 1;	/* v < 4 here: 1 if v >= 2 */
	v >>= s;
	return n + s + (v & 1);
}

static inline unsigned int log2_bucket(__u64 v)
{
	unsigned int k = bit_width_u64(v);

	return k < HIST_BUCKETS ? k : HIST_BUCKETS - 1;
}

/* Inclusive lower bound of a log2 bucket. */
static inline __u64 log2_bucket_min(unsigned int k)
{
	return k == 0 ? 0 : (__u64)1 << (k - 1);
}

/* Inclusive upper bound; the last bucket has none (returns ~0). */
static inline __u64 log2_bucket_max(unsigned int k)
{
	if (k >= HIST_BUCKETS - 1)
		return ~(__u64)0;
	return k == 0 ? 0 : ((__u64)1 << k) - 1;
}

static inline unsigned int amp_bucket(__u64 submitted, __u64 dirty)
{
	__u64 q;
	unsigned int k;

	if (submitted < dirty)
		return 0;
	if (submitted == dirty)
		return 1;
	/*
	 * ratio <= 2^j  <=>  ceil(submitted / dirty) <= 2^j, so the bucket
	 * is 1 + ceil(log2(q)) with q = ceil(submitted / dirty) >= 2, and
	 * ceil(log2(q)) is the bit width of q - 1. No loop: the verifier
	 * would walk every iteration.
	 */
	q = submitted / dirty + (submitted % dirty != 0);
	k = 1 + bit_width_u64(q - 1);
	return k < HIST_BUCKETS ? k : HIST_BUCKETS - 1;
}

/*
 * Bounds of an amplification bucket as ratios: bucket 0 is [0, 1),
 * bucket 1 is [1, 1], bucket k >= 2 is (2^(k-2), 2^(k-1)].
 * *max_open is set for the last bucket, which has no upper bound.
 */
static inline void amp_bucket_bounds(unsigned int k, __u64 *min, __u64 *max,
				     int *min_exclusive, int *max_exclusive)
{
	*min_exclusive = k >= 2;
	*max_exclusive = k == 0;
	if (k == 0) {
		*min = 0;
		*max = 1;
	} else if (k == 1) {
		*min = 1;
		*max = 1;
	} else {
		*min = (__u64)1 << (k - 2);
		*max = k >= HIST_BUCKETS - 1 ? ~(__u64)0 : (__u64)1 << (k - 1);
	}
}

#endif /* IOMAPDIRTY_BUCKETS_H */
