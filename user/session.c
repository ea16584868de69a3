// SPDX-License-Identifier: GPL-2.0
/* Common start-up of the observing subcommands: see session.h. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include "exitcodes.h"
#include "session.h"

volatile sig_atomic_t session_exiting;
volatile sig_atomic_t session_signal;

static void on_signal(int sig)
{
	session_exiting = 1;
	session_signal = sig;
}

void session_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void session_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	/* a signal interrupts nanosleep; the handler has set the flag */
	while (!session_exiting && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int session_check_privileges(char *err, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (geteuid() == 0)
		return 0;
	if (syscall(SYS_capget, &hdr, data) == 0 &&
	    (has_cap(data, 21 /* CAP_SYS_ADMIN */) ||
	     (has_cap(data, 39 /* CAP_BPF */) && has_cap(data, 38 /* CAP_PERFMON */))))
		return 0;
	snprintf(err, len, "loading BPF programs needs root, or CAP_BPF with "
		 "CAP_PERFMON (or CAP_SYS_ADMIN)");
	return -1;
}

static void print_plan_line(const struct plan *p)
{
	fprintf(stderr, "iomapdirty: kernel family %c (%s)\n", p->family, p->family_desc);
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		if (!h->chosen)
			continue;
		fprintf(stderr, "iomapdirty: %-17s %-10s %s\n", hook_names[i],
			h->mech < 0 ? "derived" : mech_names[h->mech], h->target);
	}
}

int session_start(struct session *s, const struct session_opts *o)
{
	struct engine_opts eo = {
		.tgid = o->tgid, .comm = o->comm, .max_pages = o->max_pages,
	};
	char err[512];
	int ret;

	memset(s, 0, sizeof(*s));
	if (session_check_privileges(err, sizeof(err))) {
		fprintf(stderr, "iomapdirty: %s\n", err);
		return EXIT_PRIVILEGE;
	}
	if (o->mount || o->dev) {
		ret = o->mount ? fsinfo_from_path(o->mount, &s->fs, err, sizeof(err)) :
				 fsinfo_from_dev(o->dev, &s->fs, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "iomapdirty: %s\n", err);
			return ret == -2 ? EXIT_USAGE : EXIT_BAD_TARGET;
		}
		eo.dev = s->fs.dev;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "iomapdirty: this kernel has no BTF "
			"(/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF=y is needed)\n");
		return EXIT_UNSUPPORTED;
	}
	facts_gather(&s->facts, true);
	if (plan_build(&s->facts, o->mode, &s->plan)) {
		fprintf(stderr, "iomapdirty: %s\n", s->plan.error);
		fprintf(stderr, "iomapdirty: see `iomapdirty probes` for the full plan\n");
		return EXIT_UNSUPPORTED;
	}
	if (!o->quiet)
		print_plan_line(&s->plan);
	ret = engine_open(&s->engine, &s->plan, &eo, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "iomapdirty: %s\n", err);
		return ret == -EPERM || ret == -EACCES ? EXIT_PRIVILEGE : EXIT_RUNTIME;
	}
	s->engine_open = true;
	return EXIT_OK;
}

void session_stop(struct session *s)
{
	if (s->engine_open)
		engine_close(&s->engine);
	s->engine_open = false;
}
