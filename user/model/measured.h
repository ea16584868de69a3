/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a reading can hold: whether a statistic or a histogram is measured
 * at all under a plan and at its accounting level. What is not measured
 * is written as null in JSON, "n/a" in text and top, and is left out of
 * the exposition, never shown as 0.
 *
 * The plan's facts come as a small plain struct (live/plan_measures.h
 * makes it from a struct plan), so that the model needs no hook or
 * mechanism types: the model reaches only lib/ and model/.
 */
#ifndef IOMAPDIRTY_MEASURED_H
#define IOMAPDIRTY_MEASURED_H

#include <stdbool.h>
#include <stddef.h>
#include "iomapdirty.h"
#include "model/snapshot.h"

struct measures {
	/* no plan known (a run file read back): all measured, every level */
	bool any;
	/* the kernel's per-block dirty bitmap is read at writeback */
	bool bitmap;
	/* a whole-folio dirtying hook of its own (not derived) */
	bool whole_dirty;
	/* the clean -> dirty hook: folios dirtied before attach are told apart */
	bool preattach;
	enum accounting_level accounting;
};

/* The facts of "no plan known": everything measured. */
extern const struct measures measures_any;

/* Whether statistic f is measured (its json and level columns, fields.h). */
bool measures_field(const struct measures *m, const struct wa_field *f);
/* The same for the field at 'offset' of struct wa_stats. */
bool measures_offset(const struct measures *m, size_t offset);
#define MEASURES(m, field)	measures_offset(m, offsetof(struct wa_stats, field))
/* Whether histogram h is measured. */
bool measures_hist(const struct measures *m, enum hist_id h);
/* Whether dirtying not done by writes is seen (the bitmap or such a hook). */
bool measures_other(const struct measures *m);

#endif
