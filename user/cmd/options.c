// SPDX-License-Identifier: GPL-2.0
/* Options shared by the observing subcommands. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model/accounting.h"
#include "host/cgroup.h"
#include "cmd/commands.h"
#include "host/fsinfo.h"

enum {
	OPT_COMM = 0x100,
	OPT_MODE,
	OPT_MAX_PAGES,
	OPT_SHARED,
	OPT_ACCOUNTING,
	OPT_ROOTFS,
	OPT_CGROUP,
	OPT_UNIT,
};

static const struct argp_option filter_options[] = {
	{ "mount", 'm', "PATH", 0, "Only the filesystem holding PATH", 1 },
	{ "dev", 'd', "MAJ:MIN", 0, "Only the filesystem on device MAJ:MIN", 1 },
	{ "pid", 'p', "PID", 0, "Only writes by process PID", 1 },
	{ "comm", OPT_COMM, "NAME", 0, "Only writes by processes named NAME", 1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0,
	  "Only writes by processes in the cgroup v2 PATH (under the v2 mount, or "
	  "relative to its root) and below it", 1 },
	{ "unit", OPT_UNIT, "NAME", 0,
	  "Only writes by the systemd unit NAME (its cgroup v2, found by name; "
	  "\".service\" when NAME has no suffix) and below it", 1 },
	{ "mode", OPT_MODE, "MODE", 0,
	  "auto (default), fentry, kprobe, tracepoint (tp_btf where allowed, else "
	  "raw_tp) or raw_tp", 1 },
	{ "max-pages", OPT_MAX_PAGES, "N", 0,
	  "Page records kept in the kernel (bounds memory; default 131072)", 1 },
	{ "shared", OPT_SHARED, NULL, 0,
	  "Run even if another iomapdirty instance is running", 1 },
	{ "accounting", OPT_ACCOUNTING, "LEVEL", 0,
	  "full (per-page records: application bytes per folio; default but for the "
	  "exporter) or always-on (no per-page records: application bytes per file "
	  "only, the rest from the kernel's dirty bitmap; cheapest)", 1 },
	{ "path.rootfs", OPT_ROOTFS, "DIR", 0,
	  "The host's root is mounted at DIR (in a container): mount points and paths "
	  "are the host's, from DIR/proc/1/mountinfo", 1 },
	{},
};

int parse_u64(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0.01 || v > 86400)
		return -EINVAL;
	*out = v;
	return 0;
}

/* --cgroup and --unit choose one cgroup: the second one given is refused */
static void one_cgroup_filter(struct argp_state *state, const struct session_opts *o,
			      const char *option)
{
	if (o->cgroup_option)
		argp_error(state, "%s: %s was given already: one cgroup filter", option,
			   o->cgroup_option);
}

static error_t filter_parse(int key, char *arg, struct argp_state *state)
{
	struct session_opts *o = state->input;
	unsigned long long v;
	const char *why;
	char err[8400];
	int l;

	switch (key) {
	case 'm':
		if (o->dev)
			argp_error(state, "--mount and --dev exclude each other");
		o->mount = arg;
		break;
	case 'd':
		if (o->mount)
			argp_error(state, "--mount and --dev exclude each other");
		o->dev = arg;
		break;
	case 'p':
		if (parse_u64(arg, 1, 0x7fffffff, &v))
			argp_error(state, "--pid wants a process id, got '%s'", arg);
		o->tgid = v;
		break;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			argp_error(state, "--comm wants 1 to 15 characters");
		o->comm = arg;
		break;
	case OPT_CGROUP: {
		char err[512];

		one_cgroup_filter(state, o, "--cgroup");
		if (cgroup_v2_lookup(arg, &o->cgroup_id, &o->cgroup_level, err, sizeof(err)))
			argp_error(state, "--cgroup: %s", err);
		o->cgroup_option = "--cgroup";
		break;
	}
	case OPT_UNIT: {
		char err[1300], rel[512];

		one_cgroup_filter(state, o, "--unit");
		if (cgroup_unit_lookup(arg, rel, sizeof(rel), err, sizeof(err)) ||
		    cgroup_v2_lookup(rel, &o->cgroup_id, &o->cgroup_level, err, sizeof(err)))
			argp_error(state, "--unit: %s", err);
		o->cgroup_option = "--unit";
		break;
	}
	case OPT_MODE:
		if (plan_mode_parse(arg, &o->mode))
			argp_error(state, "--mode wants auto, fentry, kprobe, "
				   "tracepoint or raw_tp, got '%s'", arg);
		break;
	case OPT_MAX_PAGES:
		if (parse_u64(arg, 1024, 1 << 26, &v))
			argp_error(state, "--max-pages wants 1024 to 67108864");
		o->max_pages = v;
		break;
	case OPT_SHARED:
		o->shared = true;
		break;
	case OPT_ACCOUNTING:
		l = accounting_level_parse(arg, &why);
		if (l < 0)
			argp_error(state, "--accounting '%s': %s", arg, why);
		o->accounting = l;
		break;
	case OPT_ROOTFS:
		if (fsinfo_set_rootfs(arg, err, sizeof(err)))
			argp_error(state, "%s", err);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp filter_argp = {
	filter_options, filter_parse, NULL, NULL, NULL, NULL, NULL,
};

static const struct argp_option sampling_options[] = {
	{ "interval", 'i', "SECONDS", 0,
	  "Report every SECONDS (default: hist 1, top 2)", 0 },
	{ "count", 'c', "COUNT", 0, "Stop after COUNT reports (default: until signalled)", 0 },
	{ NULL, 'n', NULL, OPTION_ALIAS, NULL, 0 },	/* as top(1) has it */
	{},
};

static error_t sampling_parse(int key, char *arg, struct argp_state *state)
{
	struct sampling *o = state->input;

	switch (key) {
	case 'i':
		if (parse_seconds(arg, &o->interval))
			argp_error(state, "--interval wants seconds from 0.01 to 86400, "
				   "got '%s'", arg);
		break;
	case 'c':
	case 'n':
		if (parse_u64(arg, 1, 1ull << 40, &o->count))
			argp_error(state, "--count wants a positive number, got '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp sampling_argp = {
	sampling_options, sampling_parse, NULL, NULL, NULL, NULL, NULL,
};
