#!/usr/bin/env bash
# `iomapdirty verify` places every data block it sees at the block layer a
# second way, from the write bio's own pages (bio_vec -> folio -> file and
# offset; issue 22), and checks that placement against the submit hook's
# (this kernel's iomap_add_to_ioend tracepoint gives each range's offset).
# Each such block is also checked there against its folio's dirty blocks
# as writeback began (bpf/snapshot.bpf.h: the only check on 6.1-6.8, whose
# submit hook has no offsets; here a second one, which must agree): every
# block the workload wrote checked dirty, none clean; with
# --simulate-clean, the block hidden in each folio clean at the bio too.
# Scattered writes (one block each) and dense ones (ranges over several
# pages and folios, so bios of many bio_vecs), in blocks smaller than a
# page (bv_offset matters), of a page, and larger than a page (one block
# over several pages). The expected count is the workload's own figure
# (its submitted blocks, from its offsets), never the tool's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_vb.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

# The workload's figure F (see verify_storage.sh); never empty.
want() {
	jq -e "(if .layout.probe? == \"kpageflags\" then .layout.expect else . end).$1" \
		<<<"$EXP" 2>/dev/null || echo "no-workload-figure-$1"
}

# The workload's submitted bytes in blocks of $1; never empty, never a number
# when the workload gave none.
want_blocks() {
	local b
	b=$(want submitted_bytes)
	if [[ $b =~ ^[0-9]+$ ]]; then echo $((b / $1)); else echo "no-workload-figure"; fi
}

# placed NAME MNT FILE BLOCKSIZE SCATTER-ARGS...: verify --json around the
# writes (into a file laid out by writes of $CHUNK bytes: 1M makes large
# folios, whose blocks past the first page are in tail pages); every data
# block the block layer saw is placed by its bio's page where the submit
# hook put it, none elsewhere, none unplaced.
placed() {
	local name=$1 mnt=$2 f=$3 bs=$4 j=$work/$1.json
	shift 4
	"$WORKLOAD" prep "$f" 4M --chunk "${CHUNK:-4096}" >/dev/null && sync
	if ! start_tool "$j" "$work/$name.err" verify --mount "$mnt" --json; then
		fail "$name.ready" "$(tail -2 "$work/$name.err")"
		return 1
	fi
	EXP=$("$WORKLOAD" scatter "$f" "$@")
	stop_tool INT
	check "$name.exit" 0 "$TOOL_RC"
	check "$name.verdict" '"pass"' "$(jq .verdict "$j")"
	check "$name.block_layer_data_bytes" "$(want submitted_bytes)" \
		"$(jq '[.block_devices[].data_bytes] | add' "$j")"
	check "$name.placed_agree_blocks" "$(want_blocks "$bs")" \
		"$(jq '[.block_devices[].placed_agree_blocks] | add' "$j")"
	check "$name.placed_disagree_blocks" 0 \
		"$(jq '[.block_devices[].placed_disagree_blocks] | add' "$j")"
	check "$name.unplaced_blocks" 0 "$(jq '[.block_devices[].unplaced_blocks] | add' "$j")"
	check "$name.no_disagreement" null "$(jq '.block_devices[0].first_disagreement' "$j")"
	check "$name.losses" 0 "$(jq '[.losses[]] | add' "$j")"
	bio_checked "$name" "$j" "$(want_blocks "$bs")" 0
	check "$name.checked_at_bio_only" false "$(jq .checked_at_bio_only "$j")"
}

# bio_checked NAME JSON DIRTY CLEAN: the write bios' blocks checked against
# their folio's dirty blocks: DIRTY dirty, CLEAN clean, none unjudged, none
# of a folio written back outside the window (the filesystem is quiet)
bio_checked() {
	local name=$1 j=$2
	check "$name.bio_checked_blocks" "$3" "$(jq '[.block_devices[].bio_checked_blocks] | add' "$j")"
	check "$name.bio_violation_blocks" "$4" \
		"$(jq '[.block_devices[].bio_violation_blocks] | add' "$j")"
	check "$name.bio_unjudged_blocks" 0 "$(jq '[.block_devices[].bio_unjudged_blocks] | add' "$j")"
	check "$name.bio_unsnapped_blocks" 0 \
		"$(jq '[.block_devices[].bio_unsnapped_blocks] | add' "$j")"
}

# simulated NAME MNT FILE BLOCKSIZE SCATTER-ARGS...: verify --simulate-clean 1
# hides the first dirty block of every folio from the check, the kernel
# writes it: FAIL, and the bios carried one clean block per folio written
# back (the workload's folios), the others dirty
simulated() {
	local name=$1 mnt=$2 f=$3 bs=$4 j=$work/$1.json folios
	shift 4
	"$WORKLOAD" prep "$f" 4M >/dev/null && sync
	if ! start_tool "$j" "$work/$name.err" verify --mount "$mnt" --json --simulate-clean 1; then
		fail "$name.ready" "$(tail -2 "$work/$name.err")"
		return 1
	fi
	EXP=$("$WORKLOAD" scatter "$f" "$@")
	stop_tool INT
	check "$name.exit" 1 "$TOOL_RC"
	check "$name.verdict" '"fail"' "$(jq .verdict "$j")"
	folios=$(want folios)
	bio_checked "$name" "$j" "$(($(want_blocks "$bs") - folios))" "$folios"
	check "$name.hook_violation_blocks" "$folios" \
		"$(jq '[.filesystems[].stats.violation_blocks] | add' "$j")"
}

for bs in 1024 4096 16384; do
	n=bs$((bs / 1024))k
	if ! mnt=$(xfsloop_make "$bs" 512); then
		fail "$n.setup" "mkfs.xfs -b size=$bs failed"
		continue
	fi
	placed "$n.scattered" "$mnt" "$mnt/s" "$bs" --count 300 --len 100 --stride 13000
	# ranges of 3 to 5 pages 1 KiB apart: bios of several bio_vecs
	placed "$n.dense" "$mnt" "$mnt/d" "$bs" --count 150 --len 15000 --stride 16384 \
		--start 700
	# large folios: blocks in tail pages
	CHUNK=1M placed "$n.large_folios" "$mnt" "$mnt/l" "$bs" --count 300 --len 100 \
		--stride 13000
	simulated "$n.simulated_clean" "$mnt" "$mnt/c" "$bs" --count 40 --len 100 --stride 13000
	xfsloop_cleanup "$mnt"
done

# the text report says it too
mnt=$(xfsloop_make 1024 512)
"$WORKLOAD" prep "$mnt/t" 1M >/dev/null && sync
if start_tool "$work/text.out" "$work/text.err" verify --mount "$mnt"; then
	EXP=$("$WORKLOAD" scatter "$mnt/t" --count 51 --len 100 --stride 20000)
	stop_tool INT
	check text.exit 0 "$TOOL_RC"
	check_match text.placed "placed from the bios' pages: $(want_blocks 1024) data blocks where the submit hook put them, 0 elsewhere, 0 not placed" \
		"$(cat "$work/text.out")"
	check_match text.bio_checked "checked in the bios against their folio's dirty blocks: $(want_blocks 1024) dirty \\(0 dirtied before attach\\), 0 clean, 0 not judged; 0 of folios written back outside the window" \
		"$(cat "$work/text.out")"
else
	fail text.ready "$(tail -2 "$work/text.err")"
fi
cli_finish
