#!/usr/bin/env bash
# `iomapdirty verify` opened on a host that was already writing (issue 22):
# N folios are dirty before verify attaches, M more are written under it,
# then both files are written back. Pages dirtied before attach are no
# missing evidence: their blocks are checked against the kernel's dirty
# bitmap and reported apart. Every expected figure is the workload's own
# (tests/e2e/workload: the offsets it wrote), the block layer's bytes the
# tool's bio matching. The kernel's periodic writeback is held off while
# the test runs (dirty_expire_centisecs, dirty_writeback_centisecs), so the
# pre-attach pages are still dirty when verify attaches; restored on exit.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_vp.XXXXXX)
vm=/proc/sys/vm
old_expire=$(<"$vm/dirty_expire_centisecs")
old_wb=$(<"$vm/dirty_writeback_centisecs")
restore() {
	echo "$old_expire" >"$vm/dirty_expire_centisecs"
	echo "$old_wb" >"$vm/dirty_writeback_centisecs"
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap restore EXIT

# 1 KiB blocks: a 100-byte write dirties one block of its page's four, so
# the kernel's bitmap, not the whole folio, says what must be written
mnt=$(xfsloop_make 1024 512) || { fail preattach.setup "xfsloop_make"; cli_finish; exit; }
for f in pre.tracepoint in.tracepoint pre.raw_tp in.raw_tp pre.u in.u; do
	"$WORKLOAD" prep "$mnt/$f" 1M >/dev/null
done
sync
echo 360000 >"$vm/dirty_expire_centisecs"
echo 0 >"$vm/dirty_writeback_centisecs"

# fsum FILE FIELD: a stats field of verify's JSON, summed over the filesystems
fsum() { jq "[.filesystems[].stats.$2] | add" "$1"; }

# window NAME FILE_PRE FILE_IN [VERIFY ARGS...]: N folios of FILE_PRE dirty
# before attach, M of FILE_IN written (and fsynced) under verify, then
# FILE_PRE written back too; sets PRE and IN (the workload's figures), the
# JSON in $work/NAME.json, TOOL_RC.
window() {
	local name=$1 pre=$2 in=$3
	shift 3
	PRE=$("$WORKLOAD" scatter "$pre" --count 40 --len 100 --stride 20000 --no-fsync)
	if ! start_tool "$work/$name.json" "$work/$name.err" verify --mount "$mnt" --json "$@"; then
		fail "$name.ready" "$(tail -2 "$work/$name.err")"
		return 1
	fi
	IN=$("$WORKLOAD" scatter "$in" --count 25 --len 100 --stride 24000)
	sync "$pre"
	stop_tool INT
}

# --- N folios dirty before attach, M written under verify: PASS ----------
for mode in tracepoint raw_tp; do
	n=preattach.$mode
	j=$work/$n.json
	window "$n" "$mnt/pre.$mode" "$mnt/in.$mode" --mode "$mode" || continue
	check "$n.exit_pass" 0 "$TOOL_RC"
	check "$n.verdict" '"pass"' "$(jq .verdict "$j")"
	# the pre-attach figure is N's: its folios, and their blocks checked
	# (each dirty block submitted) against the kernel's bitmap, none clean
	check "$n.preattach_folios" "$(jq .folios <<<"$PRE")" "$(fsum "$j" preattach_folios)"
	check "$n.preattach_checked_blocks" "$(jq .submitted_blocks <<<"$PRE")" \
		"$(fsum "$j" preattach_checked_blocks)"
	check "$n.preattach_dirty_blocks" "$(jq .dirty_blocks <<<"$PRE")" \
		"$(fsum "$j" preattach_checked_blocks)"
	check "$n.preattach_clean_blocks" 0 "$(fsum "$j" preattach_violation_blocks)"
	# the window's figure is M's: what verify saw written and checked
	check "$n.window_app_bytes" "$(jq .app_bytes <<<"$IN")" "$(fsum "$j" app_bytes)"
	check "$n.window_checked_blocks" "$(jq .submitted_blocks <<<"$IN")" \
		"$(jq .checked_blocks "$j")"
	check "$n.report_preattach_folios" "$(jq .folios <<<"$PRE")" \
		"$(jq .preattach_folios "$j")"
	check "$n.report_preattach_blocks" "$(jq .submitted_blocks <<<"$PRE")" \
		"$(jq .preattach_checked_blocks "$j")"
	check "$n.submitted_blocks" \
		"$(($(jq .submitted_blocks <<<"$PRE") + $(jq .submitted_blocks <<<"$IN")))" \
		"$(fsum "$j" submitted_blocks)"
	check "$n.unchecked" 0 "$(fsum "$j" unchecked_blocks)"
	check "$n.violations" 0 "$(fsum "$j" violation_blocks)"
	# not a loss: the folio was found in the page cache
	check "$n.losses" 0 "$(jq '[.losses[]] | add' "$j")"
	# every submitted byte, N's and M's, reached the block layer
	check "$n.block_layer_data_bytes" "$(fsum "$j" submitted_bytes)" \
		"$(jq '[.block_devices[].data_bytes] | add' "$j")"
	check "$n.pending" 0 "$(jq .pending_blocks "$j")"
	# checked a second time in the write bios (bpf/snapshot.bpf.h), the
	# pre-attach folios by the bitmap read at their writeback
	check "$n.bio_checked_blocks" \
		"$(($(jq .submitted_blocks <<<"$PRE") + $(jq .submitted_blocks <<<"$IN")))" \
		"$(jq '[.block_devices[].bio_checked_blocks] | add' "$j")"
	check "$n.bio_preattach_blocks" "$(jq .submitted_blocks <<<"$PRE")" \
		"$(jq '[.block_devices[].bio_preattach_blocks] | add' "$j")"
	check "$n.bio_violation_blocks" 0 "$(jq '[.block_devices[].bio_violation_blocks] | add' "$j")"
	check_match "$n.reason" "40 folios dirtied before attach" "$(jq -r .reason "$j")"
done

# --- the same window, its bios never seen: not a pass -------------------
# (the block-layer program told to ignore every bio): pre-attach pages
# checked against the bitmap do not make up for evidence missing inside
# the window, nor for their own blocks unseen
n=unseen_with_preattach
j=$work/$n.json
if window "$n" "$mnt/pre.u" "$mnt/in.u" --simulate-unseen-bios; then
	check "$n.exit_incomplete" 8 "$TOOL_RC"
	check "$n.verdict" '"incomplete"' "$(jq .verdict "$j")"
	check "$n.preattach_folios" "$(jq .folios <<<"$PRE")" "$(jq .preattach_folios "$j")"
	check "$n.unseen_blocks" \
		"$(($(jq .submitted_blocks <<<"$PRE") + $(jq .submitted_blocks <<<"$IN")))" \
		"$(jq .pending_blocks "$j")"
	check_match "$n.reason" "not seen in a write bio" "$(jq -r .reason "$j")"
fi

# --- a long window: --blocks N ends it once N blocks are checked ---------
# 25 scattered writes submit 26 blocks (the workload's figure) at their
# fsync; --blocks 20 must end verify by itself long before --duration 120
n=blocks
j=$work/$n.json
"$WORKLOAD" prep "$mnt/b" 1M >/dev/null && sync
if start_tool "$j" "$work/$n.err" verify --mount "$mnt" --json --blocks 20 -D 120; then
	IN=$("$WORKLOAD" scatter "$mnt/b" --count 25 --len 100 --stride 24000)
	bounded_wait "$TOOL_PID" 20
	check "$n.ended_by_itself" 0 "$?"
	check "$n.goal" 20 "$(jq .blocks_goal "$j")"
	check "$n.goal_reached" true "$(jq .blocks_goal_reached "$j")"
	check "$n.checked_at_least_goal" true "$(jq '.checked_blocks >= 20' "$j")"
	check "$n.checked_all_written" "$(jq .submitted_blocks <<<"$IN")" "$(jq .checked_blocks "$j")"
	check "$n.before_duration" true "$(jq '.seconds < 60' "$j")"
	check "$n.verdict" '"pass"' "$(jq .verdict "$j")"
	# stderr is a file here: no progress lines without --progress
	check "$n.no_progress_off_tty" 0 "$(grep -c 'blocks checked' "$work/$n.err")"
else
	fail "$n.ready" "$(tail -2 "$work/$n.err")"
fi
"$IOMAPDIRTY" verify --mount "$mnt" --blocks 0 >/dev/null 2>"$work/b0.err"
check blocks.zero_is_usage 2 "$?"
check_match blocks.zero_message "--blocks wants a positive number" "$(cat "$work/b0.err")"

# --- progress on stderr: with --progress, and on a terminal -------------
# a window of 7 s shows two progress lines (at 3 s and 6 s), the second
# with the blocks a write before it submitted
n=progress
"$WORKLOAD" prep "$mnt/p" 1M >/dev/null && sync
if start_tool "$work/$n.json" "$work/$n.err" verify --mount "$mnt" --json --progress -D 7; then
	IN=$("$WORKLOAD" scatter "$mnt/p" --count 25 --len 100 --stride 24000)
	bounded_wait "$TOOL_PID" 30
	check "$n.exit" 0 "$?"
	check "$n.lines" 2 "$(grep -c '^iomapdirty: [0-9]* s: [0-9]* blocks checked' "$work/$n.err")"
	check_match "$n.figures" "^iomapdirty: [0-9]+ s: $(jq .submitted_blocks <<<"$IN") blocks checked \\(0 in folios dirtied before attach\\), 0 pending" \
		"$(tail -1 "$work/$n.err")"
else
	fail "$n.ready" "$(tail -2 "$work/$n.err")"
fi
# stderr a terminal (script(1) gives the tool one): progress without the flag
script -qec "$IOMAPDIRTY verify --mount $mnt -D 4" /dev/null >"$work/tty.out" 2>&1
check_match progress.on_tty "iomapdirty: [0-9]+ s: [0-9]+ blocks checked" "$(tr -d '\r' <"$work/tty.out")"

cli_finish
