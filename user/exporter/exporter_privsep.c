// SPDX-License-Identifier: GPL-2.0
/* The exporter's unprivileged HTTP child: see exporter_privsep.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "host/caps.h"
#include "lib/exitcodes.h"
#include "exporter/exporter_privsep.h"
#include "lib/log.h"

#define IPC_REQUEST	0x51444d49u	/* "IMDQ" */
#define IPC_REPLY	0x52444d49u	/* "IMDR" */
#define IPC_HELLO	0x48444d49u	/* "IMDH": the child dropped and serves */
#define IPC_TIMEOUT_MS	10000		/* a stuck peer is a broken one */

struct ipc_reply {
	uint32_t magic;
	int32_t status;		/* 0, or -errno: answered 500 */
	uint64_t len;		/* body bytes that follow */
};

/* ------------------------------------------------------------ both ends */

/* All of buf, each wait for the peer bounded. 0 or -errno (-EPIPE: gone). */
static int xfer(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = fd, .events = out ? POLLOUT : POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, IPC_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = out ? send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT) :
			  recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n ? -errno : -EPIPE;
		p += n;
		len -= n;
	}
	return 0;
}

/* ------------------------------------------------------------ the child */

struct child {
	int ipc, ready;
	pthread_mutex_t lock;	/* one request at a time on the socketpair */
	bool broken;
};

/* /metrics's body, from the parent. */
static int fetch(void *data, struct textbuf *out)
{
	struct child *c = data;
	uint32_t req = IPC_REQUEST;
	struct ipc_reply r;
	char *body = NULL;
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = c->broken ? -EPIPE : xfer(c->ipc, &req, sizeof(req), true);
	if (!ret)
		ret = xfer(c->ipc, &r, sizeof(r), false);
	if (!ret && (r.magic != IPC_REPLY || r.len > HTTP_MAX_BODY))
		ret = -EPROTO;
	if (!ret && r.len && !(body = malloc(r.len)))
		ret = -ENOMEM;
	if (!ret)
		ret = xfer(c->ipc, body, r.len, false);
	if (ret && ret != -ENOMEM)
		c->broken = true;	/* out of step: the main loop ends the child */
	pthread_mutex_unlock(&c->lock);
	if (!ret && !r.status)
		textbuf_printf(out, "%.*s", (int)r.len, body);
	free(body);
	return ret ? ret : r.status;
}

/*
 * Root: no supplementary groups, then gid and uid (all three of each);
 * leaving uid 0 clears every capability. Anyone: no capability left, no
 * way to gain one (no_new_privs).
 */
static int drop_privileges(uid_t uid, gid_t gid, char *err, size_t len)
{
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))) {
		snprintf(err, len, "cannot switch to uid %u gid %u: %s (needs CAP_SETUID "
			 "and CAP_SETGID)", (unsigned int)uid, (unsigned int)gid, strerror(errno));
		return -errno;
	}
	if (caps_drop_except(0, err, len))
		return -EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, len, "no_new_privs: %s", strerror(errno));
		return -errno;
	}
	if (geteuid() == 0) {
		snprintf(err, len, "still uid 0 after the switch");
		return -EPERM;
	}
	return 0;
}

/* Serves until SIGTERM/SIGINT (blocked; inherited mask) or the parent's end. */
static void child_loop(struct child *c, struct http_server *h)
{
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	while (!c->broken) {
		struct pollfd pfd = { .fd = c->ready, .events = POLLIN };
		struct timespec now = { 0 };
		char b;

		if (poll(&pfd, 1, 200) > 0) {
			if (read(c->ready, &b, 1) != 1)
				break;		/* the parent is gone */
			http_set_ready(h);
		}
		if (sigtimedwait(&sigs, NULL, &now) > 0)
			break;
	}
}

static void __attribute__((noreturn))
child_main(struct child *c, const struct http_opts *o, uid_t uid, gid_t gid, pid_t parent)
{
	struct http_opts co = *o;
	struct http_server *h;
	uint32_t hello = IPC_HELLO;
	char err[256];
	int status;

	if (drop_privileges(uid, gid, err, sizeof(err))) {
		log_msg(LOG_LVL_ERROR, "http: %s", err);
		_exit(EXIT_PRIVILEGE);
	}
	/* after the switch: changing credentials clears it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(EXIT_OK);
	co.metrics = fetch;
	co.data = c;
	h = http_start(&co, err, sizeof(err));
	if (!h) {
		log_msg(LOG_LVL_ERROR, "cannot start the HTTP server: %s", err);
		_exit(EXIT_RUNTIME);
	}
	/* under the lock: a scrape may already be asking */
	pthread_mutex_lock(&c->lock);
	if (xfer(c->ipc, &hello, sizeof(hello), true))
		_exit(EXIT_RUNTIME);	/* the parent is gone */
	pthread_mutex_unlock(&c->lock);
	child_loop(c, h);
	status = c->broken ? EXIT_RUNTIME : EXIT_OK;
	if (c->broken)
		log_msg(LOG_LVL_ERROR, "http: the privileged process stopped answering");
	http_stop(h);
	_exit(status);
}

/* ------------------------------------------------------------ the parent */

/*
 * The child's word that it dropped its privileges and serves: until then
 * nothing is attached, so a child that cannot switch users (no CAP_SETUID
 * in a container) stops the exporter before attach with its own exit
 * status, never after a "ready" that nothing serves.
 */
static int await_hello(struct privsep *ps, char *err, size_t len)
{
	uint32_t hello = 0;
	int status = 0;

	if (!xfer(ps->ipc, &hello, sizeof(hello), false) && hello == IPC_HELLO)
		return 0;
	kill(ps->child, SIGKILL);	/* gone already, or stuck: either way */
	if (waitpid(ps->child, &status, 0) < 0)
		status = 0;
	ps->child = 0;
	close(ps->ipc);
	close(ps->ready);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_RUNTIME;
	snprintf(err, len, "it ended before serving (exit %d)", status);
	return status == EXIT_PRIVILEGE ? -EPERM : -EPIPE;
}

int privsep_start(struct privsep *ps, const struct http_opts *o, uid_t uid, gid_t gid,
		  char *err, size_t len)
{
	int sv[2], pp[2];
	pid_t parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return snprintf(err, len, "socketpair: %s", strerror(errno)), -errno;
	if (pipe2(pp, O_CLOEXEC)) {
		close(sv[0]);
		close(sv[1]);
		return snprintf(err, len, "pipe: %s", strerror(errno)), -errno;
	}
	fflush(NULL);
	ps->child = fork();
	if (ps->child < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		close(pp[0]);
		close(pp[1]);
		return -EAGAIN;
	}
	if (ps->child == 0) {
		struct child c = { .ipc = sv[1], .ready = pp[0] };

		close(sv[0]);
		close(pp[1]);
		pthread_mutex_init(&c.lock, NULL);
		child_main(&c, o, uid, gid, parent);
	}
	close(sv[1]);
	close(pp[0]);
	close(o->listen_fd);	/* the child's to serve */
	ps->ipc = sv[0];
	ps->ready = pp[1];
	return await_hello(ps, err, len);
}

void privsep_ready(struct privsep *ps)
{
	if (write(ps->ready, "R", 1) != 1)
		log_msg(LOG_LVL_WARN, "http: cannot tell the server it is ready: %s",
			strerror(errno));
}

int privsep_serve(struct privsep *ps, int timeout_ms,
		  int (*render)(void *data, struct textbuf *out), void *data)
{
	struct pollfd pfd = { .fd = ps->ipc, .events = POLLIN };
	struct ipc_reply r = { .magic = IPC_REPLY };
	struct textbuf tb;
	uint32_t req;
	int ret;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	ret = xfer(ps->ipc, &req, sizeof(req), false);
	if (ret || req != IPC_REQUEST)
		return -EPIPE;	/* gone, or speaking nonsense: stop it */
	textbuf_init(&tb, HTTP_MAX_BODY);
	r.status = render(data, &tb);
	if (!r.status && tb.failed)
		r.status = -ENOMEM;
	r.len = r.status ? 0 : tb.len;
	ret = xfer(ps->ipc, &r, sizeof(r), true);
	if (!ret && r.len)
		ret = xfer(ps->ipc, tb.buf, r.len, true);
	textbuf_free(&tb);
	return ret ? -EPIPE : 0;
}

int privsep_stop(struct privsep *ps)
{
	int status = 0;

	if (ps->child <= 0)
		return 0;
	kill(ps->child, SIGTERM);
	close(ps->ready);
	close(ps->ipc);
	if (waitpid(ps->child, &status, 0) < 0)
		return -1;
	ps->child = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
