#!/usr/bin/env bash
# At the always-on level a write is folded into its file's totals when it
# happens, without a folio, so without moving the file's last_ns; the
# interval arithmetic used last_ns alone to find the files with news and
# left out a file that was only written in an interval (its bytes were in
# the totals, in no file). Ground truth: 16 writes of 4 KiB at known
# offsets, 0.2 s apart, no fsync (nothing is written back meanwhile), under
# `top -b --json -i 0.5 --accounting always-on`:
#   every interval: totals.app_bytes = the sum of the listed files' app_bytes
#   over the intervals: the file's app_bytes = 16 x 4096, write_calls = 16
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_aonint.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
mnt=$(xfsloop_make 1024 320) || { fail aon_intervals.fixture "xfsloop_make failed"; cli_finish; exit; }
: >"$mnt/f"
sync -f "$mnt"

if ! start_tool "$work/out.json" "$work/err.txt" top -b --json -i 0.5 \
	--accounting always-on --mount "$mnt"; then
	fail aon_intervals.ready "$(tail -2 "$work/err.txt")"
	cli_finish
	exit
fi
for i in $(seq 0 15); do
	dd if=/dev/zero of="$mnt/f" bs=4096 count=1 seek=$((i * 3)) conv=notrunc \
		status=none || fail aon_intervals.write "dd $i"
	sleep 0.2
done
sleep 0.8
stop_tool INT
check aon_intervals.exit 0 "$TOOL_RC"
ino=$(stat -c %i "$mnt/f")

# one row per interval report: totals.app_bytes, the files' sum, the file's bytes and calls
jq -r --argjson ino "$ino" 'select(.cumulative == false) |
	[.interval, .totals.app_bytes, ([.files[].stats.app_bytes] | add // 0),
	 ([.files[] | select(.ino == $ino) | .stats.app_bytes] | add // 0),
	 ([.files[] | select(.ino == $ino) | .stats.write_calls] | add // 0)] | @tsv' \
	"$work/out.json" >"$work/rows.tsv" 2>"$work/jq.err" ||
	fail aon_intervals.json "$(head -2 "$work/jq.err")"
nrows=$(wc -l <"$work/rows.tsv")
written=$(awk '$2 > 0' "$work/rows.tsv" | wc -l)
if ((nrows >= 6 && written >= 5)); then
	pass aon_intervals.intervals
else
	fail aon_intervals.intervals "expected >= 6 interval reports, >= 5 with writes; got $nrows, $written"
fi
check_no_rows aon_intervals.files_add_up_to_totals "$work/rows.tsv" '$2 != $3' \
	"interval totals files_sum file_bytes file_calls"
check aon_intervals.file_app_bytes $((16 * 4096)) "$(awk '{s += $4} END {print s + 0}' "$work/rows.tsv")"
check aon_intervals.file_write_calls 16 "$(awk '{s += $5} END {print s + 0}' "$work/rows.tsv")"
cli_finish
