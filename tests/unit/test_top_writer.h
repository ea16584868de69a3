/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_top.c, continued: the COMM and CGROUP cells (top_fmt_writer) and
 * `top --group` (top_group.c). Expected sums are written out by hand.
 */
#include "output/top_group.h"

static struct top_row wrow(const char *path, uint64_t cg, const char *cgpath,
			   const char *comm, uint64_t app)
{
	struct top_row r = mkrow(path, 7, app);

	r.writer_known = true;
	r.writer.cgroup_id = cg;
	r.writer.cgroup_known = cgpath != NULL;
	snprintf(r.writer.cgroup, sizeof(r.writer.cgroup), "%s", cgpath ? cgpath : "");
	cgroup_names_parse(r.writer.cgroup_known ? r.writer.cgroup : "", &r.writer.names);
	snprintf(r.writer.comm, sizeof(r.writer.comm), "%s", comm);
	r.s.app_bytes = app;
	r.s.dirty_blocks = app / 1000;
	r.s.submitted_blocks = app / 500;
	return r;
}

static void test_writer_cells(void)
{
	struct top_row r = wrow("/m/a", 5, "/wt/a", "dd", 1000);
	char buf[128];

	top_fmt_cell(&r, TOP_COL_COMM, false, buf, sizeof(buf));
	CHECK_STR(buf, "dd", "COMM: the command");
	top_fmt_cell(&r, TOP_COL_CGROUP, false, buf, sizeof(buf));
	CHECK_STR(buf, "/wt/a", "CGROUP: the path relative to the v2 root");
	r = wrow("/m/a", 5, "/system.slice/nginx.service", "ng\x1b[2Jx", 1000);
	top_fmt_cell(&r, TOP_COL_CGROUP, false, buf, sizeof(buf));
	CHECK_STR(buf, "nginx.service", "CGROUP: the systemd unit");
	top_fmt_cell(&r, TOP_COL_COMM, false, buf, sizeof(buf));
	CHECK(!strchr(buf, '\x1b'), "COMM: an escape never reaches the terminal ('%s')", buf);
	r = wrow("/m/a", 5, "/system.slice/docker-0123456789abcdef0123456789abcdef"
		 "0123456789abcdef0123456789abcdef.scope", "sh", 1);
	top_fmt_cell(&r, TOP_COL_CGROUP, false, buf, sizeof(buf));
	CHECK_STR(buf, "docker:0123456789ab", "CGROUP: the container");
	r.writer.several = true;
	top_fmt_cell(&r, TOP_COL_CGROUP, false, buf, sizeof(buf));
	CHECK_STR(buf, "several", "CGROUP: several cgroups wrote it");
	top_fmt_writer(&r, TOP_COL_CGROUP, true, buf, sizeof(buf));
	CHECK_STR(buf, "docker:0123456789ab", "CGROUP by id: the first writer's");
	r = wrow("/m/a", 0, NULL, "dd", 1);
	top_fmt_cell(&r, TOP_COL_CGROUP, false, buf, sizeof(buf));
	CHECK_STR(buf, "?", "CGROUP: not known");
	r.writer_known = false;
	top_fmt_cell(&r, TOP_COL_COMM, false, buf, sizeof(buf));
	CHECK_STR(buf, "?", "COMM: no writer known");
}

static void test_groups(void)
{
	struct top_row r[5] = {
		wrow("/m/a1", 5, "/wt/a", "dd", 1000),
		wrow("/m/b1", 6, "/wt/b", "dd", 7000),
		wrow("/m/a2", 5, "/wt/a", "fio", 3000),
		wrow("/m/x", 0, NULL, "cp", 500),
		wrow("/m/a3", 5, "/wt/a", "dd", 2000),
	};
	struct top_row *g;
	int n;

	r[2].writer.several = true;
	r[3].writer_known = false;
	CHECK(!top_group_build(r, 5, TOP_GROUP_CGROUP, &g, &n), "group by cgroup");
	top_sort(g, n, TOP_COL_APP, false);
	CHECK_U64(n, 3, "three groups: /wt/a, /wt/b, unknown");
	CHECK_STR(order(g, n), "b,a,?", "groups sorted by app bytes");
	CHECK_U64(g[1].s.app_bytes, 6000, "/wt/a: app bytes summed");
	CHECK_U64(g[1].s.dirty_blocks, 6, "/wt/a: dirty blocks summed");
	CHECK_U64(g[1].s.submitted_blocks, 12, "/wt/a: submitted blocks summed");
	CHECK_U64(g[1].nfiles, 3, "/wt/a: three files");
	CHECK_U64(g[1].nseveral, 1, "/wt/a: one also written by another cgroup");
	CHECK_U64(g[0].s.app_bytes, 7000, "/wt/b: its one file");
	CHECK_U64(g[2].s.app_bytes, 500, "?: the file with no writer known");
	free(g);
	CHECK(!top_group_build(r, 5, TOP_GROUP_COMM, &g, &n), "group by comm");
	top_sort(g, n, TOP_COL_PATH, false);
	CHECK_STR(order(g, n), "?,dd,fio", "comm groups by name");
	CHECK_U64(g[1].s.app_bytes, 10000, "dd: app bytes of three files, two cgroups");
	free(g);
	CHECK(!top_group_build(r, 0, TOP_GROUP_CGROUP, &g, &n) && n == 0, "no files: no groups");
	free(g);
	CHECK_U64(top_group_parse("CGROUP"), TOP_GROUP_CGROUP, "parse cgroup");
	CHECK(top_group_parse("pid") == -1, "parse pid: -1");
}
