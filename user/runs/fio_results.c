// SPDX-License-Identifier: GPL-2.0
/*
 * fio's own results: see fio_results.h.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runs/fio_results.h"
#include "lib/json_input.h"

/* One direction of one fio job, added into the sums. */
static void add_fio_job_dir(struct walk *w, json_object *o, const char *where,
			    struct fio_dir *d)
{
	struct run_num io, bw, iops, rt, ios, lat;
	json_object *lat_ns = walk_member(o, "lat_ns");

	if (!o)
		return;
	walk_u64(w, o, where, "io_bytes", &io);
	walk_u64(w, o, where, "bw_bytes", &bw);
	walk_double(w, o, where, "iops", &iops);
	walk_u64(w, o, where, "runtime", &rt);
	walk_u64(w, o, where, "total_ios", &ios);
	walk_double(w, lat_ns, where, "mean", &lat);
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
	size_t n;
	char *text;
	int ret;

	memset(fs, 0, sizeof(*fs));
	text = input_read_all(path, &n, &mtime, err, len);
	if (!text)
		return -errno;
	if (mtime < not_before) {
		snprintf(err, len, "%s: not written during this run (is it fio's "
			 "--output with --output-format=json?)", path);
		free(text);
		return -EINVAL;
	}
	ret = fio_summary_parse(text, n, path, fs, err, len);
	free(text);
	return ret;
}

int fio_summary_parse(const char *text, size_t n, const char *path,
		      struct fio_summary *fs, char *err, size_t len)
{
	struct walk w = { .file = path, .err = err, .len = len };
	json_object *root, *jobs;
	const char *start;
	size_t njobs;

	memset(fs, 0, sizeof(*fs));
	/* fio may print notes before the document: it starts at a line's '{' */
	for (start = text; *start && *start != '{';) {
		const char *nl = strchr(start, '\n');

		start = nl ? nl + 1 : start + strlen(start);
	}
	root = walk_parse(start, n - (start - text), &w);
	if (!root)
		return -EINVAL;
	jobs = walk_member(root, "jobs");
	if (!jobs || !json_object_is_type(jobs, json_type_array) ||
	    !(njobs = json_object_array_length(jobs))) {
		walk_fail(&w, "no \"jobs\": not fio's --output-format=json");
		goto out;
	}
	walk_copy_string(&w, root, "", "fio version", fs->version, sizeof(fs->version));
	for (size_t i = 0; i < njobs && !w.failed; i++) {
		json_object *job = json_object_array_get_idx(jobs, i);
		char where[48];

		snprintf(where, sizeof(where), "jobs[%zu].read", i);
		add_fio_job_dir(&w, walk_member(job, "read"), where, &fs->read);
		snprintf(where, sizeof(where), "jobs[%zu].write", i);
		add_fio_job_dir(&w, walk_member(job, "write"), where, &fs->write);
	}
	fs->jobs = (uint32_t)njobs;
	fs->present = !w.failed;
out:
	json_object_put(root);
	return w.failed ? -EINVAL : 0;
}
