# Facts the iomapdirty developer needs from each kernel, printed as
# `VMFACT ...` lines, plus checks that the kernel is the variant we think.
. /lib/vmcheck/lib.sh
T=/sys/kernel/tracing

echo "VMFACT variant $VMCHECK_VARIANT"
echo "VMFACT uname $(uname -r)"
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

# struct iomap_page as the tool will see it through BTF
if command -v bpftool >/dev/null; then
	bpftool btf dump file /sys/kernel/btf/vmlinux format c 2>/dev/null |
		sed -n '/^struct iomap_page {/,/^};/p' >/tmp/iomap_page.h
	sed 's/^/VMFACT btf-iomap_page /' /tmp/iomap_page.h
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
case "$VMCHECK_VARIANT" in
unpatched)
	vmtest_check variant_symbols "iomap_dirty_folio present in an unpatched kernel" \
		sh -c "! grep -q ' iomap_dirty_folio$' /proc/kallsyms"
	vmtest_check variant_btf "BTF struct iomap_page has no uptodate[] member" \
		grep -q 'uptodate\[' /tmp/iomap_page.h
	;;
rfcv4)
	vmtest_check variant_symbols "iomap_dirty_folio missing from the RFCv4 kernel" \
		grep -q ' iomap_dirty_folio$' /proc/kallsyms
	vmtest_check variant_btf "BTF struct iomap_page has no state[] member" \
		grep -q 'state\[' /tmp/iomap_page.h
	;;
esac
