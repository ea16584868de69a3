/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one routine for every file iomapdirty writes (run --json, report
 * -o): written whole or not at all, safely on a shared host.
 *
 * - The target is a new name or an existing regular file; anything else
 *   (a symbolic link, a device node, a directory, a FIFO, a socket) is
 *   refused when the file is opened, before any work starts, and again
 *   just before the rename. "-" is standard output.
 * - The data goes to a file with no name (O_TMPFILE) in the target's own
 *   directory: a process killed at any point (kill -9 included) leaves
 *   nothing behind. At commit it is written, fsync'ed, linked under a
 *   random name (O_EXCL semantics) and renamed over the target, and the
 *   directory is fsync'ed. Where the filesystem has no O_TMPFILE, a
 *   random name made with O_EXCL|O_NOFOLLOW is used instead, and removed
 *   on failure and on SIGINT, SIGTERM, SIGHUP while those would end the
 *   process (only kill -9 can leave it).
 * - The mode is 0666 less the umask; every descriptor is O_CLOEXEC.
 */
#ifndef IOMAPDIRTY_OUTFILE_H
#define IOMAPDIRTY_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct out_file {
	FILE *f;
	int dirfd;		/* -1 for standard output */
	bool anonymous;		/* O_TMPFILE: no name until commit */
	char tmp[64];		/* the temporary name in that directory, "" if none */
	const char *name;	/* the target's name in that directory */
	const char *path;	/* as given, for messages */
	char *dir;
};

/*
 * Returns the stream to write, or NULL with a message in err (a target
 * that is not a regular file, a directory where no file can be made).
 */
FILE *out_file_open(struct out_file *o, const char *path, char *err, size_t len);
/*
 * Checks every write, syncs and renames into place. Returns 0, or -1
 * with err (the target is then left as it was).
 */
int out_file_commit(struct out_file *o, char *err, size_t len);
/* Drops the temporary file (after an error, or when nothing is written). */
void out_file_abort(struct out_file *o);

#endif
