// SPDX-License-Identifier: GPL-2.0
/* Escaping of user-chosen names for terminals, markdown and HTML. */
#include <string.h>
#include "escape.h"

size_t utf8_seq(const unsigned char *s, unsigned int *cp)
{
	unsigned int c = s[0], n, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the terminating NUL */
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* A code point a terminal or a page could act on. */
static int is_control(unsigned int cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}


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

	while (*p) {
		unsigned int cp;
		size_t k = utf8_seq(p, &cp);

		if (!k || (is_control(cp) && cp != '\t' && cp != '\n')) {
			fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			p += k ? k : 1;
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
	}
}
