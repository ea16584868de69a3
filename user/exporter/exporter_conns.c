// SPDX-License-Identifier: GPL-2.0
/* The exporter's HTTP connections: see exporter_conns.h. */
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/exporter_conns.h"

struct conn_slot {
	const void *key;		/* NULL: free */
	int fd;
	bool cut;			/* refused or overdue: shut down */
	uint8_t addr[17];		/* family, then the address */
	uint64_t start_ns;		/* accept, or the previous response's end */
};

enum reject { REJ_LIMIT, REJ_PER_ADDR, REJ_FULL, NR_REJECT };
static const char *const reject_names[NR_REJECT] = {
	[REJ_LIMIT] = "connection_limit",
	[REJ_PER_ADDR] = "per_address_limit",
	[REJ_FULL] = "server_full",
};

struct conn_table {
	struct conn_limits l;
	pthread_mutex_t lock;		/* the callbacks run in several threads */
	unsigned int nslots;
	uint64_t accepted, rejected[NR_REJECT], deadline_cut;
	struct conn_slot slots[];
};

struct conn_table *conns_new(const struct conn_limits *l)
{
	unsigned int n = l->max + CONNS_SLACK;
	struct conn_table *t = calloc(1, sizeof(*t) + n * sizeof(t->slots[0]));

	if (!t)
		return NULL;
	t->l = *l;
	t->nslots = n;
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void conns_free(struct conn_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void addr_key(const struct sockaddr *sa, uint8_t out[17])
{
	memset(out, 0, 17);
	if (!sa)
		return;
	out[0] = sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(out + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(out + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static void cut(struct conn_slot *s)
{
	s->cut = true;
	shutdown(s->fd, SHUT_RDWR);
}

/* Connections being served (not cut): in all, and from s's address. */
static void count_open(const struct conn_table *t, const struct conn_slot *s,
		       unsigned int *all, unsigned int *same)
{
	*all = *same = 0;
	for (unsigned int i = 0; i < t->nslots; i++) {
		const struct conn_slot *o = &t->slots[i];

		if (!o->key || o->cut || o == s)
			continue;
		(*all)++;
		*same += !memcmp(o->addr, s->addr, sizeof(o->addr));
	}
}

void *conns_started(struct conn_table *t, const void *key, int fd,
		    const struct sockaddr *sa, uint64_t now_ns)
{
	struct conn_slot *s = NULL;
	unsigned int all, same;

	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < t->nslots && !s; i++)
		if (!t->slots[i].key)
			s = &t->slots[i];
	if (!s) {
		t->rejected[REJ_FULL]++;
		shutdown(fd, SHUT_RDWR);
		pthread_mutex_unlock(&t->lock);
		return NULL;
	}
	*s = (struct conn_slot){ .key = key, .fd = fd, .start_ns = now_ns };
	addr_key(sa, s->addr);
	count_open(t, s, &all, &same);
	if (all >= t->l.max) {
		t->rejected[REJ_LIMIT]++;
		cut(s);
	} else if (same >= t->l.per_addr) {
		t->rejected[REJ_PER_ADDR]++;
		cut(s);
	} else {
		t->accepted++;
	}
	pthread_mutex_unlock(&t->lock);
	return s;
}

void conns_closed(struct conn_table *t, void *slot)
{
	struct conn_slot *s = slot;

	if (!s)
		return;
	pthread_mutex_lock(&t->lock);
	s->key = NULL;
	pthread_mutex_unlock(&t->lock);
}

void conns_completed(struct conn_table *t, const void *key, uint64_t now_ns)
{
	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < t->nslots; i++)
		if (t->slots[i].key == key) {
			t->slots[i].start_ns = now_ns;
			break;
		}
	pthread_mutex_unlock(&t->lock);
}

unsigned int conns_sweep(struct conn_table *t, uint64_t now_ns)
{
	uint64_t limit = t->l.deadline_s * 1000000000ull;
	unsigned int n = 0;

	/* under the lock: conns_closed() comes before the server closes the
	 * fd, so a slot's fd is never another connection's */
	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < t->nslots; i++) {
		struct conn_slot *s = &t->slots[i];

		/* now_ns was read before the lock: a connection started while
		 * we waited for it is younger than now_ns, never overdue */
		if (s->key && !s->cut && now_ns > s->start_ns && now_ns - s->start_ns > limit) {
			cut(s);
			n++;
		}
	}
	t->deadline_cut += n;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void conns_refused(struct conn_table *t)
{
	pthread_mutex_lock(&t->lock);
	t->rejected[REJ_FULL]++;
	pthread_mutex_unlock(&t->lock);
}

#define NS "iomapdirty_"

static void family(struct textbuf *tb, const char *name, const char *type, const char *help)
{
	textbuf_printf(tb, "# HELP " NS "%s %s\n# TYPE " NS "%s %s\n", name, help, name, type);
}

void conns_render(struct conn_table *t, struct textbuf *tb)
{
	unsigned int open = 0;

	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < t->nslots; i++)
		open += t->slots[i].key && !t->slots[i].cut;
	family(tb, "http_connections_open", "gauge",
	       "HTTP connections being served now (this one included)");
	textbuf_printf(tb, NS "http_connections_open %u\n", open);
	family(tb, "http_connections_max", "gauge",
	       "Connections served at once (--web.max-connections); more are rejected");
	textbuf_printf(tb, NS "http_connections_max %u\n", t->l.max);
	family(tb, "http_connections_per_address_max", "gauge",
	       "Connections served at once from one client address "
	       "(--web.max-connections-per-address)");
	textbuf_printf(tb, NS "http_connections_per_address_max %u\n", t->l.per_addr);
	family(tb, "http_request_deadline_seconds", "gauge",
	       "Time a request may take from accept (or the previous response) to the end "
	       "of its response (--web.request-timeout)");
	textbuf_printf(tb, NS "http_request_deadline_seconds %u\n", t->l.deadline_s);
	family(tb, "http_connections_accepted_total", "counter",
	       "Connections accepted and served");
	textbuf_printf(tb, NS "http_connections_accepted_total %" PRIu64 "\n", t->accepted);
	family(tb, "http_connections_rejected_total", "counter",
	       "Connections closed at accept: over --web.max-connections (connection_limit), "
	       "over --web.max-connections-per-address (per_address_limit), no slot left "
	       "(server_full)");
	for (int i = 0; i < NR_REJECT; i++)
		textbuf_printf(tb, NS "http_connections_rejected_total{reason=\"%s\"} %" PRIu64
			       "\n", reject_names[i], t->rejected[i]);
	family(tb, "http_request_deadline_exceeded_total", "counter",
	       "Connections closed because their request was not done within "
	       "--web.request-timeout (slow or stalled clients)");
	textbuf_printf(tb, NS "http_request_deadline_exceeded_total %" PRIu64 "\n",
		       t->deadline_cut);
	pthread_mutex_unlock(&t->lock);
}
