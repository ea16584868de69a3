// SPDX-License-Identifier: GPL-2.0
/* Escaping of user-chosen names for terminals, markdown and HTML. */
#include <string.h>
#include "output/escape.h"

void markdown_escape(FILE *out, const char *s)
{
	char buf[1024];

	text_sanitize(s, buf, sizeof(buf));
	for (const char *p = buf; *p; p++) {
		if (strchr("\\|`*_[]<>#", *p))
			fputc('\\', out);
		fputc(*p, out);
	}
}

void html_escape(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	while (left) {
		uint32_t cp;
		size_t k = utf8_decode(p, left, &cp);

		/* safetext.c's decoder and list of controls, as every output */
		if (!k || codepoint_is_control(cp)) {
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			k = k ? k : 1;
			p += k;
			left -= k;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fwrite(p, 1, k, out);
		}
		p += k;
		left -= k;
	}
}
