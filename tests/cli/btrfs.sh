#!/usr/bin/env bash
# The btrfs backend (issue 26): btrfs with 4 KiB blocks on 4 KiB pages,
# counted like XFS. Each scenario of the e2e table that has a 4 KiB
# meaning (scattered writes aligned and crossing, mmap, a write at EOF, a
# copy that faults half way, two files) runs on a fresh loop btrfs under
# `iomapdirty run --json`, with block_rq_issue traced on the loop device.
# Ground truth: the workload's own figures (what it wrote, where; the
# folios from kpageflags) for every count and per-folio histogram, and the
# block layer's bytes inside the btrfs's data chunks (its chunk tree) for
# the bytes submitted. Nothing may be counted as a violation,
# lost or left dirty. Then: the write syscalls the workload does not make
# (pwritev, O_APPEND, write at the file position); two subvolumes whose
# files have the same inode number; data mirrored on one device (DUP:
# counted once, the copy seen by the block layer); an XFS and a btrfs in
# one hist; verify and --mode raw_tp refused with why (exit 5).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../e2e/e2e_lib.sh
source "$here/../e2e/e2e_lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
# shellcheck source=../lib/blocktrace.sh
source "$here/../lib/blocktrace.sh"
# in tmpfs: CMD's writes of its own (the workload's figures on stdout)
work=$(mktemp -d /dev/shm/cli_btrfs.XXXXXX)
mnt="" loop=""
cleanup() {
	blocktrace_off
	[[ -n $mnt ]] && mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT

if ! command -v mkfs.btrfs >/dev/null; then
	fail btrfs.fixture "mkfs.btrfs not found (btrfs-progs)"
	cli_finish
fi

# btrfs_fresh IMAGE [MKFS_OPTION...]: a new 256 MiB loop btrfs on $mnt ($loop),
# its image IMAGE ($img; "": in $work), its loop device made with $loop_opts
img="" loop_opts=()
btrfs_fresh() {
	[[ -n $mnt ]] && mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loop ]] && losetup -d "$loop"
	mnt=$work/mnt loop=""
	[[ -n $img ]] && rm -f "$img"
	img=${1:-$work/img}
	shift
	mkdir -p "$mnt" && truncate -s 256M "$img" &&
		mkfs.btrfs -q -f "$@" "$img" >/dev/null 2>&1 &&
		loop=$(losetup "${loop_opts[@]}" --find --show "$img") &&
		mount -t btrfs "$loop" "$mnt"
}

# data_chunks: the device sectors of the btrfs's data chunks, "first
# last" per stripe (DUP: two), from its chunk tree. btrfs writes a block
# anew elsewhere at each writeback (copy on write), so the file's extents
# after the run do not hold its earlier writes: on a btrfs the workload
# alone writes, its files' data is what the data chunks receive.
data_chunks() {
	btrfs inspect-internal dump-tree -t chunk "$loop" 2>/dev/null |
		awk '/CHUNK_ITEM/ { for (i = 1; i < NF; i++) if ($i == "CHUNK_ITEM") l = $(i + 1)
			sub(/\)/, "", l) }
		/length .* type DATA/ { len = $2; data = 1; next }
		/length .* type / { data = 0 }
		data && /stripe [0-9]+ devid/ { print $NF / 512, ($NF + len) / 512 - 1 }'
}

# data_bytes TRACE: bytes of write requests inside the data chunks
data_bytes() {
	data_chunks | bytes_inside "$1"
}

# file_stats RUN_JSON PATH: the run file's stats of PATH's file (dev, ino)
file_stats() {
	jq -c --arg d "$(stat -c '%Hd:%Ld' "$2")" --argjson i "$(stat -c %i "$2")" \
		'[.files[] | select(.dev == $d and .ino == $i) | .stats] | .[0] // {}' "$1"
}

# clean N RUN_JSON DEV: nothing lost, left dirty, unwatched or violated
clean() {
	check "$1.losses" '{}' "$(jq -c '[.losses | to_entries[] | select(.value != 0)] |
		from_entries' "$2")"
	check "$1.not_unwatched" 0 "$(jq '[.unwatched_filesystems[]? |
		select(.kind | startswith("btrfs"))] | length' "$2")"
	check "$1.nothing_left_dirty" 0 "$(jq --arg d "$3" '[.writeback.unwritten[]? |
		select(.dev == $d) | .pages] | add // 0' "$2")"
}

STATS=(app_bytes write_calls app_dirty_blocks other_dirty_blocks dirty_blocks
	folios folio_bytes max_folio_bytes submitted_blocks submitted_bytes)
# run_scenario NAME: the e2e scenario on a fresh btrfs, each file exact
run_scenario() {
	local name=$1 n=btrfs.$1 dev j=$work/run.json want got f p ino
	btrfs_fresh "" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	dev=$(stat -c '%Hd:%Ld' "$mnt")
	scenario_prep "$name" "$mnt" >/dev/null || { fail "$n.prep" "workload prep failed"; return; }
	sync
	scenario_argv "$name" "$mnt"
	trace_start
	timeout -k 5 120 "$IOMAPDIRTY" run --json "$j" -- \
		"${SCENARIO_ARGV[@]}" >"$work/exp.json" 2>"$work/err"
	check "$n.exit" 0 "$?"
	trace_stop "$work/trace"
	[[ -n ${BTRFS_DEBUG:-} ]] && cp "$work/trace" "$work/exp.json" "$j" /tmp/
	[[ -s $j ]] || { fail "$n.run_file" "none: $(tail -n 3 "$work/err")"; return; }
	check "$n.layout_probe" '"kpageflags"' "$(jq -c '.layout.probe //
		([.files[].layout.probe] | unique | .[0])' "$work/exp.json")"
	for ino in $(jq -r "$E2E_EXPECT_JQ | .files | keys[]" "$work/exp.json"); do
		p=$(find "$mnt" -maxdepth 1 -inum "$ino" | head -n 1)
		want=$(jq -c --arg i "$ino" "$E2E_EXPECT_JQ | .files[\$i]" "$work/exp.json")
		got=$(file_stats "$j" "$p")
		for f in "${STATS[@]}"; do
			check "$n.${p##*/}.$f" "$(jq -c --arg f "$f" '.[$f]' <<<"$want")" \
				"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
		done
		for f in unexplained_blocks violation_blocks unchecked_blocks folios_no_dirty_seen; do
			check "$n.${p##*/}.$f" 0 "$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
		done
	done
	want=$(jq -c "$E2E_EXPECT_JQ | .totals" "$work/exp.json")
	clean "$n" "$j" "$dev"
	# the filesystem's figures are its files': btrfs's metadata (its
	# btree, not a regular file) is never counted as data
	check "$n.filesystem_is_the_files" "$(jq -c '[.submitted_bytes, .app_bytes]' <<<"$want")" \
		"$(jq -c --arg d "$dev" '[.filesystems[] | select(.dev == $d) | .stats |
			.submitted_bytes, .app_bytes]' "$j")"
	check "$n.files" "[\"$dev\"]" "$(jq -c '[.files[].dev] | unique' "$j")"
	check "$n.block_layer_data_bytes" "$(data_bytes "$work/trace")" \
		"$(jq -c .submitted_bytes <<<"$want")"
	check_match "$n.fs_named" "filesystem $dev btrfs $mnt" "$(cat "$work/err")"
	per_folio_hist "$n.hist.dirty_blocks" "$j" dirty_blocks_per_folio \
		"$(jq -c '.per_folio.dirty_blocks' <<<"$want")"
	per_folio_hist "$n.hist.submitted_blocks" "$j" submitted_blocks_per_folio \
		"$(jq -c '.per_folio.submitted_blocks' <<<"$want")"
}

# no btrfs mounted as a session starts: the backend's hooks (every
# syscall's entry and exit) are not attached, and the plan says why
no_btrfs_mounted() {
	local n=btrfs.none_mounted j=$work/none.json
	if [[ -n $(findmnt -n -t btrfs 2>/dev/null) ]]; then
		echo "SKIP $n: a btrfs is mounted on this host"
		return
	fi
	timeout -k 5 60 "$IOMAPDIRTY" run -q --json "$j" -- true 2>"$work/none.err"
	check "$n.exit" 0 "$?"
	check "$n.not_attached" false "$(jq '[.plan.hooks[] | select(.hook | startswith("btrfs_")) |
		.chosen] | any' "$j")"
	check_match "$n.why" "no btrfs is mounted" "$(jq -r '.plan.hooks[] |
		select(.hook == "btrfs_write") | .note' "$j")"
}
no_btrfs_mounted

for s in ${BTRFS_SCENARIOS:-scatter51_4k span_4k dense_4k mmap_4k eof_4k eof_setup_4k \
	shortcopy_4k twofiles_4k}; do
	run_scenario "$s"
done

# syscalls: the write syscalls the workload does not make, each placed by
# its own rule: pwritev (4 vectors of 2500 B at 8192: pages 2-4), an
# O_APPEND write (at EOF, whatever offset it names: page 256), write(2)
# at the file's position after a seek (page 122)
syscalls_case() {
	local n=btrfs.syscalls j=$work/sys.json got
	btrfs_fresh "" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	"$WORKLOAD" prep "$mnt/f" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	trace_start
	timeout -k 5 120 "$IOMAPDIRTY" run -q --json "$j" -- bash -c '
		xfs_io -c "pwrite -q -V 4 -b 2500 8192 10000" -c fsync "$1" &&
		xfs_io -a -c "pwrite -q 0 300" -c fsync "$1" &&
		dd if=/dev/zero of="$1" bs=100 count=1 seek=5000 conv=notrunc,fsync status=none' \
		_ "$mnt/f" 2>"$work/sys.err"
	check "$n.exit" 0 "$?"
	trace_stop "$work/trace"
	got=$(file_stats "$j" "$mnt/f")
	check "$n.app_bytes" 10400 "$(jq .app_bytes <<<"$got")"
	# a call per folio each write reaches, as iomap_write_end counts
	check "$n.write_calls" 5 "$(jq .write_calls <<<"$got")"
	check "$n.dirty_blocks" 5 "$(jq .dirty_blocks <<<"$got")"
	check "$n.submitted_blocks" 5 "$(jq .submitted_blocks <<<"$got")"
	# each folio dirtied was dirtied by one of the writes
	check "$n.app_dirty_blocks" 5 "$(jq .app_dirty_blocks <<<"$got")"
	check "$n.other_dirty_blocks" 0 "$(jq .other_dirty_blocks <<<"$got")"
	check "$n.block_layer_data_bytes" "$(data_bytes "$work/trace")" \
		"$(jq .submitted_bytes <<<"$got")"
	clean "$n" "$j" "$(stat -c '%Hd:%Ld' "$mnt")"
}
syscalls_case

# subvolumes: a file in a new subvolume has the inode number of one in
# the top subvolume (each subvolume numbers its own from 257): told apart
# by the subvolume's device, as stat() gives it, each exact
subvolume_case() {
	local n=btrfs.subvolume j=$work/sv.json f w s got
	btrfs_fresh "" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	"$WORKLOAD" prep "$mnt/f" 1M >/dev/null &&
		btrfs -q subvolume create "$mnt/sv" >/dev/null &&
		"$WORKLOAD" prep "$mnt/sv/f" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	check "$n.same_inode_number" "$(stat -c %i "$mnt/f")" "$(stat -c %i "$mnt/sv/f")"
	timeout -k 5 120 "$IOMAPDIRTY" run -q --json "$j" -- bash -c '
		"$1" scatter "$2" --count 9 --len 100 --stride 20000 >"$4" &&
		"$1" scatter "$3" --count 5 --len 300 --stride 30000 >"$5"' \
		_ "$WORKLOAD" "$mnt/f" "$mnt/sv/f" "$work/a.exp" "$work/b.exp" 2>"$work/sv.err"
	check "$n.exit" 0 "$?"
	for w in a b; do
		[[ $w == a ]] && f=$mnt/f || f=$mnt/sv/f
		got=$(file_stats "$j" "$f")
		for s in app_bytes write_calls dirty_blocks folios submitted_blocks; do
			check "$n.$w.$s" "$(jq -c "$E2E_EXPECT_JQ | .totals.$s" "$work/$w.exp")" \
				"$(jq -c ".$s" <<<"$got")"
		done
	done
	check "$n.two_devices" 2 "$(jq '[.files[].dev] | unique | length' "$j")"
}
subvolume_case

# dup: data mirrored on one device (mkfs -d dup): btrfs sends each block
# as a bio and its clone; the blocks written back are counted once, the
# clones' segments apart, and the block layer sees both copies
dup_case() {
	local n=btrfs.dup j=$work/dup.json exp got
	btrfs_fresh "" -d dup || { fail "$n.fixture" "mkfs.btrfs -d dup or mount failed"; return; }
	"$WORKLOAD" prep "$mnt/f" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	trace_start
	timeout -k 5 120 "$IOMAPDIRTY" run -q --json "$j" -- \
		"$WORKLOAD" scatter "$mnt/f" --count 20 --len 100 --stride 20000 \
		>"$work/dup.exp" 2>"$work/dup.err"
	check "$n.exit" 0 "$?"
	trace_stop "$work/trace"
	exp=$(jq -c "$E2E_EXPECT_JQ | .totals" "$work/dup.exp")
	got=$(file_stats "$j" "$mnt/f")
	for s in app_bytes dirty_blocks folios submitted_blocks submitted_bytes; do
		check "$n.$s" "$(jq ".$s" <<<"$exp")" "$(jq ".$s" <<<"$got")"
	done
	check "$n.block_layer_two_copies" "$(data_bytes "$work/trace")" \
		"$((2 * $(jq .submitted_bytes <<<"$got")))"
	check_match "$n.clones_counted" '^[1-9][0-9]*$' "$(jq .events.cloned_write_bios "$j")"
}
dup_case

# both_in_one_hist: an XFS and a btrfs watched by one hist (no filter):
# the same scattered overwrites into a file on each, each exact
# loop_dio: the btrfs on a loop device with direct I/O on a file of an
# XFS: the loop device's writes reach the block layer again, on the XFS's
# device, with the btrfs's own pages (in bios that share the loop
# request's bio_vecs). Counted once: such a bio is a clone, on a device
# the btrfs did not open, and the folio's records were taken already
loop_dio_case() {
	local n=btrfs.loop_dio j=$work/dio.json x exp got
	x=$(xfsloop_make 4096 512) || { fail "$n.fixture" "xfsloop_make failed"; return; }
	loop_opts=(--direct-io=on)
	btrfs_fresh "$x/btrfs.img" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	loop_opts=()
	check "$n.direct_io" 1 "$(cat "/sys/block/${loop#/dev/}/loop/dio")"
	"$WORKLOAD" prep "$mnt/f" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	# hist, every writer's: the loop worker's second sight of a folio
	# would be counted too, as a writeback with no dirtying seen
	if ! start_tool "$j" "$work/dio.err" hist --json -i 60; then
		fail "$n.ready" "$(tail -n 3 "$work/dio.err")"
		return
	fi
	"$WORKLOAD" scatter "$mnt/f" --count 20 --len 100 --stride 20000 >"$work/dio.exp"
	sleep 1
	stop_tool INT
	check "$n.exit" 0 "$TOOL_RC"
	exp=$(jq -c "$E2E_EXPECT_JQ | .totals" "$work/dio.exp")
	got=$(tail -n 1 "$j" | jq -c --arg d "$(stat -c '%Hd:%Ld' "$mnt/f")" \
		--argjson i "$(stat -c %i "$mnt/f")" \
		'[.files[]? | select(.dev == $d and .ino == $i) | .stats] | .[0] // {}')
	for s in app_bytes dirty_blocks folios submitted_blocks submitted_bytes folios_no_dirty_seen; do
		check "$n.$s" "$(jq ".$s // 0" <<<"$exp")" "$(jq ".$s" <<<"$got")"
	done
	check "$n.losses" '{}' "$(tail -n 1 "$j" | jq -c '[.losses | to_entries[] |
		select(.value != 0)] | from_entries')"
	umount "$mnt" && losetup -d "$loop" && loop="" && rm -f "$img" && img=""
}
loop_dio_case

both_in_one_hist() {
	local n=btrfs.both_in_one_hist x f
	x=$(xfsloop_make 4096 512) || { fail "$n.fixture" "xfsloop_make failed"; return; }
	btrfs_fresh "" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	for f in "$x/f" "$mnt/f"; do
		"$WORKLOAD" prep "$f" 1M >/dev/null || { fail "$n.prep" "$f"; return; }
	done
	sync
	files_in_one_hist "$n" "$x/f" "$mnt/f" b
}
both_in_one_hist

# refused, with why: verify of a btrfs (its blocks are not matched to the
# block layer's: verify's error, 2), and --mount of one where the plan has
# no btrfs backend (raw_tp mode: the backend is tp_btf programs)
refusals() {
	local n=btrfs.refused
	btrfs_fresh "" || { fail "$n.fixture" "mkfs.btrfs or mount failed"; return; }
	timeout -k 5 60 "$IOMAPDIRTY" verify --mount "$mnt" --json -D 1 >/dev/null 2>"$work/r.err"
	check "$n.verify_exit(error)" 2 "$?"
	check_match "$n.verify_why" "btrfs is counted by the btrfs backend, which this verify" \
		"$(cat "$work/r.err")"
	timeout -k 5 60 "$IOMAPDIRTY" run --mode raw_tp --mount "$mnt" -q -- true 2>"$work/r.err"
	check "$n.raw_tp_exit" 5 "$?"
	check_match "$n.raw_tp_why" "btrfs is counted by the btrfs backend, which this plan" \
		"$(cat "$work/r.err")"
	timeout -k 5 60 "$IOMAPDIRTY" probes --mode raw_tp >"$work/p.out" 2>&1
	check_match "$n.probes_says" "btrfs_write .*no tp_btf program" "$(cat "$work/p.out")"
}
refusals
cli_finish
