#!/usr/bin/env bash
# bench/pair.sh - two iomapdirty binaries on the same events, side by side.
#
#   bench/pair.sh [--level=full|always-on] [--workload=seed|many|hot]
#                 [--rounds=N] [--seconds=S] BINARY_A BINARY_B
#
# Each round makes a 1 KiB-block loop XFS, lays out the workload's files
# (as bench/run.sh does), attaches `BINARY hist --shared` of both at once
# with the kernel's BPF statistics on (bench/floor --stats), runs the fio
# job, syncs, and reads run_time_ns / run_cnt of every program of both
# (bpftool, by the programs each process holds). Both see exactly the same
# events, so their difference is not the run-to-run noise of this VM.
# The order of attaching alternates between rounds: on a tracepoint the
# program attached first runs first, and it pays the first touch of the
# kernel's data both read (the folio, the page cache's nodes, the dirty
# bitmap). The same binary given twice measures that first-touch cost.
#
# Prints one line per round and program, "ROUND A|B first|second PROGRAM
# EVENTS NS_PER_EVENT", then the median of each binary's writeback
# program in each position. Needs root, fio, bpftool, jq.
set -uo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
level=always-on workload=seed rounds=4 seconds=6
while [[ $# -gt 0 && $1 == --* ]]; do
	case $1 in
	--level=*) level=${1#*=} ;;
	--workload=*) workload=${1#*=} ;;
	--rounds=*) rounds=${1#*=} ;;
	--seconds=*) seconds=${1#*=} ;;
	*) echo "pair.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[[ $# -eq 2 && -x $1 && -x $2 ]] || { echo "usage: pair.sh [options] BINARY_A BINARY_B" >&2; exit 2; }
[[ $level == full || $level == always-on ]] || { echo "pair.sh: --level full or always-on" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ && $seconds =~ ^[1-9][0-9]*$ ]] ||
	{ echo "pair.sh: --rounds and --seconds take a positive integer" >&2; exit 2; }
bins=("$(realpath "$1")" "$(realpath "$2")")
for t in fio bpftool jq; do
	command -v $t >/dev/null || { echo "pair.sh: needs $t" >&2; exit 1; }
done
make -C "$BENCH" -s helpers >&2 || exit 1
export XFSLOOP_NO_TRAP=1
# shellcheck source=../tests/lib/xfsloop.sh
source "$REPO/tests/lib/xfsloop.sh"
WORK=$(mktemp -d /tmp/iomapdirty-pair.XXXXXX)
pids=()
round_end() {	# the observers and the statistics stopped, the XFS gone
	local p
	for p in "${pids[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
	xfsloop_cleanup_all
}
trap 'round_end; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

# the fio jobs of bench/run.sh, at full size
job() {	# layout|run MNT
	local mnt=$2/w
	case $workload:$1 in
	hot:layout) fio --name=hot --directory="$mnt" --nrfiles=1 --filesize=128m --numjobs=2 \
		--bs=1m --rw=write --ioengine=psync --output=/dev/null ;;
	hot:run) fio --name=hot --directory="$mnt" --nrfiles=1 --filesize=128m --numjobs=2 \
		--bs=4k --rw=randwrite --ioengine=psync --overwrite=1 --time_based \
		--runtime="$seconds" --output=/dev/null ;;
	seed:layout) sed "s/^runtime=.*/runtime=$seconds/" "$REPO/examples/seed-randwrite.fio" \
		>"$WORK/seed.fio" && fio --directory="$mnt" --create_only=1 --output=/dev/null "$WORK/seed.fio" ;;
	seed:run) fio --directory="$mnt" --output=/dev/null "$WORK/seed.fio" ;;
	many:layout) fio --name=many --directory="$mnt" --nrfiles=4000 --filesize=16k --numjobs=2 \
		--bs=16k --rw=write --ioengine=psync --output=/dev/null ;;
	many:run) fio --name=many --directory="$mnt" --nrfiles=4000 --filesize=16k --numjobs=2 \
		--bs=1k --rw=randwrite --file_service_type=random --fsync=32 --ioengine=psync \
		--overwrite=1 --time_based --runtime="$seconds" --output=/dev/null ;;
	*) echo "pair.sh: unknown workload $workload" >&2; return 2 ;;
	esac
}

# prog_stats PID: "NAME EVENTS NS" for each program PID holds that ran
prog_stats() {
	local fd id
	for fd in /proc/"$1"/fdinfo/*; do
		id=$(awk '/^prog_id:/ { print $2 }' "$fd" 2>/dev/null)
		[[ -n $id ]] || continue
		bpftool prog show id "$id" -j 2>/dev/null |
			jq -r 'select(.run_cnt > 0) | "\(.name) \(.run_cnt) \(.run_time_ns / .run_cnt | floor)"'
	done | sort -u
}

results=$WORK/results
for ((r = 1; r <= rounds; r++)); do
	mnt=$(xfsloop_make 1024 1024) || exit 1
	mkdir -p "$mnt/w" && job layout "$mnt" && sync -f "$mnt" || exit 1
	"$BENCH/.output/floor" --stats >/dev/null 2>&1 &
	pids=($!)
	sleep 1
	# odd rounds A first, even rounds B first
	order=(0 1)
	((r % 2 == 0)) && order=(1 0)
	for i in "${order[@]}"; do
		"${bins[$i]}" hist --shared --accounting "$level" -m "$mnt" -i 100 >/dev/null 2>"$WORK/err$i" &
		pids+=($!)
		sleep 3
		kill -0 $! 2>/dev/null || { echo "pair.sh: ${bins[$i]} did not start: $(tail -1 "$WORK/err$i")" >&2; exit 1; }
	done
	job run "$mnt" || exit 1
	sync -f "$mnt"
	sleep 1
	for pos in 1 2; do
		i=${order[$((pos - 1))]}
		name=A; ((i == 1)) && name=B
		where=first; ((pos == 2)) && where=second
		prog_stats "${pids[$pos]}" | sed "s/^/$r $name $where /" | tee -a "$results"
	done
	round_end
done
echo "writeback program, median ns per event ($workload, $level, $rounds rounds; A ${bins[0]}, B ${bins[1]}):"
for key in "A first" "A second" "B first" "B second"; do
	vals=$(awk -v k="$key" '$2 " " $3 == k && $4 ~ /wb_folio|wb_begin/ { print $6 }' "$results" | sort -n)
	n=$(grep -c . <<<"$vals")
	((n > 0)) || continue
	med=$(awk -v n="$n" '{ a[NR] = $1 } END { print (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }' <<<"$vals")
	echo "  $key: $med ns (n=$n)"
done
