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
strace -f -qq -e trace=listen,close -o "$work/st" \
	"$IOMAPDIRTY" exporter --shared --listen "127.0.0.1:$port" >/dev/null 2>"$work/err" &
spid=$!
CLI_PIDS+=("$spid")
for _ in $(seq 300); do grep -q "ready (pid" "$work/err" && break; sleep 0.1; done
check_match exporter.close.ready "ready \(pid" "$(cat "$work/err")"
pkill -TERM -P "$spid" -x iomapdirty 2>/dev/null || kill -TERM "$spid"
bounded_wait "$spid" 30
fd=$(grep -oE 'listen\(([0-9]+)' "$work/st" | head -1 | grep -oE '[0-9]+')
# closes of that number after listen() (before it, the number was other files')
n=$(awk -v fd="$fd" '/listen\(/ { on = 1 } on && index($0, "close(" fd ")") { n++ } END { print n + 0 }' "$work/st")
check exporter.close.listen_fd_closed_once "1" "${fd:+$n}"
cli_finish
