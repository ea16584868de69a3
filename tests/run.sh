#!/usr/bin/env bash
# Runs every test suite of iomapdirty and prints the closing line
# "N passed, N failed, N skipped". Run as root from anywhere:
#   tests/run.sh            unit + end-to-end on this kernel
#   VMCHECK=1 tests/run.sh  also the QEMU kernel lab (tests/vm)
# Each suite prints PASS/FAIL/SKIP lines; a suite that dies without a FAIL
# line is itself counted as a failure, and so is a suite that ran fewer
# checks than it must (MIN_CHECKS below: a check that silently stops
# running is a failure, not a smaller total).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$(mktemp /tmp/iomapdirty-tests.XXXXXX)
trap 'rm -f "$log"' EXIT
# shellcheck source=lib/host_profile.sh
source tests/lib/host_profile.sh || { echo "FAIL host profile"; exit 1; }

# The fewest PASS/FAIL/SKIP lines each suite prints on this host (the
# profile's two required modes). Raise them when adding checks; lowering
# one needs a reason in the commit message.
declare -A MIN_CHECKS=(
	[unit]=2684 [bpf-object]=41 [layering]=250 [e2e]=3309 [e2e-always-on]=703 [truth]=234 [cli]=1550
	[exporter-web]=56 [exporter-soak]=20 [exporter-cgroup]=42 [package]=62
	[exporter-systemd]=53
)

# Wall time of every suite: a table at the end, and lines for .ci/run's
# table when CI_TIMING_FILE is set ("check<TAB>step<TAB>seconds<TAB>note").
timings=()
timing() {	# step seconds note
	timings+=("$(printf '%-28s %6s s  %s' "$1" "$2" "$3")")
	[ -n "${CI_TIMING_FILE:-}" ] &&
		printf 'check\t%s\t%s\t%s\n' "$1" "$2" "$3" >>"$CI_TIMING_FILE"
	return 0
}

# CI_CHECK_LOCK=FILE: each suite waits for FILE's lock (flock) and holds
# it while it runs, for a machine where other test runs attach the tool's
# probes (it has one instance per host); the wait is not in its time.
suite() {	# name command...
	local name=$1 out rc n t0 lockfd=
	shift
	echo "### suite $name: $*"
	if [ -n "${CI_CHECK_LOCK:-}" ]; then
		exec {lockfd}>>"$CI_CHECK_LOCK" && flock "$lockfd" ||
			{ echo "FAIL suite $name: cannot lock $CI_CHECK_LOCK" | tee -a "$log"; return; }
	fi
	t0=$(date +%s)
	if [ -n "$lockfd" ]; then
		# the suite's processes do not inherit the lock: one left behind
		# would hold it for ever
		out=$("$@" {lockfd}>&- 2>&1)
		rc=$?
		exec {lockfd}>&-
	else
		out=$("$@" 2>&1)
		rc=$?
	fi
	printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed' | tee -a "$log"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' <<<"$out"; then
		echo "FAIL suite $name: exited $rc without a FAIL line" | tee -a "$log"
	fi
	n=$(grep -c -E '^(PASS|FAIL|SKIP)' <<<"$out")
	timing "suite $name" $(($(date +%s) - t0)) "$n checks, exit $rc"
	if [[ -n ${MIN_CHECKS[$name]:-} ]] && ((n < MIN_CHECKS[$name])); then
		echo "FAIL suite $name: ran $n checks, must run at least ${MIN_CHECKS[$name]}" | tee -a "$log"
	else
		echo "PASS suite $name: ran $n checks (at least ${MIN_CHECKS[$name]:-?})" | tee -a "$log"
	fi
}

t0=$(date +%s)
if ! make -s all unit-bins e2e-bins asan fuzz-bins >"$log.build" 2>&1; then
	cat "$log.build"
	echo "FAIL build"
	echo "0 passed, 1 failed"
	exit 1
fi
rm -f "$log.build"
timing build $(($(date +%s) - t0)) "make all unit-bins e2e-bins asan fuzz-bins"

# Loop-mounted XFS images the suites make (tests/lib/xfsloop.sh): every one
# must be gone when they end. Only mounts that appear during the run count.
xfsloop_mounts() { findmnt -rn -o TARGET | grep '^/tmp/xfsloop\.' | sort; }
mounts_before=$(xfsloop_mounts)
# BPF links of iomapdirty's programs, asked of the kernel (bpftool), by
# program name: the same number must be there after the suites as before.
# (with CI_CHECK_LOCK: counted while no other test run holds links)
links_before=$(${CI_CHECK_LOCK:+flock "$CI_CHECK_LOCK"} tests/lib/links.sh count)

suite unit tests/unit/run.sh .output/tests/test_*
# the linked BPF object: kfunc calls only where the plan can skip them, and
# no program whose verification multiplies paths (tests/build)
suite bpf-object tests/build/bpf_object.sh
# user/'s folders and what each may include (docs/design.md)
suite layering tests/build/layering.sh

# End-to-end in every mode the host profile requires (tests/lib/
# host_profile.sh); a mode it calls absent is skipped only when the kernel
# confirms it (not iomapdirty), else it is required too.
read -r -a modes <<<"$HOST_REQUIRED_MODES"
for m in $HOST_ABSENT_MODES; do
	if why=$(mode_absent "$m" tests/lib); then
		echo "SKIP e2e mode $m: $why" | tee -a "$log"
	else
		echo "INFO e2e mode $m: the profile says absent, the kernel allows it: required" | tee -a "$log"
		modes+=("$m")
	fi
done
suite e2e env MODES="${modes[*]}" IOMAPDIRTY=./iomapdirty tests/e2e/run_e2e.sh
# the always-on accounting level (no page records): a few scenarios, each
# kind of fold and dirtying once (the figures it measures exact, the rest null)
suite e2e-always-on env MODES=tracepoint ACCOUNTING=always-on IOMAPDIRTY=./iomapdirty \
	tests/e2e/run_e2e.sh scatter51_1k twofiles_1k threads_1k truncate_1k mmap_1k \
	large_setup_4k preattach_1k
suite truth tests/e2e/validate_truth.sh
suite cli tests/cli/run_cli.sh
# The same code with ASan/UBSan (make asan), and the parsers and escapers of outside
# input fuzzed for 7 s each, 70 s in all (tests/fuzz; longer: make fuzz FUZZ_SECONDS=N).
suite asan-unit tests/sanitized.sh unit
suite asan-cli tests/sanitized.sh cli
suite fuzz tests/fuzz/run.sh 7 .output-fuzz/fuzz_*
# the Prometheus exporter, scraped by a real Prometheus server
suite exporter tests/exporter/run.sh
suite exporter-install tests/exporter/install.sh
# --collector.cgroup: three writers in three cgroups, a bound of two (about 15 s)
suite exporter-cgroup tests/exporter/cgroups.sh
# the shipped unit started, checked and stopped by systemd as PID 1 in a
# Debian container (systemd-nspawn --boot), and hist --unit on a systemd-run
# unit (about 30 s, 1.5 min when its
# root is made anew)
suite exporter-systemd tests/exporter/systemd.sh
# its HTTP server alone (no BPF): slow clients, endpoints, TLS, basic auth
suite exporter-web tests/exporter/web.sh
# the exporter at its defaults while a million files are made (about 2 min)
suite exporter-soak tests/exporter/soak.sh
# the Debian package built, linted, installed into a fresh root and purged;
# the OCI image and the DaemonSet's pod template run by podman and scraped
# (about 40 s with the .deb cached, 1.5 min when the tree's build inputs changed)
suite package tests/package/run.sh
[ "${VMCHECK:-0}" = 1 ] && suite vm tests/vm/vmcheck.sh

left=$(comm -13 <(printf '%s\n' "$mounts_before") <(xfsloop_mounts) | grep . | tr '\n' ' ')
if [ -n "$left" ]; then
	echo "FAIL suites left loop mounts: $left" | tee -a "$log"
else
	echo "PASS suites left no loop mounts" | tee -a "$log"
fi
links_after=$(${CI_CHECK_LOCK:+flock "$CI_CHECK_LOCK"} tests/lib/links.sh count)
if [[ $links_after == "$links_before" && $links_before =~ ^[0-9]+$ ]]; then
	echo "PASS suites left no BPF links (kernel: $links_after iomapdirty links before and after)" | tee -a "$log"
else
	echo "FAIL suites left BPF links: kernel has $links_after iomapdirty links, had $links_before: $(tests/lib/links.sh list | tr '\n' ' ')" | tee -a "$log"
fi

echo
echo "Wall time of each step:"
printf '  %s\n' "${timings[@]}"
pass=$(grep -c '^PASS' "$log")
fail=$(grep -c '^FAIL' "$log")
skip=$(grep -c '^SKIP' "$log")
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
