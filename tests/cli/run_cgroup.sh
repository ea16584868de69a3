#!/usr/bin/env bash
# run counts exactly CMD (issue 25): CMD runs in a cgroup v2 of its own and
# only that cgroup's writes are the run's. A writer outside it (a loop of
# scatter workloads with fsync and sync, on the same filesystem, while CMD
# writes without fsync, so CMD's folios are written back by that sync or by
# run's syncfs, outside CMD's cgroup) must not be in the run's figures and
# must be reported apart with exactly its own bytes. A CMD that forks
# writers: all of them are CMD's. --all keeps the old behaviour (both).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_run_cgroup.XXXXXX)
bg=
cleanup() {
	[[ -n $bg ]] && kill -KILL "$bg" 2>/dev/null
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT

if ! grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	echo "SKIP run_cgroup: no cgroup v2 hierarchy on this host"
	cli_finish
	exit
fi
m=$(xfsloop_make 1024 512) || { fail run_cgroup.fixture "xfsloop_make failed"; cli_finish; exit; }
for f in cmd bg c1 c2; do
	"$WORKLOAD" prep "$m/$f" 1M >/dev/null || { fail run_cgroup.prep "$f"; cli_finish; exit; }
done
mkfifo "$work/go" "$work/done"

# the other writer: told to go by CMD, five rounds of writes, fsync, sync
# (which also writes back CMD's dirty folios), then tells CMD it is done
other_writer() {
	read -r _ <"$work/go"
	for i in 1 2 3 4 5; do
		"$WORKLOAD" scatter "$m/bg" --count 20 --len 700 --stride 11000 \
			--start $((i * 100)) >"$work/bg.$i.exp" || echo fail >"$work/bg.failed"
		sync
	done
	echo done >"$work/done"
}

# the concurrent writer, --all or not: run's JSON in $work/$1.json
concurrent() {
	local name=$1
	shift
	rm -f "$work"/bg.*.exp
	other_writer &
	bg=$!
	bounded_run 120 "$IOMAPDIRTY" run --mode tracepoint --mount "$m" \
		--json "$work/$name.json" "$@" -- bash -c \
		'echo go >"$1"; "$2" scatter "$3" --count 30 --len 300 --stride 9000 \
			--no-fsync >"$4"; read -r _ <"$5"' \
		_ "$work/go" "$WORKLOAD" "$m/cmd" "$work/$name.cmd.exp" "$work/done" \
		2>"$work/$name.err"
	check "run_cgroup.$name.exit" 0 "$?"
	bounded_wait "$bg" 30
	bg=
	[[ ! -e $work/bg.failed ]] || fail "run_cgroup.$name.other_writer" "a round failed"
}
bounded_run() {	# SECONDS CMD...: CMD killed after SECONDS
	timeout -k 5 "$1" "${@:2}"
}

concurrent exact
r=$work/exact.json
bg_bytes=$(jq -s '[.[].app_bytes] | add' "$work"/bg.*.exp)
for f in app_bytes write_calls dirty_blocks submitted_blocks submitted_bytes folios; do
	check "run_cgroup.exact.$f" "$(jq ".$f" "$work/exact.cmd.exp")" "$(jq ".totals.$f" "$r")"
done
check run_cgroup.exact.files "$(jq -r '"\(.dev):\(.ino)"' "$work/exact.cmd.exp")" \
	"$(jq -r '[.files[] | "\(.dev):\(.ino)"] | join(" ")' "$r")"
check run_cgroup.exact.counts cgroup "$(jq -r .scope.counts "$r")"
check run_cgroup.exact.other_bytes "$bg_bytes" "$(jq .scope.other_processes.app_bytes "$r")"
check run_cgroup.exact.other_files 1 "$(jq .scope.other_processes.files "$r")"
check run_cgroup.exact.losses 0 "$(jq '[.losses[]] | add' "$r")"
cg=$(jq -r .scope.cgroup "$r")
root=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)
check_match run_cgroup.exact.cgroup_named 'iomapdirty-run\.' "$cg"
[[ -n $cg && ! -e $root$cg ]] && pass run_cgroup.exact.cgroup_removed ||
	fail run_cgroup.exact.cgroup_removed "$root$cg still there"
# without --json (which keeps CAP_DAC_OVERRIDE for its own reasons), the
# cgroup is removed too, though its parent may be r-x (a cgroup v2 root)
run_cgroups() { find "$root" -maxdepth 4 -type d -name 'iomapdirty-run.*' 2>/dev/null | sort; }
before=$(run_cgroups)
"$IOMAPDIRTY" run --mount "$m" -q -- true >/dev/null 2>"$work/nojson.err"
check run_cgroup.no_json.exit 0 "$?"
check run_cgroup.no_json.no_warning 0 "$(grep -c 'cannot remove' "$work/nojson.err")"
check run_cgroup.no_json.none_left "" "$(comm -13 <(echo "$before") <(run_cgroups) | tr '\n' ' ')"
check_match run_cgroup.exact.text_other "^other processes: $bg_bytes B in [0-9]+ write calls into 1 files" \
	"$(cat "$work/exact.err")"

# --all: today's behaviour, both writers in the run, and it says so
concurrent all --all
want=$(jq -s '[.[].app_bytes] | add' "$work/all.cmd.exp" "$work"/bg.*.exp)
check run_cgroup.all.app_bytes "$want" "$(jq .totals.app_bytes "$work/all.json")"
check run_cgroup.all.counts all "$(jq -r .scope.counts "$work/all.json")"

# CMD forks writers: a child in the background and one in the foreground
bounded_run 120 "$IOMAPDIRTY" run --mode tracepoint --mount "$m" --quiet \
	--json "$work/fork.json" -- bash -c \
	'"$1" scatter "$2" --count 25 --len 500 --stride 7000 >"$3" & 
	 "$1" scatter "$4" --count 40 --len 100 --stride 5000 --no-fsync >"$5"; wait' \
	_ "$WORKLOAD" "$m/c1" "$work/c1.exp" "$m/c2" "$work/c2.exp" 2>"$work/fork.err"
check run_cgroup.fork.exit 0 "$?"
for f in app_bytes write_calls dirty_blocks submitted_blocks folios; do
	check "run_cgroup.fork.$f" "$(jq -s "[.[].$f] | add" "$work/c1.exp" "$work/c2.exp")" \
		"$(jq ".totals.$f" "$work/fork.json")"
done
check run_cgroup.fork.other_bytes 0 "$(jq .scope.other_processes.app_bytes "$work/fork.json")"
cli_finish
