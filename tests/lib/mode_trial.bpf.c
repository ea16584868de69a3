// SPDX-License-Identifier: GPL-2.0
/*
 * Trivial programs for mode_trial.c: one fentry program, to ask the kernel
 * itself (not iomapdirty) whether it lets this host load and attach one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("fentry/vfs_fsync_range")
int BPF_PROG(mode_trial_fentry)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
