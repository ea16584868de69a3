/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trial attaches: load a two-instruction program and attach it, so the
 * plan is decided by what this kernel really allows (BTF without a
 * trampoline, a policy refusing tracing programs, kprobes not built in),
 * not by what its symbols suggest. Each returns 0 or a negative errno.
 */
#ifndef IOMAPDIRTY_TRIAL_H
#define IOMAPDIRTY_TRIAL_H

struct btf;

int trial_fentry(const struct btf *vmlinux, const char *func);
int trial_kprobe(const char *func);
int trial_raw_tp(const char *tp);
/* btf: vmlinux's, or a module's split BTF and its object fd (else 0) */
int trial_tp_btf(const struct btf *btf, int obj_fd, const char *tp);

#endif
