// SPDX-License-Identifier: GPL-2.0
/* The JSON writer, against documents written out by hand from RFC 8259. */
#include <stdlib.h>
#include "output/json.h"
#include "unit.h"

static char *render(void (*fn)(struct json *))
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json_init(&j, f);
	fn(&j);
	fclose(f);
	return buf;
}

static void doc_nested(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "a", "x");
	json_kv_u64(j, "big", 18446744073709551615ull);
	json_key(j, "list");
	json_array_begin(j);
	json_u64(j, 1);
	json_object_begin(j);
	json_object_end(j);
	json_array_begin(j);
	json_array_end(j);
	json_null(j);
	json_array_end(j);
	json_kv_bool(j, "t", true);
	json_object_end(j);
}

static void doc_ratios(struct json *j)
{
	json_array_begin(j);
	json_ratio(j, (struct ratio){ 57344, 5100 });
	json_ratio(j, (struct ratio){ 1, 0 });
	json_ratio(j, (struct ratio){ 56, 56 });
	json_array_end(j);
}

static void doc_escape(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "p", "a\"b\\c\nd\te\x01/");
	json_key(j, "n");
	json_string(j, NULL);
	json_object_end(j);
}

int main(void)
{
	char buf[64];

	CHECK_STR(render(doc_nested),
		  "{\"a\":\"x\",\"big\":18446744073709551615,\"list\":[1,{},[],null],"
		  "\"t\":true}\n", "nested containers, commas and u64 max");
	CHECK_STR(render(doc_ratios), "[11.2439,null,1.0000]\n",
		  "ratios with 4 decimals, null for a zero denominator");
	CHECK_STR(render(doc_escape),
		  "{\"p\":\"a\\\"b\\\\c\\nd\\te\\u0001/\",\"n\":null}\n",
		  "string escapes and NULL strings");
	CHECK_U64(json_escape("abc\"", buf, 4), 5, "json_escape reports full length");
	CHECK_STR(buf, "abc", "json_escape truncates safely");
	UNIT_EXIT();
}
