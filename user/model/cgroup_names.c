// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup path shapes (see cgroup_names.h). The shapes, by runtime and
 * cgroup driver:
 *   docker      /docker/ID                  /system.slice/docker-ID.scope
 *   containerd  /kubepods/.../ID            cri-containerd-ID.scope
 *   cri-o       /kubepods/.../crio-ID       crio-ID.scope (crio-conmon-ID: conmon)
 *   podman      /libpod_parent/libpod-ID    libpod-ID.scope (libpod-conmon-ID: conmon)
 *   pods        /kubepods[/QOS]/podUID/     kubepods[-QOS]-podUID_WITH_UNDERSCORES.slice
 * A Guaranteed pod sits directly under kubepods (no QoS level).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "model/cgroup_names.h"

#define ID_LEN	64

static bool hex_id(const char *s, size_t len)
{
	if (len != ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t l = strlen(suffix);

	return len >= l && !memcmp(s + len - l, suffix, l);
}

/* "PREFIXID[.scope]": the id, if comp has that shape */
static bool prefixed_id(const char *comp, size_t len, const char *prefix, char *id)
{
	size_t pl = strlen(prefix);

	if (len < pl || memcmp(comp, prefix, pl))
		return false;
	comp += pl;
	len -= pl;
	if (ends_with(comp, len, ".scope"))
		len -= strlen(".scope");
	if (!hex_id(comp, len))
		return false;
	memcpy(id, comp, ID_LEN);
	id[ID_LEN] = 0;
	return true;
}

static void container_of(const char *comp, size_t len, const char *parent,
			 struct cgroup_names *n)
{
	static const struct { const char *prefix, *runtime; } shapes[] = {
		{ "docker-", "docker" }, { "cri-containerd-", "containerd" },
		{ "crio-", "cri-o" }, { "libpod-", "podman" },
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		if (prefixed_id(comp, len, shapes[i].prefix, n->container)) {
			snprintf(n->runtime, sizeof(n->runtime), "%s", shapes[i].runtime);
			return;
		}
	/* a bare id: docker's cgroupfs driver, or a pod's container (containerd) */
	if (hex_id(comp, len)) {
		memcpy(n->container, comp, ID_LEN);
		n->container[ID_LEN] = 0;
		snprintf(n->runtime, sizeof(n->runtime), "%s",
			 !strcmp(parent, "docker") ? "docker" : "containerd");
	}
}

/* "podUID" (cgroupfs) or "kubepods[-QOS]-podUID.slice" (systemd) */
static void pod_of(const char *comp, size_t len, struct cgroup_names *n)
{
	const char *p = NULL;
	size_t ulen;
	char uid[37];

	if (len > 3 && !memcmp(comp, "pod", 3)) {
		p = comp + 3;
	} else if (len > 9 && !memcmp(comp, "kubepods-", 9) && ends_with(comp, len, ".slice")) {
		const char *last = comp + len - strlen(".slice");

		for (const char *q = comp; q + 4 <= last; q++)
			if (!memcmp(q, "-pod", 4))
				p = q + 4;
		len = last - comp;
	}
	if (!p)
		return;
	ulen = comp + len - p;
	if (ulen != 36)
		return;
	for (size_t i = 0; i < ulen; i++) {
		char c = p[i] == '_' ? '-' : p[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? c != '-' : !isxdigit((unsigned char)c))
			return;
		uid[i] = c;
	}
	uid[36] = 0;
	snprintf(n->pod_uid, sizeof(n->pod_uid), "%s", uid);
}

static void qos_of(const char *comp, size_t len, const char *parent, struct cgroup_names *n)
{
	static const char *const classes[] = { "burstable", "besteffort" };
	char name[64];

	if (len >= sizeof(name))
		return;
	memcpy(name, comp, len);
	name[len] = 0;
	for (int i = 0; i < 2; i++) {
		char sd[64];

		snprintf(sd, sizeof(sd), "kubepods-%s.slice", classes[i]);
		if ((!strcmp(parent, "kubepods") && !strcmp(name, classes[i])) || !strcmp(name, sd))
			snprintf(n->qos, sizeof(n->qos), "%s", classes[i]);
	}
}

void cgroup_names_parse(const char *path, struct cgroup_names *n)
{
	char parent[256] = "", unit_slice[256] = "";
	bool in_kubepods = false;

	memset(n, 0, sizeof(*n));
	for (const char *c = path; *c;) {
		size_t len;

		while (*c == '/')
			c++;
		len = strcspn(c, "/");
		if (!len)
			break;
		if (ends_with(c, len, ".service") || ends_with(c, len, ".scope"))
			snprintf(n->unit, sizeof(n->unit), "%.*s", (int)len, c);
		else if (ends_with(c, len, ".slice"))
			snprintf(unit_slice, sizeof(unit_slice), "%.*s", (int)len, c);
		if ((len == 8 && !memcmp(c, "kubepods", 8)) ||
		    (len == 14 && !memcmp(c, "kubepods.slice", 14)))
			in_kubepods = true;
		if (in_kubepods) {
			qos_of(c, len, parent, n);
			pod_of(c, len, n);
		}
		container_of(c, len, parent, n);
		snprintf(parent, sizeof(parent), "%.*s", (int)len, c);
		c += len;
	}
	if (!n->unit[0])
		snprintf(n->unit, sizeof(n->unit), "%s", unit_slice);
	if (n->pod_uid[0] && !n->qos[0])
		snprintf(n->qos, sizeof(n->qos), "guaranteed");
}
