/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folio layout of a cached file, read from /proc/self/pagemap and
 * /proc/kpageflags (root only).  Measured, not predicted: used to tell
 * whether the "one folio per page" expectations apply, and to give an exact
 * folio count where large folios make it unknowable from offsets alone.
 */
#ifndef IOMAPDIRTY_E2E_FOLIO_LAYOUT_H
#define IOMAPDIRTY_E2E_FOLIO_LAYOUT_H

#include <stdint.h>
#include <stddef.h>
#include "expect.h"

struct folio_layout {
	struct byte_range *folios;	/* file offset and size, sorted */
	size_t nr;
	uint64_t resident_pages;	/* pages cached before the probe */
	uint64_t pages;			/* pages in the file */
};

/*
 * Probe @fd's page-cache folios over [0, size).  Faults the pages in by
 * reading through a shared mapping (it does not dirty anything; pages not
 * cached are read in, so call it on a cached file).  Returns 0 or -errno;
 * -EPERM when PFNs are hidden (no CAP_SYS_ADMIN).
 */
int folio_layout_probe(int fd, uint64_t size, long page_size,
		       struct folio_layout *lo);
void folio_layout_free(struct folio_layout *lo);

#endif
