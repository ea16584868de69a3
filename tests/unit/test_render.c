// SPDX-License-Identifier: GPL-2.0
/*
 * Renderers name devices only as their caller's struct host_lookup says
 * (model/files.h): the text and JSON of a reading, the NOT WATCHED lines
 * and top's batch reports, given made-up devices no host has, must show
 * the made-up mount points and types, and "(not mounted)" or null where
 * the lookup knows nothing. A renderer that read the mount table itself
 * would show nothing for them.
 */
#include <stdlib.h>
#include <string.h>
#include "output/json.h"
#include "output/report.h"
#include "output/top_view.h"
#include "output/unwatched.h"
#include "unit.h"

/* majors no host gives out: the lookup below is the only one that knows them */
#define DEV_XFS		((4000u << 20) | 3)	/* the filesystem watched */
#define DEV_EXT4	((4000u << 20) | 4)	/* written, not watched */
#define DEV_GONE	((4000u << 20) | 5)	/* not watched, not mounted */

static int fs_asked;

static bool fake_fs(uint32_t dev, struct fsinfo *fi)
{
	fs_asked++;
	if (dev != DEV_XFS && dev != DEV_EXT4)
		return false;
	snprintf(fi->fstype, sizeof(fi->fstype), "%s", dev == DEV_XFS ? "fakexfs" : "ext4");
	snprintf(fi->mount, sizeof(fi->mount), "%s",
		 dev == DEV_XFS ? "/fake/mnt" : "/fake/other");
	fi->block_bytes = 512;
	return true;
}

static const struct host_lookup fake_host = { .fs = fake_fs };

static struct snapshot snap;	/* large: the unwatched entries are inline */
static struct fs_entry fs = { .dev = DEV_XFS };

static void fill(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->family = 'd';
	p->family_desc = "test";
	p->bitmap = BITMAP_NONE;
	p->hooks[HOOK_UNWATCHED].chosen = true;	/* the unwatched are counted */
	snap.fs = &fs;
	snap.nfs = 1;
	snap.nunwatched = 2;
	snap.unwatched[0].key = (struct unwatched_key){ .dev = DEV_EXT4, .kind = FS_KIND_EXT4 };
	snap.unwatched[0].u.folios_dirtied = 3;
	snap.unwatched[1].key = (struct unwatched_key){ .dev = DEV_GONE, .kind = FS_KIND_EXT4 };
	snap.unwatched[1].u.folios_dirtied = 1;
}

/* out's text; the caller frees it */
#define RENDER(text, call) do {						\
	size_t _len = 0;						\
	FILE *out = open_memstream(&(text), &_len);			\
	call;								\
	fclose(out);							\
} while (0)

static void report(const struct plan *p)
{
	struct report_ctx rc = { .plan = p, .host = &fake_host, .target_dev = DEV_XFS };
	char *text = NULL;

	fs_asked = 0;
	RENDER(text, report_header_text(out, &rc));
	CHECK(strstr(text, "filesystem: 4000:3 fakexfs on /fake/mnt, block size 512 B\n") != NULL,
	      "render.header.target_named");
	free(text);
	rc.target_dev = 0;
	RENDER(text, report_text(out, "t", &snap, &rc));
	CHECK(strstr(text, " filesystem 4000:3 fakexfs /fake/mnt\n") != NULL,
	      "render.text.filesystem_named");
	CHECK(strstr(text, "NOT WATCHED 4000:4 ext4 on /fake/other: 3 folios") != NULL,
	      "render.text.unwatched_named");
	CHECK(strstr(text, "NOT WATCHED 4000:5 ext4 on (not mounted): 1 folios") != NULL,
	      "render.text.unwatched_not_mounted");
	free(text);
	RENDER(text, report_json(out, "summary", 0, &snap, &rc));
	CHECK(strstr(text, "{\"dev\":\"4000:3\",\"fstype\":\"fakexfs\",\"mount\":\"/fake/mnt\"")
	      != NULL, "render.json.filesystem_named");
	CHECK(strstr(text, "\"dev\":\"4000:4\",\"kind\":\"ext4\",\"fstype\":\"ext4\","
		     "\"mount\":\"/fake/other\"") != NULL, "render.json.unwatched_named");
	CHECK(strstr(text, "\"dev\":\"4000:5\",\"kind\":\"ext4\",\"fstype\":null,"
		     "\"mount\":null") != NULL, "render.json.unwatched_not_mounted");
	free(text);
	CHECK(fs_asked > 0, "render.report.asked_the_lookup");
}

static void top(const struct plan *p)
{
	struct top_view v = { .d = snap };
	char *text = NULL;

	fs_asked = 0;
	RENDER(text, top_print_text(out, "t", &v, TOP_COL_WB, false, &fake_host));
	CHECK(strstr(text, "NOT WATCHED 4000:4 ext4 on /fake/other") != NULL,
	      "render.top_text.unwatched_named");
	free(text);
	RENDER(text, top_print_json(out, "top", 1, 1.0, &v, TOP_COL_WB, false, p, &fake_host));
	CHECK(strstr(text, "\"dev\":\"4000:4\",\"kind\":\"ext4\",\"fstype\":\"ext4\","
		     "\"mount\":\"/fake/other\"") != NULL, "render.top_json.unwatched_named");
	free(text);
	CHECK(fs_asked > 0, "render.top.asked_the_lookup");
}

int main(void)
{
	struct plan p;

	fill(&p);
	report(&p);
	top(&p);
	return unit_failures ? 1 : 0;
}
