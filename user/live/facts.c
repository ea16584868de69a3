#define _GNU_SOURCE
// SPDX-License-Identifier: GPL-2.0
/* Gathering kernel facts: see facts.h (files: facts_file.c, helpers: facts_helpers.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "live/facts.h"
#include "live/programs.h"
#include "live/trial.h"

const char *const mech_names[NR_MECHS] = { "fentry", "kprobe", "tracepoint" };

const struct func_fact *facts_func(const struct kfacts *f, const char *name)
{
	for (int i = 0; i < f->nr_funcs; i++)
		if (!strcmp(f->funcs[i].name, name))
			return &f->funcs[i];
	return NULL;
}

const struct tp_fact *facts_tp(const struct kfacts *f, const char *name)
{
	for (int i = 0; i < f->nr_tps; i++)
		if (!strcmp(f->tps[i].name, name))
			return &f->tps[i];
	return NULL;
}

/* ------------------------------------------------------------ BTF side */

/* A short, stable name for a parameter type: "folio*", "loff_t", "bool". */
static void btf_type_label(const struct btf *btf, __u32 id, char *out, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int ptr = 0;

	/* qualifiers and pointers down to something with a name */
	while (t && (btf_is_ptr(t) || btf_is_const(t) || btf_is_volatile(t) ||
		     btf_is_restrict(t))) {
		if (btf_is_ptr(t))
			ptr++;
		t = btf__type_by_id(btf, t->type);
	}
	if (!t || id == 0) {
		snprintf(out, len, ptr ? "void*" : "void");
		return;
	}
	if (btf_is_typedef(t) && ptr) {
		/* pointer to a typedef of a struct: name the typedef */
		snprintf(out, len, "%s*", btf__name_by_offset(btf, t->name_off));
		return;
	}
	snprintf(out, len, "%s%s", btf__name_by_offset(btf, t->name_off),
		 ptr ? "*" : "");
	if (!out[0] || !strcmp(out, "*"))
		snprintf(out, len, ptr ? "void*" : "void");
	/* "unsigned int" -> "unsigned_int": facts files split on spaces */
	for (char *c = out; *c; c++)
		if (*c == ' ')
			*c = '_';
}

static void btf_proto(const struct btf *btf, __u32 proto_id, int skip,
		      struct proto_fact *p)
{
	const struct btf_type *t = btf__type_by_id(btf, proto_id);
	const struct btf_param *params;
	int n;

	if (!t || !btf_is_func_proto(t))
		return;
	p->in_btf = true;
	btf_type_label(btf, t->type, p->ret, sizeof(p->ret));
	params = btf_params(t);
	n = btf_vlen(t);
	for (int i = skip; i < n && p->nr_args < FACT_MAX_ARGS; i++)
		btf_type_label(btf, params[i].type, p->args[p->nr_args++],
			       FACT_ARG_LEN);
}

static bool btf_struct_has_field(const struct btf *btf, const char *st,
				 const char *field)
{
	int id = btf__find_by_name_kind(btf, st, BTF_KIND_STRUCT);
	const struct btf_type *t;
	const struct btf_member *m;

	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, m[i].name_off), field))
			return true;
	return false;
}

void facts_btf_tp(const struct btf *btf, struct tp_fact *tp)
{
	char name[FACT_NAME_LEN + 16];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp->name);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return;
	t = btf__type_by_id(btf, id);		/* typedef -> ptr */
	t = btf__type_by_id(btf, t->type);	/* ptr -> proto */
	if (t && btf_is_ptr(t))
		btf_proto(btf, t->type, 1, &tp->proto);
}

static void gather_btf(struct kfacts *f, const struct btf *btf)
{
	int id;

	f->has_ifs = btf__find_by_name_kind(btf, "iomap_folio_state",
					    BTF_KIND_STRUCT) > 0;
	f->iop_has_state = btf_struct_has_field(btf, "iomap_page", "state");
	f->iop_has_uptodate = btf_struct_has_field(btf, "iomap_page", "uptodate");
	f->has_rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;

	for (int i = 0; i < f->nr_funcs; i++) {
		id = btf__find_by_name_kind(btf, f->funcs[i].name, BTF_KIND_FUNC);
		if (id > 0)
			btf_proto(btf, btf__type_by_id(btf, id)->type, 0,
				  &f->funcs[i].proto);
	}
	for (int i = 0; i < f->nr_tps; i++)
		facts_btf_tp(btf, &f->tps[i]);
}

/* ------------------------------------------------------- symbols side */

static bool is_clone_of(const char *sym, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(sym, name, n) || sym[n] != '.')
		return false;
	return !strncmp(sym + n, ".isra.", 6) ||
	       !strncmp(sym + n, ".constprop.", 11) ||
	       !strncmp(sym + n, ".part.", 6) || !strncmp(sym + n, ".cold", 5);
}

/*
 * /proc/kallsyms has ~120k lines: read it through a large buffer and look
 * at names only when they can be ours.
 */
static void gather_kallsyms(struct kfacts *f)
{
	static char iobuf[1 << 20];
	char line[512];
	bool exact[FACT_MAX_FUNCS] = {}, clone[FACT_MAX_FUNCS] = {};
	FILE *fp = fopen(f->kallsyms_path ? f->kallsyms_path : "/proc/kallsyms", "re");

	if (!fp)
		return;
	setvbuf(fp, iobuf, _IOFBF, sizeof(iobuf));
	while (fgets(line, sizeof(line), fp)) {
		char *type = strchr(line, ' '), *sym;

		if (!type || (type[1] != 't' && type[1] != 'T') || type[2] != ' ')
			continue;
		sym = type + 3;
		if (strncmp(sym, "iomap_", 6) && strncmp(sym, "ifs_", 4))
			continue;
		sym[strcspn(sym, " \t\n")] = '\0';
		for (int i = 0; i < f->nr_funcs; i++) {
			if (!strcmp(sym, f->funcs[i].name))
				exact[i] = true;
			else if (is_clone_of(sym, f->funcs[i].name))
				clone[i] = true;
		}
	}
	fclose(fp);
	for (int i = 0; i < f->nr_funcs; i++) {
		f->funcs[i].in_kallsyms = exact[i];
		f->funcs[i].clone_only = clone[i] && !exact[i];
	}
}

static void gather_ftrace(struct kfacts *f)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
		NULL,
	};
	char line[512], sym[256];
	FILE *fp = f->ftrace_path ? fopen(f->ftrace_path, "re") : NULL;

	for (int i = 0; !f->ftrace_path && paths[i] && !fp; i++)
		fp = fopen(paths[i], "re");
	if (!fp)
		return;		/* traceable stays unknown (-1) */
	for (int i = 0; i < f->nr_funcs; i++)
		f->funcs[i].traceable = 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%255s", sym) != 1)
			continue;
		for (int i = 0; i < f->nr_funcs; i++)
			if (!strcmp(sym, f->funcs[i].name))
				f->funcs[i].traceable = 1;
	}
	fclose(fp);
}

/*
 * The symbol facts: which candidates are real functions (not inlined, not
 * only a compiler clone) and traceable. Reading /proc/kallsyms costs
 * ~70 ms, and only fentry and kprobe candidates need them.
 */
void facts_symbols(struct kfacts *f)
{
	if (!f->symbols_pending)
		return;
	f->symbols_pending = false;
	gather_kallsyms(f);
	gather_ftrace(f);
}

void facts_init(struct kfacts *f)
{
	const char *sym;

	memset(f, 0, sizeof(*f));
	/* exactly the symbols of the hook target table (programs.c) */
	for (int i = 0; i < FACT_MAX_FUNCS && (sym = target_symbol(TARGET_FUNC, i)); i++) {
		snprintf(f->funcs[i].name, FACT_NAME_LEN, "%s", sym);
		f->funcs[i].traceable = -1;
		f->nr_funcs++;
	}
	for (int i = 0; i < FACT_MAX_TPS && (sym = target_symbol(TARGET_TP, i)); i++) {
		snprintf(f->tps[i].name, FACT_NAME_LEN, "%s", sym);
		f->nr_tps++;
	}
	for (int i = 0; i < NR_FACT_HELPERS; i++)
		f->helpers[i] = -1;	/* a facts file without them: not probed */
}

/* err: 0 or a negative errno, as the trials return it */
static void set_trial(enum trial *t, char *msg, size_t len, int err)
{
	const char *name = err ? strerrorname_np(-err) : "ok";

	*t = err ? TRIAL_FAILED : TRIAL_OK;
	/* errno names have no spaces: facts files keep them whole. The kernel's
	 * own codes (ENOTSUPP 524: fentry on an arch without trampolines) have
	 * no name in libc.
	 */
	if (name)
		snprintf(msg, len, "%s", name);
	else
		snprintf(msg, len, "errno_%d", -err);
}

enum trial facts_func_trial(struct kfacts *f, struct func_fact *fn, int mech)
{
	if (fn->trial[mech] != TRIAL_UNKNOWN || f->trials == TRIALS_NONE ||
	    mech > MECH_KPROBE || !fn->proto.in_btf)
		return fn->trial[mech];
	/* fentry finds its target in BTF; a kprobe needs the symbol */
	if (mech == MECH_KPROBE && f->kprobe_pmu)
		facts_symbols(f);
	if (!f->symbols_pending && !fn->in_kallsyms)
		return fn->trial[mech];
	set_trial(&fn->trial[mech], fn->trial_error[mech], sizeof(fn->trial_error[mech]),
		  mech == MECH_FENTRY ? trial_fentry(f->btf, fn->name) :
		  f->kprobe_pmu ? trial_kprobe(fn->name) : -ENOENT);
	return fn->trial[mech];
}

enum trial facts_tp_btf_trial(struct kfacts *f, const char *name)
{
	struct tp_fact *tp = NULL;
	int err;

	for (int i = 0; i < f->nr_tps; i++)
		if (!strcmp(f->tps[i].name, name))
			tp = &f->tps[i];
	if (!tp)
		return TRIAL_FAILED;
	if (tp->btf_trial != TRIAL_UNKNOWN || f->trials == TRIALS_NONE || !tp->proto.in_btf)
		return tp->btf_trial;
	if (f->trials == TRIALS_LAZY && f->tp_btf_tried) {
		const struct tp_fact *tried = &f->tps[f->tp_btf_tried - 1];

		tp->btf_trial = tried->btf_trial;
		snprintf(tp->btf_trial_error, sizeof(tp->btf_trial_error), "%s",
			 tried->btf_trial_error);
		tp->btf_trial_shared = true;
		return tp->btf_trial;
	}
	if (tp->btf_mod)
		err = trial_tp_btf(f->mods[tp->btf_mod - 1].btf, f->mods[tp->btf_mod - 1].obj_fd,
				   tp->name);
	else
		err = trial_tp_btf(f->btf, 0, tp->name);
	set_trial(&tp->btf_trial, tp->btf_trial_error, sizeof(tp->btf_trial_error), err);
	/*
	 * ENOENT: this tracepoint is not registered (its typedef is): about
	 * it alone. Success or any other refusal is about tracing programs
	 * on tracepoints in this kernel: the other tracepoints share it.
	 */
	if (err != -ENOENT)
		f->tp_btf_tried = (int)(tp - f->tps) + 1;
	return tp->btf_trial;
}

int facts_gather(struct kfacts *f, enum trial_policy policy)
{
	struct utsname u;

	facts_init(f);
	f->trials = policy;
	if (!uname(&u))
		snprintf(f->release, sizeof(f->release), "%.63s", u.release);
	f->btf = btf__load_vmlinux_btf();
	if (f->btf) {
		f->has_btf = true;
		gather_btf(f, f->btf);
		facts_module_tps(f);
	}
	f->symbols_pending = true;
	if (policy != TRIALS_LAZY)
		facts_symbols(f);
	f->kprobe_pmu = access("/sys/bus/event_source/devices/kprobe/type", R_OK) == 0;
	facts_probe_helpers(f);
	if (policy != TRIALS_ALL)
		return f->has_btf ? 0 : -ENOENT;

	for (int i = 0; i < f->nr_funcs; i++)
		for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++)
			facts_func_trial(f, &f->funcs[i], m);
	for (int i = 0; i < f->nr_tps; i++) {
		struct tp_fact *tp = &f->tps[i];

		if (!tp->proto.in_btf)
			continue;
		set_trial(&tp->trial, tp->trial_error, sizeof(tp->trial_error),
			  trial_raw_tp(tp->name));
		facts_tp_btf_trial(f, tp->name);
	}
	return f->has_btf ? 0 : -ENOENT;
}

void facts_release(struct kfacts *f)
{
	for (int i = 0; i < f->nr_mods; i++) {
		if (f->mods[i].btf)
			close(f->mods[i].obj_fd);
		btf__free(f->mods[i].btf);
	}
	f->nr_mods = 0;
	btf__free(f->btf);
	f->btf = NULL;
}
