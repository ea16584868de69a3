/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filesystems not watched (issue 26): what the writers dirtied on
 * filesystems the figures do not count (ext4, btrfs, the block device's
 * page cache, ...), named and explained, in text and JSON. The data come
 * with each snapshot (bpf/unwatched.bpf.c, struct unwatched_entry).
 */
#ifndef IOMAPDIRTY_UNWATCHED_H
#define IOMAPDIRTY_UNWATCHED_H

#include <stdio.h>
#include "live/plan.h"
#include "model/files.h"
#include "model/snapshot.h"

struct json;

/*
 * One line "NOT WATCHED 7:1 ext4 on /mnt: N folios (B) dirtied, ...: why";
 * the type and mount point as host->fs gives them.
 */
void unwatched_fmt(const struct unwatched_entry *e, const struct host_lookup *host,
		   char *buf, size_t len);
/*
 * Lines "not watched: ..." (nothing when d has none and p counts them).
 * p NULL: the caller knows they are counted.
 */
void unwatched_text(FILE *out, const struct snapshot *d, const struct host_lookup *host,
		    const struct plan *p);
/* "unwatched_filesystems": [...], or null when p does not count them. */
void unwatched_json(struct json *j, const struct snapshot *d, const struct host_lookup *host,
		    const struct plan *p);

#endif
