// SPDX-License-Identifier: GPL-2.0
/*
 * Capabilities after attach: see caps.h. Plain capget/capset and prctl:
 * two system calls and one loop; libcap would add a library for the same
 * three steps.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "host/caps.h"

/* The highest capability this kernel knows (CAP_LAST_CAP if unreadable). */
static int cap_last(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = CAP_LAST_CAP;

	if (f) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = CAP_LAST_CAP;
		fclose(f);
	}
	return last;
}

int caps_drop_except(uint64_t keep, char *err, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	int last = cap_last();
	bool setpcap;

	if (last < CAP_BPF)	/* map reads need CAP_SYS_ADMIN there */
		keep |= CAP_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(err, len, "capget: %s", strerror(errno));
		return -errno;
	}
	setpcap = data[CAP_TO_INDEX(CAP_SETPCAP)].effective & CAP_TO_MASK(CAP_SETPCAP);
	/* the bounding set first: dropping from it needs CAP_SETPCAP */
	for (int c = 0; setpcap && c <= last; c++) {
		if (keep & CAP_MASK(c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL) {
			snprintf(err, len, "dropping capability %d from the bounding set: %s",
				 c, strerror(errno));
			return -errno;
		}
	}
	/* EINVAL: a kernel before ambient capabilities (4.3) has none */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		snprintf(err, len, "clearing the ambient capabilities: %s", strerror(errno));
		return -errno;
	}
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));

		data[i].effective &= k;
		data[i].permitted &= k;
		data[i].inheritable &= k;
	}
	if (syscall(SYS_capset, &hdr, data)) {
		snprintf(err, len, "capset: %s", strerror(errno));
		return -errno;
	}
	return 0;
}
