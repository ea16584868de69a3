/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit arithmetic on u64 words (block bitmaps are arrays of them), and
 * LOOP_CB, which gives a loop body both an inline call and a bpf_loop
 * callback.
 */
#ifndef IOMAPDIRTY_BITS_BPF_H
#define IOMAPDIRTY_BITS_BPF_H

#include "vmlinux.h"

static __always_inline __u64 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/* Index of the lowest set bit of x, x != 0 (no table, no branch). */
static __always_inline __u64 lowest_bit(__u64 x)
{
	return popcount64((x & -x) - 1);
}

/* 1 if x is not 0, else 0, without a branch: x or -x has the top bit. */
static __always_inline __u64 nonzero(__u64 x)
{
	return (x | -x) >> 63;
}

/*
 * A summary of words[0, n), n <= 64: bit w set if words[w] is not 0.
 * Loops over a bitmap's words then visit only the set bits of the summary
 * (one for a 2 MiB folio with one dirty block, not 32): one load per word
 * here against a bpf_loop callback per word, 10-30 ns each on this host.
 */
static __always_inline __u64 nonzero_words(const __u64 *words, __u64 n)
{
	__u64 m = 0;

	for (__u64 w = 0; w < n && w < 64; w++)
		m |= nonzero(words[w]) << w;
	return m;
}

/* Bits [0, n) set, n <= 64. */
static __always_inline __u64 low_bits(__u64 n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* Bits [first, last] set; 0 <= first <= last <= 63. */
static __always_inline __u64 bit_range(__u32 first, __u32 last)
{
	__u64 upto = last >= 63 ? ~0ULL : (1ULL << (last + 1)) - 1;

	return upto & ~((1ULL << (first & 63)) - 1);
}

/* Bits [0, n) of word w of a bitmap. */
static __always_inline __u64 first_bits_word(__u64 n, __u64 w)
{
	if (n <= w * 64)
		return 0;
	return n - w * 64 >= 64 ? ~0ULL : (1ULL << (n - w * 64)) - 1;
}

/*
 * bpf_loop callback NAME_cb around the inline body NAME: the one-iteration
 * case (a write within one page, a folio of one bitmap word) calls the body
 * without a BPF-to-BPF call, whose call and return cost 10-30 ns each on
 * hosts with return-thunk mitigations (this one: SRSO safe RET).
 */
#define LOOP_CB(name)						\
static long name##_cb(__u64 i, void *data)			\
{								\
	return name(i, data);					\
}

#endif /* IOMAPDIRTY_BITS_BPF_H */
