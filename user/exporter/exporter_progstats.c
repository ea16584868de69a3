// SPDX-License-Identifier: GPL-2.0
/* The BPF programs' run statistics on /metrics: see exporter_progstats.h. */
#include <stddef.h>
#include <stdio.h>
#include "exporter/exporter_progstats.h"

#define NS		"iomapdirty_"
#define MAX_PROGS	128

/* 1, 0, or -1 when the sysctl cannot be read (a kernel before 5.1). */
static int stats_enabled(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void family(struct textbuf *tb, const char *name, const char *type, const char *help)
{
	textbuf_printf(tb, "# HELP " NS "%s %s\n# TYPE " NS "%s %s\n", name, help, name, type);
}

/* One counter family, a series per program: the figure at off in its stats. */
static void per_program(struct textbuf *tb, const struct engine_prog_stats *ps, int n,
			const char *name, const char *help, size_t off, bool ns_to_s)
{
	family(tb, name, "counter", help);
	for (int i = 0; i < n; i++) {
		uint64_t v = *(const uint64_t *)((const char *)&ps[i] + off);

		if (ns_to_s)
			textbuf_printf(tb, NS "%s{program=\"%s\"} %.9f\n", name, ps[i].name,
				       v / 1e9);
		else
			textbuf_printf(tb, NS "%s{program=\"%s\"} %llu\n", name, ps[i].name,
				       (unsigned long long)v);
	}
}

void progstats_render(struct engine *e, struct textbuf *tb)
{
	struct engine_prog_stats ps[MAX_PROGS];
	int n = engine_prog_stats(e, ps, MAX_PROGS), enabled = stats_enabled();

	family(tb, "bpf_stats_enabled", "gauge",
	       "kernel.bpf_stats_enabled: 1 when the kernel counts BPF programs' run time and "
	       "runs (bpf_program_run_seconds_total, bpf_program_runs_total: only exported "
	       "then); 0: not counted, and this exporter never turns it on (sysctl "
	       "kernel.bpf_stats_enabled=1 does, at a few ns per program run); -1: unknown");
	textbuf_printf(tb, NS "bpf_stats_enabled %d\n", enabled);
	if (enabled == 1) {
		per_program(tb, ps, n, "bpf_program_run_seconds_total", "Time the kernel spent "
			    "running this program since it was loaded (while "
			    "kernel.bpf_stats_enabled was 1)",
			    offsetof(struct engine_prog_stats, run_time_ns), true);
		per_program(tb, ps, n, "bpf_program_runs_total", "Runs of this program since "
			    "it was loaded (while kernel.bpf_stats_enabled was 1)",
			    offsetof(struct engine_prog_stats, run_cnt), false);
	}
	per_program(tb, ps, n, "bpf_program_recursion_misses_total", "Runs of this program "
		    "the kernel skipped because it was already running on the CPU (events "
		    "lost to the program)", offsetof(struct engine_prog_stats, recursion_misses),
		    false);
}
