// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: fio's --output-format=json reader (run --fio-json) on any text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runs/fio_results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct fio_summary fs;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (fio_summary_parse(text, size, "fio.json", &fs, err, sizeof(err)) && fs.present)
		abort();	/* a refused file is never shown */
	free(text);
	return 0;
}
