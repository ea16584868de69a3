// SPDX-License-Identifier: GPL-2.0
/*
 * Facts files (`iomapdirty probes --dump-facts`, `--facts FILE`): one fact
 * a line, words split on spaces; see facts.h. A line an older file lacks
 * leaves its fact at facts_init()'s default.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "live/facts.h"

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
	for (int i = 0; i < NR_FACT_HELPERS; i++)
		if (f->helpers[i] >= 0)
			fprintf(out, "helper %s %d\n", fact_helper_names[i], f->helpers[i]);
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

/* "helper NAME 0|1": whether tracing programs may call bpf_NAME */
static int parse_helper(struct kfacts *f, const char *rest)
{
	char name[FACT_NAME_LEN], val[8];
	bool v;

	if (sscanf(rest, "%63s %7s", name, val) != 2 || parse_bool(val, &v))
		return -EINVAL;
	for (int i = 0; i < NR_FACT_HELPERS; i++) {
		if (!strcmp(name, fact_helper_names[i])) {
			f->helpers[i] = v;
			return 0;
		}
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
	if (!strcmp(key, "helper"))	/* absent from older files: unknown */
		return parse_helper(f, line + off);
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
