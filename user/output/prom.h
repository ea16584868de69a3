/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots in the Prometheus text exposition format (version 0.0.4):
 * what `iomapdirty exporter` serves on /metrics (docs/metrics.md).
 * Pure rendering into a bounded memory buffer; no I/O but the lookups
 * the caller hands in, so the unit tests render fixed snapshots.
 */
#ifndef IOMAPDIRTY_PROM_H
#define IOMAPDIRTY_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model/accounting.h"
#include "model/files.h"
#include "live/plan.h"
#include "model/snapshot.h"

#define PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/* A growable text buffer with a hard size limit (bounded memory). */
struct textbuf {
	char *buf;
	size_t len, cap, limit;
	bool failed;		/* out of memory or over the limit */
};

void textbuf_init(struct textbuf *tb, size_t limit);
void textbuf_reset(struct textbuf *tb);
void textbuf_free(struct textbuf *tb);
void textbuf_printf(struct textbuf *tb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct prom_ctx {
	const struct plan *plan;
	const char *version;		/* build_info labels */
	const char *libbpf_version;
	const char *httpd_version;
	const char *kernel_release;
	uint32_t max_pages;
	double attach_unix_seconds;
	uint64_t scrapes;		/* /metrics responses so far, this one too */
	uint64_t scrape_errors;		/* responses that failed to read the maps */
	uint64_t scrape_start_ns;	/* CLOCK_MONOTONIC: the duration's start */
	bool block_layer;		/* the block_bio hook is attached */
	int top_files;			/* per-file series for the top N, 0: none */
	/* filesystems' mountpoint and fstype labels, cgroups' paths */
	const struct host_lookup *host;
	/* a file's path for the top-N view; NULL: "[ino N]" */
	void (*file_path)(void *data, const struct file_key *key, char *buf, size_t len);
	void *file_path_data;
	/*
	 * --collector.cgroup: the writer cgroups' sums, read before s, and
	 * how many get series of their own (0: no per-cgroup series)
	 */
	const struct cgroup_entry *cgroups;
	int ncgroups;
	int cgroup_top;
};

/* Renders s (cumulative since attach); false if the buffer failed. */
bool prom_render(struct textbuf *tb, const struct snapshot *s, const struct prom_ctx *c);

/*
 * A label value, escaped for the exposition format: backslash, double
 * quote and newline as \\, \" and \n; bytes that are not printable UTF-8
 * (control characters, invalid sequences) as the three-digit octal escape
 * /proc/self/mountinfo uses (\ooo, so "\\ooo" in the text), which keeps
 * them visible and the output valid UTF-8. Returns the length needed.
 */
size_t prom_escape_label(const char *s, char *buf, size_t len);

/* For the renderers of prom*.c: label="value" escaped, and a family's HELP and TYPE. */
void prom_label(struct textbuf *tb, bool first, const char *name, const char *value);
void prom_family(struct textbuf *tb, const char *name, const char *type, const char *help);
/* The per-cgroup families (prom_cgroups.c). */
void prom_render_cgroups(struct textbuf *tb, const struct snapshot *s, const struct prom_ctx *c);

#endif
