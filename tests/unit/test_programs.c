// SPDX-License-Identifier: GPL-2.0
/*
 * Every BPF program a plan can choose, for every kernel family and mode,
 * exists in the BPF object under that name, and is of the mechanism the
 * plan says (opening the object needs no privilege; nothing is loaded).
 */
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "iomapdirty.skel.h"
#include "plan.h"
#include "unit.h"

static const char *const fixtures[] = {
	"family-a-6.1-rfcv4.facts", "family-b-6.1-unpatched.facts",
	"family-c-6.12.facts", "family-d-6.18-this-machine.facts",
};

static const char *section_kind(int mech)
{
	switch (mech) {
	case MECH_FENTRY: return "f";		/* fentry/ or fexit/ */
	case MECH_KPROBE: return "k";		/* kprobe/ or kretprobe/ */
	default: return "raw_tp";
	}
}

int main(void)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	struct iomapdirty_bpf *skel = iomapdirty_bpf__open();

	CHECK(skel != NULL, "BPF object opens");
	if (!skel)
		UNIT_EXIT();
	for (unsigned i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		for (int mode = MODE_AUTO; mode < NR_MECHS; mode++) {
			char path[512], err[256];
			struct kfacts f;
			struct plan p;
			FILE *fp;

			snprintf(path, sizeof(path), "%s/%s", dir, fixtures[i]);
			fp = fopen(path, "r");
			if (!fp || facts_parse(&f, fp, err, sizeof(err))) {
				CHECK(0, "read %s", path);
				if (fp)
					fclose(fp);
				continue;
			}
			fclose(fp);
			plan_build(&f, mode, &p);
			for (int h = 0; h < NR_HOOKS; h++) {
				const struct hook_plan *hp = &p.hooks[h];
				struct bpf_program *prog;

				if (!hp->chosen || !hp->program[0])
					continue;
				prog = bpf_object__find_program_by_name(skel->obj, hp->program);
				CHECK(prog != NULL, "%s mode %d hook %s: program %s exists",
				      fixtures[i], mode, hook_names[h], hp->program);
				if (!prog || hp->mech < 0)
					continue;
				CHECK(!strncmp(bpf_program__section_name(prog),
					       section_kind(hp->mech),
					       strlen(section_kind(hp->mech))),
				      "%s mode %d hook %s: %s is a %s program (%s)", fixtures[i],
				      mode, hook_names[h], hp->program, mech_names[hp->mech],
				      bpf_program__section_name(prog));
			}
		}
	}
	iomapdirty_bpf__destroy(skel);
	UNIT_EXIT();
}
