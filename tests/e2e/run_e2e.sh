#!/bin/bash
# run_e2e.sh - end-to-end tests of iomapdirty against scripted workloads.
#
# usage: tests/e2e/run_e2e.sh [SCENARIO...]        (root; default: all)
# env:   IOMAPDIRTY   tool binary (default ./iomapdirty)
#        MODES        attach mechanisms to test, e.g. "tracepoint kprobe"
#                     (default "tracepoint"); every scenario runs per mode
#        ACCOUNTING   the tool's --accounting level: full (default) or
#                     always-on (no page records: what it does not measure
#                     must be null, the rest equal the workload's figures)
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
# shellcheck source=../lib/proc.sh
source "$E2E_DIR/../lib/proc.sh"

IOMAPDIRTY=${IOMAPDIRTY:-./iomapdirty}
MODES=${MODES:-tracepoint}
ACCOUNTING=${ACCOUNTING:-full}
READY_TIMEOUT=${READY_TIMEOUT:-20}
SETTLE=${SETTLE:-1}
STOP_TIMEOUT=15
KEEP=${KEEP:-}

# Counters compared exactly; ratios with e2e_check_ratio's tolerance.
FIELDS=(app_bytes write_calls app_dirty_blocks other_dirty_blocks dirty_blocks
	dirty_bytes other_dirty_folios folios submitted_blocks submitted_bytes
	max_folio_bytes)
RATIOS=(block_rounding folio_amplification)
# What the always-on level does not measure (no per-page records): null
# there, never a number. Listed here from the issue, not from the tool.
ALWAYS_ON_NULL=(app_dirty_blocks app_dirty_bytes other_dirty_blocks other_dirty_folios
	whole_folio_dirty_events unexplained_blocks block_rounding)
# The tool's per-folio histograms (TOOL_NAME=workload per_folio key): every
# bucket's count must equal the number of folios whose value falls in it.
HIST_MAP=${HIST_MAP:-dirty_blocks_per_folio=dirty_blocks submitted_blocks_per_folio=submitted_blocks folio_amplification=folio_amplification folio_bytes=folio_bytes}
# Tool counters that must be 0 when every dirtying was seen (required).
ZERO_FIELDS=(unseen_submitted_blocks folios_no_dirty_seen)
# What the kernel itself reports (tracefs_truth.sh: iomap tracepoints and
# block_rq_issue, no BPF), compared with the tool and with the workload.
TRUTH_FIELDS=(folios folio_bytes max_folio_bytes submitted_blocks submitted_bytes
	hole_bytes)

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

# e2e_check_ratio NAME WANT GOT: within 1e-4 absolute or 1e-5 relative,
# whichever is larger (the tool rounds ratios to 4 decimals), or both null.
e2e_check_ratio() {
	if jq -en --argjson w "$2" --argjson g "${3:-null}" \
		'($w == null and $g == null) or ($w != null and $g != null and
		 (($w - $g) | fabs) <= ([1e-4, 1e-5 * ($w | fabs)] | max))' >/dev/null 2>&1; then
		e2e_pass "$1"
	else
		e2e_fail "$1" "expected $2 got ${3:-nothing}"
	fi
}

# stop_tool: SIGINT, wait up to STOP_TIMEOUT; sets tool_rc (124: had to kill).
stop_tool() {
	kill -INT "$tool_pid" 2>/dev/null
	bounded_wait "$tool_pid" "$STOP_TIMEOUT"
	tool_rc=$?
	tool_pid=
}

# is_ready ERRFILE: the tool's own ready line, whole ("already" is not it).
is_ready() { grep -qx "iomapdirty: ready (pid $tool_pid)" "$1" 2>/dev/null; }

# wait_ready ERRFILE: 0 ready, 1 timeout, 2 the tool exited (tool_rc set).
wait_ready() {
	local i pid=$tool_pid
	for ((i = 0; i < READY_TIMEOUT * 10; i++)); do
		is_ready "$1" && return 0
		if ! kill -0 "$tool_pid" 2>/dev/null; then
			wait "$tool_pid"
			tool_rc=$?
			tool_pid=
			grep -qx "iomapdirty: ready (pid $pid)" "$1" 2>/dev/null && return 0
			return 2
		fi
		sleep 0.1
	done
	return 1
}

# check_hist NAME HIST_JSON WANT: WANT is {"value": folios, ...} (exact);
# buckets are matched by their bounds, whatever the bucketing scheme.
check_hist() {
	local r
	r=$(jq -c --argjson want "$3" '
		def inb($v): (if .min_exclusive then $v > .min else $v >= .min end)
			and (.max == null or (if .max_exclusive then $v < .max
			else $v <= .max end));
		($want | to_entries | map({v: (.key | tonumber), c: .value})
			| map(select(.c > 0))) as $w
		| [.buckets[] | . as $b
			| {min, max, count,
			   want: ([$w[] | select(. as $x | $b | inb($x.v)) | .c] | add // 0)}]
		| {bad: map(select(.count != .want)),
		   want_total: ($w | map(.c) | add // 0),
		   got_total: (map(.count) | add // 0)}' <<<"$2")
	if [[ $(jq -c '.bad == [] and .want_total == .got_total' <<<"$r") == true ]]; then
		e2e_pass "$1"
	else
		e2e_fail "$1" "expected per-folio values $3 got buckets $(jq -c '[.buckets[] | [.min, .max, .count]]' <<<"$2")"
	fi
}

# Structure of the summary: type, losses, histograms.
check_summary_shape() {
	local n=$1 sum=$2 view=$3 bad m tool key hist want

	e2e_check "$n.summary_type" '"summary"' "$(jq -c .type <<<"$sum")"
	bad=$(jq -c 'if (.losses | type) == "object"
		then [.losses | to_entries[] | select(.value != 0)] | from_entries
		else "missing" end' <<<"$sum")
	e2e_check "$n.losses" "$(jq -c '.losses // {}' <<<"$view")" "$bad"
	bad=$(jq -c '[.histograms // {} | to_entries[] | select(
		(.value.buckets | type) != "array" or
		any(.value.buckets[]; (.count | type) != "number" or
			(.min | type) != "number" or
			(.max != null and .max < .min)))
		| .key]' <<<"$sum")
	e2e_check "$n.histograms_wellformed" '[]' "$bad"
	for m in $HIST_MAP; do
		tool=${m%%=*} key=${m#*=}
		hist=$(jq -c --arg h "$tool" '.histograms[$h] // empty' <<<"$sum")
		if [[ -z $hist ]]; then
			e2e_fail "$n.hist.$tool" "expected histogram $tool got none"
			continue
		fi
		want=$(jq -c --arg k "$key" '.totals.per_folio[$k] // empty' <<<"$view")
		if [[ -n $want ]]; then
			check_hist "$n.hist.$tool" "$hist" "$want"
		else	# never the tool against itself
			e2e_fail "$n.hist.$tool" "no per-folio expectation (folio layout probe failed)"
		fi
	done
	# the kernel's own per-folio figures (tracefs), bucket by bucket
	for m in submitted_blocks_per_folio=submitted_blocks folio_bytes=folio_bytes; do
		tool=${m%%=*} key=${m#*=}
		hist=$(jq -c --arg h "$tool" '.histograms[$h] // empty' <<<"$sum")
		want=$(jq -c --arg k "$key" '.per_folio[$k] // empty' <<<"$TRUTH")
		if [[ -z $hist || -z $want ]]; then
			e2e_fail "$n.kernel.hist.$tool" "histogram or kernel figures missing"
			continue
		fi
		check_hist "$n.kernel.hist.$tool" "$hist" "$want"
	done
}

# compare_stats_always_on NAME WANT GOT: the always-on level against the
# workload: write calls as write(2) calls (the tracepoint fires once per
# call) and application bytes as written (counted at the write: also those
# a truncate threw away before writeback), every other measured figure
# exactly, the unmeasured ones null.
compare_stats_always_on() {
	local n=$1 want=$2 got=$3 f
	for f in "${ALWAYS_ON_NULL[@]}"; do
		e2e_check "$n.$f(not measured)" null "$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
	e2e_check "$n.write_calls(syscalls)" "$(jq -c '.write_syscalls' <<<"$want")" \
		"$(jq -c '.write_calls' <<<"$got")"
	e2e_check "$n.app_bytes(written)" "$(jq -c '.syscall_bytes' <<<"$want")" \
		"$(jq -c '.app_bytes' <<<"$got")"
	e2e_compare "$n" "$want" "$got" dirty_blocks dirty_bytes folios \
		submitted_blocks submitted_bytes max_folio_bytes
	check_preattach "$n" "$want" "$got"
	e2e_check_ratio "$n.folio_amplification" \
		"$(jq -c '.folio_amplification' <<<"$want")" \
		"$(jq -c '.folio_amplification' <<<"$got")"
	for f in "${ZERO_FIELDS[@]}"; do
		e2e_check "$n.$f" 0 "$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
}

# compare_stats NAME WANT(view object) GOT(tool stats object)
compare_stats() {
	local n=$1 want=$2 got=$3 f
	if [[ $ACCOUNTING == always-on ]]; then
		compare_stats_always_on "$@"
		return
	fi
	if [[ $CUR_MODE == tracepoint || $CUR_MODE == raw_tp ]]; then
		# No hook sees whole-folio dirtying (iomap_dirty_folio) here: the
		# tool finds it in the kernel's dirty bitmap and reports the
		# folios as other_dirty_folios (compared in every mode);
		# whole_folio_dirty_events is null: not measured, not a number.
		e2e_check "$n.whole_folio_dirty_events(no hook)" null \
			"$(jq -c '.whole_folio_dirty_events' <<<"$got")"
	else
		e2e_compare "$n" "$want" "$got" whole_folio_dirty_events
	fi
	e2e_compare "$n" "$want" "$got" "${FIELDS[@]}"
	for f in "${RATIOS[@]}"; do
		e2e_check_ratio "$n.$f" "$(jq -c --arg f "$f" '.[$f]' <<<"$want")" \
			"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
	check_preattach "$n" "$want" "$got"
	for f in "${ZERO_FIELDS[@]}"; do	# 0 unless the mode says otherwise
		e2e_check "$n.$f" "$(jq -c --arg f "$f" '.[$f] // 0' <<<"$want")" \
			"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
}

# mode_view NAME VIEW: the workload's figures as this mode can know them.
# Tracepoint modes learn a folio's pointer when it goes clean -> dirty: a
# folio dirtied before attach has none, and is found in the page cache,
# its dirty blocks read from the kernel's bitmap as in every other mode
# (other_dirty_blocks: the workload's view of --unseen writes), and is
# also counted apart: preattach_folios, preattach_checked_blocks (issue
# 22; before, it was the loss folio_pointer_missing with no dirty blocks).
mode_view() {
	local name=$1 view=$2
	if [[ $ACCOUNTING == full && $name == preattach_* ]] && mode_tells_preattach; then
		jq -c '
			def apart: . + {preattach_folios: .folios,
				preattach_checked_blocks: .submitted_blocks};
			.totals |= apart | .files |= map_values(apart)' <<<"$view"
	else
		echo "$view"
	fi
}

# Whether this mode tells folios dirtied before attach apart: the
# clean -> dirty hook (writeback_dirty_folio) gives tracepoint modes the
# folio; fentry and kprobe get it from the writeback hook (null there).
mode_tells_preattach() {
	[[ $ACCOUNTING == full && ($CUR_MODE == tracepoint || $CUR_MODE == raw_tp) ]]
}

# check_preattach NAME WANT GOT: the folios dirtied before attach, counted
# apart (0 in a scenario that dirties nothing before), or null where the
# mode does not tell them apart.
check_preattach() {
	local n=$1 want=$2 got=$3 f
	for f in preattach_folios preattach_checked_blocks preattach_violation_blocks; do
		if mode_tells_preattach; then
			e2e_check "$n.$f" "$(jq -c --arg f "$f" '.[$f] // 0' <<<"$want")" \
				"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
		else
			e2e_check "$n.$f(not told apart)" null \
				"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
		fi
	done
}

# compare_truth NAME TRUTH(kernel: tracefs_truth.sh object) GOT(tool stats)
# WANT(workload view): the tool and the workload against what the kernel
# submitted and what reached the device, field by field, exactly.
compare_truth() {
	local n=$1 truth=$2 got=$3 want=$4
	e2e_compare "$n.kernel" "$truth" "$got" "${TRUTH_FIELDS[@]}"
	e2e_compare "$n.workload_vs_kernel" "$truth" "$want" \
		folios folio_bytes max_folio_bytes submitted_blocks submitted_bytes
	e2e_check "$n.device_bytes" "$(jq -c .device_bytes <<<"$truth")" \
		"$(jq -c .submitted_bytes <<<"$got")"
}

# check_program_types NAME PID SUMMARY: the program types the tool's plan
# claims (tp_btf / raw_tp per tracepoint hook) against what the kernel has
# loaded for that process (/proc/PID/fdinfo prog ids, bpftool for types);
# flush_idle and count_unwritten serve no hook: user space runs them.
check_program_types() {
	local n=$1 pid=$2 sum=$3 ids claimed kernel fd
	ids=$(for fd in /proc/"$pid"/fdinfo/*; do
		awk '/^prog_id:/ {print $2}' "$fd" 2>/dev/null
	done | sort -un | jq -R . | jq -sc 'map(tonumber)')
	kernel=$(bpftool prog show --json | jq -S -c --argjson ids "$ids" '
		[.[] | select(.id as $i | $ids | index($i)) |
		 select(.type == "tracing" or .type == "raw_tracepoint") |
		 select(.name != "flush_idle" and .name != "count_unwritten") |
		 {(.name): (if .type == "tracing" then "tp_btf" else "raw_tp" end)}] | add // {}')
	claimed=$(jq -S -c '[.plan.hooks[] | select(.mechanism == "tracepoint" and
		.hook != "block_bio") | {(.program): .program_type}] | add // {}' <<<"$sum")
	e2e_check "$n.program_types(kernel)" "$claimed" "$kernel"
	if [[ $CUR_MODE == raw_tp ]]; then
		e2e_check "$n.no_tp_btf" 0 "$(jq '[.[] | select(. == "tp_btf")] | length' <<<"$kernel")"
	fi
}

run_scenario() {
	local mode=$1 name=$2 n="$1/$2" bs mnt dev out err view sum ino got f
	local lines bad rc
	CUR_MODE=$mode
	bs=$(scenario_bs "$name") || { e2e_fail "$n" "unknown scenario"; return; }
	mnt=$(xfsloop_make "$bs" 512) || { e2e_fail "$n" "cannot make XFS fixture"; return; }
	dev=$(xfsloop_dev "$mnt")
	out=$work/out.jsonl err=$work/err.txt
	: >"$out"
	: >"$err"
	if ! scenario_prep "$name" "$mnt" >"$work/prep.json"; then
		e2e_fail "$n" "workload prep failed"; xfsloop_cleanup "$mnt"; return
	fi

	"$IOMAPDIRTY" hist --json --mount "$mnt" --mode "$mode" --accounting "$ACCOUNTING" \
		>"$out" 2>"$err" &
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

	if [[ $name == scatter51_1k ]]; then
		# the first interval line carries the plan
		local t=0
		while [[ ! -s $out ]] && ((t++ < 50)); do sleep 0.1; done
		check_program_types "$n" "$tool_pid" "$(head -n 1 "$out")"
	fi
	scenario_argv "$name" "$mnt"
	if ! timeout -s KILL 120 "$E2E_DIR/tracefs_truth.sh" -B -o "$work/exp.json" \
		-r "$work/raw.txt" "$mnt" -- "${SCENARIO_ARGV[@]}" \
		>"$work/truth.json" 2>"$work/workload.err"; then
		e2e_fail "$n" "workload or kernel tracing failed: $(tail -n 2 "$work/workload.err")"
		stop_tool; keep_run "$n"; xfsloop_cleanup "$mnt"; return
	fi
	TRUTH=$(<"$work/truth.json")
	sleep "$SETTLE"
	stop_tool
	e2e_check "$n.exit_status" 0 "$tool_rc"
	e2e_check "$n.accounting_named" "\"$ACCOUNTING\"" \
		"$(tail -n 1 "$out" | jq -c '.accounting')"

	lines=$(wc -l <"$out")
	bad=$(jq -c 'select(.type != "interval" and .type != "summary") | .type' "$out" 2>&1 | head -n 1)
	e2e_check "$n.jsonl_valid" '""' "\"$bad\""
	sum=$(tail -n 1 "$out")
	if [[ $lines -eq 0 ]] || ! jq -e . >/dev/null 2>&1 <<<"$sum"; then
		e2e_fail "$n.summary" "expected a JSON summary line got '${sum:0:200}'"
		keep_run "$n"; xfsloop_cleanup "$mnt"; return
	fi
	view=$(mode_view "$name" "$(e2e_expect_view "$work/exp.json")")
	e2e_note_layout "$n" "$view"
	e2e_check "$n.layout_probe" '"kpageflags"' "$(jq -c '.layout.probe // .totals.layout.probe // ([.files[].layout.probe] | unique | if length == 1 then .[0] else . end)' "$work/exp.json")"
	check_summary_shape "$n" "$sum" "$view"

	compare_stats "$n.totals" "$(jq -c .totals <<<"$view")" "$(jq -c '.totals // {}' <<<"$sum")"
	compare_truth "$n.totals" "$TRUTH" "$(jq -c '.totals // {}' <<<"$sum")" \
		"$(jq -c .totals <<<"$view")"
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
		compare_truth "$n.file$ino" "$(jq -c --arg i "$ino" '.files[$i] // {}' <<<"$TRUTH")" \
			"$got" "$(jq -c --arg i "$ino" '.files[$i]' <<<"$view")"
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
	cp -f "$work"/out.jsonl "$work"/err.txt "$work"/exp.json "$work"/prep.json \
		"$work"/truth.json "$work"/raw.txt "$d/" 2>/dev/null
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
	# whose data a folio holds needs the page records always-on does not keep
	timeout -s KILL 20 "$IOMAPDIRTY" hist --json --accounting always-on --pid 1 \
		>/dev/null 2>"$work/err.txt"
	e2e_check "usage.always_on_pid.exit" 2 $?
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
	# hole_bytes is compared with the kernel's in every scenario, but it is
	# 0 in all of them: XFS on this kernel maps no hole under a dirty range
	# at writeback in any sequence tried (store past EOF then grow, write
	# into a sparse file, mmap into a hole, hole punch of a dirty folio:
	# writes and page faults reserve delalloc or unwritten blocks first).
	e2e_skip "hole_bytes_nonzero" "no sequence found that makes XFS writeback map a hole on this kernel (tests/README.md)"
	for mode in $MODES; do
		echo "# mode $mode"
		run_count_exit "$mode"
		for s in "${scenarios[@]}"; do
			run_scenario "$mode" "$s"
		done
	done
	e2e_summary
}

# Run unless sourced (sourcing gives the helpers, for testing them).
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main "$@"
fi
