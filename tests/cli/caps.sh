#!/usr/bin/env bash
# Capabilities after attach (issue 11, item 3; docs/iomapdirty.md,
# PRIVILEGES): once its programs are attached, each command keeps only
# what it still needs, in its effective, permitted, inheritable, ambient
# and bounding sets, in every thread (/proc/PID/task/*/status):
#   hist, top, verify, exporter   CAP_DAC_READ_SEARCH (2), CAP_BPF (39)
#   run (this process)            the same, CAP_KILL (5) and, unless --all
#                                 (CMD's cgroup to remove), CAP_DAC_OVERRIDE
#                                 (1); with --json also CAP_DAC_OVERRIDE,
#                                 CAP_FOWNER (3)
#   run's CMD                     everything the caller had, or nothing
#                                 with --user
# The masks are written out here from that list, not taken from the code.
# On main before the change every set was the caller's full one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_caps.XXXXXX)
trap 'kill "${CLI_PIDS[@]}" 2>/dev/null; xfsloop_cleanup_all; rm -rf "$work"' EXIT
mnt=$(xfsloop_make 1024 512) || { fail caps.fixture "xfsloop_make failed"; cli_finish; exit; }
"$WORKLOAD" prep "$mnt/f" 1M >/dev/null

mask() { local m=0 c; for c in "$@"; do m=$((m | (1 << c))); done; printf '%016x' "$m"; }
OBSERVE=$(mask 2 39)
RUN=$(mask 1 2 5 39)
RUN_ALL=$(mask 2 5 39)
RUN_JSON=$(mask 1 2 3 5 39)
NONE=0000000000000000
MINE=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)

# caps_of PID: "Inh Prm Eff Bnd Amb" (the file's order) of every thread,
# one line each, unique
caps_of() {
	local t
	for t in /proc/"$1"/task/*/status; do
		awk '/^Cap(Eff|Prm|Inh|Bnd|Amb):/ { printf "%s ", $2 } END { print "" }' "$t"
	done | sort -u | sed 's/ $//'
}

# check_caps NAME MASK: the tool started last (TOOL_PID)
check_caps() {
	check "caps.$1" "$NONE $2 $2 $2 $NONE" "$(caps_of "$TOOL_PID")"
}

if start_tool "$work/hist.out" "$work/hist.err" hist --shared --mount "$mnt" -i 1; then
	"$WORKLOAD" scatter "$mnt/f" --count 8 --len 100 --stride 20000 >/dev/null
	sleep 1.5
	check_caps hist "$OBSERVE"
	stop_tool INT
	check caps.hist_exit 0 "$TOOL_RC"
	# the figures after the drop: the 8 scattered writes' 800 bytes
	check_match caps.hist_still_counts '^  written      800 B in 8 write calls$' \
		"$(sed -n '/^=== summary/,$p' "$work/hist.out")"
else
	fail caps.hist_ready "$(tail -2 "$work/hist.err")"
fi

if start_tool "$work/top.out" "$work/top.err" top --shared -b -i 1 -n 4 --mount "$mnt"; then
	check_caps top "$OBSERVE"
	stop_tool INT
else
	fail caps.top_ready "$(tail -2 "$work/top.err")"
fi

if start_tool "$work/verify.out" "$work/verify.err" verify --shared --mount "$mnt" -D 30; then
	check_caps verify "$OBSERVE"
	stop_tool INT
else
	fail caps.verify_ready "$(tail -2 "$work/verify.err")"
fi

port=$((20000 + RANDOM % 20000))
if start_exporter "$work/exp.out" "$work/exp.err" --shared --mount "$mnt" \
		--listen "127.0.0.1:$port"; then
	check_caps exporter "$OBSERVE"
	check_match caps.exporter_serves '^iomapdirty_lost_total' \
		"$(curl -s --max-time 5 "http://127.0.0.1:$port/metrics")"
	stop_tool TERM
	check caps.exporter_exit 0 "$TOOL_RC"
else
	fail caps.exporter_ready "$(tail -2 "$work/exp.err")"
	kill "$TOOL_PID" 2>/dev/null
fi

# Without CAP_SETUID and CAP_SETGID (a container given CAP_BPF and
# CAP_PERFMON only) the HTTP process cannot switch to nobody: exit 4
# before anything is attached (no plan line), the two named, no "ready"
# that nothing would serve. Before: ready, then exit 6 at the first poll.
port=$((20000 + RANDOM % 20000))
timeout -s KILL 30 setpriv --bounding-set -setuid,-setgid "$IOMAPDIRTY" exporter --shared \
	--mount "$mnt" --listen "127.0.0.1:$port" >"$work/nosetuid.out" 2>"$work/nosetuid.err"
check caps.exporter_without_setuid_exit 4 "$?"
check_match caps.exporter_without_setuid_says 'cannot switch to uid.*CAP_SETUID and CAP_SETGID' \
	"$(cat "$work/nosetuid.err")"
check caps.exporter_without_setuid_not_attached "" \
	"$(grep -E 'kernel family|ready' "$work/nosetuid.err")"

# run (no ready line: CMD starting is the sign): this process reduced, CMD
# with everything this shell has. start_run OUT ARGS...: sets TOOL_PID,
# CHILD (CMD's pid, a sleep), or returns 1
start_run() {
	local out=$1
	shift
	CHILD=
	"$IOMAPDIRTY" run "$@" >"$out" 2>"$out.err" &
	TOOL_PID=$!
	CLI_PIDS+=("$TOOL_PID")
	for _ in $(seq 200); do
		CHILD=$(pgrep -P "$TOOL_PID" sleep) && return 0
		kill -0 "$TOOL_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
eff_of() { awk '/^CapEff:/ { print $2 }' /proc/"$1"/status 2>/dev/null; }
# the drop follows the fork: wait until this process's bounding set changed
settle() {
	for _ in $(seq 50); do
		[[ $(awk '/^CapBnd:/ { print $2 }' /proc/"$TOOL_PID"/status) != "$MINE" ]] && return
		sleep 0.1
	done
}

if start_run "$work/run.out" --shared --mount "$mnt" -- sleep 30; then
	settle
	check caps.run_cmd_keeps_all "$MINE" "$(eff_of "$CHILD")"
	check_caps run "$RUN"
	stop_tool INT
else
	fail caps.run_started "$(tail -2 "$work/run.out.err")"
fi
if start_run "$work/runa.out" --shared --all --mount "$mnt" -- sleep 30; then
	settle
	check_caps run_all "$RUN_ALL"
	stop_tool INT
else
	fail caps.run_all_started "$(tail -2 "$work/runa.out.err")"
fi
if start_run "$work/runu.out" --shared --mount "$mnt" --user nobody -- sleep 30; then
	settle
	check caps.run_user_cmd_none "$NONE" "$(eff_of "$CHILD")"
	check_caps run_user "$RUN"
	# a signal still reaches a CMD of another user (CAP_KILL kept)
	# (without it the tool waits for CMD until stop_tool's 30 s: 124)
	stop_tool TERM
	check caps.run_user_signal_forwarded 143 "$TOOL_RC"
else
	fail caps.run_user_started "$(tail -2 "$work/runu.out.err")"
fi
# --json into a directory only nobody may write: the rename needs
# CAP_DAC_OVERRIDE, kept for it
mkdir "$work/theirs" && chown nobody "$work/theirs" && chmod 755 "$work/theirs"
if start_run "$work/runj.out" --shared --mount "$mnt" --json "$work/theirs/r.json" -- sleep 2; then
	settle
	check_caps run_json "$RUN_JSON"
	bounded_wait "$TOOL_PID" 30
	check caps.run_json_exit 0 "$?"
	check caps.run_json_written ok "$(jq -e .totals >/dev/null 2>&1 <"$work/theirs/r.json" && echo ok)"
else
	fail caps.run_json_started "$(tail -2 "$work/runj.out.err")"
fi
cli_finish
