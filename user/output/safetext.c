// SPDX-License-Identifier: GPL-2.0
/* Safe names for terminals and JSON: see safetext.h. */
#include <stdio.h>
#include <string.h>
#include "output/safetext.h"

int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const uint32_t min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
	uint32_t c;
	int len;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if ((size_t)len > n)
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min_cp[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool utf8_valid(const char *s)
{
	size_t n = strlen(s);
	uint32_t cp;

	while (n) {
		int l = utf8_decode((const unsigned char *)s, n, &cp);

		if (!l)
			return false;
		s += l;
		n -= l;
	}
	return true;
}

void utf8_trim_partial(char *s)
{
	size_t n = strlen(s), start = n;
	uint32_t cp;

	/* the last lead byte within 3 bytes of the end */
	while (start > 0 && n - start < 4 &&
	       ((unsigned char)s[start - 1] & 0xc0) == 0x80)
		start--;
	if (start == 0 || n - start >= 4)
		return;
	start--;
	if ((unsigned char)s[start] >= 0xc0 &&
	    !utf8_decode((const unsigned char *)s + start, n - start, &cp))
		s[start] = '\0';
}

bool codepoint_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
	       /* bidirectional overrides and isolates, line separators */
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200e || cp == 0x200f || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x061c || cp == 0xfeff;
}

/* Appends piece (plen bytes) if it fits whole; counts it either way. */
static void put(char *buf, size_t len, size_t *n, bool *full, const char *piece,
		size_t plen)
{
	if (!*full && *n + plen < len)
		memcpy(buf + *n, piece, plen);
	else
		*full = true;	/* nothing after a piece that did not fit */
	*n += plen;
}

size_t text_sanitize(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 0, kept = 0;
	bool full = false;
	char esc[20];
	uint32_t cp;

	while (left) {
		int l = utf8_decode(p, left, &cp), el = 0;

		if (l && cp == '\\') {
			put(buf, len, &n, &full, "\\\\", 2);
		} else if (l && !codepoint_is_control(cp)) {
			put(buf, len, &n, &full, (const char *)p, l);
		} else {
			if (!l)
				l = 1;	/* one byte that is not UTF-8 */
			for (int i = 0; i < l; i++)
				el += snprintf(esc + el, sizeof(esc) - el, "\\x%02x", p[i]);
			put(buf, len, &n, &full, esc, el);
		}
		if (!full)
			kept = n;
		p += l;
		left -= l;
	}
	if (len)
		buf[kept < len ? kept : len - 1] = '\0';
	return n;
}
