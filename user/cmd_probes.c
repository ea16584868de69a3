// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty probes: the attach plan for this kernel (or for a recorded
 * facts file), with the reasons candidates were rejected.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "exitcodes.h"
#include "json.h"

struct probes_args {
	bool json;
	bool dump_facts;
	bool no_trial;
	const char *facts_file;
	int mode;
};

enum { OPT_JSON = 0x200, OPT_FACTS, OPT_DUMP, OPT_NO_TRIAL, OPT_PMODE };

static const struct argp_option probes_options[] = {
	{ "json", OPT_JSON, NULL, 0, "Machine-readable output", 0 },
	{ "mode", OPT_PMODE, "MODE", 0, "auto, fentry, kprobe, tracepoint or raw_tp", 0 },
	{ "facts", OPT_FACTS, "FILE", 0, "Plan for recorded facts instead of this kernel", 0 },
	{ "dump-facts", OPT_DUMP, NULL, 0, "Print this kernel's facts (a facts file)", 0 },
	{ "no-trial", OPT_NO_TRIAL, NULL, 0, "Do not trial-attach (facts only)", 0 },
	{},
};

static error_t probes_parse(int key, char *arg, struct argp_state *state)
{
	struct probes_args *a = state->input;

	switch (key) {
	case OPT_JSON: a->json = true; break;
	case OPT_FACTS: a->facts_file = arg; break;
	case OPT_DUMP: a->dump_facts = true; break;
	case OPT_NO_TRIAL: a->no_trial = true; break;
	case OPT_PMODE:
		if (plan_mode_parse(arg, &a->mode))
			argp_error(state, "--mode wants auto, fentry, kprobe, tracepoint or raw_tp");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int load_facts(const struct probes_args *a, struct kfacts *f)
{
	char err[256];
	FILE *fp;
	int ret;

	if (!a->facts_file) {
		if (!a->no_trial && session_check_privileges(err, sizeof(err))) {
			fprintf(stderr, "iomapdirty: %s (or use --no-trial)\n", err);
			return EXIT_PRIVILEGE;
		}
		facts_gather(f, a->no_trial ? TRIALS_NONE : TRIALS_ALL);
		return EXIT_OK;
	}
	fp = fopen(a->facts_file, "re");
	if (!fp) {
		fprintf(stderr, "iomapdirty: %s: %s\n", a->facts_file, strerror(errno));
		return EXIT_USAGE;
	}
	ret = facts_parse(f, fp, err, sizeof(err));
	fclose(fp);
	if (ret) {
		fprintf(stderr, "iomapdirty: %s: %s\n", a->facts_file, err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int run_probes(struct session *unused, void *args)
{
	const struct probes_args *a = args;
	struct kfacts facts;
	struct plan plan;
	int ret;

	ret = load_facts(a, &facts);
	if (ret)
		return ret;
	if (a->dump_facts) {
		facts_write(&facts, stdout);
		return EXIT_OK;
	}
	plan_build(&facts, a->mode, &plan);
	facts_release(&facts);
	if (a->json) {
		struct json j;

		json_init(&j, stdout);
		json_object_begin(&j);
		json_kv_string(&j, "schema", "iomapdirty/1");
		json_kv_string(&j, "type", "plan");
		json_kv_string(&j, "kernel_release", facts.release);
		json_kv_string(&j, "facts", a->facts_file ? a->facts_file : "live");
		json_key(&j, "plan");
		plan_write_json(&plan, &j);
		json_object_end(&j);
	} else {
		printf("kernel: %s (%s)\n", facts.release, a->facts_file ? a->facts_file :
		       "live facts and trial attaches");
		plan_print_text(&plan, stdout);
	}
	if (!plan.ok)
		fprintf(stderr, "iomapdirty: %s\n", plan.error);
	return plan.ok ? EXIT_OK : EXIT_UNSUPPORTED;
}

static struct probes_args probes_args = { .mode = MODE_AUTO };

static const struct argp probes_argp = { .options = probes_options, .parser = probes_parse };

/* No session: a plan from facts needs no engine (nor, with --facts, root). */
const struct command probes_command = {
	.name = "probes",
	.help = "show the attach plan for this kernel",
	.doc = "Show which probes iomapdirty attaches on this kernel, and why.",
	.argp = &probes_argp,
	.args = &probes_args,
	.run = run_probes,
};
