/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `top --group cgroup|comm`: one row per writer, summing the figures of
 * the files it is the writer of (a file's writer: its first writer since
 * attach, engine_file_writer(); a file several cgroups wrote is filed
 * under its first writer's cgroup and counted in nseveral). Files with no
 * writer known make the group "?". Group rows are top_rows: path holds the
 * label, s the sums, nfiles the files; they sort with top_sort() and their
 * ratios are computed from the sums as a file's are.
 */
#ifndef IOMAPDIRTY_TOP_GROUP_H
#define IOMAPDIRTY_TOP_GROUP_H

#include "output/top_view.h"

enum top_group_by { TOP_GROUP_NONE, TOP_GROUP_CGROUP, TOP_GROUP_COMM };

/* "cgroup" / "comm" -> mode; -1 when neither */
int top_group_parse(const char *name);
extern const char *const top_group_names[];

/* *out (free() it, *n rows) from rows[0..nrows); 0 or -ENOMEM. */
int top_group_build(const struct top_row *rows, int nrows, enum top_group_by by,
		    struct top_row **out, int *n);

/*
 * Sorts the view's rows and, when v->group_by, (re)builds its groups,
 * sorted the same way; 0 or -ENOMEM.
 */
int top_view_order(struct top_view *v, enum top_col sort, bool reverse);

/* Batch text: the groups' table. */
void top_print_groups_text(FILE *out, enum top_group_by by, const struct top_row *g,
			   int n);
/* JSON: "groups": [...] of the view's groups. */
struct json;
struct plan;
void top_groups_json(struct json *j, enum top_group_by by, const struct top_row *g, int n,
		     const struct plan *p);

#endif
