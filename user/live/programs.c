// SPDX-License-Identifier: GPL-2.0
/* The hooks and the BPF programs that serve them: see programs.h. */
#include <stddef.h>
#include <string.h>
#include "iomapdirty.h"
#include "live/programs.h"
#include "wb_funcs.h"

const char *const hook_names[NR_HOOKS] = {
	[HOOK_WRITE] = "write",
	[HOOK_WHOLE_DIRTY] = "whole_folio_dirty",
	[HOOK_WB_BEGIN] = "writeback_begin",
	[HOOK_WB_END] = "writeback_end",
	[HOOK_SUBMIT] = "submit",
	[HOOK_FOLIO_PTR] = "folio_pointer",
	[HOOK_INVALIDATE] = "invalidate",
	[HOOK_BIO] = "block_bio",
	[HOOK_UNWATCHED] = "unwatched_dirty",
	[HOOK_BH_WRITE] = "ext4_write",
	[HOOK_BH_WRITE_ND] = "ext4_write_nd",
	[HOOK_BH_DIRTY] = "bh_dirty",
	[HOOK_BH_BIO] = "bh_writeback",
	[HOOK_BH_INVALIDATE] = "ext4_invalidate",
	[HOOK_BTRFS_WRITE] = "btrfs_write",
	[HOOK_BTRFS_WRITE_END] = "btrfs_write_end",
	[HOOK_BTRFS_DIRTY] = "btrfs_dirty",
	[HOOK_BTRFS_FORGET] = "btrfs_forget",
};

const char *const prog_kind_names[NR_PROG_KINDS] = {
	[PROG_FENTRY] = "fentry",
	[PROG_FEXIT] = "fexit",
	[PROG_KPROBE] = "kprobe",
	[PROG_KRETPROBE] = "kretprobe",
	[PROG_TP_BTF] = "tp_btf",
	[PROG_RAW_TP] = "raw_tp",
	[PROG_USER] = "user",
};

#define ANY	PROG_ANY_VARIANT

/*
 * Programs that serve no hook, run by user space in every plan:
 * count_unwritten sums the page records writeback has not taken yet (the
 * end of `run`, engine_unwritten()).
 */
const char *const prog_utilities[] = { "count_unwritten", NULL };

/*
 * An fentry/fexit program may read only the arguments its target has, so
 * each prototype has its own program; a kprobe reads registers and takes
 * the variant from .rodata (write_end_proto, wb_folio_arg), so one program
 * serves several rows. A tracepoint has a tp_btf program (arguments typed
 * by BTF, plain loads) and a raw_tp twin (probe reads) counting the same.
 */
const struct prog_def prog_table[] = {
	/* iomap_write_end: 6.1-6.15 (iter, pos, len, copied, folio), 6.16+ no pos */
	{ HOOK_WRITE, PROG_FEXIT, WRITE_END_POS, "fexit_write_end_pos" },
	{ HOOK_WRITE, PROG_FEXIT, WRITE_END_ITER, "fexit_write_end_iter" },
	{ HOOK_WRITE, PROG_KPROBE, WRITE_END_POS, "kprobe_write_end" },
	{ HOOK_WRITE, PROG_KPROBE, WRITE_END_ITER, "kprobe_write_end" },
	/* iomap_iter: every iomap user's buffered writes */
	{ HOOK_WRITE, PROG_TP_BTF, WRITE_TP_ITER, "btf_iomap_iter_write" },
	{ HOOK_WRITE, PROG_RAW_TP, WRITE_TP_ITER, "tp_iomap_iter_write" },
	/* xfs_file_buffered_write (XFS only) */
	{ HOOK_WRITE, PROG_TP_BTF, WRITE_TP_REQUESTED, "btf_xfs_buffered_write" },
	{ HOOK_WRITE, PROG_RAW_TP, WRITE_TP_REQUESTED, "tp_xfs_buffered_write" },

	/* iomap_dirty_folio (RFCv4, 6.6+) */
	{ HOOK_WHOLE_DIRTY, PROG_FENTRY, ANY, "fentry_dirty_folio" },
	{ HOOK_WHOLE_DIRTY, PROG_KPROBE, ANY, "kprobe_dirty_folio" },

	/* the writeback functions (wb_funcs.h), by the folio's argument position */
	{ HOOK_WB_BEGIN, PROG_FENTRY, 0, "fentry_wb_begin_a0" },
	{ HOOK_WB_BEGIN, PROG_FENTRY, 1, "fentry_wb_begin_a1" },
	{ HOOK_WB_BEGIN, PROG_FENTRY, 2, "fentry_wb_begin_a2" },
	{ HOOK_WB_BEGIN, PROG_FENTRY, 3, "fentry_wb_begin_a3" },
	{ HOOK_WB_BEGIN, PROG_KPROBE, 0, "kprobe_wb_begin" },
	{ HOOK_WB_BEGIN, PROG_KPROBE, 1, "kprobe_wb_begin" },
	{ HOOK_WB_BEGIN, PROG_KPROBE, 2, "kprobe_wb_begin" },
	{ HOOK_WB_BEGIN, PROG_KPROBE, 3, "kprobe_wb_begin" },
	/* iomap_writepage (6.1-6.16), iomap_writeback_folio (6.17+) */
	{ HOOK_WB_BEGIN, PROG_TP_BTF, WB_GUARDED_LOADS, "btf_wb_folio_ld" },	/* 6.2+ */
	{ HOOK_WB_BEGIN, PROG_TP_BTF, ANY, "btf_wb_folio" },
	{ HOOK_WB_BEGIN, PROG_RAW_TP, ANY, "tp_wb_folio" },

	{ HOOK_WB_END, PROG_FEXIT, ANY, "fexit_wb_end" },
	{ HOOK_WB_END, PROG_KRETPROBE, ANY, "kretprobe_wb_end" },
	/* tracepoint plans: no end event; the flush (engine_flush) ends folios */
	{ HOOK_WB_END, PROG_USER, ANY, "flush_idle" },

	/* iomap_writepage_map (6.1-6.16), iomap_add_to_ioend (6.17+) */
	{ HOOK_SUBMIT, PROG_TP_BTF, SUBMIT_RANGE, "btf_submit_range" },
	{ HOOK_SUBMIT, PROG_RAW_TP, SUBMIT_RANGE, "tp_submit_range" },
	{ HOOK_SUBMIT, PROG_TP_BTF, SUBMIT_PER_BLOCK, "btf_submit_block" },
	{ HOOK_SUBMIT, PROG_RAW_TP, SUBMIT_PER_BLOCK, "tp_submit_block" },

	/* writeback_dirty_folio */
	{ HOOK_FOLIO_PTR, PROG_TP_BTF, ANY, "btf_dirty_folio" },
	{ HOOK_FOLIO_PTR, PROG_RAW_TP, ANY, "tp_dirty_folio" },

	/* iomap_invalidate_folio, block_bio_queue: raw_tp only */
	{ HOOK_INVALIDATE, PROG_RAW_TP, ANY, "tp_invalidate" },
	{ HOOK_BIO, PROG_RAW_TP, ANY, "tp_bio_queue" },

	/* writeback_dirty_folio again: filesystems not watched (unwatched.bpf.c) */
	{ HOOK_UNWATCHED, PROG_TP_BTF, ANY, "btf_unwatched_dirty" },
	{ HOOK_UNWATCHED, PROG_RAW_TP, ANY, "tp_unwatched_dirty" },

	/* the buffer-head backend (buffer_heads.bpf.c): tp_btf only */
	{ HOOK_BH_WRITE, PROG_TP_BTF, ANY, "btf_ext4_da_write_end" },
	{ HOOK_BH_WRITE_ND, PROG_TP_BTF, ANY, "btf_ext4_write_end" },
	{ HOOK_BH_DIRTY, PROG_TP_BTF, ANY, "btf_bh_dirty" },
	{ HOOK_BH_BIO, PROG_TP_BTF, ANY, "btf_bh_bio" },
	{ HOOK_BH_INVALIDATE, PROG_TP_BTF, ANY, "btf_ext4_invalidate" },

	/* the btrfs backend (btrfs.bpf.c): tp_btf only */
	{ HOOK_BTRFS_WRITE, PROG_TP_BTF, ANY, "btf_btrfs_write_enter" },
	{ HOOK_BTRFS_WRITE_END, PROG_TP_BTF, ANY, "btf_btrfs_write_exit" },
	{ HOOK_BTRFS_DIRTY, PROG_TP_BTF, ANY, "btf_btrfs_dirty" },
	{ HOOK_BTRFS_FORGET, PROG_TP_BTF, ANY, "btf_btrfs_forget" },
};

const unsigned int prog_table_len = sizeof(prog_table) / sizeof(prog_table[0]);

/* A prototype: exactly n arguments, of these types (NULL: not read) */
#define ARGS(n, ...)	{ n, { __VA_ARGS__ } }
/* A writeback function: its variant is its folio's argument position */
#define WB_BEGIN_ROW(func, arg, type)					\
	{ HOOK_WB_BEGIN, TARGET_FUNC, #func, arg, { PROTO_AT_LEAST, { [arg] = type } } },

/*
 * The kernel symbols, per hook in order of preference, and the prototypes
 * of each the programs can read (notes/kernels.md says which kernels have
 * which). Rows of different hooks interleave so that the facts' lists
 * keep their order (facts files, probes --json).
 */
const struct hook_target hook_targets[] = {
	/* 6.1-6.15: (iter, pos, len, copied, folio); 6.16+: (iter, len, copied, folio) */
	{ HOOK_WRITE, TARGET_FUNC, "iomap_write_end", WRITE_END_POS,
	  ARGS(5, "iomap_iter*", "loff_t", NULL, "size_t", "folio*") },
	{ HOOK_WRITE, TARGET_FUNC, "iomap_write_end", WRITE_END_ITER,
	  ARGS(4, "iomap_iter*", NULL, "size_t", "folio*") },
	/* every iomap user, since 5.15: each operation's request and its end */
	{ HOOK_WRITE, TARGET_TP, "iomap_iter", WRITE_TP_ITER,
	  ARGS(3, "iomap_iter*", NULL, NULL) },
	/* XFS only */
	{ HOOK_WRITE, TARGET_TP, "xfs_file_buffered_write", WRITE_TP_REQUESTED,
	  ARGS(2, "kiocb*", "iov_iter*") },
	{ HOOK_WHOLE_DIRTY, TARGET_FUNC, "iomap_dirty_folio", ANY,
	  ARGS(2, "address_space*", "folio*") },
	{ HOOK_FOLIO_PTR, TARGET_TP, "writeback_dirty_folio", ANY,
	  ARGS(2, "folio*", "address_space*") },
	/*
	 * The writeback functions, newest first (wb_funcs.h: one fentry program
	 * per row, its section naming the row's function), then the
	 * tracepoints: 6.17+, then 6.1-6.16.
	 */
	WB_BEGIN_FUNCS(WB_BEGIN_ROW)
	{ HOOK_WB_BEGIN, TARGET_TP, "iomap_writeback_folio", ANY,
	  ARGS(3, "inode*", "loff_t", "u64") },
	{ HOOK_WB_BEGIN, TARGET_TP, "iomap_writepage", ANY,
	  ARGS(3, "inode*", "loff_t", "u64") },
	/* 6.17+: ranges */
	{ HOOK_SUBMIT, TARGET_TP, "iomap_add_to_ioend", SUBMIT_RANGE,
	  ARGS(4, "inode*", "u64", "unsigned_int", "iomap*") },
	/* its prototype differs between kernels and it is often inlined */
	{ HOOK_SUBMIT, TARGET_FUNC, "iomap_add_to_ioend", TARGET_FACT_ONLY, ARGS(0) },
	/* 6.9-6.16: ranges; 6.1-6.8: one block per event */
	{ HOOK_SUBMIT, TARGET_TP, "iomap_writepage_map", SUBMIT_RANGE,
	  ARGS(4, "inode*", "u64", "unsigned_int", "iomap*") },
	{ HOOK_SUBMIT, TARGET_TP, "iomap_writepage_map", SUBMIT_PER_BLOCK,
	  ARGS(2, "inode*", "iomap*") },
	{ HOOK_INVALIDATE, TARGET_TP, "iomap_invalidate_folio", ANY,
	  ARGS(3, "inode*", "loff_t", "u64") },
	{ HOOK_BIO, TARGET_TP, "block_bio_queue", ANY, ARGS(1, "bio*") },
	{ HOOK_UNWATCHED, TARGET_TP, "writeback_dirty_folio", ANY,
	  ARGS(2, "folio*", "address_space*") },
	{ HOOK_BH_WRITE, TARGET_TP, "ext4_da_write_end", ANY,
	  ARGS(4, "inode*", "loff_t", "unsigned_int", "unsigned_int") },
	{ HOOK_BH_WRITE_ND, TARGET_TP, "ext4_write_end", ANY,
	  ARGS(4, "inode*", "loff_t", "unsigned_int", "unsigned_int") },
	{ HOOK_BH_DIRTY, TARGET_TP, "block_dirty_buffer", ANY, ARGS(1, "buffer_head*") },
	{ HOOK_BH_BIO, TARGET_TP, "block_bio_queue", ANY, ARGS(1, "bio*") },
	{ HOOK_BH_INVALIDATE, TARGET_TP, "ext4_invalidate_folio", ANY,
	  ARGS(3, "folio*", "size_t", "size_t") },
	{ HOOK_BTRFS_WRITE, TARGET_TP, "sys_enter", ANY, ARGS(2, "pt_regs*", "long_int") },
	{ HOOK_BTRFS_WRITE_END, TARGET_TP, "sys_exit", ANY, ARGS(2, "pt_regs*", "long_int") },
	{ HOOK_BTRFS_DIRTY, TARGET_TP, "writeback_dirty_folio", ANY,
	  ARGS(2, "folio*", "address_space*") },
	{ HOOK_BTRFS_FORGET, TARGET_TP, "mm_filemap_delete_from_page_cache", ANY,
	  ARGS(1, "folio*") },
};

const unsigned int hook_targets_len = sizeof(hook_targets) / sizeof(hook_targets[0]);

/* Row r's symbol and kind (and hook, if same_hook) in an earlier row */
static bool seen_before(unsigned int r, bool same_hook)
{
	const struct hook_target *t = &hook_targets[r];

	for (unsigned int q = 0; q < r; q++)
		if (hook_targets[q].kind == t->kind && !strcmp(hook_targets[q].symbol, t->symbol) &&
		    (!same_hook || hook_targets[q].hook == t->hook))
			return true;
	return false;
}

const char *hook_target(enum hook hook, enum target_kind kind, unsigned int i)
{
	for (unsigned int r = 0; r < hook_targets_len; r++) {
		const struct hook_target *t = &hook_targets[r];

		if (t->hook == hook && t->kind == kind && t->variant != TARGET_FACT_ONLY &&
		    !seen_before(r, true) && i-- == 0)
			return t->symbol;
	}
	return NULL;
}

const char *target_symbol(enum target_kind kind, unsigned int i)
{
	for (unsigned int r = 0; r < hook_targets_len; r++)
		if (hook_targets[r].kind == kind && !seen_before(r, false) && i-- == 0)
			return hook_targets[r].symbol;
	return NULL;
}

/* want: one type label, or several separated by '|' */
static bool label_is(const char *have, const char *want)
{
	size_t n = strlen(have);

	while (n && want) {
		if (!strncmp(want, have, n) && (want[n] == '\0' || want[n] == '|'))
			return true;
		want = strchr(want, '|');
		want = want ? want + 1 : NULL;
	}
	return false;
}

bool target_proto_fits(const struct target_proto *want, const struct proto_fact *have)
{
	int named = 0;

	for (int i = 0; i < FACT_MAX_ARGS; i++)
		if (want->args[i])
			named = i + 1;
	if (!have->in_btf || (want->nr_args == PROTO_AT_LEAST ? have->nr_args < named :
			      have->nr_args != want->nr_args))
		return false;
	for (int i = 0; i < named; i++)
		if (want->args[i] && !label_is(have->args[i], want->args[i]))
			return false;
	return true;
}

const struct hook_target *target_fit(enum hook hook, enum target_kind kind,
				     const char *symbol, const struct proto_fact *have)
{
	for (unsigned int r = 0; r < hook_targets_len; r++) {
		const struct hook_target *t = &hook_targets[r];

		if (t->hook == hook && t->kind == kind && t->variant != TARGET_FACT_ONLY &&
		    !strcmp(t->symbol, symbol) && target_proto_fits(&t->proto, have))
			return t;
	}
	return NULL;
}

const struct prog_def *prog_find(enum hook hook, enum prog_kind kind, int variant)
{
	for (unsigned int i = 0; i < prog_table_len; i++) {
		const struct prog_def *d = &prog_table[i];

		if (d->hook == hook && d->kind == kind &&
		    (d->variant == ANY || d->variant == variant))
			return d;
	}
	return NULL;
}

enum mechanism prog_mechanism(enum prog_kind kind)
{
	switch (kind) {
	case PROG_FENTRY:
	case PROG_FEXIT:
		return MECH_FENTRY;
	case PROG_KPROBE:
	case PROG_KRETPROBE:
		return MECH_KPROBE;
	case PROG_TP_BTF:
	case PROG_RAW_TP:
		return MECH_TRACEPOINT;
	default:
		return MECH_DERIVED;
	}
}

bool prog_is_return(enum prog_kind kind)
{
	return kind == PROG_FEXIT || kind == PROG_KRETPROBE;
}

bool prog_is_utility(const char *name)
{
	for (int i = 0; prog_utilities[i]; i++)
		if (!strcmp(prog_utilities[i], name))
			return true;
	return false;
}
