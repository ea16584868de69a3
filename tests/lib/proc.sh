# shellcheck shell=bash
# proc.sh - waiting on the tool without hanging the suite.

# bounded_wait PID SECONDS: wait for a child, at most SECONDS; then SIGKILL
# it and return 124 (a hung tool must not hang the suite). Otherwise its
# exit status.
bounded_wait() {
	local pid=$1 secs=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid"
}
