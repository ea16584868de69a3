/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BTF of a loaded kernel module. Code built as a module (XFS in
 * Debian's kernels) has its types and its tracepoints' btf_trace_<name>
 * typedefs in /sys/kernel/btf/<module>, split on vmlinux's BTF, not in
 * vmlinux's; a program bound to one is loaded with the module's BTF
 * object fd (attach_btf_obj_fd).
 */
#ifndef IOMAPDIRTY_BTF_MODULE_H
#define IOMAPDIRTY_BTF_MODULE_H

struct btf;


#endif
