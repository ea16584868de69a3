/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach plan: for each hook, the mechanism, kernel target and BPF
 * program (programs.h) chosen from facts (facts.h), or why none could be.
 * The same facts give the same plan, so plans for every kernel family are
 * unit-tested from recorded facts. Not pure: on a session's lazy facts
 * (TRIALS_LAZY) planning makes the trial attaches and reads the symbols
 * it needs as it goes; facts from a file make none.
 */
#ifndef IOMAPDIRTY_PLAN_H
#define IOMAPDIRTY_PLAN_H

#include <stdbool.h>
#include "live/facts.h"
#include "iomapdirty.h"
#include "live/programs.h"

struct json;

#define MODE_AUTO	(-1)
#define MODE_RAW_TP	NR_MECHS	/* tracepoints with raw_tp programs only */

struct hook_plan {
	bool chosen;
	bool required;
	enum mechanism mech;	/* when chosen; MECH_DERIVED: no probe of its own */
	char target[FACT_NAME_LEN];	/* kernel function or tracepoint */
	const struct prog_def *prog;	/* its row in prog_table, NULL if none */
	char note[200];			/* what this choice means for the numbers */
	char rejected[512];		/* candidates not taken, and why */
};

struct plan {
	int mode;			/* MODE_AUTO or a forced enum mechanism */
	char family;			/* 'a'..'d', '?' */
	const char *family_desc;
	enum bitmap_kind bitmap;
	struct hook_plan hooks[NR_HOOKS];
	/* program variants, written into the BPF object's .rodata */
	__u32 write_end_proto;
	bool write_end_ret_bool;
	__u32 submit_proto;
	__u32 wb_folio_arg;
	bool wb_guarded_loads;		/* tracepoint writeback: btf_wb_folio_ld */
	/* the write hook's program: write_end_proto, or a WRITE_TP_* */
	int write_variant;
	/*
	 * Writers' cgroup ids readable by the programs (facts_cgroup_ids): 1,
	 * 0 no, -1 unknown; why not, in words. Off: writers' cgroups unknown,
	 * run cannot count CMD alone, --cgroup and --collector.cgroup refused.
	 */
	int cgroup_ids;
	char cgroup_why[200];
	/* what the BPF side records: plan_set_accounting() */
	enum accounting_level accounting;
	/* the buffer-head backend's: which ext4 files journal their data */
	struct ext4_layout ext4;
	/* the btrfs backend's: a file's subvolume device */
	struct btrfs_layout btrfs;
	bool ok;			/* every required hook has a target */
	char error[256];
};

/*
 * 0, or -EOPNOTSUPP when a required hook has no candidate (p->error says
 * why). May make lazy trial attaches (facts_func_trial), hence not const.
 */
int plan_build(struct kfacts *f, int mode, struct plan *p);
/* The buffer-head backend (ext4) is attached: all four of its hooks. */
bool plan_bh_backend(const struct plan *p);
/* Detaches the buffer-head backend, each of its hooks saying why. */
void plan_drop_bh_backend(struct plan *p, const char *why);
/* The btrfs backend is attached: its four hooks and the write bios'. */
bool plan_btrfs_backend(const struct plan *p);
void plan_drop_btrfs_backend(struct plan *p, const char *why);
/*
 * Sets the accounting level; always-on detaches the hooks that only feed
 * the page records (whole-folio dirtying, the folio pointer, invalidate),
 * each saying why.
 */
void plan_set_accounting(struct plan *p, enum accounting_level l);
/* "auto", "fentry", "kprobe", "tracepoint", "raw_tp": 0, or -EINVAL. */
int plan_mode_parse(const char *s, int *mode);
const char *plan_mode_name(int mode);

/*
 * Rendering (report_plan.c). A hook's mechanism: "fentry", "kprobe",
 * "derived", and tracepoints saying their program type: "tp_btf" or "raw_tp"
 */
const char *plan_mech_detail(const struct hook_plan *h);
void plan_print_text(const struct plan *p, FILE *out);
void plan_write_json(const struct plan *p, struct json *j);
/* The kernel's per-block dirty state the plan reads: "iomap_folio_state",
 * "iomap_page.state" (RFCv4) or "none". */
const char *plan_bitmap_name(const struct plan *p);

#endif
