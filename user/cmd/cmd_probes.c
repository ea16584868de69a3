// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty probes: the attach plan for this kernel (or for a recorded
 * facts file), with the reasons candidates were rejected.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "output/json.h"
#include "lib/json_input.h"
#include "output/safetext.h"
#include <sys/stat.h>

/* A facts file is a few hundred KiB; a larger one is not a facts file. */
#define FACTS_MAX_BYTES	(16 << 20)

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

/* A message with text from the file, through the one sanitizer. */
static void say_safe(const char *file, const char *msg)
{
	char safe[1024];

	text_sanitize(msg, safe, sizeof(safe));
	if (*file) {
		char sfile[512];

		text_sanitize(file, sfile, sizeof(sfile));
		fprintf(stderr, "iomapdirty: %s: %s\n", sfile, safe);
	} else {
		fprintf(stderr, "iomapdirty: %s\n", safe);
	}
}

static int load_facts(const struct probes_args *a, struct kfacts *f)
{
	char err[512];
	struct stat st;
	FILE *fp;
	int ret, fd;

	if (!a->facts_file) {
		if (!a->no_trial && session_check_privileges(err, sizeof(err))) {
			fprintf(stderr, "iomapdirty: %s (or use --no-trial)\n", err);
			return EXIT_PRIVILEGE;
		}
		facts_gather(f, a->no_trial ? TRIALS_NONE : TRIALS_ALL);
		return EXIT_OK;
	}
	/* a regular file, not through a symbolic link, of a bounded size */
	fd = input_open(a->facts_file, err, sizeof(err));
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > FACTS_MAX_BYTES) {
		snprintf(err, sizeof(err), "%s: larger than %d MiB: not a facts file",
			 a->facts_file, FACTS_MAX_BYTES >> 20);
		close(fd);
		fd = -1;
	}
	fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		if (fd >= 0)
			close(fd);
		say_safe("", err);
		return EXIT_USAGE;
	}
	ret = facts_parse(f, fp, err, sizeof(err));
	fclose(fp);
	if (ret) {
		say_safe(a->facts_file, err);
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
		facts_release(&facts);
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
		char rel[256], src[512];

		text_sanitize(facts.release, rel, sizeof(rel));
		text_sanitize(a->facts_file ? a->facts_file : "live facts and trial attaches",
			      src, sizeof(src));
		printf("kernel: %s (%s)\n", rel, src);
		plan_print_text(&plan, stdout);
	}
	if (!plan.ok)
		say_safe("", plan.error);
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
