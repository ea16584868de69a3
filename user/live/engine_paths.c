// SPDX-License-Identifier: GPL-2.0
/*
 * What the engine knows of a file: its path (from the paths map, checked
 * against the file system with a deadline), its first writer, and the
 * struct file_lookup renderers ask through. See engine.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "host/cgroup.h"
#include "host/fsinfo.h"
#include "host/pathcheck.h"
#include "live/engine_priv.h"
#include "output/safetext.h"
#include "iomapdirty.skel.h"

/* A file whose path check timed out before (struct engine_paths). */
static bool path_hung(const struct engine_paths *ep, const struct file_key *key)
{
	for (int i = 0; i < ep->nhung; i++)
		if (ep->hung[i].dev == key->dev && ep->hung[i].ino == key->ino)
			return true;
	return false;
}

/*
 * BPF keeps PATH_COMPONENT_LEN - 1 bytes of a name: one that long may have
 * been cut (64-character container IDs are). A cut can split a UTF-8
 * character; the partial character is dropped.
 */
static bool component_cut(char *comp)
{
	comp[PATH_COMPONENT_LEN - 1] = '\0';
	if (strlen(comp) < PATH_COMPONENT_LEN - 1)
		return false;
	utf8_trim_partial(comp);
	return true;
}

enum path_state engine_file_path(struct engine *e, const struct file_key *key,
				 char *buf, size_t len)
{
	struct file_path fp;
	struct fsinfo fi = {};
	struct stat st;
	bool cut = false;
	size_t n = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.paths), key, &fp) ||
	    !fp.depth) {
		snprintf(buf, len, "[ino %llu]", (unsigned long long)key->ino);
		return PATH_UNKNOWN;
	}
	buf[0] = '\0';
	fsinfo_lookup_dev(key->dev, &fi);
	if (fp.truncated)
		n = snprintf(buf, len, "...");
	else if (strcmp(fi.mount, "/"))
		n = snprintf(buf, len, "%s", fi.mount);
	/* components run from the file up: join them in reverse */
	for (int i = (int)fp.depth - 1; i >= 0 && n < len; i--) {
		cut |= component_cut(fp.comp[i]);
		n += snprintf(buf + n, len - n, "/%s", fp.comp[i]);
	}
	/* the link count of the last writeback; at first sight otherwise */
	{
		struct wa_stats st;

		if (!bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.files), key, &st))
			fp.nlink = st.nlink;
	}
	if (fp.nlink == 0)
		return PATH_DELETED;
	if (fp.truncated)
		return PATH_TRUNCATED;
	if (!fi.mount[0])
		return PATH_MOVED;
	if (path_hung(&e->paths, key))
		return PATH_UNCHECKED;
	/* the path is a user's: never stat() it on the refresh thread */
	if (pathcheck_lstat(buf, &st, PATHCHECK_TIMEOUT_MS)) {
		if (errno == ETIMEDOUT) {
			if (e->paths.nhung < ENGINE_HUNG_MAX)
				e->paths.hung[e->paths.nhung++] = *key;
			return PATH_UNCHECKED;
		}
		return cut ? PATH_TRUNCATED : PATH_MOVED;
	}
	if (kdev_make(major(st.st_dev), minor(st.st_dev)) == key->dev &&
	    st.st_ino == key->ino)
		return PATH_OK;
	/* a cut name may name another file, or none: not a move */
	return cut ? PATH_TRUNCATED : PATH_MOVED;
}

bool engine_file_writer(struct engine *e, const struct file_key *key, struct writer_info *wi)
{
	struct file_writer fw;

	memset(wi, 0, sizeof(*wi));
	if (bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.file_writers), key, &fw))
		return false;
	wi->cgroup_id = fw.cgroup_id;
	wi->cgroup_known = cgroup_path_of(fw.cgroup_id, wi->cgroup, sizeof(wi->cgroup));
	cgroup_names_parse(wi->cgroup_known ? wi->cgroup : "", &wi->names);
	memcpy(wi->comm, fw.comm, sizeof(fw.comm));
	wi->several = fw.several;
	return true;
}

static enum path_state lookup_path(void *ctx, const struct file_key *key, char *buf, size_t len)
{
	return engine_file_path(ctx, key, buf, len);
}

static bool lookup_writer(void *ctx, const struct file_key *key, struct writer_info *wi)
{
	return engine_file_writer(ctx, key, wi);
}

struct file_lookup engine_file_lookup(struct engine *e)
{
	return (struct file_lookup){ .path = lookup_path, .writer = lookup_writer, .ctx = e };
}
