/* SPDX-License-Identifier: GPL-2.0 */
/* Exit codes, the same for every subcommand (docs/iomapdirty.md). */
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
	EXIT_NOEXEC = 127,	/* run: the command could not be started */
};

#endif
