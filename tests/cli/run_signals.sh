#!/usr/bin/env bash
# Issue 27 item 4: a SIGINT that reaches `run` after CMD exited, while it
# waits for the writeback of what CMD wrote, is acted on: the exit status
# is 130, not CMD's 0 (before, SIGINT stayed blocked and was dropped at
# exit). CMD leaves 384 MiB dirty on a loop XFS, so run's syncfs lasts; a
# helper waits for CMD to be gone and sends SIGINT to run (this kernel has
# no device-mapper to hold the wait for longer).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_runsig.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
mnt=$(xfsloop_make 4096 1024)

cat >"$work/helper.sh" <<HELPER
cmd=\$1 run=\$2
while kill -0 "\$cmd" 2>/dev/null; do sleep 0.01; done
if kill -INT "\$run" 2>/dev/null; then echo sent >"$work/state"; else echo gone >"$work/state"; fi
HELPER
"$IOMAPDIRTY" run --shared -q --mount "$mnt" -- sh -c "
	dd if=/dev/zero of='$mnt/f' bs=1M count=384 2>/dev/null
	setsid sh '$work/helper.sh' \$\$ \$PPID >/dev/null 2>&1 &
	exit 0" >/dev/null 2>"$work/err"
rc=$?
check run_signal.sent_while_run_waited sent "$(cat "$work/state" 2>/dev/null)"
check run_signal.sigint_after_cmd_exit_status 130 "$rc"
check_match run_signal.said_so "after the command exited" "$(cat "$work/err")"
cli_finish
