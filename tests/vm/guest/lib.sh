# Shared by the guest scripts (sourced).  The host counts these lines.
vmtest_pass() { echo "VMTEST PASS $1"; }
vmtest_fail() { echo "VMTEST FAIL $1 ${2:-}"; }
# vmtest_check NAME REASON COMMAND...: PASS if COMMAND succeeds
vmtest_check() {
	_name=$1 _why=$2
	shift 2
	if "$@"; then vmtest_pass "$_name"; else vmtest_fail "$_name" "$_why"; fi
}
