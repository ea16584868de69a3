/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter split in two processes: the part that talks to the network
 * holds no privilege. privsep_start() forks a child that drops to an
 * unprivileged user (setgroups, setresgid, setresuid: uid 0 -> nobody
 * clears every capability), sets no_new_privs and serves HTTP
 * (exporter_http.c) on the listening socket; for each /metrics it asks
 * the parent over a socketpair, and the parent (root, CAP_BPF, the BPF
 * fds, path lookups) answers with the rendered body. The parent never
 * reads anything from the network; the child never sees a BPF object.
 */
#ifndef IOMAPDIRTY_EXPORTER_PRIVSEP_H
#define IOMAPDIRTY_EXPORTER_PRIVSEP_H

#include <sys/types.h>
#include "exporter/exporter_http.h"

struct privsep {
	pid_t child;
	int ipc;		/* the parent's end of the socketpair */
	int ready;		/* a pipe: one byte when attached */
};

/*
 * Forks the serving child (o's metrics callback is replaced by the
 * request to the parent) and returns in the parent: 0, or -errno with
 * err. The child never returns.
 */
int privsep_start(struct privsep *ps, const struct http_opts *o, uid_t uid, gid_t gid,
		  char *err, size_t len);
/* The parent: attached; /-/ready answers 200 from now on. */
void privsep_ready(struct privsep *ps);
/*
 * The parent: waits up to timeout_ms for a request from the child and
 * answers it with render(data, out). 0 (served or timed out), or -EPIPE
 * when the child is gone.
 */
int privsep_serve(struct privsep *ps, int timeout_ms,
		  int (*render)(void *data, struct textbuf *out), void *data);
/* The parent: stops the child (SIGTERM) and reaps it; its exit status. */
int privsep_stop(struct privsep *ps);

#endif
