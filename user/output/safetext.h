/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names that any user chose (file names, mount points) on their way to
 * root's terminal or a JSON document. One place decides what is safe:
 * text output keeps printable UTF-8 and shows everything else (control
 * bytes, C1 controls, bidirectional overrides, bytes that are not UTF-8)
 * as \xHH of the raw bytes, and a backslash as \\, so the text is
 * unambiguous and cannot move the cursor or change the terminal.
 */
#ifndef IOMAPDIRTY_SAFETEXT_H
#define IOMAPDIRTY_SAFETEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Length (1 to 4) of the well-formed UTF-8 sequence at s (at most n
 * bytes), its code point in *cp; 0 when the bytes are not UTF-8 (stray
 * continuation, overlong form, surrogate, beyond U+10FFFF, cut short).
 */
int utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);
bool utf8_valid(const char *s);
/* Drops an incomplete sequence at the end of s (a name cut short). */
void utf8_trim_partial(char *s);
/* A code point a terminal acts on rather than prints. */
bool codepoint_is_control(uint32_t cp);
/*
 * s made safe for a terminal, into buf (always terminated, cut at a whole
 * character); returns the length the whole result would have.
 */
size_t text_sanitize(const char *s, char *buf, size_t len);

#endif
