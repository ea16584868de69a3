// SPDX-License-Identifier: GPL-2.0
/*
 * workload - scripted writes for iomapdirty's end-to-end tests.
 *
 * Every subcommand does its I/O and prints, as one JSON object on stdout, the
 * figures a correct tool must report, computed here from the offsets written,
 * the filesystem block size and the page size (never from tool output).
 * Diagnostics go to stderr.  Exit status: 0 ok, 1 I/O error, 2 usage.
 *
 * Model (per-block dirty tracking, 6.6+ kernels): a writeback epoch (the
 * writes between two fsyncs) dirties the union of the blocks its writes
 * touch; exactly those blocks are submitted.  One folio is written back per
 * folio touched; with order-0 folios that is one per page touched.  A store
 * through mmap dirties its whole folio (iomap_dirty_folio), also the blocks
 * past EOF; writeback submits only the dirty blocks below
 * round_up(i_size, block size), so blocks past EOF (mmap of a partial last
 * page, a truncate that cuts a dirty folio) are dirty but not submitted.
 * The last block of a file whose size is not block aligned is submitted
 * whole.
 *
 * The top-level figures assume order-0 (page-sized) folios, as `prep` makes
 * them by default; "folios" is null where large folios are expected.
 * "layout" holds the folios as measured (folio_layout.c) after each epoch's
 * writes and before its fsync, and "layout.expect" the same figures computed
 * with those folios: exact even with large folios.  They agree with the
 * top-level ones whenever the order-0 assumption held.
 */
#define _GNU_SOURCE	/* syncfs */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <pthread.h>
#include <unistd.h>
#include "expect.h"
#include "folio_layout.h"

#define MiB (1024ULL * 1024)

static long page_size;

/* A histogram kept exactly: distinct values and how often each occurred. */
#define MAX_VALUES 128
struct value_counts {
	size_t n;
	uint64_t value[MAX_VALUES];
	uint64_t count[MAX_VALUES];
};

/* The figures a tool reports for one file (bytes derive from blocks). */
struct counters {
	/*
	 * Write calls as the tool counts them: per folio, the calls that
	 * touched it, summed; a write spanning k folios counts k times.
	 */
	uint64_t folio_write_calls;
	uint64_t app_dirty_blocks;	/* blocks touched by write(2) */
	uint64_t dirty_blocks;		/* blocks dirtied, by any means */
	uint64_t whole_folio_dirty_events;
	/* Folios with dirty blocks no seen write(2) explains (mmap, unseen). */
	uint64_t other_dirty_folios;
	uint64_t folios;		/* folios written back */
	uint64_t folio_bytes;		/* sum of their sizes */
	uint64_t max_folio_bytes;
	uint64_t submitted_blocks;
	/*
	 * Per folio written back: dirty blocks, submitted blocks, folio
	 * size, and submitted / dirty in millionths (amplification).
	 */
	struct value_counts per_folio_blocks;
	struct value_counts per_folio_sub;
	struct value_counts per_folio_bytes;
	struct value_counts per_folio_amp_micro;
};

struct expect {
	const char *path;
	int fd;
	dev_t dev;
	ino_t ino;
	uint64_t block_size;
	uint64_t app_bytes;		/* counted as the writes are made */
	uint64_t write_calls;
	/* of those, thrown away before writeback (truncate): what a count at
	 * the write (always-on accounting) still sees */
	uint64_t thrown_bytes;
	uint64_t thrown_calls;
	/* From offsets alone, assuming order-0 (page-sized) folios. */
	struct counters calc;
	bool folios_known;		/* false: large folios expected */
	uint64_t max_folios;		/* upper bound when !folios_known */
	bool expect_large_folios;
	/* The ranges were dirtied before the tool attached: no write seen. */
	bool unseen;
	/* Same, with the folios measured before each writeback. */
	struct counters meas;
	int layout_err;			/* 0, or -errno of a failed probe */
	struct folio_layout layout;	/* the last probe */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "workload: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(void)
{
	fprintf(stderr,
"usage: workload selftest\n"
"       workload prep PATH SIZE [--chunk BYTES]   (default chunk: page size)\n"
"       workload scatter PATH --count N --len L --stride S [--start OFF] [--no-fsync]\n"
"                        [--unseen]   (the same writes made earlier, unsynced: only fsync)\n"
"       workload span PATH\n"
"       workload mmap PATH --pages K\n"
"       workload eof PATH [--no-setup]\n"
"       workload large PATH [--no-setup]\n"
"       workload twofiles PATHA PATHB\n"
"       workload truncate PATH   (a 16 KiB file, 1 KiB blocks)\n"
"       workload mmap_eof PATH   (a 5000-byte file)\n"
"       workload threads --threads N PATH...   (files of >= 1 MiB)\n"
"       workload manyfiles DIR N LEN   (N new files, LEN bytes each, syncfs)\n"
"       workload soakfiles DIR N LEN [--dirs D] [--sync-every S]\n"
"                        (N new files over D directories, openat/write/close)\n"
"       workload shortcopy PATH   (a write(2) whose copy faults half way)\n"
"       workload layout PATH\n"
"Sizes accept K, M, G suffixes.\n");
	exit(2);
}

static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		usage();
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		usage();
	return v;
}

/* ---- files ---------------------------------------------------------------- */

static uint64_t fs_block_size(int fd, const char *path)
{
	struct statvfs sv;

	if (fstatvfs(fd, &sv))
		die("statvfs %s: %s", path, strerror(errno));
	/*
	 * On XFS both are the fs block size (st_blksize is only an I/O size
	 * hint: 4096 on a 1 KiB-block XFS).
	 */
	if (sv.f_frsize != sv.f_bsize)
		fprintf(stderr, "workload: %s: f_frsize %lu != f_bsize %lu, using f_frsize\n",
			path, sv.f_frsize, sv.f_bsize);
	if (!sv.f_frsize || sv.f_frsize & (sv.f_frsize - 1))
		die("%s: odd block size %lu", path, sv.f_frsize);
	return sv.f_frsize;
}

static void open_file(struct expect *e, const char *path, int flags)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->path = path;
	e->folios_known = true;
	e->fd = open(path, O_RDWR | flags, 0644);
	if (e->fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (fstat(e->fd, &st))
		die("stat %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die("%s: not a regular file", path);
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->block_size = fs_block_size(e->fd, path);
}

static uint64_t file_size(const struct expect *e)
{
	struct stat st;

	if (fstat(e->fd, &st))
		die("stat %s: %s", e->path, strerror(errno));
	return st.st_size;
}

static char *data_buf(uint64_t len)
{
	char *buf = malloc(len ? len : 1);

	if (!buf)
		die("out of memory");
	memset(buf, 0x5a, len);	/* non-zero: nothing may look like a hole */
	return buf;
}

/* pwrite(2) all of it; counts calls so a short write stays accounted. */
static void do_pwrite(struct expect *e, const char *buf, uint64_t len,
		      uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(e->fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("pwrite %s @%" PRIu64 ": %s", e->path, off,
			    n < 0 ? strerror(errno) : "wrote 0 bytes");
		e->write_calls++;
		e->app_bytes += n;
		buf += n;
		off += n;
		len -= n;
	}
}

static void do_fsync(struct expect *e)
{
	if (fsync(e->fd))
		die("fsync %s: %s", e->path, strerror(errno));
}

/* ---- accounting ----------------------------------------------------------- */

/*
 * The smallest folio of the file: a page, or one block where blocks are
 * larger than pages (XFS since 6.12): what "order-0" means for it.
 */
static uint64_t min_folio(const struct expect *e)
{
	return e->block_size > (uint64_t)page_size ? e->block_size : (uint64_t)page_size;
}

static uint64_t units(const struct byte_range *r, size_t n, uint64_t unit)
{
	uint64_t v = units_touched(r, n, unit);

	if (v == UINT64_MAX)
		die("out of memory");
	return v;
}

/*
 * The folios containing @r (@folios: a measured layout; NULL: order-0, the
 * pages), one range per element of @r, whole (iomap_dirty_folio dirties
 * every block of the folio, also those past EOF; writeback then submits
 * nothing past round_up(i_size, block_size), see add_per_folio()); folios
 * wholly past the last block are left out.  Returns how many ranges were
 * written to @out.
 */
static size_t containing_folios(const struct expect *e,
				const struct byte_range *r, size_t n,
				const struct folio_layout *lo,
				struct byte_range *out)
{
	uint64_t bs = e->block_size, unit = min_folio(e);
	uint64_t eof = (file_size(e) + bs - 1) / bs * bs;
	size_t i, j, m = 0;

	for (i = 0; i < n; i++) {
		struct byte_range f = { r[i].off / unit * unit, unit };

		for (j = 0; lo && j < lo->nr; j++) {
			if (lo->folios[j].off <= r[i].off &&
			    r[i].off < lo->folios[j].off + lo->folios[j].len) {
				f = lo->folios[j];
				break;
			}
		}
		if (f.off >= eof)
			continue;
		out[m++] = f;	/* whole: iomap_dirty_folio marks every block */

	}
	return m;
}

static void value_add(struct value_counts *vc, uint64_t value, uint64_t count)
{
	size_t i;

	for (i = 0; i < vc->n && vc->value[i] != value; i++)
		;
	if (i == vc->n) {
		if (vc->n == MAX_VALUES)
			die("more than %d distinct per-folio values", MAX_VALUES);
		vc->value[vc->n] = value;
		vc->count[vc->n++] = 0;
	}
	vc->count[i] += count;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The folios @r touches: from @lo, or (NULL) the smallest ones (@unit). */
static size_t touched_folios(const struct byte_range *r, size_t n,
			     const struct folio_layout *lo, uint64_t unit,
			     struct byte_range **out)
{
	uint64_t *pages = NULL, np = 0, p;
	size_t i, m = 0;

	if (lo) {
		*out = calloc(lo->nr ? lo->nr : 1, sizeof(**out));
		if (!*out)
			die("out of memory");
		for (i = 0; i < lo->nr; i++) {
			if (groups_touched(r, n, &lo->folios[i], 1, NULL, NULL))
				(*out)[m++] = lo->folios[i];
		}
		return m;
	}
	for (i = 0; i < n; i++) {
		if (!r[i].len)
			continue;
		for (p = r[i].off / unit; p <= (r[i].off + r[i].len - 1) / unit; p++) {
			pages = realloc(pages, (np + 1) * sizeof(*pages));
			if (!pages)
				die("out of memory");
			pages[np++] = p;
		}
	}
	qsort(pages, np, sizeof(*pages), cmp_u64);
	*out = calloc(np ? np : 1, sizeof(**out));
	if (!*out)
		die("out of memory");
	for (i = 0; i < np; i++) {
		if (i && pages[i] == pages[i - 1])
			continue;
		(*out)[m++] = (struct byte_range){ pages[i] * unit, unit };
	}
	free(pages);
	return m;
}

/*
 * Per-folio figures of one epoch: each touched folio's dirty blocks (the
 * written ranges clipped to it, or for mmap the whole folio), the blocks writeback submits of them (those below
 * round_up(i_size, block size): a truncate that cuts a folio leaves the
 * dirty bits past the new EOF set, iomap_invalidate_folio clears only
 * whole folios, and writeback stops at EOF) and its size.  Returns the sum
 * of the dirty blocks; *submitted gets the sum of the submitted ones.
 */
static uint64_t add_per_folio(const struct expect *e, struct counters *c,
			      const struct byte_range *r, size_t n,
			      bool is_mmap, const struct folio_layout *lo,
			      uint64_t *submitted)
{
	uint64_t bs = e->block_size, eof = (file_size(e) + bs - 1) / bs * bs;
	struct byte_range *folios, *clip = calloc(n ? n : 1, sizeof(*clip));
	uint64_t total = 0, blocks, sub;
	size_t nf, f, i, m;

	if (!clip)
		die("out of memory");
	*submitted = 0;
	nf = touched_folios(r, n, lo, min_folio(e), &folios);
	for (f = 0; f < nf; f++) {
		uint64_t fs = folios[f].off, fe = fs + folios[f].len;

		m = 0;
		if (is_mmap) {
			clip[m].off = fs;
			clip[m++].len = fe - fs;
		} else {
			for (i = 0; i < n; i++) {
				uint64_t s = r[i].off > fs ? r[i].off : fs;
				uint64_t t = r[i].off + r[i].len < fe ?
					     r[i].off + r[i].len : fe;

				if (s < t)
					clip[m++] = (struct byte_range){ s, t - s };
			}
		}
		blocks = units(clip, m, bs);
		for (i = 0; i < m; i++) {	/* what writeback sends */
			if (clip[i].off >= eof)
				clip[i].len = 0;
			else if (clip[i].off + clip[i].len > eof)
				clip[i].len = eof - clip[i].off;
		}
		sub = units(clip, m, bs);
		value_add(&c->per_folio_blocks, blocks, 1);
		value_add(&c->per_folio_sub, sub, 1);
		value_add(&c->per_folio_bytes, folios[f].len, 1);
		if (blocks)
			value_add(&c->per_folio_amp_micro, sub * 1000000 / blocks, 1);
		total += blocks;
		*submitted += sub;
	}
	free(folios);
	free(clip);
	return total;
}

/*
 * Add one writeback epoch (the I/O between two fsyncs) to @c.  @r are the
 * byte ranges written, by pwrite(2) or (@is_mmap) by one-byte stores through
 * a shared mapping.  @lo: measured folios, or NULL for order-0.
 */
static void add_epoch(const struct expect *e, struct counters *c,
		      const struct byte_range *r, size_t n, bool is_mmap,
		      const struct folio_layout *lo)
{
	struct byte_range *whole = calloc(n ? n : 1, sizeof(*whole));
	uint64_t nfolios, bytes, max = 0, blocks, submitted;
	size_t m;

	if (!whole)
		die("out of memory");
	if (lo) {
		nfolios = groups_touched(r, n, lo->folios, lo->nr, &bytes, &max);
	} else {
		nfolios = units(r, n, min_folio(e));
		bytes = nfolios * min_folio(e);
		max = nfolios ? min_folio(e) : 0;
	}
	if (is_mmap) {
		/* iomap_dirty_folio: the whole folio is dirty. */
		m = containing_folios(e, r, n, lo, whole);
		blocks = units(whole, m, e->block_size);
		c->whole_folio_dirty_events += nfolios;
		c->other_dirty_folios += nfolios;
	} else if (e->unseen) {
		/* the kernel's bitmap shows them, no write was seen */
		blocks = units(r, n, e->block_size);
		c->other_dirty_folios += nfolios;
	} else {
		blocks = units(r, n, e->block_size);
		c->app_dirty_blocks += blocks;
		for (size_t i = 0; i < n; i++) {	/* one range per call */
			uint64_t b, mx;

			c->folio_write_calls += lo ?
				groups_touched(&r[i], 1, lo->folios, lo->nr, &b, &mx) :
				units(&r[i], 1, min_folio(e));
		}
	}
	/* Folios partition the file: the per-folio blocks must add up. */
	if (add_per_folio(e, c, r, n, is_mmap, lo, &submitted) != blocks)
		die("internal: per-folio blocks do not add up to %" PRIu64, blocks);
	c->dirty_blocks += blocks;
	c->submitted_blocks += submitted;	/* per-block dirty tracking */
	c->folios += nfolios;
	c->folio_bytes += bytes;
	if (max > c->max_folio_bytes)
		c->max_folio_bytes = max;
	free(whole);
}

/* Measure the folios now, as writeback will find them. */
static void probe_layout(struct expect *e)
{
	int err;

	folio_layout_free(&e->layout);
	err = folio_layout_probe(e->fd, file_size(e), page_size, &e->layout);
	if (err) {
		fprintf(stderr, "workload: folio layout of %s unavailable: %s\n",
			e->path, strerror(-err));
		e->layout_err = err;
	}
}

/* Call after the I/O of an epoch and before its fsync. */
static void epoch_done(struct expect *e, const struct byte_range *r, size_t n,
		       bool is_mmap)
{
	add_epoch(e, &e->calc, r, n, is_mmap, NULL);
	probe_layout(e);
	if (!e->layout_err)
		add_epoch(e, &e->meas, r, n, is_mmap, &e->layout);
}

/* One write, as an epoch of its own: pwrite, account, fsync. */
static void write_epoch(struct expect *e, const char *buf,
			const struct byte_range *r)
{
	do_pwrite(e, buf, r->len, r->off);
	epoch_done(e, r, 1, false);
	do_fsync(e);
}

/* ---- output --------------------------------------------------------------- */

static void print_values(const struct value_counts *vc)
{
	size_t i;

	printf("{");
	for (i = 0; i < vc->n; i++)
		printf("%s\"%" PRIu64 "\":%" PRIu64, i ? "," : "", vc->value[i],
		       vc->count[i]);
	printf("}");
}

/* Values kept in millionths, printed as decimals ("0.5"). */
static void print_micro_values(const struct value_counts *vc)
{
	size_t i;

	printf("{");
	for (i = 0; i < vc->n; i++)
		printf("%s\"%.6g\":%" PRIu64, i ? "," : "",
		       vc->value[i] / 1e6, vc->count[i]);
	printf("}");
}

/* A ratio, or null when the denominator is 0 (as the tool prints it). */
static void print_ratio(const char *key, uint64_t num, uint64_t den)
{
	if (den)
		printf(",\"%s\":%.9g", key, (double)num / den);
	else
		printf(",\"%s\":null", key);
}

static void print_counters(const struct expect *e, const struct counters *c,
			   bool folios_known)
{
	uint64_t bs = e->block_size;

	/* every write(2) and its bytes, also those whose data was thrown away */
	printf("\"write_syscalls\":%" PRIu64 ",\"syscall_bytes\":%" PRIu64 ",",
	       e->write_calls + e->thrown_calls, e->app_bytes + e->thrown_bytes);
	printf("\"app_bytes\":%" PRIu64 ",\"write_calls\":%" PRIu64
	       ",\"app_dirty_blocks\":%" PRIu64 ",\"app_dirty_bytes\":%" PRIu64
	       ",\"other_dirty_blocks\":%" PRIu64 ",\"dirty_blocks\":%" PRIu64
	       ",\"dirty_bytes\":%" PRIu64 ",\"whole_folio_dirty_events\":%" PRIu64,
	       e->app_bytes, c->folio_write_calls, c->app_dirty_blocks,
	       c->app_dirty_blocks * bs, c->dirty_blocks - c->app_dirty_blocks,
	       c->dirty_blocks, c->dirty_blocks * bs,
	       c->whole_folio_dirty_events);
	printf(",\"other_dirty_folios\":%" PRIu64, c->other_dirty_folios);
	if (folios_known)
		printf(",\"folios\":%" PRIu64 ",\"folio_bytes\":%" PRIu64
		       ",\"max_folio_bytes\":%" PRIu64,
		       c->folios, c->folio_bytes, c->max_folio_bytes);
	else
		printf(",\"folios\":null,\"max_folios\":%" PRIu64
		       ",\"folio_bytes\":null,\"max_folio_bytes\":null",
		       e->max_folios);
	printf(",\"submitted_blocks\":%" PRIu64 ",\"submitted_bytes\":%" PRIu64,
	       c->submitted_blocks, c->submitted_blocks * bs);
	/* The tool's derived figures, as it defines them (user/output/report.h). */
	print_ratio("block_rounding", c->app_dirty_blocks * bs, e->app_bytes);
	print_ratio("folio_amplification", c->submitted_blocks, c->dirty_blocks);
	if (folios_known) {
		/* Histograms, exactly: {"value": folios with that value}. */
		printf(",\"per_folio\":{\"dirty_blocks\":");
		print_values(&c->per_folio_blocks);
		printf(",\"submitted_blocks\":");
		print_values(&c->per_folio_sub);
		printf(",\"folio_bytes\":");
		print_values(&c->per_folio_bytes);
		printf(",\"folio_amplification\":");
		print_micro_values(&c->per_folio_amp_micro);
		printf("}");
	} else {
		printf(",\"per_folio\":null");
	}
}

static void print_layout(const struct expect *e, bool with_expect)
{
	const struct folio_layout *lo = &e->layout;
	uint64_t sizes[64] = { 0 };
	const char *sep = "";
	size_t i;

	if (e->layout_err) {
		printf("{\"probe\":\"unavailable\",\"error\":\"%s\"}",
		       strerror(-e->layout_err));
		return;
	}
	for (i = 0; i < lo->nr; i++) {
		unsigned int order = 0;

		while (((uint64_t)page_size << order) < lo->folios[i].len)
			order++;
		sizes[order]++;
	}
	printf("{\"probe\":\"kpageflags\",\"file_folios\":%zu,\"folio_sizes\":{",
	       lo->nr);
	for (i = 0; i < 64; i++) {
		if (!sizes[i])
			continue;
		printf("%s\"%" PRIu64 "\":%" PRIu64, sep,
		       (uint64_t)page_size << i, sizes[i]);
		sep = ",";
	}
	printf("},\"resident_pages_before\":%" PRIu64 ",\"pages\":%" PRIu64,
	       lo->resident_pages, lo->pages);
	if (with_expect) {
		printf(",\"expect\":{");
		print_counters(e, &e->meas, true);
		printf("}");
	}
	printf("}");
}

static void print_json_string(const char *str)
{
	const unsigned char *c;

	putchar('"');
	for (c = (const unsigned char *)str; *c; c++) {
		if (*c == '"' || *c == '\\')
			printf("\\%c", *c);
		else if (*c < 0x20)
			printf("\\u%04x", *c);
		else
			putchar(*c);
	}
	putchar('"');
}

/* Context, then the figures from offsets, then the measured-layout ones. */
static void print_file(const struct expect *e)
{
	printf("\"path\":");
	print_json_string(e->path);
	printf(",\"dev\":\"%u:%u\",\"ino\":%" PRIu64,
	       major(e->dev), minor(e->dev), (uint64_t)e->ino);
	printf(",\"block_size\":%" PRIu64 ",\"page_size\":%ld,\"file_bytes\":%" PRIu64 ",",
	       e->block_size, page_size, file_size(e));
	print_counters(e, &e->calc, e->folios_known);
	printf(",\"expect_large_folios\":%s,\"layout\":",
	       e->expect_large_folios ? "true" : "false");
	print_layout(e, true);
}

static void print_one(const char *scenario, const struct expect *e)
{
	printf("{\"scenario\":\"%s\",", scenario);
	print_file(e);
	printf("}\n");
}

static void finish(struct expect *e)
{
	if (close(e->fd))
		die("close %s: %s", e->path, strerror(errno));
	folio_layout_free(&e->layout);
}

/* ---- subcommands ---------------------------------------------------------- */

static void lay_out(struct expect *e, uint64_t size, uint64_t chunk)
{
	char *buf = data_buf(chunk);
	uint64_t off;

	if (ftruncate(e->fd, 0))
		die("truncate %s: %s", e->path, strerror(errno));
	for (off = 0; off < size; off += chunk)
		do_pwrite(e, buf, size - off < chunk ? size - off : chunk, off);
	free(buf);
}

/*
 * prep: allocate and write every block, fsync, keep the clean folios cached.
 * The write size decides the folio size (6.6+ allocates large folios for
 * large writes), so the default chunk is one page: order-0 folios, for
 * which the per-page expectations hold.  --chunk 1M gives large folios.
 */
static int cmd_prep(int argc, char **argv)
{
	uint64_t size, chunk = page_size;
	struct expect e;

	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--chunk")))
		usage();
	size = parse_size(argv[2]);
	if (argc == 5)
		chunk = parse_size(argv[4]);
	if (!chunk)
		usage();
	open_file(&e, argv[1], O_CREAT);
	lay_out(&e, size, chunk);
	do_fsync(&e);
	probe_layout(&e);
	printf("{\"file_bytes\":%" PRIu64 ",\"ino\":%" PRIu64 ",\"dev\":\"%u:%u\""
	       ",\"chunk\":%" PRIu64 ",\"block_size\":%" PRIu64 ",\"page_size\":%ld"
	       ",\"layout\":", file_size(&e), (uint64_t)e.ino, major(e.dev),
	       minor(e.dev), chunk, e.block_size, page_size);
	print_layout(&e, false);
	printf("}\n");
	finish(&e);
	return 0;
}

/*
 * scatter: COUNT writes of LEN bytes every STRIDE bytes from START, then
 * fsync.  With --unseen nothing is written: the same writes were made
 * before (`scatter ... --no-fsync`, before the tool attached), and only
 * the fsync is done; they are counted as dirtying no write explains (the
 * kernel's dirty bitmap shows them): app_bytes and write_calls 0.
 */
static int cmd_scatter(int argc, char **argv)
{
	uint64_t count = 0, len = 0, stride = 0, start = 0, i;
	bool have_c = false, have_l = false, have_s = false, sync = true;
	bool unseen = false;
	struct byte_range *r;
	struct expect e;
	char *buf;
	int a;

	if (argc < 2)
		usage();
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "--no-fsync")) {
			sync = false;
		} else if (!strcmp(argv[a], "--unseen")) {
			unseen = true;
		} else if (a + 1 < argc && !strcmp(argv[a], "--count")) {
			count = parse_size(argv[++a]);
			have_c = true;
		} else if (a + 1 < argc && !strcmp(argv[a], "--len")) {
			len = parse_size(argv[++a]);
			have_l = true;
		} else if (a + 1 < argc && !strcmp(argv[a], "--stride")) {
			stride = parse_size(argv[++a]);
			have_s = true;
		} else if (a + 1 < argc && !strcmp(argv[a], "--start")) {
			start = parse_size(argv[++a]);
		} else {
			usage();
		}
	}
	if (!have_c || !have_l || !have_s || !len)
		usage();
	r = calloc(count ? count : 1, sizeof(*r));
	buf = data_buf(len);
	if (!r)
		die("out of memory");
	open_file(&e, argv[1], O_CREAT);
	if (count && start + (count - 1) * stride + len > file_size(&e))
		fprintf(stderr, "workload: note: writes extend %s past its size\n",
			argv[1]);
	e.unseen = unseen;
	for (i = 0; i < count; i++) {
		r[i] = (struct byte_range){ start + i * stride, len };
		if (!unseen)
			do_pwrite(&e, buf, r[i].len, r[i].off);
	}
	epoch_done(&e, r, count, false);
	if (sync)
		do_fsync(&e);
	print_one("scatter", &e);
	finish(&e);
	free(buf);
	free(r);
	return 0;
}

/* span: one write of 200 bytes across the first page boundary. */
static int cmd_span(int argc, char **argv)
{
	struct byte_range r = { page_size - 100, 200 };
	struct expect e;
	char *buf = data_buf(r.len);

	if (argc != 2)
		usage();
	open_file(&e, argv[1], O_CREAT);
	write_epoch(&e, buf, &r);
	print_one("span", &e);
	finish(&e);
	free(buf);
	return 0;
}

/*
 * mmap: one byte stored into each of K pages spread over the file, then
 * msync(MS_SYNC) and fsync.  No write(2): app_bytes = write_calls = 0, and
 * each store dirties its whole folio (order-0: page_size / block_size
 * blocks).
 */
static int cmd_mmap(int argc, char **argv)
{
	uint64_t k, npages, step, i, size;
	struct byte_range *r;
	struct expect e;
	char *p;

	if (argc != 4 || strcmp(argv[2], "--pages"))
		usage();
	k = parse_size(argv[3]);
	open_file(&e, argv[1], 0);
	size = file_size(&e);
	npages = size / page_size;	/* whole pages only */
	if (!k || k > npages)
		die("%s: %" PRIu64 " pages wanted, file has %" PRIu64 " whole pages",
		    argv[1], k, npages);
	step = npages / k;
	r = calloc(k, sizeof(*r));
	if (!r)
		die("out of memory");
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, 0);
	if (p == MAP_FAILED)
		die("mmap %s: %s", argv[1], strerror(errno));
	for (i = 0; i < k; i++) {
		/* Page i * step, at an offset inside it that varies. */
		r[i].off = i * step * page_size + (i * 97) % page_size;
		r[i].len = 1;
		p[r[i].off] = 'A' + i % 26;
	}
	epoch_done(&e, r, k, true);
	if (msync(p, size, MS_SYNC))
		die("msync %s: %s", argv[1], strerror(errno));
	if (munmap(p, size))
		die("munmap %s: %s", argv[1], strerror(errno));
	do_fsync(&e);
	print_one("mmap", &e);
	finish(&e);
	free(r);
	return 0;
}

/*
 * eof: a 5000-byte file (not block aligned for any block size > 8), then
 * 10 bytes overwritten just before EOF, in the last, partial block.  That
 * block is submitted whole: writeback rounds the end of the dirty range up
 * to a block (iomap_writeback_folio: end_aligned); only the ioend's size is
 * clamped to i_size.  With --no-setup the file must already be 5000 bytes
 * (e.g. `workload prep PATH 5000`) and only the overwrite is counted;
 * otherwise the 5000-byte write into the emptied file is an epoch too.
 */
#define EOF_FILE_BYTES 5000

static int cmd_eof(int argc, char **argv)
{
	struct byte_range setup = { 0, EOF_FILE_BYTES };
	struct byte_range r = { EOF_FILE_BYTES - 10, 10 };
	bool do_setup = true;
	struct expect e;
	char *buf = data_buf(EOF_FILE_BYTES);

	if (argc == 3 && !strcmp(argv[2], "--no-setup"))
		do_setup = false;
	else if (argc != 2)
		usage();
	open_file(&e, argv[1], do_setup ? O_CREAT : 0);
	if (do_setup) {
		if (ftruncate(e.fd, 0))
			die("truncate %s: %s", argv[1], strerror(errno));
		write_epoch(&e, buf, &setup);
	} else if (file_size(&e) != EOF_FILE_BYTES) {
		die("%s: --no-setup needs a %d-byte file", argv[1], EOF_FILE_BYTES);
	}
	write_epoch(&e, buf, &r);
	print_one("eof", &e);
	finish(&e);
	free(buf);
	return 0;
}

/* splitmix64: a fixed, portable pseudo-random sequence. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * large: a 16 MiB file laid out with 1 MiB writes (large folios), fsync,
 * then 64 overwrites of 4 KiB at distinct 4 KiB-aligned pseudo-random
 * offsets, fsync.  How many folios those land in depends on the folio sizes
 * the kernel chose, so "folios" is null (at most one per write); the
 * measured layout gives the exact number.  With --no-setup the file must
 * exist (e.g. `workload prep PATH 16M --chunk 1M`); only the overwrites
 * are counted.
 */
#define LARGE_FILE_BYTES (16 * MiB)
#define LARGE_WRITES 64
#define LARGE_WRITE_BYTES 4096
#define LARGE_SEED 0x10ad1f0e5ULL

static int cmd_large(int argc, char **argv)
{
	uint64_t slots = LARGE_FILE_BYTES / LARGE_WRITE_BYTES, seed = LARGE_SEED;
	struct byte_range r[LARGE_WRITES];
	bool do_setup = true, used;
	char *buf = data_buf(LARGE_WRITE_BYTES);
	struct expect e;
	size_t i, j;

	if (argc == 3 && !strcmp(argv[2], "--no-setup"))
		do_setup = false;
	else if (argc != 2)
		usage();
	open_file(&e, argv[1], do_setup ? O_CREAT : 0);
	if (do_setup) {
		struct byte_range whole = { 0, LARGE_FILE_BYTES };

		lay_out(&e, LARGE_FILE_BYTES, MiB);
		epoch_done(&e, &whole, 1, false);
		do_fsync(&e);
		/* Folios: at most one per page in the layout epoch. */
		e.max_folios = LARGE_FILE_BYTES / page_size;
	} else if (file_size(&e) < LARGE_FILE_BYTES) {
		die("%s: --no-setup needs a file of at least %llu bytes", argv[1],
		    LARGE_FILE_BYTES);
	}
	for (i = 0; i < LARGE_WRITES; i++) {
		do {
			r[i].off = splitmix64(&seed) % slots * LARGE_WRITE_BYTES;
			r[i].len = LARGE_WRITE_BYTES;
			for (used = false, j = 0; j < i; j++)
				used |= r[j].off == r[i].off;
		} while (used);
		do_pwrite(&e, buf, r[i].len, r[i].off);
	}
	epoch_done(&e, r, LARGE_WRITES, false);
	do_fsync(&e);
	e.folios_known = false;
	e.max_folios += LARGE_WRITES;	/* at most one folio per write */
	e.expect_large_folios = true;
	print_one("large", &e);
	finish(&e);
	free(buf);
	return 0;
}

/*
 * truncate: a 16 KiB file (order-0, `prep PATH 16K`), 1 KiB blocks.  Epoch
 * 1: page 2 written whole, page 3 written whole, then truncated to 10240:
 * page 3 is dropped dirty (never written back, never reported), page 2 is
 * cut at its third block; its blocks 10 and 11 stay dirty in the kernel's
 * bitmap (iomap_invalidate_folio clears only whole folios) but writeback
 * stops at EOF: 4 blocks dirty, 2 submitted.  Epoch 2: 100 bytes at 12288,
 * where the dropped page 3 was (the file grows back to 12388): one block
 * dirty and submitted, and nothing of epoch 1's page 3 may come back with
 * it.  The truncate offset is block aligned, so no partial block is zeroed
 * (that would go through iomap_write_end as a write of its own).
 */
#define TRUNC_FILE_BYTES	16384
#define TRUNC_TO		10240

static int cmd_truncate(int argc, char **argv)
{
	struct byte_range r1 = { 8192, 4096 }, r2 = { 12288, 100 };
	char *buf = data_buf(4096);
	struct expect e;

	if (argc != 2)
		usage();
	open_file(&e, argv[1], 0);
	if (file_size(&e) != TRUNC_FILE_BYTES || e.block_size != 1024)
		die("%s: truncate needs a %d-byte file on 1 KiB blocks", argv[1],
		    TRUNC_FILE_BYTES);
	do_pwrite(&e, buf, r1.len, r1.off);
	do_pwrite(&e, buf, 4096, 12288);
	if (ftruncate(e.fd, TRUNC_TO))
		die("truncate %s: %s", argv[1], strerror(errno));
	/* page 3's write went with the page: the tool never sees it back */
	e.app_bytes -= 4096;
	e.write_calls -= 1;
	e.thrown_bytes += 4096;
	e.thrown_calls += 1;
	epoch_done(&e, &r1, 1, false);
	do_fsync(&e);
	write_epoch(&e, buf, &r2);
	print_one("truncate", &e);
	finish(&e);
	free(buf);
	return 0;
}

/*
 * mmap_eof: a 5000-byte file (`prep PATH 5000`); one byte stored through
 * a shared mapping at 4500, in the partial last page.  The whole folio is
 * dirtied (every block, past EOF too), writeback sends the blocks up to
 * round_up(5000, block size) only.
 */
static int cmd_mmap_eof(int argc, char **argv)
{
	struct byte_range r = { 4500, 1 };
	struct expect e;
	char *p;

	if (argc != 2)
		usage();
	open_file(&e, argv[1], 0);
	if (file_size(&e) != EOF_FILE_BYTES)
		die("%s: mmap_eof needs a %d-byte file", argv[1], EOF_FILE_BYTES);
	p = mmap(NULL, EOF_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, 0);
	if (p == MAP_FAILED)
		die("mmap %s: %s", argv[1], strerror(errno));
	p[r.off] = 'A';
	epoch_done(&e, &r, 1, true);
	if (msync(p, EOF_FILE_BYTES, MS_SYNC))
		die("msync %s: %s", argv[1], strerror(errno));
	if (munmap(p, EOF_FILE_BYTES))
		die("munmap %s: %s", argv[1], strerror(errno));
	do_fsync(&e);
	print_one("mmap_eof", &e);
	finish(&e);
	return 0;
}

static void add_counters(struct counters *t, const struct counters *c)
{
	size_t i;

	for (i = 0; i < c->per_folio_blocks.n; i++)
		value_add(&t->per_folio_blocks, c->per_folio_blocks.value[i],
			  c->per_folio_blocks.count[i]);
	for (i = 0; i < c->per_folio_bytes.n; i++)
		value_add(&t->per_folio_bytes, c->per_folio_bytes.value[i],
			  c->per_folio_bytes.count[i]);
	for (i = 0; i < c->per_folio_sub.n; i++)
		value_add(&t->per_folio_sub, c->per_folio_sub.value[i],
			  c->per_folio_sub.count[i]);
	for (i = 0; i < c->per_folio_amp_micro.n; i++)
		value_add(&t->per_folio_amp_micro, c->per_folio_amp_micro.value[i],
			  c->per_folio_amp_micro.count[i]);
	t->app_dirty_blocks += c->app_dirty_blocks;
	t->dirty_blocks += c->dirty_blocks;
	t->whole_folio_dirty_events += c->whole_folio_dirty_events;
	t->other_dirty_folios += c->other_dirty_folios;
	t->folio_write_calls += c->folio_write_calls;
	t->folios += c->folios;
	t->folio_bytes += c->folio_bytes;
	t->submitted_blocks += c->submitted_blocks;
	if (c->max_folio_bytes > t->max_folio_bytes)
		t->max_folio_bytes = c->max_folio_bytes;
}

/*
 * Several files of one filesystem: expected figures per file, keyed by
 * inode number, and totals (the same fields, summed: the block size is
 * common).
 */
static void print_many(const char *scenario, struct expect *f, size_t n)
{
	struct expect t = f[0];
	size_t i;

	memset(&t.calc, 0, sizeof(t.calc));
	memset(&t.meas, 0, sizeof(t.meas));
	t.app_bytes = t.write_calls = t.thrown_bytes = t.thrown_calls = 0;
	t.layout_err = 0;
	for (i = 0; i < n; i++) {
		t.app_bytes += f[i].app_bytes;
		t.write_calls += f[i].write_calls;
		t.thrown_bytes += f[i].thrown_bytes;
		t.thrown_calls += f[i].thrown_calls;
		add_counters(&t.calc, &f[i].calc);
		add_counters(&t.meas, &f[i].meas);
		if (!t.layout_err)
			t.layout_err = f[i].layout_err;
	}
	printf("{\"scenario\":\"%s\",\"files\":{", scenario);
	for (i = 0; i < n; i++) {
		printf("%s\"%" PRIu64 "\":{", i ? "," : "", (uint64_t)f[i].ino);
		print_file(&f[i]);
		printf("}");
	}
	printf("},\"totals\":{");
	print_counters(&t, &t.calc, true);
	if (!t.layout_err) {
		printf(",\"layout\":{\"probe\":\"kpageflags\",\"expect\":{");
		print_counters(&t, &t.meas, true);
		printf("}}");
	}
	printf("}}\n");
}

/*
 * twofiles: interleaved scattered writes, 10 into A (100 bytes every 20000)
 * and 17 into B (3000 bytes every 12345 from 4096: crossing blocks and
 * pages), fsync both.
 */
#define TWO_NA 10
#define TWO_NB 17

static int cmd_twofiles(int argc, char **argv)
{
	struct byte_range ra[TWO_NA], rb[TWO_NB];
	char *buf = data_buf(3000);
	struct expect f[2];
	uint64_t i;

	if (argc != 3)
		usage();
	open_file(&f[0], argv[1], O_CREAT);
	open_file(&f[1], argv[2], O_CREAT);
	if (f[0].dev != f[1].dev || f[0].ino == f[1].ino)
		die("twofiles needs two different files on one filesystem");
	for (i = 0; i < TWO_NB; i++) {
		if (i < TWO_NA) {
			ra[i] = (struct byte_range){ i * 20000, 100 };
			do_pwrite(&f[0], buf, ra[i].len, ra[i].off);
		}
		rb[i] = (struct byte_range){ 4096 + i * 12345, 3000 };
		do_pwrite(&f[1], buf, rb[i].len, rb[i].off);
	}
	epoch_done(&f[0], ra, TWO_NA, false);
	epoch_done(&f[1], rb, TWO_NB, false);
	do_fsync(&f[0]);
	do_fsync(&f[1]);
	print_many("twofiles", f, 2);
	finish(&f[0]);
	finish(&f[1]);
	free(buf);
	return 0;
}

/*
 * threads: THREADS writer threads write FILES files at once (each already
 * laid out, at least 1 MiB, order-0) while two more threads fsync them in
 * a loop, half of the files each: writes and two writeback threads
 * contend for the tool's page table and context slots.  Every write of
 * thread t into file f is its own page (slot i * THREADS + t, page
 * THREADS_PAGE0 + slot), so each page is dirtied once and written back
 * exactly once, whenever the syncers get to it; the last fsyncs, after the
 * writers are done, find the rest.  Write k of a thread is 1 + (k * 37 +
 * t * 211 + f * 13) % 1500 bytes at (k * 97 + f * 31) % 2500 within its
 * page: lengths and offsets vary, blocks crossed or not.  The expected
 * figures are those of one epoch per file (the union of its writes): the
 * per-page split makes the epoch boundaries irrelevant.
 */
#define THREADS_MAX	16
#define FILES_MAX	16
#define THREADS_WRITES	48	/* per thread and file */
#define THREADS_PAGE0	1

struct threads_ctx {
	struct expect *f;
	size_t nfiles, nthreads, t;
	volatile int *writers_left;
	int err;
};

static struct byte_range thread_write(size_t f, size_t t, size_t k,
				      size_t nthreads)
{
	uint64_t slot = k * nthreads + t;

	return (struct byte_range){
		(THREADS_PAGE0 + slot) * page_size + (k * 97 + f * 31) % 2500,
		1 + (k * 37 + t * 211 + f * 13) % 1500,
	};
}

static void *writer_main(void *arg)
{
	struct threads_ctx *c = arg;
	char *buf = data_buf(1500);
	size_t k, f;

	for (k = 0; k < THREADS_WRITES; k++) {
		for (f = 0; f < c->nfiles; f++) {
			struct byte_range r = thread_write(f, c->t, k, c->nthreads);
			ssize_t n = pwrite(c->f[f].fd, buf, r.len, r.off);

			if (n != (ssize_t)r.len) {
				c->err = n < 0 ? errno : EIO;
				goto out;
			}
		}
	}
out:
	__sync_fetch_and_sub(c->writers_left, 1);
	free(buf);
	return NULL;
}

static void *syncer_main(void *arg)
{
	struct threads_ctx *c = arg;
	size_t f;

	do {
		for (f = c->t; f < c->nfiles; f += 2) {
			if (fsync(c->f[f].fd)) {
				c->err = errno;
				return NULL;
			}
		}
	} while (*c->writers_left > 0);
	for (f = c->t; f < c->nfiles; f += 2)	/* what the writers left */
		if (fsync(c->f[f].fd))
			c->err = errno;
	return NULL;
}

static int cmd_threads(int argc, char **argv)
{
	static struct expect f[FILES_MAX];
	struct threads_ctx wc[THREADS_MAX], sc[2];
	pthread_t wt[THREADS_MAX], st[2];
	struct byte_range *r;
	volatile int writers_left;
	size_t nthreads, nfiles, i, t, k;

	if (argc < 4 || strcmp(argv[1], "--threads"))
		usage();
	nthreads = parse_size(argv[2]);
	nfiles = argc - 3;
	if (!nthreads || nthreads > THREADS_MAX || nfiles > FILES_MAX)
		usage();
	for (i = 0; i < nfiles; i++) {
		open_file(&f[i], argv[3 + i], 0);
		if (file_size(&f[i]) < (THREADS_PAGE0 + THREADS_WRITES * nthreads) *
		    (uint64_t)page_size)
			die("%s: too small for %zu threads", argv[3 + i], nthreads);
		if (i && f[i].dev != f[0].dev)
			die("threads: the files must share one filesystem");
	}
	writers_left = nthreads;
	for (t = 0; t < 2; t++) {
		sc[t] = (struct threads_ctx){ f, nfiles, nthreads, t, &writers_left, 0 };
		if (pthread_create(&st[t], NULL, syncer_main, &sc[t]))
			die("pthread_create failed");
	}
	for (t = 0; t < nthreads; t++) {
		wc[t] = (struct threads_ctx){ f, nfiles, nthreads, t, &writers_left, 0 };
		if (pthread_create(&wt[t], NULL, writer_main, &wc[t]))
			die("pthread_create failed");
	}
	for (t = 0; t < nthreads; t++) {
		pthread_join(wt[t], NULL);
		if (wc[t].err)
			die("writer %zu: %s", t, strerror(wc[t].err));
	}
	for (t = 0; t < 2; t++) {
		pthread_join(st[t], NULL);
		if (sc[t].err)
			die("syncer %zu: %s", t, strerror(sc[t].err));
	}
	/*
	 * The expectations, per file: its writes as one epoch.  The layout
	 * probe runs after writeback here (order-0 files stay order-0).
	 */
	r = calloc(nthreads * THREADS_WRITES, sizeof(*r));
	if (!r)
		die("out of memory");
	for (i = 0; i < nfiles; i++) {
		size_t n = 0;

		for (t = 0; t < nthreads; t++) {
			for (k = 0; k < THREADS_WRITES; k++) {
				r[n] = thread_write(i, t, k, nthreads);
				f[i].app_bytes += r[n].len;
				f[i].write_calls++;
				n++;
			}
		}
		epoch_done(&f[i], r, n, false);
	}
	print_many("threads", f, nfiles);
	for (i = 0; i < nfiles; i++)
		finish(&f[i]);
	free(r);
	return 0;
}

/*
 * shortcopy PATH: one pwrite(2) of 2 pages at page 1 from a buffer whose
 * second page is not mapped: the kernel copies the first page and returns
 * a short count (write(2) stops at the fault).  Then one byte into the
 * second page, which the first write never reached.  Expected: what was
 * written, one page and one byte, as the return values say.
 */
static int cmd_shortcopy(int argc, char **argv)
{
	struct byte_range r = { page_size, 0 }, r2 = { 0, 1 };
	struct expect e;
	char *buf;
	ssize_t n;

	if (argc != 2)
		usage();
	buf = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || munmap(buf + page_size, page_size))
		die("mmap: %s", strerror(errno));
	memset(buf, 0x5a, page_size);
	open_file(&e, argv[1], 0);
	n = pwrite(e.fd, buf, 2 * page_size, r.off);
	if (n != page_size)
		die("pwrite %s: expected a short write of %ld, got %zd (%s)",
		    argv[1], page_size, n, n < 0 ? strerror(errno) : "");
	e.write_calls = 1;
	e.app_bytes = n;
	r.len = n;
	epoch_done(&e, &r, 1, false);
	do_fsync(&e);
	/* the page the copy never reached, written now: only this byte */
	r2.off = 2 * page_size + 10;
	write_epoch(&e, buf, &r2);
	print_one("shortcopy", &e);
	finish(&e);
	munmap(buf, page_size);
	return 0;
}

/*
 * manyfiles DIR N LEN: N new files DIR/f<i> (O_EXCL), LEN bytes (at most
 * one page) written at offset 0 of each, then one syncfs.  Each file is
 * one folio, written back once: the totals are N folios, N write calls,
 * N * LEN bytes and ceil(LEN / block size) dirty and submitted blocks per
 * file.  For the tool's per-file map limits.
 */
static int cmd_manyfiles(int argc, char **argv)
{
	uint64_t n, len, i, bs = 0, blocks;
	char *buf, path[4096];
	int fd, dfd;

	if (argc != 4)
		usage();
	n = parse_size(argv[2]);
	len = parse_size(argv[3]);
	if (!len || len > (uint64_t)page_size)
		usage();
	buf = data_buf(len);
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die("open %s: %s", argv[1], strerror(errno));
	bs = fs_block_size(dfd, argv[1]);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%06" PRIu64, argv[1], i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		if (pwrite(fd, buf, len, 0) != (ssize_t)len)
			die("pwrite %s: %s", path, strerror(errno));
		if (close(fd))
			die("close %s: %s", path, strerror(errno));
	}
	if (syncfs(dfd))
		die("syncfs %s: %s", argv[1], strerror(errno));
	close(dfd);
	blocks = (len + bs - 1) / bs;
	printf("{\"scenario\":\"manyfiles\",\"files\":%" PRIu64 ",\"app_bytes\":%" PRIu64
	       ",\"write_calls\":%" PRIu64 ",\"folios\":%" PRIu64
	       ",\"dirty_blocks\":%" PRIu64 ",\"submitted_blocks\":%" PRIu64
	       ",\"submitted_bytes\":%" PRIu64 "}\n", n, n * len, n, n,
	       n * blocks, n * blocks, n * blocks * bs);
	free(buf);
	return 0;
}

/*
 * soakfiles: N new files of LEN bytes (<= one page) spread over D
 * directories (DIR/d0 .. DIR/d{D-1}, file i is d{i % D}/f{i}, so the
 * highest i are the newest), each made with openat, one write(2) and
 * close; a syncfs every S files (0: only at the end) and at the end.
 * Prints the workload's own figures: files, app_bytes, write_calls, and
 * the seconds it took. For the exporter's soak (tests/exporter/soak.sh).
 */
static int cmd_soakfiles(int argc, char **argv)
{
	uint64_t n, len, dirs = 16, sync_every = 0, i;
	struct timespec t0, t1;
	char *buf, name[64];
	int *dfd, top, fd;

	if (argc < 4)
		usage();
	n = parse_size(argv[2]);
	len = parse_size(argv[3]);
	for (int a = 4; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--dirs"))
			dirs = parse_size(argv[a + 1]);
		else if (!strcmp(argv[a], "--sync-every"))
			sync_every = parse_size(argv[a + 1]);
		else
			usage();
	}
	if (argc % 2 || !len || len > (uint64_t)page_size || !dirs || dirs > 4096)
		usage();
	buf = data_buf(len);
	dfd = calloc(dirs, sizeof(*dfd));
	top = open(argv[1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (!dfd || top < 0)
		die("open %s: %s", argv[1], strerror(errno));
	for (i = 0; i < dirs; i++) {
		snprintf(name, sizeof(name), "d%" PRIu64, i);
		if (mkdirat(top, name, 0755))
			die("mkdir %s/%s: %s", argv[1], name, strerror(errno));
		dfd[i] = openat(top, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd[i] < 0)
			die("open %s/%s: %s", argv[1], name, strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%" PRIu64, i);
		fd = openat(dfd[i % dirs], name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s/d%" PRIu64 "/%s: %s", argv[1], i % dirs, name,
			    strerror(errno));
		if (write(fd, buf, len) != (ssize_t)len)
			die("write %s: %s", name, strerror(errno));
		if (close(fd))
			die("close %s: %s", name, strerror(errno));
		if (sync_every && (i + 1) % sync_every == 0 && syncfs(top))
			die("syncfs %s: %s", argv[1], strerror(errno));
	}
	if (syncfs(top))
		die("syncfs %s: %s", argv[1], strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < dirs; i++)
		close(dfd[i]);
	close(top);
	printf("{\"scenario\":\"soakfiles\",\"files\":%" PRIu64 ",\"app_bytes\":%" PRIu64
	       ",\"write_calls\":%" PRIu64 ",\"dirs\":%" PRIu64 ",\"seconds\":%.3f}\n",
	       n, n * len, n, dirs,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	free(dfd);
	free(buf);
	return 0;
}

/* layout: print the measured folio layout of a cached file (diagnostic). */
static int cmd_layout(int argc, char **argv)
{
	struct expect e;
	size_t i;

	if (argc != 2)
		usage();
	open_file(&e, argv[1], 0);
	probe_layout(&e);
	printf("{\"ino\":%" PRIu64 ",\"file_bytes\":%" PRIu64 ",\"layout\":",
	       (uint64_t)e.ino, file_size(&e));
	print_layout(&e, false);
	printf(",\"folios\":[");
	for (i = 0; !e.layout_err && i < e.layout.nr; i++)
		printf("%s[%" PRIu64 ",%" PRIu64 "]", i ? "," : "",
		       e.layout.folios[i].off, e.layout.folios[i].len);
	printf("]}\n");
	finish(&e);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "prep", cmd_prep }, { "scatter", cmd_scatter },
		{ "span", cmd_span }, { "mmap", cmd_mmap }, { "eof", cmd_eof },
		{ "large", cmd_large }, { "twofiles", cmd_twofiles },
		{ "layout", cmd_layout }, { "truncate", cmd_truncate },
		{ "mmap_eof", cmd_mmap_eof }, { "threads", cmd_threads },
		{ "manyfiles", cmd_manyfiles }, { "shortcopy", cmd_shortcopy },
		{ "soakfiles", cmd_soakfiles },
	};
	size_t i;

	page_size = sysconf(_SC_PAGESIZE);
	if (page_size <= 0)
		die("sysconf(_SC_PAGESIZE) failed");
	if (argc == 2 && !strcmp(argv[1], "selftest"))
		return expect_selftest();
	if (argc < 2)
		usage();
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	}
	usage();
	return 2;
}
