/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal unit-test harness: each check prints "PASS name" or
 * "FAIL name: detail"; tests/run.sh counts those lines for the closing
 * "N passed, N failed". A test binary exits 1 when any check failed.
 */
#ifndef IOMAPDIRTY_UNIT_H
#define IOMAPDIRTY_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failures;

#define CHECK(cond, ...) do {						\
	char _name[512];						\
	snprintf(_name, sizeof(_name), __VA_ARGS__);			\
	if (cond) {							\
		printf("PASS %s\n", _name);				\
	} else {							\
		printf("FAIL %s: %s (%s:%d)\n", _name, #cond,		\
		       __FILE__, __LINE__);				\
		unit_failures++;					\
	}								\
} while (0)

#define CHECK_U64(got, want, ...) do {					\
	unsigned long long _g = (got), _w = (want);			\
	char _name[512];						\
	snprintf(_name, sizeof(_name), __VA_ARGS__);			\
	if (_g == _w) {							\
		printf("PASS %s\n", _name);				\
	} else {							\
		printf("FAIL %s: got %llu, want %llu (%s:%d)\n", _name,	\
		       _g, _w, __FILE__, __LINE__);			\
		unit_failures++;					\
	}								\
} while (0)

#define CHECK_STR(got, want, ...) do {					\
	const char *_g = (got), *_w = (want);				\
	char _name[512];						\
	snprintf(_name, sizeof(_name), __VA_ARGS__);			\
	if (_g && _w && !strcmp(_g, _w)) {				\
		printf("PASS %s\n", _name);				\
	} else {							\
		printf("FAIL %s: got '%s', want '%s' (%s:%d)\n", _name,	\
		       _g ? _g : "(null)", _w ? _w : "(null)",		\
		       __FILE__, __LINE__);				\
		unit_failures++;					\
	}								\
} while (0)

#define UNIT_EXIT() return unit_failures ? 1 : 0

#ifdef IOMAPDIRTY_FACTS_H
/*
 * Facts from text (len bytes) or, text NULL, from the file at path; a
 * check that fails if they cannot be read, named after path.
 */
static inline int unit_parse_facts(const char *text, size_t len, const char *path,
				   struct kfacts *f)
{
	char err[256];
	FILE *fp = text ? fmemopen((void *)text, len, "r") : fopen(path, "r");
	int ret;

	if (!fp) {
		CHECK(0, "open %.200s", path);
		return -1;
	}
	ret = facts_parse(f, fp, err, sizeof(err));
	fclose(fp);
	CHECK(ret == 0, "parse %.200s%s%.200s", path, ret ? ": " : "", ret ? err : "");
	return ret;
}
#endif

/*
 * Facts of a kernel whose iomap_write_end exists only as a compiler clone
 * (.isra: no fentry, no kprobe by name): shared by test_plan and test_lazy.
 */
#define UNIT_CLONE_ONLY_FACTS						\
	"btf 1\ntype iomap_folio_state 1\nkprobe_pmu 1\n"		\
	"func iomap_write_end ksym=0 clone_only=1 traceable=1 btf=1 ret=bool " \
	"args=iomap_iter*,size_t,size_t,folio*\n"			\
	"func iomap_writeback_folio ksym=1 traceable=1 btf=1 ret=int "	\
	"args=iomap_writepage_ctx*,folio*\n"				\
	"tp iomap_add_to_ioend btf=1 ret=void args=inode*,u64,unsigned_int,iomap*\n"

#endif
