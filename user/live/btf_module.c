// SPDX-License-Identifier: GPL-2.0
/* The BTF of a loaded kernel module: see btf_module.h. */
#include <errno.h>
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
 * Tracepoints missing from vmlinux's BTF may be a module's (XFS's on
 * Debian): a module's trace events are named after it (xfs_*), so the
 * module is the name's first word. Its BTF is read once, kept for trials.
 */
void facts_module_tps(struct kfacts *f)
{
	for (int i = 0; i < f->nr_tps; i++) {
		struct tp_fact *tp = &f->tps[i];
		size_t n = strcspn(tp->name, "_");
		struct mod_btf *m = NULL;

		if (tp->proto.in_btf || !tp->name[n])
			continue;
		for (int k = 0; k < f->nr_mods; k++)
			if (!strncmp(f->mods[k].name, tp->name, n) && !f->mods[k].name[n])
				m = &f->mods[k];
		if (!m && f->nr_mods < FACT_MAX_MODS) {
			m = &f->mods[f->nr_mods++];
			snprintf(m->name, sizeof(m->name), "%.*s", (int)n, tp->name);
			m->btf = btf_module_load(f->btf, m->name, &m->obj_fd);
		}
		if (!m || !m->btf)
			continue;
		facts_btf_tp(m->btf, tp);
		if (tp->proto.in_btf)
			tp->btf_mod = (int)(m - f->mods) + 1;
	}
}
