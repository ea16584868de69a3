// SPDX-License-Identifier: GPL-2.0
/* Host and fio figures in run files: see run_meta.h. */
#include <inttypes.h>
#include <string.h>
#include "output/json.h"
#include "runs/run_meta.h"

void run_meta_gather(struct run_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->uts_known = uname(&m->uts) == 0;
}

static void fio_dir_json(struct json *j, const char *key, const struct fio_dir *d)
{
	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "io_bytes", d->io_bytes);
	json_kv_u64(j, "bw_bytes", d->bw_bytes);
	json_key(j, "iops");
	json_double(j, d->iops);
	json_kv_u64(j, "runtime_ms", d->runtime_ms);
	json_kv_u64(j, "total_ios", d->total_ios);
	json_key(j, "lat_mean_ns");
	json_double(j, d->lat_mean_ns);
	json_object_end(j);
}

void run_meta_write_json(struct json *j, const void *arg)
{
	const struct run_meta *m = arg;

	if (m->uts_known) {
		json_key(j, "host");
		json_object_begin(j);
		json_kv_string(j, "name", m->uts.nodename);
		json_kv_string(j, "kernel", m->uts.release);
		json_kv_string(j, "machine", m->uts.machine);
		json_object_end(j);
	}
	json_key(j, "scope");
	json_object_begin(j);
	json_kv_string(j, "counts", m->scoped ? "cgroup" : "all");
	if (m->scoped) {
		json_kv_string(j, "cgroup", m->cgroup);
		json_kv_u64(j, "cgroup_id", m->cgroup_id);
		json_key(j, "other_processes");
		json_object_begin(j);
		json_kv_u64(j, "app_bytes", m->other_app_bytes);
		json_kv_u64(j, "write_calls", m->other_write_calls);
		json_kv_u64(j, "files", m->other_files);
		json_object_end(j);
	}
	json_object_end(j);
	if (!m->fio.present)
		return;
	json_key(j, "fio");
	json_object_begin(j);
	json_kv_string(j, "version", m->fio.version[0] ? m->fio.version : NULL);
	json_kv_u64(j, "jobs", m->fio.jobs);
	fio_dir_json(j, "read", &m->fio.read);
	fio_dir_json(j, "write", &m->fio.write);
	json_object_end(j);
}

void run_scope_print(FILE *out, const struct run_meta *m)
{
	if (!m->scoped) {
		fprintf(out, "counted: every process's writes (--all)\n");
		return;
	}
	fprintf(out, "counted: the writes of CMD's cgroup (and what it started)\n"
		"other processes: %" PRIu64 " B in %" PRIu64 " write calls into %" PRIu64
		" files (not counted)\n", m->other_app_bytes, m->other_write_calls,
		m->other_files);
}

static void fio_dir_print(FILE *out, const char *name, const struct fio_dir *d)
{
	fprintf(out, " %s %.1f MB/s, %.0f IOPS, %" PRIu64 " B in %" PRIu64 " ms;",
		name, d->bw_bytes / 1e6, d->iops, d->io_bytes, d->runtime_ms);
}

void fio_summary_print(FILE *out, const struct fio_summary *fs)
{
	if (!fs->present)
		return;
	fprintf(out, "fio (%u job%s):", fs->jobs, fs->jobs == 1 ? "" : "s");
	if (fs->write.io_bytes || !fs->read.io_bytes)
		fio_dir_print(out, "write", &fs->write);
	if (fs->read.io_bytes)
		fio_dir_print(out, "read", &fs->read);
	fputc('\n', out);
}
