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
# check_no_rows NAME TSV AWK_CONDITION WHAT: PASS if no row of TSV meets the
# condition, else FAIL showing WHAT and the first five such rows
check_no_rows() {
	local bad
	bad=$(awk "$3" "$2")
	if [[ -z $bad ]]; then pass "$1"; else fail "$1" "$4: $(head -5 <<<"$bad" | tr '\t\n' ' ;')"; fi
}
check_match() { if grep -qE -- "$2" <<<"$3"; then pass "$1"; else fail "$1" "no /$2/ in: ${3:0:300}"; fi; }

# tool_wait_ready ERR LINE: until ERR holds a whole line matching LINE (an
# extended regex) while TOOL_PID lives, 20 s at most
tool_wait_ready() {
	local i
	for i in $(seq 200); do
		grep -qxE -- "$2" "$1" && return 0
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# start_tool OUT ERR ARGS...: background tool; sets TOOL_PID; waits for ready
start_tool() {
	local out=$1 err=$2
	shift 2
	"$IOMAPDIRTY" "$@" >"$out" 2>"$err" &
	TOOL_PID=$!
	CLI_PIDS+=("$TOOL_PID")
	tool_wait_ready "$err" "iomapdirty: ready \(pid $TOOL_PID\)"
}

# start_exporter OUT ERR ARGS...: `iomapdirty exporter ARGS` in the
# background; sets TOOL_PID; waits for its ready line (which says where
# it serves)
start_exporter() {
	local out=$1 err=$2
	shift 2
	"$IOMAPDIRTY" exporter "$@" >"$out" 2>"$err" &
	TOOL_PID=$!
	CLI_PIDS+=("$TOOL_PID")
	tool_wait_ready "$err" "iomapdirty: info: ready \(pid $TOOL_PID\): .*"
}

# shellcheck source=../lib/proc.sh
source "$CLI_TOP/tests/lib/proc.sh"

# stop_tool SIGNAL: sends it, waits (at most 30 s), sets TOOL_RC
stop_tool() {
	kill -"${1:-INT}" "$TOOL_PID" 2>/dev/null
	bounded_wait "$TOOL_PID" 30
	TOOL_RC=$?
	TOOL_PID=
}

CLI_PIDS=()
# BPF links of iomapdirty's programs, asked of the kernel (tests/lib/
# links.sh: bpftool link show, by program name), against the count when
# this file was sourced: prints how many more there are now. A link kept
# by a leftover process, pinned, or leaked in any other way shows.
CLI_LINKS_BEFORE=$("$CLI_TOP/tests/lib/links.sh" count 2>/dev/null)
cli_links() {
	local now
	now=$("$CLI_TOP/tests/lib/links.sh" count 2>/dev/null)
	if [[ ! $now =~ ^[0-9]+$ || ! $CLI_LINKS_BEFORE =~ ^[0-9]+$ ]]; then
		echo "unknown (bpftool failed)"
		return
	fi
	echo $((now - CLI_LINKS_BEFORE))
}

cli_finish() {
	echo "$CLI_PASS passed, $CLI_FAIL failed"
	[[ $CLI_FAIL -eq 0 ]]
}

# The cgroup v2 hierarchy's mount point, from /proc/self/mountinfo ("" if none)
cgroup2_root() {
	awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo
}

# For tests of writers in cgroups made here: kills CG_PIDS, removes the
# cgroups CG_DIRS, the loop filesystems and the folder CG_WORK.
CG_PIDS=()
CG_DIRS=()
cgroup_test_cleanup() {
	local p
	for p in "${CG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	sleep 0.2
	for p in "${CG_DIRS[@]}"; do rmdir "$p" 2>/dev/null; done
	xfsloop_cleanup_all
	[[ -n ${CG_WORK:-} ]] && rm -rf "$CG_WORK"
}
