// SPDX-License-Identifier: GPL-2.0
/* lstat() with a deadline: see pathcheck.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "host/fsinfo.h"
#include "host/pathcheck.h"

struct checker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	char path[4096];
	struct stat st;
	int err;
	bool pending;		/* a request waits for the worker */
	bool done;		/* its answer is in st/err */
	bool abandoned;		/* the caller gave up: the worker frees this */
};

static struct checker *current;
static int stuck;

static void checker_free(struct checker *c)
{
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}

static void *worker(void *arg)
{
	struct checker *c = arg;
	char path[sizeof(c->path)];
	struct stat st = {};
	bool abandoned;
	int r, err;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->pending)
			pthread_cond_wait(&c->cond, &c->lock);
		memcpy(path, c->path, sizeof(path));
		pthread_mutex_unlock(&c->lock);
		r = fsinfo_lstat(path, &st);	/* the host's, under --path.rootfs */
		err = r ? errno : 0;
		pthread_mutex_lock(&c->lock);
		c->st = st;
		c->err = err;
		c->pending = false;
		c->done = true;
		pthread_cond_broadcast(&c->cond);
		if (c->abandoned)
			break;
	}
	abandoned = c->abandoned;
	pthread_mutex_unlock(&c->lock);
	if (abandoned)
		checker_free(c);
	return NULL;
}

static struct checker *checker_new(void)
{
	struct checker *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t tid;
	sigset_t all, old;
	int r;

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&ta, 64 * 1024);
	/* signals are for the main thread: the worker blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&tid, &ta, worker, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&ta);
	if (r) {
		checker_free(c);
		return NULL;
	}
	return c;
}

int pathcheck_lstat(const char *path, struct stat *st, int timeout_ms)
{
	struct checker *c;
	struct timespec dl;
	int r = 0, err;

	if (strlen(path) >= sizeof(c->path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!current && stuck < PATHCHECK_MAX_STUCK)
		current = checker_new();
	c = current;
	if (!c) {
		errno = ETIMEDOUT;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += timeout_ms / 1000;
	dl.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->lock);
	memcpy(c->path, path, strlen(path) + 1);
	c->pending = true;
	c->done = false;
	pthread_cond_broadcast(&c->cond);
	while (!c->done && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&c->cond, &c->lock, &dl);
	if (!c->done) {
		/* blocked in the kernel: leave it, it frees c if it ever returns */
		c->abandoned = true;
		pthread_mutex_unlock(&c->lock);
		current = NULL;
		stuck++;
		errno = ETIMEDOUT;
		return -1;
	}
	*st = c->st;
	err = c->err;
	pthread_mutex_unlock(&c->lock);
	errno = err;
	return err ? -1 : 0;
}
