// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty hist: live write-amplification histograms, one report per
 * interval, and a summary of the whole run on exit (count reached,
 * SIGINT or SIGTERM).
 */
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "exitcodes.h"
#include "report.h"

/* In tracepoint mode a folio context idle this long is finished. */

struct hist_args {
	struct session_opts so;
	double interval;
	unsigned long long count;
	bool json;
};

enum { OPT_JSON = 0x300 };

static const struct argp_option hist_options[] = {
	{ "interval", 'i', "SECONDS", 0, "Report every SECONDS (default 1)", 0 },
	{ "count", 'c', "COUNT", 0, "Stop after COUNT reports (default: until signalled)", 0 },
	{ "json", OPT_JSON, NULL, 0, "JSON Lines output (schema iomapdirty/1)", 0 },
	{},
};

static error_t hist_parse(int key, char *arg, struct argp_state *state)
{
	struct hist_args *a = state->input;

	switch (key) {
	case 'i':
		if (parse_seconds(arg, &a->interval))
			argp_error(state, "--interval wants seconds from 0.01 to 86400, "
				   "got '%s'", arg);
		break;
	case 'c':
		if (parse_u64(arg, 1, 1ull << 40, &a->count))
			argp_error(state, "--count wants a positive number, got '%s'", arg);
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->so;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int emit(struct session *s, const struct hist_args *a, const char *type,
		int n, const struct snapshot *cur, const struct snapshot *prev)
{
	struct report_ctx rc = {
		.plan = &s->plan,
		.target_dev = s->fs.dev,
		.max_pages = engine_max_pages(&s->engine),
	};
	struct snapshot d;
	char title[64];

	if (snapshot_delta(cur, prev, &d))
		return -1;
	if (a->json) {
		report_json(stdout, type, n, &d, &rc);
	} else {
		snprintf(title, sizeof(title), n > 0 ? "interval %d" : "summary", n);
		report_text(stdout, title, &d, &rc);
	}
	snapshot_free(&d);
	return 0;
}

static int run_loop(struct session *s, const struct hist_args *a)
{
	struct snapshot prev = {}, cur = {}, zero = {};
	unsigned long long n = 0;
	int ret = EXIT_OK;

	if (!a->json) {
		struct report_ctx rc = { .plan = &s->plan, .target_dev = s->fs.dev };

		report_header_text(stdout, &rc);
	}
	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	while (!session_exiting && (!a->count || n < a->count)) {
		session_sleep(a->interval);
		if (session_exiting)
			break;
		engine_flush(&s->engine, ENGINE_FLUSH_IDLE_NS);
		if (engine_snapshot(&s->engine, &cur) ||
		    emit(s, a, "interval", (int)++n, &cur, &prev)) {
			ret = EXIT_RUNTIME;
			break;
		}
		snapshot_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	/* summary: everything since attach, every context finished */
	snapshot_free(&cur);
	if (engine_summary(&s->engine, &cur) || emit(s, a, "summary", 0, &cur, &zero))
		ret = EXIT_RUNTIME;
	snapshot_free(&prev);
	snapshot_free(&cur);
	return ret;
}

int cmd_hist(int argc, char **argv)
{
	static const struct argp argp = {
		hist_options, hist_parse, NULL,
		"Live histograms of per-folio write amplification.", filter_children, NULL, NULL,
	};
	struct hist_args a = { .interval = 1.0, .so.mode = MODE_AUTO };
	struct session s;
	int ret;

	filter_opts_target = &a.so;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	session_install_signals();
	ret = session_start(&s, &a.so);
	if (ret == EXIT_OK)
		ret = run_loop(&s, &a);
	session_stop(&s);
	return ret;
}
