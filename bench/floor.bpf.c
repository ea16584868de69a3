// SPDX-License-Identifier: GPL-2.0
/*
 * The floor: empty programs on the hooks iomapdirty uses in tracepoint
 * mode, of both types it may attach there (raw_tp and tp_btf). Their run
 * time per event (kernel BPF stats) is the cost of merely being attached
 * and measured: the dispatch from the tracepoint, the program call, and
 * the two clock reads of the statistics themselves.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("raw_tp/iomap_iter")
int floor_write(void *ctx) { return 0; }

SEC("raw_tp/writeback_dirty_folio")
int floor_dirty_folio(void *ctx) { return 0; }

SEC("raw_tp/iomap_writeback_folio")
int floor_wb_folio(void *ctx) { return 0; }

SEC("raw_tp/iomap_add_to_ioend")
int floor_add_to_ioend(void *ctx) { return 0; }

SEC("raw_tp/iomap_invalidate_folio")
int floor_invalidate(void *ctx) { return 0; }

SEC("tp_btf/iomap_iter")
int floor_btf_write(void *ctx) { return 0; }

SEC("tp_btf/writeback_dirty_folio")
int floor_btf_dirty_folio(void *ctx) { return 0; }

SEC("tp_btf/iomap_writeback_folio")
int floor_btf_wb_folio(void *ctx) { return 0; }

SEC("tp_btf/iomap_add_to_ioend")
int floor_btf_add_to_ioend(void *ctx) { return 0; }
