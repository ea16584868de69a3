/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel functions where a folio's writeback begins, for fentry and
 * kprobe plans, newest first (the planner's order of preference), shared
 * by the BPF side and user space:
 *   X(function, arg, type)
 * function  the writeback function (notes/kernels.md: which kernels)
 * arg       the position of its folio (or head page) argument
 * type      that argument's BTF type, as facts label it; "a|b": either
 *
 * An fentry program may read only the arguments its target has, and is
 * bound to its target when it is loaded, so each row has its own program,
 * fentry_wb_begin_a<arg> (bpf/fentry.bpf.c), whose section names the row's
 * function; user/live/programs.c makes the row's hook target (and
 * prototype) from the same line. The plan loads only the program of the
 * row that fits this kernel's BTF, so libbpf never looks for the others'
 * functions. kprobe_wb_begin serves every row: it reads the argument
 * the plan wrote into .rodata (wb_folio_arg).
 */
#ifndef IOMAPDIRTY_WB_FUNCS_H
#define IOMAPDIRTY_WB_FUNCS_H

#define WB_BEGIN_FUNCS(X)						\
	X(iomap_writeback_folio, 1, "folio*")	/* 6.17+: (wpc, folio) */ \
	X(iomap_writepage_map, 2, "folio*")	/* 6.9-6.16: (wpc, wbc, folio) */ \
	/* 6.1-6.6: (wpc, wbc, inode, folio, end_pos) */		\
	X(iomap_writepage_map, 3, "folio*")				\
	/* 6.1: (page, wbc, data), the folio's head page; 6.4-6.9: a folio */ \
	X(iomap_do_writepage, 0, "page*|folio*")

#endif
