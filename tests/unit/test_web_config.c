// SPDX-License-Identifier: GPL-2.0
/*
 * The --web.config.file reader (web_config.c): the exporter-toolkit
 * subset it accepts, written out by hand, and each construct outside it
 * refused with a message that names the key or the construct.
 */
#include <errno.h>
#include "exporter/web_config.h"
#include "unit.h"

#define HASH_A "$2y$05$3k0J9jSaeU5/uO0cyT5OmeVlqucErItpMQQ5iG7.uxTOYfFofz4K2"
#define HASH_B "$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234"

static int parse(const char *text, struct web_config *wc, char *err, size_t len)
{
	return web_config_parse(text, strlen(text), "/etc/x", wc, err, len);
}

static void accepted(void)
{
	struct web_config wc;
	char err[256] = "";
	int ret = parse("---\n# exporter-toolkit's example, trimmed\n"
			"tls_server_config:\n  cert_file: server.crt   # relative\n"
			"  key_file: \"/k/server.key\"\n\n"
			"basic_auth_users:\n    alice: " HASH_A "\n"
			"    'bob''s': '" HASH_B "'\r\n", &wc, err, sizeof(err));

	CHECK_U64(ret, 0, "web_config.full.parses (%s)", err);
	if (ret)
		return;
	CHECK_STR(wc.cert_file, "/etc/x/server.crt", "web_config.full.cert_relative_to_dir");
	CHECK_STR(wc.key_file, "/k/server.key", "web_config.full.key_absolute_quoted");
	CHECK_U64(wc.nusers, 2, "web_config.full.users");
	CHECK_STR(wc.users[0].name, "alice", "web_config.full.user0");
	CHECK_STR(wc.users[0].hash, HASH_A, "web_config.full.hash0");
	CHECK_STR(wc.users[1].name, "bob's", "web_config.full.user1_single_quote_escape");
	CHECK_STR(wc.users[1].hash, HASH_B, "web_config.full.hash1");
	web_config_free(&wc);

	ret = parse("# nothing but comments\n\n", &wc, err, sizeof(err));
	CHECK(ret == 0 && !wc.cert_file && !wc.nusers, "web_config.empty_is_plain_http");
	web_config_free(&wc);
	ret = parse("basic_auth_users:\n", &wc, err, sizeof(err));
	CHECK(ret == 0 && !wc.nusers, "web_config.empty_section");
	web_config_free(&wc);
}

static const struct {
	const char *name, *text, *want;		/* want: a part of the message */
} refused[] = {
	{ "unknown_top", "http_server_config:\n  http2: false\n",
	  "line 1: http_server_config is not supported (supported: tls_server_config, "
	  "basic_auth_users)" },
	{ "client_auth", "tls_server_config:\n  cert_file: a\n  key_file: b\n"
	  "  client_auth_type: RequireAndVerifyClientCert\n",
	  "line 4: tls_server_config.client_auth_type is not supported (supported: "
	  "cert_file, key_file)" },
	{ "min_version", "tls_server_config:\n  min_version: TLS13\n",
	  "tls_server_config.min_version is not supported" },
	{ "cert_only", "tls_server_config:\n  cert_file: a\n",
	  "tls_server_config needs both cert_file and key_file" },
	{ "not_bcrypt", "basic_auth_users:\n  alice: secret\n",
	  "line 2: basic_auth_users.alice: not a bcrypt hash" },
	{ "sha_crypt", "basic_auth_users:\n  alice: $6$salt$abc\n", "not a bcrypt hash" },
	{ "duplicate_user", "basic_auth_users:\n  a: " HASH_A "\n  a: " HASH_A "\n",
	  "line 3: basic_auth_users.a given twice" },
	{ "duplicate_section", "basic_auth_users:\nbasic_auth_users:\n",
	  "line 2: basic_auth_users given twice" },
	{ "tab_indent", "basic_auth_users:\n\ta: " HASH_A "\n", "line 2: a tab" },
	{ "flow_mapping", "basic_auth_users: {a: b}\n", "'{' starts a YAML construct" },
	{ "inline_value", "tls_server_config: x\n", "must be a block mapping" },
	{ "nested", "tls_server_config:\n  cert_file: a\n    key_file: b\n",
	  "nested values are not supported" },
	{ "orphan", "  cert_file: a\n", "outside any section" },
	{ "sequence", "basic_auth_users:\n  - a\n", "'-' starts a YAML construct" },
	{ "anchor", "basic_auth_users:\n  a: &x " HASH_A "\n", "'&' starts" },
	{ "no_colon", "basic_auth_users\n", "is not a 'key: value' line" },
	{ "unterminated", "basic_auth_users:\n  a: \"" HASH_A "\n", "unterminated" },
	{ "escape", "basic_auth_users:\n  \"a\\n\": x\n", "escape \\n is not supported" },
	{ "after_quote", "basic_auth_users:\n  a: '" HASH_A "' x\n", "text after the value" },
	{ "empty_cert", "tls_server_config:\n  cert_file:\n", "cert_file is empty" },
};

int main(void)
{
	accepted();
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct web_config wc;
		char err[256] = "";
		int ret = parse(refused[i].text, &wc, err, sizeof(err));

		CHECK_U64(ret, -EINVAL, "web_config.refused.%s", refused[i].name);
		CHECK(strstr(err, refused[i].want) != NULL, "web_config.refused.%s.message "
		      "('%s' in '%s')", refused[i].name, refused[i].want, err);
	}
	CHECK(web_config_is_bcrypt(HASH_A), "web_config.bcrypt.2y");
	CHECK(!web_config_is_bcrypt("$2y$03$3k0J9jSaeU5/uO0cyT5OmeVlqucErItpMQQ5iG7.uxTOYfFofz4K2"),
	      "web_config.bcrypt.cost_below_4");
	CHECK(!web_config_is_bcrypt("$2y$05$3k0J9jSaeU5/uO0cyT5OmeVlqucErItpMQQ5iG7.uxTOYfFofz4K"),
	      "web_config.bcrypt.short");
	UNIT_EXIT();
}
