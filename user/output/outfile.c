// SPDX-License-Identifier: GPL-2.0
/* Output files created safely: see outfile.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "output/outfile.h"

#define OUT_MODE	0666	/* less the umask, as any file a command makes */

/* What a name is, when it is not a file we may replace. */
static const char *kind_refused(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return NULL;
	case S_IFLNK: return "a symbolic link";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFDIR: return "a directory";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/* 0 when the target is absent (*exists false) or a regular file. */
static int target_check(const struct out_file *o, bool *exists, char *err, size_t len)
{
	struct stat st;
	const char *kind;

	*exists = false;
	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, len, "%s: %s", o->path, strerror(errno));
		return -1;
	}
	kind = kind_refused(st.st_mode);
	if (kind) {
		snprintf(err, len, "%s: is %s, not a regular file: refused (give a new "
			 "file, an existing regular file, or - for standard output)",
			 o->path, kind);
		return -1;
	}
	*exists = true;
	return 0;
}

/*
 * The named temporary file (if any) removed when a signal would end the
 * process: only while its action is the default one. A command that
 * catches the signal itself goes on to commit or abort.
 */
static struct out_file *volatile cleanup_of;
static const int cleanup_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction cleanup_old[3];
static bool cleanup_set[3];

static void on_fatal_signal(int sig)
{
	struct out_file *o = cleanup_of;

	if (o && o->tmp[0])
		unlinkat(o->dirfd, o->tmp, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cleanup_arm(struct out_file *o)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	sigemptyset(&sa.sa_mask);
	cleanup_of = o;
	for (int i = 0; i < 3; i++) {
		cleanup_set[i] = !sigaction(cleanup_sigs[i], NULL, &cleanup_old[i]) &&
				 cleanup_old[i].sa_handler == SIG_DFL &&
				 !(cleanup_old[i].sa_flags & SA_SIGINFO) &&
				 !sigaction(cleanup_sigs[i], &sa, NULL);
	}
}

static void cleanup_disarm(void)
{
	for (int i = 0; i < 3; i++)
		if (cleanup_set[i])
			sigaction(cleanup_sigs[i], &cleanup_old[i], NULL);
	memset(cleanup_set, 0, sizeof(cleanup_set));
	cleanup_of = NULL;
}

static int random_name(struct out_file *o)
{
	unsigned long long r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		return -1;
	snprintf(o->tmp, sizeof(o->tmp), ".iomapdirty.%016llx.tmp", r);
	return 0;
}

/* A file with no name, or where the filesystem has none, a random one. */
static int open_temp(struct out_file *o)
{
	int fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, OUT_MODE);

	if (fd >= 0) {
		o->anonymous = true;
		return fd;
	}
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -1;
	for (int tries = 0; tries < 16; tries++) {
		if (random_name(o))
			return -1;
		fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, OUT_MODE);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		o->tmp[0] = '\0';
	return fd;
}

/* The directory and the name in it; o->dirfd open. */
static int split_path(struct out_file *o, const char *path, char *err, size_t len)
{
	const char *slash = strrchr(path, '/');

	o->name = slash ? slash + 1 : path;
	if (!*o->name || !strcmp(o->name, ".") || !strcmp(o->name, "..")) {
		snprintf(err, len, "%s: names a directory, not a file", path);
		return -1;
	}
	if (!slash)
		o->dir = strdup(".");
	else if (slash == path)
		o->dir = strdup("/");
	else
		o->dir = strndup(path, slash - path);
	if (!o->dir) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	o->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->dirfd < 0) {
		snprintf(err, len, "%s: cannot create a file in its directory (%s): %s",
			 path, o->dir, strerror(errno));
		return -1;
	}
	return 0;
}

FILE *out_file_open(struct out_file *o, const char *path, char *err, size_t len)
{
	bool exists;
	int fd;

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return o->f;
	}
	if (split_path(o, path, err, len) || target_check(o, &exists, err, len))
		goto fail;
	cleanup_arm(o);
	fd = open_temp(o);
	if (fd < 0) {
		snprintf(err, len, "%s: cannot create a file in its directory (%s): %s",
			 path, o->dir, strerror(errno));
		goto fail;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	return o->f;
fail:
	out_file_abort(o);
	return NULL;
}

/* The file with no name gets a random one (linkat fails on one taken). */
static int link_anonymous(struct out_file *o)
{
	char proc[64];
	int fd = fileno(o->f);

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 16; tries++) {
		if (random_name(o))
			break;
		if (!linkat(AT_FDCWD, proc, o->dirfd, o->tmp, AT_SYMLINK_FOLLOW) ||
		    (errno == ENOENT &&	/* no /proc: needs CAP_DAC_READ_SEARCH */
		     !linkat(fd, "", o->dirfd, o->tmp, AT_EMPTY_PATH)))
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->tmp[0] = '\0';
	return -1;
}

/* Renames the temporary file over the target, if that is still allowed. */
static int rename_into_place(struct out_file *o, char *err, size_t len)
{
	for (int tries = 0; tries < 4; tries++) {
		bool exists;

		if (target_check(o, &exists, err, len))
			return -1;
		if (exists && !renameat(o->dirfd, o->tmp, o->dirfd, o->name))
			return 0;
		if (!exists && !renameat2(o->dirfd, o->tmp, o->dirfd, o->name,
					  RENAME_NOREPLACE))
			return 0;
		if (!exists && errno == EINVAL &&
		    !renameat(o->dirfd, o->tmp, o->dirfd, o->name))
			return 0;	/* a filesystem without RENAME_NOREPLACE */
		if (errno != EEXIST)
			break;		/* EEXIST: made meanwhile, look again */
	}
	snprintf(err, len, "cannot write %s: %s", o->path, strerror(errno));
	return -1;
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
	bad = fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)) ||
	      (o->anonymous && link_anonymous(o));
	if (fclose(o->f))
		bad = 1;
	o->f = NULL;
	if (bad) {
		snprintf(err, len, "cannot write %s: %s", o->path, strerror(errno));
		goto fail;
	}
	if (rename_into_place(o, err, len))
		goto fail;
	o->tmp[0] = '\0';
	if (fsync(o->dirfd)) {	/* the rename itself made durable */
		snprintf(err, len, "cannot write %s: %s", o->path, strerror(errno));
		goto fail;
	}
	out_file_abort(o);
	return 0;
fail:
	out_file_abort(o);
	return -1;
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
	o->tmp[0] = '\0';
	if (cleanup_of == o)
		cleanup_disarm();
	o->dirfd = -1;
	free(o->dir);
	o->dir = NULL;
}
