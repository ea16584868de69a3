// SPDX-License-Identifier: GPL-2.0
/* A device's name as the reports write it: see fs.h. */
#include <stdio.h>
#include "model/fs.h"

void kdev_name(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", kdev_major(dev), kdev_minor(dev));
}
