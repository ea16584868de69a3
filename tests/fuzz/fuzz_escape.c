// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the HTML escaper and the Prometheus label escaper on any
 * name. Both outputs are valid UTF-8 with no control (safetext's one
 * list); HTML has no raw markup character, a label no raw quote or
 * newline and no backslash that does not start an escape.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/escape.h"
#include "output/prom.h"
#include "output/safetext.h"

static void no_controls(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	while (n) {
		int l = utf8_decode(p, n, &cp);

		if (!l || codepoint_is_control(cp))
			abort();
		p += l;
		n -= l;
	}
}

static void html(const char *name)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return;
	html_escape(f, name);
	fclose(f);
	no_controls(out, len);
	if (strpbrk(out, "<>\"'"))
		abort();
	for (char *a = strchr(out, '&'); a; a = strchr(a + 1, '&'))
		if (strncmp(a, "&amp;", 5) && strncmp(a, "&lt;", 4) && strncmp(a, "&gt;", 4) &&
		    strncmp(a, "&quot;", 6) && strncmp(a, "&#39;", 5))
			abort();
	free(out);
}

static void label(const char *name)
{
	size_t n = prom_escape_label(name, NULL, 0);
	char *out = malloc(n + 1);

	if (!out)
		return;
	if (prom_escape_label(name, out, n + 1) != n || strlen(out) != n)
		abort();
	no_controls(out, n);
	for (size_t i = 0; i < n; i++) {
		if (out[i] == '"')
			abort();	/* a quote not escaped ends the value */
		if (out[i] == '\\') {
			if (!strchr("\\\"n", out[i + 1]))
				abort();
			i++;
		}
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1);

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	html(name);
	label(name);
	free(name);
	return 0;
}
