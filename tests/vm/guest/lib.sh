# Shared by the guest scripts (sourced).  The host counts these lines.
vmtest_pass() { echo "VMTEST PASS $1"; }
vmtest_fail() { echo "VMTEST FAIL $1 ${2:-}"; }
# vmtest_check NAME REASON COMMAND...: PASS if COMMAND succeeds
vmtest_check() {
	_name=$1 _why=$2
	shift 2
	if "$@"; then vmtest_pass "$_name"; else vmtest_fail "$_name" "$_why"; fi
}

# What the host built for this variant (tests/vm/vmcheck.sh variant_tree):
# VM_PATCH (unpatched|rfcv4), VM_SERIES (Debian source: 6.1|6.12) and
# VM_TRACKING (yes: the kernel tracks dirty blocks per folio, RFCv4 or 6.6+).
# Expectations hang on these, never on what the tool under test reports.
case "${VMCHECK_VARIANT:-}" in
unpatched | ppc-unpatched) VM_PATCH=unpatched VM_SERIES=6.1 VM_TRACKING=no ;;
rfcv4 | ppc-rfcv4) VM_PATCH=rfcv4 VM_SERIES=6.1 VM_TRACKING=yes ;;
debian612) VM_PATCH=unpatched VM_SERIES=6.12 VM_TRACKING=yes ;;
*) VM_PATCH=unknown VM_SERIES=unknown VM_TRACKING=unknown ;;
esac
# the running kernel's config: /proc/config.gz (the lab's builds, IKCONFIG),
# else where Debian keeps it (its binary kernel, debian612)
vm_kconfig() {
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz
	else
		cat "/boot/config-$(uname -r)"
	fi
}
# the base page size, from the kernel (busybox has no getconf)
vm_page_size() { awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps; }
