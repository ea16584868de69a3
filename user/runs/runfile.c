// SPDX-License-Identifier: GPL-2.0
/*
 * Reading run files: see runfile.h. The walking helpers (and their error
 * messages) are json_input.c's; this file knows the run file's schema.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_input.h"
#include "model/histograms.h"
#include "output/report.h"
#include "runs/runfile.h"

const char *const run_field_names[NR_RUN_FIELDS] = {
#define RUN_FIELD_NAME(name, unit, merge, json, level, help) [RF_##name] = #name,
	WA_STATS_FIELDS(RUN_FIELD_NAME)
#undef RUN_FIELD_NAME
};

/* Whether the run file has the field (the writer skips json NEVER). */
static const bool run_field_written[NR_RUN_FIELDS] = {
#define RUN_FIELD_WRITTEN(name, unit, merge, json, level, help) [RF_##name] = WA_##json != WA_NEVER,
	WA_STATS_FIELDS(RUN_FIELD_WRITTEN)
#undef RUN_FIELD_WRITTEN
};

/* Fields without which a document is not a run's summary. */
static const enum run_field required_fields[] = {
	RF_app_bytes, RF_dirty_blocks, RF_folios, RF_submitted_blocks,
	RF_submitted_bytes,
};

static void read_stats(struct walk *w, json_object *o, const char *where,
		       struct run_stats *s, bool required)
{
	for (int i = 0; i < NR_RUN_FIELDS; i++)
		if (run_field_written[i])
			walk_u64(w, o, where, run_field_names[i], &s->f[i]);
	walk_double(w, o, where, "block_rounding", &s->block_rounding);
	walk_double(w, o, where, "folio_amplification", &s->folio_amplification);
	if (!required)
		return;
	for (size_t i = 0; i < sizeof(required_fields) / sizeof(required_fields[0]); i++)
		if (!s->f[required_fields[i]].known)
			walk_fail(w, "%s%s missing: not a run file", where,
				  run_field_names[required_fields[i]]);
}

/* The bucket of hist h whose lower bound is (min, exclusive), or -1. */
static int bucket_index(enum hist_id h, uint64_t min, bool min_exclusive)
{
	for (unsigned int k = 0; k < HIST_BUCKETS; k++) {
		struct bucket_bounds b;

		hist_bucket_bounds(h, k, &b);
		if (b.min == min && b.min_exclusive == min_exclusive)
			return (int)k;
	}
	return -1;
}

static void read_hist(struct walk *w, json_object *hists, enum hist_id h,
		      struct run_file *rf)
{
	json_object *o = walk_object(w, hists, "histograms.", hist_names[h], false);
	json_object *buckets = walk_member(o, "buckets");
	char where[96];
	size_t n;

	if (!o)
		return;
	if (!buckets || !json_object_is_type(buckets, json_type_array)) {
		walk_fail(w, "histograms.%s.buckets: not an array", hist_names[h]);
		return;
	}
	n = json_object_array_length(buckets);
	for (size_t i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(buckets, i);
		json_object *mx = walk_member(b, "min_exclusive");
		struct run_num min, count;
		int k;

		snprintf(where, sizeof(where), "histograms.%s.buckets[%zu].",
			 hist_names[h], i);
		walk_u64(w, b, where, "min", &min);
		walk_u64(w, b, where, "count", &count);
		if (w->failed)
			return;
		k = min.known ? bucket_index(h, min.u, mx && json_object_get_boolean(mx)) : -1;
		if (k < 0 || !count.known) {
			walk_fail(w, "%s: not a bucket of schema %s", where,
				  IOMAPDIRTY_SCHEMA);
			return;
		}
		rf->hists[h][k] = count.u;
	}
	rf->hist_known[h] = true;
}

static const char *hook_kind(const struct run_hook *h)
{
	return h->program_type[0] ? h->program_type : h->mechanism;
}

/* The kinds of probe attached, each once, in the plan's order. */
static void probes_summary(struct run_file *rf)
{
	size_t n = 0;

	for (int i = 0; i < rf->nhooks; i++) {
		const char *kind = hook_kind(&rf->hooks[i]);
		bool seen = false;

		for (int k = 0; k < i; k++)
			seen |= !strcmp(kind, hook_kind(&rf->hooks[k]));
		if (seen || !*kind || !strcmp(kind, "derived") || n >= sizeof(rf->probes))
			continue;
		n += snprintf(rf->probes + n, sizeof(rf->probes) - n, "%s%s",
			      n ? "+" : "", kind);
	}
}

static void read_plan(struct walk *w, json_object *root, struct run_file *rf)
{
	json_object *plan = walk_object(w, root, "", "plan", true);
	json_object *hooks = walk_member(plan, "hooks");
	size_t n;

	if (!plan)
		return;
	walk_copy_string(w, plan, "plan.", "family", rf->family, sizeof(rf->family));
	rf->family_desc = walk_string(w, plan, "plan.", "family_description");
	rf->dirty_bitmap = walk_string(w, plan, "plan.", "dirty_bitmap");
	rf->mode = walk_string(w, plan, "plan.", "mode");
	if (!rf->accounting)
		rf->accounting = walk_string(w, plan, "plan.", "accounting");
	if (!hooks || !json_object_is_type(hooks, json_type_array))
		return;
	n = json_object_array_length(hooks);
	for (size_t i = 0; i < n && rf->nhooks < RUN_MAX_HOOKS; i++) {
		json_object *h = json_object_array_get_idx(hooks, i);
		json_object *chosen = walk_member(h, "chosen");
		struct run_hook *rh = &rf->hooks[rf->nhooks];

		if (!chosen || !json_object_get_boolean(chosen))
			continue;
		walk_copy_string(w, h, "plan.hooks[].", "hook", rh->hook, sizeof(rh->hook));
		walk_copy_string(w, h, "plan.hooks[].", "mechanism",
				 rh->mechanism, sizeof(rh->mechanism));
		walk_copy_string(w, h, "plan.hooks[].", "program_type",
				 rh->program_type, sizeof(rh->program_type));
		rh->target = walk_string(w, h, "plan.hooks[].", "target");
		rf->nhooks++;
	}
	probes_summary(rf);
}

static void read_files(struct walk *w, json_object *root, struct run_file *rf)
{
	json_object *files = walk_member(root, "files");
	char where[64];
	size_t n;

	if (!files || !json_object_is_type(files, json_type_array))
		return;
	n = json_object_array_length(files);
	rf->files = calloc(n ? n : 1, sizeof(*rf->files));
	if (!rf->files) {
		walk_fail(w, "out of memory");
		return;
	}
	for (size_t i = 0; i < n && !w->failed; i++) {
		json_object *f = json_object_array_get_idx(files, i);
		struct run_filestat *fs = &rf->files[rf->nfiles++];
		struct run_num ino;

		snprintf(where, sizeof(where), "files[%zu].", i);
		walk_copy_string(w, f, where, "dev", fs->dev, sizeof(fs->dev));
		walk_u64(w, f, where, "ino", &ino);
		fs->ino = ino.u;
		fs->path = walk_string(w, f, where, "path");
		walk_copy_string(w, f, where, "path_state", fs->path_state,
				 sizeof(fs->path_state));
		snprintf(where, sizeof(where), "files[%zu].stats.", i);
		read_stats(w, walk_object(w, f, where, "stats", true), where,
			   &fs->s, false);
	}
}

/*
 * The losses: every entry a non-negative integer. One that is not makes
 * the file unreadable: skipping it would let the report say that every
 * event was counted.
 */
static void read_counters(struct walk *w, json_object *o, struct run_counter *out,
			  int *n, int max)
{
	if (!o || json_object_is_type(o, json_type_null))
		return;
	if (!json_object_is_type(o, json_type_object)) {
		walk_fail(w, "losses: not an object");
		return;
	}
	json_object_object_foreach(o, key, v) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
			walk_fail(w, "losses.%.64s: not a non-negative integer", key);
			return;
		}
		if (*n >= max) {
			walk_fail(w, "losses: more than %d entries", max);
			return;
		}
		snprintf(out[*n].name, sizeof(out[*n].name), "%s", key);
		out[*n].value = json_object_get_uint64(v);
		(*n)++;
	}
}

static void read_fio_dir(struct walk *w, json_object *o, const char *where,
			 struct fio_dir *d)
{
	struct run_num v;

	if (!o)
		return;
	walk_u64(w, o, where, "io_bytes", &v);
	d->io_bytes = v.u;
	walk_u64(w, o, where, "bw_bytes", &v);
	d->bw_bytes = v.u;
	walk_double(w, o, where, "iops", &v);
	d->iops = v.v;
	walk_u64(w, o, where, "runtime_ms", &v);
	d->runtime_ms = v.u;
	walk_double(w, o, where, "lat_mean_ns", &v);
	d->lat_mean_ns = v.v;
	walk_u64(w, o, where, "total_ios", &v);
	d->total_ios = v.u;
}

/* The run file's own "fio" object (written by run_meta.c). */
static void read_run_fio(struct walk *w, json_object *root, struct fio_summary *fs)
{
	json_object *o = walk_object(w, root, "", "fio", false);
	struct run_num jobs;

	if (!o)
		return;
	fs->present = true;
	walk_copy_string(w, o, "fio.", "version", fs->version, sizeof(fs->version));
	walk_u64(w, o, "fio.", "jobs", &jobs);
	fs->jobs = (uint32_t)jobs.u;
	read_fio_dir(w, walk_object(w, o, "fio.", "read", false), "fio.read.", &fs->read);
	read_fio_dir(w, walk_object(w, o, "fio.", "write", false), "fio.write.", &fs->write);
}

static void read_run(struct walk *w, json_object *root, struct run_file *rf)
{
	json_object *host, *hists;
	char *schema;

	if (!json_object_is_type(root, json_type_object)) {
		walk_fail(w, "not a JSON object: not a run file");
		return;
	}
	schema = walk_string(w, root, "", "schema");
	if (!schema || strcmp(schema, IOMAPDIRTY_SCHEMA)) {
		walk_fail(w, "unknown schema %s%s%s (this iomapdirty reads %s)",
			  schema ? "\"" : "", schema ? schema : "(none)",
			  schema ? "\"" : "", IOMAPDIRTY_SCHEMA);
		free(schema);
		return;
	}
	free(schema);
	walk_copy_string(w, root, "", "type", rf->type, sizeof(rf->type));
	if (strcmp(rf->type, "run") && strcmp(rf->type, "summary")) {
		walk_fail(w, "a \"%s\" document, not a run (`run --json FILE`)",
			  rf->type);
		return;
	}
	walk_double(w, root, "", "seconds", &rf->seconds);
	host = walk_object(w, root, "", "host", false);
	rf->host = walk_string(w, host, "host.", "name");
	rf->kernel = walk_string(w, host, "host.", "kernel");
	rf->machine = walk_string(w, host, "host.", "machine");
	rf->accounting = walk_string(w, root, "", "accounting");
	read_plan(w, root, rf);
	walk_u64(w, root, "", "max_page_records", &rf->max_page_records);
	read_stats(w, walk_object(w, root, "", "totals", true), "totals.",
		   &rf->totals, true);
	read_files(w, root, rf);
	hists = walk_object(w, root, "", "histograms", true);
	for (int h = 0; h < NR_HISTS && hists; h++)
		read_hist(w, hists, h, rf);
	read_counters(w, walk_member(root, "losses"), rf->losses, &rf->nlosses, RUN_MAX_LOSSES);
	read_run_fio(w, root, &rf->fio);
}

int run_file_load(const char *path, struct run_file *rf, char *err, size_t len)
{
	size_t n;
	char *text = input_read_all(path, &n, NULL, err, len);
	int ret;

	if (!text) {
		memset(rf, 0, sizeof(*rf));
		return -errno;
	}
	ret = run_file_parse(text, n, path, rf, err, len);
	free(text);
	return ret;
}

int run_file_parse(const char *text, size_t n, const char *path, struct run_file *rf,
		   char *err, size_t len)
{
	struct walk w = { .file = path, .err = err, .len = len };
	json_object *root;
	int ret = -EINVAL;

	memset(rf, 0, sizeof(*rf));
	rf->path = strdup(path);
	if (!rf->path) {
		snprintf(err, len, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	root = walk_parse(text, n, &w);
	if (!root)
		goto fail;
	read_run(&w, root, rf);
	json_object_put(root);
	if (w.failed)
		goto fail;
	return 0;
fail:
	run_file_free(rf);
	return ret;
}

void run_file_free(struct run_file *rf)
{
	for (int i = 0; i < rf->nfiles; i++)
		free(rf->files[i].path);
	for (int i = 0; i < rf->nhooks; i++)
		free(rf->hooks[i].target);
	free(rf->files);
	free(rf->path);
	free(rf->host);
	free(rf->kernel);
	free(rf->machine);
	free(rf->accounting);
	free(rf->family_desc);
	free(rf->dirty_bitmap);
	free(rf->mode);
	memset(rf, 0, sizeof(*rf));
}

uint64_t run_file_losses(const struct run_file *rf)
{
	uint64_t sum = 0;

	for (int i = 0; i < rf->nlosses; i++)
		sum += rf->losses[i].value;
	return sum;
}
