// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 11 in the small: names for terminals and JSON (safetext.c,
 * json.c), mountinfo lines (fsinfo.c), and text that says "n/a" where
 * the JSON says null (report.c). Expected strings written by hand from
 * RFC 3629 (UTF-8), RFC 8259 (JSON) and proc(5) (mountinfo escapes).
 */
#include <stdlib.h>
#include "output/escape.h"
#include "live/facts.h"
#include "output/prom.h"
#include "host/fsinfo.h"
#include "output/json.h"
#include "live/plan.h"
#include "output/report.h"
#include "output/safetext.h"
#include "unit.h"

static void names(void)
{
	char buf[256];
	uint32_t cp;

	CHECK_U64(utf8_decode((const unsigned char *)"\xc3\xa9", 2, &cp), 2, "utf8: é is 2 bytes");
	CHECK_U64(cp, 0xe9, "utf8: é is U+00E9");
	CHECK_U64(utf8_decode((const unsigned char *)"\xc0\xaf", 2, &cp), 0, "utf8: overlong refused");
	CHECK_U64(utf8_decode((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0, "utf8: surrogate refused");
	CHECK_U64(utf8_decode((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0,
		  "utf8: beyond U+10FFFF refused");
	CHECK_U64(utf8_decode((const unsigned char *)"\xe2\x82", 2, &cp), 0, "utf8: cut short refused");

	text_sanitize("a\x1b[31mb\nc", buf, sizeof(buf));
	CHECK_STR(buf, "a\\x1b[31mb\\x0ac", "text: ESC and newline as \\xHH");
	text_sanitize("c1\xc2\x9b" "x", buf, sizeof(buf));
	CHECK_STR(buf, "c1\\xc2\\x9bx", "text: C1 CSI (U+009B) as its bytes");
	text_sanitize("bad\xff" "ok\xc3\xa9", buf, sizeof(buf));
	CHECK_STR(buf, "bad\\xffok\xc3\xa9", "text: stray byte escaped, é kept");
	text_sanitize("bidi\xe2\x80\xae" "x", buf, sizeof(buf));
	CHECK_STR(buf, "bidi\\xe2\\x80\\xaex", "text: RIGHT-TO-LEFT OVERRIDE escaped");
	text_sanitize("back\\slash \"q\"", buf, sizeof(buf));
	CHECK_STR(buf, "back\\\\slash \"q\"", "text: backslash doubled, quotes kept");
	CHECK_U64(text_sanitize("\x01\x02\x03", buf, 9), 12, "text: full length reported");
	CHECK_STR(buf, "\\x01\\x02", "text: cut at a whole escape");

	snprintf(buf, sizeof(buf), "ab\xc3");
	utf8_trim_partial(buf);
	CHECK_STR(buf, "ab", "trim: half of é dropped");
	snprintf(buf, sizeof(buf), "ab\xe2\x82");
	utf8_trim_partial(buf);
	CHECK_STR(buf, "ab", "trim: two thirds of € dropped");
	snprintf(buf, sizeof(buf), "ab\xe2\x82\xac");
	utf8_trim_partial(buf);
	CHECK_STR(buf, "ab\xe2\x82\xac", "trim: whole € kept");

	json_escape("e\x1b" "c1\xc2\x9b" "bad\xff" "\xc3\xa9\x7f", buf, sizeof(buf));
	CHECK_STR(buf, "e\\u001bc1\\u009bbad\\ufffd\xc3\xa9\\u007f",
		  "json: ESC, C1, DEL escaped, stray byte U+FFFD, é raw");
}

static void path_hex(struct json *j)
{
	json_object_begin(j);
	json_kv_path(j, "path", "/m/\xff" "a");
	json_kv_path(j, "ok", "/m/\xc3\xa9");
	json_object_end(j);
}

static void json_paths(void)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json_init(&j, f);
	path_hex(&j);
	fclose(f);
	CHECK_STR(buf, "{\"path\":\"/m/\\ufffda\",\"path_hex\":\"2f6d2fff61\","
		  "\"ok\":\"/m/\xc3\xa9\"}\n", "json: non-UTF-8 path keeps its bytes in hex");
}

static void mountinfo(void)
{
	struct mountinfo_line m;

	CHECK(mountinfo_parse("36 35 7:3 / /tmp/with\\040space\\011tab rw,relatime shared:1 "
			      "- xfs /dev/loop3 rw\n", &m) == 0, "mountinfo: parsed");
	CHECK_STR(m.mount, "/tmp/with space\ttab", "mountinfo: \\040 and \\011 decoded");
	CHECK_STR(m.fstype, "xfs", "mountinfo: type after the separator");
	CHECK_U64(m.dev, (7u << 20) | 3, "mountinfo: dev");
	CHECK(mountinfo_parse("36 35 7:3 / /a\\134b rw - xfs x rw\n", &m) == 0 &&
	      !strcmp(m.mount, "/a\\b"), "mountinfo: \\134 is a backslash");
	CHECK(!m.data_journal, "mountinfo: no data=journal in rw");
	CHECK(mountinfo_parse("36 35 7:3 / /e rw - ext4 /dev/loop3 rw,data=journal\n", &m) == 0 &&
	      m.data_journal, "mountinfo: data=journal, the last super option");
	CHECK(mountinfo_parse("36 35 7:3 / /e rw - ext4 /dev/loop3 data=journal,rw\n", &m) == 0 &&
	      m.data_journal, "mountinfo: data=journal, the first super option");
	CHECK(mountinfo_parse("36 35 7:3 / /e rw - ext4 /dev/loop3 rw,data=journalx\n", &m) == 0 &&
	      !m.data_journal, "mountinfo: data=journalx is another option");
	CHECK(mountinfo_parse("36 35 7:3 / /e rw,data=journal - ext4 /dev/loop3 rw\n", &m) == 0 &&
	      !m.data_journal, "mountinfo: only the super options count");
	CHECK(mountinfo_parse("36 35 7:3 / /e rw - ext4\n", &m) == 0 && !m.data_journal,
	      "mountinfo: no source, no super options: none");
	CHECK(mountinfo_parse("36 35 7:3 / /a rw\n", &m) != 0, "mountinfo: no separator refused");
	CHECK(mountinfo_parse("garbage", &m) != 0, "mountinfo: garbage refused");
}

/* family b (6.1, no dirty bitmap): "other" dirtying cannot be measured */
static void not_measured(void)
{
	const char *dir = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
	char path[512], err[256], *text = NULL;
	struct snapshot d = {};
	struct report_ctx rc = {};
	struct kfacts f = {};
	struct plan p;
	size_t len = 0;
	FILE *in, *out;

	snprintf(path, sizeof(path), "%s/family-b-6.1-unpatched.facts", dir);
	in = fopen(path, "r");
	CHECK(in && facts_parse(&f, in, err, sizeof(err)) == 0, "facts of family b");
	if (in)
		fclose(in);
	CHECK(plan_build(&f, MODE_AUTO, &p) == 0, "plan of family b");
	rc.plan = &p;
	out = open_memstream(&text, &len);
	report_text(out, "t", &d, &rc);
	fclose(out);
	CHECK(strstr(text, "other n/a") != NULL, "text: unmeasured 'other' is n/a");
	CHECK(strstr(text, "0 other in 0 folios") == NULL, "text: no 0 for what was not measured");
	free(text);
	facts_release(&f);
}

/* UTF-8 of cp into b (NUL-terminated); its length. */
static int utf8_encode(uint32_t cp, char *b)
{
	int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

	if (n == 1)
		b[0] = cp;
	else
		b[0] = (char)((0xf00 >> n) & 0xff) | (cp >> (6 * (n - 1)));
	for (int i = 1; i < n; i++)
		b[i] = 0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f);
	b[n] = '\0';
	return n;
}

/*
 * Issue 27 item 11: every output (terminal text, HTML, Prometheus labels)
 * lets through exactly the characters safetext's list does not call
 * controls, for every code point: one decoder, one list. The characters
 * each output writes as its own syntax (\\ " & < > ') are not controls and
 * are left out; what matters is that the control set is one.
 */
static void one_control_set(void)
{
	unsigned long bad_text = 0, bad_html = 0, bad_prom = 0, controls = 0;
	uint32_t first_html = 0, first_prom = 0, first_text = 0;
	char in[8], out[64], *h = NULL;
	size_t hl = 0;

	for (uint32_t cp = 1; cp <= 0x10ffff; cp++) {
		bool ctl = codepoint_is_control(cp), t, ht, pt;
		FILE *f;
		int n;

		if ((cp >= 0xd800 && cp <= 0xdfff) || (cp < 0x80 && strchr("\\\"&<>'", (int)cp)))
			continue;
		n = utf8_encode(cp, in);
		controls += ctl;
		text_sanitize(in, out, sizeof(out));
		t = strcmp(out, in) != 0;
		f = open_memstream(&h, &hl);
		html_escape(f, in);
		fclose(f);
		ht = strcmp(h, in) != 0;
		free(h);
		h = NULL;
		prom_escape_label(in, out, sizeof(out));
		pt = strcmp(out, in) != 0;
		if (t != ctl && !bad_text++)
			first_text = cp;
		if (ht != ctl && !bad_html++)
			first_html = cp;
		if (pt != ctl && !bad_prom++)
			first_prom = cp;
		(void)n;
	}
	CHECK(controls > 0x20 + 0x21 + 5 + 4, "controls: C0, DEL, C1, bidi overrides, isolates");
	CHECK_U64(bad_text, 0, "text_sanitize escapes exactly the controls (first off: U+%04X)",
		  first_text);
	CHECK_U64(bad_html, 0, "html_escape replaces exactly the controls (first off: U+%04X)",
		  first_html);
	CHECK_U64(bad_prom, 0, "prom_escape_label escapes exactly the controls (first off: U+%04X)",
		  first_prom);
	for (uint32_t cp = 0x202a; cp <= 0x202e; cp++)
		CHECK(codepoint_is_control(cp), "U+%04X (bidi override) is a control", cp);
	for (uint32_t cp = 0x2066; cp <= 0x2069; cp++)
		CHECK(codepoint_is_control(cp), "U+%04X (bidi isolate) is a control", cp);
	CHECK(codepoint_is_control(0x85) && codepoint_is_control(0x9b), "C1 controls");
}

int main(void)
{
	one_control_set();
	names();
	json_paths();
	mountinfo();
	not_measured();
	UNIT_EXIT();
}
