/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Readings at an interval and what changed between the last two: the
 * loop of hist and top (intervals are differences of cumulative
 * snapshots, snapshot.h).
 */
#ifndef IOMAPDIRTY_SAMPLER_H
#define IOMAPDIRTY_SAMPLER_H

#include <stdbool.h>
#include "cmd/commands.h"
#include "live/engine.h"

struct sampler {
	struct engine *engine;
	struct sampling o;
	struct snapshot prev, cur;	/* the last two readings */
	unsigned long long n;		/* readings taken */
};

/*
 * Sleeps one interval; false, without sleeping, once o.count readings
 * were taken, and false when a signal asked to exit.
 */
bool sampler_wait(struct sampler *s);
/* Flushes contexts idle for idle_ns, reads: cur becomes prev. 0 or -errno. */
int sampler_read(struct sampler *s, uint64_t idle_ns);
/* d = cur - prev, or cur since attach. 0 or -errno; free d after. */
int sampler_delta(const struct sampler *s, bool since_attach, struct snapshot *d);
void sampler_free(struct sampler *s);

#endif
