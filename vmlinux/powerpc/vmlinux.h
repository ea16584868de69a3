/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmlinux.h for the BPF programs built for powerpc (`make static-ppc64le`,
 * the kernel lab's ppc64le guests).
 *
 * Types: the generic vmlinux.h (../vmlinux.h). The programs are CO-RE:
 * every field they read is relocated against the running kernel's BTF, so
 * from those types only the names matter, and the newer kernel's names are
 * the ones the programs use (struct iomap_folio_state and the like, absent
 * from 6.1's BTF).
 * Registers: kprobe programs read their arguments from their context,
 * struct pt_regs, whose layout is the architecture's: powerpc's below, as
 * the ppc64le lab guest's BTF has it (Debian 6.1, CONFIG_PPC_64K_PAGES):
 *   bpftool btf dump file $IOMAPDIRTY_LAB_CACHE/ppc64le-6.1-<key>/unpatched/vmlinux format c
 * The generic header's x86 pt_regs is renamed out of the way.
 */
#ifndef __VMLINUX_POWERPC_H__
#define __VMLINUX_POWERPC_H__

#define pt_regs pt_regs___x86
#include "../vmlinux.h"
#undef pt_regs

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

struct user_pt_regs {
	long unsigned int gpr[32];
	long unsigned int nip;
	long unsigned int msr;
	long unsigned int orig_gpr3;
	long unsigned int ctr;
	long unsigned int link;
	long unsigned int xer;
	long unsigned int ccr;
	long unsigned int softe;
	long unsigned int trap;
	long unsigned int dar;
	long unsigned int dsisr;
	long unsigned int result;
};

struct pt_regs {
	union {
		struct user_pt_regs user_regs;
		struct {
			long unsigned int gpr[32];
			long unsigned int nip;
			long unsigned int msr;
			long unsigned int orig_gpr3;
			long unsigned int ctr;
			long unsigned int link;
			long unsigned int xer;
			long unsigned int ccr;
			long unsigned int softe;
			long unsigned int trap;
			union {
				long unsigned int dar;
				long unsigned int dear;
			};
			union {
				long unsigned int dsisr;
				long unsigned int esr;
			};
			long unsigned int result;
		};
	};
	union {
		struct {
			long unsigned int ppr;
			long unsigned int exit_result;
			union {
				long unsigned int amr;
			};
			long unsigned int iamr;
		};
		long unsigned int __pad[4];
	};
};

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_POWERPC_H__ */
