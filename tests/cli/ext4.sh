#!/usr/bin/env bash
# The buffer-head backend (issue 26): ext4 with 1 KiB and 4 KiB blocks,
# counted like XFS. Each scenario of the e2e table that has an ext4 meaning
# (scattered writes aligned and crossing blocks, mmap, a write at EOF,
# truncate, fsync) runs on a fresh loop ext4 under `iomapdirty run --json`,
# with block_rq_issue traced on the loop device. Ground truth: the
# workload's own figures (what it wrote, where; the folios from
# kpageflags) for every count and per-folio histogram, and the block
# layer's data bytes inside the file's extents (FIEMAP) for the bytes
# submitted. Nothing may be counted as a violation, lost or left dirty.
# Then an XFS and an ext4 watched by one hist, each file exact;
# `verify --mount` of an ext4 with 1 KiB and 4 KiB blocks (verify_ext4);
# the cases again at the always-on level, where which blocks were dirty
# is read from the folios' buffer heads; and the exporter (always-on) on
# an ext4 (exporter_ext4).
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
# must not land on an ext4, which this host's root may be
work=$(mktemp -d /dev/shm/cli_ext4.XXXXXX)
mnt="" loop=""
cleanup() {
	blocktrace_off
	[[ -n $mnt ]] && mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loop ]] && losetup -d "$loop" 2>/dev/null
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT

# ext4_fresh BLOCKSIZE [MKFS_OPTION...]: a new 64 MiB loop ext4 on $mnt
# ($loop), default options unless given
ext4_fresh() {
	local bs=$1
	shift
	[[ -n $mnt ]] && mountpoint -q "$mnt" && umount "$mnt"
	[[ -n $loop ]] && losetup -d "$loop"
	mnt=$work/mnt loop=""
	rm -f "$work/img"
	mkdir -p "$mnt" && truncate -s 64M "$work/img" &&
		mkfs.ext4 -q -F -b "$bs" "$@" "$work/img" >/dev/null 2>&1 &&
		loop=$(losetup --find --show "$work/img") && mount -t ext4 "$loop" "$mnt"
}

# data_bytes TRACE FILE: bytes of write requests inside FILE's extents
data_bytes() {
	xfs_io -r -c fiemap "$2" | sed -n 's/.*\]: *\([0-9]*\)\.\.\([0-9]*\).*/\1 \2/p' |
		bytes_inside "$1"
}

STATS=(app_bytes write_calls app_dirty_blocks other_dirty_blocks dirty_blocks
	folios folio_bytes max_folio_bytes submitted_blocks submitted_bytes)
# The always-on level (no page records): what it does not measure is
# null; application bytes are counted as written, and write calls as
# ext4's tracepoint fires, once per folio of a write(2) (the workload's
# write_calls where nothing is thrown away before writeback: no truncate
# case here); which blocks were dirty comes from the folios' buffer heads.
AON_NULL=(app_dirty_blocks other_dirty_blocks unexplained_blocks)
AON_STATS=(write_calls dirty_blocks folios folio_bytes max_folio_bytes submitted_blocks
	submitted_bytes)
# scenario: the e2e name (its block size, preparation and workload call);
# ACC: full (default) or always-on
run_scenario() {
	local name=$1 acc=${2:-full} n=ext4.$1 bs dev j=$work/run.json want got f ino
	local level=(--mode tracepoint) stats=("${STATS[@]}")
	if [[ $acc == always-on ]]; then
		n=ext4.always_on.$name level=(--all --accounting always-on) stats=("${AON_STATS[@]}")
	fi
	bs=$(scenario_bs "$name")
	ext4_fresh "$bs" || { fail "$n.fixture" "mkfs.ext4 -b $bs or mount failed"; return; }
	# every process's writes at this level: only this ext4's
	[[ $acc == always-on ]] && level+=(--mount "$mnt")
	dev=$(mountpoint -d "$mnt")
	scenario_prep "$name" "$mnt" >/dev/null || { fail "$n.prep" "workload prep failed"; return; }
	sync
	scenario_argv "$name" "$mnt"
	trace_start
	timeout -k 5 120 "$IOMAPDIRTY" run -q "${level[@]}" --json "$j" -- \
		"${SCENARIO_ARGV[@]}" >"$work/exp.json" 2>"$work/err"
	check "$n.exit" 0 "$?"
	trace_stop "$work/trace"
	[[ -n ${EXT4_DEBUG:-} ]] && cp "$work/trace" "$work/exp.json" "$j" /tmp/
	[[ -s $j ]] || { fail "$n.run_file" "none: $(tail -n 3 "$work/err")"; return; }
	want=$(jq -c "$E2E_EXPECT_JQ | .totals" "$work/exp.json")
	if [[ $name == mmap_eof_* ]]; then
		# The workload's figures are iomap's: iomap_dirty_folio marks
		# the whole folio dirty, past EOF too. ext4's page_mkwrite
		# dirties the buffers up to EOF (block_page_mkwrite, seen), then
		# block_dirty_folio sets the rest with no tracepoint, and writeback
		# clears those unwritten: ext4's dirty blocks are the ones below
		# EOF, which the workload's submitted figures are.
		want=$(jq -c '.other_dirty_blocks = .submitted_blocks |
			.dirty_blocks = .submitted_blocks |
			.per_folio.dirty_blocks = .per_folio.submitted_blocks' <<<"$want")
	fi
	check "$n.layout_probe" '"kpageflags"' "$(jq -c '.layout.probe // ([.files[].layout.probe] | unique | .[0])' "$work/exp.json")"
	ino=$(stat -c %i "$mnt/f")
	got=$(jq -c --arg d "$dev" --argjson i "$ino" \
		'[.files[] | select(.dev == $d and .ino == $i) | .stats] | .[0] // {}' "$j")
	for f in "${stats[@]}"; do
		check "$n.$f" "$(jq -c --arg f "$f" '.[$f]' <<<"$want")" \
			"$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
	if [[ $acc == always-on ]]; then
		for f in "${AON_NULL[@]}"; do
			check "$n.$f(not measured)" null "$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
		done
		check "$n.app_bytes(written)" "$(jq -c .syscall_bytes <<<"$want")" \
			"$(jq -c .app_bytes <<<"$got")"
		# the buffer heads' view, read once per folio written back
		check "$n.buffer_heads_read" "$(jq -c '[.folios, .dirty_blocks]' <<<"$want")" \
			"$(jq -c '[.bitmap_folios, .kernel_dirty_blocks]' <<<"$got")"
	else
		check "$n.unexplained_blocks" 0 "$(jq -c .unexplained_blocks <<<"$got")"
	fi
	for f in violation_blocks unchecked_blocks folios_no_dirty_seen; do
		check "$n.$f" 0 "$(jq -c --arg f "$f" '.[$f]' <<<"$got")"
	done
	check "$n.losses" '{}' "$(jq -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' "$j")"
	check "$n.not_unwatched" 0 "$(jq --arg d "$dev" '[.unwatched_filesystems[]? |
		select(.dev == $d)] | length' "$j")"
	check "$n.nothing_left_dirty" 0 "$(jq --arg d "$dev" '[.writeback.unwritten[]? |
		select(.dev == $d) | .pages] | add // 0' "$j")"
	check "$n.block_layer_bytes" "$(data_bytes "$work/trace" "$mnt/f")" \
		"$(jq -c .submitted_bytes <<<"$got")"
	# the filesystem's figures are the file's: journal and metadata
	# writes (the device's own page cache) are never counted as data
	check "$n.filesystem_is_the_file" "$(jq -c '[.submitted_bytes, .app_bytes]' <<<"$got")" \
		"$(jq -c --arg d "$dev" '[.filesystems[] | select(.dev == $d) | .stats |
			.submitted_bytes, .app_bytes]' "$j")"
	check "$n.files" "[\"$dev\"]" "$(jq -c '[.files[].dev] | unique' "$j")"
	per_folio_hist "$n.hist.dirty_blocks" "$j" dirty_blocks_per_folio \
		"$(jq -c '.per_folio.dirty_blocks' <<<"$want")"
	per_folio_hist "$n.hist.submitted_blocks" "$j" submitted_blocks_per_folio \
		"$(jq -c '.per_folio.submitted_blocks' <<<"$want")"
}

# both_in_one_hist: an XFS and an ext4, both with 1 KiB blocks, watched by
# one hist (no filter: every filesystem); the same scattered overwrites
# into a file on each. Each file exact against its own workload figures.
both_in_one_hist() {
	local n=ext4.both_in_one_hist x f
	x=$(xfsloop_make 1024 512) || { fail "$n.fixture" "xfsloop_make failed"; return; }
	ext4_fresh 1024 || { fail "$n.fixture" "mkfs.ext4 or mount failed"; return; }
	for f in "$x/f" "$mnt/f"; do
		"$WORKLOAD" prep "$f" 1M >/dev/null || { fail "$n.prep" "$f"; return; }
	done
	sync
	files_in_one_hist "$n" "$x/f" "$mnt/f" e --mode tracepoint
}
both_in_one_hist

# verify_ext4 BLOCKSIZE: `verify --mount` of an ext4 while scattered
# overwrites and new files (journal and metadata writes) are written back.
# Ground truth: the workload's figures and the block layer's write
# requests (block_rq_issue), the file's data inside its FIEMAP extents,
# the rest journal and metadata. Then --simulate-clean (a dirty block
# hidden from the check: FAIL, with the folios the workload predicts)
# and --simulate-unseen-bios (no bio seen: never a PASS).
verify_ext4() {
	local bs=$1 n=ext4.verify_$1 v=$work/v.json exp ino want got
	# no lazy init: its zeroing would be writes of its own in the window
	ext4_fresh "$bs" -E lazy_itable_init=0,lazy_journal_init=0 ||
		{ fail "$n.fixture" "mkfs.ext4 or mount failed"; return; }
	"$WORKLOAD" prep "$mnt/g" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	if ! start_tool "$v" "$work/v.err" verify --mount "$mnt" --json; then
		fail "$n.ready" "$(tail -n 3 "$work/v.err")"
		return
	fi
	trace_start
	exp=$("$WORKLOAD" scatter "$mnt/g" --count 51 --len 100 --stride 20000)
	touch "$mnt"/new{1..30}
	sync
	sleep 1
	trace_stop "$work/vtrace"
	stop_tool INT
	check "$n.exit_pass" 0 "$TOOL_RC"
	check "$n.verdict" '"pass"' "$(jq .verdict "$v")"
	check "$n.checked_blocks" "$(jq .submitted_blocks <<<"$exp")" "$(jq .checked_blocks "$v")"
	check_match "$n.reason" "$(jq .submitted_blocks <<<"$exp") blocks of ext4 files checked in the write bios" \
		"$(jq -r .reason "$v")"
	check "$n.violations" 0 "$(jq '.filesystems[0].stats.violation_blocks' "$v")"
	check "$n.buffer_head_blocks" "$(jq .submitted_blocks <<<"$exp")" \
		"$(jq '.block_devices[0].buffer_head_blocks' "$v")"
	check "$n.data_bytes" "$(jq .submitted_bytes <<<"$exp")" \
		"$(jq '.block_devices[0].data_bytes' "$v")"
	check "$n.data_bytes_in_extents" "$(data_bytes "$work/vtrace" "$mnt/g")" \
		"$(jq '.block_devices[0].data_bytes' "$v")"
	# journal and metadata: seen, never data, all of the device's writes
	check "$n.journal_apart" "$(($(write_bytes "$work/vtrace") - \
		$(data_bytes "$work/vtrace" "$mnt/g")))" "$(jq '.block_devices[0].unmatched_bytes' "$v")"
	check_match "$n.journal_seen" '^[1-9][0-9]*$' "$(jq '.block_devices[0].unmatched_bios' "$v")"

	"$WORKLOAD" prep "$mnt/h" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	ino=$(stat -c %i "$mnt/h")
	sync
	if ! start_tool "$v" "$work/v.err" verify --mount "$mnt" --json \
			--simulate-clean 5 --list 100; then
		fail "$n.simulate.ready" "$(tail -n 3 "$work/v.err")"
		return
	fi
	"$WORKLOAD" scatter "$mnt/h" --count 51 --len 100 --stride 20000 >/dev/null
	sync
	sleep 1
	stop_tool INT
	check "$n.simulate.exit_fail" 1 "$TOOL_RC"
	# folios (4 KiB) at indexes divisible by 5 the writes touch: the
	# first block each write dirties there is the one hidden, and sent
	want=$(for i in $(seq 0 50); do
		o=$((i * 20000)) p=$((i * 20000 / 4096))
		((p % 5 == 0)) && echo "$((o / bs * bs))"
	done | sort -un | tr '\n' ' ')
	got=$(jq -r --argjson ino "$ino" '[.offenders[] | select(.ino == $ino) |
		.offset] | sort | map(tostring) | join(" ")' "$v")
	check "$n.simulate.offenders" "${want% }" "$got"

	if ! start_tool "$v" "$work/v.err" verify --mount "$mnt" --json \
			--simulate-unseen-bios; then
		fail "$n.unseen.ready" "$(tail -n 3 "$work/v.err")"
		return
	fi
	"$WORKLOAD" scatter "$mnt/h" --count 20 --len 100 --stride 20000 >/dev/null
	sync
	sleep 1
	stop_tool INT
	check "$n.unseen.exit_incomplete" 8 "$TOOL_RC"
	check "$n.unseen.no_bio_checked" 0 "$(jq '.block_devices[0].bio_checked_blocks // 0' "$v")"
}
for b in ${EXT4_VERIFY:-1024 4096}; do
	verify_ext4 "$b"
done

# large_4k and mmap_large_1k: ext4 has large folios (1 MiB here, 6.16+)
for s in ${EXT4_SCENARIOS:-scatter51_1k scatter51_4k span_1k mmap_1k mmap_4k eof_1k eof_4k \
	eof_setup_1k truncate_1k mmap_eof_1k large_4k mmap_large_1k}; do
	run_scenario "$s"
done
# the always-on level (the exporter's): every case but truncate, whose
# bytes thrown away are counted at the write there (as for XFS)
for s in ${EXT4_AON_SCENARIOS:-scatter51_1k scatter51_4k span_1k dense_1k mmap_1k eof_setup_1k \
	eof_setup_4k mmap_eof_1k large_4k mmap_large_1k}; do
	run_scenario "$s" always-on
done

# exporter_ext4: the exporter at its default level (always-on) on an ext4
# with 1 KiB blocks; scattered overwrites, then one scrape: the ext4's
# series against the workload's figures
exporter_ext4() {
	local n=ext4.exporter port exp m f want got i
	ext4_fresh 1024 || { fail "$n.fixture" "mkfs.ext4 or mount failed"; return; }
	"$WORKLOAD" prep "$mnt/f" 1M >/dev/null || { fail "$n.prep" "prep"; return; }
	sync
	port=$((20000 + RANDOM % 10000))
	if ! start_exporter "$work/x.out" "$work/x.err" --mount "$mnt" --listen "127.0.0.1:$port"; then
		fail "$n.ready" "$(tail -n 3 "$work/x.err")"
		stop_tool INT
		return
	fi
	check_match "$n.always_on" 'accounting level "always-on"' "$(cat "$work/x.err")"
	exp=$("$WORKLOAD" scatter "$mnt/f" --count 51 --len 100 --stride 20000)
	# a thread's last folio is finished once it has been idle a second:
	# scraped until the folios are all there, at most 10 s
	want=$(jq -c "$E2E_EXPECT_JQ | .totals.folios" <<<"$exp")
	for i in $(seq 20); do
		m=$(curl -sf "http://127.0.0.1:$port/metrics")
		got=$(awk 'index($0, "iomapdirty_folios_total{") == 1 &&
			/fstype="ext4"/ { print $2 }' <<<"$m")
		[[ $got == "$want" ]] && break
		sleep 0.5
	done
	stop_tool INT
	check "$n.exit" 0 "$TOOL_RC"
	for f in app_bytes write_calls dirty_blocks folios submitted_blocks submitted_bytes; do
		want=$(jq -c --arg f "$f" "$E2E_EXPECT_JQ | .totals | .[\$f]" <<<"$exp")
		[[ $f == app_bytes ]] && want=$(jq -c "$E2E_EXPECT_JQ | .totals.syscall_bytes" <<<"$exp")
		got=$(awk -v k="iomapdirty_${f}_total{" 'index($0, k) == 1 &&
			/fstype="ext4"/ { print $2 }' <<<"$m")
		check "$n.$f" "$want" "${got:-absent}"
	done
}
exporter_ext4
cli_finish
