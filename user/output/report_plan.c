// SPDX-License-Identifier: GPL-2.0
/* The plan in text (`probes`) and in JSON (probes --json, every report): see plan.h. */
#include "model/accounting.h"
#include "output/json.h"
#include "live/plan.h"

static const char *plan_cgroup_ids_name(const struct plan *p);

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
	json_object_end(j);
}
