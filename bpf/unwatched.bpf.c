// SPDX-License-Identifier: GPL-2.0
/*
 * Filesystems not watched (issue 26): a folio going clean -> dirty
 * (writeback_dirty_folio, which every filesystem's dirtying passes:
 * folio_account_dirtied) on a filesystem that is not written back through
 * iomap (include/fs_kinds.h) is counted per (device, kind), with the
 * writer filters of the watched figures (run: CMD's cgroup; --pid,
 * --comm, --mount). run, hist and top then say which filesystems the
 * writers dirtied that the figures do not count, and why, instead of
 * showing zeros. Read by user space only (user/output/unwatched.c); bounded, a
 * filesystem with no room is counted (unwatched_map_full, a loss).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "iomapdirty.h"
#include "fs_kind.bpf.h"
#include "kernel_facts.bpf.h"
#include "maps.bpf.h"
#include "settings.bpf.h"

#define UNWATCHED_MAX_FS	256

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UNWATCHED_MAX_FS);
	__type(key, struct unwatched_key);
	__type(value, struct unwatched_stats);
} unwatched_fs SEC(".maps");

static __always_inline void unwatched_note(struct folio *folio, struct inode *inode)
{
	struct unwatched_key key = {};
	struct unwatched_stats zero = {}, *u;

	key.kind = fs_kind_of_file(inode);
	if (fs_kind_watched(key.kind) || fs_kind_bio_walked(key.kind))
		return;
	/* the device page cache's inode is the device itself */
	key.dev = key.kind == FS_KIND_BDEV ? BPF_CORE_READ(inode, i_rdev) :
					     BPF_CORE_READ(inode, i_sb, s_dev);
	if (!dev_wanted(key.dev) || !task_wanted())
		return;
	count(CNT_UNWATCHED_DIRTY_EVENTS);
	u = map_lookup_or_try_init(&unwatched_fs, &key, &zero, CNT_UNWATCHED_MAP_FULL);
	if (!u)
		return;
	__sync_fetch_and_add(&u->folios_dirtied, 1);
	__sync_fetch_and_add(&u->bytes_dirtied, folio_bytes(folio));
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(btf_unwatched_dirty, struct folio *folio, struct address_space *mapping)
{
	if (!folio || !mapping || !mapping->host)
		return 0;
	unwatched_note(folio, mapping->host);
	return 0;
}

SEC("raw_tp/writeback_dirty_folio")
int BPF_PROG(tp_unwatched_dirty, struct folio *folio, struct address_space *mapping)
{
	struct inode *inode = BPF_CORE_READ(mapping, host);

	if (!inode)
		return 0;
	unwatched_note(folio, inode);
	return 0;
}
