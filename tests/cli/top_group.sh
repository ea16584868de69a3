#!/usr/bin/env bash
# top's COMM and CGROUP columns and `top --group cgroup` (issue 25): two
# writers in two cgroups v2 made here, each writing two files with known
# workloads (tests/e2e/workload). In the summary of `top --json --group
# cgroup` and of `top -b --group cgroup`, each group's app bytes, dirty and
# submitted blocks must equal the sum of its own workloads' figures exactly,
# and each file row must name its writer's command and cgroup.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_top_group.XXXXXX)
root=$(cgroup2_root)
cga=$root/wt-top-a.$$ cgb=$root/wt-top-b.$$
CG_DIRS=("$cga" "$cgb")
CG_WORK=$work
trap cgroup_test_cleanup EXIT

if [[ -z $root ]]; then
	echo "SKIP top_group: no cgroup v2 hierarchy on this host"
	cli_finish
	exit
fi
m=$(xfsloop_make 1024 512) || { fail top_group.fixture "xfsloop_make failed"; cli_finish; exit; }
for f in a1 a2 b1; do
	"$WORKLOAD" prep "$m/$f" 1M >/dev/null || { fail top_group.prep "$f"; cli_finish; exit; }
done
mkdir "$cga" "$cgb" || { fail top_group.mkdir "$cga $cgb"; cli_finish; exit; }
mkfifo "$work/go_a" "$work/go_b"

# writer CGROUP FIFO CMDS: a shell that enters CGROUP, waits, then runs the
# workload commands of file CMDS, one per line (their figures on stdout)
writer() {
	bash -c 'echo $$ >"$1/cgroup.procs" && read -r _ <"$2" &&
		while read -r -a w; do "$3" "${w[@]}" || exit; done <"$4"' \
		_ "$1" "$2" "$WORKLOAD" "$3" &
	CG_PIDS+=("$!")
}
printf '%s\n' "scatter $m/a1 --count 30 --len 300 --stride 9000" \
	"scatter $m/a2 --count 12 --len 5000 --stride 20000" >"$work/a.cmds"
echo "scatter $m/b1 --count 25 --len 2000 --stride 13000" >"$work/b.cmds"
writer "$cga" "$work/go_a" "$work/a.cmds" >"$work/a.exp"
pid_a=$!
writer "$cgb" "$work/go_b" "$work/b.cmds" >"$work/b.exp"
pid_b=$!

for out in json text; do
	args=(-b)
	[[ $out == json ]] && args=(--json)
	if start_tool "$work/$out" "$work/$out.err" top "${args[@]}" --shared --mode tracepoint \
		--mount "$m" -i 1 --group cgroup; then
		CG_PIDS+=("$TOOL_PID")
		eval "tool_$out=$TOOL_PID"
		pass "top_group.$out.ready"
	else
		fail "top_group.$out.ready" "$(tail -2 "$work/$out.err")"
	fi
done
echo go >"$work/go_a" &
echo go >"$work/go_b" &
bounded_wait "$pid_a" 60
check top_group.writer_a.exit 0 "$?"
bounded_wait "$pid_b" 60
check top_group.writer_b.exit 0 "$?"
sync
sleep 1
for out in json text; do
	eval "TOOL_PID=\${tool_$out:-}"
	[[ -n $TOOL_PID ]] || continue
	stop_tool INT
	check "top_group.$out.exit" 0 "$TOOL_RC"
done

# a workload's figure F, summed over the files it wrote
exp() { jq -s "map(.$2) | add" "$work/$1.exp"; }
top=$(tail -n 1 "$work/json")
check top_group.json.type summary "$(jq -r .type <<<"$top")"
check top_group.json.group cgroup "$(jq -r .group <<<"$top")"
# the summary's groups on this fresh filesystem: exactly the two cgroups
check top_group.json.labels "${cga#"$root"} ${cgb#"$root"}" \
	"$(jq -r '[.groups[]?.label] | sort | join(" ")' <<<"$top")"
for name in a b; do
	eval "cg=\$cg$name"
	g=$(jq -c --arg l "${cg#"$root"}" '[.groups[]? | select(.label == $l)] | .[0] // {}' <<<"$top")
	check "top_group.json.$name.cgroup_id" "$(stat -c %i "$cg")" "$(jq -r .writer.cgroup_id <<<"$g")"
	check "top_group.json.$name.nfiles" "$(jq -s length "$work/$name.exp")" "$(jq -r .nfiles <<<"$g")"
	for f in app_bytes dirty_blocks submitted_blocks submitted_bytes folios; do
		check "top_group.json.$name.$f" "$(exp "$name" "$f")" "$(jq -c ".stats.$f" <<<"$g")"
	done
done

# text: the summary's file rows name writer and cgroup; its group rows the sums
sum=$(sed -n '/^=== summary ===$/,$p' "$work/text")
hdr=$(grep -m1 '^PATH ' <<<"$sum")
check_match top_group.text.columns ' COMM +CGROUP *$' "$hdr"
for f in a1 a2 b1; do
	cg=$cga
	[[ $f == b1 ]] && cg=$cgb
	check_match "top_group.text.$f.writer" "^$m/$f .* workload +${cg#"$root"} *\$" "$sum"
done
for name in a b; do
	eval "cg=\$cg$name"
	row=$(awk -v l="${cg#"$root"}" '/^GROUP /{ g = 1; next } g && $1 == l' <<<"$sum")
	check "top_group.text.$name.files_app" \
		"$(jq -s length "$work/$name.exp") $(exp "$name" app_bytes)" \
		"$(awk '{ print $2, $3 }' <<<"$row")"
done
"$IOMAPDIRTY" top --group pid -c 1 >/dev/null 2>"$work/bad.err"
check top_group.bad_group.exit 2 "$?"
check_match top_group.bad_group.says 'neither cgroup nor comm' "$(cat "$work/bad.err")"
cli_finish
