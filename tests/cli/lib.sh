# shellcheck shell=bash
# Shared by the CLI tests: PASS/FAIL lines, and the tool run in the
# background on a loop-mounted XFS until it says it is ready.
CLI_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IOMAPDIRTY=${IOMAPDIRTY:-$CLI_TOP/iomapdirty}
WORKLOAD=${WORKLOAD:-$CLI_TOP/tests/e2e/workload}
CLI_PASS=0
CLI_FAIL=0

pass() { echo "PASS $1"; CLI_PASS=$((CLI_PASS + 1)); }
fail() { echo "FAIL $1: $2"; CLI_FAIL=$((CLI_FAIL + 1)); }
# check NAME EXPECTED GOT
check() { if [[ "$2" == "$3" ]]; then pass "$1"; else fail "$1" "expected '$2' got '$3'"; fi; }
# check_match NAME REGEX TEXT
check_match() { if grep -qE -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "no /$2/ in: ${3:0:300}"; fi; }

# start_tool OUT ERR ARGS...: background tool; sets TOOL_PID; waits for ready
start_tool() {
	local out=$1 err=$2 i
	shift 2
	"$IOMAPDIRTY" "$@" >"$out" 2>"$err" &
	TOOL_PID=$!
	CLI_PIDS+=("$TOOL_PID")
	for i in $(seq 200); do
		grep -q ready "$err" && return 0
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# stop_tool SIGNAL: sends it, waits, sets TOOL_RC
stop_tool() {
	kill -"${1:-INT}" "$TOOL_PID" 2>/dev/null
	wait "$TOOL_PID"
	TOOL_RC=$?
	TOOL_PID=
}

CLI_PIDS=()
# BPF links left by the instances this test started: iomapdirty never pins
# its links, so they live exactly as long as its processes (and their fds).
# Counts those still alive and their link fds, plus anything pinned under
# /sys/fs/bpf in our name. Other people's instances are not counted.
cli_links() {
	local n=0 p
	for p in "${CLI_PIDS[@]}"; do
		[[ -d /proc/$p ]] || continue
		n=$((n + 1 + $(ls -l /proc/"$p"/fd 2>/dev/null | grep -c 'bpf[-_]link')))
	done
	n=$((n + $(find /sys/fs/bpf -name '*iomapdirty*' 2>/dev/null | wc -l)))
	echo "$n"
}

cli_finish() {
	echo "$CLI_PASS passed, $CLI_FAIL failed"
	[[ $CLI_FAIL -eq 0 ]]
}
