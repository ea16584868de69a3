// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer: see json.h. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "output/json.h"
#include "output/safetext.h"

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

/*
 * RFC 8259 escaping, and always valid UTF-8 out: well-formed sequences
 * are copied, except control code points (C0, DEL, C1, bidirectional
 * overrides: see codepoint_is_control), written as \uXXXX so no raw
 * control reaches a terminal that shows the document; a byte that is not
 * UTF-8 becomes U+FFFD (json_kv_path keeps the raw bytes in hex).
 */
size_t json_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 0;

	while (left) {
		char tmp[8];
		const char *piece = tmp;
		size_t plen;
		uint32_t cp;
		int l = utf8_decode(p, left, &cp);

		if (!l) {
			piece = "\\ufffd";
			l = 1;
		} else if (cp == '"') {
			piece = "\\\"";
		} else if (cp == '\\') {
			piece = "\\\\";
		} else if (cp == '\n') {
			piece = "\\n";
		} else if (cp == '\t') {
			piece = "\\t";
		} else if (codepoint_is_control(cp)) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", cp);
		} else {
			memcpy(tmp, p, l);
			tmp[l] = '\0';
		}
		plen = strlen(piece);
		for (size_t i = 0; i < plen; i++, n++)
			if (n + 1 < len)
				buf[n] = piece[i];
		p += l;
		left -= l;
	}
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

static void put_string(struct json *j, const char *s)
{
	char buf[512];
	size_t n = json_escape(s, buf, sizeof(buf));
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);
	uint32_t cp;

	if (n < sizeof(buf)) {
		fprintf(j->out, "\"%s\"", buf);
		return;
	}
	/* long strings: escape one character (or stray byte) at a time */
	fputc('"', j->out);
	while (left) {
		char one[5] = {};
		int l = utf8_decode(p, left, &cp);

		if (!l)
			l = 1;
		memcpy(one, p, l);
		json_escape(one, buf, sizeof(buf));
		fputs(buf, j->out);
		p += l;
		left -= l;
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


static void json_bool(struct json *j, bool v)
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

void json_ratio(struct json *j, struct ratio r)
{
	if (!r.den) {
		json_null(j);
		return;
	}
	before_value(j);
	fprintf(j->out, "%.4f", (double)r.num / (double)r.den);
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


void json_kv_path(struct json *j, const char *key, const char *path)
{
	char hexkey[64];

	json_kv_string(j, key, path);
	if (!path || utf8_valid(path))
		return;
	/* not UTF-8: the exact bytes, which the string above cannot hold */
	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	json_key(j, hexkey);
	before_value(j);
	fputc('"', j->out);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		fprintf(j->out, "%02x", *p);
	fputc('"', j->out);
}
