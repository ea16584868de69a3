// SPDX-License-Identifier: GPL-2.0
/* Ground-truth arithmetic for the e2e workloads; see expect.h. */
#include <stdio.h>
#include <stdlib.h>
#include "expect.h"

struct unit_span {
	uint64_t first;	/* first unit touched */
	uint64_t last;	/* last unit touched, inclusive */
};

static int cmp_span(const void *a, const void *b)
{
	const struct unit_span *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return 0;
}

uint64_t units_touched(const struct byte_range *ranges, size_t n,
		       uint64_t unit)
{
	struct unit_span *s;
	uint64_t total = 0, cur_first = 0, cur_last = 0;
	size_t i, m = 0;
	int open = 0;

	s = calloc(n ? n : 1, sizeof(*s));
	if (!s)
		return UINT64_MAX;
	for (i = 0; i < n; i++) {
		if (!ranges[i].len)
			continue;
		s[m].first = ranges[i].off / unit;
		s[m].last = (ranges[i].off + ranges[i].len - 1) / unit;
		m++;
	}
	qsort(s, m, sizeof(*s), cmp_span);
	/* Sweep: extend the current interval while the next one overlaps it. */
	for (i = 0; i < m; i++) {
		if (open && s[i].first <= cur_last) {
			if (s[i].last > cur_last)
				cur_last = s[i].last;
			continue;
		}
		if (open)
			total += cur_last - cur_first + 1;
		cur_first = s[i].first;
		cur_last = s[i].last;
		open = 1;
	}
	if (open)
		total += cur_last - cur_first + 1;
	free(s);
	return total;
}

static int overlaps(const struct byte_range *a, const struct byte_range *b)
{
	return a->len && b->len && a->off < b->off + b->len &&
	       b->off < a->off + a->len;
}

uint64_t groups_touched(const struct byte_range *ranges, size_t n,
			const struct byte_range *groups, size_t ngroups,
			uint64_t *bytes, uint64_t *max_len)
{
	uint64_t count = 0, sum = 0, max = 0;
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		for (i = 0; i < n; i++) {
			if (overlaps(&groups[g], &ranges[i]))
				break;
		}
		if (i == n)
			continue;
		count++;
		sum += groups[g].len;
		if (groups[g].len > max)
			max = groups[g].len;
	}
	if (bytes)
		*bytes = sum;
	if (max_len)
		*max_len = max;
	return count;
}

/* ---- self-test ---------------------------------------------------------- */

static int failures, cases;

static void check(const char *name, uint64_t got, uint64_t want)
{
	cases++;
	if (got == want) {
		fprintf(stderr, "PASS %s = %llu\n", name, (unsigned long long)got);
		return;
	}
	fprintf(stderr, "FAIL %s: expected %llu got %llu\n", name,
		(unsigned long long)want, (unsigned long long)got);
	failures++;
}

#define NR(a) (sizeof(a) / sizeof((a)[0]))

int expect_selftest(void)
{
	struct byte_range r51[51];
	size_t i;

	/*
	 * 51 writes of 100 bytes at i * 20000 (i = 0..50), 1 KiB blocks,
	 * 4 KiB pages (seen on 6.18, shared/notes/kernels.md: 56 blocks).
	 *
	 * Writes are 20000 bytes apart, more than a block or a page, so no
	 * two writes share a block or a page: 51 units each, plus one for
	 * every write that crosses a unit boundary.
	 *
	 * Blocks: write i starts at r = 20000 i mod 1024 and crosses into the
	 * next block iff r + 99 >= 1024, i.e. r >= 925.  20000 mod 1024 = 544
	 * = 32 * 17, so r = 32 * (17 i mod 32), and r >= 925 iff
	 * 17 i mod 32 is 29, 30 or 31 (r = 928, 960, 992).  17 is its own
	 * inverse mod 32 (17 * 17 = 289 = 9 * 32 + 1), so i = 17 k mod 32 for
	 * k = 29, 30, 31: i = 13, 30, 15 (mod 32); in 0..50 that is
	 * {13, 15, 30, 45, 47}: 5 crossings, 51 + 5 = 56 blocks.
	 *
	 * Pages: 20000 mod 4096 = 3616 = 32 * 113, r = 32 * (113 i mod 128),
	 * crossing iff r >= 3997 iff 113 i mod 128 is 125, 126 or 127.
	 * 113^-1 mod 128 = 17 (113 * 17 = 1921 = 15 * 128 + 1), so
	 * i = 17 k mod 128 = 77, 94, 111: none in 0..50.  51 pages.
	 */
	for (i = 0; i < NR(r51); i++) {
		r51[i].off = i * 20000;
		r51[i].len = 100;
	}
	check("51x100@i*20000 blocks(1K)", units_touched(r51, 51, 1024), 56);
	check("51x100@i*20000 pages(4K)", units_touched(r51, 51, 4096), 51);
	/* 4 KiB blocks: same as the pages. */
	check("51x100@i*20000 blocks(4K)", units_touched(r51, 51, 4096), 51);

	{	/* Overlapping writes inside one block: one block. */
		struct byte_range r[] = { { 0, 100 }, { 50, 150 } };

		check("overlap in one block", units_touched(r, NR(r), 1024), 1);
	}
	{	/* Exactly one block; one byte either side of a boundary. */
		struct byte_range a[] = { { 1024, 1024 } };
		struct byte_range b[] = { { 1023, 2 } };

		check("exact block", units_touched(a, 1, 1024), 1);
		check("straddle boundary", units_touched(b, 1, 1024), 2);
	}
	{	/* The same byte ten times: dirtied once. */
		struct byte_range r[10];

		for (i = 0; i < NR(r); i++)
			r[i] = (struct byte_range){ 4095, 1 };
		check("same byte x10", units_touched(r, NR(r), 1024), 1);
	}
	{	/* span: 200 bytes at 4096 - 100 -> blocks 3,4 (1K), 0,1 (4K). */
		struct byte_range r[] = { { 3996, 200 } };

		check("span blocks(1K)", units_touched(r, 1, 1024), 2);
		check("span blocks(4K)", units_touched(r, 1, 4096), 2);
		check("span pages", units_touched(r, 1, 4096), 2);
	}
	{	/* Gaps, and a range filling a gap (0..3071 = 3 blocks). */
		struct byte_range a[] = { { 0, 1024 }, { 2048, 1024 } };
		struct byte_range b[] = { { 2048, 1024 }, { 0, 1024 },
					  { 1024, 1024 } };

		check("gap", units_touched(a, NR(a), 1024), 2);
		check("gap filled (unsorted)", units_touched(b, NR(b), 1024), 3);
	}
	{	/* Nested interval must not end the merged one early. */
		struct byte_range r[] = { { 0, 10240 }, { 1024, 10 },
					  { 5000, 10 } };

		check("nested", units_touched(r, NR(r), 1024), 10);
	}
	{	/* Zero-length writes touch nothing. */
		struct byte_range r[] = { { 4096, 0 } };

		check("zero length", units_touched(r, 1, 1024), 0);
		check("no ranges", units_touched(r, 0, 1024), 0);
	}
	{	/* EOF: 10 bytes at 4990 in a 5000-byte file: block 4 (1K). */
		struct byte_range r[] = { { 4990, 10 } };

		check("eof blocks(1K)", units_touched(r, 1, 1024), 1);
	}
	{	/* Folios 0-64K, 64K-1M, 1M-1M+4K; writes hit the 1st and 3rd. */
		struct byte_range g[] = { { 0, 65536 }, { 65536, 983040 },
					  { 1048576, 4096 } };
		struct byte_range r[] = { { 65535, 1 }, { 1048576 + 10, 1 } };
		uint64_t bytes, max;

		check("folios touched",
		      groups_touched(r, NR(r), g, NR(g), &bytes, &max), 2);
		check("folio bytes touched", bytes, 65536 + 4096);
		check("largest folio touched", max, 65536);
	}
	printf("{\"selftest\":\"%s\",\"cases\":%d,\"failed\":%d}\n",
	       failures ? "fail" : "pass", cases, failures);
	return failures ? 1 : 0;
}
