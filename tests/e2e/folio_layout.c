// SPDX-License-Identifier: GPL-2.0
/* Folio layout of a cached file from pagemap + kpageflags; see header. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "folio_layout.h"

#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define KPF_COMPOUND_TAIL	16	/* include/uapi/linux/kernel-page-flags.h */

static int read_u64(int fd, uint64_t index, uint64_t *val)
{
	ssize_t n = pread(fd, val, sizeof(*val), index * sizeof(*val));

	if (n == (ssize_t)sizeof(*val))
		return 0;
	return n < 0 ? -errno : -EIO;
}

static int is_tail(int kpf, uint64_t pfn)
{
	uint64_t flags;

	if (read_u64(kpf, pfn, &flags))
		return 0;
	return !!(flags & (1ULL << KPF_COMPOUND_TAIL));
}

/* Fault in every page and return the PFNs behind the mapping. */
static int map_pfns(int fd, uint64_t npages, long psz, uint64_t *pfn,
		    uint64_t *resident)
{
	unsigned char *vec = NULL;
	volatile const char *p;
	uint64_t i;
	int pm, err = 0;

	p = mmap(NULL, npages * psz, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	vec = malloc(npages);
	*resident = 0;
	if (vec && !mincore((void *)p, npages * psz, vec)) {
		for (i = 0; i < npages; i++)
			*resident += vec[i] & 1;
	}
	for (i = 0; i < npages; i++)
		(void)p[i * psz];
	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0) {
		err = -errno;
		goto out;
	}
	for (i = 0; i < npages && !err; i++) {
		uint64_t e;

		err = read_u64(pm, ((uintptr_t)p + i * psz) / psz, &e);
		if (!err && !(e & PM_PRESENT))
			err = -EAGAIN;
		pfn[i] = e & PM_PFN_MASK;
		if (!err && !pfn[i])
			err = -EPERM;	/* PFNs hidden without CAP_SYS_ADMIN */
	}
	close(pm);
out:
	free(vec);
	munmap((void *)p, npages * psz);
	return err;
}

int folio_layout_probe(int fd, uint64_t size, long psz,
		       struct folio_layout *lo)
{
	uint64_t npages = (size + psz - 1) / psz, i, *pfn;
	int kpf, err;

	lo->folios = NULL;
	lo->nr = 0;
	lo->pages = npages;
	lo->resident_pages = 0;
	if (!npages)
		return 0;
	pfn = calloc(npages, sizeof(*pfn));
	lo->folios = calloc(npages, sizeof(*lo->folios));
	if (!pfn || !lo->folios) {
		err = -ENOMEM;
		goto fail;
	}
	err = map_pfns(fd, npages, psz, pfn, &lo->resident_pages);
	if (err)
		goto fail;
	kpf = open("/proc/kpageflags", O_RDONLY);
	if (kpf < 0) {
		err = -errno;
		goto fail;
	}
	/*
	 * A page continues the previous folio iff it is a compound tail page
	 * physically right after the previous page; anything else starts a
	 * new folio (order-0 pages are never tails).
	 */
	for (i = 0; i < npages; i++) {
		if (i && pfn[i] == pfn[i - 1] + 1 && is_tail(kpf, pfn[i])) {
			lo->folios[lo->nr - 1].len += psz;
			continue;
		}
		lo->folios[lo->nr].off = i * psz;
		lo->folios[lo->nr].len = psz;
		lo->nr++;
	}
	/* The EOF folio may extend past the last page of the file. */
	for (i = pfn[npages - 1] + 1; is_tail(kpf, i); i++)
		lo->folios[lo->nr - 1].len += psz;
	close(kpf);
	free(pfn);
	return 0;
fail:
	free(pfn);
	folio_layout_free(lo);
	return err;
}

void folio_layout_free(struct folio_layout *lo)
{
	free(lo->folios);
	lo->folios = NULL;
	lo->nr = 0;
}
