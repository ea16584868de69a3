/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: objects, arrays, strings escaped per
 * RFC 8259, u64 written exactly, ratios as numbers or null. It tracks
 * commas itself so callers only say what comes next.
 */
#ifndef IOMAPDIRTY_JSON_H
#define IOMAPDIRTY_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "model/ratios.h"

#define JSON_MAX_DEPTH	16

struct json {
	FILE *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;
};

void json_init(struct json *j, FILE *out);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_null(struct json *j);
/* num / den with 4 decimals, or null when den is 0. */
void json_ratio(struct json *j, struct ratio r);
void json_double(struct json *j, double v);

/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);

/*
 * A name (a path): as json_kv_string, and when it is not valid UTF-8 (its
 * string then shows U+FFFD for the stray bytes) also "<key>_hex", the
 * exact bytes in hex.
 */
void json_kv_path(struct json *j, const char *key, const char *path);

/* Writes s escaped (without quotes) into buf; for tests and reuse. */
size_t json_escape(const char *s, char *buf, size_t len);

#endif
