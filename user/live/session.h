/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every observing subcommand does first: check privileges and BTF,
 * gather facts, build the plan, resolve the target filesystem, open the
 * engine; and the signal flag they all share. Returns exit codes.
 */
#ifndef IOMAPDIRTY_SESSION_H
#define IOMAPDIRTY_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include "live/engine.h"
#include "live/facts.h"
#include "host/fsinfo.h"
#include "live/plan.h"
#include "output/report.h"

struct session_opts {
	int mode;		/* MODE_AUTO or enum mechanism */
	const char *mount;	/* --mount PATH */
	const char *dev;	/* --dev MAJ:MIN */
	uint32_t tgid;
	const char *comm;
	uint32_t max_pages;
	bool quiet;		/* no plan on stderr */
	bool shared;		/* run alongside another instance */
	bool verify;		/* match bios to submitted data */
	uint32_t simulate_clean_every;
	bool simulate_unseen_bios;
	enum accounting_level accounting;	/* --accounting (exporter: always-on) */
	uint64_t cgroup_id;	/* run: only this cgroup v2's writes (user/host/cgroup.h) */
	uint32_t cgroup_level;
	const char *cgroup_option;	/* "--cgroup" or "--unit": which chose cgroup_id */
	bool count_others;	/* run: what other cgroups write, apart */
	bool cgroup_sums;	/* exporter --collector.cgroup */
};

struct session {
	struct kfacts facts;
	struct plan plan;
	struct fsinfo fs;	/* valid when fs.dev != 0 */
	struct engine *engine;	/* attached; NULL before and after */
	struct report_ctx report;	/* what the reports say of the plan and target */
	int lock_fd;
};

extern volatile sig_atomic_t session_exiting;
extern volatile sig_atomic_t session_signal;
extern volatile sig_atomic_t session_signal_pid;	/* sender, 0 for a tty */
extern volatile sig_atomic_t session_signals;		/* how many so far */

void session_install_signals(void);
/* One more signal that ends the session as SIGINT does. */
void session_catch_signal(int sig);
/* Sleeps up to 'seconds'; returns early when a signal asked to exit. */
void session_sleep(double seconds);
/* 0, or -EPERM with a message in err. */
int session_check_privileges(char *err, size_t len);
int session_start(struct session *s, const struct session_opts *o);
void session_stop(struct session *s);
/*
 * Once attached: keeps only the capabilities in keep (caps.h). A failure
 * is reported on stderr and the session goes on with what it has.
 */
void session_drop_caps(uint64_t keep);

#endif
