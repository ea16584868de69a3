// SPDX-License-Identifier: GPL-2.0
/*
 * Per writer cgroup on /metrics (--collector.cgroup, docs/metrics.md):
 * the top N cgroups by submitted bytes since attach (then application
 * bytes, then id) get series of their own, labelled with the cgroup's
 * path under the v2 root and the names read from it (unit, container,
 * pod); everything else is one series, cgroup="other": the filesystems'
 * totals minus the cgroups shown. So the number of series is fixed (N + 1
 * per family) however many cgroups write, and the series of a family
 * always add up to its filesystems' totals exactly: what other cgroups,
 * cgroups evicted from the kernel's map and files written by no writer
 * seen did is in "other" or "unknown", never lost.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "live/plan_measures.h"
#include "model/cgroup_names.h"
#include "output/prom.h"
#include "output/report.h"

#define NS	"iomapdirty_"

/* The counters each cgroup gets: fields of struct wa_stats, by name. */
static const char *const cgroup_fields[] = {
	"app_bytes", "write_calls", "dirty_blocks", "submitted_blocks", "submitted_bytes",
	"unseen_submitted_blocks", "folios",
};
#define NR_CGROUP_FIELDS	(sizeof(cgroup_fields) / sizeof(cgroup_fields[0]))

static const struct wa_field *field_named(const char *name)
{
	for (int i = 0; i < NR_WA_STATS_FIELDS; i++)
		if (!strcmp(wa_stats_fields[i].name, name))
			return &wa_stats_fields[i];
	return NULL;
}

static int cgroup_rank_cmp(const void *a, const void *b)
{
	const struct cgroup_entry *x = *(const struct cgroup_entry *const *)a;
	const struct cgroup_entry *y = *(const struct cgroup_entry *const *)b;

	if (x->s.submitted_bytes != y->s.submitted_bytes)
		return x->s.submitted_bytes > y->s.submitted_bytes ? -1 : 1;
	if (x->s.app_bytes != y->s.app_bytes)
		return x->s.app_bytes > y->s.app_bytes ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* cgroup, cgroup_id, unit, container, pod_uid of one cgroup shown */
static char *cgroup_labels(const struct cgroup_entry *e, const struct prom_ctx *c)
{
	char path[512] = "", id[32];
	struct cgroup_names n;
	struct textbuf tb;

	if (!e->id)
		snprintf(path, sizeof(path), "unknown");
	else if (!c->host->cgroup_path(e->id, path, sizeof(path)))
		path[0] = '\0';		/* removed since, or outside the v2 mount seen */
	cgroup_names_parse(path[0] == '/' ? path : "", &n);
	snprintf(id, sizeof(id), "%" PRIu64, e->id);
	textbuf_init(&tb, 4096);
	prom_label(&tb, true, "cgroup", path);
	prom_label(&tb, false, "cgroup_id", e->id ? id : "");
	prom_label(&tb, false, "unit", n.unit);
	prom_label(&tb, false, "container", n.container);
	prom_label(&tb, false, "pod_uid", n.pod_uid);
	if (tb.failed) {
		textbuf_free(&tb);
		return NULL;
	}
	return tb.buf;
}

static const char *const other_labels =
	"cgroup=\"other\",cgroup_id=\"\",unit=\"\",container=\"\",pod_uid=\"\"";

/* totals minus the cgroups shown; 0 where they hold more (never: see engine.h) */
static uint64_t other_value(const struct wa_stats *t, const struct cgroup_entry **shown,
			    int n, const struct wa_field *f)
{
	uint64_t sum = 0, total = wa_field_get(t, f);

	for (int i = 0; i < n; i++)
		sum += wa_field_get(&shown[i]->s, f);
	return total > sum ? total - sum : 0;
}

static void render_families(struct textbuf *tb, const struct snapshot *s,
			    const struct prom_ctx *c, const struct cgroup_entry **shown,
			    char **labels, int n)
{
	const struct measures m = plan_measures(c->plan);
	struct wa_stats t;

	snapshot_totals(s, &t);
	for (size_t k = 0; k < NR_CGROUP_FIELDS; k++) {
		const struct wa_field *f = field_named(cgroup_fields[k]);
		char name[64], help[256];

		if (!f || !measures_field(&m, f))
			continue;	/* absent, as the filesystem's */
		snprintf(name, sizeof(name), "cgroup_%s_total", f->name);
		snprintf(help, sizeof(help), "%s_total of the files whose first writer since "
			 "attach is this cgroup (top --collector.cgroup.top by submitted bytes; "
			 "cgroup=\"other\": the rest of the filesystems' totals)", f->name);
		prom_family(tb, name, "counter", help);
		for (int i = 0; i < n; i++)
			textbuf_printf(tb, NS "%s{%s} %" PRIu64 "\n", name, labels[i],
				       wa_field_get(&shown[i]->s, f));
		textbuf_printf(tb, NS "%s{%s} %" PRIu64 "\n", name, other_labels,
			       other_value(&t, shown, n, f));
	}
}

void prom_render_cgroups(struct textbuf *tb, const struct snapshot *s, const struct prom_ctx *c)
{
	int n = c->ncgroups < c->cgroup_top ? c->ncgroups : c->cgroup_top;
	const struct cgroup_entry **order;
	char **labels;

	if (c->cgroup_top <= 0)
		return;
	order = calloc(c->ncgroups ? c->ncgroups : 1, sizeof(*order));
	labels = calloc(n ? n : 1, sizeof(*labels));
	if (!order || !labels) {
		tb->failed = true;
		goto out;
	}
	for (int i = 0; i < c->ncgroups; i++)
		order[i] = &c->cgroups[i];
	qsort(order, c->ncgroups, sizeof(*order), cgroup_rank_cmp);
	for (int i = 0; i < n; i++)
		if (!(labels[i] = cgroup_labels(order[i], c))) {
			tb->failed = true;
			goto out;
		}
	render_families(tb, s, c, order, labels, n);
	prom_family(tb, "cgroups_folded", "gauge", "Writer cgroups in the kernel's map summed "
		    "into cgroup=\"other\" at this scrape (beyond --collector.cgroup.top)");
	textbuf_printf(tb, NS "cgroups_folded %d\n", c->ncgroups - n);
	prom_family(tb, "cgroups_shown_max", "gauge", "--collector.cgroup.top: writer cgroups "
		    "with series of their own, at most");
	textbuf_printf(tb, NS "cgroups_shown_max %d\n", c->cgroup_top);
out:
	for (int i = 0; labels && i < n; i++)
		free(labels[i]);
	free(labels);
	free(order);
}
