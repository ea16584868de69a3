// SPDX-License-Identifier: GPL-2.0
/* Filesystems not watched, named and explained: see unwatched.h. */
#include <inttypes.h>
#include "output/json.h"
#include "output/safetext.h"
#include "output/unwatched.h"

static const char *const kind_names[NR_FS_KINDS] = {
#define FS_KIND_NAME(id, magic, name, watched, why)	[id] = name,
	FS_KINDS(FS_KIND_NAME)
#undef FS_KIND_NAME
};

static const char *const kind_why[NR_FS_KINDS] = {
#define FS_KIND_WHY(id, magic, name, watched, why)	[id] = why,
	FS_KINDS(FS_KIND_WHY)
#undef FS_KIND_WHY
};

/*
 * "ext4", "block device", ...
 */
static const char *fs_kind_name(enum fs_kind kind)
{
	return kind < NR_FS_KINDS ? kind_names[kind] : "unknown";
}

/*
 * Why a filesystem of this kind is not watched.
 */
static const char *fs_kind_why(enum fs_kind kind)
{
	const char *why = kind < NR_FS_KINDS ? kind_why[kind] : NULL;

	return why ? why : "not an iomap filesystem";
}

/* p NULL: the caller knows they are counted */
static bool counted(const struct plan *p)
{
	return !p || p->hooks[HOOK_UNWATCHED].chosen;
}

/*
 * The name mountinfo gives (ext2 and ext3 share ext4's magic); for the
 * block device's page cache, the filesystem mounted from it, if any.
 */
static void describe(const struct unwatched_entry *e, const struct host_lookup *host,
		     char *type, size_t tlen, char *mnt, size_t mlen)
{
	struct fsinfo fi = {};
	bool found = host->fs(e->key.dev, &fi);

	if (e->key.kind == FS_KIND_BDEV || !found || !fi.fstype[0])
		snprintf(type, tlen, "%s", fs_kind_name(e->key.kind));
	else
		text_sanitize(fi.fstype, type, tlen);
	if (found && fi.mount[0])
		text_sanitize(fi.mount, mnt, mlen);
	else
		snprintf(mnt, mlen, "(not mounted)");
}

void unwatched_fmt(const struct unwatched_entry *e, const struct host_lookup *host,
		   char *buf, size_t len)
{
	char type[64], mnt[4 * 4096];

	describe(e, host, type, sizeof(type), mnt, sizeof(mnt));
	snprintf(buf, len, "NOT WATCHED %u:%u %s %s%s: %" PRIu64 " folios (%" PRIu64
		 " B) dirtied, in no figure: %s", kdev_major(e->key.dev),
		 kdev_minor(e->key.dev), type,
		 e->key.kind == FS_KIND_BDEV ? "page cache, holding " : "on ", mnt,
		 (uint64_t)e->u.folios_dirtied, (uint64_t)e->u.bytes_dirtied,
		 fs_kind_why(e->key.kind));
}

void unwatched_text(FILE *out, const struct snapshot *d, const struct host_lookup *host,
		    const struct plan *p)
{
	char line[8 * 4096];

	if (!counted(p)) {
		fprintf(out, "  not watched: not counted (%s)\n",
			p->hooks[HOOK_UNWATCHED].note);
		return;
	}
	for (int i = 0; i < d->nunwatched; i++) {
		unwatched_fmt(&d->unwatched[i], host, line, sizeof(line));
		fprintf(out, "  %s\n", line);
	}
}

void unwatched_json(struct json *j, const struct snapshot *d, const struct host_lookup *host,
		    const struct plan *p)
{
	char dev[32];

	json_key(j, "unwatched_filesystems");
	if (!counted(p)) {
		json_null(j);
		return;
	}
	json_array_begin(j);
	for (int i = 0; i < d->nunwatched; i++) {
		const struct unwatched_entry *e = &d->unwatched[i];
		struct fsinfo fi = {};
		bool found = host->fs(e->key.dev, &fi);

		json_object_begin(j);
		kdev_name(e->key.dev, dev, sizeof(dev));
		json_kv_string(j, "dev", dev);
		json_kv_string(j, "kind", fs_kind_name(e->key.kind));
		json_kv_string(j, "fstype", found && fi.fstype[0] ? fi.fstype : NULL);
		json_kv_path(j, "mount", found && fi.mount[0] ? fi.mount : NULL);
#define UNWATCHED_JSON(name, unit)	json_kv_u64(j, #name, e->u.name);
		UNWATCHED_FIELDS(UNWATCHED_JSON)
#undef UNWATCHED_JSON
		json_kv_string(j, "reason", fs_kind_why(e->key.kind));
		json_object_end(j);
	}
	json_array_end(j);
}
