/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands and the option parsing they share. */
#ifndef IOMAPDIRTY_COMMANDS_H
#define IOMAPDIRTY_COMMANDS_H

#include <argp.h>
#include "session.h"

int cmd_probes(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_verify(int argc, char **argv);

/* argp child for --mount, --dev, --pid, --comm, --mode, --max-pages. */
extern const struct argp filter_argp;
extern const struct argp_child filter_children[];
/* Where filter_argp stores what it parses; set before argp_parse. */
extern struct session_opts *filter_opts_target;

/* Strict number parsing: the whole string, within [min, max]. */
int parse_u64(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
int parse_seconds(const char *s, double *out);

#endif
