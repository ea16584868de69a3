// SPDX-License-Identifier: GPL-2.0
/*
 * Which BPF helpers the kernel gives tracing programs, asked of the kernel
 * itself: a two-instruction program calling the helper is loaded, and the
 * verifier's answer read. A kernel built without CONFIG_CGROUPS (the
 * lab's 6.1 guests) answers "unknown func" for the cgroup id helpers and
 * refuses any program that calls them, even in a branch never taken; the
 * result becomes the cgroup_helpers setting (bpf/settings.bpf.h), which
 * lets the verifier drop those calls.
 *
 * raw_tp stands for every program type the plan uses (fentry/fexit,
 * tp_btf, kprobe, raw_tp): the kernel hands all of them the same
 * bpf_tracing_func_proto(), where both helpers sit behind CONFIG_CGROUPS.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "live/facts.h"

const char *const fact_helper_names[NR_FACT_HELPERS] = {
	[HELPER_CGROUP_ID] = "get_current_cgroup_id",
	[HELPER_ANCESTOR_CGROUP_ID] = "get_current_ancestor_cgroup_id",
};

static const int helper_ids[NR_FACT_HELPERS] = {
	[HELPER_CGROUP_ID] = BPF_FUNC_get_current_cgroup_id,
	[HELPER_ANCESTOR_CGROUP_ID] = BPF_FUNC_get_current_ancestor_cgroup_id,
};

/* 1: the kernel takes it, 0: the verifier does not know it, -errno: no answer */
static int probe_helper(int id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), &opts);
	int err = -errno;

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	/* "unknown func bpf_x#N": compiled out; "invalid func": a kernel older than it */
	if (strstr(log, "unknown func ") || strstr(log, "invalid func "))
		return 0;
	return err ? err : -EINVAL;
}

void facts_probe_helpers(struct kfacts *f)
{
	for (int i = 0; i < NR_FACT_HELPERS; i++) {
		int r = probe_helper(helper_ids[i]);

		f->helpers[i] = r > 0 ? 1 : r == 0 ? 0 : -1;
		f->helper_errno[i] = r < 0 ? -r : 0;
	}
}

int facts_cgroup_ids(const struct kfacts *f, char *why, size_t len)
{
	const char *missing = NULL, *unknown = NULL;
	int err = 0;

	why[0] = '\0';
	for (int i = 0; i < NR_FACT_HELPERS; i++) {
		if (f->helpers[i] == 0 && !missing)
			missing = fact_helper_names[i];
		if (f->helpers[i] < 0 && !unknown) {
			unknown = fact_helper_names[i];
			err = f->helper_errno[i];
		}
	}
	if (missing) {
		snprintf(why, len, "the kernel gives BPF programs no bpf_%s (built "
			 "without CONFIG_CGROUPS): writers' cgroups are unknown", missing);
		return 0;
	}
	if (unknown) {
		snprintf(why, len, "bpf_%s not probed: %s", unknown,
			 err ? strerror(err) : "absent from the facts file");
		return -1;
	}
	return 1;
}

int facts_cgroup_ids_live(char *why, size_t len)
{
	static struct kfacts f;

	facts_init(&f);
	facts_probe_helpers(&f);
	return facts_cgroup_ids(&f, why, len);
}
