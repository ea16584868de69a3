// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP server: see exporter_http.h.
 *
 * libmicrohttpd's polling threads (two) read requests and write responses
 * from memory to non-blocking sockets. A thread of ours sweeps the
 * connection table every 100 ms for requests past their deadline.
 */
#define _GNU_SOURCE
#include <crypt.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/clock.h"
#include "exporter/exporter_http.h"
#include "lib/log.h"

#define HTTP_THREADS		2
#define HTTP_SWEEP_NS		(100 * 1000 * 1000ull)
#define HTTP_REALM		"iomapdirty"

enum http_code { C200, C400, C401, C404, C405, C500, C503, NR_CODES };
static const unsigned int code_values[NR_CODES] = {
	200, 400, 401, 404, 405, 500, 503,
};

struct http_server {
	struct http_opts o;
	struct MHD_Daemon *d;
	struct conn_table *conns;
	atomic_bool ready;
	_Atomic uint64_t responses[NR_CODES];
	pthread_t sweeper;
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stopping, sweeper_started;
};

/* ------------------------------------------------------------ replies */

static enum MHD_Result queue(struct http_server *h, struct MHD_Connection *conn,
			     enum http_code c, struct MHD_Response *r, const char *type)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (c == C405)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (c == C401)
		ret = MHD_queue_basic_auth_fail_response(conn, HTTP_REALM, r);
	else
		ret = MHD_queue_response(conn, code_values[c], r);
	MHD_destroy_response(r);
	h->responses[c]++;
	return ret;
}

static enum MHD_Result reply(struct http_server *h, struct MHD_Connection *conn,
			     enum http_code c, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);

	return queue(h, conn, c, r, "text/plain; charset=utf-8");
}

static void render_self(struct http_server *h, struct textbuf *tb)
{
	conns_render(h->conns, tb);
	textbuf_printf(tb, "# HELP iomapdirty_http_responses_total HTTP responses by status "
		       "code, on every path (401: no or wrong credentials)\n"
		       "# TYPE iomapdirty_http_responses_total counter\n");
	for (int i = 0; i < NR_CODES; i++)
		textbuf_printf(tb, "iomapdirty_http_responses_total{code=\"%u\"} %" PRIu64 "\n",
			       code_values[i], (uint64_t)h->responses[i]);
}

static enum MHD_Result serve_metrics(struct http_server *h, struct MHD_Connection *conn)
{
	struct MHD_Response *r;
	struct textbuf tb;
	int ret;

	if (!h->ready)
		return reply(h, conn, C503, "not ready: the BPF programs are being attached\n");
	textbuf_init(&tb, HTTP_MAX_BODY);
	render_self(h, &tb);
	ret = h->o.metrics(h->o.data, &tb);
	if (ret || tb.failed) {
		textbuf_free(&tb);
		return reply(h, conn, C500, "reading the BPF maps failed; see the exporter's "
			     "log\n");
	}
	/* the buffer is the response's now: freed by libmicrohttpd */
	r = MHD_create_response_from_buffer(tb.len, tb.buf, MHD_RESPMEM_MUST_FREE);
	if (!r)
		textbuf_free(&tb);
	return queue(h, conn, C200, r, PROM_CONTENT_TYPE);
}

/* ------------------------------------------------------------ basic auth */

/* A bcrypt hash of no password anyone has: unknown users cost the same. */
static const char dummy_hash[] =
	"$2y$10$3HF83mbTzb0g6o22O2J0AuwTcaX7hVM7MMfG1LLOBxdnLNTpUQIZu";

/* Equal strings, in a time that depends on their lengths only. */
static bool same_text(const char *a, const char *b)
{
	size_t n = strlen(b);
	unsigned char d = 0;

	if (strlen(a) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return !d;
}

/* crypt(3) from libxcrypt knows $2a$, $2b$ and $2y$ (bcrypt). */
static bool bcrypt_ok(const char *password, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));	/* 32 KiB: not on a stack */
	const char *out;
	bool ok;

	if (!cd)
		return false;
	out = crypt_r(password, hash, cd);
	ok = out && out[0] == '$' && same_text(out, hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

static bool authorized(struct http_server *h, struct MHD_Connection *conn)
{
	const struct web_config *wc = h->o.wc;
	char *pass = NULL, *user;
	const char *hash = dummy_hash;
	bool known = false, ok;

	if (!wc || !wc->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(conn, &pass);
	for (int i = 0; user && i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, user)) {
			hash = wc->users[i].hash;
			known = true;
		}
	ok = bcrypt_ok(pass ? pass : "", hash) && known;
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* ------------------------------------------------------------ requests */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_size, void **con_cls)
{
	static const char index_page[] =
		"<html><head><title>iomapdirty exporter</title></head><body>"
		"<h1>iomapdirty exporter</h1><p><a href=\"/metrics\">Metrics</a></p>"
		"</body></html>\n";
	struct http_server *h = cls;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(h, conn, C405, "GET or HEAD\n");
	if (*upload_size)
		return reply(h, conn, C400, "no body\n");
	if (!authorized(h, conn))
		return reply(h, conn, C401, "unauthorized\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(h, conn);
	if (!strcmp(url, "/-/healthy"))
		return reply(h, conn, C200, "iomapdirty exporter is healthy.\n");
	if (!strcmp(url, "/-/ready"))
		return h->ready ? reply(h, conn, C200, "iomapdirty exporter is ready.\n") :
		       reply(h, conn, C503, "not ready: the BPF programs are being attached\n");
	if (!strcmp(url, "/"))
		return queue(h, conn, C200, MHD_create_response_from_buffer(
			sizeof(index_page) - 1, (void *)index_page, MHD_RESPMEM_PERSISTENT),
			"text/html; charset=utf-8");
	return reply(h, conn, C404, "not found: try /metrics\n");
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *h = cls;
	const union MHD_ConnectionInfo *fd, *addr;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		conns_closed(h->conns, *socket_context);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	*socket_context = fd ? conns_started(h->conns, conn, fd->connect_fd,
					     addr ? addr->client_addr : NULL, mono_ns()) : NULL;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;

	conns_completed(h->conns, conn, mono_ns());
}

/*
 * libmicrohttpd's messages, at most one a second: a flood of refused
 * connections must not flood the journal. Its own refusal at accept (all
 * slots taken) is counted.
 */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	static _Atomic uint64_t last_ns, dropped;
	struct http_server *h = cls;
	uint64_t now = mono_ns(), prev = last_ns;
	char line[512];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (strstr(line, "connection limit"))
		conns_refused(h->conns);
	if (now - prev < 1000000000ull || !atomic_compare_exchange_strong(&last_ns, &prev, now)) {
		dropped++;
		return;
	}
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	log_msg(LOG_LVL_WARN, "http: %s (%" PRIu64 " more messages in the last second not "
		"shown)", line, atomic_exchange(&dropped, 0));
}

static void *sweeper(void *arg)
{
	struct http_server *h = arg;
	struct timespec until;

	pthread_mutex_lock(&h->stop_lock);
	while (!h->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += HTTP_SWEEP_NS;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&h->stop_cond, &h->stop_lock, &until);
		conns_sweep(h->conns, mono_ns());
	}
	pthread_mutex_unlock(&h->stop_lock);
	return NULL;
}

/* ------------------------------------------------------------ the daemon */

static struct MHD_Daemon *start_daemon(struct http_server *h)
{
	const struct web_config *wc = h->o.wc;
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, wc ? wc->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, wc ? wc->key_pem : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};

	if (h->o.family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (wc && wc->cert_pem)
		flags |= MHD_USE_TLS;
	else
		tls[0].option = MHD_OPTION_END;
	/* the logger first: libmicrohttpd uses its own for options before it */
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
		MHD_OPTION_LISTEN_SOCKET, h->o.listen_fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)HTTP_THREADS,
		/* a backstop: ours refuses first, and counts */
		MHD_OPTION_CONNECTION_LIMIT, h->o.limits.max + CONNS_SLACK,
		/* idle time; the whole request's deadline is ours */
		MHD_OPTION_CONNECTION_TIMEOUT, h->o.limits.deadline_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_ARRAY, tls,
		MHD_OPTION_END);
}

struct http_server *http_start(const struct http_opts *o, char *err, size_t len)
{
	struct http_server *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;

	if (!h || !(h->conns = conns_new(&o->limits))) {
		snprintf(err, len, "out of memory");
		goto fail;
	}
	h->o = *o;
	pthread_mutex_init(&h->stop_lock, NULL);
	/* the sweeper's deadline is CLOCK_MONOTONIC: the condition's clock too */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (o->wc && o->wc->cert_pem && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, len, "this libmicrohttpd was built without TLS (GnuTLS)");
		goto fail;
	}
	h->d = start_daemon(h);
	if (!h->d) {
		snprintf(err, len, "libmicrohttpd refused to start%s", o->wc && o->wc->cert_pem ?
			 " (is the key the certificate's? both PEM?)" : "");
		goto fail;
	}
	if (pthread_create(&h->sweeper, NULL, sweeper, h)) {
		snprintf(err, len, "cannot start a thread");
		MHD_stop_daemon(h->d);
		goto fail;
	}
	h->sweeper_started = true;
	return h;
fail:
	if (h)
		conns_free(h->conns);
	free(h);
	return NULL;
}

const char *http_version(void)
{
	return MHD_get_version();
}

void http_set_ready(struct http_server *h)
{
	h->ready = true;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->stop_lock);
	h->stopping = true;
	pthread_cond_signal(&h->stop_cond);
	pthread_mutex_unlock(&h->stop_lock);
	if (h->sweeper_started)
		pthread_join(h->sweeper, NULL);
	/* joins the polling threads: no callback runs after this */
	MHD_stop_daemon(h->d);
	conns_free(h->conns);
	free(h);
}
