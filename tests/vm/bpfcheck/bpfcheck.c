// SPDX-License-Identifier: GPL-2.0
/*
 * bpfcheck OBJ FILE: lays FILE out (1 MiB, fsync), then loads and attaches
 * each program of OBJ on its own, does 20 writes of 100 bytes at i*20000 and
 * fsync, and prints one line per program:
 *   BPFCHECK <program> load=<ok|errno> attach=<ok|errno|-> hits=<n|->
 * Exit status 0 unless the workload itself failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#define NWRITES 20
#define STRIDE 20000
#define WLEN 100
#define MAXPROGS 8

struct probe {
	const char *name;
	struct bpf_object *obj;
	struct bpf_link *link;
	int load_err, attach_err;
};

static const char *const programs[] = {
	"fentry_iomap_write_end",
	"kprobe_iomap_write_end",
	"raw_tp_iomap_writepage",
	"fentry_iomap_dirty_folio",
	"fentry_iomap_iop_set_range",
};

static int quiet(enum libbpf_print_level level __attribute__((unused)),
		 const char *fmt __attribute__((unused)),
		 va_list ap __attribute__((unused)))
{
	return 0;
}

static int write_all(int fd, char byte, off_t off, size_t len)
{
	char buf[65536];

	memset(buf, byte, sizeof(buf));
	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t w = pwrite(fd, buf, n, off);

		if (w <= 0)
			return -1;
		off += w;
		len -= w;
	}
	return 0;
}

/*
 * `hits`, the only variable in the object's .bss: read from the kernel's
 * map (libbpf mmaps the map itself only for skeletons).
 */
static long long read_hits(struct probe *p)
{
	struct bpf_map *map = bpf_object__find_map_by_name(p->obj, ".bss");
	unsigned long long value[8] = { 0 };
	int key = 0;

	if (!map || bpf_map__value_size(map) > sizeof(value) ||
	    bpf_map__lookup_elem(map, &key, sizeof(key), value,
				 bpf_map__value_size(map), 0))
		return -1;
	return value[0];
}

static const char *err_name(int err)
{
	return err ? strerrorname_np(err) : "ok";
}

int main(int argc, char **argv)
{
	struct probe probes[MAXPROGS];
	int nprobes = 0, fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OBJ FILE\n", argv[0]);
		return 2;
	}
	if (!getenv("BPFCHECK_VERBOSE"))
		libbpf_set_print(quiet);

	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write_all(fd, 0x11, 0, 1 << 20) || fsync(fd)) {
		perror(argv[2]);
		return 1;
	}

	for (i = 0; i < (int)(sizeof(programs) / sizeof(programs[0])); i++) {
		struct probe *p = &probes[nprobes++];
		struct bpf_program *prog;

		memset(p, 0, sizeof(*p));
		p->name = programs[i];
		p->obj = bpf_object__open_file(argv[1], NULL);
		if (!p->obj) {
			p->load_err = errno;
			continue;
		}
		bpf_object__for_each_program(prog, p->obj)
			bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), p->name));
		p->load_err = bpf_object__load(p->obj) ? errno : 0;
		if (p->load_err)
			continue;
		p->link = bpf_program__attach(bpf_object__find_program_by_name(p->obj, p->name));
		p->attach_err = p->link ? 0 : errno;
	}

	for (i = 0; i < NWRITES; i++) {
		if (write_all(fd, 0x5a, (off_t)i * STRIDE, WLEN)) {
			perror("pwrite");
			return 1;
		}
	}
	if (fsync(fd)) {
		perror("fsync");
		return 1;
	}
	close(fd);

	for (i = 0; i < nprobes; i++) {
		struct probe *p = &probes[i];
		char hits[32] = "-";

		if (p->link)
			snprintf(hits, sizeof(hits), "%lld", read_hits(p));
		printf("BPFCHECK %s load=%s attach=%s hits=%s\n", p->name,
		       err_name(p->load_err),
		       p->load_err ? "-" : err_name(p->attach_err), hits);
		bpf_link__destroy(p->link);
		bpf_object__close(p->obj);
	}
	return 0;
}
