/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands and the option parsing they share. main.c holds the table
 * of commands and does what they all do: parse the options into the
 * command's arguments, start a session (session.h) for the observing
 * ones, run the command, stop the session. A command's run() returns an
 * exit code (exitcodes.h).
 */
#ifndef IOMAPDIRTY_COMMANDS_H
#define IOMAPDIRTY_COMMANDS_H

#include <argp.h>
#include "live/session.h"

struct sampling {
	double interval;		/* seconds between reports */
	unsigned long long count;	/* reports, 0: until signalled */
};

struct command {
	const char *name;
	const char *help;		/* one line for `iomapdirty --help` */
	const char *doc;		/* `iomapdirty NAME --help` */
	const char *args_doc;		/* positional arguments, NULL: none */
	/* the command's own options; state->input is args */
	const struct argp *argp;
	unsigned int argp_flags;
	void *args;			/* the command's arguments, defaults set */
	/*
	 * Inside args: the session's options, parsed by filter_argp (NULL:
	 * no session, as for probes), and -i/-c, parsed by sampling_argp
	 * (NULL: not taken).
	 */
	struct session_opts *session;
	struct sampling *sampling;
	/*
	 * NULL, or what must hold before the session attaches anything, with
	 * the parsed args (the exporter's listening socket): an exit code.
	 */
	int (*prepare)(void *args);
	int (*run)(struct session *s, void *args);
	/* 0, or the status every failure exits with (verify: 2) */
	int error_status;
	/*
	 * false: the session drops every capability but CAPS_AFTER_ATTACH
	 * (caps.h) once attached, before run; true: run does it (`run`, after
	 * CMD is started with all of them).
	 */
	bool drops_caps_itself;
};

extern const struct command probes_command, hist_command, top_command,
	run_command, verify_command, exporter_command, compare_command,
	report_command;

/* --mount, --dev, --pid, --comm, --mode, --max-pages, --shared */
extern const struct argp filter_argp;
/* -i SECONDS, -c COUNT (-n as in top(1)) */
extern const struct argp sampling_argp;

/* Strict number parsing: the whole string, within [min, max]; 0 or -EINVAL. */
int parse_u64(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
int parse_seconds(const char *s, double *out);
struct sockaddr_storage;
/* exporter --listen: ADDR:PORT, [IPv6]:PORT, localhost:PORT (cmd_exporter.c) */
int parse_listen(const char *s, struct sockaddr_storage *ss, unsigned int *len);

#endif
