#!/usr/bin/env bash
# Writes deploy/seccomp/iomapdirty.json: the container runtime's default
# seccomp profile (containers-common's /usr/share/containers/seccomp.json,
# podman's and CRI-O's default; Debian 12: golang-github-containers-common)
# with exactly the system calls below allowed without CAP_SYS_ADMIN.
# Everything else is the default's, rule for rule: those two names are
# taken out of its CAP_SYS_ADMIN-gated allow and its EPERM rule, and one
# unconditional allow rule for them is appended.
#
#   bpf              measured (tests/package/run.sh, docs/fleet.md): with
#                    CAP_BPF+CAP_PERFMON the default profile refuses it
#                    (EPERM) and it is the only call it refuses the
#                    exporter; strace of the container showed the same
#                    failing calls as unconfined once it was allowed
#   perf_event_open  kprobe mode (user/live/trial.c, libbpf's kprobe attach),
#                    for kernels without the tracepoints; not exercised
#                    here (this kernel has no kprobes)
#
# usage: scripts/seccomp-profile.sh [DEFAULT.json] >deploy/seccomp/iomapdirty.json
set -euo pipefail
default=${1:-/usr/share/containers/seccomp.json}
jq --indent 1 --argjson add '["bpf", "perf_event_open"]' '
	def gated: .action != "SCMP_ACT_ALLOW" or (.includes // {}) != {} or
		(.excludes // {}) != {};
	.syscalls |= (map(if gated then .names -= $add else . end) |
		map(select(.names != [])) +
		[{names: $add, action: "SCMP_ACT_ALLOW", args: [], includes: {}, excludes: {},
		  comment: "iomapdirty: BPF programs with CAP_BPF and CAP_PERFMON, without CAP_SYS_ADMIN (scripts/seccomp-profile.sh)"}])
' "$default"
