// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer: see json.h. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "json.h"

void json_init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

/* Separator before a value: a comma unless first in its container. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->need_comma[j->depth])
		fputc(',', j->out);
	if (j->depth > 0)
		j->need_comma[j->depth] = true;
}

static void open_container(struct json *j, char c)
{
	before_value(j);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_container(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0)
		fputc('\n', j->out);	/* one document per line (JSON Lines) */
}

void json_object_begin(struct json *j) { open_container(j, '{'); }
void json_object_end(struct json *j) { close_container(j, '}'); }
void json_array_begin(struct json *j) { open_container(j, '['); }
void json_array_end(struct json *j) { close_container(j, ']'); }

size_t json_escape(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char tmp[8];
		const char *piece = tmp;

		switch (c) {
		case '"': piece = "\\\""; break;
		case '\\': piece = "\\\\"; break;
		case '\n': piece = "\\n"; break;
		case '\r': piece = "\\r"; break;
		case '\t': piece = "\\t"; break;
		case '\b': piece = "\\b"; break;
		case '\f': piece = "\\f"; break;
		default:
			if (c < 0x20)
				snprintf(tmp, sizeof(tmp), "\\u%04x", c);
			else
				snprintf(tmp, sizeof(tmp), "%c", c);
		}
		for (; *piece; piece++) {
			if (n + 1 < len)
				buf[n] = *piece;
			n++;
		}
	}
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

static void put_string(struct json *j, const char *s)
{
	char buf[512];
	size_t n = json_escape(s, buf, sizeof(buf));

	if (n < sizeof(buf)) {
		fprintf(j->out, "\"%s\"", buf);
		return;
	}
	/* long strings: escape character by character */
	fputc('"', j->out);
	for (; *s; s++) {
		char one[2] = { *s, 0 };

		json_escape(one, buf, sizeof(buf));
		fputs(buf, j->out);
	}
	fputc('"', j->out);
}

void json_key(struct json *j, const char *key)
{
	before_value(j);
	put_string(j, key);
	fputc(':', j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	before_value(j);
	if (s)
		put_string(j, s);
	else
		fputs("null", j->out);
}

void json_u64(struct json *j, uint64_t v)
{
	before_value(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	before_value(j);
	fprintf(j->out, "%" PRId64, v);
}

void json_bool(struct json *j, bool v)
{
	before_value(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	before_value(j);
	fputs("null", j->out);
}

void json_double(struct json *j, double v)
{
	before_value(j);
	if (isfinite(v))
		fprintf(j->out, "%.6g", v);
	else
		fputs("null", j->out);
}

void json_ratio(struct json *j, uint64_t num, uint64_t den)
{
	if (!den) {
		json_null(j);
		return;
	}
	before_value(j);
	fprintf(j->out, "%.4f", (double)num / (double)den);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_ratio(struct json *j, const char *key, uint64_t num, uint64_t den)
{
	json_key(j, key);
	json_ratio(j, num, den);
}
