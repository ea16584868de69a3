// SPDX-License-Identifier: GPL-2.0
/*
 * Reading: counters, histograms and the per-file and per-filesystem maps
 * into snapshots; violations, bio statistics, the programs' own cost.
 * See engine.h (paths and writers: engine_paths.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "live/engine_priv.h"
#include "iomapdirty.skel.h"

int engine_read_init(struct engine *e)
{
	e->rd.percpu = calloc(e->ncpus, sizeof(uint64_t));
	return e->rd.percpu ? 0 : -ENOMEM;
}

void engine_read_free(struct engine *e)
{
	free(e->rd.percpu);
	free(e->rd.batch.keys);
	free(e->rd.batch.vals);
	e->rd = (struct engine_reader){};
}

static int read_percpu_sum(struct engine *e, int fd, uint32_t key, uint64_t *sum)
{
	if (bpf_map_lookup_elem(fd, &key, e->rd.percpu))
		return -errno;
	*sum = 0;
	for (int c = 0; c < e->ncpus; c++)
		*sum += e->rd.percpu[c];
	return 0;
}

/*
 * Reads a whole hash map of (key, wa_stats) into an array of entries, in
 * batches (a few syscalls for thousands of files, where one lookup per
 * entry cost top 15% of a CPU at 8000 files). Returns -EOPNOTSUPP if the
 * kernel has no batch operations for the map.
 */
static int read_stats_map_batch(int fd, struct batch_buf *b, uint32_t max_entries,
				size_t key_size, size_t entry_size, void **out, int *count)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t total = 0, chunk;
	__u64 cursor = 0;
	void *in = NULL;
	char *arr;

	if (b->cap < max_entries) {
		free(b->keys);
		free(b->vals);
		b->keys = calloc(max_entries, key_size);
		b->vals = calloc(max_entries, sizeof(*b->vals));
		b->cap = b->keys && b->vals ? max_entries : 0;
		if (!b->cap)
			return -ENOMEM;
	}
	for (;;) {
		int err;

		chunk = max_entries - total;
		if (!chunk)
			break;
		err = bpf_map_lookup_batch(fd, in, &cursor, (char *)b->keys + total * key_size,
					   b->vals + total, &chunk, &opts);
		if (err && errno != ENOENT)
			return errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP ?
				-EOPNOTSUPP : -errno;
		total += chunk;
		if (err)
			break;		/* ENOENT: the last batch */
		in = &cursor;
	}
	arr = calloc(total ? total : 1, entry_size);
	if (!arr)
		return -ENOMEM;
	for (uint32_t i = 0; i < total; i++) {
		char *slot = arr + (size_t)i * entry_size;

		memcpy(slot, (char *)b->keys + i * key_size, key_size);
		/* the value sits after the key, aligned to 8 */
		memcpy(slot + entry_size - sizeof(struct wa_stats), &b->vals[i],
		       sizeof(struct wa_stats));
	}
	*out = arr;
	*count = total;
	return 0;
}

/* The same, one get_next_key and one lookup per entry. */
static int read_stats_map_each(int fd, size_t key_size, size_t entry_size,
			       void **out, int *count)
{
	char key[sizeof(struct file_key)], next[sizeof(struct file_key)];
	void *prev = NULL, *arr = NULL;
	int n = 0, cap = 0;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		char *slot;

		if (n == cap) {
			void *bigger;

			cap = cap ? cap * 2 : 64;
			bigger = realloc(arr, (size_t)cap * entry_size);
			if (!bigger) {
				free(arr);
				return -ENOMEM;
			}
			arr = bigger;
		}
		slot = (char *)arr + (size_t)n * entry_size;
		memset(slot, 0, entry_size);
		memcpy(slot, next, key_size);
		/* the value sits after the key, aligned to 8 */
		if (bpf_map_lookup_elem(fd, next, slot + entry_size - sizeof(struct wa_stats)) == 0)
			n++;
		memcpy(key, next, key_size);
		prev = key;
	}
	*out = arr;
	*count = n;
	return 0;
}

static int read_stats_map(struct engine *e, struct bpf_map *map,
			  size_t key_size, size_t entry_size, void **out, int *count)
{
	int fd = bpf_map__fd(map);
	int ret = read_stats_map_batch(fd, &e->rd.batch, bpf_map__max_entries(map),
				       key_size, entry_size, out, count);

	if (ret != -EOPNOTSUPP)
		return ret;
	return read_stats_map_each(fd, key_size, entry_size, out, count);
}

/* A program's info from the kernel; false when it is not loaded. */
static bool prog_info(const struct bpf_program *prog, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_program__fd(prog);

	memset(info, 0, len);
	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, info, &len);
}

/* Runs of every loaded program that recursion protection skipped. */
static uint64_t recursion_misses(struct engine *e)
{
	struct bpf_program *prog;
	struct bpf_prog_info info;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, e->skel->obj)
		if (prog_info(prog, &info))
			n += info.recursion_misses;
	return n;
}

int engine_prog_stats(struct engine *e, struct engine_prog_stats *out, int max)
{
	struct bpf_program *prog;
	struct bpf_prog_info info;
	int n = 0;

	bpf_object__for_each_program(prog, e->skel->obj) {
		if (n >= max || !prog_info(prog, &info))
			continue;	/* not loaded: another kernel's variant */
		out[n++] = (struct engine_prog_stats){
			.name = bpf_program__name(prog),
			.run_time_ns = info.run_time_ns,
			.run_cnt = info.run_cnt,
			.recursion_misses = info.recursion_misses,
		};
	}
	return n;
}

/*
 * kprobe and kretprobe hits the kernel missed (kretprobe maxactive,
 * recursion), from bpf_link_info: kprobe_multi.missed and perf_event's
 * kprobe.missed (6.7+). Debian's UAPI header predates those fields: their
 * offsets were checked with offsetof() against vmlinux/vmlinux.h (6.18).
 * Older kernels return a shorter info, and count 0.
 */
#define LINK_TYPE_PERF_EVENT		7
#define LINK_TYPE_KPROBE_MULTI		8
#define PERF_EVENT_KPROBE		3
#define PERF_EVENT_KRETPROBE		4
#define LINK_KPROBE_MULTI_MISSED	32
#define LINK_PERF_EVENT_TYPE		16
#define LINK_PERF_KPROBE_MISSED		48

static uint64_t kprobe_misses(struct engine *e)
{
	uint64_t n = 0;

	for (int i = 0; i < e->nlinks; i++) {
		uint64_t info[32] = {}, missed;
		__u32 len = sizeof(info), type, pe_type;
		unsigned char *b = (unsigned char *)info;
		int fd = bpf_link__fd(e->links[i]);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, info, &len))
			continue;
		memcpy(&type, b, sizeof(type));
		memcpy(&pe_type, b + LINK_PERF_EVENT_TYPE, sizeof(pe_type));
		if (type == LINK_TYPE_KPROBE_MULTI && len >= LINK_KPROBE_MULTI_MISSED + 8)
			memcpy(&missed, b + LINK_KPROBE_MULTI_MISSED, 8);
		else if (type == LINK_TYPE_PERF_EVENT &&
			 (pe_type == PERF_EVENT_KPROBE || pe_type == PERF_EVENT_KRETPROBE) &&
			 len >= LINK_PERF_KPROBE_MISSED + 8)
			memcpy(&missed, b + LINK_PERF_KPROBE_MISSED, 8);
		else
			continue;
		n += missed;
	}
	return n;
}

/*
 * One filesystem's record, read until two readings in a row are equal with
 * no fold half done (fs_stats_settled(): then the second is the record as
 * it was at an instant between folds, its sums and histograms of the same
 * folios). A fold takes a microsecond: the retries end at once.
 */
#define FS_READ_TRIES	1000

static int read_fs_settled(int fd, uint32_t dev, struct fs_stats *out)
{
	struct fs_stats prev;

	if (bpf_map_lookup_elem(fd, &dev, &prev))
		return -errno;
	for (int i = 0; i < FS_READ_TRIES; i++) {
		if (bpf_map_lookup_elem(fd, &dev, out))
			return -errno;
		if (fs_stats_settled(&prev, out))
			return 0;
		prev = *out;
		if (i >= 10)
			sched_yield();
	}
	return -EAGAIN;
}

/*
 * The filesystems: their sums into s->fs, their histograms added into
 * s->hists (the interval's histograms are the filesystems' together).
 */
static int read_filesystems(struct engine *e, struct snapshot *s)
{
	int fd = bpf_map__fd(e->skel->maps.filesystems);
	uint32_t max = bpf_map__max_entries(e->skel->maps.filesystems);
	uint32_t dev, prev;
	bool first = true;
	struct fs_stats r;

	s->fs = calloc(max ? max : 1, sizeof(*s->fs));
	if (!s->fs)
		return -ENOMEM;
	while (s->nfs < (int)max && !bpf_map_get_next_key(fd, first ? NULL : &prev, &dev)) {
		int ret = read_fs_settled(fd, dev, &r);

		first = false;
		prev = dev;
		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		s->fs[s->nfs].dev = dev;
		s->fs[s->nfs].s = r.s;
		s->nfs++;
		for (int h = 0; h < NR_HISTS; h++)
			for (int b = 0; b < HIST_BUCKETS; b++)
				s->hists[h][b] += r.hist[h][b];
	}
	return 0;
}

/* Entries in a map, by walking its keys (no values copied). */
static uint64_t map_live_entries(int fd)
{
	struct file_key key, next;
	uint64_t n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		n++;
		key = next;
		prev = &key;
	}
	return n;
}

/*
 * Evictions from the LRU file maps (bpf/sums.bpf.h): entries made minus
 * entries live. Entries made while the map was read can make the
 * difference dip below the truth for one reading: it never goes back.
 */
static void count_evictions(struct engine *e, struct snapshot *s)
{
	uint64_t live_paths = map_live_entries(bpf_map__fd(e->skel->maps.paths));
	uint64_t made = s->counters[CNT_FILE_ENTRIES], made_paths = s->counters[CNT_PATH_ENTRIES];
	uint64_t made_cg = s->counters[CNT_CGROUP_ENTRIES], live_cg = 0;

	if (made_cg)
		live_cg = map_live_entries(bpf_map__fd(e->skel->maps.cgroup_sums));
	if (made_cg > live_cg && made_cg - live_cg > e->rd.cgroups_evicted)
		e->rd.cgroups_evicted = made_cg - live_cg;
	s->counters[CNT_CGROUPS_EVICTED] = e->rd.cgroups_evicted;

	if (made > (uint64_t)s->nfiles && made - s->nfiles > e->rd.files_evicted)
		e->rd.files_evicted = made - s->nfiles;
	if (made_paths > live_paths && made_paths - live_paths > e->rd.paths_evicted)
		e->rd.paths_evicted = made_paths - live_paths;
	s->counters[CNT_FILES_EVICTED] = e->rd.files_evicted;
	s->counters[CNT_PATHS_EVICTED] = e->rd.paths_evicted;
}

static int map_walk(struct bpf_map *map, void *out, size_t entry_size, size_t val_off,
		    int max);

int engine_snapshot(struct engine *e, struct snapshot *s)
{
	void *arr = NULL;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	s->seconds = (mono_ns() - e->start_ns) / 1e9;
	fd = bpf_map__fd(e->skel->maps.counters);
	for (uint32_t i = 0; i < CNT_RECURSION_MISSES; i++)
		if ((ret = read_percpu_sum(e, fd, i, &s->counters[i])))
			return ret;
	s->counters[CNT_RECURSION_MISSES] = recursion_misses(e);
	s->counters[CNT_KPROBE_MISSES] = kprobe_misses(e);
	ret = read_filesystems(e, s);
	if (ret) {
		snapshot_free(s);
		return ret;
	}
	ret = read_stats_map(e, e->skel->maps.files, sizeof(struct file_key),
			     sizeof(struct file_entry), &arr, &s->nfiles);
	if (ret) {
		snapshot_free(s);
		return ret;
	}
	s->files = arr;
	qsort(s->files, s->nfiles, sizeof(*s->files), file_entry_cmp);
	count_evictions(e, s);
	s->nunwatched = map_walk(e->skel->maps.unwatched_fs, s->unwatched,
				 sizeof(s->unwatched[0]),
				 offsetof(struct unwatched_entry, u), UNWATCHED_MAX);
	return 0;
}

static int violation_cmp(const void *a, const void *b)
{
	const struct violation_entry *x = a, *y = b;
	int c = file_entry_cmp(&(struct file_key){ x->key.ino, x->key.dev, 0 },
			       &(struct file_key){ y->key.ino, y->key.dev, 0 });

	if (c)
		return c;
	return x->v.first_offset < y->v.first_offset ? -1 :
	       x->v.first_offset > y->v.first_offset;
}

#define MAP_WALK_KEY_MAX	32
_Static_assert(sizeof(struct page_key) <= MAP_WALK_KEY_MAX &&
	       sizeof(struct phys_key) <= MAP_WALK_KEY_MAX, "map_walk() key buffer");

/*
 * Up to max entries of a small hash map, one get_next_key and lookup
 * each, into out[]: entries of entry_size bytes, the key first, the value
 * at val_off. out NULL: only counted (max < 0: all). Returns the number.
 */
static int map_walk(struct bpf_map *map, void *out, size_t entry_size, size_t val_off,
		    int max)
{
	int fd = bpf_map__fd(map), n = 0;
	size_t key_size = bpf_map__key_size(map);
	char key[MAP_WALK_KEY_MAX], prev[MAP_WALK_KEY_MAX];
	void *p = NULL;

	while ((max < 0 || n < max) && bpf_map_get_next_key(fd, p, key) == 0) {
		char *slot = out ? (char *)out + (size_t)n * entry_size : NULL;

		if (!slot) {
			n++;
		} else if (bpf_map_lookup_elem(fd, key, slot + val_off) == 0) {
			memcpy(slot, key, key_size);
			n++;
		}
		memcpy(prev, key, key_size);
		p = prev;
	}
	return n;
}

int engine_violations(struct engine *e, struct violation_entry *out, int max)
{
	int n = map_walk(e->skel->maps.violations, out, sizeof(*out),
			 offsetof(struct violation_entry, v), max);

	qsort(out, n, sizeof(*out), violation_cmp);
	return n;
}

int engine_bio_violations(struct engine *e, struct violation_entry *out, int max)
{
	int n = map_walk(e->skel->maps.bio_violations, out, sizeof(*out),
			 offsetof(struct violation_entry, v), max);

	qsort(out, n, sizeof(*out), violation_cmp);
	return n;
}

int engine_end_bio_window(struct engine *e)
{
	uint32_t key = 0, ended = 1;

	if (bpf_map_update_elem(bpf_map__fd(e->skel->maps.snap_window), &key, &ended, 0))
		return -errno;
	return 0;
}

int engine_bio_stats(struct engine *e, struct bio_entry *out, int max)
{
	return map_walk(e->skel->maps.bio_stats_map, out, sizeof(*out),
			offsetof(struct bio_entry, s), max);
}

uint64_t engine_pending_blocks(struct engine *e)
{
	return map_walk(e->skel->maps.pending_phys, NULL, 0, 0, -1);
}

int engine_pending_keys(struct engine *e, struct pending_entry *out, int max)
{
	return map_walk(e->skel->maps.pending_phys, out, sizeof(*out),
			offsetof(struct pending_entry, origin), max);
}

int engine_pending_still(struct engine *e, struct pending_entry *p, int n)
{
	int fd = bpf_map__fd(e->skel->maps.pending_phys), kept = 0;
	struct phys_origin o;

	for (int i = 0; i < n; i++)
		if (bpf_map_lookup_elem(fd, &p[i].key, &o) == 0)
			p[kept++] = p[i];
	return kept;
}

int engine_cgroup_sums(struct engine *e, struct cgroup_entry **out, int *n)
{
	void *arr = NULL;
	int ret;

	*out = NULL;
	*n = 0;
	if (!e->opts.cgroup_sums)
		return 0;
	ret = read_stats_map(e, e->skel->maps.cgroup_sums, sizeof(uint64_t),
			     sizeof(struct cgroup_entry), &arr, n);
	if (ret)
		return ret;
	*out = arr;
	return 0;
}

void engine_other_writes(struct engine *e, struct other_total *t)
{
	int fd = bpf_map__fd(e->skel->maps.other_writes);
	struct file_key key, prev, *p = NULL;
	struct other_write o;

	memset(t, 0, sizeof(*t));
	while (bpf_map_get_next_key(fd, p, &key) == 0) {
		if (bpf_map_lookup_elem(fd, &key, &o) == 0) {
			t->app_bytes += o.app_bytes;
			t->write_calls += o.write_calls;
			t->files++;
		}
		prev = key;
		p = &prev;
	}
}

int engine_unwritten(struct engine *e, struct unwritten_entry *out, int max)
{
	int fd = bpf_map__fd(e->skel->maps.unwritten);
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	uint32_t key;

	/* emptied first: the program adds to what it finds */
	while (bpf_map_get_next_key(fd, NULL, &key) == 0)
		if (bpf_map_delete_elem(fd, &key))
			return -errno;
	if (bpf_prog_test_run_opts(bpf_program__fd(e->skel->progs.count_unwritten), &opts))
		return -errno;
	return map_walk(e->skel->maps.unwritten, out, sizeof(*out),
			offsetof(struct unwritten_entry, u), max);
}
