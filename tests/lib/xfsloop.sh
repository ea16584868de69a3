# shellcheck shell=bash
# xfsloop.sh - loop-mounted XFS fixtures for tests (source it; needs root).
#
#   source tests/lib/xfsloop.sh
#   mnt=$(xfsloop_make 1024 512)    # 1 KiB blocks, 512 MiB sparse image (mkfs.xfs needs >= 300)
#   mnt=$(xfsloop_make_part 1024 512)   # the same on partition 1 of a partitioned loop device
#   dev=$(xfsloop_dev "$mnt")       # "7:3"
#   xfsloop_cleanup "$mnt"          # optional: everything is undone on exit
#
# Every fixture is recorded in a state file before the step that creates it,
# so xfsloop_cleanup_all (run from the EXIT/INT/TERM trap) can undo partial
# setups too.  xfsloop_make runs in a command substitution (a subshell), so the
# record must live in a file, not in a bash array.
#
# Set XFSLOOP_NO_TRAP=1 before sourcing to install your own trap (call
# xfsloop_cleanup_all from it).  xfsloop_selftest checks for leaks.

XFSLOOP_STATE=$(mktemp /tmp/xfsloop.state.XXXXXX) || return 1
XFSLOOP_OWNER_PID=$$

_xfsloop_log() { echo "xfsloop: $*" >&2; }

# Undo one fixture described by its temp dir (image at D/img, mount at D/mnt,
# loop device name in D/loopdev).  Idempotent; tolerant of partial setups.
_xfsloop_undo() {
	local dir=$1 mnt loopdev

	mnt=$dir/mnt
	if mountpoint -q "$mnt" 2>/dev/null; then
		for _ in 1 2 3 4 5; do
			umount "$mnt" 2>/dev/null && break
			sleep 0.5
		done
		mountpoint -q "$mnt" && umount -l "$mnt" 2>/dev/null
	fi
	if [[ -s $dir/loopdev ]]; then
		loopdev=$(<"$dir/loopdev")
		# Detach only if it is still backed by our image (the name may
		# have been reused otherwise).
		if losetup -nO BACK-FILE "$loopdev" 2>/dev/null |
			grep -qF "$dir/img"; then
			losetup -d "$loopdev" 2>/dev/null ||
				_xfsloop_log "could not detach $loopdev"
		fi
	fi
	# Attached by us but not recorded (killed between losetup and the
	# write of $dir/loopdev): find it by backing file.
	losetup -nO NAME -j "$dir/img" 2>/dev/null | while read -r loopdev; do
		losetup -d "$loopdev" 2>/dev/null
	done
	rm -rf -- "$dir"
}

# xfsloop_make BLOCKSIZE SIZE_MB -> prints the mount point.
xfsloop_make() {
	_xfsloop_make xfsloop_make "$@"
}

# xfsloop_make_part BLOCKSIZE SIZE_MB -> the same, the XFS on the first
# partition (starting at sector 2048) of a partitioned image attached with
# `losetup -P` (the node may need `partx -a` where no udev runs).  Needs
# sfdisk (Debian's fdisk package).
xfsloop_make_part() {
	_xfsloop_make xfsloop_make_part "$@"
}

# _xfsloop_make NAME BLOCKSIZE SIZE_MB: NAME says whether to partition.
_xfsloop_make() {
	local name=$1 bs=$2 size_mb=$3 dir loopdev dev i losetup_opts=()

	if [[ $# -ne 3 || ! $bs =~ ^[0-9]+$ || ! $size_mb =~ ^[0-9]+$ ]]; then
		_xfsloop_log "usage: $name BLOCKSIZE SIZE_MB"
		return 2
	fi
	dir=$(mktemp -d /tmp/xfsloop.XXXXXX) || return 1
	echo "$dir" >>"$XFSLOOP_STATE"
	mkdir "$dir/mnt" || return 1
	if ! truncate -s "${size_mb}M" "$dir/img"; then
		_xfsloop_log "truncate failed"; _xfsloop_undo "$dir"; return 1
	fi
	if [[ $name == xfsloop_make_part ]]; then
		if ! echo 'start=2048, type=83' | sfdisk -q "$dir/img" >"$dir/sfdisk.log" 2>&1; then
			_xfsloop_log "sfdisk failed: $(head -n 2 "$dir/sfdisk.log")"
			_xfsloop_undo "$dir"; return 1
		fi
		losetup_opts=(-P)
	fi
	if ! loopdev=$(losetup "${losetup_opts[@]}" --find --show "$dir/img"); then
		_xfsloop_log "losetup failed"; _xfsloop_undo "$dir"; return 1
	fi
	echo "$loopdev" >"$dir/loopdev"
	dev=$loopdev
	if [[ $name == xfsloop_make_part ]]; then
		dev=${loopdev}p1
		for i in 1 2 3 4 5 6 7 8 9 10; do
			[[ -b $dev ]] && break
			partx -a "$loopdev" 2>/dev/null
			sleep 0.2
		done
	fi
	if ! mkfs.xfs -q -f -b size="$bs" "$dev" >"$dir/mkfs.log" 2>&1; then
		_xfsloop_log "mkfs.xfs -b size=$bs $dev failed: $(head -n 2 "$dir/mkfs.log")"
		_xfsloop_undo "$dir"; return 1
	fi
	if ! mount -t xfs "$dev" "$dir/mnt"; then
		_xfsloop_log "mount $dev failed"; _xfsloop_undo "$dir"; return 1
	fi
	echo "$dir/mnt"
}

# xfsloop_dev MOUNT -> "MAJ:MIN" of the device the filesystem is mounted from
# (the value in st_dev of its files, and the `dev` of the iomap tracepoints).
xfsloop_dev() {
	mountpoint -d -- "$1"
}

# xfsloop_cleanup MOUNT: undo one fixture early.
xfsloop_cleanup() {
	local dir=${1%/mnt}

	grep -qxF -- "$dir" "$XFSLOOP_STATE" 2>/dev/null || return 0
	_xfsloop_undo "$dir"
	grep -vxF -- "$dir" "$XFSLOOP_STATE" >"$XFSLOOP_STATE.tmp"
	mv -f "$XFSLOOP_STATE.tmp" "$XFSLOOP_STATE"
}

xfsloop_cleanup_all() {
	local dir

	[[ -f $XFSLOOP_STATE ]] || return 0
	# Subshells inherit the trap; only the shell that sourced us cleans.
	[[ ${BASHPID:-$$} == "$XFSLOOP_OWNER_PID" ]] || return 0
	while read -r dir; do
		[[ -n $dir ]] && _xfsloop_undo "$dir"
	done <"$XFSLOOP_STATE"
	rm -f "$XFSLOOP_STATE" "$XFSLOOP_STATE.tmp"
}

_xfsloop_on_signal() {
	xfsloop_cleanup_all
	trap - "$1"
	kill -s "$1" "$$"
}

if [[ -z "${XFSLOOP_NO_TRAP:-}" ]]; then
	trap xfsloop_cleanup_all EXIT
	trap '_xfsloop_on_signal INT' INT
	trap '_xfsloop_on_signal TERM' TERM
fi

# Quick leak check: make two fixtures (one on purpose left busy by an open
# file, one failing at mkfs), clean up, compare `losetup -a` and mounts.
xfsloop_selftest() {
	local before after mnt mnt2 rc=0

	before=$(losetup -a | sort)
	mnt=$(xfsloop_make 1024 512) || { echo "FAIL xfsloop_make"; return 1; }
	mnt2=$(xfsloop_make 4096 512) || { echo "FAIL xfsloop_make 4k"; return 1; }
	[[ $(stat -f -c %S "$mnt") == 1024 ]] || { echo "FAIL bs 1k"; rc=1; }
	[[ $(stat -f -c %S "$mnt2") == 4096 ]] || { echo "FAIL bs 4k"; rc=1; }
	[[ $(xfsloop_dev "$mnt") =~ ^7:[0-9]+$ ]] || { echo "FAIL dev"; rc=1; }
	[[ $(stat -c '%Hd:%Ld' "$mnt") == "$(xfsloop_dev "$mnt")" ]] ||
		{ echo "FAIL dev mismatch"; rc=1; }
	if xfsloop_make 333 512 2>/dev/null; then
		echo "FAIL bad block size accepted"; rc=1
	fi
	echo data >"$mnt/f"
	xfsloop_cleanup "$mnt"
	[[ -e $mnt ]] && { echo "FAIL $mnt still there"; rc=1; }
	xfsloop_cleanup_all
	after=$(losetup -a | sort)
	if [[ "$before" != "$after" ]]; then
		echo "FAIL loop devices leaked:"; diff <(echo "$before") <(echo "$after")
		rc=1
	fi
	if grep -q /tmp/xfsloop. /proc/mounts; then
		echo "FAIL mounts leaked"; rc=1
	fi
	[[ $rc == 0 ]] && echo "PASS xfsloop_selftest"
	return $rc
}
