// SPDX-License-Identifier: GPL-2.0
/*
 * What each program of a BPF object costs the verifier, one program loaded
 * at a time (nothing is attached):
 *
 *   loadcost OBJECT [VAR=VALUE...]
 *
 * VAR=VALUE sets a .rodata variable before load (as user/live/engine.c does:
 * bitmap_kind=1 track_physical=1 ...). Maps are sized as iomapdirty's
 * defaults (--max-pages 131072). Prints one line per program: its name,
 * instructions in the object (with the subprograms libbpf appends),
 * instructions the verifier processed, translated instructions, JITed
 * bytes, verification time (the verifier's own figure, BPF_LOG_STATS),
 * the stack frames of the program and each subprogram (6.1 allows 512
 * bytes for a call chain), or why it did not load here (fentry is refused
 * on this host).
 * LOADCOST_MAPS=1 also lists the maps each program uses: a check that the
 * linker resolved every map reference. Compare two objects side by side: the counts are
 * exact, the times noisy.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define LOG_SIZE	(1U << 20)	/* statistics, or a refusal's last lines */
#define LOG_SIZE_FULL	(1U << 29)	/* LOADCOST_LOG=2: 100k instructions' states */

/* LOADCOST_LOG: 0 statistics only, 1 a refusal's last lines, 2 the whole log */
static int log_mode;
static size_t log_size;

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

/* Sets .rodata variable 'name' (a u8, u32 or u64) in an opened object. */
static int set_rodata(struct bpf_object *obj, const char *name, unsigned long long v)
{
	struct bpf_map *ro = bpf_object__find_map_by_name(obj, ".rodata");
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	size_t size;
	void *data;
	int id;

	if (!ro || !btf)
		return -ENOENT;
	data = (void *)bpf_map__initial_value(ro, &size);
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (!data || id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (int i = 0; i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->offset + vs->size > size)
			return -ERANGE;
		if (vs->size == 1)
			*(unsigned char *)(data + vs->offset) = v;
		else if (vs->size == 4)
			*(unsigned int *)(data + vs->offset) = v;
		else if (vs->size == 8)
			*(unsigned long long *)(data + vs->offset) = v;
		else
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

/* The verifier's "stack depth A+B+...": each function's frame, in call order. */
static void print_stack(const char *log)
{
	const char *p = strstr(log, "stack depth ");
	int n = 0;

	if (!p)
		return;
	p += strlen("stack depth ");
	while (p[n] && p[n] != '\n' && n < 60)
		n++;
	printf("  stack %.*s", n, p);
}

static long long stat_after(const char *log, const char *key)
{
	const char *p = strstr(log, key);

	return p ? atoll(p + strlen(key)) : -1;
}

static bool show_maps;

/* The names of the maps a loaded program uses, sorted: links are checked. */
static void print_maps(int fd, __u32 n)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), ids[64];
	char names[64][BPF_OBJ_NAME_LEN];

	if (n > 64)
		n = 64;
	info.nr_map_ids = n;
	info.map_ids = (unsigned long)ids;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	for (__u32 i = 0; i < n; i++) {
		struct bpf_map_info mi = {};
		__u32 mlen = sizeof(mi);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		names[i][0] = 0;
		if (mfd >= 0 && !bpf_obj_get_info_by_fd(mfd, &mi, &mlen))
			snprintf(names[i], sizeof(names[i]), "%s", mi.name);
		if (mfd >= 0)
			close(mfd);
	}
	qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	printf("  maps:");
	for (__u32 i = 0; i < n; i++)
		printf(" %s", names[i]);
}

static void size_maps(struct bpf_object *obj)
{
	struct { const char *name; unsigned int n; } sizes[] = {
		{ "page_sets", 131072 / 4 }, { "page_overflow", 131072 / 8 },
		{ "pending_phys", 131072 },
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct bpf_map *m = bpf_object__find_map_by_name(obj, sizes[i].name);

		if (m)
			bpf_map__set_max_entries(m, sizes[i].n);
	}
	set_rodata(obj, "page_set_count", 131072 / 4);
}

static int load_one(const char *path, const char *want, int argc, char **argv,
		    char *log)
{
	struct bpf_program *prog, *target = NULL;
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct bpf_object *obj;
	size_t own = 0;
	int err;

	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return -errno;
	size_maps(obj);
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			continue;
		*eq = 0;
		err = set_rodata(obj, argv[i], strtoull(eq + 1, NULL, 0));
		*eq = '=';
		if (err) {
			fprintf(stderr, "cannot set %s: %s\n", argv[i], strerror(-err));
			bpf_object__close(obj);
			return err;
		}
	}
	bpf_object__for_each_program(prog, obj) {
		bool me = !strcmp(bpf_program__name(prog), want);

		bpf_program__set_autoload(prog, me);
		if (me) {
			target = prog;
			own = bpf_program__insn_cnt(prog);
		}
	}
	log[0] = 0;
	bpf_program__set_log_buf(target, log, log_size);
	/*
	 * statistics only; LOADCOST_LOG=1: the verifier's log of a refusal;
	 * LOADCOST_LOG=2: every instruction it processed, on stderr (where
	 * the states multiply: count the lines per instruction index)
	 */
	bpf_program__set_log_level(target, log_mode == 2 ? 2 | 4 : log_mode ? 1 | 4 : 4);
	err = bpf_object__load(obj);
	if (log_mode == 2)
		fputs(log, stderr);
	printf("%-28s %6zu", want, own);
	if (err) {
		printf("  not loaded here: %s\n", strerror(-err));
		if (log_mode)	/* the verifier's last lines: why */
			fprintf(stderr, "%s\n", log + (strlen(log) > 3000 ? strlen(log) - 3000 : 0));
	} else if (bpf_obj_get_info_by_fd(bpf_program__fd(target), &info, &len)) {
		printf("  no info: %s\n", strerror(errno));
	} else {
		printf(" %8u %7u %7u %8lld", info.verified_insns,
		       info.xlated_prog_len / 8, info.jited_prog_len,
		       stat_after(log, "verification time "));
		print_stack(log);
		if (show_maps)
			print_maps(bpf_program__fd(target), info.nr_map_ids);
		putchar('\n');
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	char *log, **names;
	int n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OBJECT [VAR=VALUE...]\n", argv[0]);
		return 2;
	}
	libbpf_set_print(silent);
	show_maps = getenv("LOADCOST_MAPS") != NULL;
	obj = bpf_object__open_file(argv[1], NULL);
	if (getenv("LOADCOST_LOG"))
		log_mode = atoi(getenv("LOADCOST_LOG")) == 2 ? 2 : 1;
	log_size = log_mode == 2 ? LOG_SIZE_FULL : LOG_SIZE;
	log = malloc(log_size);
	names = calloc(256, sizeof(*names));
	if (!obj || !log || !names) {
		fprintf(stderr, "cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		if (n < 256)
			names[n++] = strdup(bpf_program__name(prog));
	bpf_object__close(obj);
	printf("%-28s %6s %8s %7s %7s %8s\n", "program", "insns", "verified",
	       "xlated", "jited_B", "verif_us");
	for (int i = 0; i < n; i++)
		if (!getenv("LOADCOST_ONLY") || !strcmp(getenv("LOADCOST_ONLY"), names[i]))
			load_one(argv[1], names[i], argc - 2, argv + 2, log);
	return 0;
}
