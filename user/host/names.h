/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's answers to what a renderer asks about a device or a cgroup
 * (struct host_lookup, model/files.h): the mount table (host/fsinfo.h,
 * cached) and the cgroup v2 tree (host/cgroup.h, a bounded walk). The
 * commands and the exporter hand this to the renderers.
 */
#ifndef IOMAPDIRTY_HOST_NAMES_H
#define IOMAPDIRTY_HOST_NAMES_H

#include "model/files.h"

extern const struct host_lookup host_names;

#endif
