/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names people know, read from a cgroup v2 path's shape alone (no file is
 * opened, nothing blocks): the systemd unit, the container runtime and id
 * (docker, containerd, cri-o, podman, with the systemd and the cgroupfs
 * drivers) and the Kubernetes pod UID and QoS class.
 */
#ifndef IOMAPDIRTY_CGROUP_NAMES_H
#define IOMAPDIRTY_CGROUP_NAMES_H

struct cgroup_names {
	char unit[256];		/* deepest .service or .scope, else .slice; "" */
	char runtime[16];	/* "docker", "containerd", "cri-o", "podman"; "" */
	char container[65];	/* the 64 hex digits of its id; "" */
	char pod_uid[37];	/* 8-4-4-4-12, with dashes; "" */
	char qos[16];		/* "guaranteed", "burstable", "besteffort"; "" */
};

/* Fills n from path ("/system.slice/docker-<id>.scope", ...). */
void cgroup_names_parse(const char *path, struct cgroup_names *n);

#endif
