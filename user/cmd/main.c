// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty: per-folio write amplification of iomap buffered writeback,
 * from eBPF. One binary, one subcommand per way of looking.
 */
#include <argp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "host/caps.h"
#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "output/report.h"
#include "lib/version.h"

/* The commands, in the order `iomapdirty --help` lists them. */
static const struct command *const commands[] = {
	&probes_command, &hist_command, &top_command, &run_command, &verify_command,
	&exporter_command, &compare_command, &report_command,
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: iomapdirty COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->help);
	fprintf(out, "\n`iomapdirty COMMAND --help` for its options. Exit codes: 0 ok, "
		"1 verify found violations,\n2 usage, 3 unsupported kernel, "
		"4 no privilege, 5 bad target, 6 runtime failure, 7 another instance\n"
		"running (exporter: or its port is taken); run exits with its command's\n"
		"status (127: not started).\n");
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !getenv("IOMAPDIRTY_DEBUG"))
		return 0;
	if (level != LIBBPF_WARN && !getenv("IOMAPDIRTY_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * The parser above a command's own: hands each child its part of the
 * arguments, and refuses positional arguments for commands without.
 */
static error_t command_parse(int key, char *arg, struct argp_state *state)
{
	const struct command *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = c->args;
		state->child_inputs[1] = c->session;
		state->child_inputs[2] = c->sampling;
		break;
	case ARGP_KEY_ARG:
		if (c->args_doc)
			return ARGP_ERR_UNKNOWN;	/* the command's own */
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int parse_options(const struct command *c, int argc, char **argv)
{
	struct argp_child children[] = {
		{ c->argp, 0, NULL, 0 },
		{ c->session ? &filter_argp : NULL, 0, "Filters and probes:", 1 },
		{ c->sampling ? &sampling_argp : NULL, 0, "Sampling:", 2 },
		{},
	};
	struct argp argp = {
		NULL, command_parse, c->args_doc, c->doc, children, NULL, NULL,
	};

	/* a NULL child ends the list: sampling only comes with the filters */
	return argp_parse(&argp, argc, argv, c->argp_flags, NULL, (void *)c);
}

/* Whatever stdout could not take makes a success a runtime failure. */
static int finish(int ret)
{
	if (report_flush(stdout) && ret == EXIT_OK)
		return EXIT_RUNTIME;
	return ret;
}

/* Parse; for an observing command, start a session around its run. */
static int command_main(const struct command *c, int argc, char **argv)
{
	struct session s;
	int ret;

	if (c->error_status)
		argp_err_exit_status = c->error_status;
	if (parse_options(c, argc, argv))
		return c->error_status ? c->error_status : EXIT_USAGE;
	if (c->prepare && (ret = c->prepare(c->args)))
		return ret;
	if (!c->session)
		return c->run(NULL, c->args);
	session_install_signals();	/* before top's newterm: ncurses keeps ours */
	ret = session_start(&s, c->session);
	if (ret == EXIT_OK && !c->drops_caps_itself)
		session_drop_caps(CAPS_AFTER_ATTACH);
	if (ret == EXIT_OK)
		ret = c->run(&s, c->args);
	else if (c->error_status)
		ret = c->error_status;
	session_stop(&s);
	return ret;
}

int main(int argc, char **argv)
{
	argp_err_exit_status = EXIT_USAGE;
	libbpf_set_print(libbpf_print);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish(EXIT_OK);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("iomapdirty %s\n", IOMAPDIRTY_VERSION);
		return finish(EXIT_OK);
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i]->name))
			return finish(command_main(commands[i], argc - 1, argv + 1));
	fprintf(stderr, "iomapdirty: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
