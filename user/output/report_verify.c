// SPDX-License-Identifier: GPL-2.0
/* verify's report, in text and in JSON: see report.h. */
#include <inttypes.h>
#include "model/fs.h"
#include "live/plan_measures.h"
#include "output/json.h"
#include "output/report.h"
#include "output/safetext.h"

#define ULL(x) ((unsigned long long)(x))

static const char *verdict_word(const struct verify_report *r, bool upper)
{
	switch (r->verdict) {
	case VERDICT_PASS: return upper ? "PASS" : "pass";
	case VERDICT_FAIL: return upper ? "FAIL" : "fail";
	case VERDICT_INCOMPLETE:
		if (r->no_evidence)
			return upper ? "NO EVIDENCE" : "no_evidence";
		return upper ? "INCOMPLETE" : "incomplete";
	default: return upper ? "ERROR" : "error";
	}
}

static void fs_text(FILE *out, const struct fs_entry *fs, const struct plan *p)
{
	const struct wa_stats *f = &fs->s;

	fprintf(out, "\nfilesystem %u:%u\n", kdev_major(fs->dev), kdev_minor(fs->dev));
	fprintf(out, "  folios written back      %llu\n", ULL(f->folios));
	fprintf(out, "  dirty                    %llu blocks, %llu B\n",
		ULL(f->dirty_blocks), ULL(f->dirty_bytes));
	fprintf(out, "  submitted                %llu blocks, %llu B\n",
		ULL(f->submitted_blocks), ULL(f->submitted_bytes));
	fprintf(out, "  clean blocks submitted   %llu in %llu folios (violations)\n",
		ULL(f->violation_blocks), ULL(f->violation_folios));
	if (plan_measures(p).bitmap)	/* JSON: null */
		fprintf(out, "  dirty only in the kernel %llu blocks (mmap, or writes "
			"not seen)\n", ULL(f->unexplained_blocks));
	else
		fprintf(out, "  dirty only in the kernel n/a (no dirty bitmap in this "
			"kernel)\n");
	fprintf(out, "  not checked              %llu blocks\n", ULL(f->unchecked_blocks));
	if (plan_measures(p).preattach)
		fprintf(out, "  dirtied before attach    %llu folios: %llu blocks checked, "
			"%llu written clean\n", ULL(f->preattach_folios),
			ULL(f->preattach_checked_blocks), ULL(f->preattach_violation_blocks));
	else
		fprintf(out, "  dirtied before attach    n/a (the writeback hook has the "
			"folio: checked with the others)\n");
}

void report_verify_text(FILE *out, const struct report_ctx *rc,
			const struct verify_report *r)
{
	const struct snapshot *d = r->d;

	report_header_text(out, rc);
	fprintf(out, "observed %.2f s%s\n", d->seconds,
		r->blocks_reached ? " (stopped: --blocks checked)" : "");
	if (d->counters[CNT_SIMULATED_FOLIOS])
		fprintf(out, "SIMULATED: --simulate-clean %llu hid one dirty block from "
			"the check in %llu folios; violations below are not the "
			"kernel's\n", r->simulate, ULL(d->counters[CNT_SIMULATED_FOLIOS]));
	if (r->simulate_unseen)
		fprintf(out, "SIMULATED: --simulate-unseen-bios: %llu write bios ignored "
			"at the block layer\n", ULL(d->counters[CNT_SIMULATED_BIOS]));
	for (int i = 0; i < d->nfs; i++)
		fs_text(out, &d->fs[i], rc->plan);
	for (int i = 0; i < r->nbios; i++) {
		const struct bio_entry *b = &r->bios[i];

		fprintf(out, "\nblock device %u:%u: %llu write bios; data seen %llu B in "
			"%llu bios (+%llu partly); %llu bios unmatched (%llu B: journal, "
			"metadata)\n", kdev_major(b->dev), kdev_minor(b->dev),
			ULL(b->s.write_bios), ULL(b->s.matched_bytes),
			ULL(b->s.matched_bios), ULL(b->s.partial_bios),
			ULL(b->s.unmatched_bios), ULL(b->s.unmatched_bytes));
		if (b->s.bh_blocks)	/* ext4: the submit is the bio */
			fprintf(out, "  buffer heads: %llu data blocks placed once, from the "
				"bios' pages, where their writeback is seen\n",
				ULL(b->s.bh_blocks));
		else
			fprintf(out, "  placed from the bios' pages: %llu data blocks where "
				"the submit hook put them, %llu elsewhere, %llu not placed\n",
				ULL(b->s.placed_agree_blocks), ULL(b->s.placed_disagree_blocks),
				ULL(b->s.unplaced_blocks));
		fprintf(out, "  checked in the bios against their folio's dirty blocks: "
			"%llu dirty (%llu dirtied before attach), %llu clean, %llu not "
			"judged; %llu of folios written back outside the window\n",
			ULL(b->s.bio_checked_blocks), ULL(b->s.bio_preattach_blocks),
			ULL(b->s.bio_violation_blocks), ULL(b->s.bio_unjudged_blocks),
			ULL(b->s.bio_unsnapped_blocks));
	}
	if (r->checked_at_bio_only)
		fprintf(out, "checked at the block layer only: this kernel's submit "
			"tracepoint has no offsets\n");
	if (r->bios_watched)
		fprintf(out, "submitted blocks not seen in a write bio: %llu (waited "
			"%.2f s after the end)\n", ULL(r->pending), r->settle_seconds);
	if (r->nviolations)
		fprintf(out, "\nfirst offending folios:\n");
	for (int i = 0; i < r->noffenders; i++) {
		const struct verify_offender *o = &r->offenders[i];
		char shown[4 * sizeof(o->path)];

		/* a user chose the name: never raw to the terminal */
		text_sanitize(o->path, shown, sizeof(shown));
		fprintf(out, "  %s%s%s%s offset %llu: %llu clean blocks sent (folio %llu B, "
			"%llu dirty blocks)\n", shown, o->state == PATH_OK ? "" : " (",
			o->state == PATH_OK ? "" : path_state_names[o->state],
			o->state == PATH_OK ? "" : ")",
			ULL(o->v.first_offset), ULL(o->v.clean_blocks),
			ULL(o->v.folio_bytes), ULL(o->v.dirty_blocks));
	}
	fprintf(out, "\nlosses:");
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		if (d->counters[i])
			fprintf(out, " %s=%llu", counter_names[i], ULL(d->counters[i]));
	fprintf(out, "%s\n", snapshot_losses(d) ? "" : " none");
	fprintf(out, "verdict: %s: %s\n", verdict_word(r, true), r->why);
}

static void bio_json(struct json *j, const struct bio_entry *b)
{
	char dev[32];

	json_object_begin(j);
	kdev_name(b->dev, dev, sizeof(dev));
	json_kv_string(j, "dev", dev);
	json_kv_u64(j, "write_bios", b->s.write_bios);
	json_kv_u64(j, "matched_bios", b->s.matched_bios);
	json_kv_u64(j, "partial_bios", b->s.partial_bios);
	json_kv_u64(j, "unmatched_bios", b->s.unmatched_bios);
	json_kv_u64(j, "data_bytes", b->s.matched_bytes);
	json_kv_u64(j, "unmatched_bytes", b->s.unmatched_bytes);
	json_kv_u64(j, "placed_agree_blocks", b->s.placed_agree_blocks);
	json_kv_u64(j, "placed_disagree_blocks", b->s.placed_disagree_blocks);
	json_kv_u64(j, "unplaced_blocks", b->s.unplaced_blocks);
	json_kv_u64(j, "bio_checked_blocks", b->s.bio_checked_blocks);
	json_kv_u64(j, "bio_preattach_blocks", b->s.bio_preattach_blocks);
	json_kv_u64(j, "bio_violation_blocks", b->s.bio_violation_blocks);
	json_kv_u64(j, "bio_unjudged_blocks", b->s.bio_unjudged_blocks);
	json_kv_u64(j, "bio_unsnapped_blocks", b->s.bio_unsnapped_blocks);
	json_kv_u64(j, "buffer_head_blocks", b->s.bh_blocks);
	json_key(j, "first_disagreement");
	if (b->s.first_disagree_offset) {
		json_object_begin(j);
		json_kv_u64(j, "hook_offset", b->s.first_disagree_offset - 1);
		json_kv_u64(j, "bio_offset", b->s.first_disagree_bio_offset);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_object_end(j);
}

static void offender_json(struct json *j, const struct verify_offender *o)
{
	json_object_begin(j);
	json_kv_path(j, "path", o->path);
	json_kv_string(j, "path_state", path_state_names[o->state]);
	json_kv_u64(j, "ino", o->ino);
	json_kv_u64(j, "offset", o->v.first_offset);
	json_kv_u64(j, "clean_blocks", o->v.clean_blocks);
	json_kv_u64(j, "folio_bytes", o->v.folio_bytes);
	json_kv_u64(j, "dirty_blocks", o->v.dirty_blocks);
	json_object_end(j);
}

/* key: v, or null where the plan does not measure it */
static void kv_u64_or_null(struct json *j, const char *key, bool measured, uint64_t v)
{
	json_key(j, key);
	if (measured)
		json_u64(j, v);
	else
		json_null(j);
}

/* What was checked, the folios dirtied before attach apart (or null). */
static void preattach_json(struct json *j, const struct verify_report *r)
{
	const struct wa_stats *t = &r->totals;

	json_kv_u64(j, "checked_blocks", r->checked_blocks);
	json_kv_bool(j, "checked_at_bio_only", r->checked_at_bio_only);
	kv_u64_or_null(j, "blocks_goal", r->blocks_goal, r->blocks_goal);
	json_kv_bool(j, "blocks_goal_reached", r->blocks_reached);
	kv_u64_or_null(j, "preattach_folios", r->tells_preattach, t->preattach_folios);
	kv_u64_or_null(j, "preattach_checked_blocks", r->tells_preattach,
		       t->preattach_checked_blocks);
	kv_u64_or_null(j, "preattach_violation_blocks", r->tells_preattach,
		       t->preattach_violation_blocks);
}

void report_verify_json(FILE *out, const struct report_ctx *rc,
			const struct verify_report *r)
{
	const struct snapshot *d = r->d;
	struct json j;
	char dev[32];

	json_init(&j, out);
	json_object_begin(&j);
	json_kv_string(&j, "schema", IOMAPDIRTY_SCHEMA);
	json_kv_string(&j, "type", "verify");
	json_key(&j, "seconds");
	json_double(&j, d->seconds);
	json_kv_string(&j, "verdict", verdict_word(r, false));
	json_kv_u64(&j, "exit_code", r->verdict);
	json_kv_string(&j, "reason", r->why);
	preattach_json(&j, r);
	json_kv_u64(&j, "simulated_clean_folios", d->counters[CNT_SIMULATED_FOLIOS]);
	json_kv_bool(&j, "simulated_unseen_bios", r->simulate_unseen);
	json_key(&j, "plan");
	plan_write_json(rc->plan, &j);
	json_key(&j, "filesystems");
	json_array_begin(&j);
	for (int i = 0; i < d->nfs; i++) {
		json_object_begin(&j);
		kdev_name(d->fs[i].dev, dev, sizeof(dev));
		json_kv_string(&j, "dev", dev);
		json_key(&j, "stats");
		stats_write_json(&j, &d->fs[i].s, rc->plan);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "block_devices");
	json_array_begin(&j);
	for (int i = 0; i < r->nbios; i++)
		bio_json(&j, &r->bios[i]);
	json_array_end(&j);
	json_key(&j, "pending_blocks");
	if (r->bios_watched)
		json_u64(&j, r->pending);
	else
		json_null(&j);
	json_key(&j, "settle_seconds");
	json_double(&j, r->settle_seconds);
	json_key(&j, "offenders");
	json_array_begin(&j);
	for (int i = 0; i < r->noffenders; i++)
		offender_json(&j, &r->offenders[i]);
	json_array_end(&j);
	report_losses_json(&j, d);
	json_object_end(&j);
}
