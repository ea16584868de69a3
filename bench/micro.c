// SPDX-License-Identifier: GPL-2.0
/*
 * micro: attaches the programs of micro.bpf.c with the kernel's BPF
 * statistics on (BPF_ENABLE_STATS, for as long as it runs), prints
 * "micro: ready" on stderr, and on SIGINT/SIGTERM one JSON line per
 * program: {"program", "run_cnt", "run_time_ns"}.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "micro.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = 1; }

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

int main(void)
{
	struct micro_bpf *skel;
	struct bpf_program *prog;
	int stats_fd;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(quiet);
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "micro: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	skel = micro_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "micro: cannot load: %s\n", strerror(errno));
		return 1;
	}
	if (micro_bpf__attach(skel)) {
		fprintf(stderr, "micro: cannot attach: %s\n", strerror(errno));
		micro_bpf__destroy(skel);
		return 1;
	}
	fprintf(stderr, "micro: ready (pid %d)\n", getpid());
	while (!stop)
		pause();
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		printf("{\"program\": \"%s\", \"run_cnt\": %llu, \"run_time_ns\": %llu}\n",
		       bpf_program__name(prog), (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
	}
	micro_bpf__destroy(skel);
	close(stats_fd);
	return 0;
}
