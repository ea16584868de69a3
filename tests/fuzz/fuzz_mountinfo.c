// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: one /proc/self/mountinfo line, escapes and all. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "host/fsinfo.h"
#include "output/safetext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), shown[4 * 4096 + 1];
	struct mountinfo_line m;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (mountinfo_parse(line, &m) == 0) {
		if (strlen(m.mount) >= sizeof(m.mount) || strlen(m.fstype) >= sizeof(m.fstype))
			abort();
		text_sanitize(m.mount, shown, sizeof(shown));
	}
	free(line);
	return 0;
}
