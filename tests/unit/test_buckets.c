// SPDX-License-Identifier: GPL-2.0
/* Bucket rules (include/buckets.h) against hand values and a reference. */
#include <math.h>
#include "buckets.h"
#include "unit.h"

/* Reference for amplification buckets, in floating point, from the rule. */
static unsigned int amp_reference(double sub, double dirty)
{
	double r = sub / dirty;

	if (r < 1)
		return 0;
	if (r == 1)
		return 1;
	for (unsigned int k = 2; k < HIST_BUCKETS - 1; k++)
		if (r <= ldexp(1.0, k - 1))
			return k;
	return HIST_BUCKETS - 1;
}

int main(void)
{
	static const struct { unsigned long long v; unsigned int k; } log2_cases[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 2 }, { 4, 3 }, { 7, 3 }, { 8, 4 },
		{ 4095, 12 }, { 4096, 13 }, { 8191, 13 }, { 1ull << 21, 22 },
		{ 1ull << 37, 38 }, { 1ull << 38, 39 }, { ~0ull, 39 },
	};
	static const struct { unsigned long long s, d; unsigned int k; } amp_cases[] = {
		{ 0, 1, 0 }, { 3, 4, 0 }, { 1, 1, 1 }, { 56, 56, 1 }, { 2, 1, 2 },
		{ 3, 1, 3 }, { 4, 1, 3 }, { 5, 1, 4 }, { 8, 1, 4 }, { 9, 1, 5 },
		{ 5, 2, 3 }, { 4, 2, 2 }, { 16, 1, 5 }, { 4096, 1, 13 },
		{ ~0ull, 1, 39 },
	};
	int bad = 0;

	/*
	 * bit_width_u64 (branch-free for the verifier) against the compiler's
	 * count of leading zeros: every power of two, its neighbours, and a
	 * spread of values between them.
	 */
	CHECK_U64(bit_width_u64(0), 0, "bit_width_u64(0)");
	for (unsigned int b = 0; b < 64; b++) {
		unsigned long long p = 1ull << b;
		unsigned long long vs[] = { p, p - 1, p + 1, p | (p >> 1), p | (p - 1) };

		for (unsigned int j = 0; j < sizeof(vs) / sizeof(vs[0]); j++)
			if (vs[j] && bit_width_u64(vs[j]) != 64 - (unsigned)__builtin_clzll(vs[j]))
				bad++;
	}
	for (unsigned long long v = 1, x = 88172645463325252ull; v < 100000; v++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		if (bit_width_u64(x >> (v % 64)) != ((x >> (v % 64)) ?
		    64 - (unsigned)__builtin_clzll(x >> (v % 64)) : 0))
			bad++;
	}
	CHECK_U64(bad, 0, "bit_width_u64 agrees with 64 - clz");
	bad = 0;

	for (unsigned i = 0; i < sizeof(log2_cases) / sizeof(log2_cases[0]); i++)
		CHECK_U64(log2_bucket(log2_cases[i].v), log2_cases[i].k,
			  "log2_bucket(%llu)", log2_cases[i].v);
	for (unsigned i = 0; i < sizeof(amp_cases) / sizeof(amp_cases[0]); i++)
		CHECK_U64(amp_bucket(amp_cases[i].s, amp_cases[i].d), amp_cases[i].k,
			  "amp_bucket(%llu, %llu)", amp_cases[i].s, amp_cases[i].d);

	/* every value lies within the printed bounds of its bucket */
	for (unsigned long long v = 0; v < 70000; v += 1 + v / 50) {
		unsigned int k = log2_bucket(v);

		if (v < log2_bucket_min(k) || v > log2_bucket_max(k))
			bad++;
	}
	CHECK_U64(bad, 0, "log2 values within their bucket bounds");
	CHECK_U64(log2_bucket_max(HIST_BUCKETS - 1), ~0ull, "last log2 bucket is open");

	/* buckets are contiguous: max(k) + 1 == min(k + 1) */
	bad = 0;
	for (unsigned int k = 0; k + 1 < HIST_BUCKETS; k++)
		if (log2_bucket_max(k) + 1 != log2_bucket_min(k + 1))
			bad++;
	CHECK_U64(bad, 0, "log2 buckets are contiguous");

	bad = 0;
	for (unsigned long long d = 1; d <= 64; d++)
		for (unsigned long long s = 0; s <= 4096; s++)
			if (amp_bucket(s, d) != amp_reference(s, d))
				bad++;
	CHECK_U64(bad, 0, "amp_bucket agrees with the floating-point rule");

	{
		__u64 min, max;
		int minx, maxx;

		amp_bucket_bounds(0, &min, &max, &minx, &maxx);
		CHECK(min == 0 && max == 1 && !minx && maxx, "amp bucket 0 is [0, 1)");
		amp_bucket_bounds(1, &min, &max, &minx, &maxx);
		CHECK(min == 1 && max == 1 && !minx && !maxx, "amp bucket 1 is [1, 1]");
		amp_bucket_bounds(4, &min, &max, &minx, &maxx);
		CHECK(min == 4 && max == 8 && minx && !maxx, "amp bucket 4 is (4, 8]");
	}
	UNIT_EXIT();
}
