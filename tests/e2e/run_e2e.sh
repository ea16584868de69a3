#!/bin/bash
# run_e2e.sh - end-to-end tests of iomapdirty against scripted workloads.
#
# usage: tests/e2e/run_e2e.sh [SCENARIO...]        (root; default: all)
# env:   IOMAPDIRTY   tool binary (default ./iomapdirty)
#        MODES        attach mechanisms to test, e.g. "tracepoint kprobe"
#                     (default "tracepoint"); every scenario runs per mode
#        READY_TIMEOUT seconds to wait for "ready" (default 20)
#        SETTLE       seconds between the workload and SIGINT (default 1)
#        ALLOW_UNSUPPORTED=1  a mode the tool rejects with exit 3 is skipped
#        KEEP=DIR     keep every run's tool output, stderr and expectations
#
# For each scenario: a fresh loop-mounted XFS (1 KiB blocks, 4 KiB for the
# large-folio ones), `workload prep`, the tool started on that mount, wait
# for ready, the workload (which prints what must be reported), SIGINT, and
# the tool's final "summary" object compared with the workload's figures,
# for the whole filesystem and per file (matched by dev and inode).
# Prints `PASS name` / `FAIL name: expected X got Y`, then `N passed, N failed`.
set -u
E2E_DIR=$(cd "$(dirname "$0")" && pwd)
export XFSLOOP_NO_TRAP=1 # we install our own trap (the tool dies first)
# shellcheck source=../lib/xfsloop.sh
source "$E2E_DIR/../lib/xfsloop.sh"
# shellcheck source=e2e_lib.sh
source "$E2E_DIR/e2e_lib.sh"

IOMAPDIRTY=${IOMAPDIRTY:-./iomapdirty}
MODES=${MODES:-tracepoint}
READY_TIMEOUT=${READY_TIMEOUT:-20}
SETTLE=${SETTLE:-1}
STOP_TIMEOUT=15
KEEP=${KEEP:-}

# Counters compared exactly, and ratios compared to 1e-6.
FIELDS=(app_bytes write_calls app_dirty_blocks dirty_blocks dirty_bytes
	whole_folio_dirty_events folios submitted_blocks submitted_bytes
	max_folio_bytes)
RATIOS=(block_rounding folio_amplification)
# Histograms with one count per folio written back (sum == folios).
PER_FOLIO_HISTS=${PER_FOLIO_HISTS:-dirty_blocks submitted_blocks folio_amplification folio_bytes}
# Tool counters that must be 0 when every dirtying was seen, if present.
ZERO_IF_PRESENT=(hole_bytes unseen_submitted_blocks folios_no_dirty_seen)

tool_pid=
work=$(mktemp -d /tmp/e2e_run.XXXXXX)
on_exit() {
	if [[ -n $tool_pid ]] && kill -0 "$tool_pid" 2>/dev/null; then
		kill -TERM "$tool_pid" 2>/dev/null
		sleep 1
		kill -KILL "$tool_pid" 2>/dev/null
		wait "$tool_pid" 2>/dev/null
	fi
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

e2e_skip() { echo "SKIP $1: $2"; }

# e2e_check_ratio NAME WANT GOT: numbers within 1e-6 (relative), or both null.
e2e_check_ratio() {
	if jq -en --argjson w "$2" --argjson g "${3:-null}" \
		'($w == null and $g == null) or ($w != null and $g != null and
		 (($w - $g) | fabs) <= 1e-6 * ([1, ($w | fabs)] | max))' >/dev/null 2>&1; then
		e2e_pass "$1"
	else
		e2e_fail "$1" "expected $2 got ${3:-nothing}"
	fi
}

# stop_tool: SIGINT, wait up to STOP_TIMEOUT; sets tool_rc (124: had to kill).
stop_tool() {
	local i
	kill -INT "$tool_pid" 2>/dev/null
	for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
		kill -0 "$tool_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$tool_pid" 2>/dev/null; then
		kill -KILL "$tool_pid" 2>/dev/null
		wait "$tool_pid" 2>/dev/null
		tool_rc=124
	else
		wait "$tool_pid"
		tool_rc=$?
	fi
	tool_pid=
}

# wait_ready ERRFILE: 0 ready, 1 timeout, 2 the tool exited (tool_rc set).
wait_ready() {
	local i
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		grep -q ready "$1" 2>/dev/null && return 0
		if ! kill -0 "$tool_pid" 2>/dev/null; then
			wait "$tool_pid"
			tool_rc=$?
			tool_pid=
			grep -q ready "$1" 2>/dev/null && return 0
			return 2
		fi
		sleep 0.1
	done
	return 1
}

# Structure of the summary: type, losses, histograms.
check_summary_shape() {
	local n=$1 sum=$2 want_folios=$3 bad h s

	e2e_check "$n.summary_type" '"summary"' "$(jq -c .type <<<"$sum")"
	bad=$(jq -c 'if (.losses | type) == "object"
		then [.losses | to_entries[] | select(.value != 0)] | from_entries
		else "missing" end' <<<"$sum")
	e2e_check "$n.losses" '{}' "$bad"
	bad=$(jq -c '[.histograms // {} | to_entries[] | select(
		(.value.buckets | type) != "array" or
		any(.value.buckets[]; (.count | type) != "number" or
			(.min | type) != "number" or
			(.max != null and .max < .min)))
		| .key]' <<<"$sum")
	e2e_check "$n.histograms_wellformed" '[]' "$bad"
	[[ $want_folios == null ]] && want_folios=$(jq '.totals.folios' <<<"$sum")
	for h in $PER_FOLIO_HISTS; do
		s=$(jq --arg h "$h" '.histograms[$h].buckets // empty | map(.count) | add // 0' <<<"$sum")
		[[ -z $s ]] && continue
		e2e_check "$n.hist_$h.count_sum" "$want_folios" "$s"
	done
}

# compare_stats NAME WANT(view object) GOT(tool stats object)
compare_stats() {
	local n=$1 want=$2 got=$3 f v
	e2e_compare "$n" "$want" "$got" "${FIELDS[@]}"
	for f in "${RATIOS[@]}"; do
		e2e_check_ratio "$n.$f" "$(jq -c --arg f "$f" '.[$f]' <<<"$want")" \
			"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
	for f in "${ZERO_IF_PRESENT[@]}"; do
		v=$(jq -c --arg f "$f" '.[$f] // empty' <<<"$got")
		[[ -n $v ]] && e2e_check "$n.$f" 0 "$v"
	done
}

run_scenario() {
	local mode=$1 name=$2 n="$1/$2" bs mnt dev out err view sum ino got f
	local lines bad rc
	bs=$(scenario_bs "$name") || { e2e_fail "$n" "unknown scenario"; return; }
	mnt=$(xfsloop_make "$bs" 512) || { e2e_fail "$n" "cannot make XFS fixture"; return; }
	dev=$(xfsloop_dev "$mnt")
	out=$work/out.jsonl err=$work/err.txt
	: >"$out"
	: >"$err"
	if ! scenario_prep "$name" "$mnt" >"$work/prep.json"; then
		e2e_fail "$n" "workload prep failed"; xfsloop_cleanup "$mnt"; return
	fi

	"$IOMAPDIRTY" hist --json --mount "$mnt" --mode "$mode" >"$out" 2>"$err" &
	tool_pid=$!
	wait_ready "$err"
	rc=$?
	if ((rc != 0)); then
		if ((rc == 2)) && [[ $tool_rc == 3 && ${ALLOW_UNSUPPORTED:-} == 1 ]]; then
			e2e_skip "$n" "mode unsupported (exit 3): $(tail -n 1 "$err")"
		elif ((rc == 2)); then
			e2e_fail "$n.ready" "expected ready got exit $tool_rc: $(tail -n 3 "$err" | tr '\n' ' ')"
		else
			e2e_fail "$n.ready" "expected ready within ${READY_TIMEOUT}s got nothing"
			stop_tool
		fi
		keep_run "$n"; xfsloop_cleanup "$mnt"; return
	fi

	scenario_argv "$name" "$mnt"
	if ! "${SCENARIO_ARGV[@]}" >"$work/exp.json" 2>"$work/workload.err"; then
		e2e_fail "$n" "workload failed: $(tail -n 2 "$work/workload.err")"
		stop_tool; keep_run "$n"; xfsloop_cleanup "$mnt"; return
	fi
	sleep "$SETTLE"
	stop_tool
	e2e_check "$n.exit_status" 0 "$tool_rc"

	lines=$(wc -l <"$out")
	bad=$(jq -c 'select(.type != "interval" and .type != "summary") | .type' "$out" 2>&1 | head -n 1)
	e2e_check "$n.jsonl_valid" '""' "\"$bad\""
	sum=$(tail -n 1 "$out")
	if [[ $lines -eq 0 ]] || ! jq -e . >/dev/null 2>&1 <<<"$sum"; then
		e2e_fail "$n.summary" "expected a JSON summary line got '${sum:0:200}'"
		keep_run "$n"; xfsloop_cleanup "$mnt"; return
	fi
	view=$(e2e_expect_view "$work/exp.json")
	e2e_note_layout "$n" "$view"
	check_summary_shape "$n" "$sum" "$(jq -c .totals.folios <<<"$view")"

	compare_stats "$n.totals" "$(jq -c .totals <<<"$view")" "$(jq -c '.totals // {}' <<<"$sum")"
	e2e_check_constraints "$n.totals" "$view" "$(jq .totals.folios <<<"$sum")" \
		"$(jq .totals.max_folio_bytes <<<"$sum")"
	for ino in $(jq -r '.files | keys[]' <<<"$view"); do
		got=$(jq -c --arg d "$dev" --argjson i "$ino" \
			'[.files[]? | select(.dev == $d and .ino == $i)]
			 | if length == 1 then .[0] | (.stats // .) else {} end' <<<"$sum")
		if [[ $got == "{}" ]]; then
			e2e_fail "$n.file$ino" "expected one entry for dev $dev ino $ino got $(jq -c '[.files[]? | {dev, ino}]' <<<"$sum")"
			continue
		fi
		compare_stats "$n.file$ino" "$(jq -c --arg i "$ino" '.files[$i]' <<<"$view")" "$got"
	done
	f=$(jq '[.files[]?] | length' <<<"$sum")
	e2e_check "$n.files_listed" "$(jq '.files | length' <<<"$view")" "$f"
	keep_run "$n"
	xfsloop_cleanup "$mnt"
}

keep_run() {
	local d
	[[ -n $KEEP ]] || return 0
	d=$KEEP/${1//\//_}
	mkdir -p "$d"
	cp -f "$work"/out.jsonl "$work"/err.txt "$work"/exp.json "$work"/prep.json "$d/" 2>/dev/null
	return 0
}

# -c COUNT: the tool stops by itself after COUNT intervals, summary last.
run_count_exit() {
	local mode=$1 n="$1/count_exit" mnt rc types
	mnt=$(xfsloop_make 1024 512) || { e2e_fail "$n" "cannot make XFS fixture"; return; }
	timeout -s KILL 30 "$IOMAPDIRTY" hist --json --mount "$mnt" --mode "$mode" -i 1 -c 2 \
		>"$work/out.jsonl" 2>"$work/err.txt"
	rc=$?
	if [[ $rc == 3 && ${ALLOW_UNSUPPORTED:-} == 1 ]]; then
		e2e_skip "$n" "mode unsupported"; xfsloop_cleanup "$mnt"; return
	fi
	e2e_check "$n.exit_status" 0 "$rc"
	types=$(jq -c -s 'map(.type)' "$work/out.jsonl" 2>/dev/null)
	e2e_check "$n.lines" '["interval","interval","summary"]' "$types"
	xfsloop_cleanup "$mnt"
}

# Exit status and message for bad invocations (mode independent).
run_usage_checks() {
	local rc msg

	timeout -s KILL 20 "$IOMAPDIRTY" hist --json --no-such-option >/dev/null 2>"$work/err.txt"
	e2e_check "usage.unknown_option.exit" 2 $?
	timeout -s KILL 20 "$IOMAPDIRTY" hist --json --mount /proc >/dev/null 2>"$work/err.txt"
	rc=$?
	e2e_check "usage.mount_proc.exit" 5 "$rc"
	timeout -s KILL 20 "$IOMAPDIRTY" hist --json --mount /nonexistent/iomapdirty-e2e \
		>/dev/null 2>"$work/err.txt"
	rc=$?
	msg=$(<"$work/err.txt")
	e2e_check "usage.mount_missing.exit" 5 "$rc"
	if [[ -n $msg ]]; then
		e2e_pass "usage.mount_missing.stderr"
	else
		e2e_fail "usage.mount_missing.stderr" "expected a message got nothing"
	fi
}

main() {
	local scenarios=("$@") mode s

	[[ ${#scenarios[@]} -eq 0 ]] && scenarios=("${E2E_SCENARIOS[@]}")
	if [[ $(id -u) != 0 ]]; then
		e2e_fail "setup" "expected root got uid $(id -u)"; e2e_summary; return
	fi
	if [[ ! -x $IOMAPDIRTY ]]; then
		e2e_fail "setup" "expected an executable tool at IOMAPDIRTY=$IOMAPDIRTY got none"
		e2e_summary; return
	fi
	if ! make -s -C "$E2E_DIR" workload || ! "$WORKLOAD" selftest >/dev/null 2>&1; then
		e2e_fail "setup" "workload build or selftest failed"; e2e_summary; return
	fi
	run_usage_checks
	for mode in $MODES; do
		echo "# mode $mode"
		run_count_exit "$mode"
		for s in "${scenarios[@]}"; do
			run_scenario "$mode" "$s"
		done
	done
	e2e_summary
}

main "$@"
