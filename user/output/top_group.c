// SPDX-License-Identifier: GPL-2.0
/* `top --group`: rows per writer cgroup or command, see top_group.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "output/json.h"
#include "output/report.h"
#include "model/snapshot.h"
#include "output/top_group.h"

const char *const top_group_names[] = {
	[TOP_GROUP_NONE] = "none", [TOP_GROUP_CGROUP] = "cgroup", [TOP_GROUP_COMM] = "comm",
};

int top_group_parse(const char *name)
{
	if (name && !strcasecmp(name, "cgroup"))
		return TOP_GROUP_CGROUP;
	if (name && !strcasecmp(name, "comm"))
		return TOP_GROUP_COMM;
	return -1;
}

/* The group's label: what the COMM or CGROUP cell of its files says. */
static void group_label(const struct top_row *r, enum top_group_by by, char *buf,
			size_t len)
{
	top_fmt_writer(r, by == TOP_GROUP_COMM ? TOP_COL_COMM : TOP_COL_CGROUP, true,
		       buf, len);
}

/* Whether r belongs to group g: same cgroup id, or same command. */
static bool same_group(const struct top_row *g, const struct top_row *r,
		       enum top_group_by by, const char *label)
{
	uint64_t gid = g->writer_known ? g->writer.cgroup_id : 0;
	uint64_t rid = r->writer_known ? r->writer.cgroup_id : 0;

	if (by == TOP_GROUP_CGROUP)
		return gid == rid;
	return !strcmp(g->path, label);
}

static void group_add(struct top_row *g, const struct top_row *r)
{
	stats_add_into(&g->s, &r->s);
	g->nfiles++;
	g->nseveral += r->writer_known && r->writer.several;
	g->no_round |= r->no_round;
	g->partial |= r->partial;
}

int top_group_build(const struct top_row *rows, int nrows, enum top_group_by by,
		    struct top_row **out, int *n)
{
	struct top_row *g = calloc(nrows ? nrows : 1, sizeof(*g));
	char label[TOP_PATH_LEN];
	int ng = 0;

	if (!g)
		return -ENOMEM;
	for (int i = 0; i < nrows; i++) {
		const struct top_row *r = &rows[i];
		int k;

		group_label(r, by, label, sizeof(label));
		for (k = 0; k < ng && !same_group(&g[k], r, by, label); k++)
			;
		if (k == ng) {
			/* the group is named and described by its first file's writer */
			g[k].writer_known = r->writer_known;
			g[k].writer = r->writer;
			g[k].writer.several = false;
			g[k].state = PATH_OK;
			snprintf(g[k].path, sizeof(g[k].path), "%s", label);
			ng++;
		}
		group_add(&g[k], r);
	}
	*out = g;
	*n = ng;
	return 0;
}

int top_view_order(struct top_view *v, enum top_col sort, bool reverse)
{
	top_sort(v->rows, v->nrows, sort, reverse);
	free(v->groups);
	v->groups = NULL;
	v->ngroups = 0;
	if (!v->group_by)
		return 0;
	if (top_group_build(v->rows, v->nrows, v->group_by, &v->groups, &v->ngroups))
		return -ENOMEM;
	top_sort(v->groups, v->ngroups, sort, reverse);
	return 0;
}

static const enum top_col group_cols[] = {
	TOP_COL_APP, TOP_COL_DIRTY, TOP_COL_WB, TOP_COL_FOLIOS, TOP_COL_ROUND,
	TOP_COL_AMP, TOP_COL_MAXFOLIO,
};
#define NR_GROUP_COLS	(int)(sizeof(group_cols) / sizeof(group_cols[0]))

/* Widths: the label's (at most TOP_NAME_MAX), FILES, then each number column. */
static void group_widths(const struct top_row *g, int n, int *w)
{
	char cell[TOP_PATH_LEN];

	w[0] = 5;	/* "GROUP" */
	w[1] = 5;	/* "FILES" */
	for (int c = 0; c < NR_GROUP_COLS; c++)
		w[c + 2] = (int)strlen(top_cols[group_cols[c]].title);
	for (int i = 0; i < n; i++) {
		int l = (int)strlen(g[i].path);

		w[0] = l > w[0] ? (l > TOP_NAME_MAX ? TOP_NAME_MAX : l) : w[0];
		l = snprintf(cell, sizeof(cell), "%d", g[i].nfiles);
		w[1] = l > w[1] ? l : w[1];
		for (int c = 0; c < NR_GROUP_COLS; c++) {
			top_fmt_cell(&g[i], group_cols[c], false, cell, sizeof(cell));
			l = (int)strlen(cell);
			w[c + 2] = l > w[c + 2] ? l : w[c + 2];
		}
	}
}

void top_print_groups_text(FILE *out, enum top_group_by by, const struct top_row *g,
			   int n)
{
	int w[NR_GROUP_COLS + 2];
	char cell[TOP_PATH_LEN], fit[TOP_PATH_LEN];

	group_widths(g, n, w);
	fprintf(out, "%d writer %s%s\n%-*s %*s", n, top_group_names[by],
		n == 1 ? "" : "s", w[0], "GROUP", w[1], "FILES");
	for (int c = 0; c < NR_GROUP_COLS; c++)
		fprintf(out, " %*s", w[c + 2], top_cols[group_cols[c]].title);
	fputc('\n', out);
	for (int i = 0; i < n; i++) {
		top_fit_left(g[i].path, w[0], fit, sizeof(fit));
		fprintf(out, "%-*s %*d", w[0], fit, w[1], g[i].nfiles);
		for (int c = 0; c < NR_GROUP_COLS; c++) {
			top_fmt_cell(&g[i], group_cols[c], false, cell, sizeof(cell));
			fprintf(out, " %*s", w[c + 2], cell);
		}
		fputc('\n', out);
	}
}

void top_groups_json(struct json *j, enum top_group_by by, const struct top_row *g, int n,
		     const struct plan *p)
{
	json_kv_string(j, "group", top_group_names[by]);
	json_key(j, "groups");
	json_array_begin(j);
	for (int i = 0; i < n; i++) {
		json_object_begin(j);
		json_kv_string(j, "label", g[i].path);
		if (g[i].writer_known)
			writer_json(j, &g[i].writer);
		json_kv_u64(j, "nfiles", g[i].nfiles);
		json_kv_u64(j, "nfiles_several_cgroups", g[i].nseveral);
		json_key(j, "stats");
		stats_write_json(j, &g[i].s, p);
		json_object_end(j);
	}
	json_array_end(j);
}
