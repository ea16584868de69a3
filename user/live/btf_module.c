// SPDX-License-Identifier: GPL-2.0
/* The BTF of a loaded kernel module: see btf_module.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "live/btf_module.h"
#include "live/facts.h"

/*
 * The BTF of the loaded module 'name', split on 'vmlinux', and in
 * *obj_fd a descriptor of its kernel BTF object (the caller closes it);
 * NULL when no such module is loaded or its BTF cannot be read.
 */
static struct btf *btf_module_load(const struct btf *vmlinux, const char *name, int *obj_fd)
{
	__u32 id = 0;

	if (!vmlinux)
		return NULL;
	while (!bpf_btf_get_next_id(id, &id)) {
		char mod[64] = "";
		struct bpf_btf_info info = {
			.name = (__u64)(unsigned long)mod,
			.name_len = sizeof(mod),
		};
		__u32 len = sizeof(info);
		struct btf *btf;
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.kernel_btf ||
		    strcmp(mod, name)) {
			close(fd);
			continue;
		}
		btf = btf__load_from_kernel_by_id_split(id, (struct btf *)vmlinux);
		if (!btf) {
			close(fd);
			return NULL;
		}
		*obj_fd = fd;
		return btf;
	}
	return NULL;
}

/*
 * Module 'name' (its first n bytes), its BTF read the first time it is
 * asked for and kept (m->btf NULL: not loaded); NULL when the facts hold
 * as many modules as they can.
 */
static struct mod_btf *module_btf(struct kfacts *f, const char *name, size_t n)
{
	struct mod_btf *m;

	for (int k = 0; k < f->nr_mods; k++)
		if (!strncmp(f->mods[k].name, name, n) && !f->mods[k].name[n])
			return &f->mods[k];
	if (f->nr_mods >= FACT_MAX_MODS)
		return NULL;
	m = &f->mods[f->nr_mods++];
	snprintf(m->name, sizeof(m->name), "%.*s", (int)n, name);
	m->btf = btf_module_load(f->btf, m->name, &m->obj_fd);
	return m;
}

/*
 * Tracepoints missing from vmlinux's BTF may be a module's (XFS's on
 * Debian): a module's trace events are named after it (xfs_*), so the
 * module is the name's first word. Its BTF is read once, kept for trials.
 */
void facts_module_tps(struct kfacts *f)
{
	for (int i = 0; i < f->nr_tps; i++) {
		struct tp_fact *tp = &f->tps[i];
		size_t n = strcspn(tp->name, "_");
		struct mod_btf *m;

		if (tp->proto.in_btf || !tp->name[n])
			continue;
		m = module_btf(f, tp->name, n);
		if (!m || !m->btf)
			continue;
		facts_btf_tp(m->btf, tp);
		if (tp->proto.in_btf)
			tp->btf_mod = (int)(m - f->mods) + 1;
	}
}

/* The byte offset of member 'name' of struct 'type' in btf, and its size. */
static bool member_at(const struct btf *btf, const char *type, const char *name,
		      __u32 *off, __u32 *size)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		__u32 bits = btf_member_bit_offset(t, i);
		__s64 sz;

		if (!n || strcmp(n, name) || btf_member_bitfield_size(t, i) || bits % 8)
			continue;
		sz = btf__resolve_size(btf, m->type);
		if (sz <= 0)
			return false;
		*off = bits / 8;
		*size = (__u32)sz;
		return true;
	}
	return false;
}

/*
 * A filesystem's layout from the BTF that has its types: vmlinux's, else
 * its module's (Debian builds ext4 and btrfs as modules: their types are
 * in /sys/kernel/btf/MODULE only). 'read' takes the layout from one BTF;
 * 'from' names the BTF it came from. false where neither has the types
 * (or facts came from a file).
 */
static bool layout_from_btf(struct kfacts *f, const char *module,
			    bool (*read)(const struct btf *btf, void *layout), void *layout,
			    char *from, size_t len)
{
	struct mod_btf *m;

	if (!f->btf)
		return false;
	if (read(f->btf, layout)) {
		snprintf(from, len, "vmlinux");
		return true;
	}
	m = module_btf(f, module, strlen(module));
	if (!m || !m->btf || !read(m->btf, layout))
		return false;
	snprintf(from, len, "module %s", module);
	return true;
}

static bool ext4_layout_in(const struct btf *btf, void *layout)
{
	struct ext4_layout *l = layout;
	__u32 size;

	if (!member_at(btf, "ext4_sb_info", "s_mount_opt", &l->sbi_mount_opt, &size) ||
	    size != 4 ||
	    !member_at(btf, "ext4_inode_info", "vfs_inode", &l->ei_vfs_inode, &size) ||
	    !member_at(btf, "ext4_inode_info", "i_flags", &l->ei_flags, &l->ei_flags_size) ||
	    (l->ei_flags_size != 4 && l->ei_flags_size != 8))
		return false;
	l->known = true;
	return true;
}

bool facts_ext4_layout(struct kfacts *f, struct ext4_layout *l)
{
	memset(l, 0, sizeof(*l));
	return layout_from_btf(f, "ext4", ext4_layout_in, l, l->from, sizeof(l->from));
}

static bool btrfs_layout_in(const struct btf *btf, void *layout)
{
	struct btrfs_layout *l = layout;
	__u32 size;

	if (!member_at(btf, "btrfs_inode", "vfs_inode", &l->bi_vfs_inode, &size) ||
	    !member_at(btf, "btrfs_inode", "root", &l->bi_root, &size) || size != 8 ||
	    !member_at(btf, "btrfs_root", "anon_dev", &l->root_anon_dev, &size) || size != 4)
		return false;
	l->known = true;
	return true;
}

bool facts_btrfs_layout(struct kfacts *f, struct btrfs_layout *l)
{
	memset(l, 0, sizeof(*l));
	return layout_from_btf(f, "btrfs", btrfs_layout_in, l, l->from, sizeof(l->from));
}
