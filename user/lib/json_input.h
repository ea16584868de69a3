/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON input files, read with care and walked with errors that name the
 * place: the run files compare and report load (runfile.c) and fio's
 * results that run keeps (fio_results.c). Parsing is json-c's (strict
 * RFC 8259, exact 64-bit integers, the error's position); these helpers
 * only open, read and walk, and keep the first error met.
 */
#ifndef IOMAPDIRTY_JSON_INPUT_H
#define IOMAPDIRTY_JSON_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* json-c's type (<json-c/json.h>), kept out of the includers of this header */
struct json_object;

/* Larger input files are refused. */
#define INPUT_MAX_BYTES	(256u << 20)

/* A number from the file, or unknown (null or absent). */
struct run_num {
	double v;		/* ratios, seconds, rates */
	uint64_t u;		/* counters: exact */
	bool known;
};

/* The walk's state: the file, and the first error met. */
struct walk {
	const char *file;
	char *err;
	size_t len;
	bool failed;
};

/* Keeps the first error, "FILE: " and the message, in w->err. */
void walk_fail(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Opens a file to read: a regular file, never through a symbolic link
 * (root reads files that other users may have written). Returns the fd
 * or a negative errno with err (-EINVAL: not a regular file, -EFBIG: too
 * large).
 */
int input_open(const char *path, char *err, size_t len);
/*
 * The whole file (input_open's rules), NUL-terminated; *n its length,
 * *mtime (if not NULL) its modification time. NULL with err and errno.
 */
char *input_read_all(const char *path, size_t *n, time_t *mtime, char *err,
		     size_t len);
/* One JSON document from text, nothing but white space after it. */
struct json_object *walk_parse(const char *text, size_t n, struct walk *w);

/*
 * Members of an object. `where` is the path printed before the key in an
 * error ("totals.", "files[3]."). A member given as null, or absent, is
 * unknown: NULL, or a run_num not known; a member of the wrong type is an
 * error.
 */
struct json_object *walk_member(struct json_object *o, const char *key);
/* A member that must be an object; required: its absence is an error. */
struct json_object *walk_object(struct walk *w, struct json_object *o, const char *where,
			 const char *key, bool required);
/* A counter: a non-negative integer. */
void walk_u64(struct walk *w, struct json_object *o, const char *where,
	      const char *key, struct run_num *out);
/* A number (ratio, seconds). */
void walk_double(struct walk *w, struct json_object *o, const char *where,
		 const char *key, struct run_num *out);
/* A string, copied (free it). */
char *walk_string(struct walk *w, struct json_object *o, const char *where,
		  const char *key);
/* A string into buf, cut to fit; "" when unknown. */
void walk_copy_string(struct walk *w, struct json_object *o, const char *where,
		      const char *key, char *buf, size_t len);

#endif
