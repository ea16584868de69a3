/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Levelled log lines on stderr for the long-running exporter:
 *   "iomapdirty: info: listening on 127.0.0.1:9583"
 * Under systemd (JOURNAL_STREAM set) each line starts with the kernel-style
 * "<N>" priority prefix, so journald files it at the right level.
 */
#ifndef IOMAPDIRTY_LOG_H
#define IOMAPDIRTY_LOG_H

enum log_level { LOG_LVL_ERROR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };

/* Lines above this level are dropped (default LOG_LVL_INFO). */
void log_set_level(enum log_level l);
int log_level_parse(const char *s);	/* -1 if unknown */
void log_msg(enum log_level l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
