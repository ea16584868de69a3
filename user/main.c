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
#include "commands.h"
#include "exitcodes.h"

#define IOMAPDIRTY_VERSION	"0.1.0"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "probes", cmd_probes, "show the attach plan for this kernel" },
	{ "hist", cmd_hist, "live write-amplification histograms" },
	{ "top", cmd_top, "live per-file view of write amplification" },
	{ "run", cmd_run, "measure while a command (e.g. fio) runs" },
	{ "verify", cmd_verify, "prove that only dirty blocks reach the device" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: iomapdirty COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n`iomapdirty COMMAND --help` for its options. Exit codes: 0 ok, "
		"1 verify found violations,\n2 usage, 3 unsupported kernel, "
		"4 no privilege, 5 bad target, 6 runtime failure, 7 another instance\n"
		"running; run exits with its command's status (127: not started).\n");
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !getenv("IOMAPDIRTY_DEBUG"))
		return 0;
	if (level != LIBBPF_WARN && !getenv("IOMAPDIRTY_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, args);
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
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("iomapdirty %s\n", IOMAPDIRTY_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "iomapdirty: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
