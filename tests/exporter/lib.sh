# shellcheck shell=bash
# Shared by the exporter tests: PASS/FAIL lines (tests/cli/lib.sh),
# loop-mounted XFS (tests/lib/xfsloop.sh), a work directory, and a trap
# that kills what the test started (KILL_PIDS) and undoes both.
EXPORTER_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../cli/lib.sh
source "$EXPORTER_TOP/tests/cli/lib.sh"
XFSLOOP_NO_TRAP=1
# shellcheck source=../lib/xfsloop.sh
source "$EXPORTER_TOP/tests/lib/xfsloop.sh"
work=$(mktemp -d /tmp/exporter_test.XXXXXX)
KILL_PIDS=()
_exporter_cleanup() {
	local p
	for p in "${KILL_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait 2>/dev/null
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap _exporter_cleanup EXIT
trap 'exit 130' INT TERM

# A loopback port nobody listens on.
free_port() {
	local p i
	for i in $(seq 100); do
		p=$((20000 + RANDOM % 10000))
		ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

# exp_start NAME CMD ARGS...: CMD in the background (an iomapdirty binary),
# logs in $work/NAME.err; sets EXP_PID; returns once it says ready (or
# fails if it exits first or takes 30 s).
exp_start() {
	local name=$1 i
	shift
	"$@" >"$work/$name.out" 2>"$work/$name.err" &
	EXP_PID=$!
	KILL_PIDS+=("$EXP_PID")
	for i in $(seq 300); do
		grep -qs 'ready (pid' "$work/$name.err" && return 0
		kill -0 "$EXP_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# prom_start PORT: a Prometheus server on 127.0.0.1:PORT with
# $work/prometheus.yml, data in $work/tsdb, log in $work/prometheus.log;
# sets prom_pid (killed at exit).
prom_start() {
	prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
		--web.listen-address="127.0.0.1:$1" --log.level=warn \
		>"$work/prometheus.log" 2>&1 &
	prom_pid=$!
	KILL_PIDS+=("$prom_pid")
}
