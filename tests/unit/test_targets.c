// SPDX-License-Identifier: GPL-2.0
/*
 * The hook target table's prototypes (user/live/programs.c, hook_targets[]):
 *   - how a row's prototype is matched against one read from BTF;
 *   - every row is served by a program of its hook and variant, and no row
 *     is hidden behind an earlier one of the same symbol;
 *   - plans for kernels whose prototypes ../shared/notes/kernels.md gives:
 *     each known signature taken with the argument position it has there,
 *     and a signature no row describes refused, never guessed.
 */
#include "live/plan.h"
#include "unit.h"

static struct proto_fact proto(int n, const char *a0, const char *a1, const char *a2)
{
	struct proto_fact p = { .in_btf = true, .nr_args = n };
	const char *a[] = { a0, a1, a2 };

	for (int i = 0; i < n && i < 3; i++)
		snprintf(p.args[i], sizeof(p.args[i]), "%s", a[i] ? a[i] : "");
	return p;
}

static void matching(void)
{
	const struct target_proto exact = { 2, { "inode*", "loff_t" } };
	const struct target_proto at_least = { PROTO_AT_LEAST, { NULL, "folio*" } };
	const struct target_proto either = { PROTO_AT_LEAST, { "page*|folio*" } };
	struct proto_fact p;

	p = proto(2, "inode*", "loff_t", NULL);
	CHECK(target_proto_fits(&exact, &p), "match: the exact prototype fits");
	p.in_btf = false;
	CHECK(!target_proto_fits(&exact, &p), "match: a prototype not in BTF never fits");
	p = proto(3, "inode*", "loff_t", "u64");
	CHECK(!target_proto_fits(&exact, &p), "match: one argument more does not fit an exact row");
	p = proto(2, "inode*", "u64", NULL);
	CHECK(!target_proto_fits(&exact, &p),
	      "match: another type at a read position does not fit");
	p = proto(3, "wpc*", "folio*", "u64");
	CHECK(target_proto_fits(&at_least, &p), "match: at least: more arguments fit");
	p = proto(1, "wpc*", NULL, NULL);
	CHECK(!target_proto_fits(&at_least, &p), "match: at least: the read argument missing");
	p = proto(2, "folio*", "wpc*", NULL);
	CHECK(!target_proto_fits(&at_least, &p), "match: at least: the folio at another position");
	p = proto(1, "page*", NULL, NULL);
	CHECK(target_proto_fits(&either, &p), "match: either type: the first");
	p = proto(1, "folio*", NULL, NULL);
	CHECK(target_proto_fits(&either, &p), "match: either type: the second");
	p = proto(1, "folio", NULL, NULL);
	CHECK(!target_proto_fits(&either, &p), "match: a prefix of a type is not the type");
	p = proto(1, "", NULL, NULL);
	CHECK(!target_proto_fits(&either, &p), "match: an empty label is no type");
}

static bool same_proto(const struct target_proto *a, const struct target_proto *b)
{
	if (a->nr_args != b->nr_args)
		return false;
	for (int i = 0; i < FACT_MAX_ARGS; i++)
		if (!a->args[i] != !b->args[i] || (a->args[i] && strcmp(a->args[i], b->args[i])))
			return false;
	return true;
}

/* A program of hook, mechanism mech, that serves variant */
static bool served(enum hook hook, enum mechanism mech, int variant)
{
	for (unsigned int i = 0; i < prog_table_len; i++)
		if (prog_table[i].hook == hook && prog_mechanism(prog_table[i].kind) == mech &&
		    (prog_table[i].variant == PROG_ANY_VARIANT || prog_table[i].variant == variant))
			return true;
	return false;
}

static void table(void)
{
	for (unsigned int r = 0; r < hook_targets_len; r++) {
		const struct hook_target *t = &hook_targets[r];
		int behind;

		if (t->variant == TARGET_FACT_ONLY)
			continue;
		if (t->kind == TARGET_TP)
			CHECK(served(t->hook, MECH_TRACEPOINT, t->variant),
			      "table: %s tracepoint %s variant %d has a program",
			      hook_names[t->hook], t->symbol, t->variant);
		else
			CHECK(served(t->hook, MECH_FENTRY, t->variant) &&
			      served(t->hook, MECH_KPROBE, t->variant),
			      "table: %s function %s variant %d has fentry and kprobe programs",
			      hook_names[t->hook], t->symbol, t->variant);
		behind = -1;
		for (unsigned int q = 0; q < r; q++)
			if (hook_targets[q].hook == t->hook && hook_targets[q].kind == t->kind &&
			    !strcmp(hook_targets[q].symbol, t->symbol) &&
			    same_proto(&hook_targets[q].proto, &t->proto))
				behind = (int)q;
		CHECK(behind < 0, "table: row %u (%s %s) not hidden behind an earlier row "
		      "of its symbol (%d)", r, hook_names[t->hook], t->symbol, behind);
	}
}

/* A 6.18 kernel with fentry allowed and the writeback function given */
#define WB_KERNEL(args)							\
	"btf 1\ntype iomap_folio_state 1\nkprobe_pmu 1\n"		\
	"func iomap_write_end ksym=1 traceable=1 btf=1 ret=bool "	\
	"args=iomap_iter*,size_t,size_t,folio*\n"			\
	"func iomap_writeback_folio ksym=1 traceable=1 btf=1 ret=int args=" args "\n" \
	"tp iomap_writeback_folio btf=1 ret=void args=inode*,loff_t,u64\n" \
	"tp iomap_add_to_ioend btf=1 ret=void args=inode*,u64,unsigned_int,iomap*\n"

static void plan_from(const char *text, const char *what, struct plan *p)
{
	struct kfacts f;

	if (unit_parse_facts(text, strlen(text), what, &f)) {
		memset(p, 0, sizeof(*p));
		return;
	}
	plan_build(&f, MODE_AUTO, p);
}

static void plans(void)
{
	static const char k6_4[] =	/* iomap_do_writepage takes a folio */
		"btf 1\ntype iomap_folio_state 0\nfield iomap_page.uptodate 1\n"
		"func iomap_write_end ksym=1 traceable=1 btf=1 ret=size_t "
		"args=iomap_iter*,loff_t,size_t,size_t,folio*\n"
		"func iomap_do_writepage ksym=1 traceable=1 btf=1 ret=int "
		"args=folio*,writeback_control*,void*\n"
		"tp iomap_writepage_map btf=1 ret=void args=inode*,iomap*\n";
	static const char pos_u32[] =	/* pos no longer a loff_t */
		"btf 1\ntype iomap_folio_state 1\n"
		"func iomap_write_end ksym=1 traceable=1 btf=1 ret=bool "
		"args=iomap_iter*,u32,size_t,size_t,folio*\n";
	const struct hook_plan *b;
	struct plan p;

	plan_from(WB_KERNEL("iomap_writepage_ctx*,folio*"), "6.18", &p);
	b = &p.hooks[HOOK_WB_BEGIN];
	CHECK(b->chosen && b->mech == MECH_FENTRY && !strcmp(b->target, "iomap_writeback_folio") &&
	      p.wb_folio_arg == 1, "plan: 6.17+ iomap_writeback_folio(wpc, folio): fentry, "
	      "folio argument 1");
	CHECK(p.write_end_proto == WRITE_END_ITER && p.write_end_ret_bool,
	      "plan: 6.16+ iomap_write_end(iter, len, copied, folio) -> bool");

	plan_from(WB_KERNEL("folio*,iomap_writepage_ctx*"), "folio moved", &p);
	b = &p.hooks[HOOK_WB_BEGIN];
	CHECK(b->chosen && b->mech == MECH_TRACEPOINT &&
	      strstr(b->rejected, "fentry iomap_writeback_folio: prototype not one this tool "
		     "knows"), "plan: a writeback function whose folio moved is refused "
	      "(no row), not read at the new position");

	plan_from(k6_4, "6.4", &p);
	b = &p.hooks[HOOK_WB_BEGIN];
	CHECK(b->chosen && b->mech == MECH_FENTRY && !strcmp(b->target, "iomap_do_writepage") &&
	      p.wb_folio_arg == 0, "plan: 6.4-6.9 iomap_do_writepage(folio, wbc, data): "
	      "folio argument 0");
	CHECK(p.submit_proto == SUBMIT_PER_BLOCK, "plan: 6.1-6.8 iomap_writepage_map "
	      "tracepoint (inode, iomap): one block per event");

	plan_from(pos_u32, "pos u32", &p);
	CHECK(!p.hooks[HOOK_WRITE].chosen &&
	      strstr(p.hooks[HOOK_WRITE].rejected, "iomap_write_end: prototype not one"),
	      "plan: iomap_write_end whose pos is not a loff_t is refused");
}

int main(void)
{
	matching();
	table();
	plans();
	UNIT_EXIT();
}
