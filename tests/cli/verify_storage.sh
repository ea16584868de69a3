#!/usr/bin/env bash
# `iomapdirty verify` and `run` on the layouts of production hosts (issue
# 10): XFS on a partition, XFS with blocks larger than a page (16 KiB,
# 64 KiB), no pass without evidence, and `run` around a command that does
# not fsync. Every expected figure comes from the workload's own offsets
# (tests/e2e/workload), never from the tool.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_vs.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

# The workload's figure F, from the folios it measured where it could;
# never empty (a workload that did not run must not match a missing value).
want() {
	jq -e "(if .layout.probe? == \"kpageflags\" then .layout.expect else . end).$1" \
		<<<"$EXP" 2>/dev/null || echo "no-workload-figure-$1"
}

# verify_around NAME MNT FILE [VERIFY ARGS...]: verify --json around 300
# scattered 100-byte writes (and their fsync) to FILE; sets EXP, TOOL_RC.
verify_around() {
	local name=$1 mnt=$2 f=$3
	shift 3
	"$WORKLOAD" prep "$f" 4M >/dev/null && sync
	if ! start_tool "$work/$name.json" "$work/$name.err" verify --mount "$mnt" --json "$@"; then
		fail "$name.ready" "$(tail -2 "$work/$name.err")"
		return 1
	fi
	EXP=$("$WORKLOAD" scatter "$f" --count 300 --len 100 --stride 13000)
	stop_tool INT
}

# verify_passes NAME: PASS, and the data bytes seen at the block layer are
# the tool's submitted bytes and the workload's.
verify_passes() {
	local j=$work/$1.json
	check "$1.exit" 0 "$TOOL_RC"
	check "$1.verdict" '"pass"' "$(jq .verdict "$j")"
	check "$1.submitted_bytes" "$(want submitted_bytes)" \
		"$(jq '[.filesystems[].stats.submitted_bytes] | add' "$j")"
	check "$1.block_layer_data_bytes" "$(want submitted_bytes)" \
		"$(jq '[.block_devices[].data_bytes] | add' "$j")"
	check "$1.unseen_blocks" 0 "$(jq .pending_blocks "$j")"
	check "$1.losses" 0 "$(jq '[.losses[]] | add' "$j")"
}

# --- a partition: bios are queued in whole-disk sectors ------------------
if ! command -v sfdisk >/dev/null; then
	fail partition.sfdisk "sfdisk missing (Debian's fdisk package: make deps)"
elif mnt=$(xfsloop_make_part 1024 512); then
	verify_around partition "$mnt" "$mnt/f" &&
		verify_passes partition
	# matched on the partition the filesystem submits to
	check partition.bio_device "\"$(xfsloop_dev "$mnt")\"" \
		"$(jq '.block_devices[0].dev' "$work/partition.json")"
	xfsloop_cleanup "$mnt"
else
	fail partition.setup "xfsloop_make_part 1024 512 failed"
fi

# --- blocks larger than a page (XFS since 6.12) --------------------------
for bs in 16384 65536; do
	n=bs$((bs / 1024))k
	if ! mnt=$(xfsloop_make "$bs" 512); then
		fail "$n.setup" "mkfs.xfs -b size=$bs failed (kernel without large blocks?)"
		continue
	fi
	"$WORKLOAD" prep "$mnt/r" 4M >/dev/null && sync
	"$IOMAPDIRTY" run --mount "$mnt" --json "$work/$n.run.json" -- \
		"$WORKLOAD" scatter "$mnt/r" --count 300 --len 100 --stride 13000 \
		>"$work/$n.exp" 2>"$work/$n.run.err"
	check "$n.run.exit" 0 "$?"
	EXP=$(cat "$work/$n.exp")
	for f in app_bytes dirty_blocks submitted_blocks submitted_bytes folios; do
		check "$n.run.$f" "$(want $f)" "$(jq ".totals.$f" "$work/$n.run.json")"
	done
	check "$n.run.block_bytes" "$bs" "$(jq .totals.block_bytes "$work/$n.run.json")"
	# a folio is at least one block: every dirty block is sent, no more
	check "$n.run.folio_amplification" 1 "$(jq .totals.folio_amplification "$work/$n.run.json")"
	check "$n.run.losses" 0 "$(jq '[.losses[]] | add' "$work/$n.run.json")"
	verify_around "$n.verify" "$mnt" "$mnt/v" &&
		verify_passes "$n.verify"
	xfsloop_cleanup "$mnt"
done

# --- no pass without evidence -------------------------------------------
mnt=$(xfsloop_make 4096 512)
start_tool "$work/none.json" "$work/none.err" verify --mount "$mnt" --json ||
	fail none.ready "$(tail -2 "$work/none.err")"
sleep 0.5
stop_tool INT
check none.exit_incomplete 8 "$TOOL_RC"
check none.verdict '"no_evidence"' "$(jq .verdict "$work/none.json")"
check_match none.reason "nothing was checked" "$(jq -r .reason "$work/none.json")"

# submitted blocks never seen at the block layer (its program told to
# ignore every bio): not a pass, and every block is named as unseen
verify_around unseen "$mnt" "$mnt/u" --simulate-unseen-bios
check unseen.exit_incomplete 8 "$TOOL_RC"
check unseen.verdict '"incomplete"' "$(jq .verdict "$work/unseen.json")"
check unseen.unseen_blocks "$(want dirty_blocks)" "$(jq .pending_blocks "$work/unseen.json")"
check unseen.labelled true "$(jq .simulated_unseen_bios "$work/unseen.json")"
check_match unseen.reason "not seen in a write bio" "$(jq -r .reason "$work/unseen.json")"

# --- run around a command that does not fsync ----------------------------
"$WORKLOAD" prep "$mnt/w" 1M >/dev/null && sync
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/nofsync.json" -- \
	"$WORKLOAD" scatter "$mnt/w" --count 51 --len 100 --stride 20000 --no-fsync \
	>"$work/nofsync.out" 2>"$work/nofsync.err"
check nofsync.exit 0 "$?"
EXP=$(cat "$work/nofsync.out")
# written back by run's wait, and counted
for f in app_bytes dirty_blocks submitted_bytes folios; do
	check "nofsync.$f" "$(want $f)" "$(jq ".totals.$f" "$work/nofsync.json")"
done
check nofsync.synced true "$(jq .writeback.synced "$work/nofsync.json")"
check nofsync.still_dirty 0 "$(jq .writeback.unwritten_pages "$work/nofsync.json")"
check_match nofsync.text "still dirty, not written back: 0 pages" "$(cat "$work/nofsync.err")"

# --no-sync: nothing written back yet, all of it shown as still dirty
"$WORKLOAD" prep "$mnt/x" 1M >/dev/null && sync
"$IOMAPDIRTY" run --no-sync --mount "$mnt" --json "$work/nosync.json" -- \
	"$WORKLOAD" scatter "$mnt/x" --count 51 --len 100 --stride 20000 --no-fsync \
	>"$work/nosync.out" 2>"$work/nosync.err"
check nosync.exit 0 "$?"
EXP=$(cat "$work/nosync.out")
check nosync.synced false "$(jq .writeback.synced "$work/nosync.json")"
check nosync.written_back 0 "$(jq .totals.app_bytes "$work/nosync.json")"
check nosync.still_dirty_pages "$(want folios)" "$(jq .writeback.unwritten_pages "$work/nosync.json")"
check nosync.still_dirty_app_bytes "$(want app_bytes)" \
	"$(jq .writeback.unwritten_app_bytes "$work/nosync.json")"
check_match nosync.text "still dirty, not written back: $(want folios) pages" \
	"$(cat "$work/nosync.err")"
sync
cli_finish
