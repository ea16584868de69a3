#!/usr/bin/env bash
# Issue 27 item 9: the exporter closes its listening socket once on
# shutdown (MHD_stop_daemon closes it; a second close could hit a reused
# descriptor number). Seen with strace: close() of the listen() fd.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_expclose.XXXXXX)
trap 'for p in "${CLI_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
if ! command -v strace >/dev/null; then
	fail exporter.listen_fd_closed_once "strace missing (scripts/install-deps.sh)"
	cli_finish
	exit
fi
port=$((20000 + RANDOM % 20000))
# -yy: each close() shows what its descriptor was (the listening socket is
# TCP:[127.0.0.1:PORT], a connection TCP:[...->...]). LeakSanitizer cannot
# run under ptrace: off for this run (sanitized builds, tests/sanitized.sh).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -yy -e trace=listen,close -o "$work/st" \
	"$IOMAPDIRTY" exporter --shared --listen "127.0.0.1:$port" >/dev/null 2>"$work/err" &
spid=$!
CLI_PIDS+=("$spid")
for _ in $(seq 300); do grep -q "ready (pid" "$work/err" && break; sleep 0.1; done
check_match exporter.close.ready "ready \(pid" "$(cat "$work/err")"
# strace's child is the exporter (iomapdirty, or iomapdirty-asan in the
# sanitized run: no name match). Killing strace instead would detach it and
# leave the exporter attached: its processes are killed on exit whatever.
epid=$(pgrep -P "$spid" | head -1)
CLI_PIDS+=($epid $(pgrep -P "${epid:-0}"))
if [ -n "$epid" ]; then kill -TERM "$epid"; else kill -TERM "$spid"; fi
bounded_wait "$spid" 30
fd=$(grep -oE 'listen\(([0-9]+)' "$work/st" | head -1 | grep -oE '[0-9]+')
check_match exporter.close.listened '^[0-9]+$' "$fd"
# The HTTP server runs in a process of its own (exporter_privsep.c): the
# main process closes its copy when it hands the socket over, the server
# its own at shutdown. Each process closes the listening socket at most
# once, and closes of its number never fail (EBADF: closed twice).
sock="TCP:[127.0.0.1:$port]>)"
check exporter.close.listen_socket_closed_once_per_process 1 "$(awk -v s="$sock" \
	'index($0, "close(") && index($0, s) { n[$1]++ } END { m = 0; for (p in n) if (n[p] > m) m = n[p]; print m }' "$work/st")"
check exporter.close.listen_socket_closed 1 "$(awk -v s="$sock" \
	'index($0, "close(") && index($0, s) { n++ } END { print (n > 0) }' "$work/st")"
check exporter.close.no_double_close 0 "$(grep -cE "close\($fd\) += -1 EBADF" "$work/st")"
cli_finish
