/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one clock of the tool: CLOCK_MONOTONIC (never steps; intervals,
 * deadlines and the seconds since attach). Wall-clock times (run files'
 * start and end) are read where they are written.
 */
#ifndef IOMAPDIRTY_CLOCK_H
#define IOMAPDIRTY_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static inline double mono_seconds(void)
{
	return mono_ns() / 1e9;
}

#endif
