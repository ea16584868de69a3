// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty verify: for production hosts. Observe for --duration (or
 * until signalled) and prove that only dirty blocks reached the device:
 *   - per folio written back, blocks submitted that were not dirty are
 *     violations (the kernel's bitmap, the writes and whole-folio
 *     dirtying seen decide what was dirty);
 *   - each write bio at the block layer is matched, block by block, to
 *     the physical addresses of the submitted ranges.
 * Exit 0: nothing clean was written; 1: it was (first offenders listed),
 * or the kernel has no per-block dirty tracking; 2: any error, or the
 * check could not be made. (verify folds the other exit codes into 2.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "engine.h"
#include "exitcodes.h"
#include "report.h"

#define MAX_OFFENDERS	1024
#define MAX_BLOCKDEVS	64

struct verify_args {
	struct session_opts so;
	double duration;	/* 0: until signalled */
	bool json;
	unsigned long long list;
};

enum { OPT_JSON = 0x500, OPT_SIMULATE, OPT_LIST };

static const struct argp_option verify_options[] = {
	{ "duration", 'D', "SECONDS", 0, "Observe this long (default: until SIGINT/SIGTERM)", 0 },
	{ "json", OPT_JSON, NULL, 0, "JSON report (schema iomapdirty/1)", 0 },
	{ "list", OPT_LIST, "N", 0, "Offending folios listed (default 10)", 0 },
	{ "simulate-clean", OPT_SIMULATE, "N", 0,
	  "TEST ONLY: hide the first dirty block of folios at page indexes "
	  "divisible by N from the check, so the kernel's write of it is flagged; "
	  "the report says SIMULATED", 0 },
	{},
};

static error_t verify_parse(int key, char *arg, struct argp_state *state)
{
	struct verify_args *a = state->input;
	unsigned long long v;

	switch (key) {
	case 'D':
		if (parse_seconds(arg, &a->duration))
			argp_error(state, "--duration wants seconds from 0.01 to 86400");
		break;
	case OPT_JSON:
		a->json = true;
		break;
	case OPT_LIST:
		if (parse_u64(arg, 0, MAX_OFFENDERS, &a->list))
			argp_error(state, "--list wants 0 to %d", MAX_OFFENDERS);
		break;
	case OPT_SIMULATE:
		if (parse_u64(arg, 1, 1 << 30, &v))
			argp_error(state, "--simulate-clean wants a positive number");
		a->so.simulate_clean_every = v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void decide(const struct session *s, const struct wa_stats *t,
		   uint64_t losses, struct verify_report *v)
{
	const struct plan *p = &s->plan;

	if (p->bitmap == BITMAP_NONE) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->why, sizeof(v->why), "this kernel has no per-block dirty "
			 "tracking (family %c: %s): writeback sends every uptodate block "
			 "of a dirty folio, so clean blocks reach the device; here %llu "
			 "blocks were submitted for %llu dirty", p->family, p->family_desc,
			 (unsigned long long)t->submitted_blocks,
			 (unsigned long long)t->dirty_blocks);
	} else if (t->violation_blocks) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->why, sizeof(v->why), "%llu clean blocks in %llu folios "
			 "were submitted to the device",
			 (unsigned long long)t->violation_blocks,
			 (unsigned long long)t->violation_folios);
	} else if (t->unchecked_blocks) {
		v->verdict = VERDICT_ERROR;
		snprintf(v->why, sizeof(v->why), "%llu submitted blocks could not be "
			 "checked (dirtied before attach, or no per-block offsets from "
			 "this kernel's tracepoint)", (unsigned long long)t->unchecked_blocks);
	} else if (losses) {
		v->verdict = VERDICT_ERROR;
		snprintf(v->why, sizeof(v->why), "%llu events were lost (see losses): "
			 "the check is incomplete", (unsigned long long)losses);
	} else if (!v->bios_watched) {
		v->verdict = VERDICT_ERROR;
		snprintf(v->why, sizeof(v->why), "the block layer could not be "
			 "watched (%s)", p->hooks[HOOK_BIO].note[0] ?
			 p->hooks[HOOK_BIO].note : p->hooks[HOOK_BIO].rejected);
	} else {
		v->verdict = VERDICT_PASS;
		snprintf(v->why, sizeof(v->why), "only dirty blocks reached the device "
			 "(%llu folios, %llu blocks checked)", (unsigned long long)t->folios,
			 (unsigned long long)t->submitted_blocks);
	}
}

/* The first offenders listed, with their paths as they are now. */
static int list_offenders(struct session *s, const struct violation_entry *vio, int n,
			  struct verify_offender **out)
{
	struct verify_offender *o = calloc(n ? n : 1, sizeof(*o));

	if (!o)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct file_key k = { .ino = vio[i].key.ino, .dev = vio[i].key.dev };

		o[i].state = engine_file_path(&s->engine, &k, o[i].path, sizeof(o[i].path));
		o[i].ino = k.ino;
		o[i].v = vio[i].v;
	}
	*out = o;
	return 0;
}

static int run_verify(struct session *s, void *args)
{
	static struct violation_entry vio[MAX_OFFENDERS];
	const struct verify_args *a = args;
	struct bio_entry bios[MAX_BLOCKDEVS];
	struct verify_offender *offenders;
	struct verify_report r = {
		.bios = bios,
		.bios_watched = s->plan.hooks[HOOK_BIO].chosen,
		.simulate = a->so.simulate_clean_every,
	};
	struct snapshot d;
	struct wa_stats t;

	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	if (a->duration > 0)
		session_sleep(a->duration);
	else
		while (!session_exiting)
			session_sleep(3600);
	if (engine_summary(&s->engine, &d)) {
		fprintf(stderr, "iomapdirty: reading the counters failed\n");
		return VERDICT_ERROR;
	}
	r.d = &d;
	r.nviolations = engine_violations(&s->engine, vio, MAX_OFFENDERS);
	r.nbios = engine_bio_stats(&s->engine, bios, MAX_BLOCKDEVS);
	r.pending = engine_pending_blocks(&s->engine);
	r.noffenders = r.nviolations < (int)a->list ? r.nviolations : (int)a->list;
	if (list_offenders(s, vio, r.noffenders, &offenders)) {
		snapshot_free(&d);
		return VERDICT_ERROR;
	}
	r.offenders = offenders;
	snapshot_totals(&d, &t);
	decide(s, &t, snapshot_losses(&d), &r);
	if (a->json)
		report_verify_json(stdout, &s->report, &r);
	else
		report_verify_text(stdout, &s->report, &r);
	free(offenders);
	snapshot_free(&d);
	/* a verdict nobody could read is no verdict */
	return report_flush(stdout) ? VERDICT_ERROR : r.verdict;
}

static struct verify_args verify_args = {
	.so = { .mode = MODE_AUTO, .verify = true },
	.list = 10,
};

static const struct argp verify_argp = { .options = verify_options, .parser = verify_parse };

/* verify folds every error into 2, as its callers expect */
const struct command verify_command = {
	.name = "verify",
	.help = "prove that only dirty blocks reach the device",
	.doc = "Prove that only dirty blocks reach the device.",
	.argp = &verify_argp,
	.args = &verify_args,
	.session = &verify_args.so,
	.run = run_verify,
	.error_status = VERDICT_ERROR,
};
