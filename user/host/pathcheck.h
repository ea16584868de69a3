/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lstat() of a path that a user controls, without letting that user stop
 * the caller: a file under a FUSE mount that never answers (or an NFS
 * server gone away) blocks stat() for ever. The call runs in a worker
 * thread and is given up after a deadline; the worker is then left
 * behind, and after a few such the checks stop altogether.
 */
#ifndef IOMAPDIRTY_PATHCHECK_H
#define IOMAPDIRTY_PATHCHECK_H

#include <sys/stat.h>

/* Deadline of one check: generous for a local disk under load. */
#define PATHCHECK_TIMEOUT_MS	200
/* Workers left blocked before the checks stop (each costs a thread). */
#define PATHCHECK_MAX_STUCK	4

/* 0, or -1 with errno (ETIMEDOUT: no answer in time, or checks stopped). */
int pathcheck_lstat(const char *path, struct stat *st, int timeout_ms);

#endif
