#define _GNU_SOURCE
// SPDX-License-Identifier: GPL-2.0
/* Gathering, reading and writing kernel facts: see facts.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "facts.h"
#include "trial.h"

const char *const fact_func_names[] = {
	"iomap_write_end",
	"iomap_dirty_folio",
	"iomap_writeback_folio",
	"iomap_writepage_map",
	"iomap_do_writepage",
	"iomap_add_to_ioend",
	NULL,
};

const char *const fact_tp_names[] = {
	"xfs_file_buffered_write",
	"writeback_dirty_folio",
	"iomap_writeback_folio",
	"iomap_writepage",
	"iomap_add_to_ioend",
	"iomap_writepage_map",
	"iomap_invalidate_folio",
	"block_bio_queue",
	NULL,
};

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

static void facts_init(struct kfacts *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; fact_func_names[i] && i < FACT_MAX_FUNCS; i++) {
		snprintf(f->funcs[i].name, FACT_NAME_LEN, "%s", fact_func_names[i]);
		f->funcs[i].traceable = -1;
		f->nr_funcs++;
	}
	for (int i = 0; fact_tp_names[i] && i < FACT_MAX_TPS; i++) {
		snprintf(f->tps[i].name, FACT_NAME_LEN, "%s", fact_tp_names[i]);
		f->nr_tps++;
	}
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

/* ------------------------------------------------------- facts files */

static void write_proto(const struct proto_fact *p, FILE *out)
{
	fprintf(out, " btf=%d", p->in_btf);
	if (!p->in_btf)
		return;
	fprintf(out, " ret=%s args=", p->ret);
	for (int i = 0; i < p->nr_args; i++)
		fprintf(out, "%s%s", i ? "," : "", p->args[i]);
	if (!p->nr_args)
		fprintf(out, "-");
}

void facts_write(struct kfacts *f, FILE *out)
{
	facts_symbols(f);
	fprintf(out, "# iomapdirty facts v1\n");
	fprintf(out, "release %s\n", f->release[0] ? f->release : "unknown");
	fprintf(out, "btf %d\n", f->has_btf);
	fprintf(out, "type iomap_folio_state %d\n", f->has_ifs);
	fprintf(out, "field iomap_page.state %d\n", f->iop_has_state);
	fprintf(out, "field iomap_page.uptodate %d\n", f->iop_has_uptodate);
	fprintf(out, "kprobe_pmu %d\n", f->kprobe_pmu);
	fprintf(out, "kfunc bpf_rdonly_cast %d\n", f->has_rdonly_cast);
	for (int i = 0; i < f->nr_funcs; i++) {
		const struct func_fact *fn = &f->funcs[i];

		fprintf(out, "func %s ksym=%d clone_only=%d traceable=%d", fn->name,
			fn->in_kallsyms, fn->clone_only, fn->traceable);
		write_proto(&fn->proto, out);
		fputc('\n', out);
		for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++)
			if (fn->trial[m] != TRIAL_UNKNOWN)
				fprintf(out, "trial %s %s %s\n", mech_names[m], fn->name,
					fn->trial[m] == TRIAL_OK ? "ok" : fn->trial_error[m]);
	}
	for (int i = 0; i < f->nr_tps; i++) {
		const struct tp_fact *tp = &f->tps[i];

		fprintf(out, "tp %s", tp->name);
		write_proto(&tp->proto, out);
		fputc('\n', out);
		if (tp->trial != TRIAL_UNKNOWN)
			fprintf(out, "trial tracepoint %s %s\n", tp->name,
				tp->trial == TRIAL_OK ? "ok" : tp->trial_error);
		if (tp->btf_trial != TRIAL_UNKNOWN)
			fprintf(out, "trial tp_btf %s %s\n", tp->name,
				tp->btf_trial == TRIAL_OK ? "ok" : tp->btf_trial_error);
	}
}

static int parse_bool(const char *s, bool *out)
{
	if (strcmp(s, "0") && strcmp(s, "1"))
		return -EINVAL;
	*out = s[0] == '1';
	return 0;
}

/* "key=value" words after a func or tp name. */
static int parse_proto_words(char *rest, struct proto_fact *p, struct func_fact *fn)
{
	char *save = NULL;

	for (char *w = strtok_r(rest, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(w, '=');

		if (!eq)
			return -EINVAL;
		*eq++ = '\0';
		if (!strcmp(w, "btf")) {
			if (parse_bool(eq, &p->in_btf))
				return -EINVAL;
		} else if (!strcmp(w, "ret")) {
			snprintf(p->ret, sizeof(p->ret), "%s", eq);
		} else if (!strcmp(w, "args")) {
			char *asave = NULL;

			if (!strcmp(eq, "-"))
				continue;
			for (char *a = strtok_r(eq, ",", &asave); a; a = strtok_r(NULL, ",", &asave)) {
				if (p->nr_args >= FACT_MAX_ARGS)
					return -EINVAL;
				snprintf(p->args[p->nr_args++], FACT_ARG_LEN, "%s", a);
			}
		} else if (fn && !strcmp(w, "ksym")) {
			if (parse_bool(eq, &fn->in_kallsyms))
				return -EINVAL;
		} else if (fn && !strcmp(w, "clone_only")) {
			if (parse_bool(eq, &fn->clone_only))
				return -EINVAL;
		} else if (fn && !strcmp(w, "traceable")) {
			fn->traceable = atoi(eq);
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static struct func_fact *func_slot(struct kfacts *f, const char *name)
{
	struct func_fact *fn = (struct func_fact *)facts_func(f, name);

	if (fn || f->nr_funcs >= FACT_MAX_FUNCS)
		return fn;
	fn = &f->funcs[f->nr_funcs++];
	snprintf(fn->name, FACT_NAME_LEN, "%s", name);
	return fn;
}

static struct tp_fact *tp_slot(struct kfacts *f, const char *name)
{
	struct tp_fact *tp = (struct tp_fact *)facts_tp(f, name);

	if (tp || f->nr_tps >= FACT_MAX_TPS)
		return tp;
	tp = &f->tps[f->nr_tps++];
	snprintf(tp->name, FACT_NAME_LEN, "%s", name);
	return tp;
}

static int parse_trial(struct kfacts *f, const char *mech, const char *name,
		       const char *result)
{
	enum trial t = strcmp(result, "ok") ? TRIAL_FAILED : TRIAL_OK;

	if (!strcmp(mech, "tracepoint") || !strcmp(mech, "tp_btf")) {
		struct tp_fact *tp = tp_slot(f, name);

		if (!tp)
			return -EINVAL;
		if (mech[1] == 'p') {	/* tp_btf */
			tp->btf_trial = t;
			snprintf(tp->btf_trial_error, sizeof(tp->btf_trial_error),
				 "%.31s", result);
			return 0;
		}
		tp->trial = t;
		snprintf(tp->trial_error, sizeof(tp->trial_error), "%.31s", result);
		return 0;
	}
	for (int m = MECH_FENTRY; m <= MECH_KPROBE; m++) {
		struct func_fact *fn;

		if (strcmp(mech, mech_names[m]))
			continue;
		fn = func_slot(f, name);
		if (!fn)
			return -EINVAL;
		fn->trial[m] = t;
		snprintf(fn->trial_error[m], sizeof(fn->trial_error[m]), "%.31s", result);
		return 0;
	}
	return -EINVAL;
}

static int parse_line(struct kfacts *f, char *line)
{
	char key[32], a[FACT_NAME_LEN], b[FACT_NAME_LEN], c[64];
	int off = 0;
	bool v;

	if (sscanf(line, "%31s %n", key, &off) != 1)
		return 0;			/* blank */
	if (key[0] == '#')
		return 0;
	if (!strcmp(key, "release"))
		return sscanf(line + off, "%63s", f->release) == 1 ? 0 : -1;
	if (!strcmp(key, "btf") || !strcmp(key, "kprobe_pmu")) {
		if (sscanf(line + off, "%63s", a) != 1 || parse_bool(a, &v))
			return -EINVAL;
		if (key[0] == 'b')
			f->has_btf = v;
		else
			f->kprobe_pmu = v;
		return 0;
	}
	if (!strcmp(key, "type") || !strcmp(key, "field")) {
		if (sscanf(line + off, "%63s %63s", a, b) != 2 || parse_bool(b, &v))
			return -EINVAL;
		if (!strcmp(a, "iomap_folio_state"))
			f->has_ifs = v;
		else if (!strcmp(a, "iomap_page.state"))
			f->iop_has_state = v;
		else if (!strcmp(a, "iomap_page.uptodate"))
			f->iop_has_uptodate = v;
		else
			return -EINVAL;
		return 0;
	}
	if (!strcmp(key, "kfunc")) {	/* absent from older files: not there */
		if (sscanf(line + off, "%63s %63s", a, b) != 2 || parse_bool(b, &v) ||
		    strcmp(a, "bpf_rdonly_cast"))
			return -EINVAL;
		f->has_rdonly_cast = v;
		return 0;
	}
	if (!strcmp(key, "func")) {
		struct func_fact *fn;
		int n = 0;

		if (sscanf(line + off, "%63s %n", a, &n) != 1 || !(fn = func_slot(f, a)))
			return -EINVAL;
		return parse_proto_words(line + off + n, &fn->proto, fn);
	}
	if (!strcmp(key, "tp")) {
		struct tp_fact *tp;
		int n = 0;

		if (sscanf(line + off, "%63s %n", a, &n) != 1 || !(tp = tp_slot(f, a)))
			return -EINVAL;
		return parse_proto_words(line + off + n, &tp->proto, NULL);
	}
	if (!strcmp(key, "trial")) {
		if (sscanf(line + off, "%63s %63s %63s", a, b, c) != 3)
			return -EINVAL;
		return parse_trial(f, a, b, c);
	}
	return -EINVAL;
}

int facts_parse(struct kfacts *f, FILE *in, char *err, size_t errlen)
{
	char line[1024];
	int lineno = 0;

	facts_init(f);
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (parse_line(f, line)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(err, errlen, "line %d: cannot parse '%s'", lineno, line);
			return -EINVAL;
		}
	}
	return 0;
}
