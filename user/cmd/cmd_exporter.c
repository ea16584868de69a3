// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty exporter: attach once, serve the counters on /metrics in the
 * Prometheus text format (prom.c) until SIGTERM or SIGINT.
 *
 * HTTP is exporter_http.c's (libmicrohttpd, with connection limits and a
 * deadline for a whole request: a slow or hostile client holds a slot
 * until then and nothing else). The BPF programs never wait on user
 * space; user space reads their maps under one mutex (the engine's read
 * buffers are shared), and renders the response into a bounded buffer.
 * The main thread only waits for signals and flushes idle writeback
 * contexts every second (as hist does per interval), so per-thread sums
 * reach the totals and quiet threads free their slots between scrapes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <systemd/sd-daemon.h>
#include "lib/clock.h"
#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "exporter/exporter_http.h"
#include "exporter/exporter_privsep.h"
#include "exporter/exporter_progstats.h"
#include "host/names.h"
#include "lib/log.h"
#include "output/prom.h"
#include "lib/version.h"

#define EXPORTER_DEFAULT_LISTEN	"127.0.0.1:19110"
#define EXPORTER_MAX_CONNECTIONS	512	/* open at once; beyond: refused */
#define EXPORTER_MAX_PER_ADDR	16	/* open at once from one address */
#define EXPORTER_REQUEST_TIMEOUT_S	10	/* a whole request */
#define EXPORTER_MAX_BODY	HTTP_MAX_BODY
#define EXPORTER_WEB_USER	"nobody"	/* the HTTP server's process runs as */
#define EXPORTER_MAX_TOP_FILES	100
#define EXPORTER_CGROUP_TOP	20	/* --collector.cgroup.top's default */
#define EXPORTER_MAX_CGROUP_TOP	100

struct exporter_args {
	struct session_opts so;
	const char *listen;
	double cache_seconds;
	unsigned int top_files;
	unsigned int cgroup_top;	/* --collector.cgroup.top N */
	struct conn_limits limits;
	const char *web_config_file;	/* NULL: plain HTTP, no authentication */
	struct web_config wc;
	struct privsep ps;		/* the HTTP server's process */
	uid_t web_uid;
	gid_t web_gid;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd;			/* the listening socket, bound by prepare */
	sigset_t sigs;		/* taken by the main thread only */
};

struct exporter {
	struct session *s;
	const struct exporter_args *a;
	pthread_mutex_t lock;		/* engine, fsinfo cache, body */
	struct textbuf body;		/* the last /metrics response */
	uint64_t body_ns;		/* when it was rendered, 0: never */
	uint64_t scrapes, errors;
	struct prom_ctx pc;
	char kernel_release[65];
	char libbpf_version[32];
};

enum {
	OPT_LISTEN = 0x700,
	OPT_CACHE,
	OPT_TOP_FILES,
	OPT_LOG_LEVEL,
	OPT_MAX_CONNS,
	OPT_MAX_PER_ADDR,
	OPT_REQUEST_TIMEOUT,
	OPT_WEB_CONFIG,
	OPT_COLLECTOR_CGROUP,
	OPT_CGROUP_TOP,
};

static const struct argp_option exporter_options[] = {
	{ "web.listen-address", OPT_LISTEN, "ADDR:PORT", 0,
	  "Serve /metrics on ADDR:PORT (default " EXPORTER_DEFAULT_LISTEN "; IPv6 as "
	  "[ADDR]:PORT; all interfaces only when asked: 0.0.0.0:PORT or [::]:PORT)", 0 },
	{ "listen", OPT_LISTEN, NULL, OPTION_ALIAS, NULL, 0 },
	{ "web.config.file", OPT_WEB_CONFIG, "FILE", 0,
	  "TLS and basic authentication, in prometheus/exporter-toolkit's web "
	  "configuration format: tls_server_config (cert_file, key_file) and "
	  "basic_auth_users (bcrypt hashes) only; any other key is refused", 0 },
	{ "web.max-connections", OPT_MAX_CONNS, "N", 0,
	  "Serve at most N connections at once (1 to 4096, default 512); more are "
	  "closed at accept and counted", 0 },
	{ "web.max-connections-per-address", OPT_MAX_PER_ADDR, "N", 0,
	  "Of those, at most N from one client address (1 to 4096, default 16)", 0 },
	{ "web.request-timeout", OPT_REQUEST_TIMEOUT, "SECONDS", 0,
	  "Close a connection whose request is not answered within SECONDS of its "
	  "accept or of its previous response: headers, TLS handshake and a slow "
	  "reader included (1 to 600, default 10)", 0 },
	{ "cache", OPT_CACHE, "SECONDS", 0,
	  "Answer scrapes within SECONDS of the last reading from it (0 to 60, "
	  "default 0.5; 0 reads the maps on every scrape)", 0 },
	{ "top-files", OPT_TOP_FILES, "N", 0,
	  "Also export the N files with the most submitted bytes (0 to 100, default "
	  "0: no per-file series)", 0 },
	{ "collector.cgroup", OPT_COLLECTOR_CGROUP, NULL, 0,
	  "Also export the figures per writer cgroup v2 (with its systemd unit, "
	  "container and pod): the top N by submitted bytes and one series for the "
	  "rest (\"other\")", 0 },
	{ "collector.cgroup.top", OPT_CGROUP_TOP, "N", 0,
	  "With --collector.cgroup: N cgroups get series of their own (1 to 100, "
	  "default 20)", 0 },
	{ "log-level", OPT_LOG_LEVEL, "LEVEL", 0,
	  "error, warn, info (default) or debug (one line per scrape)", 0 },
	{},
};

/*
 * ADDR:PORT with a numeric IPv4 address, [IPv6]:PORT, or localhost:PORT.
 * No name lookups: a daemon's listen address should not depend on DNS.
 */
int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	unsigned long long port;
	size_t hl;

	if (!colon || parse_u64(colon + 1, 1, 65535, &port))
		return -1;
	hl = colon - s;
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		host[hl - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return -1;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	{
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			return -1;
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		*len = sizeof(*in);
	}
	return 0;
}

static int parse_cache(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v <= 60))
		return -1;
	*out = v;
	return 0;
}

static error_t exporter_parse(int key, char *arg, struct argp_state *state)
{
	struct exporter_args *a = state->input;
	unsigned long long v;
	int l;

	switch (key) {
	case OPT_LISTEN:
		if (parse_listen(arg, &a->addr, &a->addrlen))
			argp_error(state, "--web.listen-address, --listen wants ADDR:PORT "
				   "(numeric IPv4, [IPv6] or localhost; port 1-65535), got '%s'",
				   arg);
		a->listen = arg;
		break;
	case OPT_CACHE:
		if (parse_cache(arg, &a->cache_seconds))
			argp_error(state, "--cache wants seconds from 0 to 60, got '%s'", arg);
		break;
	case OPT_TOP_FILES:
		if (parse_u64(arg, 0, EXPORTER_MAX_TOP_FILES, &v))
			argp_error(state, "--top-files wants 0 to %d, got '%s'",
				   EXPORTER_MAX_TOP_FILES, arg);
		a->top_files = v;
		break;
	case OPT_COLLECTOR_CGROUP:
		a->so.cgroup_sums = true;
		break;
	case OPT_CGROUP_TOP:
		if (parse_u64(arg, 1, EXPORTER_MAX_CGROUP_TOP, &v))
			argp_error(state, "--collector.cgroup.top wants 1 to %d, got '%s'",
				   EXPORTER_MAX_CGROUP_TOP, arg);
		a->cgroup_top = v;
		break;
	case OPT_MAX_CONNS:
	case OPT_MAX_PER_ADDR:
		if (parse_u64(arg, 1, 4096, &v))
			argp_error(state, "--web.max-connections%s wants 1 to 4096, got '%s'",
				   key == OPT_MAX_CONNS ? "" : "-per-address", arg);
		*(key == OPT_MAX_CONNS ? &a->limits.max : &a->limits.per_addr) = v;
		break;
	case OPT_REQUEST_TIMEOUT:
		if (parse_u64(arg, 1, 600, &v))
			argp_error(state, "--web.request-timeout wants 1 to 600 seconds, got "
				   "'%s'", arg);
		a->limits.deadline_s = v;
		break;
	case OPT_WEB_CONFIG:
		a->web_config_file = arg;
		break;
	case OPT_LOG_LEVEL:
		l = log_level_parse(arg);
		if (l < 0)
			argp_error(state, "--log-level wants error, warn, info or debug, "
				   "got '%s'", arg);
		log_set_level(l);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The listening socket, bound before anything is attached. Exit code. */
static int open_listener(const struct exporter_args *a, int *fd_out)
{
	int one = 1, fd;

	fd = socket(a->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_msg(LOG_LVL_ERROR, "cannot create a socket for %s: %s", a->listen,
			strerror(errno));
		return EXIT_RUNTIME;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->addr, a->addrlen) || listen(fd, 1024)) {
		int err = errno;

		log_msg(LOG_LVL_ERROR, "cannot listen on %s: %s%s", a->listen, strerror(err),
			err == EADDRINUSE ? " (another exporter? pick another port "
			"with --listen)" : "");
		close(fd);
		return err == EADDRINUSE ? EXIT_BUSY :
		       err == EACCES ? EXIT_PRIVILEGE :
		       err == EADDRNOTAVAIL ? EXIT_USAGE : EXIT_RUNTIME;
	}
	*fd_out = fd;
	return EXIT_OK;
}

static void file_path(void *data, const struct file_key *key, char *buf, size_t len)
{
	engine_file_path(data, key, buf, len);
}

/*
 * Reads the maps (after flushing idle contexts) and renders the body,
 * unless the last one is younger than --cache. Called with x->lock held.
 */
static int refresh_body(struct exporter *x)
{
	struct cgroup_entry *cgroups = NULL;
	uint64_t now = mono_ns();
	struct snapshot snap;
	int ret, ncg = 0;

	if (x->body_ns && now - x->body_ns < x->a->cache_seconds * 1e9)
		return 0;
	x->pc.scrape_start_ns = now;
	x->pc.scrapes = x->scrapes;
	x->pc.scrape_errors = x->errors;
	engine_flush(x->s->engine, ENGINE_FLUSH_IDLE_NS);
	/* the cgroups first: the totals read after them hold all they do */
	ret = engine_cgroup_sums(x->s->engine, &cgroups, &ncg);
	if (!ret)
		ret = engine_snapshot(x->s->engine, &snap);
	if (ret) {
		log_msg(LOG_LVL_WARN, "reading the BPF maps failed: %s", strerror(-ret));
		free(cgroups);
		return ret;
	}
	x->pc.cgroups = cgroups;
	x->pc.ncgroups = ncg;
	textbuf_reset(&x->body);
	progstats_render(x->s->engine, &x->body);
	if (!prom_render(&x->body, &snap, &x->pc)) {
		log_msg(LOG_LVL_WARN, "rendering /metrics failed (over %u bytes or out of "
			"memory)", EXPORTER_MAX_BODY);
		ret = -ENOMEM;
	}
	snapshot_free(&snap);
	free(cgroups);
	x->pc.cgroups = NULL;
	x->body_ns = ret ? 0 : now;
	log_msg(LOG_LVL_DEBUG, "read the maps: %zu bytes in %.3f ms", x->body.len,
		(mono_ns() - now) / 1e6);
	return ret;
}

/* /metrics's body after the server's self-metrics: the maps, read now or --cache ago. */
static int metrics_body(void *data, struct textbuf *out)
{
	struct exporter *x = data;
	int ret;

	pthread_mutex_lock(&x->lock);
	x->scrapes++;
	ret = refresh_body(x);
	if (ret)
		x->errors++;
	else
		textbuf_printf(out, "%.*s", (int)x->body.len, x->body.buf);
	pthread_mutex_unlock(&x->lock);
	return ret;
}

static void fill_prom_ctx(struct exporter *x)
{
	struct utsname u;
	struct timespec now;

	if (!uname(&u))
		snprintf(x->kernel_release, sizeof(x->kernel_release), "%s", u.release);
	snprintf(x->libbpf_version, sizeof(x->libbpf_version), "%s",
		 libbpf_version_string());
	clock_gettime(CLOCK_REALTIME, &now);
	x->pc = (struct prom_ctx){
		.plan = &x->s->plan,
		.version = IOMAPDIRTY_VERSION,
		.libbpf_version = x->libbpf_version,
		.httpd_version = http_version(),
		.kernel_release = x->kernel_release,
		.max_pages = engine_max_pages(x->s->engine),
		.host = &host_names,
		.attach_unix_seconds = now.tv_sec + now.tv_nsec / 1e9,
		.block_layer = x->s->plan.hooks[HOOK_BIO].chosen && x->a->so.verify,
		.top_files = x->a->top_files,
		.file_path = x->a->top_files ? file_path : NULL,
		.file_path_data = x->s->engine,
		.cgroup_top = x->a->so.cgroup_sums ? (int)x->a->cgroup_top : 0,
	};
}

/* SIGTERM or SIGINT taken: logged, true. SIGHUP: logged, false. */
static bool stop_signal(int sig, const siginfo_t *si)
{
	if (sig == SIGHUP)
		log_msg(LOG_LVL_INFO, "SIGHUP from pid %d: nothing to reload, still "
			"serving", si->si_pid);
	if (sig != SIGTERM && sig != SIGINT)
		return false;
	log_msg(LOG_LVL_INFO, "%s from pid %d: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT",
		si->si_pid);
	return true;
}

/*
 * The HTTP process ended. A stop of the whole process group (systemd's
 * KillMode=control-group, a container's init, kill -TERM -PGID) gives it
 * SIGTERM too, and it may end before we see ours, or a supervisor may
 * signal it first: a stop signal within a second makes it a clean stop.
 * Without one, it died on its own: an error.
 */
static int web_child_ended(struct privsep *ps, const sigset_t *sigs)
{
	struct timespec grace = { .tv_sec = 1 };
	siginfo_t si;
	int sig;

	do
		sig = sigtimedwait(sigs, &si, &grace);
	while (sig == SIGHUP);
	if (stop_signal(sig, &si))
		return EXIT_OK;
	log_msg(LOG_LVL_ERROR, "the HTTP server process (pid %d) ended or broke the protocol: "
		"stopping", ps->child);
	return EXIT_RUNTIME;
}

/*
 * Until SIGTERM or SIGINT (blocked in every thread): answers the HTTP
 * child's requests and flushes every second. EXIT_OK, or EXIT_RUNTIME
 * when the child is gone on its own.
 */
static int serve_until_stop(struct exporter *x, struct privsep *ps, const sigset_t *sigs)
{
	uint64_t flushed = mono_ns();

	for (;;) {
		struct timespec now = { 0 };
		siginfo_t si;

		if (stop_signal(sigtimedwait(sigs, &si, &now), &si))
			return EXIT_OK;
		if (privsep_serve(ps, 200, metrics_body, x))
			return web_child_ended(ps, sigs);
		if (mono_ns() - flushed >= 1000000000ull) {
			pthread_mutex_lock(&x->lock);
			engine_flush(x->s->engine, ENGINE_FLUSH_IDLE_NS);
			pthread_mutex_unlock(&x->lock);
			flushed = mono_ns();
		}
	}
}

static int run_exporter(struct session *s, void *args)
{
	struct exporter_args *a = args;
	struct exporter x = { .s = s, .a = a, .lock = PTHREAD_MUTEX_INITIALIZER };
	int ret, child;

	/*
	 * A daemon that reads the per-file map whole at every scrape: its
	 * large buffers (snapshot, top-files baseline, body) come and go.
	 * glibc raises its mmap threshold after the first such free and
	 * serves the next ones from the heap, which then grows in steps by
	 * fragmentation (measured in tests/exporter/soak.sh: +3 to +6 MB over
	 * a million files, at random points). A fixed threshold keeps every
	 * buffer over 128 KiB its own mapping, returned to the kernel when
	 * freed: RSS stays where the map's size puts it.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	textbuf_init(&x.body, EXPORTER_MAX_BODY);
	fill_prom_ctx(&x);
	log_msg(LOG_LVL_INFO, "accounting level \"%s\"", accounting_level_names[a->so.accounting]);
	privsep_ready(&a->ps);
	log_msg(LOG_LVL_INFO, "ready (pid %d): serving %s://%s/metrics%s from pid %d as uid %u",
		getpid(), a->wc.cert_pem ? "https" : "http", a->listen,
		a->wc.nusers ? " (basic authentication)" : "", a->ps.child,
		(unsigned int)a->web_uid);
	/* systemd (Type=notify): started once attached; a no-op elsewhere */
	sd_notifyf(0, "READY=1\nSTATUS=serving %s, accounting level %s\nMAINPID=%d",
		   a->listen, accounting_level_names[a->so.accounting], getpid());
	ret = serve_until_stop(&x, &a->ps, &a->sigs);
	sd_notify(0, "STOPPING=1");
	child = privsep_stop(&a->ps);
	if (child && ret == EXIT_OK)
		log_msg(LOG_LVL_WARN, "the HTTP server process exited with %d", child);
	web_config_free(&a->wc);
	textbuf_free(&x.body);
	log_msg(LOG_LVL_INFO, "stopped after %llu scrapes", (unsigned long long)x.scrapes);
	return ret;
}

static struct privsep *web_child;

/* Whatever the exit (a failed attach returns from main): the child too. */
static void stop_web_child(void)
{
	if (web_child)
		privsep_stop(web_child);
}

/*
 * The HTTP server's process (exporter_privsep.h), forked before anything
 * is attached, so that it never holds a BPF object: nobody (or uid 65534)
 * with no capability.
 */
static int start_web_child(struct exporter_args *a)
{
	struct http_opts ho = {
		.listen_fd = a->fd, .family = a->addr.ss_family, .limits = a->limits,
		.wc = &a->wc,
	};
	struct passwd *pw = getpwnam(EXPORTER_WEB_USER);
	char err[256];
	int ret;

	a->web_uid = pw ? pw->pw_uid : 65534;
	a->web_gid = pw ? pw->pw_gid : 65534;
	ret = privsep_start(&a->ps, &ho, a->web_uid, a->web_gid, err, sizeof(err));
	if (ret) {
		log_msg(LOG_LVL_ERROR, "cannot start the HTTP server's process: %s", err);
		return ret == -EPERM ? EXIT_PRIVILEGE : EXIT_RUNTIME;
	}
	a->fd = -1;	/* the child's now */
	web_child = &a->ps;
	atexit(stop_web_child);
	return EXIT_OK;
}

/*
 * Before the session attaches: signals blocked in every thread to come
 * (taken synchronously by wait_for_stop(); a SIGTERM during attach waits
 * and stops us right after), and the port bound, so that a taken port
 * fails fast with nothing attached.
 */
static int prepare_exporter(void *args)
{
	struct exporter_args *a = args;
	char err[768];
	int ret;

	if (!a->addrlen)
		parse_listen(a->listen, &a->addr, &a->addrlen);
	/* read as root, before anything is attached: a bad file is a usage error */
	if (a->web_config_file &&
	    web_config_load(a->web_config_file, &a->wc, err, sizeof(err))) {
		log_msg(LOG_LVL_ERROR, "--web.config.file %s", err);
		return EXIT_USAGE;
	}
	sigemptyset(&a->sigs);
	sigaddset(&a->sigs, SIGTERM);
	sigaddset(&a->sigs, SIGINT);
	sigaddset(&a->sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &a->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	ret = open_listener(a, &a->fd);
	return ret ? ret : start_web_child(a);
}

static struct exporter_args exporter_args = {
	.so.mode = MODE_AUTO,
	.listen = EXPORTER_DEFAULT_LISTEN,
	.cache_seconds = 0.5,
	.cgroup_top = EXPORTER_CGROUP_TOP,
	.so.accounting = ACCOUNTING_ALWAYS_ON,	/* kept attached for days */
	.fd = -1,
	.limits = {
		.max = EXPORTER_MAX_CONNECTIONS,
		.per_addr = EXPORTER_MAX_PER_ADDR,
		.deadline_s = EXPORTER_REQUEST_TIMEOUT_S,
	},
};

static const struct argp exporter_argp = {
	.options = exporter_options, .parser = exporter_parse,
};

const struct command exporter_command = {
	.name = "exporter",
	.help = "serve the counters to Prometheus on /metrics",
	.doc = "Serve the counters to Prometheus on /metrics until SIGTERM.",
	.argp = &exporter_argp,
	.args = &exporter_args,
	.session = &exporter_args.so,
	.prepare = prepare_exporter,
	.run = run_exporter,
};
