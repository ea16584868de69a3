// SPDX-License-Identifier: GPL-2.0
/* The names of the path states (model/files.h), as JSON and top print them. */
#include "model/files.h"

const char *const path_state_names[] = {
	[PATH_OK] = "ok",
	[PATH_UNKNOWN] = "unknown",
	[PATH_DELETED] = "deleted",
	[PATH_MOVED] = "moved",
	[PATH_TRUNCATED] = "truncated",
	[PATH_UNCHECKED] = "unchecked",
};
