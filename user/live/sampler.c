// SPDX-License-Identifier: GPL-2.0
/* Interval readings: see sampler.h. */
#include "live/sampler.h"

bool sampler_wait(struct sampler *s)
{
	if (session_exiting || (s->o.count && s->n >= s->o.count))
		return false;
	session_sleep(s->o.interval);
	return !session_exiting;
}

int sampler_read(struct sampler *s, uint64_t idle_ns)
{
	struct snapshot next;
	int ret;

	engine_flush(s->engine, idle_ns);
	ret = engine_snapshot(s->engine, &next);
	if (ret)
		return ret;
	snapshot_free(&s->prev);
	s->prev = s->cur;
	s->cur = next;
	s->n++;
	return 0;
}

int sampler_delta(const struct sampler *s, bool since_attach, struct snapshot *d)
{
	return snapshot_delta(&s->cur, since_attach ? NULL : &s->prev, d);
}

void sampler_free(struct sampler *s)
{
	snapshot_free(&s->prev);
	snapshot_free(&s->cur);
}
