// SPDX-License-Identifier: GPL-2.0
/* Load, attach, read: see engine.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "engine.h"
#include "pathcheck.h"
#include "safetext.h"
#include "fsinfo.h"
#include "iomapdirty.skel.h"

#define DEFAULT_MAX_PAGES	131072

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void set_rodata(struct iomapdirty_bpf *skel, const struct plan *p,
		       const struct engine_opts *o)
{
	struct iomapdirty_bpf__rodata *ro = skel->rodata;
	long page = sysconf(_SC_PAGESIZE);

	ro->target_dev = o->dev;
	ro->target_tgid = o->tgid;
	if (o->comm) {
		ro->filter_comm = true;
		strncpy((char *)ro->target_comm, o->comm, sizeof(ro->target_comm) - 1);
	}
	ro->page_shift = __builtin_ctzl(page);
	ro->bitmap_kind = p->bitmap;
	ro->write_end_proto = p->write_end_proto;
	ro->write_end_ret_bool = p->write_end_ret_bool;
	ro->submit_proto = p->submit_proto;
	ro->wb_folio_arg = p->wb_folio_arg;
	ro->track_physical = o->verify;
	ro->simulate_clean_every = o->simulate_clean_every;
}

/*
 * Page records (see page_sets in bpf/page_table.bpf.h): max_pages / 4 sets of
 * seven ways, 1.75 ways per requested record, so that sets rarely fill up
 * before max_pages records are live; the overflow for full sets holds an
 * eighth as many.
 */
static void size_page_records(struct iomapdirty_bpf *skel, uint32_t max_pages)
{
	uint32_t sets = (max_pages + 3) / 4;

	skel->rodata->page_set_count = sets;
	bpf_map__set_max_entries(skel->maps.page_sets, sets);
	bpf_map__set_max_entries(skel->maps.page_overflow, max_pages / 8);
}

/* The plan's program for a hook, if it attaches one (verify-only: bios). */
static const struct prog_def *hook_prog(const struct plan *p, enum hook i, bool verify)
{
	const struct hook_plan *h = &p->hooks[i];

	if (!h->chosen || !h->prog || h->prog->kind == PROG_USER ||
	    (i == HOOK_BIO && !verify))
		return NULL;
	return h->prog;
}

/*
 * Loads only the programs the plan chose, and flush_idle (run by user
 * space in every plan: engine_flush); binds the fentry, fexit and tp_btf
 * ones to their targets, which they need at load.
 */
static int select_programs(struct iomapdirty_bpf *skel, const struct plan *p,
			   bool verify, char *err, size_t errlen)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.flush_idle);
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct prog_def *d = hook_prog(p, i, verify);

		if (!d)
			continue;
		prog = bpf_object__find_program_by_name(skel->obj, d->name);
		if (!prog) {
			snprintf(err, errlen, "program %s missing from the BPF object", d->name);
			return -ENOENT;
		}
		bpf_program__set_autoload(prog, true);
		if ((d->kind == PROG_FENTRY || d->kind == PROG_FEXIT ||
		     d->kind == PROG_TP_BTF) &&
		    bpf_program__set_attach_target(prog, 0, p->hooks[i].target)) {
			snprintf(err, errlen, "cannot target %s with %s",
				 p->hooks[i].target, d->name);
			return -EINVAL;
		}
	}
	return 0;
}

static int attach_hook(struct engine *e, enum hook i, char *err, size_t errlen)
{
	const struct prog_def *d = hook_prog(e->plan, i, e->opts.verify);
	const struct hook_plan *h = &e->plan->hooks[i];
	struct bpf_program *prog;
	struct bpf_link *link;

	if (!d)
		return 0;	/* not chosen, derived, or run by user space */
	prog = bpf_object__find_program_by_name(e->skel->obj, d->name);
	switch (d->kind) {
	case PROG_FENTRY:
	case PROG_FEXIT:
	case PROG_TP_BTF:
		link = bpf_program__attach_trace(prog);
		break;
	case PROG_KPROBE:
	case PROG_KRETPROBE:
		link = bpf_program__attach_kprobe(prog, prog_is_return(d->kind), h->target);
		break;
	default:
		link = bpf_program__attach_raw_tracepoint(prog, h->target);
		break;
	}
	if (!link) {
		int ret = -errno;

		snprintf(err, errlen, "attaching %s to %s %s failed: %s", d->name,
			 plan_mech_detail(h), h->target, strerror(-ret));
		return ret;
	}
	e->links[e->nlinks++] = link;
	return 0;
}

static uint64_t read_u64_file(const char *path, bool *ok)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	*ok = f && fscanf(f, "%llu", &v) == 1;
	if (f)
		fclose(f);
	return *ok ? v : 0;
}

/*
 * Room left under our memory cgroup's limits (v2 memory.max or v1
 * memory.limit_in_bytes, each ancestor's), where BPF maps are charged;
 * UINT64_MAX when nothing limits it.
 */
static uint64_t cgroup_room(void)
{
	char line[4096], dir[4096 + 64], path[4096 + 128];
	uint64_t room = UINT64_MAX;
	FILE *f = fopen("/proc/self/cgroup", "r");

	while (f && fgets(line, sizeof(line), f)) {
		const char *lim, *use;
		char *rel = strrchr(line, ':');

		if (!rel)
			continue;
		rel[strcspn(rel, "\n")] = '\0';
		if (!strncmp(line, "0::", 3)) {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s", rel + 1);
			lim = "memory.max";
			use = "memory.current";
		} else if (strstr(line, ":memory:")) {
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup/memory%s", rel + 1);
			lim = "memory.limit_in_bytes";
			use = "memory.usage_in_bytes";
		} else {
			continue;
		}
		/* this cgroup and every ancestor up to the root */
		for (;;) {
			bool ok_l, ok_u;
			uint64_t l, u;
			char *slash;

			snprintf(path, sizeof(path), "%s/%s", dir, lim);
			l = read_u64_file(path, &ok_l);
			snprintf(path, sizeof(path), "%s/%s", dir, use);
			u = read_u64_file(path, &ok_u);
			if (ok_l && ok_u)
				room = l > u ? (l - u < room ? l - u : room) : 0;
			slash = strrchr(dir, '/');
			if (!slash || !strcmp(dir, "/sys/fs/cgroup") ||
			    !strcmp(dir, "/sys/fs/cgroup/memory"))
				break;
			*slash = '\0';
		}
	}
	if (f)
		fclose(f);
	return room;
}

/* MemAvailable, or UINT64_MAX when /proc/meminfo does not say. */
static uint64_t mem_available(void)
{
	char line[256];
	unsigned long long kb;
	uint64_t v = UINT64_MAX;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			v = kb * 1024;
	if (f)
		fclose(f);
	return v;
}

/* Kernel memory the maps as sized take: preallocated, whatever is used. */
static uint64_t maps_bytes(struct iomapdirty_bpf *skel, int ncpus)
{
	struct bpf_map *m;
	uint64_t total = 0;

	bpf_object__for_each_map(m, skel->obj) {
		enum bpf_map_type t = bpf_map__type(m);
		uint64_t each = bpf_map__key_size(m) + bpf_map__value_size(m) + 16;

		if (t == BPF_MAP_TYPE_PERCPU_ARRAY || t == BPF_MAP_TYPE_PERCPU_HASH ||
		    t == BPF_MAP_TYPE_LRU_PERCPU_HASH)
			each += (uint64_t)bpf_map__value_size(m) * (ncpus - 1);
		total += each * bpf_map__max_entries(m);
	}
	return total;
}

/*
 * --max-pages can ask for gigabytes of kernel memory, taken at load
 * whether used or not: refused when the maps would take more than half
 * of what the host (MemAvailable) or our memory cgroup has left.
 */
static int check_memory(struct engine *e, uint32_t max_pages, char *err, size_t errlen)
{
	uint64_t need = maps_bytes(e->skel, e->ncpus);
	uint64_t avail = mem_available(), room = cgroup_room();
	uint64_t have = avail < room ? avail : room;

	if (have == UINT64_MAX || need <= have / 2)
		return 0;
	snprintf(err, errlen, "--max-pages %u needs about %llu MiB of kernel memory "
		 "for its maps; only %llu MiB are available (%s): at most half of it "
		 "is used. Ask for fewer page records",
		 max_pages, (unsigned long long)(need >> 20),
		 (unsigned long long)(have >> 20),
		 room < avail ? "memory cgroup limit" : "MemAvailable");
	return -E2BIG;
}

int engine_open(struct engine *e, const struct plan *p,
		const struct engine_opts *o, char *err, size_t errlen)
{
	/*
	 * CO-RE relocations against vmlinux's BTF only. The flavors a kernel
	 * lacks (iomap_page___rfc on mainline, folio___v61 after 6.1) would
	 * otherwise send libbpf through every module's BTF, and listing BTF
	 * objects (BPF_BTF_GET_NEXT_ID) takes CAP_SYS_ADMIN: with this, CAP_BPF
	 * and CAP_PERFMON are enough (the exporter's unit). No relocated type
	 * lives in a module: iomap and the page cache are core kernel.
	 */
	LIBBPF_OPTS(bpf_object_open_opts, core_opts,
		.btf_custom_path = "/sys/kernel/btf/vmlinux");
	uint32_t max_pages = o->max_pages ? o->max_pages : DEFAULT_MAX_PAGES;
	int ret;

	memset(e, 0, sizeof(*e));
	e->plan = p;
	e->opts = *o;
	e->ncpus = libbpf_num_possible_cpus();
	if (e->ncpus <= 0) {
		snprintf(err, errlen, "cannot count CPUs");
		return -EINVAL;
	}
	e->percpu = calloc(e->ncpus, sizeof(uint64_t));
	e->skel = iomapdirty_bpf__open_opts(&core_opts);
	if (!e->percpu || !e->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		ret = -errno;
		goto fail;
	}
	set_rodata(e->skel, p, o);
	size_page_records(e->skel, max_pages);
	bpf_map__set_max_entries(e->skel->maps.pending_phys,
				 o->verify ? max_pages : 1);
	/*
	 * Before select_programs(): retargeting a program makes libbpf 1.1
	 * load vmlinux's BTF into the object, which only a load frees (a
	 * refusal here leaked 5 MiB, seen by LeakSanitizer in asan-cli).
	 */
	ret = check_memory(e, max_pages, err, errlen);
	if (ret)
		goto fail;
	ret = select_programs(e->skel, p, o->verify, err, errlen);
	if (ret)
		goto fail;
	ret = iomapdirty_bpf__load(e->skel);
	if (ret) {
		snprintf(err, errlen, "loading the BPF programs failed: %s "
			 "(run with IOMAPDIRTY_DEBUG=1 for the verifier log)",
			 strerror(-ret));
		goto fail;
	}
	for (int i = 0; i < NR_HOOKS; i++) {
		ret = attach_hook(e, i, err, errlen);
		if (ret)
			goto fail;
	}
	e->start_ns = now_ns();
	return 0;
fail:
	engine_close(e);
	return ret ? ret : -EINVAL;
}

void engine_close(struct engine *e)
{
	for (int i = 0; i < e->nlinks; i++)
		bpf_link__destroy(e->links[i]);
	e->nlinks = 0;
	iomapdirty_bpf__destroy(e->skel);
	e->skel = NULL;
	free(e->percpu);
	e->percpu = NULL;
	for (int i = 0; i < 2; i++) {
		free(e->batch[i].keys);
		free(e->batch[i].vals);
		e->batch[i] = (struct batch_buf){};
	}
}

int engine_summary(struct engine *e, struct snapshot *d)
{
	struct snapshot cur = {}, zero = {};
	int ret;

	engine_flush(e, 0);
	ret = engine_snapshot(e, &cur);
	if (!ret)
		ret = snapshot_delta(&cur, &zero, d);
	snapshot_free(&cur);
	return ret;
}

uint32_t engine_max_pages(const struct engine *e)
{
	return e->opts.max_pages ? e->opts.max_pages : DEFAULT_MAX_PAGES;
}

/*
 * Folds the per-thread sums of threads idle for idle_ns into the totals
 * the reports read. Where no event marks the end of a folio's writeback
 * (tracepoint plans) it also finishes those threads' last folios; with an
 * end event, only the last flush (idle_ns 0) finishes folios in flight.
 */
int engine_flush(struct engine *e, uint64_t idle_ns)
{
	const struct hook_plan *h = &e->plan->hooks[HOOK_WB_END];
	uint64_t args[2] = { idle_ns, (h->chosen && h->mech == MECH_DERIVED) || idle_ns == 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = args,
		.ctx_size_in = sizeof(args));

	if (bpf_prog_test_run_opts(bpf_program__fd(e->skel->progs.flush_idle), &opts))
		return -errno;
	return 0;
}

static int read_percpu_sum(struct engine *e, int fd, uint32_t key, uint64_t *sum)
{
	if (bpf_map_lookup_elem(fd, &key, e->percpu))
		return -errno;
	*sum = 0;
	for (int c = 0; c < e->ncpus; c++)
		*sum += e->percpu[c];
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

static int read_stats_map(struct engine *e, int which, struct bpf_map *map,
			  size_t key_size, size_t entry_size, void **out, int *count)
{
	int fd = bpf_map__fd(map);
	int ret = read_stats_map_batch(fd, &e->batch[which], bpf_map__max_entries(map),
				       key_size, entry_size, out, count);

	if (ret != -EOPNOTSUPP)
		return ret;
	return read_stats_map_each(fd, key_size, entry_size, out, count);
}

/* Runs of every loaded program that recursion protection skipped. */
static uint64_t recursion_misses(struct engine *e)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	bpf_object__for_each_program(prog, e->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
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

int engine_snapshot(struct engine *e, struct snapshot *s)
{
	int fd, ret;
	void *arr;

	memset(s, 0, sizeof(*s));
	s->seconds = (now_ns() - e->start_ns) / 1e9;
	fd = bpf_map__fd(e->skel->maps.counters);
	for (uint32_t i = 0; i < CNT_RECURSION_MISSES; i++)
		if ((ret = read_percpu_sum(e, fd, i, &s->counters[i])))
			return ret;
	s->counters[CNT_RECURSION_MISSES] = recursion_misses(e);
	s->counters[CNT_KPROBE_MISSES] = kprobe_misses(e);
	fd = bpf_map__fd(e->skel->maps.hists);
	for (uint32_t h = 0; h < NR_HISTS; h++)
		for (uint32_t b = 0; b < HIST_BUCKETS; b++)
			if ((ret = read_percpu_sum(e, fd, h * HIST_BUCKETS + b,
						   &s->hists[h][b])))
				return ret;
	ret = read_stats_map(e, 0, e->skel->maps.filesystems, sizeof(uint32_t),
			     sizeof(struct fs_entry), &arr, &s->nfs);
	if (ret)
		return ret;
	s->fs = arr;
	ret = read_stats_map(e, 1, e->skel->maps.files, sizeof(struct file_key),
			     sizeof(struct file_entry), &arr, &s->nfiles);
	if (ret) {
		snapshot_free(s);
		return ret;
	}
	s->files = arr;
	qsort(s->files, s->nfiles, sizeof(*s->files), file_entry_cmp);
	return 0;
}

const char *const path_state_names[] = {
	[PATH_OK] = "ok",
	[PATH_UNKNOWN] = "unknown",
	[PATH_DELETED] = "deleted",
	[PATH_MOVED] = "moved",
	[PATH_TRUNCATED] = "truncated",
	[PATH_UNCHECKED] = "unchecked",
};

/*
 * Files whose path check did not answer in time (pathcheck.h): not asked
 * again, so one hung mount costs one deadline, not one per refresh.
 */
#define HUNG_MAX	64
static struct file_key hung[HUNG_MAX];
static int nhung;

static bool path_hung(const struct file_key *key)
{
	for (int i = 0; i < nhung; i++)
		if (hung[i].dev == key->dev && hung[i].ino == key->ino)
			return true;
	return false;
}

/*
 * BPF keeps PATH_COMPONENT_LEN - 1 bytes of a name: one that long may have
 * been cut (64-character container IDs are). A cut can split a UTF-8
 * character; the partial character is dropped.
 */
static bool component_cut(char *comp)
{
	comp[PATH_COMPONENT_LEN - 1] = '\0';
	if (strlen(comp) < PATH_COMPONENT_LEN - 1)
		return false;
	utf8_trim_partial(comp);
	return true;
}

enum path_state engine_file_path(struct engine *e, const struct file_key *key,
				 char *buf, size_t len)
{
	struct file_path fp;
	struct fsinfo fi = {};
	struct stat st;
	bool cut = false;
	size_t n = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.paths), key, &fp) ||
	    !fp.depth) {
		snprintf(buf, len, "[ino %llu]", (unsigned long long)key->ino);
		return PATH_UNKNOWN;
	}
	buf[0] = '\0';
	fsinfo_lookup_dev(key->dev, &fi);
	if (fp.truncated)
		n = snprintf(buf, len, "...");
	else if (strcmp(fi.mount, "/"))
		n = snprintf(buf, len, "%s", fi.mount);
	/* components run from the file up: join them in reverse */
	for (int i = (int)fp.depth - 1; i >= 0 && n < len; i--) {
		cut |= component_cut(fp.comp[i]);
		n += snprintf(buf + n, len - n, "/%s", fp.comp[i]);
	}
	/* the link count of the last writeback; at first sight otherwise */
	{
		struct wa_stats st;

		if (!bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.files), key, &st))
			fp.nlink = st.nlink;
	}
	if (fp.nlink == 0)
		return PATH_DELETED;
	if (fp.truncated)
		return PATH_TRUNCATED;
	if (!fi.mount[0])
		return PATH_MOVED;
	if (path_hung(key))
		return PATH_UNCHECKED;
	/* the path is a user's: never stat() it on the refresh thread */
	if (pathcheck_lstat(buf, &st, PATHCHECK_TIMEOUT_MS)) {
		if (errno == ETIMEDOUT) {
			if (nhung < HUNG_MAX)
				hung[nhung++] = *key;
			return PATH_UNCHECKED;
		}
		return cut ? PATH_TRUNCATED : PATH_MOVED;
	}
	if (kdev_make(major(st.st_dev), minor(st.st_dev)) == key->dev &&
	    st.st_ino == key->ino)
		return PATH_OK;
	/* a cut name may name another file, or none: not a move */
	return cut ? PATH_TRUNCATED : PATH_MOVED;
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

int engine_bio_stats(struct engine *e, struct bio_entry *out, int max)
{
	return map_walk(e->skel->maps.bio_stats_map, out, sizeof(*out),
			offsetof(struct bio_entry, s), max);
}

uint64_t engine_pending_blocks(struct engine *e)
{
	return map_walk(e->skel->maps.pending_phys, NULL, 0, 0, -1);
}
