/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An output file written whole or not at all, safely on a shared host: a
 * new file with a random name made with O_EXCL|O_NOFOLLOW in the target's
 * own directory, written, fsync'ed, then renamed over the target (which
 * replaces a symbolic link there rather than following it). "-" is
 * standard output.
 */
#ifndef IOMAPDIRTY_OUTFILE_H
#define IOMAPDIRTY_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

struct out_file {
	FILE *f;
	int dirfd;		/* -1 for standard output */
	char tmp[64];		/* the temporary name in that directory */
	const char *name;	/* the target's name in that directory */
	const char *path;	/* as given, for messages */
	char *dir;
};

/* Returns the stream to write, or NULL with a message in err. */
FILE *out_file_open(struct out_file *o, const char *path, char *err, size_t len);
/*
 * Checks every write, syncs and renames into place. Returns 0, or -1
 * with err (the target is then left as it was).
 */
int out_file_commit(struct out_file *o, char *err, size_t len);
/* Drops the temporary file (after an error while writing). */
void out_file_abort(struct out_file *o);

#endif
