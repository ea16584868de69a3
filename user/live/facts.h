/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts about the running kernel that decide the attach plan: functions
 * and their prototypes (BTF), symbols (kallsyms, ftrace), tracepoints and
 * their prototypes (btf_trace_* typedefs), the iomap state types, and the
 * outcome of trial attaches. Gathered live, or read from a facts file
 * (`iomapdirty probes --facts FILE`) so that plans for other kernels can
 * be computed and tested anywhere.
 */
#ifndef IOMAPDIRTY_FACTS_H
#define IOMAPDIRTY_FACTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FACT_NAME_LEN	64
#define FACT_ARG_LEN	24
#define FACT_MAX_ARGS	6
#define FACT_MAX_FUNCS	16
#define FACT_MAX_TPS	24

enum trial { TRIAL_UNKNOWN = 0, TRIAL_OK, TRIAL_FAILED };

/*
 * When trial attaches are made. LAZY (for a session): a function is tried
 * only when the planner gets to it, so a kernel where fentry works pays
 * for three trials, not twenty; raw tracepoints are not tried (their real
 * attach fails the same way, and no two of a hook's tracepoints exist in
 * one kernel); tp_btf is tried once, on the first tracepoint the planner
 * picks, and that outcome stands for the others (whether tracing programs
 * may attach to tracepoints is the kernel's and its policy's, and each
 * tracepoint's typedef is already a BTF fact); the symbols (kallsyms,
 * available_filter_functions) are read only when a fentry or kprobe
 * candidate gets far enough to need them (facts_symbols). ALL (for
 * `probes`): everything, each tracepoint tried, for the report. NONE and
 * ALL read the symbols at once.
 */
enum trial_policy { TRIALS_NONE, TRIALS_LAZY, TRIALS_ALL };
enum mechanism {
	MECH_FENTRY,		/* fentry/fexit */
	MECH_KPROBE,		/* kprobe/kretprobe */
	MECH_TRACEPOINT,	/* tp_btf or raw_tp */
	NR_MECHS,
	/*
	 * A plan's hook with no probe of its own, measured from another
	 * hook's data (the dirty bitmap at writeback; a flush run by user
	 * space): never tried, never a mode.
	 */
	MECH_DERIVED = NR_MECHS,
};

struct proto_fact {
	bool in_btf;
	int nr_args;
	char args[FACT_MAX_ARGS][FACT_ARG_LEN];	/* "folio*", "loff_t", ... */
	char ret[FACT_ARG_LEN];
};

struct func_fact {
	char name[FACT_NAME_LEN];
	struct proto_fact proto;
	bool in_kallsyms;	/* exact name present */
	bool clone_only;	/* only name.isra.N / .constprop.N / .part.N */
	int traceable;		/* in available_filter_functions: 1, 0, -1 unknown */
	enum trial trial[NR_MECHS];
	char trial_error[NR_MECHS][32];
};

struct tp_fact {
	char name[FACT_NAME_LEN];
	struct proto_fact proto;	/* without the leading void *data */
	enum trial trial;		/* raw_tp */
	char trial_error[32];
	enum trial btf_trial;		/* tp_btf: BTF-typed arguments */
	char btf_trial_error[32];
	bool btf_trial_shared;		/* LAZY: the outcome of another
					 * tracepoint's trial (kfacts.tp_btf_tried) */
	int btf_mod;			/* live: 1 + index in kfacts.mods of the
					 * module whose BTF has it; 0: vmlinux */
};

#define FACT_MAX_MODS	4

/* BPF helpers whose presence changes what the tool can say (facts_helpers.c) */
enum fact_helper {
	HELPER_CGROUP_ID,		/* bpf_get_current_cgroup_id */
	HELPER_ANCESTOR_CGROUP_ID,	/* bpf_get_current_ancestor_cgroup_id */
	NR_FACT_HELPERS,
};

/* A module's BTF, for tracepoints defined in a module (live facts) */
struct mod_btf {
	char name[FACT_NAME_LEN];
	struct btf *btf;	/* NULL: not loaded (looked up, not there) */
	int obj_fd;
};

struct kfacts {
	char release[FACT_NAME_LEN];
	bool has_btf;
	bool has_ifs;		/* struct iomap_folio_state */
	bool iop_has_state;	/* struct iomap_page { ... state[] } (RFCv4) */
	bool iop_has_uptodate;	/* struct iomap_page { ... uptodate[] } */
	bool has_rdonly_cast;	/* kfunc bpf_rdonly_cast (6.2+): guarded loads */
	bool kprobe_pmu;	/* kprobes usable through perf */
	/* tracing programs may call it: 1, 0, -1 unknown (not probed, no answer) */
	int helpers[NR_FACT_HELPERS];
	int helper_errno[NR_FACT_HELPERS];	/* why no answer, when -1 and known */
	int nr_funcs, nr_tps;
	struct func_fact funcs[FACT_MAX_FUNCS];
	struct tp_fact tps[FACT_MAX_TPS];
	enum trial_policy trials;
	struct btf *btf;	/* live facts: kept for lazy trials */
	struct mod_btf mods[FACT_MAX_MODS];
	int nr_mods;
	/* LAZY: in_kallsyms, clone_only, traceable not read yet */
	bool symbols_pending;
	const char *kallsyms_path;	/* NULL: /proc/kallsyms (tests set it) */
	const char *ftrace_path;	/* NULL: tracefs (tests set it) */
	int tp_btf_tried;	/* LAZY: 1 + index of the tp whose tp_btf trial
				 * the others share; 0 when none yet */
};

extern const char *const mech_names[NR_MECHS];
extern const char *const fact_helper_names[NR_FACT_HELPERS];

/* Empty facts: the candidates named, nothing known (facts_gather, facts_parse) */
void facts_init(struct kfacts *f);
/* Live: BTF, /proc/kallsyms, tracefs, and trials per 'policy'. */
int facts_gather(struct kfacts *f, enum trial_policy policy);
void facts_release(struct kfacts *f);
/* Reads kallsyms and available_filter_functions if still pending. */
void facts_symbols(struct kfacts *f);
/*
 * The trial outcome, making the trial now if the policy says so. A fentry
 * trial needs only BTF: made before the symbols are read (LAZY) it lets
 * a kernel that refuses fentry skip reading them.
 */
enum trial facts_func_trial(struct kfacts *f, struct func_fact *fn, int mech);
/*
 * The tp_btf trial outcome of a tracepoint, made now if the policy says so
 * (LAZY: taken from the first tracepoint tried, if any).
 */
enum trial facts_tp_btf_trial(struct kfacts *f, const char *tp);
/* Live: which helpers tracing programs may call (a program load each). */
void facts_probe_helpers(struct kfacts *f);
/*
 * Whether writers' cgroup ids can be read (both cgroup helpers): 1; 0 (the
 * kernel has not got them) or -1 (unknown), with why in 'why'.
 */
int facts_cgroup_ids(const struct kfacts *f, char *why, size_t len);
/* The same, probed now (a session's facts are gathered only at its start) */
int facts_cgroup_ids_live(char *why, size_t len);
/* From a facts file; returns 0, or -EINVAL with a message in err. */
int facts_parse(struct kfacts *f, FILE *in, char *err, size_t errlen);
/* Reads the symbols first if they are still pending. */
void facts_write(struct kfacts *f, FILE *out);

const struct func_fact *facts_func(const struct kfacts *f, const char *name);
const struct tp_fact *facts_tp(const struct kfacts *f, const char *name);
/* The prototype of tracepoint tp's btf_trace_<name> typedef in btf, if there */
void facts_btf_tp(const struct btf *btf, struct tp_fact *tp);
/* Tracepoints not in vmlinux's BTF looked up in their module's (btf_module.c) */
void facts_module_tps(struct kfacts *f);

/*
 * Where ext4 keeps what tells a file's data journalled apart
 * (ext4_should_journal_data(); bpf/fs_kind.bpf.h reads it at these
 * offsets): the mount options in struct ext4_sb_info, the inode's flags in
 * struct ext4_inode_info around its vfs_inode.
 */
struct ext4_layout {
	bool known;
	uint32_t sbi_mount_opt;		/* offset of s_mount_opt (4 bytes) */
	uint32_t ei_vfs_inode;		/* offset of vfs_inode */
	uint32_t ei_flags;			/* offset of i_flags */
	uint32_t ei_flags_size;		/* 4 or 8 */
	char from[FACT_NAME_LEN];	/* "vmlinux", or "module ext4" */
};
/*
 * ext4's layout from vmlinux's BTF, else from the ext4 module's (Debian
 * builds ext4 as a module: its types are in /sys/kernel/btf/ext4 only).
 * false where neither has the types (or facts came from a file).
 */
bool facts_ext4_layout(struct kfacts *f, struct ext4_layout *l);

/*
 * Where btrfs keeps a file's subvolume device (bpf/fs_kind.bpf.h,
 * btrfs_subvol_dev()): btrfs_inode's vfs_inode and root, btrfs_root's
 * anon_dev, from vmlinux's BTF or the btrfs module's.
 */
struct btrfs_layout {
	bool known;
	uint32_t bi_vfs_inode;		/* offset of vfs_inode in btrfs_inode */
	uint32_t bi_root;		/* offset of root (a pointer) */
	uint32_t root_anon_dev;		/* offset of anon_dev (4 bytes) in btrfs_root */
	char from[FACT_NAME_LEN];	/* "vmlinux", or "module btrfs" */
};
bool facts_btrfs_layout(struct kfacts *f, struct btrfs_layout *l);

#endif
