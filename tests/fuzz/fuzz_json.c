// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the JSON writer fed arbitrary names (as a file name, a path
 * with json_kv_path, and a key). The document must be valid UTF-8 and
 * hold no raw control byte; the terminal sanitizer likewise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/json.h"
#include "output/safetext.h"

static void no_controls(const char *s, size_t n, bool newline_ok)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	while (n) {
		int l = utf8_decode(p, n, &cp);

		if (!l)
			abort();	/* not UTF-8 */
		if (codepoint_is_control(cp) && !(newline_ok && cp == '\n'))
			abort();	/* a raw control */
		p += l;
		n -= l;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1), *doc = NULL, *shown;
	size_t len = 0, need;
	struct json j;
	FILE *out;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	out = open_memstream(&doc, &len);
	if (!out)
		goto done;
	json_init(&j, out);
	json_object_begin(&j);
	json_kv_string(&j, "name", name);
	json_kv_path(&j, "path", name);
	json_kv_u64(&j, name, 1);
	json_object_end(&j);
	fclose(out);
	no_controls(doc, len, true);
	if (len < 2 || doc[0] != '{' || doc[len - 1] != '\n')
		abort();
	need = text_sanitize(name, NULL, 0) + 1;
	shown = malloc(need);
	if (shown) {
		if (text_sanitize(name, shown, need) + 1 != need)
			abort();
		no_controls(shown, strlen(shown), false);
		free(shown);
	}
done:
	free(doc);
	free(name);
	return 0;
}
