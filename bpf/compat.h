/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Type flavors for what kernels renamed or reshaped. libbpf matches a
 * "name___suffix" type against the kernel's "name", so each flavor below
 * describes one shape; bpf_core_field_exists() tells which one the
 * running kernel has. vmlinux/vmlinux.h comes from 6.18 and already has
 * struct iomap_folio_state (6.6+).
 */
#ifndef IOMAPDIRTY_COMPAT_H
#define IOMAPDIRTY_COMPAT_H

/* RFCv4-patched 5.x/6.1-6.5: uptodate bits then dirty bits in state[]. */
struct iomap_page___rfc {
	atomic_t read_bytes_pending;
	atomic_t write_bytes_pending;
	spinlock_t state_lock;
	unsigned long state[];
} __attribute__((preserve_access_index));

/* Unpatched 5.18-6.5: uptodate bits only; no per-block dirty state. */
struct iomap_page___old {
	atomic_t read_bytes_pending;
	atomic_t write_bytes_pending;
	spinlock_t uptodate_lock;
	unsigned long uptodate[];
} __attribute__((preserve_access_index));

/* 6.1-6.5: the order of a large folio is a byte of its second page. */
struct folio___v61 {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

#endif /* IOMAPDIRTY_COMPAT_H */
