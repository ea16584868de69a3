// SPDX-License-Identifier: GPL-2.0
/*
 * Attach planning. For each hook the candidates are tried in order of
 * how much they can see (fentry/fexit: exact arguments and return value;
 * kprobe: exact arguments; tracepoint: what the tracepoint exposes), each
 * checked against facts: present in BTF with the prototype the BPF
 * program expects, a real symbol (not inlined, not only an .isra clone),
 * traceable, and a trial attach that succeeded. Nothing here looks at
 * the kernel version.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "live/plan.h"

static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n >= len - 1)
		return;
	if (n)
		snprintf(buf + n, len - n, "; "), n += 2;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static void reject_proto(struct hook_plan *h, int mech, const char *name)
{
	append(h->rejected, sizeof(h->rejected),
	       "%s %s: prototype not one this tool knows", mech_names[mech], name);
}

/*
 * The hook target row whose prototype this kernel's BTF gives sym (the
 * row's variant picks the program); NULL, and sym rejected, if none does.
 */
static const struct hook_target *proto_row(const struct kfacts *f, struct hook_plan *h,
					   enum hook hook, int mech, const char *sym)
{
	const struct hook_target *t;

	if (mech == MECH_TRACEPOINT)
		t = target_fit(hook, TARGET_TP, sym, &facts_tp(f, sym)->proto);
	else
		t = target_fit(hook, TARGET_FUNC, sym, &facts_func(f, sym)->proto);
	if (!t)
		reject_proto(h, mech, sym);
	return t;
}

/* Whether tracepoint tp has a prototype the hook's programs can read */
static bool tp_fits(const struct kfacts *f, enum hook hook, const char *tp)
{
	return target_fit(hook, TARGET_TP, tp, &facts_tp(f, tp)->proto);
}

/*
 * Takes the program prog_table has for this hook, kind and variant; false
 * (and the candidate rejected) if there is none: then the BPF object has
 * no program for this kernel's variant.
 */
static bool choose(struct hook_plan *h, enum hook hook, enum prog_kind kind,
		   int variant, const char *target)
{
	const struct prog_def *d = prog_find(hook, kind, variant);

	if (!d) {
		reject_proto(h, prog_mechanism(kind), target);
		return false;
	}
	h->chosen = true;
	h->mech = prog_mechanism(kind);
	h->prog = d;
	snprintf(h->target, sizeof(h->target), "%s", target);
	return true;
}

/* A hook measured from another's data: no probe, maybe no program. */
static void choose_derived(struct hook_plan *h, enum hook hook, const char *what)
{
	h->chosen = true;
	h->mech = MECH_DERIVED;
	h->prog = prog_find(hook, PROG_USER, PROG_ANY_VARIANT);
	snprintf(h->target, sizeof(h->target), "%s", what);
}

/*
 * A tracepoint's program: tp_btf (arguments typed by BTF, fields read
 * with plain loads) where the kernel takes it, else raw_tp (every field a
 * probe read). The counts are the same.
 */
static bool choose_tp(struct kfacts *f, struct plan *p, enum hook hook,
		      const char *tp, int variant)
{
	struct hook_plan *h = &p->hooks[hook];
	const struct tp_fact *tf = facts_tp(f, tp);
	bool btf = false;

	if (!prog_find(hook, PROG_TP_BTF, variant))
		;	/* raw_tp only: nothing to try */
	else if (p->mode == MODE_RAW_TP)
		append(h->rejected, sizeof(h->rejected), "tp_btf %s: --mode raw_tp", tp);
	else if (facts_tp_btf_trial(f, tp) == TRIAL_OK)
		btf = true;
	else if (tf && tf->btf_trial == TRIAL_FAILED && tf->btf_trial_shared)
		append(h->rejected, sizeof(h->rejected), "tp_btf %s: trial attach "
		       "to %s failed (%s)", tp, f->tps[f->tp_btf_tried - 1].name,
		       tf->btf_trial_error);
	else if (tf && tf->btf_trial == TRIAL_FAILED)
		append(h->rejected, sizeof(h->rejected), "tp_btf %s: trial attach "
		       "failed (%s)", tp, tf->btf_trial_error);
	else
		append(h->rejected, sizeof(h->rejected), "tp_btf %s: not tried", tp);
	return choose(h, hook, btf ? PROG_TP_BTF : PROG_RAW_TP, variant, tp);
}

/*
 * Before the symbols are read (a session's lazy facts), the checks that
 * need none of them: a kernel where fentry trials fail and kprobes are
 * absent never reads /proc/kallsyms. Each rejects only candidates the
 * full checks would reject too, so the plan is the same; a candidate that
 * passes has the symbols read and goes through the full checks.
 */
static bool func_usable_early(struct kfacts *f, struct func_fact *fn, int mech,
			      struct hook_plan *h)
{
	const char *m = mech_names[mech];

	if (mech == MECH_KPROBE && !f->kprobe_pmu) {
		append(h->rejected, sizeof(h->rejected),
		       "kprobe %s: kprobes not available in this kernel", fn->name);
		return false;
	}
	if (!fn->proto.in_btf) {
		append(h->rejected, sizeof(h->rejected),
		       "%s %s: not in this kernel's BTF", m, fn->name);
		return false;
	}
	if (mech == MECH_FENTRY && facts_func_trial(f, fn, mech) == TRIAL_FAILED) {
		append(h->rejected, sizeof(h->rejected), "%s %s: trial attach failed (%s)",
		       m, fn->name, fn->trial_error[mech]);
		return false;
	}
	facts_symbols(f);
	return true;
}

/* Can this function be hooked with fentry/fexit or kprobe? */
static bool func_usable(struct kfacts *f, const char *name, int mech,
			struct hook_plan *h)
{
	struct func_fact *fn = (struct func_fact *)facts_func(f, name);
	const char *m = mech_names[mech];

	if (fn && f->symbols_pending && !func_usable_early(f, fn, mech, h))
		return false;
	if (!fn || (!fn->in_kallsyms && !fn->clone_only && !fn->proto.in_btf)) {
		append(h->rejected, sizeof(h->rejected), "%s %s: not in this kernel", m, name);
		return false;
	}
	if (!fn->in_kallsyms) {
		append(h->rejected, sizeof(h->rejected), "%s %s: %s", m, name,
		       fn->clone_only ? "only a compiler clone (.isra/.constprop) exists, "
		       "its arguments cannot be trusted" : "inlined (no symbol)");
		return false;
	}
	if (!fn->proto.in_btf) {
		append(h->rejected, sizeof(h->rejected),
		       "%s %s: no BTF prototype", m, name);
		return false;
	}
	if (fn->traceable == 0) {
		append(h->rejected, sizeof(h->rejected),
		       "%s %s: not in available_filter_functions", m, name);
		return false;
	}
	if (mech == MECH_KPROBE && !f->kprobe_pmu) {
		append(h->rejected, sizeof(h->rejected),
		       "kprobe %s: kprobes not available in this kernel", name);
		return false;
	}
	if (facts_func_trial(f, fn, mech) == TRIAL_FAILED) {
		append(h->rejected, sizeof(h->rejected), "%s %s: trial attach failed (%s)",
		       m, name, fn->trial_error[mech]);
		return false;
	}
	return true;
}

static bool tp_usable(const struct kfacts *f, const char *name, struct hook_plan *h)
{
	const struct tp_fact *tp = facts_tp(f, name);

	if (!tp || !tp->proto.in_btf) {
		append(h->rejected, sizeof(h->rejected),
		       "tracepoint %s: not in this kernel", name);
		return false;
	}
	if (tp->trial == TRIAL_FAILED) {
		append(h->rejected, sizeof(h->rejected),
		       "tracepoint %s: trial attach failed (%s)", name, tp->trial_error);
		return false;
	}
	return true;
}

static bool mech_allowed(const struct plan *p, int mech)
{
	return p->mode == MODE_AUTO || p->mode == mech ||
		(mech == MECH_TRACEPOINT && p->mode == MODE_RAW_TP);
}

const char *plan_mode_name(int mode)
{
	return mode == MODE_AUTO ? "auto" : mode == MODE_RAW_TP ? "raw_tp" :
		mech_names[mode];
}

/* ----------------------------------------------------------- per hook */

/* What each write hook counts, for the plan's note */
static const char *write_note(int variant)
{
	switch (variant) {
	case WRITE_TP_ITER:
		return "each buffered write(2)'s request, before the copy, at its "
		       "first iomap_iter call (every iomap user); what a copy that "
		       "faults leaves uncopied is taken back at its last";
	case WRITE_TP_REQUESTED:
		return "XFS only; bytes requested by each write(2), counted before "
		       "the copy (a short write counts its request)";
	default:
		return "";
	}
}

static void plan_write(struct kfacts *f, struct plan *p)
{
	struct hook_plan *h = &p->hooks[HOOK_WRITE];
	const char *fn = hook_target(HOOK_WRITE, TARGET_FUNC, 0);
	const char *tp;

	h->required = true;
	for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++) {
		const struct hook_target *t;
		const char *ret;

		if (!mech_allowed(p, m) || !func_usable(f, fn, m, h) ||
		    !(t = proto_row(f, h, HOOK_WRITE, m, fn)))
			continue;
		p->write_end_proto = t->variant;
		p->write_variant = t->variant;
		ret = facts_func(f, fn)->proto.ret;
		p->write_end_ret_bool = !strcmp(ret, "bool") || !strcmp(ret, "_Bool");
		/* fentry plans read the return value: fexit */
		if (!choose(h, HOOK_WRITE, m == MECH_FENTRY ? PROG_FEXIT : PROG_KPROBE,
			    p->write_end_proto, fn))
			continue;
		snprintf(h->note, sizeof(h->note), m == MECH_FENTRY ?
			 "bytes committed per folio (fexit return value)" :
			 "bytes copied per folio (short copies into non-uptodate "
			 "folios counted as 0, as the kernel does)");
		return;
	}
	if (!mech_allowed(p, MECH_TRACEPOINT))
		return;
	for (unsigned i = 0; (tp = hook_target(HOOK_WRITE, TARGET_TP, i)); i++) {
		const struct hook_target *t;

		if (!tp_usable(f, tp, h) || !(t = proto_row(f, h, HOOK_WRITE,
							   MECH_TRACEPOINT, tp)) ||
		    !choose_tp(f, p, HOOK_WRITE, tp, t->variant))
			continue;
		p->write_variant = t->variant;
		snprintf(h->note, sizeof(h->note), "%s", write_note(t->variant));
		return;
	}
}

static void plan_writeback(struct kfacts *f, struct plan *p)
{
	const char *fn, *tp;
	struct hook_plan *b = &p->hooks[HOOK_WB_BEGIN], *e = &p->hooks[HOOK_WB_END];

	b->required = true;
	for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++) {
		if (!mech_allowed(p, m))
			continue;
		for (unsigned i = 0; (fn = hook_target(HOOK_WB_BEGIN, TARGET_FUNC, i)); i++) {
			const struct hook_target *t;
			int arg;

			if (!func_usable(f, fn, m, b) ||
			    !(t = proto_row(f, b, HOOK_WB_BEGIN, m, fn)))
				continue;
			/* the folio's (or head page's) argument position */
			arg = t->variant;
			if (!choose(b, HOOK_WB_BEGIN, m == MECH_FENTRY ? PROG_FENTRY :
				    PROG_KPROBE, arg, fn))
				continue;
			choose(e, HOOK_WB_END, m == MECH_FENTRY ? PROG_FEXIT : PROG_KRETPROBE,
			       PROG_ANY_VARIANT, fn);
			p->wb_folio_arg = arg;
			snprintf(b->note, sizeof(b->note),
				 "folio pointer from argument %d", arg);
			snprintf(e->note, sizeof(e->note), "%s return",
				 m == MECH_FENTRY ? "fexit" : "kretprobe");
			return;
		}
	}
	if (!mech_allowed(p, MECH_TRACEPOINT))
		return;
	for (unsigned i = 0; (tp = hook_target(HOOK_WB_BEGIN, TARGET_TP, i)); i++) {
		if (!tp_usable(f, tp, b) || !proto_row(f, b, HOOK_WB_BEGIN, MECH_TRACEPOINT, tp))
			continue;
		/* the kernel read with guarded loads where it has bpf_rdonly_cast */
		if (!choose_tp(f, p, HOOK_WB_BEGIN, tp, f->has_rdonly_cast ?
			       WB_GUARDED_LOADS : PROG_ANY_VARIANT))
			continue;
		p->wb_guarded_loads = b->prog->variant == WB_GUARDED_LOADS;
		snprintf(b->note, sizeof(b->note),
			 "folio pointer learnt when the folio was dirtied%s",
			 p->wb_guarded_loads ?
			 "; folio read with guarded loads (bpf_rdonly_cast)" : "");
		choose_derived(e, HOOK_WB_END, "(none)");
		snprintf(e->note, sizeof(e->note),
			 "no end event: a folio is finished by its thread's next "
			 "folio, or by a flush of contexts idle for 50 ms");
		return;
	}
}

static void plan_submit(struct kfacts *f, struct plan *p)
{
	struct hook_plan *h = &p->hooks[HOOK_SUBMIT];
	const char *tp;

	h->required = true;
	for (unsigned i = 0; (tp = hook_target(HOOK_SUBMIT, TARGET_TP, i)); i++) {
		const struct hook_target *t;

		if (!tp_usable(f, tp, h) ||
		    !(t = proto_row(f, h, HOOK_SUBMIT, MECH_TRACEPOINT, tp)))
			continue;
		p->submit_proto = t->variant;
		snprintf(h->note, sizeof(h->note), "%s", p->submit_proto == SUBMIT_RANGE ?
			 "ranges, trimmed to the mapping as the kernel does" :
			 "one block per event");
		if (!choose_tp(f, p, HOOK_SUBMIT, tp, p->submit_proto))
			continue;
		if (!mech_allowed(p, MECH_TRACEPOINT))
			append(h->note, sizeof(h->note), "tracepoint in every mode: "
			       "iomap_add_to_ioend's prototype differs between kernels "
			       "and it is often inlined");
		return;
	}
}

static void plan_whole_dirty(struct kfacts *f, struct plan *p)
{
	struct hook_plan *h = &p->hooks[HOOK_WHOLE_DIRTY];
	const char *fn = hook_target(HOOK_WHOLE_DIRTY, TARGET_FUNC, 0);

	for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++) {
		if (!mech_allowed(p, m) || !func_usable(f, fn, m, h) ||
		    !proto_row(f, h, HOOK_WHOLE_DIRTY, m, fn))
			continue;
		if (choose(h, HOOK_WHOLE_DIRTY, m == MECH_FENTRY ? PROG_FENTRY :
			   PROG_KPROBE, PROG_ANY_VARIANT, fn))
			return;
	}
	if (p->bitmap != BITMAP_NONE && p->hooks[HOOK_WB_BEGIN].chosen) {
		choose_derived(h, HOOK_WHOLE_DIRTY, "dirty bitmap at writeback");
		snprintf(h->note, sizeof(h->note),
			 "blocks dirty in the kernel's bitmap but not written by a "
			 "seen write(2) are counted as other_dirty_blocks");
		return;
	}
	snprintf(h->note, sizeof(h->note), "not measured: mmap-dirtied folios show "
		 "as folios with no dirty blocks seen");
}

static void plan_helpers(struct kfacts *f, struct plan *p)
{
	struct hook_plan *h = &p->hooks[HOOK_FOLIO_PTR];
	const char *tp = hook_target(HOOK_FOLIO_PTR, TARGET_TP, 0);

	/*
	 * Tracepoint writeback learns the folio here; a kernel without a
	 * dirty bitmap needs it in every mode: a folio seen going clean ->
	 * dirty has no dirty block but those written since, which verify's
	 * check at the bio judges the kernel's writes by.
	 */
	if ((p->hooks[HOOK_WB_BEGIN].chosen && p->hooks[HOOK_WB_BEGIN].mech == MECH_TRACEPOINT) ||
	    p->bitmap == BITMAP_NONE) {
		if (tp_usable(f, tp, h) && tp_fits(f, HOOK_FOLIO_PTR, tp))
			choose_tp(f, p, HOOK_FOLIO_PTR, tp, PROG_ANY_VARIANT);
		else
			snprintf(h->note, sizeof(h->note), p->bitmap == BITMAP_NONE ?
				 "folios dirtied inside the window not told apart" :
				 "kernel dirty bitmap not read");
	}
	h = &p->hooks[HOOK_INVALIDATE];
	tp = hook_target(HOOK_INVALIDATE, TARGET_TP, 0);
	if (tp_usable(f, tp, h) && tp_fits(f, HOOK_INVALIDATE, tp))
		choose_tp(f, p, HOOK_INVALIDATE, tp, PROG_ANY_VARIANT);
	else
		snprintf(h->note, sizeof(h->note), "records of truncated dirty pages "
			 "stay until their map slots are needed");

	h = &p->hooks[HOOK_BIO];
	tp = hook_target(HOOK_BIO, TARGET_TP, 0);
	if (!tp_usable(f, tp, h) || !tp_fits(f, HOOK_BIO, tp))
		return;
	choose_tp(f, p, HOOK_BIO, tp, PROG_ANY_VARIANT);
	if (p->submit_proto == SUBMIT_PER_BLOCK)
		snprintf(h->note, sizeof(h->note), "verify only: write bios' blocks "
			 "placed from their pages and checked there (this kernel's "
			 "submit tracepoint has no file offset)");
	else
		snprintf(h->note, sizeof(h->note), "verify only: write bios matched "
			 "to submitted blocks by physical address, and checked there");
}

/*
 * Folios dirtied on filesystems the figures do not count (ext4, btrfs,
 * the block device's page cache, ...): the clean -> dirty tracepoint,
 * which every filesystem passes, in every mode (issue 26).
 */
static void plan_unwatched(struct kfacts *f, struct plan *p)
{
	struct hook_plan *h = &p->hooks[HOOK_UNWATCHED];
	const char *tp = hook_target(HOOK_UNWATCHED, TARGET_TP, 0);

	if (tp_usable(f, tp, h) && tp_fits(f, HOOK_UNWATCHED, tp) &&
	    choose_tp(f, p, HOOK_UNWATCHED, tp, PROG_ANY_VARIANT)) {
		snprintf(h->note, sizeof(h->note), "folios dirtied on filesystems not "
			 "watched (ext4, btrfs, block devices, ...), per filesystem, "
			 "shown apart by run, hist and top");
		return;
	}
	snprintf(h->note, sizeof(h->note), "filesystems not watched are not "
		 "counted: run, hist and top cannot say what they miss");
}

/*
 * The buffer-head backend (ext4, bpf/buffer_heads.bpf.c): its five
 * tracepoints as tp_btf programs, all or none (each moment needs the
 * others: a write with no writeback would stay a record, a writeback with
 * no dirty blocks would count every block a violation).
 */
static const enum hook bh_hooks[] = {
	HOOK_BH_WRITE, HOOK_BH_WRITE_ND, HOOK_BH_DIRTY, HOOK_BH_BIO, HOOK_BH_INVALIDATE,
};
#define NR_BH_HOOKS	(sizeof(bh_hooks) / sizeof(bh_hooks[0]))

/*
 * All or none: every hook of the backend let go, each saying 'reason'
 * (the hook 'failed' alone, the others that the backend needs all five;
 * NR_BH_HOOKS: no one hook failed).
 */
static void bh_let_go(struct plan *p, unsigned int failed, const char *reason)
{
	for (unsigned int j = 0; j < NR_BH_HOOKS; j++) {
		struct hook_plan *h = &p->hooks[bh_hooks[j]];

		h->chosen = false;
		h->prog = NULL;
		snprintf(h->note, sizeof(h->note), "ext4 not counted: %s%s", reason,
			 j == failed || failed == NR_BH_HOOKS ? "" :
			 " (the backend needs all five)");
	}
}

static void plan_buffer_heads(struct kfacts *f, struct plan *p)
{
	char reason[96];
	unsigned int i;

	for (i = 0; i < NR_BH_HOOKS; i++) {
		enum hook k = bh_hooks[i];
		struct hook_plan *h = &p->hooks[k];
		const char *tp = hook_target(k, TARGET_TP, 0);

		if (!tp_usable(f, tp, h) || !tp_fits(f, k, tp) ||
		    !choose_tp(f, p, k, tp, PROG_ANY_VARIANT) ||
		    h->prog->kind != PROG_TP_BTF) {
			snprintf(reason, sizeof(reason), "no tp_btf program for '%s'",
				 hook_names[k]);
			bh_let_go(p, i, reason);
			return;
		}
	}
	/*
	 * Journalled data (data=journal, chattr +j) goes to the journal, not
	 * by the backend's hooks: those files must be told apart, with ext4's
	 * own types. Where the kernel's BTF has none (facts from a file: not
	 * known, nothing is loaded), a session could not: no backend.
	 */
	if (f->btf && !facts_ext4_layout(f, &p->ext4)) {
		bh_let_go(p, NR_BH_HOOKS, "its types (ext4_sb_info, ext4_inode_info) "
			  "are in no BTF, so files whose data is journalled could not "
			  "be told apart");
		return;
	}
	snprintf(p->hooks[HOOK_BH_WRITE].note, sizeof(p->hooks[0].note),
		 "ext4 (buffer heads): each write(2)'s part of a folio, after the "
		 "copy; a short copy is a loss (buffer_head_short_copy)");
	snprintf(p->hooks[HOOK_BH_WRITE_ND].note, sizeof(p->hooks[0].note),
		 "ext4 without delayed allocation (nodelalloc, or its fallback)");
	snprintf(p->hooks[HOOK_BH_DIRTY].note, sizeof(p->hooks[0].note),
		 "ext4: each block gone clean -> dirty (mark_buffer_dirty), the "
		 "kernel's per-block dirty state");
	snprintf(p->hooks[HOOK_BH_INVALIDATE].note, sizeof(p->hooks[0].note),
		 "ext4: records of truncated dirty pages forgotten");
	snprintf(p->hooks[HOOK_BH_BIO].note, sizeof(p->hooks[0].note),
		 "ext4 writeback: each write bio's folios and blocks, from its "
		 "bio_vecs; a folio ends at its thread's next one or the flush");
}

static void bio_hook_note(struct plan *p);

void plan_drop_bh_backend(struct plan *p, const char *why)
{
	bool btrfs = plan_btrfs_backend(p);

	for (unsigned int i = 0; i < NR_BH_HOOKS; i++) {
		struct hook_plan *h = &p->hooks[bh_hooks[i]];

		if (!h->chosen)
			continue;
		if (bh_hooks[i] == HOOK_BH_BIO && btrfs) {
			bio_hook_note(p);
			continue;
		}
		h->chosen = false;
		snprintf(h->note, sizeof(h->note), "not attached: %s", why);
	}
}

/*
 * The btrfs backend (bpf/btrfs.bpf.c): its four hooks as tp_btf programs,
 * all or none, with the write bios' (HOOK_BH_BIO, the buffer-head
 * backend's walk: taken here too where ext4's was let go), and btrfs's
 * layout from BTF (a file's subvolume device).
 */
static const enum hook btrfs_hooks[] = {
	HOOK_BTRFS_WRITE, HOOK_BTRFS_WRITE_END, HOOK_BTRFS_DIRTY, HOOK_BTRFS_FORGET,
};
#define NR_BTRFS_HOOKS	(sizeof(btrfs_hooks) / sizeof(btrfs_hooks[0]))

static void btrfs_let_go(struct plan *p, const char *reason)
{
	for (unsigned int j = 0; j < NR_BTRFS_HOOKS; j++) {
		struct hook_plan *h = &p->hooks[btrfs_hooks[j]];

		h->chosen = false;
		h->prog = NULL;
		snprintf(h->note, sizeof(h->note), "btrfs not counted: %s", reason);
	}
}

/* The write bios' hook says which backends it serves. */
static void bio_hook_note(struct plan *p)
{
	bool bh = plan_bh_backend(p), btrfs = plan_btrfs_backend(p);
	struct hook_plan *h = &p->hooks[HOOK_BH_BIO];

	if (!h->chosen)
		return;
	snprintf(h->note, sizeof(h->note), "%s writeback: each write bio's folios and "
		 "blocks, from its bio_vecs; a folio ends at its thread's next one or "
		 "the flush", bh && btrfs ? "ext4 and btrfs" : btrfs ? "btrfs" : "ext4");
}

static bool btrfs_hook_ok(struct kfacts *f, struct plan *p, enum hook k)
{
	struct hook_plan *h = &p->hooks[k];
	const char *tp = hook_target(k, TARGET_TP, 0);

	if (h->chosen)
		return h->prog && h->prog->kind == PROG_TP_BTF;
	return tp_usable(f, tp, h) && tp_fits(f, k, tp) &&
	       choose_tp(f, p, k, tp, PROG_ANY_VARIANT) && h->prog->kind == PROG_TP_BTF;
}

static void plan_btrfs(struct kfacts *f, struct plan *p)
{
	char reason[96];

	/*
	 * A file's subvolume names it: btrfs's own types say where it is.
	 * Asked first: a kernel without btrfs has none, and then no trial
	 * attach of the backend's tracepoints is made.
	 */
	if (f->btf && !facts_btrfs_layout(f, &p->btrfs)) {
		btrfs_let_go(p, "its types (btrfs_inode, btrfs_root) are in no BTF: "
			     "btrfs is not in this kernel, or a file's subvolume "
			     "could not be told");
		return;
	}
	for (unsigned int i = 0; i < NR_BTRFS_HOOKS; i++) {
		if (!btrfs_hook_ok(f, p, btrfs_hooks[i])) {
			snprintf(reason, sizeof(reason), "no tp_btf program for '%s'",
				 hook_names[btrfs_hooks[i]]);
			btrfs_let_go(p, reason);
			return;
		}
	}
	if (!btrfs_hook_ok(f, p, HOOK_BH_BIO)) {
		btrfs_let_go(p, "no tp_btf program for its write bios (block_bio_queue)");
		return;
	}
	snprintf(p->hooks[HOOK_BTRFS_WRITE].note, sizeof(p->hooks[0].note),
		 "btrfs: each write syscall's request (write, pwrite64, writev, "
		 "pwritev, pwritev2), before the copy; not io_uring, aio, splice");
	snprintf(p->hooks[HOOK_BTRFS_WRITE_END].note, sizeof(p->hooks[0].note),
		 "btrfs: what each write syscall wrote; the rest given back");
	snprintf(p->hooks[HOOK_BTRFS_DIRTY].note, sizeof(p->hooks[0].note),
		 "btrfs: each folio gone clean -> dirty (one block per folio)");
	snprintf(p->hooks[HOOK_BTRFS_FORGET].note, sizeof(p->hooks[0].note),
		 "btrfs: records of folios leaving the page cache forgotten");
	bio_hook_note(p);
}

bool plan_btrfs_backend(const struct plan *p)
{
	for (unsigned int i = 0; i < NR_BTRFS_HOOKS; i++)
		if (!p->hooks[btrfs_hooks[i]].chosen)
			return false;
	return p->hooks[HOOK_BH_BIO].chosen;
}

void plan_drop_btrfs_backend(struct plan *p, const char *why)
{
	struct hook_plan *bio = &p->hooks[HOOK_BH_BIO];

	if (!plan_btrfs_backend(p))
		return;
	for (unsigned int i = 0; i < NR_BTRFS_HOOKS; i++) {
		struct hook_plan *h = &p->hooks[btrfs_hooks[i]];

		h->chosen = false;
		snprintf(h->note, sizeof(h->note), "not attached: %s", why);
	}
	/* ext4's walk may need it still */
	if (plan_bh_backend(p)) {
		bio_hook_note(p);
		return;
	}
	bio->chosen = false;
	snprintf(bio->note, sizeof(bio->note), "not attached: %s", why);
}

/*
 * The hooks the always-on level keeps no use for: they only feed the page
 * records (which blocks went dirty, records of truncated pages).
 */
static bool bh_hook_records_only(enum hook k)
{
	return k == HOOK_BH_DIRTY || k == HOOK_BH_INVALIDATE;
}

bool plan_bh_backend(const struct plan *p)
{
	for (unsigned int i = 0; i < NR_BH_HOOKS; i++) {
		enum hook k = bh_hooks[i];

		if (p->hooks[k].chosen)
			continue;
		/* always-on: detached by the level, the backend runs without */
		if (p->accounting == ACCOUNTING_ALWAYS_ON && bh_hook_records_only(k) &&
		    p->hooks[k].prog)
			continue;
		return false;
	}
	return true;
}

static void classify(struct kfacts *f, struct plan *p)
{
	/* the newest writeback symbol (the table's first) tells 6.17 and later */
	const struct func_fact *wbf = facts_func(f, hook_target(HOOK_WB_BEGIN, TARGET_FUNC, 0));
	const struct tp_fact *wbt = facts_tp(f, hook_target(HOOK_WB_BEGIN, TARGET_TP, 0));

	if (f->has_ifs) {
		p->bitmap = BITMAP_IFS;
		/* the symbol is asked for only when BTF does not tell */
		if (wbf && !wbf->proto.in_btf && !(wbt && wbt->proto.in_btf))
			facts_symbols(f);
		if ((wbf && (wbf->proto.in_btf || wbf->in_kallsyms)) ||
		    (wbt && wbt->proto.in_btf)) {
			p->family = 'd';
			p->family_desc = "iomap_folio_state, iomap_writeback_folio "
					 "(mainline 6.17 and later)";
		} else {
			p->family = 'c';
			p->family_desc = "iomap_folio_state, iomap_writepage_map "
					 "(mainline 6.6 to 6.16)";
		}
	} else if (f->iop_has_state) {
		p->bitmap = BITMAP_IOP_STATE;
		p->family = 'a';
		p->family_desc = "iomap_page with state[] (RFCv4 per-block dirty "
				 "tracking patched in)";
	} else if (f->iop_has_uptodate) {
		p->bitmap = BITMAP_NONE;
		p->family = 'b';
		p->family_desc = "iomap_page with uptodate[] only (no per-block "
				 "dirty tracking: whole folios are written)";
	} else {
		p->bitmap = BITMAP_NONE;
		p->family = '?';
		p->family_desc = "no iomap per-folio state type in BTF";
	}
}

int plan_build(struct kfacts *f, int mode, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	classify(f, p);
	p->cgroup_ids = facts_cgroup_ids(f, p->cgroup_why, sizeof(p->cgroup_why));
	if (!f->has_btf) {
		snprintf(p->error, sizeof(p->error), "the kernel has no BTF "
			 "(/sys/kernel/btf/vmlinux): CO-RE programs cannot be relocated");
		return -EOPNOTSUPP;
	}
	plan_write(f, p);
	plan_writeback(f, p);
	plan_submit(f, p);
	plan_whole_dirty(f, p);
	plan_helpers(f, p);
	plan_unwatched(f, p);
	plan_buffer_heads(f, p);
	plan_btrfs(f, p);

	p->ok = true;
	for (int i = 0; i < NR_HOOKS; i++) {
		if (p->hooks[i].required && !p->hooks[i].chosen) {
			p->ok = false;
			snprintf(p->error, sizeof(p->error),
				 "cannot measure '%s'%s%s: %s", hook_names[i],
				 mode == MODE_AUTO ? "" : " with mode ",
				 mode == MODE_AUTO ? "" : plan_mode_name(mode),
				 p->hooks[i].rejected[0] ? p->hooks[i].rejected :
				 "no candidate");
			break;
		}
	}
	return p->ok ? 0 : -EOPNOTSUPP;
}

int plan_mode_parse(const char *s, int *mode)
{
	for (int m = MODE_AUTO; m <= MODE_RAW_TP; m++) {
		if (!strcmp(s, plan_mode_name(m))) {
			*mode = m;
			return 0;
		}
	}
	return -EINVAL;
}

/* A hook the always-on level does not attach, and why. */
static void detach_for_level(struct hook_plan *h, const char *why)
{
	if (!h->chosen)
		return;
	h->chosen = false;
	snprintf(h->note, sizeof(h->note), "not attached at the always-on accounting "
		 "level: %s", why);
}

void plan_set_accounting(struct plan *p, enum accounting_level l)
{
	p->accounting = l;
	if (l != ACCOUNTING_ALWAYS_ON)
		return;
	/* what only feeds the per-page records, which this level does not keep */
	detach_for_level(&p->hooks[HOOK_WHOLE_DIRTY], "no page records; a folio "
			 "dirtied whole shows in the kernel's dirty bitmap");
	detach_for_level(&p->hooks[HOOK_FOLIO_PTR], "writeback finds the folio in the "
			 "page cache");
	detach_for_level(&p->hooks[HOOK_INVALIDATE], "no page records to forget");
	detach_for_level(&p->hooks[HOOK_UNWATCHED], "no command at this level says "
			 "what it does not watch");
	/*
	 * ext4: the writes into the file's sums, its bios as they are; which
	 * blocks were dirty is read from the folio's buffer heads at its
	 * first write bio (bpf/buffer_heads.bpf.c), not seen going dirty
	 */
	detach_for_level(&p->hooks[HOOK_BH_DIRTY], "ext4's dirty blocks are read "
			 "from the folio's buffer heads at its first write bio");
	detach_for_level(&p->hooks[HOOK_BH_INVALIDATE], "no page records to forget");
	/*
	 * btrfs: no buffers to read the dirty blocks from at the write bio,
	 * and its write hooks would run at every syscall of the host
	 */
	plan_drop_btrfs_backend(p, "btrfs is counted at the full accounting level only: "
				"at this level no record says which folios its writers "
				"dirtied");
	if (p->hooks[HOOK_BH_BIO].chosen)
		snprintf(p->hooks[HOOK_BH_BIO].note, sizeof(p->hooks[HOOK_BH_BIO].note),
			 "ext4 writeback: each write bio's folios and blocks; a folio's "
			 "dirty blocks read from its buffer heads at its first bio "
			 "(always-on accounting)");
	if (p->hooks[HOOK_WB_BEGIN].chosen && p->hooks[HOOK_WB_BEGIN].mech == MECH_TRACEPOINT)
		snprintf(p->hooks[HOOK_WB_BEGIN].note, sizeof(p->hooks[HOOK_WB_BEGIN].note),
			 "folio found in the page cache (always-on accounting)%s",
			 p->wb_guarded_loads ? "; read with guarded loads (bpf_rdonly_cast)" : "");
}
