/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's HTTP connections, counted and bounded (exporter_http.c
 * feeds it from libmicrohttpd's callbacks): at most `max` open at once and
 * `per_addr` from one client address, and a deadline for a whole request:
 * from the connection's accept (or its previous response's end, for a
 * kept-alive one) to the end of the response, headers, TLS handshake and a
 * slow reader included. libmicrohttpd 0.9.75's own timeout is idle time,
 * reset by every byte, so a client that trickles a header byte every few
 * seconds holds its slot for ever; its per-address limit refuses without
 * telling anyone. Here both are decided, and counted, by us: an
 * over-limit or overdue connection is shut down (shutdown(2), never
 * close: the fd stays libmicrohttpd's), which its polling thread sees as
 * the end of the connection and closes.
 */
#ifndef IOMAPDIRTY_EXPORTER_CONNS_H
#define IOMAPDIRTY_EXPORTER_CONNS_H

#include <stdint.h>
#include <sys/socket.h>
#include "output/prom.h"

struct conn_limits {
	unsigned int max;		/* open at once */
	unsigned int per_addr;		/* open at once from one address */
	unsigned int deadline_s;	/* a whole request */
};

/* Slots beyond max, for connections accepted and being refused. */
#define CONNS_SLACK	64

struct conn_table;

struct conn_table *conns_new(const struct conn_limits *l);
void conns_free(struct conn_table *t);
/*
 * A connection was accepted (key: the server's handle of it). Returns its
 * slot, to hand back to conns_closed(); a connection over a limit is
 * counted, shut down, and still gets a slot (or NULL when none is left).
 */
void *conns_started(struct conn_table *t, const void *key, int fd,
		    const struct sockaddr *sa, uint64_t now_ns);
void conns_closed(struct conn_table *t, void *slot);
/* A response was sent: a kept-alive connection's next request starts now. */
void conns_completed(struct conn_table *t, const void *key, uint64_t now_ns);
/* Shuts down the connections past the deadline; how many. */
unsigned int conns_sweep(struct conn_table *t, uint64_t now_ns);
/* The server refused one at accept itself (all slots taken). */
void conns_refused(struct conn_table *t);
/* The self-metrics: open, limits, accepted, rejected, cut at the deadline. */
void conns_render(struct conn_table *t, struct textbuf *tb);

#endif
