/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The facts of a plan the model's predicates need (model/measured.h),
 * read from the plan's hooks: kept here, beside the plan, so that the
 * model knows no hook or mechanism.
 */
#ifndef IOMAPDIRTY_PLAN_MEASURES_H
#define IOMAPDIRTY_PLAN_MEASURES_H

#include "live/plan.h"
#include "model/measured.h"

/* What plan p measures; NULL (no plan known): everything. */
static inline struct measures plan_measures(const struct plan *p)
{
	const struct hook_plan *whole;

	if (!p)
		return measures_any;
	whole = &p->hooks[HOOK_WHOLE_DIRTY];
	return (struct measures){
		.bitmap = p->bitmap != BITMAP_NONE,
		.whole_dirty = whole->chosen && whole->mech != MECH_DERIVED,
		/* without a dirty bitmap a folio dirtied before attach is not
		 * checked: nothing says which of its blocks are dirty */
		.preattach = p->hooks[HOOK_FOLIO_PTR].chosen && p->bitmap != BITMAP_NONE,
		.accounting = p->accounting,
	};
}

#endif
