// SPDX-License-Identifier: GPL-2.0
/* The plan in text (`probes`) and in JSON (probes --json, every report): see plan.h. */
#include "model/accounting.h"
#include "output/json.h"
#include "live/plan.h"
#include "fs_kinds.h"

static const char *plan_cgroup_ids_name(const struct plan *p);

/*
 * The filesystem backends, one row per kind of include/fs_kinds.h: a
 * watched kind is counted by the iomap backend (the hooks of the plan),
 * the others are not counted, each with why, and named with the folios
 * their writers dirtied where the plan has the unwatched_dirty hook.
 */
struct backend_row {
	const char *fs;
	const char *backend;	/* NULL: none */
	bool chosen;
	char why[320];		/* "": counted */
	char note[160];		/* "": nothing to add */
};

#define FS_KIND_ROW(id, magic, name, watched, why)	{ name, watched, why },
static const struct {
	const char *name;
	bool watched;
	const char *why;
} fs_kind_rows[NR_FS_KINDS] = { FS_KINDS(FS_KIND_ROW) };
#undef FS_KIND_ROW

static void backend_row(const struct plan *p, int kind, struct backend_row *r)
{
	bool named = p->hooks[HOOK_UNWATCHED].chosen;

	r->fs = fs_kind_rows[kind].name;
	r->backend = fs_kind_rows[kind].watched ? "iomap" : NULL;
	r->chosen = r->backend && p->ok;
	r->why[0] = 0;
	r->note[0] = 0;
	if (kind == FS_KIND_EXT4 && plan_bh_backend(p)) {
		r->backend = "buffer_heads";
		r->chosen = true;
		if (p->ext4.known)
			snprintf(r->note, sizeof(r->note), "data=journal files told apart "
				 "with ext4's types from %s's BTF", p->ext4.from);
	} else if (kind == FS_KIND_BTRFS && plan_btrfs_backend(p)) {
		r->backend = "btrfs";
		r->chosen = true;
		if (p->btrfs.known)
			snprintf(r->note, sizeof(r->note), "blocks as large as the page; a "
				 "file's subvolume read with btrfs's types from %s's BTF",
				 p->btrfs.from);
	} else if (r->backend && !p->ok)
		snprintf(r->why, sizeof(r->why), "rejected: %s", p->error);
	else if (!r->backend)
		snprintf(r->why, sizeof(r->why), "%s; %s", fs_kind_rows[kind].why,
			 named ? "run, hist and top name its folios dirtied as NOT WATCHED" :
			 "not named either (no unwatched_dirty hook at this accounting level)");
}

static void plan_print_backends(const struct plan *p, FILE *out)
{
	struct backend_row r;

	fprintf(out, "%-18s %-12s %s\n", "FILESYSTEM", "BACKEND", "NOTE");
	for (int k = 0; k < NR_FS_KINDS; k++) {
		backend_row(p, k, &r);
		fprintf(out, "%-18s %-12s %s%s%s\n", r.fs, r.backend ? r.backend : "-",
			r.chosen ? "counted: the hooks above" : r.why,
			r.note[0] ? "; " : "", r.note);
	}
}

static void plan_write_backends(const struct plan *p, struct json *j)
{
	struct backend_row r;

	json_key(j, "backends");
	json_array_begin(j);
	for (int k = 0; k < NR_FS_KINDS; k++) {
		backend_row(p, k, &r);
		json_object_begin(j);
		json_kv_string(j, "filesystem", r.fs);
		json_kv_string(j, "backend", r.backend);
		json_kv_bool(j, "chosen", r.chosen);
		json_kv_string(j, "why", r.why[0] ? r.why : NULL);
		json_kv_string(j, "note", r.note[0] ? r.note : NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

/*
 * "fentry", "kprobe", "tracepoint", "derived"
 */
static const char *plan_mech_name(enum mechanism mech)
{
	return mech == MECH_DERIVED ? "derived" : mech_names[mech];
}

/* What text output shows: tracepoints say which program type. */
const char *plan_mech_detail(const struct hook_plan *h)
{
	if (h->mech == MECH_TRACEPOINT)
		return prog_kind_names[h->prog->kind];
	return plan_mech_name(h->mech);
}

void plan_print_text(const struct plan *p, FILE *out)
{
	fprintf(out, "kernel family: %c: %s\n", p->family, p->family_desc);
	fprintf(out, "dirty bitmap: %s\n", p->bitmap == BITMAP_IFS ? "iomap_folio_state.state" :
		p->bitmap == BITMAP_IOP_STATE ? "iomap_page.state (RFCv4)" : "none");
	fprintf(out, "mode: %s\n", plan_mode_name(p->mode));
	fprintf(out, "accounting: %s\n", accounting_level_names[p->accounting]);
	fprintf(out, "cgroup attribution: %s%s%s%s\n", plan_cgroup_ids_name(p),
		p->cgroup_why[0] ? " (" : "", p->cgroup_why, p->cgroup_why[0] ? ")" : "");
	fprintf(out, "%-18s %-10s %-28s %s\n", "HOOK", "MECHANISM", "TARGET", "NOTE");
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		if (h->chosen)
			fprintf(out, "%-18s %-10s %-28s %s\n", hook_names[i],
				plan_mech_detail(h), h->target, h->note);
		else
			fprintf(out, "%-18s %-10s %-28s %s\n", hook_names[i], "-",
				h->required ? "UNAVAILABLE" : "not attached",
				h->note[0] ? h->note : h->rejected);
		if (h->rejected[0] && h->chosen)
			fprintf(out, "%-18s %-10s rejected: %s\n", "", "", h->rejected);
	}
	plan_print_backends(p, out);
	if (!p->ok)
		fprintf(out, "error: %s\n", p->error);
}

/*
 * "available", "unavailable" or "unknown" (plan.cgroup_ids)
 */
static const char *plan_cgroup_ids_name(const struct plan *p)
{
	return p->cgroup_ids > 0 ? "available" : p->cgroup_ids == 0 ? "unavailable" : "unknown";
}

const char *plan_bitmap_name(const struct plan *p)
{
	return p->bitmap == BITMAP_IFS ? "iomap_folio_state" :
	       p->bitmap == BITMAP_IOP_STATE ? "iomap_page.state" : "none";
}

void plan_write_json(const struct plan *p, struct json *j)
{
	char fam[2] = { p->family, 0 };

	json_object_begin(j);
	json_kv_string(j, "family", fam);
	json_kv_string(j, "family_description", p->family_desc);
	json_kv_string(j, "dirty_bitmap", plan_bitmap_name(p));
	json_kv_string(j, "mode", plan_mode_name(p->mode));
	json_kv_string(j, "accounting", accounting_level_names[p->accounting]);
	json_kv_string(j, "cgroup_attribution", plan_cgroup_ids_name(p));
	json_kv_string(j, "cgroup_attribution_why", p->cgroup_why[0] ? p->cgroup_why : NULL);
	json_kv_bool(j, "ok", p->ok);
	if (!p->ok)
		json_kv_string(j, "error", p->error);
	json_key(j, "hooks");
	json_array_begin(j);
	for (int i = 0; i < NR_HOOKS; i++) {
		const struct hook_plan *h = &p->hooks[i];

		json_object_begin(j);
		json_kv_string(j, "hook", hook_names[i]);
		json_kv_bool(j, "required", h->required);
		json_kv_bool(j, "chosen", h->chosen);
		json_key(j, "mechanism");
		if (h->chosen)
			json_string(j, plan_mech_name(h->mech));
		else
			json_null(j);
		json_key(j, "target");
		if (h->chosen)
			json_string(j, h->target);
		else
			json_null(j);
		/* the BPF program, and for tracepoints its type */
		json_key(j, "program");
		if (h->chosen && h->prog)
			json_string(j, h->prog->name);
		else
			json_null(j);
		json_key(j, "program_type");
		if (h->chosen && h->mech == MECH_TRACEPOINT)
			json_string(j, plan_mech_detail(h));
		else
			json_null(j);
		json_kv_string(j, "note", h->note);
		json_kv_string(j, "rejected", h->rejected);
		json_object_end(j);
	}
	json_array_end(j);
	plan_write_backends(p, j);
	json_object_end(j);
}
