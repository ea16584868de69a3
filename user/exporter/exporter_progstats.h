/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF programs' own cost, from the kernel (bpf_prog_info): run time
 * and runs while kernel.bpf_stats_enabled is 1 (the exporter reads that
 * sysctl, never sets it), and runs skipped for recursion (always counted:
 * a skipped run is a lost event).
 */
#ifndef IOMAPDIRTY_EXPORTER_PROGSTATS_H
#define IOMAPDIRTY_EXPORTER_PROGSTATS_H

#include "live/engine.h"
#include "output/prom.h"

void progstats_render(struct engine *e, struct textbuf *tb);

#endif
