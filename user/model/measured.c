// SPDX-License-Identifier: GPL-2.0
/* What a plan measures: see measured.h. */
#include "model/accounting.h"
#include "model/measured.h"

const struct measures measures_any = {
	.any = true, .bitmap = true, .whole_dirty = true, .preattach = true,
};

bool measures_other(const struct measures *m)
{
	return m->bitmap || m->whole_dirty;
}

/* Whether the plan can measure what a field's json column says. */
static bool measures_json(const struct measures *m, enum wa_json when)
{
	switch (when) {
	case WA_IF_OTHER:
		return measures_other(m);
	case WA_IF_WHOLE:
		return m->whole_dirty;
	case WA_IF_BITMAP:
		return m->bitmap;
	case WA_IF_PREATTACH:
		return m->preattach;
	default:
		return true;
	}
}

bool measures_field(const struct measures *m, const struct wa_field *f)
{
	if (f->json == WA_NEVER || !measures_json(m, f->json))
		return false;
	return m->any || accounting_measures(m->accounting, f->need, m->bitmap);
}

bool measures_offset(const struct measures *m, size_t offset)
{
	for (int i = 0; i < NR_WA_STATS_FIELDS; i++)
		if (wa_stats_fields[i].offset == offset)
			return measures_field(m, &wa_stats_fields[i]);
	return false;
}

/*
 * The dirty blocks per folio, and the amplification over them, are not
 * measured where dirty_blocks is not (always-on without a dirty bitmap:
 * every folio would sit in the 0 bucket, a claim of clean folios instead
 * of an unknown).
 */
bool measures_hist(const struct measures *m, enum hist_id h)
{
	if (h == HIST_DIRTY_BLOCKS || h == HIST_AMPLIFICATION)
		return MEASURES(m, dirty_blocks);
	return true;
}
