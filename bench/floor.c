// SPDX-License-Identifier: GPL-2.0
/*
 * floor: attaches the empty programs of floor.bpf.c (raw_tp and tp_btf) to
 * the tracepoints iomapdirty uses, prints "floor: ready" on stderr, and on
 * SIGINT/SIGTERM prints one JSON line per program: {"program", "type",
 * "tracepoint", "id", "run_cnt", "run_time_ns"}. A tp_btf program the
 * kernel refuses is reported on stderr and left out.
 *
 *   floor [--stats]
 *
 * --stats turns on the kernel's BPF run-time statistics for as long as
 * floor runs (BPF_ENABLE_STATS: the kernel turns them off again when the
 * last holder's fd closes, even if floor is killed), so no sysctl has to
 * be restored. Without it the statistics are on only if something else
 * turned them on (kernel.bpf_stats_enabled).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = 1; }

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* "raw_tp/NAME" or "tp_btf/NAME" -> NAME */
static const char *tracepoint_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *slash = strchr(sec, '/');

	return slash ? slash + 1 : sec;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *links[16];
	int stats_fd = -1, nattached = 0;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--stats"))) {
		fprintf(stderr, "usage: floor [--stats]\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(quiet);
	if (argc == 2) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "floor: BPF_ENABLE_STATS: %s\n", strerror(errno));
			return 1;
		}
	}
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open: %s\n", strerror(errno));
		return 1;
	}
	if (floor_bpf__load(skel)) {
		/* tp_btf refused (policy, old kernel): measure raw_tp alone */
		fprintf(stderr, "floor: cannot load with tp_btf: %s; raw_tp only\n",
			strerror(errno));
		floor_bpf__destroy(skel);
		skel = floor_bpf__open();
		if (!skel)
			return 1;
		bpf_object__for_each_program(prog, skel->obj)
			if (bpf_program__type(prog) != BPF_PROG_TYPE_RAW_TRACEPOINT)
				bpf_program__set_autoload(prog, false);
		if (floor_bpf__load(skel)) {
			fprintf(stderr, "floor: cannot load: %s\n", strerror(errno));
			floor_bpf__destroy(skel);
			return 1;
		}
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *tp = tracepoint_of(prog);
		struct bpf_link *link;

		if (bpf_program__fd(prog) < 0)
			continue;
		link = bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ?
			bpf_program__attach_trace(prog) :
			bpf_program__attach_raw_tracepoint(prog, tp);
		if (!link)
			fprintf(stderr, "floor: %s: cannot attach: %s\n", tp, strerror(errno));
		else if (nattached < 16)
			links[nattached++] = link;
	}
	if (!nattached) {
		floor_bpf__destroy(skel);
		return 1;
	}
	fprintf(stderr, "floor: ready (pid %d, %d programs)\n", getpid(), nattached);
	while (!stop)
		pause();
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		printf("{\"program\": \"%s\", \"type\": \"%s\", \"tracepoint\": \"%s\", "
		       "\"id\": %u, \"run_cnt\": %llu, \"run_time_ns\": %llu}\n",
		       bpf_program__name(prog),
		       bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ? "tp_btf" : "raw_tp",
		       tracepoint_of(prog), info.id,
		       (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
	}
	for (int i = 0; i < nattached; i++)
		bpf_link__destroy(links[i]);
	floor_bpf__destroy(skel);
	if (stats_fd >= 0)
		close(stats_fd);
	return 0;
}
