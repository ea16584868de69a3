// SPDX-License-Identifier: GPL-2.0
/* Levelled log lines: see log.h. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"

static enum log_level max_level = LOG_LVL_INFO;

static const char *const level_names[] = {
	[LOG_LVL_ERROR] = "error",
	[LOG_LVL_WARN] = "warn",
	[LOG_LVL_INFO] = "info",
	[LOG_LVL_DEBUG] = "debug",
};

/* syslog priorities, for journald's "<N>" prefix */
static const int level_prio[] = {
	[LOG_LVL_ERROR] = 3, [LOG_LVL_WARN] = 4, [LOG_LVL_INFO] = 6, [LOG_LVL_DEBUG] = 7,
};

void log_set_level(enum log_level l)
{
	max_level = l;
}

int log_level_parse(const char *s)
{
	for (int i = 0; i <= LOG_LVL_DEBUG; i++)
		if (!strcmp(s, level_names[i]))
			return i;
	return -1;
}

void log_msg(enum log_level l, const char *fmt, ...)
{
	static int journal = -1;
	char line[1024];
	va_list ap;
	int n;

	if (l > max_level)
		return;
	if (journal < 0)
		journal = getenv("JOURNAL_STREAM") != NULL;
	n = journal ? snprintf(line, sizeof(line), "<%d>", level_prio[l]) : 0;
	n += snprintf(line + n, sizeof(line) - n, "iomapdirty: %s: ", level_names[l]);
	va_start(ap, fmt);
	if (n < (int)sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	/* one write per line: threads do not interleave within a line */
	fprintf(stderr, "%s\n", line);
}
