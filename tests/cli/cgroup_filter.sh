#!/usr/bin/env bash
# --cgroup PATH (issue 25): two writers in two cgroups v2 made here, each
# with its known workload (tests/e2e/workload), A with fsync, B without
# (written back by a sync from outside both cgroups). hist --cgroup A and
# hist --cgroup B (both --shared, attached at once) must each give exactly
# its writer's figures, and nothing of the other's; top --json, unfiltered,
# must name each file's writer (cgroup path, command) with those figures.
# B's cgroup is named like a systemd unit (wt-attrib-cgB-PID.scope): a
# third hist, --unit NAME, finds it by name and must give B's figures too
# (where systemd is PID 1, tests/exporter/systemd.sh names a real
# systemd-run unit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_cgroup_filter.XXXXXX)
root=$(cgroup2_root)
cga=$root/wt-attrib-cgA.$$ cgb=$root/wt-attrib-cgB-$$.scope
unit_b=wt-attrib-cgB-$$.scope
# two cgroups of one unit name, for --unit's "several" refusal
dup1=$root/wt-attrib-dup1.$$ dup2=$root/wt-attrib-dup2.$$
CG_DIRS=("$cga" "$cgb" "$dup1/d-$$.service" "$dup2/d-$$.service" "$dup1" "$dup2")
CG_WORK=$work
trap cgroup_test_cleanup EXIT

if [[ -z $root ]]; then
	echo "SKIP cgroup_filter: no cgroup v2 hierarchy on this host"
	cli_finish
	exit
fi
m=$(xfsloop_make 1024 512) || { fail cgroup_filter.fixture "xfsloop_make failed"; cli_finish; exit; }
for f in a b; do
	"$WORKLOAD" prep "$m/$f" 1M >/dev/null || { fail cgroup_filter.prep "$f"; cli_finish; exit; }
done
mkdir "$cga" "$cgb" || { fail cgroup_filter.mkdir "$cga $cgb"; cli_finish; exit; }
mkfifo "$work/go_a" "$work/go_b"

# writer CGROUP FIFO ARGS...: a shell that enters CGROUP, waits, runs the workload
writer() {
	local cg=$1 fifo=$2
	shift 2
	bash -c 'echo $$ >"$1/cgroup.procs" && read -r _ <"$2" && shift 2 && exec "$@"' \
		_ "$cg" "$fifo" "$WORKLOAD" "$@" &
	CG_PIDS+=("$!")
}
writer "$cga" "$work/go_a" scatter "$m/a" --count 30 --len 300 --stride 9000 >"$work/a.exp"
pid_a=$!
writer "$cgb" "$work/go_b" scatter "$m/b" --count 25 --len 2000 --stride 13000 --no-fsync \
	>"$work/b.exp"
pid_b=$!

for name in a b ub; do
	eval "cg=\${cg$name:-}"
	# the path relative to the v2 root for a, under the mount for b; ub: b's by --unit
	[[ $name == a ]] && cg=${cg#"$root"}
	filter=(--cgroup "$cg")
	[[ $name == ub ]] && filter=(--unit "$unit_b")
	if start_tool "$work/$name.json" "$work/$name.err" hist --json --shared --mode tracepoint \
		--mount "$m" "${filter[@]}"; then
		CG_PIDS+=("$TOOL_PID")
		eval "tool_$name=$TOOL_PID"
		pass "cgroup_filter.$name.ready"
	else
		fail "cgroup_filter.$name.ready" "$(tail -2 "$work/$name.err")"
	fi
done
if start_tool "$work/top.json" "$work/top.err" top -b --json --shared --mode tracepoint \
	--mount "$m" -i 1; then
	CG_PIDS+=("$TOOL_PID")
	tool_top=$TOOL_PID
	pass cgroup_filter.top.ready
else
	fail cgroup_filter.top.ready "$(tail -2 "$work/top.err")"
fi
echo go >"$work/go_a" &
echo go >"$work/go_b" &
bounded_wait "$pid_a" 60
check cgroup_filter.writer_a.exit 0 "$?"
bounded_wait "$pid_b" 60
check cgroup_filter.writer_b.exit 0 "$?"
sync
sleep 1
for name in a b ub top; do
	eval "TOOL_PID=\${tool_$name:-}"
	[[ -n $TOOL_PID ]] || continue
	stop_tool INT
	check "cgroup_filter.$name.exit" 0 "$TOOL_RC"
done

cp "$work/b.exp" "$work/ub.exp"
key() { jq -r '"\(.dev):\(.ino)"' "$work/$1.exp"; }
for name in a b ub; do
	sum=$(tail -n 1 "$work/$name.json")
	check "cgroup_filter.$name.files" "$(key "$name")" \
		"$(jq -r '[.files[]? | "\(.dev):\(.ino)"] | join(" ")' <<<"$sum")"
	for f in app_bytes write_calls dirty_blocks submitted_blocks submitted_bytes folios; do
		check "cgroup_filter.$name.$f" "$(jq -c ".$f" "$work/$name.exp")" \
			"$(jq -c ".totals.$f" <<<"$sum")"
	done
	check "cgroup_filter.$name.losses" 0 "$(jq '[.losses[]] | add' <<<"$sum")"
done
# top: each file's writer and figures, from the summary (the last line)
top=$(tail -n 1 "$work/top.json")
check cgroup_filter.top.type summary "$(jq -r .type <<<"$top")"
for name in a b; do
	eval "cg=\$cg$name"
	row=$(jq -c --arg k "$(key "$name")" '[.files[]? | select("\(.dev):\(.ino)" == $k)] | .[0] // {}' <<<"$top")
	check "cgroup_filter.top.$name.cgroup" "${cg#"$root"}" "$(jq -r .writer.cgroup <<<"$row")"
	check "cgroup_filter.top.$name.cgroup_id" "$(stat -c %i "$cg")" "$(jq -r .writer.cgroup_id <<<"$row")"
	check "cgroup_filter.top.$name.comm" workload "$(jq -r .writer.comm <<<"$row")"
	check "cgroup_filter.top.$name.several" false "$(jq -r .writer.several_cgroups <<<"$row")"
	for f in app_bytes dirty_blocks submitted_blocks folios; do
		check "cgroup_filter.top.$name.$f" "$(jq -c ".$f" "$work/$name.exp")" \
			"$(jq -c ".stats.$f" <<<"$row")"
	done
done
# this kernel has cgroups (a v2 hierarchy is mounted): the tool, asking the
# kernel, must find the cgroup helpers and say so (probes: a load, no attach)
out=$("$IOMAPDIRTY" probes --no-trial 2>&1)
check_match cgroup_filter.attribution_text '^cgroup attribution: available$' "$out"
check cgroup_filter.attribution_json available \
	"$("$IOMAPDIRTY" probes --no-trial --json | jq -r .plan.cgroup_attribution)"
check cgroup_filter.helpers_in_facts \
	"helper get_current_cgroup_id 1,helper get_current_ancestor_cgroup_id 1" \
	"$("$IOMAPDIRTY" probes --no-trial --dump-facts | grep '^helper ' | paste -sd,)"
# a path that is no cgroup: a usage error before anything attaches
"$IOMAPDIRTY" hist --cgroup "/wt-attrib-no-such-cgroup.$$" -c 1 >/dev/null 2>"$work/bad.err"
check cgroup_filter.bad_path.exit 2 "$?"
check_match cgroup_filter.bad_path.says 'not a cgroup v2 directory' "$(cat "$work/bad.err")"
# --unit: a unit that is not running, a name systemd would refuse, a name
# two cgroups have, and --unit with --cgroup: usage errors, each said
"$IOMAPDIRTY" hist --unit "wt-attrib-no-such-unit-$$" -c 1 >/dev/null 2>"$work/unit.err"
check cgroup_filter.unit_missing.exit 2 "$?"
check_match cgroup_filter.unit_missing.says "no cgroup of unit wt-attrib-no-such-unit-$$\\.service" \
	"$(cat "$work/unit.err")"
"$IOMAPDIRTY" hist --unit "../../etc" -c 1 >/dev/null 2>"$work/unit.err"
check cgroup_filter.unit_bad_name.exit 2 "$?"
check_match cgroup_filter.unit_bad_name.says 'not a systemd unit name' "$(cat "$work/unit.err")"
mkdir -p "$dup1/d-$$.service" "$dup2/d-$$.service"
"$IOMAPDIRTY" hist --unit "d-$$" -c 1 >/dev/null 2>"$work/unit.err"
check cgroup_filter.unit_several.exit 2 "$?"
check_match cgroup_filter.unit_several.says "d-$$\\.service names several cgroups" "$(cat "$work/unit.err")"
"$IOMAPDIRTY" hist --cgroup "$cga" --unit "$unit_b" -c 1 >/dev/null 2>"$work/unit.err"
check cgroup_filter.unit_and_cgroup.exit 2 "$?"
check_match cgroup_filter.unit_and_cgroup.says '--cgroup was given already' "$(cat "$work/unit.err")"
cli_finish
