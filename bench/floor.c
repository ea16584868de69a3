// SPDX-License-Identifier: GPL-2.0
/*
 * floor: attaches the empty programs of floor.bpf.c (raw_tp and tp_btf) to
 * the tracepoints iomapdirty uses, prints "floor: ready" on stderr, and on
 * SIGINT/SIGTERM prints one JSON line per attached program: {"program",
 * "type", "tracepoint", "id", "run_cnt", "run_time_ns"}.
 *
 *   floor [--stats] [--type=tp_btf|raw_tp|both]
 *
 * --stats turns on the kernel's BPF run-time statistics for as long as
 * floor runs (BPF_ENABLE_STATS: the kernel turns them off again when the
 * last holder's fd closes, even if floor is killed), so no sysctl has to
 * be restored. Without it the statistics are on only if something else
 * turned them on (kernel.bpf_stats_enabled).
 *
 * --type picks the programs: tp_btf or raw_tp alone, or both (default).
 * A program the kernel refuses (at load or attach) is named on stderr
 * ("floor: refused: TYPE/TRACEPOINT ...") and left out; no other type is
 * put in its place. floor exits 1 when no program is attached.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

#define MAX_PROGS 16

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = 1; }

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "floor: %s\n", why);
	fprintf(stderr, "usage: floor [--stats] [--type=tp_btf|raw_tp|both]\n");
	return 2;
}

/* "raw_tp/NAME" or "tp_btf/NAME" -> NAME */
static const char *tracepoint_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *slash = strchr(sec, '/');

	return slash ? slash + 1 : sec;
}

static const char *type_of(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ? "tp_btf" : "raw_tp";
}

enum { WANT_RAW_TP = 1, WANT_TP_BTF = 2, WANT_BOTH = 3 };

static bool wanted(const struct bpf_program *prog, int want)
{
	return want & (bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ?
		       WANT_TP_BTF : WANT_RAW_TP);
}

/*
 * Opens the skeleton with only the programs whose bit is set in mask (in
 * the object's program order) set to load, and loads it. NULL on failure,
 * errno set.
 */
static struct floor_bpf *open_load(unsigned int mask)
{
	struct floor_bpf *skel = floor_bpf__open();
	struct bpf_program *prog;
	int i = 0, err;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(prog, skel->obj) {
		bpf_program__set_autoload(prog, i < MAX_PROGS && (mask >> i & 1));
		i++;
	}
	if (floor_bpf__load(skel)) {
		err = errno;
		floor_bpf__destroy(skel);
		errno = err;
		return NULL;
	}
	return skel;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *links[MAX_PROGS] = {};
	unsigned int mask = 0, ok = 0;
	int stats = 0, want = WANT_BOTH, type_set = 0;
	int stats_fd = -1, nattached = 0, nprogs = 0, nrefused = 0, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--stats") && !stats) {
			stats = 1;
		} else if (!strncmp(a, "--type=", 7) && !type_set) {
			type_set = 1;
			if (!strcmp(a + 7, "tp_btf"))
				want = WANT_TP_BTF;
			else if (!strcmp(a + 7, "raw_tp"))
				want = WANT_RAW_TP;
			else if (!strcmp(a + 7, "both"))
				want = WANT_BOTH;
			else {
				fprintf(stderr, "floor: bad --type '%s': tp_btf, raw_tp or both\n",
					a + 7);
				return usage(NULL);
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(NULL);
			return 0;
		} else {
			fprintf(stderr, "floor: bad or repeated argument '%s'\n", a);
			return usage(NULL);
		}
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(quiet);
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "floor: BPF_ENABLE_STATS: %s\n", strerror(errno));
			return 1;
		}
	}
	/* the programs of the requested type(s) */
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		if (nprogs < MAX_PROGS && wanted(prog, want))
			mask |= 1u << nprogs;
		nprogs++;
	}
	floor_bpf__destroy(skel);
	if (!mask) {
		fprintf(stderr, "floor: no program of the requested type\n");
		return 1;
	}
	skel = open_load(mask);
	if (!skel) {
		/*
		 * The kernel refused one of them (tp_btf: policy, old kernel):
		 * load each alone to name the refused ones, then the others.
		 */
		fprintf(stderr, "floor: cannot load all requested programs (%s): "
			"trying each alone\n", strerror(errno));
		for (i = 0; i < nprogs && i < MAX_PROGS; i++) {
			struct floor_bpf *one;
			int j = 0, err;

			if (!(mask >> i & 1))
				continue;
			one = open_load(1u << i);
			if (one) {
				ok |= 1u << i;
				floor_bpf__destroy(one);
				continue;
			}
			err = errno;
			nrefused++;
			one = floor_bpf__open();	/* for the program's name */
			if (!one) {
				fprintf(stderr, "floor: refused: program %d (load: %s)\n",
					i, strerror(err));
				continue;
			}
			bpf_object__for_each_program(prog, one->obj)
				if (j++ == i)
					fprintf(stderr, "floor: refused: %s/%s (load: %s)\n",
						type_of(prog), tracepoint_of(prog), strerror(err));
			floor_bpf__destroy(one);
		}
		skel = ok ? open_load(ok) : NULL;
		if (!skel) {
			fprintf(stderr, "floor: no program could be loaded%s%s\n",
				ok ? ": " : "", ok ? strerror(errno) : "");
			return 1;
		}
	}
	i = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		const char *tp = tracepoint_of(prog);
		int k = i++;

		if (bpf_program__fd(prog) < 0 || k >= MAX_PROGS)
			continue;
		links[k] = bpf_program__type(prog) == BPF_PROG_TYPE_TRACING ?
			bpf_program__attach_trace(prog) :
			bpf_program__attach_raw_tracepoint(prog, tp);
		if (!links[k]) {
			fprintf(stderr, "floor: refused: %s/%s (attach: %s)\n",
				type_of(prog), tp, strerror(errno));
			nrefused++;
		} else {
			nattached++;
		}
	}
	if (!nattached) {
		fprintf(stderr, "floor: no program attached\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	if (nrefused)
		fprintf(stderr, "floor: %d requested program(s) refused, left out\n", nrefused);
	fprintf(stderr, "floor: ready (pid %d, %d programs)\n", getpid(), nattached);
	while (!stop)
		pause();
	i = 0;
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int k = i++;

		if (k >= MAX_PROGS || !links[k] ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		printf("{\"program\": \"%s\", \"type\": \"%s\", \"tracepoint\": \"%s\", "
		       "\"id\": %u, \"run_cnt\": %llu, \"run_time_ns\": %llu}\n",
		       bpf_program__name(prog), type_of(prog), tracepoint_of(prog), info.id,
		       (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
	}
	for (i = 0; i < MAX_PROGS; i++)
		bpf_link__destroy(links[i]);
	floor_bpf__destroy(skel);
	if (stats_fd >= 0)
		close(stats_fd);
	return 0;
}
