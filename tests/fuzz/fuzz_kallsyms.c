// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: /proc/kallsyms and available_filter_functions lines, read by
 * facts_symbols() for the candidates of a recorded kernel (family d).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "live/facts.h"

static const char base[] =
	"btf 1\n"
	"func iomap_write_end ksym=1 clone_only=0 traceable=-1 btf=1 ret=bool "
	"args=iomap_iter*,size_t,size_t,folio*\n"
	"func iomap_dirty_folio ksym=1 clone_only=0 traceable=-1 btf=1 ret=bool "
	"args=address_space*,folio*\n"
	"func iomap_writepage_map ksym=0 clone_only=0 traceable=-1 btf=0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct kfacts f = {};
	char err[256];
	FILE *in;

	if (fd < 0) {
		fd = memfd_create("kallsyms", 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	in = fmemopen((void *)base, sizeof(base) - 1, "r");
	if (!in)
		return 0;
	if (facts_parse(&f, in, err, sizeof(err)) == 0) {
		f.kallsyms_path = path;
		f.ftrace_path = path;
		f.symbols_pending = true;
		facts_symbols(&f);
	}
	fclose(in);
	facts_release(&f);
	return 0;
}
