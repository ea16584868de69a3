/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load-time settings (.rodata), set by the frontend before load
 * (set_rodata() and size_page_records() in user/live/engine.c), and the filters
 * built on them. The verifier sees their values: a branch on a setting
 * that is off is removed before the program runs.
 *
 * Declared once, with SETTING(): extern in every unit, defined (with the
 * default given here) in settings.bpf.c, which defines SETTINGS_HERE.
 */
#ifndef IOMAPDIRTY_SETTINGS_BPF_H
#define IOMAPDIRTY_SETTINGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "iomapdirty.h"

#ifdef SETTINGS_HERE
#define SETTING(type, name, init)	const volatile type name = init
#else
#define SETTING(type, name, init)	extern const volatile type name
#endif

SETTING(__u32, target_dev, 0);		/* 0: every device */
SETTING(__u32, target_tgid, 0);		/* 0: every process */
SETTING(bool, filter_comm, false);
SETTING(char, target_comm[16], {});
/*
 * run: the cgroup (v2 id, its level under the root) CMD runs in; only its
 * writes and its descendants' count, 0: every cgroup (user/host/cgroup.c).
 */
SETTING(__u64, target_cgroup, 0);
SETTING(__u32, target_cgroup_level, 0);
/* run: the other cgroups' writes are summed apart (other_writes.bpf.h) */
SETTING(bool, count_others, false);
/* exporter --collector.cgroup: sums per writer cgroup (cgroup_sums.bpf.h) */
SETTING(bool, per_cgroup_sums, false);
/*
 * The kernel lets tracing programs read the current task's cgroup ids
 * (bpf_get_current_cgroup_id and _ancestor_: none without CONFIG_CGROUPS).
 * Probed by user space before load (user/live/facts_helpers.c); read only
 * through writer_cgroup_id().
 */
SETTING(bool, cgroup_helpers, false);
SETTING(__u32, page_shift, 12);
SETTING(__u32, bitmap_kind, BITMAP_NONE);	/* enum bitmap_kind */
SETTING(__u32, write_end_proto, WRITE_END_POS);	/* enum write_end_proto */
SETTING(bool, write_end_ret_bool, false);	/* iomap_write_end returns bool */
SETTING(__u32, submit_proto, SUBMIT_RANGE);	/* enum submit_proto */
SETTING(__u32, wb_folio_arg, 0);	/* which argument is the folio */
SETTING(bool, track_physical, false);	/* verify: match bios to data */
/*
 * The clean -> dirty hook is attached (tracepoint mode, full accounting):
 * a folio whose first page's record has no folio pointer went dirty
 * before attach, and is looked up in the page cache (writeback.bpf.c).
 */
SETTING(bool, folio_ptr_hook, false);
/*
 * The buffer-head backend is attached (ext4: bpf/buffer_heads.bpf.c): its
 * filesystems are counted, not reported as not watched.
 */
SETTING(bool, bh_backend, false);
/*
 * The btrfs backend is attached (bpf/btrfs.bpf.c, and the write bios of
 * bpf/buffer_heads.bpf.c), with where btrfs keeps a file's subvolume
 * device (struct btrfs_layout, user/live/facts.h: from vmlinux's BTF or the
 * btrfs module's, as ext4's below): btrfs_inode's vfs_inode and root,
 * btrfs_root's anon_dev.
 */
SETTING(bool, btrfs_backend, false);
SETTING(__u32, btrfs_bi_vfs_inode, 0);
SETTING(__u32, btrfs_bi_root, 0);
SETTING(__u32, btrfs_root_anon_dev, 0);
/*
 * Where ext4 keeps the mount options and an inode's flags (struct
 * ext4_layout, user/live/facts.h), from vmlinux's BTF or the ext4 module's:
 * the programs' CO-RE is relocated against vmlinux's only (engine_open()),
 * and a Debian kernel has ext4 as a module (bpf/fs_kind.bpf.h).
 */
SETTING(bool, ext4_layout_known, false);
SETTING(__u32, ext4_sbi_mount_opt, 0);
SETTING(__u32, ext4_ei_vfs_inode, 0);
SETTING(__u32, ext4_ei_flags, 0);
SETTING(__u32, ext4_ei_flags_size, 8);
/*
 * verify --simulate-clean N: in folios whose first page index is a
 * multiple of N, the first dirty block is hidden from the check, so the
 * kernel's (correct) submission of it shows as a violation. Exercises the
 * detection path on a kernel that has no real violations; reported as
 * simulated in every output.
 */
SETTING(__u32, simulate_clean_every, 0);
/*
 * verify --simulate-unseen-bios: the block-layer program ignores every
 * write bio, as if the data never reached the device: the check must then
 * refuse to pass. Counted (simulated_unseen_bios) and reported.
 */
SETTING(bool, simulate_unseen_bios, false);
SETTING(__u32, page_set_count, 1);	/* = max_entries of page_sets */
/* enum accounting_level; always-on keeps no page records (write_sums.bpf.h) */
SETTING(__u32, accounting, ACCOUNTING_FULL);
SETTING(__u32, nr_cpus, 1);		/* possible CPUs: the flush folds each one's write sum */

static __always_inline bool always_on(void)
{
	return accounting == ACCOUNTING_ALWAYS_ON;
}

/*
 * The writer's cgroup v2 id: its own (ancestor_level < 0) or its ancestor's
 * at that level; 0 (no cgroup known) where the kernel has no cgroup
 * helpers. The one place a cgroup id is read: a kernel without the helpers
 * refuses to load a program that calls them, and with the setting false
 * the verifier removes the calls before it looks them up.
 */
static __always_inline __u64 writer_cgroup_id(int ancestor_level)
{
	if (!cgroup_helpers)
		return 0;
	if (ancestor_level < 0)
		return bpf_get_current_cgroup_id();
	return bpf_get_current_ancestor_cgroup_id(ancestor_level);
}

static __always_inline bool dev_wanted(__u32 dev)
{
	return !target_dev || dev == target_dev;
}

/* Any filter on who writes (--pid, --comm, run's cgroup) is on. */
static __always_inline bool writer_filtered(void)
{
	return target_tgid || filter_comm || target_cgroup;
}

static __always_inline bool task_wanted(void)
{
	char comm[16];
	int i;

	if (target_tgid && (bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return false;
	/* the writer's cgroup, taken now, at the write: the flusher that
	 * writes the folio back later runs elsewhere */
	if (target_cgroup && writer_cgroup_id(target_cgroup_level) != target_cgroup)
		return false;
	if (!filter_comm)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < 16; i++) {
		if (comm[i] != target_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

#endif /* IOMAPDIRTY_SETTINGS_BPF_H */
