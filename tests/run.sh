#!/usr/bin/env bash
# Runs every test suite of iomapdirty and prints the closing line
# "N passed, N failed" (plus skipped). Run as root from anywhere:
#   tests/run.sh            unit + end-to-end on this kernel
#   VMCHECK=1 tests/run.sh  also the QEMU kernel lab (tests/vm)
# Each suite prints PASS/FAIL/SKIP lines; a suite that dies without a FAIL
# line is itself counted as a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$(mktemp /tmp/iomapdirty-tests.XXXXXX)
trap 'rm -f "$log"' EXIT

suite() {	# name command...
	local name=$1 out rc
	shift
	echo "### suite $name: $*"
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | tee -a "$log"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' <<<"$out"; then
		echo "FAIL suite $name: exited $rc without a FAIL line" | tee -a "$log"
	fi
}

if ! make -s all unit-bins e2e-bins >"$log.build" 2>&1; then
	cat "$log.build"
	echo "FAIL build"
	echo "0 passed, 1 failed"
	exit 1
fi
rm -f "$log.build"

# Loop-mounted XFS images the suites make (tests/lib/xfsloop.sh): every one
# must be gone when they end. Only mounts that appear during the run count.
xfsloop_mounts() { findmnt -rn -o TARGET | grep '^/tmp/xfsloop\.' | sort; }
mounts_before=$(xfsloop_mounts)

suite unit tests/unit/run.sh .output/tests/test_*

# End-to-end, once per mechanism this kernel allows (`probes --mode M`).
modes=()
for m in fentry kprobe tracepoint raw_tp; do
	if ./iomapdirty probes --mode "$m" >/dev/null 2>&1; then
		modes+=("$m")
	else
		echo "SKIP e2e mode $m: $(./iomapdirty probes --mode "$m" 2>&1 | grep '^error' | head -1)" | tee -a "$log"
	fi
done
if [ ${#modes[@]} -gt 0 ]; then
	suite e2e env MODES="${modes[*]}" IOMAPDIRTY=./iomapdirty tests/e2e/run_e2e.sh
else
	echo "FAIL e2e: no attach mechanism usable on this kernel" | tee -a "$log"
fi
[ -x tests/cli/run_cli.sh ] && suite cli tests/cli/run_cli.sh
[ "${VMCHECK:-0}" = 1 ] && suite vm tests/vm/vmcheck.sh

left=$(comm -13 <(printf '%s\n' "$mounts_before") <(xfsloop_mounts) | grep . | tr '\n' ' ')
if [ -n "$left" ]; then
	echo "FAIL suites left loop mounts: $left" | tee -a "$log"
else
	echo "PASS suites left no loop mounts" | tee -a "$log"
fi

pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
