// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP server (user/exporter/exporter_http.c) alone, with a fixed
 * /metrics body and no BPF: tests/exporter/web.sh puts slow and hostile
 * clients against it without attaching anything (no instance lock).
 *
 * usage: http_serve PORT DEADLINE_S MAX PER_ADDR [WEB_CONFIG]
 * Prints "ready (pid N)" on stderr once serving; stops on SIGTERM. With
 * HTTP_SERVE_NOT_READY set, /-/ready stays 503 (an exporter attaching).
 * With HTTP_SERVE_PRIVSEP set, as the exporter serves: the server in a
 * child as nobody without capabilities (exporter_privsep.c), the body
 * from this process; "child (pid N)" on stderr.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "exporter/exporter_http.h"
#include "exporter/exporter_privsep.h"

static int fixed_body(void *data, struct textbuf *out)
{
	textbuf_printf(out, "# TYPE http_serve_body gauge\nhttp_serve_body 1\n");
	return 0;
}


static int privsep_main(struct http_opts *o)
{
	struct privsep ps;
	char err[256];
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (privsep_start(&ps, o, 65534, 65534, err, sizeof(err))) {
		fprintf(stderr, "http_serve: %s\n", err);
		return 6;
	}
	privsep_ready(&ps);
	fprintf(stderr, "http_serve: child (pid %d)\nhttp_serve: ready (pid %d)\n", ps.child,
		getpid());
	for (;;) {
		struct timespec now = { 0 };

		if (privsep_serve(&ps, 200, fixed_body, NULL) || sigtimedwait(&sigs, NULL, &now) > 0)
			break;
	}
	return privsep_stop(&ps);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct web_config wc = {};
	struct http_opts o = { .family = AF_INET, .metrics = fixed_body };
	struct http_server *h;
	char err[512];
	sigset_t sigs;
	int one = 1, sig;

	if (argc < 5)
		return 2;
	if (argc > 5 && web_config_load(argv[5], &wc, err, sizeof(err))) {
		fprintf(stderr, "http_serve: %s\n", err);
		return 2;
	}
	sa.sin_port = htons(atoi(argv[1]));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	o.limits = (struct conn_limits){ .deadline_s = atoi(argv[2]), .max = atoi(argv[3]),
					 .per_addr = atoi(argv[4]) };
	o.wc = &wc;
	o.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(o.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(o.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(o.listen_fd, 1024)) {
		perror("http_serve: bind");
		return 7;
	}
	if (getenv("HTTP_SERVE_PRIVSEP"))
		return privsep_main(&o);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	h = http_start(&o, err, sizeof(err));
	if (!h) {
		fprintf(stderr, "http_serve: %s\n", err);
		return 6;
	}
	if (!getenv("HTTP_SERVE_NOT_READY"))	/* as before the exporter attached */
		http_set_ready(h);
	fprintf(stderr, "http_serve: ready (pid %d)\n", getpid());
	sigwait(&sigs, &sig);
	http_stop(h);
	web_config_free(&wc);
	return 0;
}
