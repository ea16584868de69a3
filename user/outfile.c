// SPDX-License-Identifier: GPL-2.0
/* Output files created safely: see outfile.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

static int open_temp(struct out_file *o)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -1;
		snprintf(o->tmp, sizeof(o->tmp), ".iomapdirty.%016llx.tmp", r);
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

FILE *out_file_open(struct out_file *o, const char *path, char *err, size_t len)
{
	char *copy = strdup(path), *base;
	int fd;

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	o->path = path;
	if (!copy) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (!strcmp(path, "-")) {
		free(copy);
		o->f = stdout;
		return o->f;
	}
	base = strrchr(copy, '/');
	if (base && !base[1]) {
		snprintf(err, len, "%s: names a directory, not a file", path);
		free(copy);
		return NULL;
	}
	o->name = base ? path + (base - copy) + 1 : path;
	if (base == copy)
		copy[1] = '\0';			/* "/name": the root */
	else if (base)
		*base = '\0';
	o->dir = base ? copy : (free(copy), strdup("."));
	if (!o->dir) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0 || (fd = open_temp(o)) < 0) {
		snprintf(err, len, "%s: cannot create a file in %s: %s", path,
			 o->dir, strerror(errno));
		out_file_abort(o);
		return NULL;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		close(fd);
		out_file_abort(o);
		return NULL;
	}
	return o->f;
}

int out_file_commit(struct out_file *o, char *err, size_t len)
{
	int bad;

	if (o->dirfd < 0) {
		if (fflush(o->f) || ferror(o->f)) {
			snprintf(err, len, "standard output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f));
	if (fclose(o->f))
		bad = 1;
	o->f = NULL;
	if (bad || renameat(o->dirfd, o->tmp, o->dirfd, o->name) ||
	    fsync(o->dirfd)) {
		snprintf(err, len, "cannot write %s: %s", o->path, strerror(errno));
		out_file_abort(o);
		return -1;
	}
	o->tmp[0] = '\0';
	close(o->dirfd);
	o->dirfd = -1;
	free(o->dir);
	o->dir = NULL;
	return 0;
}

void out_file_abort(struct out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->dirfd >= 0) {
		if (o->tmp[0])
			unlinkat(o->dirfd, o->tmp, 0);
		close(o->dirfd);
	}
	o->dirfd = -1;
	free(o->dir);
	o->dir = NULL;
}
