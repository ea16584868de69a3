/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --web.config.file: the subset of prometheus/exporter-toolkit's web
 * configuration YAML the exporter supports, read strictly:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM; relative to the file's directory
 *     key_file: server.key
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt, as `htpasswd -nbB` writes it
 *
 * Every other key (client_auth_type, client_ca_file, min_version,
 * cipher_suites, http_server_config, ...) is an error that names it, as
 * are tabs, flow collections, anchors, duplicate keys and a value that is
 * not a bcrypt hash. Block mappings of plain or quoted scalars only.
 */
#ifndef IOMAPDIRTY_WEB_CONFIG_H
#define IOMAPDIRTY_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define WEB_CONFIG_MAX_USERS	256

struct web_user {
	char *name;
	char *hash;		/* "$2b$NN$" + 53 characters */
};

struct web_config {
	char *cert_file, *key_file;	/* resolved paths; NULL: no TLS */
	char *cert_pem, *key_pem;	/* their contents (web_config_load) */
	struct web_user *users;
	int nusers;			/* 0: no authentication */
};

/*
 * Parses text (len bytes) into wc; relative file names are taken from
 * base_dir. 0, or -EINVAL with "line N: ..." in err.
 */
int web_config_parse(const char *text, size_t len, const char *base_dir,
		     struct web_config *wc, char *err, size_t errlen);
/* Reads and parses the file, then the certificate and key it names. */
int web_config_load(const char *path, struct web_config *wc, char *err, size_t errlen);
void web_config_free(struct web_config *wc);
/* A bcrypt hash crypt(3) can check: $2a$, $2b$ or $2y$, cost 04-31. */
bool web_config_is_bcrypt(const char *s);

#endif
