// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: option values as the command line gives them: numbers,
 * seconds, MAJ:MIN, --mode and --sort names. Each accepted value must be
 * within its documented range.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "host/fsinfo.h"
#include "live/plan.h"
#include "output/top_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[256];
	unsigned long long v;
	struct fsinfo fi;
	double d;
	int mode;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!parse_u64(s, 1024, 1 << 26, &v) && (v < 1024 || v > 1 << 26))
		abort();
	if (!parse_u64(s, 0, ~0ull, &v) && s[0] == '-')
		abort();
	if (!parse_seconds(s, &d) && !(d >= 0.01 && d <= 86400))
		abort();
	/* MAJ:MIN: only the format is checked before mountinfo is read */
	if (fsinfo_from_dev(s, &fi, err, sizeof(err)) != -2 &&
	    (fi.dev >> 20 > 0xfff))
		abort();
	plan_mode_parse(s, &mode);
	top_col_parse(s);
	free(s);
	return 0;
}
