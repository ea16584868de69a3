// SPDX-License-Identifier: GPL-2.0
/* The host's answers to a renderer's questions: see names.h. */
#include "host/cgroup.h"
#include "host/fsinfo.h"
#include "host/names.h"

const struct host_lookup host_names = {
	.fs = fsinfo_lookup_dev,
	.cgroup_path = cgroup_path_of,
};
