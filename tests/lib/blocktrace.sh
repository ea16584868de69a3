# shellcheck shell=bash
# blocktrace.sh - the block layer's own view of a loop device's writes
# (tracefs block_rq_issue), a run file's per-folio histograms against a
# workload's, and an XFS beside another filesystem in one hist: the checks
# the backend suites share (tests/cli/ext4.sh, btrfs.sh). Source after
# tests/cli/lib.sh (check, start_tool) and tests/e2e/e2e_lib.sh
# (E2E_EXPECT_JQ); set $loop to the loop device, $work to a scratch dir.
# shellcheck disable=SC2154 # loop: the sourcing suite's

BT_TRACEFS=/sys/kernel/tracing

blocktrace_off() {	# from an EXIT trap too: leaves tracefs as found
	echo 0 >"$BT_TRACEFS/events/block/block_rq_issue/enable" 2>/dev/null
	echo 0 >"$BT_TRACEFS/events/block/block_rq_issue/filter" 2>/dev/null
}

trace_start() {	# block_rq_issue on $loop only
	local devt T=$BT_TRACEFS
	devt=$(<"/sys/block/${loop#/dev/}/dev")
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo "dev == $(((${devt%:*} << 20) | ${devt#*:}))" \
		>"$T/events/block/block_rq_issue/filter"
	echo 1 >"$T/events/block/block_rq_issue/enable"
	echo 1 >"$T/tracing_on"
}

trace_stop() {	# TRACE_FILE
	local T=$BT_TRACEFS
	echo 0 >"$T/tracing_on"
	cat "$T/trace" >"$1"
	echo 0 >"$T/events/block/block_rq_issue/enable"
	echo >"$T/trace"
}

# write_bytes TRACE: bytes of every write request
write_bytes() {
	awk '/ block_rq_issue: / { sub(/.* block_rq_issue: /, ""); if ($2 !~ /W/) next
		split($0, a, / \+ /); split(a[2], r, " "); b += r[1] * 512 }
		END { print b + 0 }' "$1"
}

# bytes_inside TRACE < RANGES: bytes of write requests inside the device
# sector ranges read from stdin, "first last" per line
bytes_inside() {
	awk 'BEGIN { n = 0 }
		FNR == NR { es[n] = $1; ee[n] = $2 + 1; n++; next }
		/ block_rq_issue: / {
			sub(/.* block_rq_issue: /, "")
			if ($2 !~ /W/) next
			split($0, a, / \+ /); k = split(a[1], l, " "); split(a[2], r, " ")
			s = l[k]; e = s + r[1]
			for (i = 0; i < n; i++) {
				lo = s > es[i] ? s : es[i]; hi = e < ee[i] ? e : ee[i]
				if (hi > lo) b += (hi - lo) * 512
			}
		}
		END { print b + 0 }' - "$1"
}

# per_folio_hist NAME RUN_JSON HIST WANT: the run file's histogram HIST
# against the workload's per-folio values WANT ({"value": folios}), bucket
# by bucket (buckets matched by their bounds)
per_folio_hist() {
	local got
	got=$(jq -c --arg h "$3" --argjson want "$4" '
		def inb($v): (if .min_exclusive then $v > .min else $v >= .min end)
			and (.max == null or (if .max_exclusive then $v < .max
			else $v <= .max end));
		($want | to_entries | map({v: (.key | tonumber), c: .value})) as $w
		| [.histograms[$h].buckets[] | . as $b
			| select(.count != ([$w[] | select(. as $x | $b | inb($x.v)) | .c]
				| add // 0))] | length' "$2")
	check "$1" 0 "$got"
}

# files_in_one_hist NAME XFS_FILE OTHER_FILE LABEL [HIST_OPTION...]: one
# hist watching every filesystem while the same scattered overwrites go
# into a file on an XFS and one on another filesystem (both laid out
# already): each file exact against its own workload figures
# (NAME.x.FIELD, NAME.LABEL.FIELD)
files_in_one_hist() {
	local n=$1 xf=$2 of=$3 label=$4 sum k got f w
	shift 4
	if ! start_tool "$work/both.json" "$work/both.err" hist --json "$@" -i 60; then
		fail "$n.ready" "$(tail -n 3 "$work/both.err")"
		return
	fi
	"$WORKLOAD" scatter "$xf" --count 12 --len 300 --stride 9000 >"$work/x.exp"
	"$WORKLOAD" scatter "$of" --count 12 --len 300 --stride 9000 >"$work/$label.exp"
	sleep 1
	stop_tool INT
	check "$n.exit" 0 "$TOOL_RC"
	sum=$(tail -n 1 "$work/both.json")
	for w in x "$label"; do
		k=$(jq -r '"\(.dev):\(.ino)"' "$work/$w.exp")
		got=$(jq -c --arg k "$k" '[.files[]? | select("\(.dev):\(.ino)" == $k)] |
			.[0].stats // {}' <<<"$sum")
		for f in app_bytes write_calls dirty_blocks folios submitted_blocks submitted_bytes; do
			check "$n.$w.$f" "$(jq -c "$E2E_EXPECT_JQ | .totals.$f" "$work/$w.exp")" \
				"$(jq -c ".$f" <<<"$got")"
		done
	done
}
