#!/usr/bin/env bash
# Issue 27 item 4: a SIGINT that reaches `run` after CMD exited, while it
# waits for the writeback of what CMD wrote, is acted on: the exit status
# is 130, not CMD's 0. The wait is made to last: XFS on a device-mapper
# device that CMD suspends (dmsetup suspend) after writing, so syncfs
# blocks until a helper, having seen run in the wait (state D), sends
# SIGINT and resumes the device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_runsig.XXXXXX)
dm=wt-harden-runsig-$$
loop=
cleanup() {
	dmsetup resume "$dm" 2>/dev/null
	umount "$work/mnt" 2>/dev/null
	dmsetup remove "$dm" 2>/dev/null
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
if ! command -v dmsetup >/dev/null; then
	fail run_signal.setup "dmsetup missing (scripts/install-deps.sh)"
	cli_finish
	exit
fi
truncate -s 320M "$work/img"
loop=$(losetup --find --show "$work/img")
dmsetup create "$dm" --table "0 $(blockdev --getsz "$loop") linear $loop 0"
mkfs.xfs -q -f "/dev/mapper/$dm"
mkdir "$work/mnt"
mount "/dev/mapper/$dm" "$work/mnt"

# the helper: after CMD has exited and run sits in syncfs (D), SIGINT, then resume
cat >"$work/helper.sh" <<HELPER
cmd=\$1 run=\$2
for _ in \$(seq 200); do kill -0 "\$cmd" 2>/dev/null || break; sleep 0.05; done
for _ in \$(seq 200); do
	[ "\$(awk '{print \$3}' /proc/\$run/stat 2>/dev/null)" = D ] && break
	sleep 0.05
done
echo "state \$(awk '{print \$3}' /proc/\$run/stat)" >"$work/state"
kill -INT "\$run"
sleep 0.3
dmsetup resume "$dm"
HELPER
"$IOMAPDIRTY" run --shared -q --mount "$work/mnt" -- sh -c "
	dd if=/dev/zero of='$work/mnt/f' bs=64k count=16 2>/dev/null
	dmsetup suspend --noflush --nolockfs '$dm'
	setsid sh '$work/helper.sh' \$\$ \$PPID >/dev/null 2>&1 &
	exit 0" >/dev/null 2>"$work/err"
rc=$?
dmsetup resume "$dm" 2>/dev/null
check run_signal.helper_saw_the_wait "state D" "$(cat "$work/state" 2>/dev/null)"
check run_signal.sigint_after_cmd_exit_status 130 "$rc"
check_match run_signal.said_so "after the command exited" "$(cat "$work/err")"
cli_finish
