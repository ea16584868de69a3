// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty hist: live write-amplification histograms, one report per
 * interval, and a summary of the whole run on exit (count reached,
 * SIGINT or SIGTERM).
 */
#include <unistd.h>
#include "cmd/commands.h"
#include "lib/exitcodes.h"
#include "output/report.h"
#include "live/sampler.h"

struct hist_args {
	struct session_opts so;
	struct sampling sampling;
	bool json;
};

enum { OPT_JSON = 0x300 };

static const struct argp_option hist_options[] = {
	{ "json", OPT_JSON, NULL, 0, "JSON Lines output (schema iomapdirty/1)", 0 },
	{},
};

static error_t hist_parse(int key, char *arg, struct argp_state *state)
{
	struct hist_args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int emit(struct session *s, const struct hist_args *a, const char *type,
		int n, const struct snapshot *d)
{
	char title[64];

	if (a->json) {
		report_json(stdout, type, n, d, &s->report);
	} else {
		snprintf(title, sizeof(title), n > 0 ? "interval %d" : "summary", n);
		report_text(stdout, title, d, &s->report);
	}
	return report_flush(stdout);
}

static int run_hist(struct session *s, void *args)
{
	const struct hist_args *a = args;
	struct sampler sm = { .engine = s->engine, .o = a->sampling };
	struct snapshot d;
	int ret = EXIT_OK;

	if (!a->json) {
		report_header_text(stdout, &s->report);
		if (report_flush(stdout))
			return EXIT_RUNTIME;
	}
	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	while (sampler_wait(&sm)) {
		if (sampler_read(&sm, ENGINE_FLUSH_IDLE_NS) || sampler_delta(&sm, false, &d)) {
			ret = EXIT_RUNTIME;
			break;
		}
		ret = emit(s, a, "interval", (int)sm.n, &d) ? EXIT_RUNTIME : ret;
		snapshot_free(&d);
		if (ret)	/* nobody can read us: stop */
			break;
	}
	sampler_free(&sm);
	/* summary: everything since attach, every context finished */
	if (engine_summary(s->engine, &d))
		return EXIT_RUNTIME;
	if (emit(s, a, "summary", 0, &d))
		ret = EXIT_RUNTIME;
	snapshot_free(&d);
	return ret;
}

static struct hist_args hist_args = {
	.so.mode = MODE_AUTO,
	.sampling.interval = 1.0,
};

static const struct argp hist_argp = { .options = hist_options, .parser = hist_parse };

const struct command hist_command = {
	.name = "hist",
	.help = "live write-amplification histograms",
	.doc = "Live histograms of per-folio write amplification.",
	.argp = &hist_argp,
	.args = &hist_args,
	.session = &hist_args.so,
	.sampling = &hist_args.sampling,
	.run = run_hist,
};
