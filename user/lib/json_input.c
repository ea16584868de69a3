// SPDX-License-Identifier: GPL-2.0
/*
 * Reading JSON input files: see json_input.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/json_input.h"

void walk_fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->failed)
		return;
	w->failed = true;
	n = snprintf(w->err, w->len, "%s: ", w->file);
	if (n < 0 || (size_t)n >= w->len)
		return;
	va_start(ap, fmt);
	vsnprintf(w->err + n, w->len - n, fmt, ap);
	va_end(ap);
}

int input_open(const char *path, char *err, size_t len)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(err, len, "%s: %s", path, e == ELOOP ?
			 "is a symbolic link (give the file itself)" : strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > INPUT_MAX_BYTES) {
		snprintf(err, len, "%s: larger than %u MiB", path, INPUT_MAX_BYTES >> 20);
		close(fd);
		return -EFBIG;
	}
	return fd;
}

char *input_read_all(const char *path, size_t *n, time_t *mtime, char *err,
		     size_t len)
{
	size_t cap = 65536, used = 0;
	char *buf = NULL;
	struct stat st;
	int fd = input_open(path, err, len), e = 0;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (mtime && !fstat(fd, &st))
		*mtime = st.st_mtim.tv_sec;
	for (;;) {
		ssize_t r;

		if (used + 1 >= cap || !buf) {
			char *nb;

			cap = buf ? cap * 2 : cap;
			nb = cap > INPUT_MAX_BYTES + 2 ? NULL : realloc(buf, cap);
			if (!nb) {
				snprintf(err, len, "%s: too large", path);
				e = cap > INPUT_MAX_BYTES + 2 ? EFBIG : ENOMEM;
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + used, cap - used - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			snprintf(err, len, "%s: %s", path, strerror(e));
			goto fail;
		}
		if (r == 0)
			break;
		used += r;
	}
	close(fd);
	buf[used] = '\0';
	*n = used;
	return buf;
fail:
	close(fd);
	free(buf);
	errno = e;
	return NULL;
}

/* Whether the digits [p, end) exceed 2^64 - 1 (leading zeros aside). */
static bool digits_above_u64(const char *p, const char *end)
{
	static const char max[] = "18446744073709551615";
	size_t len;

	while (p < end - 1 && *p == '0')
		p++;
	len = end - p;
	return len > sizeof(max) - 1 || (len == sizeof(max) - 1 && memcmp(p, max, len) > 0);
}

/*
 * What json-c takes without a word and a run file must not hold: NaN and
 * Infinity (not JSON), and integers beyond 64 bits (json-c clamps them to
 * the largest value). Refused with the key they belong to.
 */
static int scan_literals(const char *text, size_t n, struct walk *w)
{
	const char *p = text, *end = text + n, *key = NULL, *str = NULL;
	size_t key_len = 0, str_len = 0;

	while (p < end) {
		const char *q;

		if (*p == '"') {
			for (q = p + 1; q < end && *q != '"'; q++)
				if (*q == '\\' && q + 1 < end)
					q++;
			str = p + 1;
			str_len = q - str;
			p = q + 1;
			continue;
		}
		if (*p == ':' && str) {
			key = str;
			key_len = str_len;
		}
		if (*p == 'N' || *p == 'I') {
			walk_fail(w, "%.*s: NaN or Infinity is not a JSON number (byte %zu)",
				  (int)(key_len > 64 ? 64 : key_len), key ? key : "(top)",
				  (size_t)(p - text));
			return -1;
		}
		if (*p == '-' || (*p >= '0' && *p <= '9')) {
			bool integer = true;

			for (q = p + (*p == '-'); q < end && strchr("0123456789.eE+-", *q); q++)
				integer &= *q >= '0' && *q <= '9';
			if (integer && digits_above_u64(p + (*p == '-'), q)) {
				walk_fail(w, "%.*s: integer beyond 64 bits (byte %zu)",
					  (int)(key_len > 64 ? 64 : key_len), key ? key : "(top)",
					  (size_t)(p - text));
				return -1;
			}
			p = q;
			continue;
		}
		p++;
	}
	return 0;
}

json_object *walk_parse(const char *text, size_t n, struct walk *w)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;
	json_object *root;
	size_t end;

	if (!tok) {
		walk_fail(w, "out of memory");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, text, (int)n);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (root && e == json_tokener_success && scan_literals(text, n, w)) {
		json_object_put(root);
		return NULL;
	}
	if (!root || e != json_tokener_success) {
		if (e == json_tokener_continue)
			walk_fail(w, "not JSON: the document ends early");
		else
			walk_fail(w, "not JSON: %s at byte %zu",
				  json_tokener_error_desc(e), end);
		json_object_put(root);
		return NULL;
	}
	while (end < n && strchr(" \t\r\n", text[end]))
		end++;
	if (end < n) {
		walk_fail(w, "more than one JSON document (byte %zu): give one "
			  "run's file (`run --json FILE`)", end);
		json_object_put(root);
		return NULL;
	}
	return root;
}

json_object *walk_member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	json_object_object_get_ex(o, key, &v);
	return v;
}

/* A member that must be an object (NULL if absent: checked by callers). */
json_object *walk_object(struct walk *w, json_object *o, const char *where,
			 const char *key, bool required)
{
	json_object *v = walk_member(o, key);

	if (!v || json_object_is_type(v, json_type_null)) {
		if (required)
			walk_fail(w, "%s%s missing: not a run file", where, key);
		return NULL;
	}
	if (!json_object_is_type(v, json_type_object)) {
		walk_fail(w, "%s%s: not an object", where, key);
		return NULL;
	}
	return v;
}

/* A counter: a non-negative integer, or null/absent (unknown). */
void walk_u64(struct walk *w, json_object *o, const char *where,
	      const char *key, struct run_num *out)
{
	json_object *v = walk_member(o, key);

	memset(out, 0, sizeof(*out));
	if (!v || json_object_is_type(v, json_type_null))
		return;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
		walk_fail(w, "%s%s: not a non-negative integer", where, key);
		return;
	}
	errno = 0;
	out->u = json_object_get_uint64(v);
	if (errno) {
		walk_fail(w, "%s%s: out of range", where, key);
		return;
	}
	out->v = (double)out->u;
	out->known = true;
}

/* A number (ratio, seconds), or null/absent (unknown). */
void walk_double(struct walk *w, json_object *o, const char *where,
		 const char *key, struct run_num *out)
{
	json_object *v = walk_member(o, key);

	memset(out, 0, sizeof(*out));
	if (!v || json_object_is_type(v, json_type_null))
		return;
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)) {
		walk_fail(w, "%s%s: not a number", where, key);
		return;
	}
	out->v = json_object_get_double(v);
	if (!isfinite(out->v)) {	/* 1e400 */
		walk_fail(w, "%s%s: not a finite number", where, key);
		return;
	}
	out->known = true;
}

/* A string member, copied; NULL when null or absent. */
char *walk_string(struct walk *w, json_object *o, const char *where,
		  const char *key)
{
	json_object *v = walk_member(o, key);
	char *s;

	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		walk_fail(w, "%s%s: not a string", where, key);
		return NULL;
	}
	s = strdup(json_object_get_string(v));
	if (!s)
		walk_fail(w, "out of memory");
	return s;
}

void walk_copy_string(struct walk *w, json_object *o, const char *where,
		      const char *key, char *buf, size_t len)
{
	char *s = walk_string(w, o, where, key);

	snprintf(buf, len, "%s", s ? s : "");
	free(s);
}

