// SPDX-License-Identifier: GPL-2.0
/* Text and JSON rendering: see report.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "model/accounting.h"
#include "live/plan_measures.h"
#include "model/ratios.h"
#include "buckets.h"
#include "output/json.h"
#include "output/report.h"
#include "output/safetext.h"
#include "output/unwatched.h"

#define ULL(x) ((unsigned long long)(x))

#undef HIST_NAME
#undef HIST_UNIT

/* ------------------------------------------------------------- output */

int report_flush(FILE *out)
{
	static bool said;
	int err;

	if (!fflush(out) && !ferror(out))
		return 0;
	err = errno;
	if (!said)
		fprintf(stderr, "iomapdirty: cannot write the output: %s\n",
			strerror(err ? err : EIO));
	said = true;
	return -1;
}

/* ------------------------------------------------------------- text */


static int used_range(const uint64_t *counts, int *first, int *last)
{
	*first = -1;
	*last = -1;
	for (int k = 0; k < HIST_BUCKETS; k++) {
		if (!counts[k])
			continue;
		if (*first < 0)
			*first = k;
		*last = k;
	}
	return *first >= 0;
}

static void hist_print_text(FILE *out, enum hist_id h, const uint64_t *counts)
{
	const int width = 40;
	uint64_t peak = 0;
	int first, last;
	char label[64];

	fprintf(out, "\n%-24s : count    distribution (%s)\n", hist_names[h], hist_units[h]);
	if (!used_range(counts, &first, &last)) {
		fprintf(out, "%24s   (no folios)\n", "");
		return;
	}
	for (int k = first; k <= last; k++)
		if (counts[k] > peak)
			peak = counts[k];
	for (int k = first; k <= last; k++) {
		int stars = (int)(counts[k] * width / peak);

		hist_bucket_label(h, k, label, sizeof(label));
		fprintf(out, "%24s : %-8" PRIu64 " |%.*s%*s|\n", label, counts[k],
			stars, "****************************************",
			width - stars, "");
	}
}

/* s->field as text, or "n/a" where the plan does not measure it (never a 0). */
#define FIELD_TEXT(buf, m, s, field)						\
	num_or_na(buf, sizeof(buf), (s)->field, MEASURES(m, field))

static const char *num_or_na(char *buf, size_t len, uint64_t v, bool measured)
{
	if (!measured)
		return "n/a";
	snprintf(buf, len, "%llu", ULL(v));
	return buf;
}

static void stats_text(FILE *out, const struct wa_stats *s, const struct plan *p)
{
	const struct measures mp = plan_measures(p), *m = &mp;
	char br[16] = "n/a", fa[16] = "n/a", b[6][24];

	if (MEASURES(m, app_dirty_bytes))
		ratio_text(stats_block_rounding(s), br, sizeof(br));
	if (MEASURES(m, dirty_blocks))
		ratio_text(stats_folio_amplification(s), fa, sizeof(fa));
	fprintf(out, "  written      %llu B in %llu write calls\n",
		ULL(s->app_bytes), ULL(s->write_calls));
	/* what the JSON calls null is "n/a" here, never a 0 not measured */
	fprintf(out, "  dirty        %s blocks (%s B): %s by writes, ",
		FIELD_TEXT(b[0], m, s, dirty_blocks), FIELD_TEXT(b[1], m, s, dirty_bytes),
		FIELD_TEXT(b[2], m, s, app_dirty_blocks));
	if (MEASURES(m, other_dirty_blocks))
		fprintf(out, "%llu other in %llu folios\n", ULL(s->other_dirty_blocks),
			ULL(s->other_dirty_folios));
	else
		fprintf(out, "other n/a (not measured %s)\n",
			measures_other(m) ? "at this accounting level" :
			"on this kernel");
	fprintf(out, "  written back %llu folios (%llu B, largest %llu B), %s with "
		"no dirtying seen\n", ULL(s->folios), ULL(s->folio_bytes),
		ULL(s->max_folio_bytes), FIELD_TEXT(b[3], m, s, folios_no_dirty_seen));
	fprintf(out, "  submitted    %llu blocks (%llu B)\n",
		ULL(s->submitted_blocks), ULL(s->submitted_bytes));
	fprintf(out, "  block rounding %s, folio amplification %s\n", br, fa);
}

static void losses_text(FILE *out, const struct snapshot *d)
{
	bool any = false;

	fprintf(out, "  losses:");
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++) {
		if (!d->counters[i])
			continue;
		fprintf(out, " %s=%" PRIu64, counter_names[i], d->counters[i]);
		any = true;
	}
	fprintf(out, "%s\n", any ? "" : " none");
}

void report_header_text(FILE *out, const struct report_ctx *rc)
{
	const struct plan *p = rc->plan;

	fprintf(out, "iomapdirty: kernel family %c: %s\n", p->family, p->family_desc);
	fprintf(out, "attach plan:");
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		if (h->chosen)
			fprintf(out, " %s=%s:%s", hook_names[i],
				plan_mech_detail(h), h->target);
	}
	/* on the plan's line: the header keeps its lines (scripts read them) */
	fprintf(out, "; accounting %s\n", accounting_level_names[p->accounting]);
	if (rc->target_dev) {
		struct fsinfo fi = {};
		char mnt[4 * sizeof(fi.mount)];

		rc->host->fs(rc->target_dev, &fi);
		text_sanitize(fi.mount, mnt, sizeof(mnt));
		fprintf(out, "filesystem: %u:%u %s on %s, block size ",
			kdev_major(rc->target_dev), kdev_minor(rc->target_dev),
			fi.fstype, mnt);
		if (fi.block_bytes)
			fprintf(out, "%" PRIu64 " B\n", fi.block_bytes);
		else
			fprintf(out, "n/a\n");
	} else {
		fprintf(out, "filesystems: all iomap filesystems\n");
	}
}

static void run_writeback_text(FILE *out, const struct run_writeback *w)
{
	fprintf(out, "\ncommand ran %.2f s; ", w->command_seconds);
	if (w->synced)
		fprintf(out, "then waited %.2f s for the writeback of what it wrote "
			"(syncfs of %d filesystems%s)\n", w->sync_seconds,
			w->filesystems_synced, w->sync_failures ? ", some FAILED" : "");
	else
		fprintf(out, "writeback not waited for (--no-sync)\n");
	fprintf(out, "still dirty, not written back: %" PRIu64 " pages (%" PRIu64
		" B written by the application)\n", w->unwritten_pages,
		w->unwritten_app_bytes);
}

static void run_writeback_json(struct json *j, const struct run_writeback *w)
{
	json_key(j, "writeback");
	json_object_begin(j);
	json_key(j, "command_seconds");
	json_double(j, w->command_seconds);
	json_kv_bool(j, "synced", w->synced);
	json_key(j, "sync_seconds");
	json_double(j, w->sync_seconds);
	json_kv_u64(j, "filesystems_synced", w->filesystems_synced);
	json_kv_u64(j, "sync_failures", w->sync_failures);
	json_kv_u64(j, "unwritten_pages", w->unwritten_pages);
	json_kv_u64(j, "unwritten_app_bytes", w->unwritten_app_bytes);
	json_object_end(j);
}

void report_text(FILE *out, const char *title, const struct snapshot *d,
		 const struct report_ctx *rc)
{
	const struct measures m = plan_measures(rc->plan);
	struct wa_stats t;

	snapshot_totals(d, &t);
	fprintf(out, "\n=== %s (%.2f s) ===\n", title, d->seconds);
	stats_text(out, &t, rc->plan);
	losses_text(out, d);
	if (d->counters[CNT_FILES_EVICTED])
		fprintf(out, "  %" PRIu64 " files evicted from the per-file maps, their figures "
			"still in the filesystem totals\n", d->counters[CNT_FILES_EVICTED]);
	for (int i = 0; i < d->nfs && (d->nfs > 1 || !rc->target_dev); i++) {
		struct fsinfo fi = {};
		char mnt[4 * sizeof(fi.mount)];

		rc->host->fs(d->fs[i].dev, &fi);
		text_sanitize(fi.mount, mnt, sizeof(mnt));
		fprintf(out, " filesystem %u:%u %s %s\n", kdev_major(d->fs[i].dev),
			kdev_minor(d->fs[i].dev), fi.fstype, mnt);
		stats_text(out, &d->fs[i].s, rc->plan);
	}
	unwatched_text(out, d, rc->host, rc->plan);
	for (int h = 0; h < NR_HISTS; h++) {
		if (measures_hist(&m, h))
			hist_print_text(out, h, d->hists[h]);
		else
			fprintf(out, "\n%-24s : n/a (not measured: %s accounting, no dirty bitmap)\n",
				hist_names[h], accounting_level_names[rc->plan->accounting]);
	}
	if (rc->run)
		run_writeback_text(out, rc->run);
	fflush(out);
}

/* ------------------------------------------------------------- JSON */

/* The fields in WA_STATS_FIELDS' order, null where not measured; the ratios. */
void stats_write_json(struct json *j, const struct wa_stats *s, const struct plan *p)
{
	const struct measures m = plan_measures(p);

	json_object_begin(j);
	for (int i = 0; i < NR_WA_STATS_FIELDS; i++) {
		const struct wa_field *f = &wa_stats_fields[i];

		if (f->json == WA_NEVER)
			continue;
		json_key(j, f->name);
		if (measures_field(&m, f))
			json_u64(j, wa_field_get(s, f));
		else
			json_null(j);
	}
	json_key(j, "block_rounding");
	if (MEASURES(&m, app_dirty_bytes))
		json_ratio(j, stats_block_rounding(s));
	else
		json_null(j);
	json_key(j, "folio_amplification");
	if (MEASURES(&m, dirty_blocks))
		json_ratio(j, stats_folio_amplification(s));
	else
		json_null(j);
	json_object_end(j);
}

static void hist_write_json(struct json *j, enum hist_id h, const uint64_t *counts)
{
	int first, last;

	json_object_begin(j);
	json_kv_string(j, "unit", hist_units[h]);
	json_key(j, "buckets");
	json_array_begin(j);
	if (used_range(counts, &first, &last)) {
		for (int k = first; k <= last; k++) {
			struct bucket_bounds b;

			hist_bucket_bounds(h, k, &b);
			json_object_begin(j);
			json_kv_u64(j, "min", b.min);
			json_key(j, "max");
			if (b.open_ended)
				json_null(j);
			else
				json_u64(j, b.max);
			if (h == HIST_AMPLIFICATION) {
				json_kv_bool(j, "min_exclusive", b.min_exclusive);
				json_kv_bool(j, "max_exclusive", b.max_exclusive);
			}
			json_kv_u64(j, "count", counts[k]);
			json_object_end(j);
		}
	}
	json_array_end(j);
	json_object_end(j);
}

void report_losses_json(struct json *j, const struct snapshot *d)
{
	json_key(j, "losses");
	json_object_begin(j);
	for (int i = CNT_LOSS_FIRST; i < NR_COUNTERS; i++)
		json_kv_u64(j, counter_names[i], d->counters[i]);
	json_object_end(j);
}

/*
 * "writer": the file's first writer since attach (cgroup id, its path and
 * the names read from it, command), and whether other cgroups wrote it.
 */
void writer_json(struct json *j, const struct writer_info *w)
{
	const struct cgroup_names *n = &w->names;

	json_key(j, "writer");
	json_object_begin(j);
	/* 0: not known (the kernel has no cgroup helpers: plan's cgroup_attribution) */
	json_key(j, "cgroup_id");
	if (w->cgroup_id)
		json_u64(j, w->cgroup_id);
	else
		json_null(j);
	json_kv_path(j, "cgroup", w->cgroup_known ? w->cgroup : NULL);
	json_kv_string(j, "unit", n->unit[0] ? n->unit : NULL);
	json_kv_string(j, "container", n->container[0] ? n->container : NULL);
	json_kv_string(j, "runtime", n->runtime[0] ? n->runtime : NULL);
	json_kv_string(j, "pod_uid", n->pod_uid[0] ? n->pod_uid : NULL);
	json_kv_string(j, "qos", n->qos[0] ? n->qos : NULL);
	json_kv_path(j, "comm", w->comm);
	json_kv_bool(j, "several_cgroups", w->several);
	json_object_end(j);
}

static void file_path_json(struct json *j, const struct file_lookup *fl,
			   const struct file_key *key)
{
	char path[4096];
	enum path_state st = fl->path(fl->ctx, key, path, sizeof(path));
	struct writer_info wi;

	json_kv_string(j, "path", st == PATH_UNKNOWN ? NULL : path);
	json_kv_string(j, "path_state", path_state_names[st]);
	if (fl->writer(fl->ctx, key, &wi))
		writer_json(j, &wi);
}

void report_json(FILE *out, const char *type, int interval, const struct snapshot *d,
		 const struct report_ctx *rc)
{
	const struct measures m = plan_measures(rc->plan);
	struct wa_stats t;
	struct json j;
	char dev[32];

	snapshot_totals(d, &t);
	json_init(&j, out);
	json_object_begin(&j);
	json_kv_string(&j, "schema", IOMAPDIRTY_SCHEMA);
	json_kv_string(&j, "type", type);
	if (interval > 0)
		json_kv_u64(&j, "interval", interval);
	json_key(&j, "seconds");
	json_double(&j, d->seconds);
	json_kv_string(&j, "accounting", accounting_level_names[rc->plan->accounting]);
	json_key(&j, "plan");
	plan_write_json(rc->plan, &j);
	json_key(&j, "max_page_records");	/* none kept at the always-on level */
	if (rc->plan->accounting == ACCOUNTING_FULL)
		json_u64(&j, rc->max_pages);
	else
		json_null(&j);
	json_key(&j, "totals");
	stats_write_json(&j, &t, rc->plan);
	if (rc->run)
		run_writeback_json(&j, rc->run);

	json_key(&j, "filesystems");
	json_array_begin(&j);
	for (int i = 0; i < d->nfs; i++) {
		struct fsinfo fi = {};

		rc->host->fs(d->fs[i].dev, &fi);
		json_object_begin(&j);
		kdev_name(d->fs[i].dev, dev, sizeof(dev));
		json_kv_string(&j, "dev", dev);
		json_kv_string(&j, "fstype", fi.fstype[0] ? fi.fstype : NULL);
		json_kv_path(&j, "mount", fi.mount[0] ? fi.mount : NULL);
		json_key(&j, "stats");
		stats_write_json(&j, &d->fs[i].s, rc->plan);
		json_object_end(&j);
	}
	json_array_end(&j);
	unwatched_json(&j, d, rc->host, rc->plan);

	json_key(&j, "files");
	json_array_begin(&j);
	for (int i = 0; i < d->nfiles; i++) {
		json_object_begin(&j);
		kdev_name(d->files[i].key.dev, dev, sizeof(dev));
		json_kv_string(&j, "dev", dev);
		json_kv_u64(&j, "ino", d->files[i].key.ino);
		if (rc->files)
			file_path_json(&j, rc->files, &d->files[i].key);
		/* evicted before: its figures count from when it came back */
		json_kv_bool(&j, "partial", stats_partial(&d->files[i].s));
		json_key(&j, "stats");
		stats_write_json(&j, &d->files[i].s, rc->plan);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key(&j, "histograms");
	json_object_begin(&j);
	for (int h = 0; h < NR_HISTS; h++) {
		json_key(&j, hist_names[h]);
		if (measures_hist(&m, h))
			hist_write_json(&j, h, d->hists[h]);
		else
			json_null(&j);
	}
	json_object_end(&j);

	report_losses_json(&j, d);
	json_key(&j, "events");
	json_object_begin(&j);
	for (int i = 0; i < CNT_LOSS_FIRST; i++)
		json_kv_u64(&j, counter_names[i], d->counters[i]);
	json_object_end(&j);
	if (rc->extra_json)
		rc->extra_json(&j, rc->extra_arg);
	json_object_end(&j);
	fflush(out);
}
