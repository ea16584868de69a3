// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup path shapes (user/model/cgroup_names.c): systemd units, container
 * runtimes with both cgroup drivers, Kubernetes pods and QoS classes, and
 * look-alikes that must not match. Paths written out by hand, in the
 * shapes the runtimes make (docker, containerd, cri-o, podman, kubelet).
 */
#include "model/cgroup_names.h"
#include "unit.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f"
#define UID_ "6f1c2d3e_4a5b_6c7d_8e9f_0a1b2c3d4e5f"

struct shape {
	const char *path, *unit, *runtime, *container, *pod, *qos;
};

static const struct shape shapes[] = {
	{ "/", "", "", "", "", "" },
	{ "/system.slice/cron.service", "cron.service", "", "", "", "" },
	{ "/user.slice/user-1000.slice/session-3.scope", "session-3.scope", "", "", "", "" },
	{ "/user.slice/user-1000.slice", "user-1000.slice", "", "", "", "" },
	{ "/system.slice/docker-" ID ".scope", "docker-" ID ".scope", "docker", ID, "", "" },
	{ "/docker/" ID, "", "docker", ID, "", "" },
	{ "/machine.slice/libpod-" ID ".scope", "libpod-" ID ".scope", "podman", ID, "", "" },
	{ "/machine.slice/libpod-conmon-" ID ".scope", "libpod-conmon-" ID ".scope",
	  "", "", "", "" },
	{ "/libpod_parent/libpod-" ID, "", "podman", ID, "", "" },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/"
	  "cri-containerd-" ID ".scope", "cri-containerd-" ID ".scope", "containerd", ID, UID,
	  "burstable" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/"
	  "crio-" ID ".scope", "crio-" ID ".scope", "cri-o", ID, UID, "besteffort" },
	{ "/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" ID ".scope",
	  "crio-conmon-" ID ".scope", "", "", UID, "guaranteed" },
	{ "/kubepods/burstable/pod" UID "/" ID, "", "containerd", ID, UID, "burstable" },
	{ "/kubepods/pod" UID "/crio-" ID, "", "cri-o", ID, UID, "guaranteed" },
	{ "/kubepods/besteffort/pod" UID, "", "", "", UID, "besteffort" },
	/* look-alikes: a short id, upper case, a pod outside kubepods */
	{ "/docker/0123abc", "", "", "", "", "" },
	{ "/docker/" "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef", "", "",
	  "", "", "" },
	{ "/mine/pod" UID, "", "", "", "", "" },
	{ "/kubepods/burstable/pod1234", "", "", "", "", "burstable" },
	{ "//system.slice//a.service/", "a.service", "", "", "", "" },
};

int main(void)
{
	struct cgroup_names n;

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		cgroup_names_parse(s->path, &n);
		CHECK_STR(n.unit, s->unit, "cgroup_names.%zu.unit", i);
		CHECK_STR(n.runtime, s->runtime, "cgroup_names.%zu.runtime", i);
		CHECK_STR(n.container, s->container, "cgroup_names.%zu.container", i);
		CHECK_STR(n.pod_uid, s->pod, "cgroup_names.%zu.pod_uid", i);
		CHECK_STR(n.qos, s->qos, "cgroup_names.%zu.qos", i);
	}
	UNIT_EXIT();
}
