// SPDX-License-Identifier: GPL-2.0
/*
 * Reading run files and fio results: see runfile.h. Parsing is json-c's
 * (strict RFC 8259, exact 64-bit integers, the error's position); this
 * file only walks the tree and says what is wrong where.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "buckets.h"
#include "report.h"
#include "runfile.h"

#define INPUT_MAX_BYTES	(256u << 20)

const char *const run_field_names[NR_RUN_FIELDS] = {
#define RUN_FIELD_NAME(name) [RF_##name] = #name,
	RUN_STATS_FIELDS(RUN_FIELD_NAME)
#undef RUN_FIELD_NAME
};

/* Fields without which a document is not a run's summary. */
static const enum run_field required_fields[] = {
	RF_app_bytes, RF_dirty_blocks, RF_folios, RF_submitted_blocks,
	RF_submitted_bytes,
};

/* The walk's state: the file, and the first error met. */
struct walk {
	const char *file;
	char *err;
	size_t len;
	bool failed;
};

static void walk_fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->failed)
		return;
	w->failed = true;
	n = snprintf(w->err, w->len, "%s: ", w->file);
	if (n < 0 || (size_t)n >= w->len)
		return;
	va_start(ap, fmt);
	vsnprintf(w->err + n, w->len - n, fmt, ap);
	va_end(ap);
}

int input_open(const char *path, char *err, size_t len)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "%s: %s", path, errno == ELOOP ?
			 "is a symbolic link (give the file itself)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > INPUT_MAX_BYTES) {
		snprintf(err, len, "%s: larger than %u MiB", path, INPUT_MAX_BYTES >> 20);
		close(fd);
		return -1;
	}
	return fd;
}

/* The whole file, NUL-terminated; *n its length, *mtime its time. */
static char *slurp(const char *path, size_t *n, time_t *mtime, char *err, size_t len)
{
	size_t cap = 65536, used = 0;
	char *buf = NULL;
	struct stat st;
	int fd = input_open(path, err, len);

	if (fd < 0)
		return NULL;
	if (mtime && !fstat(fd, &st))
		*mtime = st.st_mtim.tv_sec;
	for (;;) {
		ssize_t r;

		if (used + 1 >= cap || !buf) {
			char *nb;

			cap = buf ? cap * 2 : cap;
			nb = cap > INPUT_MAX_BYTES + 2 ? NULL : realloc(buf, cap);
			if (!nb) {
				snprintf(err, len, "%s: too large", path);
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + used, cap - used - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, len, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		used += r;
	}
	close(fd);
	buf[used] = '\0';
	*n = used;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

/* One JSON document from text, nothing but white space after it. */
static json_object *parse_document(const char *text, size_t n, struct walk *w)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;
	json_object *root;
	size_t end;

	if (!tok) {
		walk_fail(w, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)n);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!root || e != json_tokener_success) {
		if (e == json_tokener_continue)
			walk_fail(w, "not JSON: the document ends early");
		else
			walk_fail(w, "not JSON: %s at byte %zu",
				  json_tokener_error_desc(e), end);
		json_object_put(root);
		return NULL;
	}
	while (end < n && strchr(" \t\r\n", text[end]))
		end++;
	if (end < n) {
		walk_fail(w, "more than one JSON document (byte %zu): give one "
			  "run's file (`run --json FILE`)", end);
		json_object_put(root);
		return NULL;
	}
	return root;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

/* A member that must be an object (NULL if absent: checked by callers). */
static json_object *member_object(struct walk *w, json_object *o, const char *where,
				  const char *key, bool required)
{
	json_object *v = member(o, key);

	if (!v || json_object_is_type(v, json_type_null)) {
		if (required)
			walk_fail(w, "%s%s missing: not a run file", where, key);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_object)) {
		walk_fail(w, "%s%s: not an object", where, key);
		return NULL;
	}
	return v;
}

/* A counter: a non-negative integer, or null/absent (unknown). */
static void get_u64(struct walk *w, json_object *o, const char *where,
		    const char *key, struct run_num *out)
{
	json_object *v = member(o, key);

	memset(out, 0, sizeof(*out));
	if (!v || json_object_is_type(v, json_type_null))
		return;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
		walk_fail(w, "%s%s: not a non-negative integer", where, key);
		return;
	}
	errno = 0;
	out->u = json_object_get_uint64(v);
	if (errno) {
		walk_fail(w, "%s%s: out of range", where, key);
		return;
	}
	out->v = (double)out->u;
	out->known = true;
}

/* A number (ratio, seconds), or null/absent (unknown). */
static void get_double(struct walk *w, json_object *o, const char *where,
		       const char *key, struct run_num *out)
{
	json_object *v = member(o, key);

	memset(out, 0, sizeof(*out));
	if (!v || json_object_is_type(v, json_type_null))
		return;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		walk_fail(w, "%s%s: not a number", where, key);
		return;
	}
	out->v = json_object_get_double(v);
	out->known = true;
}

/* A string member, copied; NULL when null or absent. */
static char *get_string(struct walk *w, json_object *o, const char *where,
			const char *key)
{
	json_object *v = member(o, key);
	char *s;

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		walk_fail(w, "%s%s: not a string", where, key);
		return NULL;
	}
	s = strdup(json_object_get_string(v));
	if (!s)
		walk_fail(w, "out of memory");
	return s;
}

static void copy_string(struct walk *w, json_object *o, const char *where,
			const char *key, char *buf, size_t len)
{
	char *s = get_string(w, o, where, key);

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
}

static void read_stats(struct walk *w, json_object *o, const char *where,
		       struct run_stats *s, bool required)
{
	for (int i = 0; i < NR_RUN_FIELDS; i++)
		get_u64(w, o, where, run_field_names[i], &s->f[i]);
	get_double(w, o, where, "block_rounding", &s->block_rounding);
	get_double(w, o, where, "folio_amplification", &s->folio_amplification);
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
		__u64 lo, hi;
		int lox = 0, hix = 0;

		if (h == HIST_AMPLIFICATION)
			amp_bucket_bounds(k, &lo, &hi, &lox, &hix);
		else
			lo = log2_bucket_min(k);
		if (lo == min && (bool)lox == min_exclusive)
			return (int)k;
	}
	return -1;
}

static void read_hist(struct walk *w, json_object *hists, enum hist_id h,
		      struct run_file *rf)
{
	json_object *o = member_object(w, hists, "histograms.", hist_names[h], false);
	json_object *buckets = member(o, "buckets");
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
		json_object *mx = member(b, "min_exclusive");
		struct run_num min, count;
		int k;

		snprintf(where, sizeof(where), "histograms.%s.buckets[%zu].",
			 hist_names[h], i);
		get_u64(w, b, where, "min", &min);
		get_u64(w, b, where, "count", &count);
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
	json_object *plan = member_object(w, root, "", "plan", true);
	json_object *hooks = member(plan, "hooks");
	size_t n;

	if (!plan)
		return;
	copy_string(w, plan, "plan.", "family", rf->family, sizeof(rf->family));
	rf->family_desc = get_string(w, plan, "plan.", "family_description");
	rf->dirty_bitmap = get_string(w, plan, "plan.", "dirty_bitmap");
	rf->mode = get_string(w, plan, "plan.", "mode");
	if (!rf->accounting)
		rf->accounting = get_string(w, plan, "plan.", "accounting");
	if (!hooks || !json_object_is_type(hooks, json_type_array))
		return;
	n = json_object_array_length(hooks);
	for (size_t i = 0; i < n && rf->nhooks < RUN_MAX_HOOKS; i++) {
		json_object *h = json_object_array_get_idx(hooks, i);
		json_object *chosen = member(h, "chosen");
		struct run_hook *rh = &rf->hooks[rf->nhooks];

		if (!chosen || !json_object_get_boolean(chosen))
			continue;
		copy_string(w, h, "plan.hooks[].", "hook", rh->hook, sizeof(rh->hook));
		copy_string(w, h, "plan.hooks[].", "mechanism", rh->mechanism,
			    sizeof(rh->mechanism));
		copy_string(w, h, "plan.hooks[].", "program_type", rh->program_type,
			    sizeof(rh->program_type));
		rh->target = get_string(w, h, "plan.hooks[].", "target");
		rf->nhooks++;
	}
	probes_summary(rf);
}

static void read_files(struct walk *w, json_object *root, struct run_file *rf)
{
	json_object *files = member(root, "files");
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
		copy_string(w, f, where, "dev", fs->dev, sizeof(fs->dev));
		get_u64(w, f, where, "ino", &ino);
		fs->ino = ino.u;
		fs->path = get_string(w, f, where, "path");
		copy_string(w, f, where, "path_state", fs->path_state,
			    sizeof(fs->path_state));
		snprintf(where, sizeof(where), "files[%zu].stats.", i);
		read_stats(w, member_object(w, f, where, "stats", true), where,
			   &fs->s, false);
	}
}

static void read_counters(json_object *o, struct run_counter *out, int *n, int max)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, key, v) {
		if (*n >= max)
			break;
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			continue;
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
	get_u64(w, o, where, "io_bytes", &v);
	d->io_bytes = v.u;
	get_u64(w, o, where, "bw_bytes", &v);
	d->bw_bytes = v.u;
	get_double(w, o, where, "iops", &v);
	d->iops = v.v;
	get_u64(w, o, where, "runtime_ms", &v);
	d->runtime_ms = v.u;
	get_double(w, o, where, "lat_mean_ns", &v);
	d->lat_mean_ns = v.v;
	get_u64(w, o, where, "total_ios", &v);
	d->total_ios = v.u;
}

/* The run file's own "fio" object (written by run_meta.c). */
static void read_run_fio(struct walk *w, json_object *root, struct fio_summary *fs)
{
	json_object *o = member_object(w, root, "", "fio", false);
	struct run_num jobs;

	if (!o)
		return;
	fs->present = true;
	copy_string(w, o, "fio.", "version", fs->version, sizeof(fs->version));
	get_u64(w, o, "fio.", "jobs", &jobs);
	fs->jobs = (uint32_t)jobs.u;
	read_fio_dir(w, member_object(w, o, "fio.", "read", false), "fio.read.", &fs->read);
	read_fio_dir(w, member_object(w, o, "fio.", "write", false), "fio.write.", &fs->write);
}

static void read_run(struct walk *w, json_object *root, struct run_file *rf)
{
	json_object *host, *hists;
	char *schema;

	if (!json_object_is_type(root, json_type_object)) {
		walk_fail(w, "not a JSON object: not a run file");
		return;
	}
	schema = get_string(w, root, "", "schema");
	if (!schema || strcmp(schema, IOMAPDIRTY_SCHEMA)) {
		walk_fail(w, "unknown schema %s%s%s (this iomapdirty reads %s)",
			  schema ? "\"" : "", schema ? schema : "(none)",
			  schema ? "\"" : "", IOMAPDIRTY_SCHEMA);
		free(schema);
		return;
	}
	free(schema);
	copy_string(w, root, "", "type", rf->type, sizeof(rf->type));
	if (strcmp(rf->type, "run") && strcmp(rf->type, "summary")) {
		walk_fail(w, "a \"%s\" document, not a run (`run --json FILE`)",
			  rf->type);
		return;
	}
	get_double(w, root, "", "seconds", &rf->seconds);
	host = member_object(w, root, "", "host", false);
	rf->host = get_string(w, host, "host.", "name");
	rf->kernel = get_string(w, host, "host.", "kernel");
	rf->machine = get_string(w, host, "host.", "machine");
	rf->accounting = get_string(w, root, "", "accounting");
	read_plan(w, root, rf);
	get_u64(w, root, "", "max_page_records", &rf->max_page_records);
	read_stats(w, member_object(w, root, "", "totals", true), "totals.",
		   &rf->totals, true);
	read_files(w, root, rf);
	hists = member_object(w, root, "", "histograms", true);
	for (int h = 0; h < NR_HISTS && hists; h++)
		read_hist(w, hists, h, rf);
	read_counters(member(root, "losses"), rf->losses, &rf->nlosses, RUN_MAX_LOSSES);
	read_run_fio(w, root, &rf->fio);
}

int run_file_load(const char *path, struct run_file *rf, char *err, size_t len)
{
	struct walk w = { .file = path, .err = err, .len = len };
	json_object *root;
	size_t n;
	char *text;

	memset(rf, 0, sizeof(*rf));
	rf->path = strdup(path);
	text = slurp(path, &n, NULL, err, len);
	if (!text || !rf->path)
		goto fail;
	root = parse_document(text, n, &w);
	free(text);
	if (!root)
		goto fail;
	read_run(&w, root, rf);
	json_object_put(root);
	if (w.failed)
		goto fail;
	return 0;
fail:
	run_file_free(rf);
	return -1;
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

/* ------------------------------------------------------------- fio */

/* One direction of one fio job, added into the sums. */
static void add_fio_job_dir(struct walk *w, json_object *o, const char *where,
			    struct fio_dir *d)
{
	struct run_num io, bw, iops, rt, ios, lat;
	json_object *lat_ns = member(o, "lat_ns");

	if (!o)
		return;
	get_u64(w, o, where, "io_bytes", &io);
	get_u64(w, o, where, "bw_bytes", &bw);
	get_double(w, o, where, "iops", &iops);
	get_u64(w, o, where, "runtime", &rt);
	get_u64(w, o, where, "total_ios", &ios);
	get_double(w, lat_ns, where, "mean", &lat);
	if (w->failed)
		return;
	if (!io.known || !bw.known || !iops.known) {
		walk_fail(w, "%s: io_bytes, bw_bytes or iops missing: not fio's "
			  "--output-format=json", where);
		return;
	}
	if (lat.known && ios.u && d->total_ios + ios.u)
		d->lat_mean_ns = (d->lat_mean_ns * d->total_ios + lat.v * ios.u) /
				 (double)(d->total_ios + ios.u);
	d->io_bytes += io.u;
	d->bw_bytes += bw.u;
	d->iops += iops.v;
	d->total_ios += ios.u;
	if (rt.u > d->runtime_ms)
		d->runtime_ms = rt.u;
}

int fio_summary_load(const char *path, time_t not_before, struct fio_summary *fs,
		     char *err, size_t len)
{
	time_t mtime = 0;
	struct walk w = { .file = path, .err = err, .len = len };
	json_object *root, *jobs;
	const char *start;
	size_t n, njobs;
	char *text;

	memset(fs, 0, sizeof(*fs));
	text = slurp(path, &n, &mtime, err, len);
	if (!text)
		return -1;
	if (mtime < not_before) {
		snprintf(err, len, "%s: not written during this run (is it fio's "
			 "--output with --output-format=json?)", path);
		free(text);
		return -1;
	}
	/* fio may print notes before the document: it starts at a line's '{' */
	for (start = text; *start && *start != '{';) {
		const char *nl = strchr(start, '\n');

		start = nl ? nl + 1 : start + strlen(start);
	}
	root = parse_document(start, n - (start - text), &w);
	free(text);
	if (!root)
		return -1;
	jobs = member(root, "jobs");
	if (!jobs || !json_object_is_type(jobs, json_type_array) ||
	    !(njobs = json_object_array_length(jobs))) {
		walk_fail(&w, "no \"jobs\": not fio's --output-format=json");
		goto out;
	}
	copy_string(&w, root, "", "fio version", fs->version, sizeof(fs->version));
	for (size_t i = 0; i < njobs && !w.failed; i++) {
		json_object *job = json_object_array_get_idx(jobs, i);
		char where[48];

		snprintf(where, sizeof(where), "jobs[%zu].read", i);
		add_fio_job_dir(&w, member(job, "read"), where, &fs->read);
		snprintf(where, sizeof(where), "jobs[%zu].write", i);
		add_fio_job_dir(&w, member(job, "write"), where, &fs->write);
	}
	fs->jobs = (uint32_t)njobs;
	fs->present = !w.failed;
out:
	json_object_put(root);
	return w.failed ? -1 : 0;
}
