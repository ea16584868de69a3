// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the run-file reader (compare, report) on any text. Either a
 * clear refusal with the file named, or a run whose losses are all read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "runs/runfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[512];
	struct run_file rf;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (run_file_parse(text, size, "fuzz.json", &rf, err, sizeof(err))) {
		if (strncmp(err, "fuzz.json: ", 11) && strcmp(err, "out of memory"))
			abort();	/* every refusal names the file */
	} else {
		run_file_losses(&rf);
		run_file_free(&rf);
	}
	free(text);
	return 0;
}
