// SPDX-License-Identifier: GPL-2.0
/*
 * Plan selection from recorded facts, one fixture per kernel family
 * (tests/fixtures/). The expectations come from what was seen on those
 * kernels (../shared/notes/kernels.md), not from the planner.
 */
#include <stdlib.h>
#include "live/plan.h"
#include "live/plan_measures.h"
#include "unit.h"

static int load(const char *name, struct kfacts *f)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	char path[512], err[256];
	FILE *fp;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "r");
	if (!fp) {
		printf("FAIL open %s\n", path);
		unit_failures++;
		return -1;
	}
	ret = facts_parse(f, fp, err, sizeof(err));
	fclose(fp);
	CHECK(ret == 0, "parse %s%s%s", name, ret ? ": " : "", ret ? err : "");
	return ret;
}

static const char *target(const struct plan *p, enum hook h)
{
	return p->hooks[h].chosen ? p->hooks[h].target : "(none)";
}

static const char *mech(const struct plan *p, enum hook h)
{
	if (!p->hooks[h].chosen)
		return "(none)";
	return p->hooks[h].mech == MECH_DERIVED ? "derived" : mech_names[p->hooks[h].mech];
}

static void family_a(void)
{
	struct kfacts f;
	struct plan p;

	if (load("family-a-6.1-rfcv4.facts", &f))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "a: auto plan is complete");
	CHECK(p.family == 'a', "a: classified as RFCv4-patched");
	CHECK(p.bitmap == BITMAP_IOP_STATE, "a: dirty bits from iomap_page.state");
	CHECK_STR(mech(&p, HOOK_WRITE), "fentry", "a: write by fentry");
	CHECK_STR(target(&p, HOOK_WRITE), "iomap_write_end", "a: write target");
	CHECK(p.write_end_proto == WRITE_END_POS && !p.write_end_ret_bool,
	      "a: 6.1 iomap_write_end(iter, pos, len, copied, folio) -> size_t");
	CHECK_STR(target(&p, HOOK_WHOLE_DIRTY), "iomap_dirty_folio",
		  "a: RFCv4 iomap_dirty_folio hooked");
	/* iomap_writepage_map was inlined in that build: documented fallback */
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_do_writepage",
		  "a: writeback falls back to iomap_do_writepage");
	CHECK_U64(p.wb_folio_arg, 0, "a: the page is argument 0");
	CHECK_STR(mech(&p, HOOK_WB_END), "fentry", "a: writeback end by fexit");
	CHECK_STR(target(&p, HOOK_SUBMIT), "iomap_writepage_map",
		  "a: submitted blocks from tracepoint iomap_writepage_map");
	CHECK(p.submit_proto == SUBMIT_PER_BLOCK, "a: one block per event");
	CHECK(!p.hooks[HOOK_FOLIO_PTR].chosen, "a: no folio pointer tracking needed");
	/* no offsets at the submit hook: verify checks the blocks in the bios */
	CHECK_STR(target(&p, HOOK_BIO), "block_bio_queue",
		  "a: the block layer watched though the submit hook has no offsets");

	CHECK(plan_build(&f, MECH_KPROBE, &p) == 0, "a: kprobe plan is complete");
	CHECK_STR(mech(&p, HOOK_WRITE), "kprobe", "a: kprobe mode write");
	CHECK_STR(mech(&p, HOOK_WB_BEGIN), "kprobe", "a: kprobe mode writeback");
	CHECK_STR(mech(&p, HOOK_WHOLE_DIRTY), "kprobe", "a: kprobe mode whole dirty");

	CHECK(plan_build(&f, MECH_TRACEPOINT, &p) == 0, "a: tracepoint plan is complete");
	CHECK_STR(target(&p, HOOK_WRITE), "iomap_iter", "a: tp write");
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_writepage", "a: tp writeback");
	CHECK_STR(target(&p, HOOK_FOLIO_PTR), "writeback_dirty_folio",
		  "a: tp mode learns folio pointers to read state[]");
	CHECK_STR(mech(&p, HOOK_WHOLE_DIRTY), "derived", "a: tp mode derives mmap dirtying");
}

static void family_b(void)
{
	struct kfacts f;
	struct plan p;

	if (load("family-b-6.1-unpatched.facts", &f))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "b: auto plan is complete");
	CHECK(p.family == 'b', "b: classified as unpatched");
	CHECK(p.bitmap == BITMAP_NONE, "b: no per-block dirty bitmap");
	CHECK(!p.hooks[HOOK_WHOLE_DIRTY].chosen, "b: whole-folio dirtying not measurable");
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_do_writepage", "b: writeback");
	CHECK_STR(target(&p, HOOK_SUBMIT), "iomap_writepage_map", "b: submit");
	/* folios dirtied inside the window told apart: verify's check at the bio */
	CHECK_STR(target(&p, HOOK_FOLIO_PTR), "writeback_dirty_folio",
		  "b: no bitmap: clean -> dirty watched in fentry mode too");
	CHECK_STR(target(&p, HOOK_BIO), "block_bio_queue", "b: the block layer watched");
	CHECK(!plan_measures(&p).preattach, "b: no bitmap, nothing to check "
	      "folios dirtied before attach against: preattach not measured");
	CHECK(plan_build(&f, MECH_TRACEPOINT, &p) == 0, "b: tracepoint plan is complete");
	CHECK_STR(target(&p, HOOK_FOLIO_PTR), "writeback_dirty_folio",
		  "b: no bitmap: clean -> dirty watched in tracepoint mode");
	CHECK(!plan_measures(&p).preattach, "b: tp mode: preattach not measured");
	CHECK(!p.hooks[HOOK_WHOLE_DIRTY].chosen, "b: tp mode cannot derive mmap dirtying");
}

static void family_c(void)
{
	struct kfacts f;
	struct plan p;

	if (load("family-c-6.12.facts", &f))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "c: auto plan is complete");
	CHECK(p.family == 'c', "c: classified as 6.6-6.16 mainline");
	CHECK(p.bitmap == BITMAP_IFS, "c: dirty bits from iomap_folio_state");
	CHECK_STR(mech(&p, HOOK_WRITE), "fentry", "c: write by fentry");
	CHECK(p.write_end_ret_bool, "c: iomap_write_end returns bool");
	/* writeback functions inlined: the tracepoint path is needed */
	CHECK_STR(mech(&p, HOOK_WB_BEGIN), "tracepoint", "c: writeback by tracepoint");
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_writepage", "c: writeback tp");
	CHECK_STR(target(&p, HOOK_SUBMIT), "iomap_writepage_map", "c: submit tp");
	CHECK(p.submit_proto == SUBMIT_RANGE, "c: 6.9+ iomap_writepage_map gives ranges");
	CHECK_STR(target(&p, HOOK_FOLIO_PTR), "writeback_dirty_folio", "c: folio pointers");
	CHECK(plan_build(&f, MECH_FENTRY, &p) != 0, "c: forced fentry cannot do writeback");
	CHECK(strstr(p.error, "writeback_begin") != NULL, "c: the error names the hook");
}

static void family_d(void)
{
	struct kfacts f;
	struct plan p;

	if (load("family-d-6.18-this-machine.facts", &f))
		return;
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "d: auto plan is complete");
	CHECK(p.family == 'd', "d: classified as 6.17+ mainline");
	CHECK_STR(target(&p, HOOK_WRITE), "iomap_iter",
		  "d: fentry refused (EPERM), kprobes absent: tracepoint write");
	CHECK(p.write_variant == WRITE_TP_ITER,
	      "d: the write tracepoint is iomap_iter's (requests, faults given back)");
	CHECK(strstr(p.hooks[HOOK_WRITE].rejected, "EPERM") != NULL,
	      "d: the rejection says EPERM");
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_writeback_folio", "d: writeback tp");
	CHECK_STR(target(&p, HOOK_SUBMIT), "iomap_add_to_ioend", "d: submit tp");
	CHECK(p.submit_proto == SUBMIT_RANGE, "d: ranges");
	CHECK(plan_build(&f, MECH_FENTRY, &p) != 0, "d: forced fentry is refused");
	CHECK(plan_build(&f, MECH_KPROBE, &p) != 0, "d: forced kprobe is refused");
	CHECK(strstr(p.error, "kprobes not available") != NULL, "d: kprobe error says why");
}

static void odd_kernels(void)
{
	struct kfacts f;
	struct plan p;
	char err[256];
	FILE *fp;
	static const char clone[] = UNIT_CLONE_ONLY_FACTS;
	static const char odd_proto[] =
		"btf 1\ntype iomap_folio_state 1\n"
		"func iomap_write_end ksym=1 traceable=1 btf=1 ret=bool args=iomap_iter*,size_t\n"
		"tp iomap_writeback_folio btf=1 ret=void args=inode*,loff_t,u64\n"
		"tp iomap_add_to_ioend btf=1 ret=void args=inode*,u64,unsigned_int,iomap*\n";

	fp = fmemopen((void *)clone, sizeof(clone) - 1, "r");
	CHECK(facts_parse(&f, fp, err, sizeof(err)) == 0, "clone facts parse");
	fclose(fp);
	CHECK(plan_build(&f, MODE_AUTO, &p) != 0, "only an .isra clone: write unmeasurable");
	CHECK(strstr(p.error, "compiler clone") != NULL, "clone rejection explained");
	CHECK_STR(target(&p, HOOK_WB_BEGIN), "iomap_writeback_folio", "fentry 6.17 writeback");
	CHECK_U64(p.wb_folio_arg, 1, "6.17 folio is argument 1");

	fp = fmemopen((void *)odd_proto, sizeof(odd_proto) - 1, "r");
	CHECK(facts_parse(&f, fp, err, sizeof(err)) == 0, "odd prototype facts parse");
	fclose(fp);
	plan_build(&f, MODE_AUTO, &p);
	CHECK(strstr(p.hooks[HOOK_WRITE].rejected, "prototype") != NULL,
	      "an unknown prototype is rejected, not guessed");

	memset(&f, 0, sizeof(f));
	CHECK(plan_build(&f, MODE_AUTO, &p) != 0 && strstr(p.error, "BTF"),
	      "no BTF: refused with a reason");

	fp = fmemopen("btf 1\nbogus line\n", 17, "r");
	CHECK(facts_parse(&f, fp, err, sizeof(err)) != 0 && strstr(err, "line 2"),
	      "malformed facts: error names the line");
	fclose(fp);
}

static void roundtrip(void)
{
	struct kfacts f, g;
	struct plan p, q;
	char buf[16384], err[256];
	FILE *fp;

	if (load("family-a-6.1-rfcv4.facts", &f))
		return;
	fp = fmemopen(buf, sizeof(buf), "w");
	facts_write(&f, fp);
	fclose(fp);
	fp = fmemopen(buf, strlen(buf), "r");
	CHECK(facts_parse(&g, fp, err, sizeof(err)) == 0, "written facts parse back");
	fclose(fp);
	plan_build(&f, MODE_AUTO, &p);
	plan_build(&g, MODE_AUTO, &q);
	CHECK(!memcmp(p.hooks, q.hooks, sizeof(p.hooks)) && p.family == q.family,
	      "a facts file written and read back plans the same");
}

int main(void)
{
	family_a();
	family_b();
	family_c();
	family_d();
	odd_kernels();
	roundtrip();
	UNIT_EXIT();
}
