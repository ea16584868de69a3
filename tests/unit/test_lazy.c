// SPDX-License-Identifier: GPL-2.0
/*
 * A session's lazy facts (TRIALS_LAZY) plan exactly as the full facts do:
 * the symbols (kallsyms, available_filter_functions) read only when a
 * fentry or kprobe candidate needs them, one tp_btf trial shared by every
 * tracepoint. Each recorded facts file is turned into its lazy twin: the
 * symbol facts cleared and written out as the files they were read from,
 * the recorded trial outcomes kept, so that no trial here reaches the
 * kernel (no BTF: a tp_btf trial ends in ENOENT before any syscall).
 */
#include <stdlib.h>
#include <unistd.h>
#include "live/plan.h"
#include "unit.h"

static const char *const fixtures[] = {
	"family-a-6.1-rfcv4.facts", "family-b-6.1-unpatched.facts",
	"family-c-6.12.facts", "family-d-6.18-this-machine.facts",
};

static const char clone_facts[] = UNIT_CLONE_ONLY_FACTS;

static char ksyms_path[] = "/tmp/iomapdirty-test-kallsyms.XXXXXX";
static char ftrace_path[] = "/tmp/iomapdirty-test-ftrace.XXXXXX";

#define parse unit_parse_facts

static int load(const char *name, struct kfacts *f)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return parse(NULL, 0, path, f);
}

/*
 * The lazy twin of recorded facts. A trial the file does not record
 * counts as passed in a plan from a file; it is recorded as passed here,
 * so that the twin makes no trial of its own.
 */
static void make_lazy(struct kfacts *f)
{
	FILE *ks = fopen(ksyms_path, "w"), *ft = fopen(ftrace_path, "w");
	bool traceable_known = false;

	for (int i = 0; i < f->nr_funcs; i++) {
		struct func_fact *fn = &f->funcs[i];

		if (fn->in_kallsyms)
			fprintf(ks, "ffffffff81000000 t %s\n", fn->name);
		if (fn->clone_only)
			fprintf(ks, "ffffffff81000000 t %s.isra.0\n", fn->name);
		if (fn->traceable == 1)
			fprintf(ft, "%s\n", fn->name);
		if (fn->traceable >= 0)
			traceable_known = true;
		fn->in_kallsyms = fn->clone_only = false;
		fn->traceable = -1;
		for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++) {
			if (fn->trial[m] != TRIAL_UNKNOWN)
				continue;
			fn->trial[m] = TRIAL_OK;
			snprintf(fn->trial_error[m], sizeof(fn->trial_error[m]), "ok");
		}
	}
	/* names the scan must not take for ours */
	fprintf(ks, "ffffffff81000000 T iomap_write_end_other\n"
		"ffffffff81000000 D iomap_dirty_folio\n");
	fclose(ks);
	fclose(ft);
	f->trials = TRIALS_LAZY;
	f->symbols_pending = true;
	f->kallsyms_path = ksyms_path;
	/* tracefs unreadable when recorded: traceable stays unknown */
	f->ftrace_path = traceable_known ? ftrace_path : "/nonexistent/available_filter_functions";
}

static const char *prog_name(const struct hook_plan *h)
{
	return h->prog ? h->prog->name : "(none)";
}

static bool same_choices(const struct plan *a, const struct plan *b)
{
	if (a->ok != b->ok || a->family != b->family || a->bitmap != b->bitmap ||
	    a->write_end_proto != b->write_end_proto ||
	    a->write_end_ret_bool != b->write_end_ret_bool ||
	    a->submit_proto != b->submit_proto || a->wb_folio_arg != b->wb_folio_arg)
		return false;
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *x = &a->hooks[i], *y = &b->hooks[i];

		if (x->chosen != y->chosen || x->required != y->required ||
		    x->mech != y->mech || strcmp(x->target, y->target) ||
		    x->prog != y->prog || strcmp(x->note, y->note))
			return false;
	}
	return true;
}

static void lazy_equals_full(const char *name, const char *text, size_t len)
{
	for (int mode = MODE_AUTO; mode <= MODE_RAW_TP; mode++) {
		struct kfacts full, lazy;
		struct plan p, q;

		if (text ? parse(text, len, name, &full) || parse(text, len, name, &lazy) :
			   load(name, &full) || load(name, &lazy))
			return;
		make_lazy(&lazy);
		plan_build(&full, mode, &p);
		plan_build(&lazy, mode, &q);
		CHECK(same_choices(&p, &q), "%s mode %d: lazy facts plan as the full ones",
		      name, mode);
		/*
		 * symbols read, if they were, exactly as recorded (traceable:
		 * where recorded; a function a file does not list is unknown)
		 */
		for (int i = 0; !lazy.symbols_pending && i < lazy.nr_funcs; i++)
			CHECK(lazy.funcs[i].in_kallsyms == full.funcs[i].in_kallsyms &&
			      lazy.funcs[i].clone_only == full.funcs[i].clone_only &&
			      (full.funcs[i].traceable < 0 ||
			       lazy.funcs[i].traceable == full.funcs[i].traceable),
			      "%s mode %d: %s symbols read back", name, mode,
			      lazy.funcs[i].name);
	}
}

static void symbols_when_needed(void)
{
	struct kfacts f;
	struct plan p;

	/* fentry refused, kprobes absent: the symbols are never read */
	if (load("family-d-6.18-this-machine.facts", &f))
		return;
	make_lazy(&f);
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "d lazy: auto plan is complete");
	CHECK(f.symbols_pending, "d lazy: kallsyms not read (no fentry or kprobe can attach)");
	CHECK(strstr(p.hooks[HOOK_WRITE].rejected,
		     "fentry iomap_write_end: trial attach failed (EPERM)") != NULL,
	      "d lazy: fentry rejected with the trial's reason");
	CHECK(strstr(p.hooks[HOOK_WRITE].rejected,
		     "kprobe iomap_write_end: kprobes not available") != NULL,
	      "d lazy: kprobe rejected for the missing kprobe PMU");
	CHECK(strstr(p.hooks[HOOK_WB_BEGIN].rejected,
		     "fentry iomap_writepage_map: not in this kernel's BTF") != NULL,
	      "d lazy: a function BTF does not have is rejected without symbols");

	/* fentry works: read once the first trial passes */
	if (load("family-a-6.1-rfcv4.facts", &f))
		return;
	make_lazy(&f);
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "a lazy: auto plan is complete");
	CHECK(!f.symbols_pending, "a lazy: kallsyms read for the fentry candidates");

	/* kprobes only: read before the first kprobe candidate is judged */
	if (load("family-a-6.1-rfcv4.facts", &f))
		return;
	make_lazy(&f);
	CHECK(plan_build(&f, MECH_KPROBE, &p) == 0 && !f.symbols_pending,
	      "a lazy: kallsyms read for the kprobe candidates");

	/* a trial that passes does not let an .isra clone through */
	if (parse(clone_facts, sizeof(clone_facts) - 1, "clone", &f))
		return;
	make_lazy(&f);
	CHECK(plan_build(&f, MODE_AUTO, &p) != 0 && strstr(p.error, "compiler clone"),
	      "clone lazy: refused as a compiler clone after the trial passed");
}

static void set_tp_btf(struct kfacts *f, const char *tp, enum trial t, const char *res)
{
	for (int i = 0; i < f->nr_tps; i++) {
		if (strcmp(f->tps[i].name, tp))
			continue;
		f->tps[i].btf_trial = t;
		snprintf(f->tps[i].btf_trial_error, sizeof(f->tps[i].btf_trial_error),
			 "%s", res);
		f->tp_btf_tried = i + 1;
	}
}

/* This machine's facts, trials run as a session would, with one tp_btf outcome. */
static int this_machine_with_trial(struct kfacts *f, enum trial t, const char *res)
{
	if (load("family-d-6.18-this-machine.facts", f))
		return -1;
	f->trials = TRIALS_LAZY;
	set_tp_btf(f, "iomap_iter", t, res);
	return 0;
}

static void tp_btf_shared(void)
{
	const struct tp_fact *tp;
	struct kfacts f, g;
	struct plan p, q;
	char buf[16384];
	FILE *fp;

	/* one trial passed: every tracepoint hook gets its tp_btf program */
	if (this_machine_with_trial(&f, TRIAL_OK, "ok"))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "tp_btf ok: plan is complete");
	CHECK_STR(prog_name(&p.hooks[HOOK_WRITE]), "btf_iomap_iter_write", "tp_btf ok: write");
	/* this kernel has bpf_rdonly_cast: the program reading with guarded loads */
	CHECK_STR(prog_name(&p.hooks[HOOK_WB_BEGIN]), "btf_wb_folio_ld", "tp_btf ok: writeback");
	CHECK_STR(prog_name(&p.hooks[HOOK_SUBMIT]), "btf_submit_range", "tp_btf ok: submit");
	CHECK_STR(prog_name(&p.hooks[HOOK_FOLIO_PTR]), "btf_dirty_folio", "tp_btf ok: folio pointers");
	tp = facts_tp(&f, "iomap_add_to_ioend");
	CHECK(tp->btf_trial == TRIAL_OK && tp->btf_trial_shared &&
	      !strcmp(tp->btf_trial_error, "ok"), "tp_btf ok: the outcome is recorded as shared");
	/* iomap_invalidate_folio has a raw_tp program only */
	CHECK(facts_tp(&f, "iomap_invalidate_folio")->btf_trial == TRIAL_UNKNOWN,
	      "tp_btf ok: tracepoints the plan does not give a tp_btf program stay untried");

	/* ... and a facts file written from them says so, and plans the same */
	fp = fmemopen(buf, sizeof(buf), "w");
	facts_write(&f, fp);
	fclose(fp);
	CHECK(strstr(buf, "trial tp_btf iomap_add_to_ioend ok\n") != NULL,
	      "tp_btf ok: shared outcome written as a trial line");
	if (parse(buf, strlen(buf), "written", &g))
		return;
	plan_build(&g, MODE_AUTO, &q);
	CHECK(same_choices(&p, &q), "tp_btf ok: written facts plan the same");

	/* one trial refused: raw_tp everywhere, each rejection naming it */
	if (this_machine_with_trial(&f, TRIAL_FAILED, "EPERM"))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "tp_btf refused: plan is complete");
	CHECK_STR(prog_name(&p.hooks[HOOK_WB_BEGIN]), "tp_wb_folio", "tp_btf refused: raw_tp writeback");
	CHECK_STR(prog_name(&p.hooks[HOOK_SUBMIT]), "tp_submit_range", "tp_btf refused: raw_tp submit");
	CHECK(strstr(p.hooks[HOOK_SUBMIT].rejected, "tp_btf iomap_add_to_ioend: trial attach "
		     "to iomap_iter failed (EPERM)") != NULL,
	      "tp_btf refused: the rejection names the tracepoint tried");
	tp = facts_tp(&f, "writeback_dirty_folio");
	CHECK(tp->btf_trial == TRIAL_FAILED && !strcmp(tp->btf_trial_error, "EPERM"),
	      "tp_btf refused: the errno is recorded");

	/* ENOENT is one tracepoint's own: not shared, the next is tried */
	if (load("family-d-6.18-this-machine.facts", &f))
		return;
	f.trials = TRIALS_LAZY;		/* no BTF here: each trial ENOENT */
	plan_build(&f, MODE_AUTO, &p);
	CHECK(f.tp_btf_tried == 0 && !facts_tp(&f, "iomap_add_to_ioend")->btf_trial_shared &&
	      facts_tp(&f, "iomap_add_to_ioend")->btf_trial == TRIAL_FAILED,
	      "tp_btf ENOENT: each tracepoint tried on its own");

	/* facts from a file (no trials): nothing shared, nothing tried */
	if (load("family-d-6.18-this-machine.facts", &f))
		return;
	set_tp_btf(&f, "iomap_iter", TRIAL_OK, "ok");
	plan_build(&f, MODE_AUTO, &p);
	CHECK(facts_tp(&f, "iomap_add_to_ioend")->btf_trial == TRIAL_UNKNOWN,
	      "tp_btf from a file: an outcome is not shared");
}

int main(void)
{
	int fd1 = mkstemp(ksyms_path), fd2 = mkstemp(ftrace_path);

	CHECK(fd1 >= 0 && fd2 >= 0, "temporary symbol files");
	if (fd1 < 0 || fd2 < 0)
		UNIT_EXIT();
	close(fd1);
	close(fd2);
	for (unsigned i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		lazy_equals_full(fixtures[i], NULL, 0);
	lazy_equals_full("clone", clone_facts, sizeof(clone_facts) - 1);
	symbols_when_needed();
	tp_btf_shared();
	unlink(ksyms_path);
	unlink(ftrace_path);
	UNIT_EXIT();
}
