// SPDX-License-Identifier: GPL-2.0
/* The JSON writer, against documents written out by hand from RFC 8259. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "output/json.h"
#include "runs/fio_results.h"
#include "runs/runfile.h"
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

/* The offline readers' returns: 0 or a negative errno (lib/exitcodes.h). */
static void check_reader_errors(void)
{
	char dir[] = "/tmp/iomapdirty-unit-XXXXXX", path[128], link[128], err[256];
	struct run_file rf;
	struct fio_summary fs;
	FILE *f;

	if (!mkdtemp(dir)) {
		CHECK(0, "readers.tmpdir");
		return;
	}
	snprintf(path, sizeof(path), "%s/missing.json", dir);
	CHECK_U64(-run_file_load(path, &rf, err, sizeof(err)), ENOENT, "readers.missing_enoent");
	snprintf(path, sizeof(path), "%s/notjson.json", dir);
	f = fopen(path, "w");
	fputs("this is not JSON\n", f);
	fclose(f);
	CHECK_U64(-run_file_load(path, &rf, err, sizeof(err)), EINVAL, "readers.not_json_einval");
	CHECK_U64(-fio_summary_load(path, 0, &fs, err, sizeof(err)), EINVAL,
		  "readers.fio_not_json_einval");
	CHECK_U64(-fio_summary_load(path, time(NULL) + 3600, &fs, err, sizeof(err)), EINVAL,
		  "readers.fio_older_than_run_einval");
	snprintf(link, sizeof(link), "%s/link.json", dir);
	CHECK(!symlink(path, link), "readers.symlink_made");
	CHECK_U64(-run_file_load(link, &rf, err, sizeof(err)), ELOOP, "readers.symlink_eloop");
	CHECK_U64(-run_file_load(dir, &rf, err, sizeof(err)), EINVAL, "readers.directory_einval");
	unlink(link);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	char buf[64];

	check_reader_errors();

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
