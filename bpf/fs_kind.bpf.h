/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which filesystem a superblock belongs to, from its magic number
 * (include/fs_kinds.h): one load, and a switch the compiler turns into
 * compares. Used where a hook fires for every filesystem (the clean ->
 * dirty tracepoint) to keep apart what the iomap figures count.
 */
#ifndef IOMAPDIRTY_FS_KIND_BPF_H
#define IOMAPDIRTY_FS_KIND_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include "fs_kinds.h"

static __always_inline enum fs_kind fs_kind_of_magic(unsigned long magic)
{
	switch (magic) {
#define FS_KIND_CASE(id, m, name, watched, why)	case m: return id;
	FS_KINDS(FS_KIND_CASE)
#undef FS_KIND_CASE
	}
	return FS_KIND_OTHER;
}

static __always_inline bool fs_kind_watched(enum fs_kind kind)
{
	switch (kind) {
#define FS_KIND_WATCHED(id, m, name, watched, why)	case id: return watched;
	FS_KINDS(FS_KIND_WATCHED)
	default:
		break;
#undef FS_KIND_WATCHED
	}
	return false;
}

/*
 * Written back with buffer heads, counted by the buffer-head backend
 * (bpf/buffer_heads.bpf.c) where the plan attaches it: ext4.
 */
static __always_inline bool fs_kind_bh(enum fs_kind kind)
{
	return kind == FS_KIND_EXT4;
}

static __always_inline enum fs_kind fs_kind_of(struct inode *inode)
{
	return fs_kind_of_magic(BPF_CORE_READ(inode, i_sb, s_magic));
}

#endif /* IOMAPDIRTY_FS_KIND_BPF_H */
