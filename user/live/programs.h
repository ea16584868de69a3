/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooks a plan fills, and the one table of the BPF programs that can
 * serve them: for each hook, kind of program (which also says how it is
 * attached and whether it runs at the function's return) and kernel
 * variant, the program's name in the BPF object. The planner (plan.c)
 * picks rows of it, the engine (engine.c) loads and attaches what the
 * rows say, and tests/unit/test_programs.c checks every row against the
 * BPF object and that plans for every kernel family reach every row.
 */
#ifndef IOMAPDIRTY_PROGRAMS_H
#define IOMAPDIRTY_PROGRAMS_H

#include <stdbool.h>
#include "live/facts.h"

enum hook {
	HOOK_WRITE,		/* bytes the application wrote */
	HOOK_WHOLE_DIRTY,	/* folios dirtied whole (mmap) */
	HOOK_WB_BEGIN,		/* one folio's writeback starts */
	HOOK_WB_END,		/* ... and ends */
	HOOK_SUBMIT,		/* ranges submitted to the device */
	HOOK_FOLIO_PTR,		/* tracepoint mode: learn folio pointers */
	HOOK_INVALIDATE,	/* dirty data thrown away: forget records */
	HOOK_BIO,		/* verify: write bios at the block layer */
	HOOK_UNWATCHED,		/* folios dirtied on filesystems not watched */
	/* the buffer-head backend (ext4, bpf/buffer_heads.bpf.c) */
	HOOK_BH_WRITE,		/* ext4_da_write_end: a write(2)'s folio, delalloc */
	HOOK_BH_WRITE_ND,	/* ext4_write_end: the same without delalloc */
	HOOK_BH_DIRTY,		/* block_dirty_buffer: a block gone clean -> dirty */
	HOOK_BH_BIO,		/* block_bio_queue: a write bio's folios and blocks */
	HOOK_BH_INVALIDATE,	/* ext4_invalidate_folio: dirty data thrown away */
	/* the btrfs backend (bpf/btrfs.bpf.c; its write bios: HOOK_BH_BIO) */
	HOOK_BTRFS_WRITE,	/* sys_enter: a write syscall's request */
	HOOK_BTRFS_WRITE_END,	/* sys_exit: ... and what it wrote */
	HOOK_BTRFS_DIRTY,	/* writeback_dirty_folio: a folio gone clean -> dirty */
	HOOK_BTRFS_FORGET,	/* mm_filemap_delete_from_page_cache: truncated */
	NR_HOOKS,
};

extern const char *const hook_names[NR_HOOKS];

enum prog_kind {
	PROG_FENTRY,		/* fentry/: bound to its target at load */
	PROG_FEXIT,		/* fexit/: the same, at return */
	PROG_KPROBE,		/* kprobe/ */
	PROG_KRETPROBE,		/* kretprobe/: at return */
	PROG_TP_BTF,		/* tp_btf/: bound to the tracepoint at load */
	PROG_RAW_TP,		/* raw_tp/: every field a probe read */
	PROG_USER,		/* run by user space (BPF_PROG_TEST_RUN), never attached */
	NR_PROG_KINDS,
};

/* Any variant: the program reads what differs between kernels itself. */
#define PROG_ANY_VARIANT	(-1)
/* HOOK_WB_BEGIN's tp_btf program reading the kernel with guarded loads */
#define WB_GUARDED_LOADS	1
/* HOOK_WRITE's tracepoints, after enum write_end_proto's values */
#define WRITE_TP_ITER		16	/* iomap_iter: requests, faults given back */
#define WRITE_TP_REQUESTED	17	/* xfs_file_buffered_write: each request */

struct prog_def {
	enum hook hook;
	enum prog_kind kind;
	/*
	 * The kernel variant the program is written for, in the plan's own
	 * terms: HOOK_WRITE, enum write_end_proto or WRITE_TP_*; HOOK_WB_BEGIN, the
	 * folio's argument position; HOOK_SUBMIT, enum submit_proto.
	 */
	int variant;
	const char *name;	/* the program in the BPF object */
};

extern const struct prog_def prog_table[];
/* Programs with no hook, loaded in every plan and run by user space. */
extern const char *const prog_utilities[];
bool prog_is_utility(const char *name);
extern const unsigned int prog_table_len;
extern const char *const prog_kind_names[NR_PROG_KINDS];

/*
 * Where a hook attaches: a kernel function (fentry, kprobe) or a
 * tracepoint. One table (programs.c) names every symbol the tool looks
 * for: facts gathers exactly these (facts_init) and the planner takes
 * them from here, in the table's order of preference per hook and kind.
 * A row is one prototype of its symbol: what the hook's programs read of
 * the arguments, each as BTF types it (facts.c's labels: "folio*",
 * "loff_t"). A symbol whose prototype changed between kernels has a row
 * per prototype, and the row that fits this kernel's BTF gives the
 * program's variant: a new kernel signature is a new row.
 */
enum target_kind { TARGET_FUNC, TARGET_TP };

/* nr_args: at least the arguments named, maybe more (fentry reading one) */
#define PROTO_AT_LEAST	(-1)

struct target_proto {
	int nr_args;		/* exactly this many, or PROTO_AT_LEAST */
	/* each argument's type label; NULL: not read; "a|b": either */
	const char *args[FACT_MAX_ARGS];
};

struct hook_target {
	enum hook hook;
	enum target_kind kind;
	const char *symbol;
	/* prog_def.variant of the programs this fits; TARGET_FACT_ONLY */
	int variant;
	struct target_proto proto;
};

/* A row's variant: gathered and reported, never attached */
#define TARGET_FACT_ONLY	(-2)

extern const struct hook_target hook_targets[];
extern const unsigned int hook_targets_len;
/* The i-th symbol hook may attach to as kind (0: preferred); NULL after the last. */
const char *hook_target(enum hook hook, enum target_kind kind, unsigned int i);
/* The i-th distinct symbol of kind in the table, for facts; NULL after the last. */
const char *target_symbol(enum target_kind kind, unsigned int i);
/* Whether a prototype read from BTF is the one a row describes. */
bool target_proto_fits(const struct target_proto *want, const struct proto_fact *have);
/* The first row of hook, kind and symbol that prototype fits; NULL if none. */
const struct hook_target *target_fit(enum hook hook, enum target_kind kind,
				     const char *symbol, const struct proto_fact *have);

/* The row for hook, kind and variant; NULL if no program serves it. */
const struct prog_def *prog_find(enum hook hook, enum prog_kind kind, int variant);
/* fentry/fexit: MECH_FENTRY, ..., PROG_USER: MECH_DERIVED. */
enum mechanism prog_mechanism(enum prog_kind kind);
bool prog_is_return(enum prog_kind kind);

#endif
