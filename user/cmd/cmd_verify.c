// SPDX-License-Identifier: GPL-2.0
/*
 * iomapdirty verify: for production hosts. Observe for --duration (or
 * until signalled) and prove that only dirty blocks reached the device:
 *   - per folio written back, blocks submitted that were not dirty are
 *     violations (the kernel's bitmap, the writes and whole-folio
 *     dirtying seen decide what was dirty);
 *   - each write bio at the block layer is matched, block by block, to
 *     the physical addresses of the submitted ranges;
 *   - each block a write bio carries is placed from its page (file,
 *     offset) and checked there against its folio's dirty blocks as
 *     writeback began: the only check where the submit hook has no
 *     offsets (6.1-6.8), a second one, which must agree, elsewhere.
 * Exit 0: nothing clean was written, with evidence (blocks checked, every
 * one seen at the block layer); 1: clean blocks were written (first
 * offenders listed), or the kernel has no per-block dirty tracking;
 * 8 (EXIT_INCOMPLETE): no evidence, or the evidence is incomplete (the
 * reason names what is missing); 2: any error. (verify folds the other
 * exit codes into 2.)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "cmd/commands.h"
#include "live/engine.h"
#include "lib/exitcodes.h"
#include "live/plan_measures.h"
#include "model/ratios.h"
#include "output/report.h"

#define MAX_OFFENDERS	1024
#define MAX_BLOCKDEVS	64
/*
 * After the end, how long blocks submitted before it may take to show up
 * in a bio: an ioend is submitted once writeback of its folios is done,
 * and a bio may wait in a plug; both take milliseconds, not seconds.
 */
#define SETTLE_SECONDS	2.0
/* --blocks is checked this often; progress lines come every few seconds */
#define TICK_SECONDS	0.5
#define PROGRESS_SECONDS	3.0
#define ULL(x)		((unsigned long long)(x))

struct verify_args {
	struct session_opts so;
	double duration;	/* 0: until signalled */
	unsigned long long blocks;	/* --blocks: stop once checked; 0: no */
	bool progress;		/* progress on stderr even if not a tty */
	bool json;
	unsigned long long list;
};

enum { OPT_JSON = 0x500, OPT_SIMULATE, OPT_LIST, OPT_SIMULATE_UNSEEN, OPT_BLOCKS,
	OPT_PROGRESS };

static const struct argp_option verify_options[] = {
	{ "duration", 'D', "SECONDS", 0, "Observe this long (default: until SIGINT/SIGTERM)", 0 },
	{ "blocks", OPT_BLOCKS, "N", 0, "Stop once N submitted blocks are checked (or at "
	  "--duration, whichever comes first)", 0 },
	{ "progress", OPT_PROGRESS, NULL, 0, "Progress on stderr every few seconds even when "
	  "stderr is not a terminal (it is shown on a terminal anyway)", 0 },
	{ "json", OPT_JSON, NULL, 0, "JSON report (schema iomapdirty/1)", 0 },
	{ "list", OPT_LIST, "N", 0, "Offending folios listed (default 10)", 0 },
	{ "simulate-clean", OPT_SIMULATE, "N", 0,
	  "TEST ONLY: hide the first dirty block of folios at page indexes "
	  "divisible by N from the check, so the kernel's write of it is flagged; "
	  "the report says SIMULATED", 0 },
	{ "simulate-unseen-bios", OPT_SIMULATE_UNSEEN, NULL, 0,
	  "TEST ONLY: the block-layer program ignores every write bio, as if the "
	  "submitted data never reached the device; the report says SIMULATED", 0 },
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
	case OPT_BLOCKS:
		if (parse_u64(arg, 1, 1ULL << 50, &a->blocks))
			argp_error(state, "--blocks wants a positive number of blocks");
		break;
	case OPT_PROGRESS:
		a->progress = true;
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
	case OPT_SIMULATE_UNSEEN:
		a->so.simulate_unseen_bios = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Appends a "; "-separated reason to v->why. */
static void why_add(struct verify_report *v, const char *fmt, ...)
{
	size_t n = strlen(v->why);
	va_list ap;

	if (n && n < sizeof(v->why) - 2) {
		strcpy(v->why + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(v->why + n, sizeof(v->why) - n, fmt, ap);
	va_end(ap);
}

/* The PASS reason: what was checked, the pre-attach folios apart. */
static void why_pass(struct verify_report *v, const struct wa_stats *t)
{
	uint64_t pre = v->checked_at_bio_only ? v->bio_totals.bio_preattach_blocks :
			t->preattach_checked_blocks;

	if (v->bio_totals.bh_blocks == v->checked_blocks)	/* ext4 alone */
		snprintf(v->why, sizeof(v->why), "only dirty blocks reached the device "
			 "(%llu folios, %llu blocks of ext4 files checked in the write "
			 "bios that carried them, against their folio's dirty buffers "
			 "as writeback began: buffer heads, whose writeback is seen "
			 "there)", ULL(t->folios), ULL(v->checked_blocks));
	else if (v->checked_at_bio_only)
		snprintf(v->why, sizeof(v->why), "only dirty blocks reached the device "
			 "(%llu folios, %llu blocks checked in the write bios that "
			 "carried them, against their folio's dirty blocks as writeback "
			 "began: this kernel's submit tracepoint has no offsets)",
			 ULL(t->folios - t->preattach_folios), ULL(v->checked_blocks));
	else
		snprintf(v->why, sizeof(v->why), "only dirty blocks reached the device "
			 "(%llu folios, %llu blocks checked, every one seen at the block "
			 "layer and checked again there)",
			 ULL(t->folios - t->preattach_folios), ULL(v->checked_blocks));
	if (v->bio_totals.bh_blocks && v->bio_totals.bh_blocks != v->checked_blocks)
		why_add(v, "%llu of them of ext4 files (buffer heads), placed and checked "
			"in the write bios that carried them, where their writeback is "
			"seen", ULL(v->bio_totals.bh_blocks));
	if (t->preattach_folios)
		why_add(v, "%llu folios dirtied before attach, %llu of their blocks checked "
			"against the kernel's dirty bitmap and seen at the block layer "
			"(reported apart)", ULL(t->preattach_folios), ULL(pre));
}

/* Sums the figures of n block devices into t. */
static void bio_stats_sum(struct bio_stats *t, const struct bio_entry *bios, int n)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < n; i++) {
		const struct bio_stats *b = &bios[i].s;

		t->matched_bytes += b->matched_bytes;
		t->placed_agree_blocks += b->placed_agree_blocks;
		t->placed_disagree_blocks += b->placed_disagree_blocks;
		t->unplaced_blocks += b->unplaced_blocks;
		t->bio_checked_blocks += b->bio_checked_blocks;
		t->bio_preattach_blocks += b->bio_preattach_blocks;
		t->bio_violation_blocks += b->bio_violation_blocks;
		t->bio_unjudged_blocks += b->bio_unjudged_blocks;
		t->bio_unsnapped_blocks += b->bio_unsnapped_blocks;
		t->bh_blocks += b->bh_blocks;
		if (!t->first_disagree_offset) {
			t->first_disagree_offset = b->first_disagree_offset;
			t->first_disagree_bio_offset = b->first_disagree_bio_offset;
		}
	}
}

/*
 * The data blocks seen at the block layer were placed twice: by the submit
 * hook (file, offset) and by the bio's own pages. Where the two differ,
 * or the bio's page could not be placed, what was checked is not known to
 * be what was sent: no PASS.
 */
static void placement_why(struct verify_report *v)
{
	const struct bio_stats *t = &v->bio_totals;

	if (t->placed_disagree_blocks)
		why_add(v, "%llu data blocks were placed in the file differently by the "
			"write bio's pages than by the submit hook (the first: hook offset "
			"%llu, bio offset %llu)", ULL(t->placed_disagree_blocks),
			ULL(t->first_disagree_offset - 1), ULL(t->first_disagree_bio_offset));
	if (t->unplaced_blocks)
		why_add(v, "%llu data blocks seen at the block layer could not be placed "
			"from the write bio's pages", ULL(t->unplaced_blocks));
}

/*
 * Where the submit hook has no offsets, the bios are the check: every
 * submitted block must be one the bios carried and checked, no more, no
 * fewer (a block with no kept bitmap is not counted as checked).
 */
static void bio_only_why(struct verify_report *v, const struct wa_stats *t)
{
	const struct bio_stats *b = &v->bio_totals;

	if (b->bio_checked_blocks == t->submitted_blocks)
		return;
	why_add(v, "%llu blocks were submitted and %llu checked in the write bios "
		"that carried them (this kernel's submit tracepoint has no offsets: "
		"the bios are the check; waited %.1f s after the end)",
		ULL(t->submitted_blocks), ULL(b->bio_checked_blocks), v->settle_seconds);
}

/*
 * FAIL when clean blocks were sent (or cannot be told apart); PASS only
 * with evidence: at least one block checked, no block unchecked, nothing
 * lost, and every submitted block seen in a write bio. Anything less is
 * INCOMPLETE ("no evidence" when nothing was checked), naming what is
 * missing. Folios dirtied before attach are checked against the kernel's
 * dirty bitmap like the others and counted apart: never missing evidence.
 */
static void decide(const struct session *s, const struct wa_stats *t,
		   uint64_t losses, struct verify_report *v)
{
	const struct plan *p = &s->plan;
	const struct bio_stats *b = &v->bio_totals;
	uint64_t checked = stats_checked_blocks(t);

	v->why[0] = 0;
	v->tells_preattach = plan_measures(p).preattach;
	v->checked_at_bio_only = p->submit_proto == SUBMIT_PER_BLOCK && v->bios_watched;
	if (v->checked_at_bio_only)	/* the submit hook checked nothing */
		checked = b->bio_checked_blocks;
	v->checked_blocks = checked - (v->checked_at_bio_only ? b->bio_preattach_blocks :
				       t->preattach_checked_blocks);
	/* ext4's dirty bits are its buffers', whatever iomap has */
	if (p->bitmap == BITMAP_NONE && !s->fs.buffer_heads) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->why, sizeof(v->why), "this kernel has no per-block dirty "
			 "tracking (family %c: %s): writeback sends every uptodate block "
			 "of a dirty folio, so clean blocks reach the device; here %llu "
			 "blocks were submitted for %llu dirty", p->family, p->family_desc,
			 ULL(t->submitted_blocks), ULL(t->dirty_blocks));
		if (b->bio_violation_blocks)
			why_add(v, "the block layer carried %llu clean blocks of folios "
				"dirtied inside the window (first offenders listed) and "
				"%llu dirty ones", ULL(b->bio_violation_blocks),
				ULL(b->bio_checked_blocks));
		return;
	}
	/*
	 * Clean blocks found in the bios only, with events lost: a writeback
	 * whose start was missed leaves an earlier one's bitmap in place,
	 * which could call its newly dirty blocks clean. No verdict without
	 * evidence: the reason names them.
	 */
	if (b->bio_violation_blocks && !t->violation_blocks && losses) {
		why_add(v, "%llu clean blocks were carried by write bios, but %llu events "
			"were lost, so a folio's kept dirty bitmap may not be its last "
			"writeback's", ULL(b->bio_violation_blocks), ULL(losses));
		v->verdict = VERDICT_INCOMPLETE;
		return;
	}
	if (t->violation_blocks || b->bio_violation_blocks) {
		v->verdict = VERDICT_FAIL;
		snprintf(v->why, sizeof(v->why), "%llu clean blocks in %llu folios "
			 "were submitted to the device (%llu of them in folios dirtied "
			 "before attach)", ULL(t->violation_blocks),
			 ULL(t->violation_folios), ULL(t->preattach_violation_blocks));
		if (v->checked_at_bio_only || b->bio_violation_blocks != t->violation_blocks)
			why_add(v, "%llu clean blocks were carried by write bios, checked "
				"there against their folio's dirty blocks",
				ULL(b->bio_violation_blocks));
		return;
	}
	if (!t->submitted_blocks)
		why_add(v, "no data block was written back while observing: nothing "
			"was checked");
	if (v->checked_at_bio_only)
		bio_only_why(v, t);
	else if (t->unchecked_blocks)
		why_add(v, "%llu submitted blocks could not be checked (their folio's "
			"dirty bitmap could not be read)", ULL(t->unchecked_blocks));
	if (!v->checked_at_bio_only && v->bios_watched && b->bio_checked_blocks < checked)
		why_add(v, "%llu submitted blocks were checked, only %llu of them again "
			"in the write bios that carried them", ULL(checked),
			ULL(b->bio_checked_blocks));
	if (b->bio_unjudged_blocks)
		why_add(v, "%llu data blocks in write bios could not be judged (past "
			"their folio's blocks, or met twice in one writeback)",
			ULL(b->bio_unjudged_blocks));
	if (losses)
		why_add(v, "%llu events were lost (see losses)", ULL(losses));
	if (!v->bios_watched)
		why_add(v, "the block layer could not be watched (%s)",
			p->hooks[HOOK_BIO].note[0] ? p->hooks[HOOK_BIO].note :
			p->hooks[HOOK_BIO].rejected);
	else if (v->pending)
		why_add(v, "%llu submitted blocks were not seen in a write bio at the "
			"block layer (waited %.1f s after the end)", ULL(v->pending),
			v->settle_seconds);
	placement_why(v);
	if (v->why[0]) {
		v->verdict = VERDICT_INCOMPLETE;
		v->no_evidence = !checked;
		return;
	}
	v->verdict = VERDICT_PASS;
	why_pass(v, t);
}

/*
 * Blocks submitted before the end whose bio has not been seen yet: waits
 * up to SETTLE_SECONDS for them (those pending now, not blocks written
 * back since, which the frozen figures do not count).
 */
static void settle(struct session *s, struct verify_report *r)
{
	uint32_t max = engine_max_pages(s->engine);
	struct pending_entry *p;
	int n;

	r->pending = 0;
	r->settle_seconds = 0;
	if (!r->bios_watched)
		return;
	p = calloc(max, sizeof(*p));
	if (!p) {	/* cannot wait for them: every one counts as not seen */
		r->pending = engine_pending_blocks(s->engine);
		return;
	}
	n = engine_pending_keys(s->engine, p, max);
	while (n > 0 && r->settle_seconds < SETTLE_SECONDS) {
		usleep(50 * 1000);
		r->settle_seconds += 0.05;
		n = engine_pending_still(s->engine, p, n);
	}
	r->pending = n;
	free(p);
}

/* The write bios' figures so far, over the block devices. */
static void bio_check_now(struct session *s, struct bio_stats *t)
{
	struct bio_entry b[MAX_BLOCKDEVS];

	bio_stats_sum(t, b, engine_bio_stats(s->engine, b, MAX_BLOCKDEVS));
}

/* Blocks the write bios have judged so far. */
static uint64_t bio_judged_now(struct session *s)
{
	struct bio_stats t;

	bio_check_now(s, &t);
	return t.bio_checked_blocks + t.bio_violation_blocks + t.bio_unjudged_blocks;
}

/*
 * Where the submit hook has no offsets nothing is pending by address:
 * waits, up to the same bound, until the bios have judged as many blocks
 * as were submitted.
 */
static void settle_bio_only(struct session *s, struct verify_report *r, uint64_t submitted)
{
	while (r->bios_watched && bio_judged_now(s) < submitted &&
	       r->settle_seconds < SETTLE_SECONDS) {
		usleep(50 * 1000);
		r->settle_seconds += 0.05;
	}
}

/* What the window has checked so far (a flush and a reading, as hist's). */
struct progress {
	uint64_t checked;	/* submitted blocks checked, pre-attach ones too */
	uint64_t preattach;	/* of those, in folios dirtied before attach */
	uint64_t pending;	/* submitted, not yet seen in a write bio */
};

/* What the bios have checked so far, for progress_read(). */
static void bio_progress(struct session *s, struct progress *p)
{
	struct bio_stats t;

	bio_check_now(s, &t);
	p->checked = t.bio_checked_blocks;
	p->preattach = t.bio_preattach_blocks;
}

static int progress_read(struct session *s, struct progress *p, bool pending)
{
	struct snapshot snap;
	struct wa_stats t;

	if (engine_flush(s->engine, ENGINE_FLUSH_IDLE_NS))
		return -1;
	if (s->plan.submit_proto == SUBMIT_PER_BLOCK) {
		/* no offsets at the submit hook: the bios check the blocks */
		bio_progress(s, p);
	} else {
		if (engine_snapshot(s->engine, &snap))
			return -1;
		snapshot_totals(&snap, &t);
		p->checked = stats_checked_blocks(&t);
		p->preattach = t.preattach_checked_blocks;
		snapshot_free(&snap);
	}
	if (pending)
		p->pending = engine_pending_blocks(s->engine);
	return 0;
}

/*
 * Observes until --duration, a signal, or --blocks checked; with progress
 * on, says every few seconds on stderr what has been checked and what is
 * still waited for. Returns whether --blocks was reached.
 */
static bool observe(struct session *s, const struct verify_args *a)
{
	bool progress = a->progress || isatty(STDERR_FILENO);
	uint64_t start = mono_ns();
	double elapsed = 0, shown = 0, step;
	struct progress p = {};
	bool show;

	if (!progress && !a->blocks) {
		session_sleep(a->duration > 0 ? a->duration : 1e9);
		return false;
	}
	while (!session_exiting && (a->duration <= 0 || elapsed < a->duration)) {
		step = TICK_SECONDS;
		if (a->duration > 0 && a->duration - elapsed < step)
			step = a->duration - elapsed;
		session_sleep(step);
		elapsed = (mono_ns() - start) / 1e9;
		show = progress && elapsed - shown >= PROGRESS_SECONDS;
		if ((a->blocks || show) && progress_read(s, &p, show))
			continue;
		if (show) {
			fprintf(stderr, "iomapdirty: %.0f s: %llu blocks checked (%llu in folios "
				"dirtied before attach), %llu pending at the block layer\n",
				elapsed, ULL(p.checked), ULL(p.preattach), ULL(p.pending));
			shown = elapsed;
		}
		if (a->blocks && p.checked >= a->blocks)
			return true;
	}
	return false;
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

		o[i].state = engine_file_path(s->engine, &k, o[i].path, sizeof(o[i].path));
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
		.simulate_unseen = a->so.simulate_unseen_bios,
	};
	struct snapshot d;
	struct wa_stats t;

	fprintf(stderr, "iomapdirty: ready (pid %d)\n", getpid());
	r.blocks_goal = a->blocks;
	r.blocks_reached = observe(s, a);
	/*
	 * The figures are frozen here; the block layer may lag behind them.
	 * Folios whose writeback begins from now on keep no bitmap for the
	 * bios: theirs count in no figure of the window.
	 */
	if (engine_end_bio_window(s->engine) || engine_summary(s->engine, &d)) {
		fprintf(stderr, "iomapdirty: reading the counters failed\n");
		return VERDICT_ERROR;
	}
	snapshot_totals(&d, &t);
	settle(s, &r);
	if (s->plan.submit_proto == SUBMIT_PER_BLOCK)
		settle_bio_only(s, &r, t.submitted_blocks);
	r.d = &d;
	r.nviolations = engine_violations(s->engine, vio, MAX_OFFENDERS);
	/* no folio seen by the submit hook: those the bios found */
	if (!r.nviolations)
		r.nviolations = engine_bio_violations(s->engine, vio, MAX_OFFENDERS);
	r.nbios = engine_bio_stats(s->engine, bios, MAX_BLOCKDEVS);
	r.noffenders = r.nviolations < (int)a->list ? r.nviolations : (int)a->list;
	if (list_offenders(s, vio, r.noffenders, &offenders)) {
		snapshot_free(&d);
		return VERDICT_ERROR;
	}
	r.offenders = offenders;
	r.totals = t;
	bio_stats_sum(&r.bio_totals, r.bios, r.nbios);
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
