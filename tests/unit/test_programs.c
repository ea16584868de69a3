// SPDX-License-Identifier: GPL-2.0
/*
 * The program table (user/live/programs.c) against the BPF object, and the
 * plans against the table (opening the object needs no privilege;
 * nothing is loaded):
 *   - every row names a program of the BPF object, of the kind the row
 *     says: section prefix, program type and attach type as this file
 *     expects them for that kind (not as the table says), so that a row
 *     calling an fentry program an fexit, or a kprobe a kretprobe, fails;
 *   - every program of the object has a row (none the planner cannot use);
 *   - a program's section names a kernel symbol it serves: one of the hook
 *     target rows (hook, kind, variant) of its program table rows, so that
 *     the object says where each program attaches (fentry_wb_begin_aN:
 *     its writeback function, not another's);
 *   - every plan, for every kernel family and mode, takes its programs
 *     from rows for the hook, mechanism and kernel variant it chose;
 *   - together those plans reach every row. The recorded facts do not
 *     reach all variants (6.1's iomap_writepage_map was inlined; fentry
 *     and kprobes are refused here), so a few kernels are added, each with
 *     the prototypes ../shared/notes/kernels.md gives for it.
 */
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "iomapdirty.skel.h"
#include "live/plan.h"
#include "unit.h"

static const char *const fixtures[] = {
	"family-a-6.1-rfcv4.facts", "family-b-6.1-unpatched.facts",
	"family-c-6.12.facts", "family-d-6.18-this-machine.facts",
};

/* What a program of each kind looks like in the object. */
static const struct {
	const char *section;	/* prefix; "raw_tp" exactly for PROG_USER */
	enum bpf_prog_type type;
	int attach_type;	/* -1: not checked (set at attach) */
} expect[NR_PROG_KINDS] = {
	[PROG_FENTRY] = { "fentry/", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY },
	[PROG_FEXIT] = { "fexit/", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT },
	[PROG_KPROBE] = { "kprobe/", BPF_PROG_TYPE_KPROBE, -1 },
	[PROG_KRETPROBE] = { "kretprobe/", BPF_PROG_TYPE_KPROBE, -1 },
	[PROG_TP_BTF] = { "tp_btf/", BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP },
	[PROG_RAW_TP] = { "raw_tp/", BPF_PROG_TYPE_RAW_TRACEPOINT, -1 },
	[PROG_USER] = { "raw_tp", BPF_PROG_TYPE_RAW_TRACEPOINT, -1 },
};

/*
 * Kernels the fixtures do not cover, from kernels.md. No trial lines: a
 * plan from a file takes an untried candidate as attachable.
 */
static const char kernel_6_6[] =	/* iomap_writepage_map not inlined */
	"btf 1\ntype iomap_folio_state 1\nkprobe_pmu 1\n"
	"func iomap_write_end ksym=1 traceable=1 btf=1 ret=size_t "
	"args=iomap_iter*,loff_t,size_t,size_t,folio*\n"
	"func iomap_writepage_map ksym=1 traceable=1 btf=1 ret=int "
	"args=iomap_writepage_ctx*,writeback_control*,inode*,folio*,u64\n"
	"tp iomap_writepage_map btf=1 ret=void args=inode*,iomap*\n";
static const char kernel_6_12[] =	/* the same, 6.9-6.16 prototypes */
	"btf 1\ntype iomap_folio_state 1\nkprobe_pmu 1\n"
	"func iomap_write_end ksym=1 traceable=1 btf=1 ret=bool "
	"args=iomap_iter*,loff_t,size_t,size_t,folio*\n"
	"func iomap_writepage_map ksym=1 traceable=1 btf=1 ret=int "
	"args=iomap_writepage_ctx*,writeback_control*,folio*\n"
	"tp iomap_writepage_map btf=1 ret=void args=inode*,u64,unsigned_int,iomap*\n";

static const char *reached_by[64];
static char reached_buf[64][96];

static void check_rows(struct iomapdirty_bpf *skel)
{
	for (unsigned int i = 0; i < prog_table_len; i++) {
		const struct prog_def *d = &prog_table[i];
		struct bpf_program *prog =
			bpf_object__find_program_by_name(skel->obj, d->name);
		const char *sec;

		CHECK(prog != NULL, "program table row %u (%s %s %s): in the BPF object",
		      i, hook_names[d->hook], prog_kind_names[d->kind], d->name);
		if (!prog)
			continue;
		sec = bpf_program__section_name(prog);
		CHECK(d->kind == PROG_USER ? !strcmp(sec, expect[d->kind].section) :
		      !strncmp(sec, expect[d->kind].section, strlen(expect[d->kind].section)),
		      "program table row %u: %s is a %s program (section %s)", i, d->name,
		      prog_kind_names[d->kind], sec);
		CHECK(bpf_program__type(prog) == expect[d->kind].type &&
		      (expect[d->kind].attach_type < 0 ||
		       (int)bpf_program__expected_attach_type(prog) == expect[d->kind].attach_type),
		      "program table row %u: %s has the program and attach type of a %s",
		      i, d->name, prog_kind_names[d->kind]);
	}
}

static void check_objects_programs(struct iomapdirty_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		bool found = false;

		for (unsigned int i = 0; i < prog_table_len; i++)
			found |= !strcmp(prog_table[i].name, bpf_program__name(prog));
		found |= prog_is_utility(bpf_program__name(prog));
		CHECK(found, "BPF program %s has a row in the program table (or is a utility)",
		      bpf_program__name(prog));
	}
}

/* Whether program table row d serves hook target row t */
static bool serves(const struct prog_def *d, const struct hook_target *t)
{
	/* the end of writeback is hooked where its begin is */
	enum hook hook = d->hook == HOOK_WB_END ? HOOK_WB_BEGIN : d->hook;
	enum target_kind kind = prog_mechanism(d->kind) == MECH_TRACEPOINT ?
				TARGET_TP : TARGET_FUNC;

	return t->hook == hook && t->kind == kind && t->variant != TARGET_FACT_ONLY &&
	       (d->variant == PROG_ANY_VARIANT || t->variant == PROG_ANY_VARIANT ||
		d->variant == t->variant);
}

static void check_sections(struct iomapdirty_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog), *sym = strchr(sec, '/');
		bool named = false, has_row = false;

		for (unsigned int i = 0; i < prog_table_len; i++) {
			const struct prog_def *d = &prog_table[i];

			if (strcmp(d->name, bpf_program__name(prog)) || d->kind == PROG_USER)
				continue;
			has_row = true;
			for (unsigned int r = 0; sym && r < hook_targets_len; r++)
				named |= serves(d, &hook_targets[r]) &&
					 !strcmp(hook_targets[r].symbol, sym + 1);
		}
		if (has_row)
			CHECK(named, "program %s: its section names a target it serves",
			      bpf_program__name(prog));
	}
}

/* The variant the plan chose for a hook, in prog_def.variant's terms. */
static int plan_variant(const struct plan *p, enum hook h)
{
	switch (h) {
	case HOOK_WRITE: return p->write_variant;
	case HOOK_WB_BEGIN:	/* tracepoints: how the program reads the kernel */
		if (p->hooks[h].mech != MECH_TRACEPOINT)
			return (int)p->wb_folio_arg;
		return p->wb_guarded_loads ? WB_GUARDED_LOADS : PROG_ANY_VARIANT;
	case HOOK_SUBMIT: return p->submit_proto;
	default: return PROG_ANY_VARIANT;
	}
}

static void check_plan(const char *name, int mode, const struct plan *p)
{
	for (int h = 0; h < NR_HOOKS; h++) {
		const struct hook_plan *hp = &p->hooks[h];
		const struct prog_def *d = hp->prog;

		if (!hp->chosen)
			continue;
		if (hp->mech == MECH_DERIVED && !d)
			continue;	/* measured from other hooks' data */
		CHECK(d != NULL, "%s mode %d hook %s: a program from the table",
		      name, mode, hook_names[h]);
		if (!d)
			continue;
		CHECK(d->hook == (enum hook)h && prog_mechanism(d->kind) == hp->mech &&
		      (d->variant == PROG_ANY_VARIANT || d->variant == plan_variant(p, h)),
		      "%s mode %d hook %s: %s is the table's program for %s, variant %d",
		      name, mode, hook_names[h], d->name, plan_mech_detail(hp),
		      plan_variant(p, h));
		if (!reached_by[d - prog_table]) {
			snprintf(reached_buf[d - prog_table], sizeof(reached_buf[0]),
				 "%s mode %d", name, mode);
			reached_by[d - prog_table] = reached_buf[d - prog_table];
		}
	}
}

/* Every mode, as recorded and with every tp_btf trial passed. */
static void plan_all_modes(const char *name, const struct kfacts *recorded)
{
	for (int twin = 0; twin < 2; twin++) {
		for (int mode = MODE_AUTO; mode <= MODE_RAW_TP; mode++) {
			struct kfacts f = *recorded;
			char label[80];
			struct plan p;

			for (int i = 0; twin && i < f.nr_tps; i++)
				f.tps[i].btf_trial = TRIAL_OK;
			snprintf(label, sizeof(label), "%s%s", name, twin ? " (tp_btf)" : "");
			plan_build(&f, mode, &p);
			check_plan(label, mode, &p);
		}
	}
}

static const char *fixture_path(const char *dir, const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int parse(const char *text, const char *path, struct kfacts *f)
{
	return unit_parse_facts(text, text ? strlen(text) : 0, path, f);
}

static const char *section_kind(int mech)
{
	switch (mech) {
	case MECH_FENTRY: return "f";		/* fentry/ or fexit/ */
	case MECH_KPROBE: return "k";		/* kprobe/ or kretprobe/ */
	default: return "";	/* raw_tp/ or tp_btf/: checked apart */
	}
}

/* Each program a plan from recorded facts chooses, looked up by name. */
static void fixture_programs_exist(struct iomapdirty_bpf *skel, const char *fixture,
				   struct kfacts *f)
{
	for (int mode = MODE_AUTO; mode < NR_MECHS; mode++) {
		struct kfacts g = *f;
		struct plan p;

		plan_build(&g, mode, &p);
		for (int h = 0; h < NR_HOOKS; h++) {
			const struct hook_plan *hp = &p.hooks[h];
			struct bpf_program *prog;

			if (!hp->chosen || !hp->prog)
				continue;
			prog = bpf_object__find_program_by_name(skel->obj, hp->prog->name);
			CHECK(prog != NULL, "%s mode %d hook %s: program %s exists",
			      fixture, mode, hook_names[h], hp->prog->name);
			if (!prog || hp->mech == MECH_DERIVED)
				continue;
			CHECK(hp->mech == MECH_TRACEPOINT ?
			      !strncmp(bpf_program__section_name(prog),
				       hp->prog->kind == PROG_TP_BTF ? "tp_btf/" : "raw_tp",
				       hp->prog->kind == PROG_TP_BTF ? 7 : 6) :
			      !strncmp(bpf_program__section_name(prog),
				       section_kind(hp->mech),
				       strlen(section_kind(hp->mech))),
			      "%s mode %d hook %s: %s is a %s program (%s)", fixture,
			      mode, hook_names[h], hp->prog->name, mech_names[hp->mech],
			      bpf_program__section_name(prog));
		}
	}
}

int main(void)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	struct iomapdirty_bpf *skel = iomapdirty_bpf__open();
	struct kfacts f;

	CHECK(skel != NULL, "BPF object opens");
	if (!skel)
		UNIT_EXIT();
	CHECK(prog_table_len <= sizeof(reached_by) / sizeof(reached_by[0]),
	      "program table fits the coverage list");
	check_rows(skel);
	check_objects_programs(skel);
	check_sections(skel);

	for (unsigned i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		if (parse(NULL, fixture_path(dir, fixtures[i]), &f))
			continue;
		fixture_programs_exist(skel, fixtures[i], &f);
		plan_all_modes(fixtures[i], &f);
	}
	/* this machine's kernel, if its policy let fentry and kprobes attach */
	if (!parse(NULL, fixture_path(dir, fixtures[3]), &f)) {
		f.kprobe_pmu = true;
		for (int i = 0; i < f.nr_funcs; i++)
			for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++)
				f.funcs[i].trial[m] = TRIAL_OK;
		plan_all_modes("6.18 with fentry and kprobes", &f);
	}
	/* ... and if its policy refused iomap_iter's tracepoint: XFS's own */
	if (!parse(NULL, fixture_path(dir, fixtures[3]), &f)) {
		struct tp_fact *tp = (struct tp_fact *)facts_tp(&f, "iomap_iter");

		CHECK(tp != NULL, "6.18's facts list iomap_iter");
		if (tp) {
			tp->trial = TRIAL_FAILED;
			snprintf(tp->trial_error, sizeof(tp->trial_error), "EPERM");
			plan_all_modes("6.18, iomap_iter refused", &f);
		}
	}
	if (!parse(kernel_6_6, "6.6", &f))
		plan_all_modes("6.6", &f);
	if (!parse(kernel_6_12, "6.12 writepage_map not inlined", &f))
		plan_all_modes("6.12 writepage_map not inlined", &f);

	for (unsigned int i = 0; i < prog_table_len && i < 64; i++)
		CHECK(reached_by[i] != NULL, "program table row %u (%s %s %s variant %d) "
		      "is chosen by a plan (%s)", i, hook_names[prog_table[i].hook],
		      prog_kind_names[prog_table[i].kind], prog_table[i].name,
		      prog_table[i].variant, reached_by[i] ? reached_by[i] : "none");
	iomapdirty_bpf__destroy(skel);
	UNIT_EXIT();
}
