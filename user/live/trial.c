// SPDX-License-Identifier: GPL-2.0
/* Trial attaches: see trial.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "live/trial.h"

static const struct bpf_insn return_zero[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int load_trivial(enum bpf_prog_type type, struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, NULL, "GPL", return_zero, 2, opts);

	return fd < 0 ? -errno : fd;
}

/* The attach's outcome (link, or -1 and errno); closes both. */
static int trial_end(int prog, int link)
{
	int ret = link < 0 ? -errno : 0;

	if (link >= 0)
		close(link);
	close(prog);
	return ret;
}

/*
 * Loads a trivial BPF_PROG_TYPE_TRACING program bound to the BTF object
 * 'name' of kind 'kind' and attaches it: fentry to a function, or tp_btf
 * (BPF_TRACE_RAW_TP) to a tracepoint's btf_trace_<name> typedef.
 */
static int trial_tracing(const struct btf *vmlinux, int obj_fd, const char *name, int kind,
			 enum bpf_attach_type type)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type,
		    .attach_btf_obj_fd = obj_fd);
	int id, prog, link;

	if (!vmlinux)
		return -ENOENT;
	id = btf__find_by_name_kind(vmlinux, name, kind);
	if (id <= 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	prog = load_trivial(BPF_PROG_TYPE_TRACING, &opts);
	if (prog < 0)
		return prog;
	link = type == BPF_TRACE_RAW_TP ? bpf_raw_tracepoint_open(NULL, prog) :
		bpf_link_create(prog, 0, type, NULL);
	return trial_end(prog, link);
}

int trial_fentry(const struct btf *vmlinux, const char *func)
{
	return trial_tracing(vmlinux, 0, func, BTF_KIND_FUNC, BPF_TRACE_FENTRY);
}

/* A kprobe perf event without any BPF: does the kernel let us probe it? */
int trial_kprobe(const char *func)
{
	struct perf_event_attr attr = {};
	char buf[32] = {};
	int type, fd, n;
	int tfd = open("/sys/bus/event_source/devices/kprobe/type", O_RDONLY | O_CLOEXEC);

	if (tfd < 0)
		return -ENOENT;
	n = read(tfd, buf, sizeof(buf) - 1);
	close(tfd);
	if (n <= 0)
		return -EIO;
	type = atoi(buf);
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;	/* kprobe_func */
	attr.config2 = 0;				/* offset */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int trial_raw_tp(const char *tp)
{
	int prog;

	prog = load_trivial(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL);
	if (prog < 0)
		return prog;
	return trial_end(prog, bpf_raw_tracepoint_open(tp, prog));
}

/*
 * A tp_btf program: the same tracepoint, its arguments typed from the
 * kernel's btf_trace_<name> typedef. Some kernels or policies allow
 * raw_tp but refuse BPF_PROG_TYPE_TRACING (as they do fentry).
 */
int trial_tp_btf(const struct btf *btf, int obj_fd, const char *tp)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return trial_tracing(btf, obj_fd, name, BTF_KIND_TYPEDEF, BPF_TRACE_RAW_TP);
}
