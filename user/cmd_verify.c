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
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "engine.h"
#include "exitcodes.h"
#include "json.h"
#include "report.h"

#define VERIFY_OK	0
#define VERIFY_FAIL	1
#define VERIFY_ERROR	2
#define MAX_OFFENDERS	1024
#define MAX_BLOCKDEVS	64

struct verify_args {
	struct session_opts so;
	double duration;	/* 0: until signalled */
	bool json;
	unsigned long long list;
	unsigned long long simulate;
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
		if (parse_u64(arg, 1, 1 << 30, &a->simulate))
			argp_error(state, "--simulate-clean wants a positive number");
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

struct verdict {
	int code;
	char why[1024];
};

static void decide(const struct session *s, const struct wa_stats *t,
		   uint64_t losses, bool bios_checked, struct verdict *v)
{
	const struct plan *p = &s->plan;

	if (p->bitmap == BITMAP_NONE) {
		v->code = VERIFY_FAIL;
		snprintf(v->why, sizeof(v->why), "this kernel has no per-block dirty "
			 "tracking (family %c: %s): writeback sends every uptodate block "
			 "of a dirty folio, so clean blocks reach the device; here %llu "
			 "blocks were submitted for %llu dirty", p->family, p->family_desc,
			 (unsigned long long)t->submitted_blocks,
			 (unsigned long long)t->dirty_blocks);
	} else if (t->violation_blocks) {
		v->code = VERIFY_FAIL;
		snprintf(v->why, sizeof(v->why), "%llu clean blocks in %llu folios "
			 "were submitted to the device",
			 (unsigned long long)t->violation_blocks,
			 (unsigned long long)t->violation_folios);
	} else if (t->unchecked_blocks) {
		v->code = VERIFY_ERROR;
		snprintf(v->why, sizeof(v->why), "%llu submitted blocks could not be "
			 "checked (dirtied before attach, or no per-block offsets from "
			 "this kernel's tracepoint)", (unsigned long long)t->unchecked_blocks);
	} else if (losses) {
		v->code = VERIFY_ERROR;
		snprintf(v->why, sizeof(v->why), "%llu events were lost (see losses): "
			 "the check is incomplete", (unsigned long long)losses);
	} else if (!bios_checked) {
		v->code = VERIFY_ERROR;
		snprintf(v->why, sizeof(v->why), "the block layer could not be "
			 "watched (%s)", p->hooks[HOOK_BIO].note[0] ?
			 p->hooks[HOOK_BIO].note : p->hooks[HOOK_BIO].rejected);
	} else {
		v->code = VERIFY_OK;
		snprintf(v->why, sizeof(v->why), "only dirty blocks reached the device "
			 "(%llu folios, %llu blocks checked)", (unsigned long long)t->folios,
			 (unsigned long long)t->submitted_blocks);
	}
}

#define ULL(x) ((unsigned long long)(x))

static void text_report(struct session *s, const struct snapshot *d,
			const struct bio_entry *bios, int nbios,
			const struct violation_entry *vio, int nvio, uint64_t pending,
			const struct verify_args *a, const struct verdict *v)
{
	struct report_ctx rc = { .plan = &s->plan, .target_dev = s->fs.dev };
	char path[4096];

	report_header_text(stdout, &rc);
	printf("observed %.2f s\n", d->seconds);
	if (d->counters[CNT_SIMULATED_FOLIOS])
		printf("SIMULATED: --simulate-clean %llu hid one dirty block from the "
		       "check in %llu folios; violations below are not the kernel's\n",
		       a->simulate, ULL(d->counters[CNT_SIMULATED_FOLIOS]));
	for (int i = 0; i < d->nfs; i++) {
		const struct wa_stats *f = &d->fs[i].s;

		printf("\nfilesystem %u:%u\n", kdev_major(d->fs[i].dev), kdev_minor(d->fs[i].dev));
		printf("  folios written back      %llu\n", ULL(f->folios));
		printf("  dirty                    %llu blocks, %llu B\n",
		       ULL(f->dirty_blocks), ULL(f->dirty_bytes));
		printf("  submitted                %llu blocks, %llu B\n",
		       ULL(f->submitted_blocks), ULL(f->submitted_bytes));
		printf("  clean blocks submitted   %llu in %llu folios (violations)\n",
		       ULL(f->violation_blocks), ULL(f->violation_folios));
		printf("  dirty only in the kernel %llu blocks (mmap, or writes not seen)\n",
		       ULL(f->unexplained_blocks));
		printf("  not checked              %llu blocks\n", ULL(f->unchecked_blocks));
	}
	for (int i = 0; i < nbios; i++)
		printf("\nblock device %u:%u: %llu write bios; data seen %llu B in %llu "
		       "bios (+%llu partly); %llu bios unmatched (%llu B: journal, "
		       "metadata)\n", kdev_major(bios[i].dev), kdev_minor(bios[i].dev),
		       ULL(bios[i].s.write_bios), ULL(bios[i].s.matched_bytes),
		       ULL(bios[i].s.matched_bios), ULL(bios[i].s.partial_bios),
		       ULL(bios[i].s.unmatched_bios), ULL(bios[i].s.unmatched_bytes));
	if (s->plan.hooks[HOOK_BIO].chosen)
		printf("submitted blocks not (yet) seen in a bio: %llu\n", ULL(pending));
	if (nvio)
		printf("\nfirst offending folios:\n");
	for (int i = 0; i < nvio && (unsigned long long)i < a->list; i++) {
		struct file_key k = { .ino = vio[i].key.ino, .dev = vio[i].key.dev };
		enum path_state st = engine_file_path(&s->engine, &k, path, sizeof(path));

		printf("  %s%s%s offset %llu: %llu clean blocks sent (folio %llu B, "
		       "%llu dirty blocks)\n", path, st == PATH_OK ? "" : " (",
		       st == PATH_OK ? "" : path_state_names[st],
		       ULL(vio[i].v.first_offset), ULL(vio[i].v.clean_blocks),
		       ULL(vio[i].v.folio_bytes), ULL(vio[i].v.dirty_blocks));
	}
	printf("\nlosses:");
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		if (d->counters[i])
			printf(" %s=%llu", counter_names[i], ULL(d->counters[i]));
	printf("%s\n", snapshot_losses(d) ? "" : " none");
	printf("verdict: %s: %s\n", v->code == VERIFY_OK ? "PASS" :
	       v->code == VERIFY_FAIL ? "FAIL" : "ERROR", v->why);
}

static void json_report(struct session *s, const struct snapshot *d,
			const struct bio_entry *bios, int nbios,
			const struct violation_entry *vio, int nvio, uint64_t pending,
			const struct verify_args *a, const struct verdict *v)
{
	struct json j;
	char buf[4096];

	json_init(&j, stdout);
	json_object_begin(&j);
	json_kv_string(&j, "schema", IOMAPDIRTY_SCHEMA);
	json_kv_string(&j, "type", "verify");
	json_key(&j, "seconds");
	json_double(&j, d->seconds);
	json_kv_string(&j, "verdict", v->code == VERIFY_OK ? "pass" :
		       v->code == VERIFY_FAIL ? "fail" : "error");
	json_kv_string(&j, "reason", v->why);
	json_kv_u64(&j, "simulated_clean_folios", d->counters[CNT_SIMULATED_FOLIOS]);
	json_key(&j, "plan");
	plan_write_json(&s->plan, &j);
	json_key(&j, "filesystems");
	json_array_begin(&j);
	for (int i = 0; i < d->nfs; i++) {
		json_object_begin(&j);
		snprintf(buf, sizeof(buf), "%u:%u", kdev_major(d->fs[i].dev),
			 kdev_minor(d->fs[i].dev));
		json_kv_string(&j, "dev", buf);
		json_key(&j, "stats");
		stats_write_json(&j, &d->fs[i].s);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "block_devices");
	json_array_begin(&j);
	for (int i = 0; i < nbios; i++) {
		json_object_begin(&j);
		snprintf(buf, sizeof(buf), "%u:%u", kdev_major(bios[i].dev),
			 kdev_minor(bios[i].dev));
		json_kv_string(&j, "dev", buf);
		json_kv_u64(&j, "write_bios", bios[i].s.write_bios);
		json_kv_u64(&j, "matched_bios", bios[i].s.matched_bios);
		json_kv_u64(&j, "partial_bios", bios[i].s.partial_bios);
		json_kv_u64(&j, "unmatched_bios", bios[i].s.unmatched_bios);
		json_kv_u64(&j, "data_bytes", bios[i].s.matched_bytes);
		json_kv_u64(&j, "unmatched_bytes", bios[i].s.unmatched_bytes);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "pending_blocks");
	if (s->plan.hooks[HOOK_BIO].chosen)
		json_u64(&j, pending);
	else
		json_null(&j);
	json_key(&j, "offenders");
	json_array_begin(&j);
	for (int i = 0; i < nvio && (unsigned long long)i < a->list; i++) {
		struct file_key k = { .ino = vio[i].key.ino, .dev = vio[i].key.dev };
		enum path_state st = engine_file_path(&s->engine, &k, buf, sizeof(buf));

		json_object_begin(&j);
		json_kv_string(&j, "path", buf);
		json_kv_string(&j, "path_state", path_state_names[st]);
		json_kv_u64(&j, "ino", k.ino);
		json_kv_u64(&j, "offset", vio[i].v.first_offset);
		json_kv_u64(&j, "clean_blocks", vio[i].v.clean_blocks);
		json_kv_u64(&j, "folio_bytes", vio[i].v.folio_bytes);
		json_kv_u64(&j, "dirty_blocks", vio[i].v.dirty_blocks);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "losses");
	json_object_begin(&j);
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		json_kv_u64(&j, counter_names[i], d->counters[i]);
	json_object_end(&j);
	json_object_end(&j);
}

static int observe(struct session *s, const struct verify_args *a)
{
	static struct violation_entry vio[MAX_OFFENDERS];
	struct bio_entry bios[MAX_BLOCKDEVS];
	struct snapshot d;
	struct wa_stats t;
	struct verdict v;
	uint64_t pending;
	int nvio, nbios;

	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	if (a->duration > 0)
		session_sleep(a->duration);
	else
		while (!session_exiting)
			session_sleep(3600);
	if (engine_summary(&s->engine, &d)) {
		fprintf(stderr, "iomapdirty: reading the counters failed\n");
		return VERIFY_ERROR;
	}
	nvio = engine_violations(&s->engine, vio, MAX_OFFENDERS);
	nbios = engine_bio_stats(&s->engine, bios, MAX_BLOCKDEVS);
	pending = engine_pending_blocks(&s->engine);
	snapshot_totals(&d, &t);
	decide(s, &t, snapshot_losses(&d), s->plan.hooks[HOOK_BIO].chosen, &v);
	if (a->json)
		json_report(s, &d, bios, nbios, vio, nvio, pending, a, &v);
	else
		text_report(s, &d, bios, nbios, vio, nvio, pending, a, &v);
	snapshot_free(&d);
	return v.code;
}

int cmd_verify(int argc, char **argv)
{
	static const struct argp argp = {
		verify_options, verify_parse, NULL,
		"Prove that only dirty blocks reach the device.", filter_children, NULL, NULL,
	};
	struct verify_args a = { .so.mode = MODE_AUTO, .list = 10 };
	struct session s;
	int ret;

	/* verify folds every error into 2, as its callers expect */
	argp_err_exit_status = VERIFY_ERROR;
	filter_opts_target = &a.so;
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	a.so.verify = true;
	a.so.simulate_clean_every = a.simulate;
	session_install_signals();
	ret = session_start(&s, &a.so);
	if (ret == EXIT_OK)
		ret = observe(&s, &a);
	else
		ret = VERIFY_ERROR;
	session_stop(&s);
	return ret;
}
