// SPDX-License-Identifier: GPL-2.0
/*
 * The web configuration file: see web_config.h. A line reader for block
 * mappings two levels deep, not a YAML library: the format's subset is
 * small, and every construct outside it is refused by name rather than
 * half understood.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json_input.h"
#include "exporter/web_config.h"

#define WEB_CONFIG_MAX_BYTES	(1u << 20)

enum section { SEC_NONE, SEC_TLS, SEC_USERS };

struct reader {
	struct web_config *wc;
	const char *base_dir;
	char *err;
	size_t errlen;
	int line;
	enum section sec;
	int sec_indent;		/* the children's indent, 0: none seen yet */
	bool seen[3];		/* sections met */
	bool content;		/* a key seen: "---" only before */
};

static int fail(struct reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, r->errlen, "line %d: ", r->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < r->errlen)
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

bool web_config_is_bcrypt(const char *s)
{
	static const char b64[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(s) != 60 || s[0] != '$' || s[1] != '2' || !strchr("aby", s[2]) ||
	    s[3] != '$' || s[4] < '0' || s[4] > '3' || s[5] < '0' || s[5] > '9' ||
	    s[6] != '$')
		return false;
	cost = (s[4] - '0') * 10 + (s[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	for (int i = 7; i < 60; i++)
		if (!strchr(b64, s[i]))
			return false;
	return true;
}

/* After a scalar: nothing, or spaces and a comment. */
static bool only_comment(const char *p)
{
	while (*p == ' ')
		p++;
	return !*p || *p == '#';
}

/*
 * A quoted scalar at p ('...' with '' for a quote, "..." with \" and \\
 * only); *end past the closing quote. NULL with the reason in r.
 */
static char *quoted(struct reader *r, const char *p, const char **end)
{
	char q = *p++, *out = malloc(strlen(p) + 1), *o = out;

	if (!out)
		return fail(r, "out of memory"), NULL;
	for (;; p++) {
		if (!*p) {
			free(out);
			return fail(r, "unterminated %s-quoted string (strings span one line "
				    "here)", q == '"' ? "double" : "single"), NULL;
		}
		if (*p == q && q == '\'' && p[1] == '\'') {
			*o++ = *p++;
		} else if (*p == q) {
			break;
		} else if (*p == '\\' && q == '"') {
			if (p[1] != '"' && p[1] != '\\') {
				free(out);
				return fail(r, "escape \\%c is not supported (only \\\" and \\\\)",
					    p[1] ? p[1] : ' '), NULL;
			}
			*o++ = *++p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	*end = p + 1;
	return out;
}

/*
 * A scalar: quoted, or plain up to the end of the line or a " #"
 * comment (as_key: up to ':'). YAML's other indicators at its start
 * (flow collections, anchors, aliases, tags, block scalars, sequences)
 * are outside the subset. NULL with the reason in r.
 */
static char *scalar(struct reader *r, const char *p, const char **end, bool as_key)
{
	const char *e = p;
	char *s;

	if (*p == '\'' || *p == '"')
		return quoted(r, p, end);
	if (strchr("[]{}&*!|>%@`,?", *p) || (*p == '-' && (p[1] == ' ' || !p[1])))
		return fail(r, "'%c' starts a YAML construct this reader does not support "
			    "(block mappings of plain or quoted strings only; quote the value)",
			    *p), NULL;
	while (*e && !(as_key && *e == ':' && (e[1] == ' ' || !e[1])) &&
	       !(*e == '#' && e > p && e[-1] == ' '))
		e++;
	*end = e;
	while (e > p && e[-1] == ' ')
		e--;
	s = strndup(p, e - p);
	if (!s)
		fail(r, "out of memory");
	return s;
}

static char *resolve(struct reader *r, const char *name)
{
	char *path;

	if (name[0] == '/' || !r->base_dir)
		path = strdup(name);
	else if (asprintf(&path, "%s/%s", r->base_dir, name) < 0)
		path = NULL;
	if (!path)
		fail(r, "out of memory");
	return path;
}

static int tls_key(struct reader *r, const char *key, const char *val)
{
	char **slot = !strcmp(key, "cert_file") ? &r->wc->cert_file :
		      !strcmp(key, "key_file") ? &r->wc->key_file : NULL;

	if (!slot)
		return fail(r, "tls_server_config.%s is not supported (supported: cert_file, "
			    "key_file)", key);
	if (*slot)
		return fail(r, "tls_server_config.%s given twice", key);
	if (!*val)
		return fail(r, "tls_server_config.%s is empty", key);
	*slot = resolve(r, val);
	return *slot ? 0 : -ENOMEM;
}

static int user_key(struct reader *r, const char *name, const char *hash)
{
	struct web_config *wc = r->wc;
	struct web_user *u;

	if (!*name)
		return fail(r, "basic_auth_users: an empty user name");
	for (int i = 0; i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, name))
			return fail(r, "basic_auth_users.%s given twice", name);
	if (!web_config_is_bcrypt(hash))
		return fail(r, "basic_auth_users.%s: not a bcrypt hash ($2a$, $2b$ or $2y$, "
			    "60 characters: htpasswd -nbB USER PASSWORD makes one)", name);
	if (wc->nusers >= WEB_CONFIG_MAX_USERS)
		return fail(r, "basic_auth_users: more than %d users", WEB_CONFIG_MAX_USERS);
	u = realloc(wc->users, (wc->nusers + 1) * sizeof(*u));
	if (!u)
		return fail(r, "out of memory");
	wc->users = u;
	u[wc->nusers].name = strdup(name);
	u[wc->nusers].hash = strdup(hash);
	if (!u[wc->nusers].name || !u[wc->nusers].hash) {
		free(u[wc->nusers].name);
		free(u[wc->nusers].hash);
		return fail(r, "out of memory");
	}
	wc->nusers++;
	return 0;
}

static int top_key(struct reader *r, const char *key, const char *val)
{
	enum section s = !strcmp(key, "tls_server_config") ? SEC_TLS :
			 !strcmp(key, "basic_auth_users") ? SEC_USERS : SEC_NONE;

	if (s == SEC_NONE)
		return fail(r, "%s is not supported (supported: tls_server_config, "
			    "basic_auth_users)", key);
	if (r->seen[s])
		return fail(r, "%s given twice", key);
	if (*val)
		return fail(r, "%s must be a block mapping (its keys on the lines below, "
			    "indented)", key);
	r->seen[s] = true;
	r->sec = s;
	r->sec_indent = 0;
	return 0;
}

/* One line without its end; comments and blank lines skipped. */
static int one_line(struct reader *r, const char *line)
{
	const char *p = line, *end;
	char *key = NULL, *val = NULL;
	int indent, ret;

	while (*p == ' ')
		p++;
	indent = p - line;
	if (*p == '\t')
		return fail(r, "a tab in the indentation (YAML indents with spaces)");
	if (!*p || *p == '#')
		return 0;
	if (!indent && !r->content && !strncmp(p, "---", 3) && only_comment(p + 3))
		return 0;
	key = scalar(r, p, &end, true);
	if (!key)
		return -EINVAL;
	if (*end != ':') {
		ret = fail(r, "'%s' is not a 'key: value' line", key);
		goto out;
	}
	p = end + 1;
	while (*p == ' ')
		p++;
	val = (*p && *p != '#') ? scalar(r, p, &end, false) : strdup("");
	if (!val || (*p && *p != '#' && !only_comment(end))) {
		ret = val ? fail(r, "text after the value of %s", key) : -EINVAL;
		goto out;
	}
	r->content = true;
	if (!indent) {
		ret = top_key(r, key, val);
		goto out;
	}
	if (r->sec == SEC_NONE) {
		ret = fail(r, "an indented key (%s) outside any section", key);
		goto out;
	}
	if (!r->sec_indent)
		r->sec_indent = indent;
	if (indent != r->sec_indent) {
		ret = fail(r, "%s: nested values are not supported (indent %d, the section's "
			   "keys are at %d)", key, indent, r->sec_indent);
		goto out;
	}
	ret = r->sec == SEC_TLS ? tls_key(r, key, val) : user_key(r, key, val);
out:
	free(key);
	free(val);
	return ret;
}

int web_config_parse(const char *text, size_t len, const char *base_dir,
		     struct web_config *wc, char *err, size_t errlen)
{
	struct reader r = { .wc = wc, .base_dir = base_dir, .err = err, .errlen = errlen };
	const char *p = text, *end = text + len;

	memset(wc, 0, sizeof(*wc));
	if (memchr(text, '\0', len))
		return r.line = 0, fail(&r, "a NUL byte: not a text file");
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		char *line = strndup(p, n);
		int ret;

		r.line++;
		if (!line)
			return fail(&r, "out of memory");
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		ret = one_line(&r, line);
		free(line);
		if (ret) {
			web_config_free(wc);
			return ret;
		}
		p += n + 1;
	}
	if (r.seen[SEC_TLS] && (!wc->cert_file || !wc->key_file)) {
		r.line = 0;
		snprintf(err, errlen, "tls_server_config needs both cert_file and key_file");
		web_config_free(wc);
		return -EINVAL;
	}
	return 0;
}

int web_config_load(const char *path, struct web_config *wc, char *err, size_t errlen)
{
	char msg[512], *text, *dir, *slash;
	size_t n;
	int ret;

	memset(wc, 0, sizeof(*wc));
	text = input_read_all(path, &n, NULL, msg, sizeof(msg));
	if (!text) {
		snprintf(err, errlen, "%s", msg);
		return -EINVAL;
	}
	dir = strdup(path);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	ret = n > WEB_CONFIG_MAX_BYTES ? -EFBIG :
	      web_config_parse(text, n, slash ? dir : ".", wc, msg, sizeof(msg));
	free(text);
	free(dir);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, ret == -EFBIG ? "over 1 MiB" : msg);
		return -EINVAL;
	}
	if (wc->cert_file) {
		wc->cert_pem = input_read_all(wc->cert_file, &n, NULL, msg, sizeof(msg));
		if (wc->cert_pem)
			wc->key_pem = input_read_all(wc->key_file, &n, NULL, msg, sizeof(msg));
		if (!wc->cert_pem || !wc->key_pem) {
			snprintf(err, errlen, "%s: tls_server_config: %s", path, msg);
			web_config_free(wc);
			return -EINVAL;
		}
	}
	return 0;
}

void web_config_free(struct web_config *wc)
{
	for (int i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->cert_pem);
	memset(wc, 0, sizeof(*wc));
}
