#!/usr/bin/env bash
# Filesystems the tool does not watch (issue 26): run, hist and top say
# which ones the writers dirtied, and why, instead of zeros. Scripted
# writes of known offsets on a loop ext4 with 1 KiB and with 4 KiB blocks,
# beside a loop XFS written in the same run (its figures still exact and
# it is not listed), and raw writes to a loop block device. Ground truth:
# the workload's own figures (the folios it wrote, from kpageflags) and
# dd's. Before the fix, ext4 folios left page records nobody took ("still
# dirty" pages, and a syncfs of the bdev pseudo-filesystem 0:3 that fails).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_unwatched.XXXXXX)
loops=()
cleanup() {
	local d
	for d in "$work"/ext4.*/mnt "$work"/btrfs/mnt "$work"/fuse/mnt; do
		mountpoint -q "$d" 2>/dev/null && umount "$d"
	done
	for d in "${loops[@]}"; do
		losetup -d "$d" 2>/dev/null
	done
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT

bounded_run() {	# SECONDS CMD...: CMD killed after SECONDS
	timeout -k 5 "$1" "${@:2}"
}

# ext4_make BLOCKSIZE -> mount point of a 64 MiB loop ext4
ext4_make() {
	local d=$work/ext4.$1 dev
	mkdir -p "$d/mnt" && truncate -s 64M "$d/img" &&
		mkfs.ext4 -q -F -b "$1" "$d/img" >/dev/null 2>&1 &&
		dev=$(losetup --find --show "$d/img") || return 1
	echo "$dev" >"$d/loopdev"
	mount -t ext4 "$dev" "$d/mnt" || return 1
	echo "$d/mnt"
}

x=$(xfsloop_make 1024 512) || { fail unwatched.fixture "xfsloop_make failed"; cli_finish; exit; }
for bs in 1024 4096; do
	m=$(ext4_make $bs) || { fail "unwatched.fixture.ext4_$bs" "mkfs/mount failed"; cli_finish; exit; }
	loops+=("$(<"$work/ext4.$bs/loopdev")")
	eval "e$bs=\$m"
done

# ext4 is counted by the buffer-head backend, which has tp_btf programs
# only: under --mode raw_tp it is a filesystem the plan does not watch
# (tests/cli/ext4.sh checks what the backend counts).
UMODE=raw_tp

# run: one CMD writing known offsets into an ext4 and an XFS
run_case() {
	local bs=$1 len=$2 stride=$3 m dev
	eval "m=\$e$bs"
	dev=$(mountpoint -d "$m")
	bounded_run 120 "$IOMAPDIRTY" run --mode "$UMODE" --json "$work/run$bs.json" -- \
		bash -c '"$1" scatter "$2" --count 7 --len "$4" --stride "$5" >"$6" &&
			"$1" scatter "$3" --count 5 --len 100 --stride 20000 >"$7"' \
		_ "$WORKLOAD" "$m/f" "$x/f$bs" "$len" "$stride" "$work/e$bs.exp" \
		"$work/x$bs.exp" 2>"$work/run$bs.err"
	check "unwatched.run_ext4_$bs.exit" 0 "$?"
	local j=$work/run$bs.json u
	u=$(jq -c --arg d "$dev" '[.unwatched_filesystems[] |
		select(.dev == $d and .kind == "ext4")]' "$j")
	check "unwatched.run_ext4_$bs.listed" 1 "$(jq length <<<"$u")"
	check "unwatched.run_ext4_$bs.fstype" '"ext4"' "$(jq -c '.[0].fstype' <<<"$u")"
	check "unwatched.run_ext4_$bs.folios" "$(jq .folios "$work/e$bs.exp")" \
		"$(jq '.[0].folios_dirtied' <<<"$u")"
	check "unwatched.run_ext4_$bs.bytes" "$(jq .folio_bytes "$work/e$bs.exp")" \
		"$(jq '.[0].bytes_dirtied' <<<"$u")"
	check "unwatched.run_ext4_$bs.xfs_not_listed" 0 \
		"$(jq --arg d "$(xfsloop_dev "$x")" '[.unwatched_filesystems[] |
			select(.dev == $d)] | length' "$j")"
	check "unwatched.run_ext4_$bs.nothing_left_dirty" 0 "$(jq .writeback.unwritten_pages "$j")"
	check "unwatched.run_ext4_$bs.no_sync_failure" 0 "$(jq .writeback.sync_failures "$j")"
	for f in app_bytes dirty_blocks submitted_blocks folios; do
		check "unwatched.run_ext4_$bs.xfs_$f" "$(jq ".$f" "$work/x$bs.exp")" \
			"$(jq ".totals.$f" "$j")"
	done
	check_match "unwatched.run_ext4_$bs.text" "NOT WATCHED $dev ext4 on .*buffer heads.*tp_btf" \
		"$(cat "$work/run$bs.err")"
}
run_case 1024 100 20000
run_case 4096 5000 30000

# raw writes to a block device: its own page cache, not watched
truncate -s 16M "$work/raw.img"
raw=$(losetup --find --show "$work/raw.img") && loops+=("$raw")
rawdev=$(lsblk -dno MAJ:MIN "$raw" | tr -d ' ')
blockdev --flushbufs "$raw"
bounded_run 60 "$IOMAPDIRTY" run --mode tracepoint --json "$work/raw.json" -- \
	dd if=/dev/zero of="$raw" bs=4k count=8 seek=16 conv=fsync status=none 2>"$work/raw.err"
check unwatched.raw.exit 0 "$?"
u=$(jq -c --arg d "$rawdev" '[.unwatched_filesystems[] | select(.dev == $d and
	.kind == "block device")]' "$work/raw.json")
check unwatched.raw.listed 1 "$(jq length <<<"$u")"
check unwatched.raw.bytes 32768 "$(jq '.[0].bytes_dirtied' <<<"$u")"
# the 8 writes passed the write hook (iomap_iter: the block device's
# buffered writes go through iomap, two calls each) and were left out as
# another filesystem's page cache, not missed: nothing counted
ev=$(jq '.events.write_events' "$work/raw.json")
if [[ $ev =~ ^[0-9]+$ ]] && ((ev >= 16)); then
	pass unwatched.raw.write_hook_saw_them
else
	fail unwatched.raw.write_hook_saw_them "expected >= 16 write events (8 writes) got $ev"
fi
check unwatched.raw.app_bytes 0 "$(jq '.totals.app_bytes' "$work/raw.json")"
check unwatched.raw.write_calls 0 "$(jq '.totals.write_calls' "$work/raw.json")"

# btrfs where its backend is not attached (--mode raw_tp: the backend is
# tp_btf programs, tests/cli/btrfs.sh counts it): a run writing into a
# btrfs and an XFS names the btrfs NOT WATCHED with the folios the
# workload dirtied there, the XFS still exact; `run --mount` of the btrfs
# is refused (exit 5, with why)
btrfs_case() {
	local d=$work/btrfs dev j=$work/btrfs.json u
	mkdir -p "$d/mnt" && truncate -s 256M "$d/img" &&
		mkfs.btrfs -q -f "$d/img" >/dev/null 2>&1 &&
		bdev=$(losetup --find --show "$d/img") && loops+=("$bdev") &&
		mount -t btrfs "$bdev" "$d/mnt" ||
		{ fail unwatched.btrfs.fixture "mkfs.btrfs (btrfs-progs) or mount failed"; return; }
	dev=$(mountpoint -d "$d/mnt")
	"$WORKLOAD" prep "$d/mnt/f" 1M >/dev/null && sync
	bounded_run 120 "$IOMAPDIRTY" run --mode "$UMODE" --json "$j" -- \
		bash -c '"$1" scatter "$2" --count 7 --len 100 --stride 20000 >"$4" &&
			"$1" scatter "$3" --count 5 --len 100 --stride 20000 >"$5"' \
		_ "$WORKLOAD" "$d/mnt/f" "$x/fb" "$work/b.exp" "$work/xb.exp" 2>"$work/btrfs.err"
	check unwatched.btrfs.exit 0 "$?"
	u=$(jq -c --arg d "$dev" '[.unwatched_filesystems[] | select(.dev == $d)]' "$j")
	check unwatched.btrfs.listed '["btrfs"]' "$(jq -c '[.[].kind]' <<<"$u")"
	# the file's folios and more: btrfs's own metadata (its btree's pages,
	# the same superblock) goes dirty in the writer's fsync too
	check unwatched.btrfs.folios_at_least_the_files true \
		"$(jq --argjson w "$(jq .folios "$work/b.exp")" '.[0].folios_dirtied >= $w' <<<"$u")"
	check unwatched.btrfs.bytes_of_those_folios "$(jq '.[0].folios_dirtied * 4096' <<<"$u")" \
		"$(jq '.[0].bytes_dirtied' <<<"$u")"
	for f in app_bytes dirty_blocks submitted_blocks folios; do
		check "unwatched.btrfs.xfs_$f" "$(jq ".$f" "$work/xb.exp")" "$(jq ".totals.$f" "$j")"
	done
	check_match unwatched.btrfs.text "NOT WATCHED $dev btrfs on .*its backend needs tp_btf" \
		"$(cat "$work/btrfs.err")"
	bounded_run 60 "$IOMAPDIRTY" run --mode "$UMODE" --mount "$d/mnt" -q -- true \
		2>"$work/btrfs_mount.err"
	check unwatched.btrfs.mount_refused 5 "$?"
	check_match unwatched.btrfs.mount_why "btrfs is counted by the btrfs backend, which this plan" \
		"$(cat "$work/btrfs_mount.err")"
	umount "$d/mnt"
}
btrfs_case

# FUSE with the writeback cache (tests/lib/memfuse.py, a server in
# memory logging every WRITE it receives): on kernels where its buffered
# writes go through iomap (6.17+) they pass the write and writeback hooks,
# but writeback sends the server WRITE requests, not bios, so no submit
# hook sees them: named NOT WATCHED with the folios the workload dirtied,
# nothing counted. The kernel's side is checked too (tracefs, on the FUSE
# device only): iomap_writeback_folio fired, iomap_add_to_ioend did not;
# and what the server received: each dirtied folio whole (FUSE's dirty
# state is per folio here, st_blksize 1024 or not).
fuse_case() {
	local d=$work/fuse j=$work/fuse.json u dev T=/sys/kernel/tracing pid i ev
	mkdir -p "$d/mnt"
	python3 "$CLI_TOP/tests/lib/memfuse.py" "$d/mnt" --size 1048576 --blksize 1024 \
		--log "$d/writes.log" >"$d/out" 2>&1 &
	pid=$!
	for i in $(seq 50); do
		[[ -s $d/out ]] && break
		sleep 0.1
	done
	if [[ $(head -n 1 "$d/out") != ready ]] || ! mountpoint -q "$d/mnt"; then
		fail unwatched.fuse.fixture "memfuse did not mount: $(tail -n 2 "$d/out")"
		kill "$pid" 2>/dev/null
		return
	fi
	dev=$(mountpoint -d "$d/mnt")
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo "dev == $(((${dev%:*} << 20) | ${dev#*:}))" >"$T/events/iomap/filter"
	echo 1 >"$T/events/iomap/enable"
	echo 1 >"$T/tracing_on"
	bounded_run 120 "$IOMAPDIRTY" run --mode "$UMODE" --json "$j" -- \
		"$WORKLOAD" scatter "$d/mnt/f" --count 6 --len 100 --stride 20000 \
		>"$work/fuse.exp" 2>"$work/fuse.err"
	check unwatched.fuse.exit 0 "$?"
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/iomap/enable"
	echo 0 >"$T/events/iomap/filter"
	ev=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^iomap_[a-z_]*:$/) n[$i]++ }
		END { printf "%d %d %d", n["iomap_iter:"], n["iomap_writeback_folio:"],
			n["iomap_add_to_ioend:"] }' "$T/trace")
	echo >"$T/trace"
	read -r -a ev <<<"$ev"
	check unwatched.fuse.iomap_writeback_folio "$(jq .folios "$work/fuse.exp")" "${ev[1]}"
	check unwatched.fuse.no_ioend 0 "${ev[2]}"
	check_match unwatched.fuse.iomap_iter_writes '^[1-9][0-9]*$' "${ev[0]}"
	u=$(jq -c --arg d "$dev" '[.unwatched_filesystems[] | select(.dev == $d)]' "$j")
	check unwatched.fuse.listed '["fuse"]' "$(jq -c '[.[].kind]' <<<"$u")"
	check unwatched.fuse.folios "$(jq .folios "$work/fuse.exp")" "$(jq '.[0].folios_dirtied' <<<"$u")"
	check unwatched.fuse.bytes "$(jq .folio_bytes "$work/fuse.exp")" "$(jq '.[0].bytes_dirtied' <<<"$u")"
	check unwatched.fuse.nothing_counted 0 "$(jq .totals.app_bytes "$j")"
	check_match unwatched.fuse.text "NOT WATCHED $dev fuse[.a-z]* on .*WRITE requests" \
		"$(cat "$work/fuse.err")"
	# what the server received: every folio dirtied, whole
	check unwatched.fuse.server_writes "$(jq .folio_bytes "$work/fuse.exp")" \
		"$(jq -s 'map(.size) | add' "$d/writes.log")"
	umount "$d/mnt"
	bounded_wait "$pid" 10 || kill "$pid" 2>/dev/null
}
fuse_case

# ext4 journalling file data, with the buffer-head backend attached
# (--mode tracepoint): a data=journal mount, then chattr +j files on a
# nodelalloc mount beside files of the same ext4 that it counts. Journalled
# data reaches the disk through jbd2 (the journal, then the checkpoint),
# not the writeback the backend follows: its files are named NOT WATCHED
# ("ext4 data=journal") with the folios the workload dirtied, never in a
# file's or filesystem's figures; run --mount of such a mount exits 5.
ext4_journal_case() {
	local d=$work/ext4.journal j=$work/ej.json u dev n=unwatched.ext4_journal
	mkdir -p "$d/mnt" && truncate -s 64M "$d/img" &&
		mkfs.ext4 -q -F -b 1024 "$d/img" >/dev/null 2>&1 &&
		bdev=$(losetup --find --show "$d/img") && loops+=("$bdev") &&
		mount -t ext4 -o data=journal "$bdev" "$d/mnt" ||
		{ fail "$n.fixture" "mkfs.ext4 or mount -o data=journal failed"; return; }
	dev=$(mountpoint -d "$d/mnt")
	"$WORKLOAD" prep "$d/mnt/f" 1M >/dev/null && sync
	bounded_run 120 "$IOMAPDIRTY" run --mode tracepoint --json "$j" -- \
		bash -c '"$1" scatter "$2" --count 7 --len 100 --stride 20000 >"$4" &&
			"$1" scatter "$3" --count 5 --len 100 --stride 20000 >"$5"' \
		_ "$WORKLOAD" "$d/mnt/f" "$x/fj" "$work/j.exp" "$work/xj.exp" 2>"$work/ej.err"
	check "$n.exit" 0 "$?"
	check "$n.backend_attached" '"buffer_heads"' "$(jq -c '.plan.backends[] |
		select(.filesystem == "ext4") | .backend' "$j")"
	u=$(jq -c --arg d "$dev" '[.unwatched_filesystems[] | select(.dev == $d and
		.kind == "ext4 data=journal")]' "$j")
	check "$n.listed" 1 "$(jq length <<<"$u")"
	check "$n.folios_at_least_the_files" true \
		"$(jq --argjson w "$(jq .folios "$work/j.exp")" '.[0].folios_dirtied >= $w' <<<"$u")"
	check "$n.no_file_counted" 0 "$(jq --arg d "$dev" '[.files[] | select(.dev == $d)] | length' "$j")"
	check "$n.no_filesystem_counted" 0 "$(jq --arg d "$dev" '[.filesystems[] |
		select(.dev == $d)] | length' "$j")"
	# the XFS's figures (the root filesystem may be an ext4, counted too)
	for f in app_bytes dirty_blocks submitted_blocks folios violation_blocks; do
		check "$n.xfs_$f" "$(jq ".$f // 0" "$work/xj.exp")" "$(jq --arg d "$(mountpoint -d "$x")" \
			".filesystems[] | select(.dev == \$d) | .stats.$f" "$j")"
	done
	check_match "$n.text" "NOT WATCHED $dev ext4 on .*journal first" "$(cat "$work/ej.err")"
	bounded_run 60 "$IOMAPDIRTY" run --mode tracepoint --mount "$d/mnt" -q -- true \
		2>"$work/ej_mount.err"
	check "$n.mount_refused" 5 "$?"
	check_match "$n.mount_why" "data=journal" "$(cat "$work/ej_mount.err")"
	umount "$d/mnt"

	# chattr +j: journalled where the mount has no delalloc; h beside it
	# counted. Setting the flag needs CAP_SYS_RESOURCE, which a container
	# may lack (this project's development host does): then said, not run.
	mount -t ext4 -o nodelalloc "$bdev" "$d/mnt" ||
		{ fail "$n.inode.fixture" "mount -o nodelalloc failed"; return; }
	"$WORKLOAD" prep "$d/mnt/g" 1M >/dev/null && "$WORKLOAD" prep "$d/mnt/h" 1M >/dev/null ||
		{ fail "$n.inode.fixture" "prep failed"; umount "$d/mnt"; return; }
	if ! chattr +j "$d/mnt/g" 2>"$work/chattr.err"; then
		echo "SKIP $n.inode: chattr +j refused ($(head -c 200 "$work/chattr.err");" \
			"needs CAP_SYS_RESOURCE)"
		umount "$d/mnt"
		return
	fi
	sync
	bounded_run 120 "$IOMAPDIRTY" run --mode tracepoint --json "$j" -- \
		bash -c '"$1" scatter "$2" --count 6 --len 100 --stride 20000 >"$4" &&
			"$1" scatter "$3" --count 4 --len 100 --stride 20000 >"$5"' \
		_ "$WORKLOAD" "$d/mnt/g" "$d/mnt/h" "$work/g.exp" "$work/h.exp" 2>"$work/ej.err"
	check "$n.inode.exit" 0 "$?"
	u=$(jq -c --arg d "$dev" '[.unwatched_filesystems[] | select(.dev == $d and
		.kind == "ext4 data=journal")]' "$j")
	check "$n.inode.listed" true \
		"$(jq --argjson w "$(jq .folios "$work/g.exp")" '.[0].folios_dirtied >= $w' <<<"$u")"
	check "$n.inode.journalled_file_not_counted" 0 "$(jq --argjson i "$(stat -c %i "$d/mnt/g")" \
		'[.files[] | select(.ino == $i)] | length' "$j")"
	for f in app_bytes write_calls dirty_blocks submitted_blocks folios violation_blocks; do
		check "$n.inode.other_file_$f" "$(jq ".$f // 0" "$work/h.exp")" \
			"$(jq --arg d "$dev" ".filesystems[] | select(.dev == \$d) | .stats.$f" "$j")"
	done
	umount "$d/mnt"
}
ext4_journal_case

# hist and top (since attach, all filesystems) while the 1 KiB ext4 is written
dev=$(mountpoint -d "$e1024")
start_tool "$work/hist.json" "$work/hist.err" hist --json --mode "$UMODE" -i 60 &&
	hist_pid=$TOOL_PID
start_tool "$work/top.json" "$work/top.err" top -b --json --shared --mode "$UMODE" -i 60 &&
	top_pid=$TOOL_PID
"$WORKLOAD" scatter "$e1024/h" --count 9 --len 300 --stride 15000 >"$work/h.exp"
for t in hist top; do
	eval "TOOL_PID=\${${t}_pid:-}"
	if [[ -z $TOOL_PID ]]; then
		fail "unwatched.$t.ready" "$(tail -2 "$work/$t.err")"
		continue
	fi
	stop_tool INT
	check "unwatched.$t.exit" 0 "$TOOL_RC"
	check "unwatched.$t.folios" "$(jq .folios "$work/h.exp")" \
		"$(tail -n 1 "$work/$t.json" | jq --arg d "$dev" \
			'[.unwatched_filesystems[] | select(.dev == $d and .kind == "ext4")][0] |
			.folios_dirtied')"
done
check unwatched.links 0 "$(cli_links)"
cli_finish
