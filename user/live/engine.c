// SPDX-License-Identifier: GPL-2.0
/* Load, attach, flush, close: see engine.h (reading: engine_read.c; files: engine_paths.c). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "live/engine_priv.h"
#include "iomapdirty.skel.h"

#define DEFAULT_MAX_PAGES	131072

static void set_rodata(struct iomapdirty_bpf *skel, const struct plan *p,
		       const struct engine_opts *o)
{
	struct iomapdirty_bpf__rodata *ro = skel->rodata;
	long page = sysconf(_SC_PAGESIZE);

	ro->target_dev = o->dev;
	ro->target_tgid = o->tgid;
	ro->target_cgroup = o->cgroup_id;
	ro->target_cgroup_level = o->cgroup_level;
	ro->count_others = o->count_others;
	ro->per_cgroup_sums = o->cgroup_sums;
	/* unknown counts as absent: a program calling a missing helper never loads */
	ro->cgroup_helpers = p->cgroup_ids > 0;
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
	ro->folio_ptr_hook = p->hooks[HOOK_FOLIO_PTR].chosen;
	ro->bh_backend = plan_bh_backend(p);
	ro->ext4_layout_known = p->ext4.known;
	ro->ext4_sbi_mount_opt = p->ext4.sbi_mount_opt;
	ro->ext4_ei_vfs_inode = p->ext4.ei_vfs_inode;
	ro->ext4_ei_flags = p->ext4.ei_flags;
	ro->ext4_ei_flags_size = p->ext4.ei_flags_size;
	ro->btrfs_backend = plan_btrfs_backend(p) && p->btrfs.known;
	ro->btrfs_bi_vfs_inode = p->btrfs.bi_vfs_inode;
	ro->btrfs_bi_root = p->btrfs.bi_root;
	ro->btrfs_root_anon_dev = p->btrfs.root_anon_dev;
	ro->simulate_clean_every = o->simulate_clean_every;
	ro->simulate_unseen_bios = o->simulate_unseen_bios;
	ro->accounting = p->accounting;
	ro->nr_cpus = libbpf_num_possible_cpus();
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
		/* run by user space in every plan (engine_flush, engine_unwritten) */
		bpf_program__set_autoload(prog, prog == skel->progs.flush_idle ||
					  prog_is_utility(bpf_program__name(prog)));
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
	FILE *f = fopen(path, "re");

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
	FILE *f = fopen("/proc/self/cgroup", "re");

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
	FILE *f = fopen("/proc/meminfo", "re");

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

int engine_open(struct engine **out, const struct plan *p,
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
	/* the always-on level keeps no page records: the table's smallest size */
	uint32_t max_pages = p->accounting == ACCOUNTING_ALWAYS_ON ? 8 :
			     o->max_pages ? o->max_pages : DEFAULT_MAX_PAGES;
	struct engine *e = calloc(1, sizeof(*e));
	int ret;

	*out = NULL;
	if (!e) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	e->plan = p;
	e->opts = *o;
	e->ncpus = libbpf_num_possible_cpus();
	if (e->ncpus <= 0) {
		snprintf(err, errlen, "cannot count CPUs");
		ret = -EINVAL;
		goto fail;
	}
	ret = engine_read_init(e);
	if (!ret) {
		e->skel = iomapdirty_bpf__open_opts(&core_opts);
		ret = e->skel ? 0 : -errno;
	}
	if (ret) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		goto fail;
	}
	set_rodata(e->skel, p, o);
	size_page_records(e->skel, max_pages);
	bpf_map__set_max_entries(e->skel->maps.pending_phys,
				 o->verify ? max_pages : 1);
	/* a dirty-bitmap word per entry (LRU: preallocated, kept small when off) */
	bpf_map__set_max_entries(e->skel->maps.wb_snaps,
				 o->verify ? (max_pages / 2 ? max_pages / 2 : 1) : 64);
	/* preallocated (LRU): no memory for what is off */
	bpf_map__set_max_entries(e->skel->maps.cgroup_sums, o->cgroup_sums ? CGROUP_SUMS_MAX : 1);
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
	e->start_ns = mono_ns();
	*out = e;
	return 0;
fail:
	engine_close(e);
	return ret ? ret : -EINVAL;
}

void engine_close(struct engine *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nlinks; i++)
		bpf_link__destroy(e->links[i]);
	iomapdirty_bpf__destroy(e->skel);
	engine_read_free(e);
	free(e);
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
 * (tracepoint plans) it also finishes the last folios of threads idle for
 * ENGINE_FINISH_IDLE_NS; with an end event, only the last flush (idle_ns
 * 0) finishes folios in flight.
 */
int engine_flush(struct engine *e, uint64_t idle_ns)
{
	const struct hook_plan *h = &e->plan->hooks[HOOK_WB_END];
	bool derived_end = h->chosen && h->mech == MECH_DERIVED;
	/* only contexts idle for idle_ns are taken: a lower bound is moot */
	uint64_t args[2] = {
		idle_ns,
		!idle_ns ? 0 : derived_end ? ENGINE_FINISH_IDLE_NS : UINT64_MAX,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = args,
		.ctx_size_in = sizeof(args));

	/* a CPU's write sum held by a writer is folded at the next try */
	for (int tries = 0; tries < 100; tries++) {
		if (bpf_prog_test_run_opts(bpf_program__fd(e->skel->progs.flush_idle), &opts))
			return -errno;
		if (!opts.retval)
			return 0;
		usleep(100);
	}
	return 0;
}
