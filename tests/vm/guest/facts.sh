# Facts the iomapdirty developer needs from each kernel, printed as
# `VMFACT ...` lines, plus checks that the kernel is the variant we think.
. /lib/vmcheck/lib.sh
T=/sys/kernel/tracing

echo "VMFACT variant $VMCHECK_VARIANT (patch $VM_PATCH, source $VM_SERIES, $(uname -m), page $(vm_page_size))"
echo "VMFACT uname $(uname -r)"
vm_kconfig 2>/dev/null |
	grep -E '^CONFIG_(BPF_JIT|BPF_JIT_ALWAYS_ON|DEBUG_INFO_BTF|KPROBES|FPROBE|FUNCTION_TRACER|DYNAMIC_FTRACE_WITH_DIRECT_CALLS|NET)=' |
	sed 's/^/VMFACT config /'
grep -E 'iomap_(write_end|writepage_map|do_writepage|add_to_ioend|dirty_folio|iop_set_range)' /proc/kallsyms |
	while read -r _ type sym rest; do echo "VMFACT kallsyms $type $sym $rest"; done
for ev in "$T"/events/iomap/*/; do
	[ -d "$ev" ] && echo "VMFACT tracepoint iomap:$(basename "$ev")"
done
for f in iomap_write_end iomap_writepage_map iomap_do_writepage iomap_add_to_ioend \
		iomap_dirty_folio iomap_iop_set_range; do
	if grep -qx "$f" "$T"/available_filter_functions 2>/dev/null; then
		echo "VMFACT ftrace-able $f yes"
	else
		echo "VMFACT ftrace-able $f no"
	fi
done
if [ -e /sys/kernel/btf/vmlinux ]; then
	echo "VMFACT btf /sys/kernel/btf/vmlinux exists ($(wc -c </sys/kernel/btf/vmlinux) bytes)"
	vmtest_pass btf_vmlinux
else
	echo "VMFACT btf /sys/kernel/btf/vmlinux missing"
	vmtest_fail btf_vmlinux "/sys/kernel/btf/vmlinux missing"
fi

vmtest_check tracepoint_iomap_writepage "events/iomap/iomap_writepage missing" \
	test -d "$T"/events/iomap/iomap_writepage
vmtest_check tracepoint_block_rq_issue "events/block/block_rq_issue missing" \
	test -d "$T"/events/block/block_rq_issue
vmtest_check kallsyms_iomap_write_end "iomap_write_end not in /proc/kallsyms" \
	grep -q ' iomap_write_end$' /proc/kallsyms

# struct iomap_page (iomap_folio_state from 6.6) as the tool will see it
# through BTF
if command -v bpftool >/dev/null; then
	bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null |
		sed -n '/^struct iomap_\(page\|folio_state\) {/,/^};/p' >/tmp/iomap_page.h
	sed 's/^/VMFACT btf-iomap_state /' /tmp/iomap_page.h
	bpftool feature probe kernel >/tmp/bpf-features.txt 2>&1
	for t in kprobe tracepoint raw_tracepoint tracing; do
		vmtest_check "bpf_prog_type_$t" "bpftool feature probe: program type $t not available" \
			grep -q "eBPF program_type $t is available" /tmp/bpf-features.txt
	done
	grep -E 'JIT compiler is|bpf\(\) syscall' /tmp/bpf-features.txt | sed 's/^/VMFACT bpf /'
else
	vmtest_fail bpftool "bpftool missing from the initramfs"
fi

# The variant must really be what the host asked for.
case "$VM_SERIES/$VM_PATCH" in
6.1/unpatched)
	vmtest_check variant_symbols "iomap_dirty_folio present in an unpatched kernel" \
		sh -c "! grep -q ' iomap_dirty_folio$' /proc/kallsyms"
	vmtest_check variant_btf "BTF struct iomap_page has no uptodate[] member" \
		grep -q 'uptodate\[' /tmp/iomap_page.h
	;;
6.1/rfcv4)
	vmtest_check variant_symbols "iomap_dirty_folio missing from the RFCv4 kernel" \
		grep -q ' iomap_dirty_folio$' /proc/kallsyms
	vmtest_check variant_btf "BTF struct iomap_page has no state[] member" \
		grep -q 'state\[' /tmp/iomap_page.h
	;;
6.12/unpatched)
	vmtest_check variant_symbols "iomap_dirty_folio missing from 6.12" \
		grep -q ' iomap_dirty_folio$' /proc/kallsyms
	vmtest_check variant_btf "BTF has no struct iomap_folio_state with state[]" \
		sh -c "grep -q '^struct iomap_folio_state {' /tmp/iomap_page.h && grep -q 'state\[' /tmp/iomap_page.h"
	;;
*) vmtest_fail variant_known "unknown variant $VMCHECK_VARIANT" ;;
esac
vmtest_check "page_size_$(uname -m)" "page size $(vm_page_size)" \
	sh -c "case $(uname -m) in ppc64le) test $(vm_page_size) = 65536 ;; *) test $(vm_page_size) = 4096 ;; esac"

# Real BPF: load and attach each attach method on its own (bpfcheck), then
# 20 writes of 100 bytes at i*20000 + fsync on the 1 KiB-block XFS.
# iomap_writepage fires once per folio written back. 6.1 makes order-0
# folios on write: one per page touched (with 64 KiB pages several writes
# share one). 6.12 makes large folios when bpfcheck lays its file out in
# one write, of a size the kernel picks: between 1 and 20 folios there.
# fentry needs ftrace direct calls, which ppc64 does not have on 6.1
# (checked as absent from the config).
WB_FOLIOS=$(awk -v p="$(vm_page_size)" 'BEGIN { for (i = 0; i < 20; i++) {
	f[int(i * 20000 / p)] = 1; f[int((i * 20000 + 99) / p)] = 1 }
	for (k in f) n++; print n }')
bpf_hits() {	# program -> hits of that program, or "-"
	sed -n "s/^BPFCHECK $1 .* hits=\([-0-9]*\)$/\1/p" /tmp/bpfcheck.txt
}
wb_hits_ok() {
	h=$(bpf_hits raw_tp_iomap_writepage)
	case "$VM_SERIES" in
	6.1) test "$h" = "$WB_FOLIOS" ;;
	*) test "$h" -ge 1 2>/dev/null && test "$h" -le 20 ;;
	esac
}
if vm_kconfig | grep -q '^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y'; then
	FENTRY_HITS=20
else
	FENTRY_HITS=-
fi
if bpfcheck /lib/vmcheck/bpfcheck.bpf.o /mnt/xfs1k/bpfcheck.dat >/tmp/bpfcheck.txt 2>&1; then
	sed 's/^BPFCHECK /VMFACT bpfcheck /' /tmp/bpfcheck.txt
	vmtest_check bpf_fentry_iomap_write_end "hits=$(bpf_hits fentry_iomap_write_end), want $FENTRY_HITS" \
		test "$(bpf_hits fentry_iomap_write_end)" = "$FENTRY_HITS"
	vmtest_check bpf_kprobe_iomap_write_end "hits=$(bpf_hits kprobe_iomap_write_end), want 20" \
		test "$(bpf_hits kprobe_iomap_write_end)" = 20
	vmtest_check bpf_raw_tp_iomap_writepage "hits=$(bpf_hits raw_tp_iomap_writepage), want $WB_FOLIOS (6.1) or 1-20 (large folios)" \
		wb_hits_ok
	case "$VM_SERIES/$VM_PATCH" in
	6.12/*)
		vmtest_check bpf_fentry_iomap_dirty_folio "did not attach" \
			grep -q '^BPFCHECK fentry_iomap_dirty_folio load=ok attach=ok ' /tmp/bpfcheck.txt
		vmtest_check bpf_rfcv4_setter_absent "iomap_iop_set_range loaded on 6.12" \
			sh -c "! grep -qE '^BPFCHECK fentry_iomap_iop_set_range load=ok' /tmp/bpfcheck.txt"
		;;
	*/rfcv4)
		if [ "$FENTRY_HITS" = 20 ]; then
			vmtest_check bpf_fentry_iomap_dirty_folio "did not attach" \
				grep -q '^BPFCHECK fentry_iomap_dirty_folio load=ok attach=ok ' /tmp/bpfcheck.txt
			vmtest_check bpf_fentry_iomap_iop_set_range "hits=$(bpf_hits fentry_iomap_iop_set_range), want > 0" \
				test "$(bpf_hits fentry_iomap_iop_set_range)" -gt 0
		else	# no fentry: the symbols show the RFCv4 setter instead
			vmtest_check kallsyms_iomap_iop_set_range "iomap_iop_set_range not in kallsyms" \
				grep -q ' iomap_iop_set_range$' /proc/kallsyms
		fi
		;;
	*/unpatched)
		vmtest_check bpf_rfcv4_targets_absent "an RFCv4-only target loaded" \
			sh -c "! grep -qE '^BPFCHECK fentry_iomap_(dirty_folio|iop_set_range) load=ok' /tmp/bpfcheck.txt"
		;;
	esac
else
	cat /tmp/bpfcheck.txt
	vmtest_fail bpfcheck "bpfcheck could not run its workload"
fi
rm -f /mnt/xfs1k/bpfcheck.dat
