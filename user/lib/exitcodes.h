/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exit codes, the same for every subcommand (docs/iomapdirty.md), and
 * the one return convention of user/:
 *
 * - Below the commands (facts, trial, plan, engine, snapshot, sampler,
 *   fsinfo, options' number parsing, the offline readers of run files,
 *   fio results and input files): 0 on success or a negative errno,
 *   with the message in the caller's err buffer where the function takes
 *   one. A count, index or file descriptor is returned as itself (>= 0);
 *   a lookup by name or key that finds nothing returns -1
 *   (top_col_parse, top_col_from_key), comparators return <0, 0, >0 as
 *   qsort() wants. Functions that cannot fail return void.
 * - Exit codes (below) only at the command boundary: main.c, each
 *   command's run() and session_start(), which turns the errors of the
 *   layers below into exit codes (-EINVAL from a --dev: EXIT_USAGE, -EPERM
 *   from a load: EXIT_PRIVILEGE, ...).
 */
#ifndef IOMAPDIRTY_EXITCODES_H
#define IOMAPDIRTY_EXITCODES_H

enum exit_code {
	EXIT_OK = 0,
	EXIT_VIOLATION = 1,	/* verify: clean blocks reached the device */
	EXIT_USAGE = 2,		/* bad arguments */
	EXIT_UNSUPPORTED = 3,	/* kernel cannot give a required quantity */
	EXIT_PRIVILEGE = 4,	/* not root / missing capabilities */
	EXIT_BAD_TARGET = 5,	/* path or device not on an iomap filesystem */
	EXIT_RUNTIME = 6,	/* load, attach or read failed while running */
	EXIT_BUSY = 7,		/* another instance holds the lock (--shared) */
	EXIT_INCOMPLETE = 8,	/* verify: no evidence, or incomplete: no verdict */
	EXIT_NOEXEC = 127,	/* run: the command could not be started */
};

#endif
