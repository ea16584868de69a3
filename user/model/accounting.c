// SPDX-License-Identifier: GPL-2.0
/* Accounting levels: see accounting.h. */
#include <string.h>
#include "model/accounting.h"

const char *const accounting_level_names[NR_ACCOUNTING_LEVELS] = {
	[ACCOUNTING_FULL] = "full",
	[ACCOUNTING_ALWAYS_ON] = "always-on",
};

int accounting_level_parse(const char *s, const char **why)
{
	for (int i = 0; i < NR_ACCOUNTING_LEVELS; i++)
		if (!strcmp(s, accounting_level_names[i]))
			return i;
	*why = "the accounting levels are: full, always-on";
	return -1;
}

bool accounting_measures(enum accounting_level l, enum wa_need n, bool bitmap)
{
	if (l == ACCOUNTING_FULL || n == WA_NEED_ANY)
		return true;
	/* always-on: no page records; dirty blocks only from the kernel's bitmap */
	return n == WA_NEED_DIRTY && bitmap;
}
