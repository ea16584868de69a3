/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names chosen by users (file names, labels, host names, anything read
 * from a run file) on their way out: to a terminal, into markdown, into
 * HTML. None of them can carry a control sequence, markup or invalid
 * UTF-8 through.
 */
#ifndef IOMAPDIRTY_ESCAPE_H
#define IOMAPDIRTY_ESCAPE_H

#include <stddef.h>
#include <stdio.h>
#include "output/safetext.h"

/* text_sanitize(): one sanitizer for every terminal, in safetext.h */

/* s sanitized as above, then '\' before each of \ | ` * _ [ ] < > #. */
void markdown_escape(FILE *out, const char *s);

/*
 * s as HTML text or attribute value: & < > " ' as entities, controls
 * (codepoint_is_control(): C0, C1, bidirectional overrides...) and
 * invalid UTF-8 as U+FFFD.
 */
void html_escape(FILE *out, const char *s);

#endif
