// SPDX-License-Identifier: GPL-2.0
/* Accounting levels: see accounting.h. */
#include <string.h>
#include "accounting.h"

const char *const accounting_level_names[NR_ACCOUNTING_LEVELS] = {
	[ACCOUNTING_FULL] = "full",
};

int accounting_level_parse(const char *s, const char **why)
{
	for (int i = 0; i < NR_ACCOUNTING_LEVELS; i++)
		if (!strcmp(s, accounting_level_names[i]))
			return i;
	*why = !strcmp(s, "always-on") ?
		"the always-on level is not implemented yet; 'full' is the only level" :
		"the accounting levels are: full";
	return -1;
}

bool accounting_measures(enum accounting_level l, enum accounting_need n)
{
	/* full records everything; a lighter level answers per need here */
	return l == ACCOUNTING_FULL || n == NEED_NOTHING;
}
