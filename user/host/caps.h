/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dropping the capabilities the tool no longer needs once its programs
 * are loaded and attached (docs/iomapdirty.md, PRIVILEGES).
 */
#ifndef IOMAPDIRTY_CAPS_H
#define IOMAPDIRTY_CAPS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/capability.h>

#define CAP_MASK(c)	(1ULL << (c))
/*
 * What every observing command keeps after attach: CAP_BPF for the map
 * reads and the flush (before 6.5 every bpf() command needs it while
 * kernel.unprivileged_bpf_disabled is set, Debian's default), and
 * CAP_DAC_READ_SEARCH for the path checks under users' directories.
 */
#define CAPS_AFTER_ATTACH	(CAP_MASK(CAP_BPF) | CAP_MASK(CAP_DAC_READ_SEARCH))

/*
 * Leaves the calling thread only the capabilities in keep (those it has),
 * in its effective, permitted and inheritable sets, clears its ambient set,
 * and drops every other one from its bounding set when it may
 * (CAP_SETPCAP). On a kernel without CAP_BPF (before 5.8) CAP_SYS_ADMIN
 * stands in for it. Threads started later inherit the result. 0, or
 * -errno with the step in err.
 */
int caps_drop_except(uint64_t keep, char *err, size_t len);

#endif
