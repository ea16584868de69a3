#!/usr/bin/env bash
# Filters across two filesystems at once: no filter, --dev, -p and --comm,
# four instances (--shared) watching the same three writers. Writer A
# (pid known before it writes) and writer C write files on a 1 KiB-block
# XFS, writer B (a copy of the workload named wl_beta) a file on a 4 KiB-
# block XFS. Each instance must list exactly the files its filter lets
# through, with the writers' own expected figures (tests/e2e/workload).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_filters.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT

m1=$(xfsloop_make 1024 512) && m2=$(xfsloop_make 4096 512) ||
	{ fail filters.fixture "xfsloop_make failed"; cli_finish; exit; }
d1=$(xfsloop_dev "$m1") d2=$(xfsloop_dev "$m2")
for f in "$m1/a" "$m1/c" "$m2/b"; do
	"$WORKLOAD" prep "$f" 1M >/dev/null || { fail filters.prep "$f"; cli_finish; exit; }
done
cp "$WORKLOAD" "$work/wl_beta"

# writer A: a shell that becomes the workload (same pid) once told to go
mkfifo "$work/go"
bash -c 'read -r _ <"$1"; shift; exec "$@"' _ "$work/go" \
	"$WORKLOAD" scatter "$m1/a" --count 30 --len 300 --stride 9000 >"$work/a.exp" &
pid_a=$!
pids+=("$pid_a")

# name FILTER...: one instance per filter, all --shared
start() {
	local name=$1
	shift
	if start_tool "$work/$name.json" "$work/$name.err" hist --json --shared "$@"; then
		pids+=("$TOOL_PID")
		eval "pid_$name=$TOOL_PID"
		pass "filters.$name.ready"
	else
		fail "filters.$name.ready" "$(tail -2 "$work/$name.err")"
	fi
}
start all
start dev --dev "$d1"
start pid -p "$pid_a"
start comm --comm wl_beta

echo go >"$work/go"
bounded_wait "$pid_a" 60
check filters.writer_a.exit 0 "$?"
"$work/wl_beta" scatter "$m2/b" --count 25 --len 5000 --stride 13000 >"$work/b.exp"
check filters.writer_b.exit 0 "$?"
"$WORKLOAD" scatter "$m1/c" --count 40 --len 100 --stride 7000 >"$work/c.exp"
check filters.writer_c.exit 0 "$?"
sleep 1
for name in all dev pid comm; do
	eval "TOOL_PID=\${pid_$name:-}"
	[[ -n $TOOL_PID ]] || continue
	stop_tool INT
	check "filters.$name.exit" 0 "$TOOL_RC"
done

# files NAME: "dev:ino" of every file the instance listed on the two XFS,
# sorted (the unfiltered instance also counts the host's other counted
# filesystems: its root, if ext4)
files() {
	jq -r --arg d1 "$d1" --arg d2 "$d2" '.files[]? | select(.dev == $d1 or .dev == $d2) |
		"\(.dev):\(.ino)"' <(tail -n 1 "$work/$1.json") 2>/dev/null | sort | xargs
}
key() { jq -r '"\(.dev):\(.ino)"' "$work/$1.exp"; }
ka=$(key a) kb=$(key b) kc=$(key c)
check filters.all.files "$(printf '%s\n' "$ka" "$kb" "$kc" | sort | xargs)" "$(files all)"
check filters.dev.files "$(printf '%s\n' "$ka" "$kc" | sort | xargs)" "$(files dev)"
check filters.pid.files "$ka" "$(files pid)"
check filters.comm.files "$kb" "$(files comm)"

# figures of file W in instance NAME against the writer's expectations
figures() {
	local name=$1 w=$2 got f
	got=$(tail -n 1 "$work/$name.json" | jq -c --arg k "$(key "$w")" \
		'[.files[]? | select("\(.dev):\(.ino)" == $k)] | .[0].stats // {}')
	for f in app_bytes write_calls dirty_blocks submitted_blocks submitted_bytes folios; do
		check "filters.$name.$w.$f" "$(jq -c ".$f" "$work/$w.exp")" "$(jq -c ".$f" <<<"$got")"
	done
}
for w in a b c; do figures all "$w"; done
for w in a c; do figures dev "$w"; done
figures pid a
figures comm b

# the unfiltered instance: both filesystems (and whatever else of the
# host it counts), each with its own totals, and totals that are the sum
# of every filesystem's
sum=$(tail -n 1 "$work/all.json")
check filters.all.filesystems "$(printf '%s\n' "$d1" "$d2" | sort | xargs)" \
	"$(jq -r --arg d1 "$d1" --arg d2 "$d2" '.filesystems[].dev |
		select(. == $d1 or . == $d2)' <<<"$sum" | sort | xargs)"
want_fs1=$(jq -s '[.[].app_bytes] | add' "$work/a.exp" "$work/c.exp")
check filters.all.fs1_app_bytes "$want_fs1" \
	"$(jq --arg d "$d1" '.filesystems[] | select(.dev == $d) | .stats.app_bytes' <<<"$sum")"
check filters.all.fs2_app_bytes "$(jq .app_bytes "$work/b.exp")" \
	"$(jq --arg d "$d2" '.filesystems[] | select(.dev == $d) | .stats.app_bytes' <<<"$sum")"
check filters.all.totals_app_bytes "$(jq '[.filesystems[].stats.app_bytes] | add' <<<"$sum")" \
	"$(jq .totals.app_bytes <<<"$sum")"
check filters.dev.filesystems "$d1" "$(tail -n 1 "$work/dev.json" | jq -r '.filesystems[].dev' | xargs)"
# what the process filters left out is counted, not lost
for name in pid comm; do
	check "filters.$name.losses" 0 "$(tail -n 1 "$work/$name.json" | jq '[.losses[]] | add')"
done
cli_finish
