#!/usr/bin/env bash
# SIGTERM to the exporter's whole process group, as systemd's stop does
# (KillMode=control-group), and a container runtime's or init's group
# kill: the HTTP server's process (exporter_privsep.c) gets it too and
# may end first. That is a clean stop: exit 0 and the closing line, not
# exit 6 "the HTTP server process ended" (the unit ended failed at every
# systemctl stop). The HTTP process ending on its own, with no SIGTERM to
# the main process, stays an error (exit 6). And idle, neither spins.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_expgroup.XXXXXX)
trap 'for p in "${CLI_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

# start NAME: the exporter leading a process group of its own (setsid);
# sets pid and web (its HTTP process)
start() {
	local port=$((20000 + RANDOM % 20000))
	setsid "$IOMAPDIRTY" exporter --shared --listen "127.0.0.1:$port" \
		>/dev/null 2>"$work/$1.err" &
	pid=$!
	CLI_PIDS+=("$pid")
	for _ in $(seq 300); do grep -q "ready (pid" "$work/$1.err" && break; sleep 0.1; done
	web=$(sed -n 's/.*serving .* from pid \([0-9]*\) as uid.*/\1/p' "$work/$1.err")
	check_match "exporter.group_term.$1.ready" "ready \(pid $pid\)" "$(cat "$work/$1.err")"
}

# the race (the HTTP process sees SIGTERM and ends while the main process
# waits on it) lost on most tries before the fix: five tries
for i in 1 2 3 4 5; do
	start "group$i"
	check "exporter.group_term.group$i.leads_its_group" "$pid" "$(ps -o pgid= -p "$pid" | tr -d ' ')"
	check_match "exporter.group_term.group$i.web_in_group" '^[0-9]+$' "$web"
	kill -TERM -- "-$pid"
	bounded_wait "$pid" 30
	check "exporter.group_term.group$i.exit" 0 "$?"
	check_match "exporter.group_term.group$i.summary" "stopped after [0-9]+ scrapes" \
		"$(cat "$work/group$i.err")"
	check "exporter.group_term.group$i.no_error" 0 "$(grep -c 'ERROR\|ended or broke' "$work/group$i.err")"
done

# the HTTP process alone ends (SIGTERM to it only): still a failure
start alone
# before that, idle: neither process spins (utime + stime of both over 2 s,
# the kernel's count; a sweeper that never slept took 200 ticks)
ticks() { awk '{ t += $14 + $15 } END { print t }' "/proc/$pid/stat" "/proc/$web/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep 2
t1=$(ticks)
check exporter.group_term.idle_cpu_below_5pct yes \
	"$( ((t1 - t0 < hz / 10)) && echo yes || echo "no: $((t1 - t0)) ticks in 2 s")"
kill -TERM "$web"
bounded_wait "$pid" 30
check exporter.group_term.web_alone.exit 6 "$?"
check_match exporter.group_term.web_alone.named "HTTP server process \(pid $web\) ended" \
	"$(cat "$work/alone.err")"
cli_finish
