// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: recorded facts files (`iomapdirty probes --facts FILE`). */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "live/facts.h"
#include "live/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kfacts f = {};
	struct plan p;
	char err[256];
	FILE *in = fmemopen((void *)data, size, "r");

	if (!size || !in)
		return in ? fclose(in), 0 : 0;
	if (facts_parse(&f, in, err, sizeof(err)) == 0)
		plan_build(&f, MODE_AUTO, &p);	/* what follows a parse */
	fclose(in);
	facts_release(&f);
	return 0;
}
