// SPDX-License-Identifier: GPL-2.0
/*
 * The one definition of every map shared between units: each is declared
 * with SHARED_MAP() in the header of its structure, included here (see
 * maps.bpf.h). A map used by one unit only is defined in that unit.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#define SHARED_MAPS_HERE
#include "maps.bpf.h"
#include "bio.bpf.h"
#include "cgroup_sums.bpf.h"
#include "clock.bpf.h"
#include "folio_ctx.bpf.h"
#include "other_writes.bpf.h"
#include "writers.bpf.h"
#include "page_table.bpf.h"
#include "paths.bpf.h"
#include "snapshot.bpf.h"
#include "sums.bpf.h"
#include "writeback.bpf.h"
#include "write_sums.bpf.h"
