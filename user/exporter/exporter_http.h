/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's HTTP server (libmicrohttpd): /metrics, /-/healthy,
 * /-/ready and an index page, over TLS and behind basic authentication
 * when the web configuration says so (web_config.h), with the connection
 * limits and the request deadline of exporter_conns.h. It knows nothing of
 * BPF: /metrics's body comes from a callback, after the server's own
 * self-metrics.
 */
#ifndef IOMAPDIRTY_EXPORTER_HTTP_H
#define IOMAPDIRTY_EXPORTER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "exporter/exporter_conns.h"
#include "output/prom.h"
#include "exporter/web_config.h"

#define HTTP_MAX_BODY	(16u << 20)	/* bounded response memory */

struct http_opts {
	int listen_fd;			/* bound and listening; the server closes it */
	int family;			/* AF_INET or AF_INET6 */
	struct conn_limits limits;
	const struct web_config *wc;	/* TLS, users; NULL: neither */
	/* appends /metrics's body to out: 0, or -errno (answered 500) */
	int (*metrics)(void *data, struct textbuf *out);
	void *data;
};

struct http_server;

/* Starts serving (polling threads of its own); NULL with err. */
struct http_server *http_start(const struct http_opts *o, char *err, size_t len);
/* /-/ready answers 200 from now on (attached), 503 before. */
void http_set_ready(struct http_server *h);
/* libmicrohttpd's version, for build_info. */
const char *http_version(void);
/* Stops and joins every thread of the server; closes the listening socket. */
void http_stop(struct http_server *h);

#endif
