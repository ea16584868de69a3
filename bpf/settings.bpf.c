// SPDX-License-Identifier: GPL-2.0
/* The one definition of the load-time settings (see settings.bpf.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#define SETTINGS_HERE
#include "settings.bpf.h"

char LICENSE[] SEC("license") = "GPL";
