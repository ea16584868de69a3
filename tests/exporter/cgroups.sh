#!/usr/bin/env bash
# `iomapdirty exporter --collector.cgroup` (issue 25): three writers in
# three cgroups v2 made here, each with its own known workload
# (tests/e2e/workload scatter, its own figures as ground truth), scraped
# by a real Prometheus. With --collector.cgroup.top 2 the two cgroups
# that submitted most get series of their own, each exactly its writer's
# figures; the third is summed into cgroup="other", which then equals its
# writer's figures exactly (nothing else writes the filesystem), and every
# family's series add up to the filesystem's totals. One writer does not
# fsync: its folios are written back by a sync from outside every cgroup
# of the test, and still count for the cgroup that wrote them. Labels: a
# cgroup named like a systemd scope gives its unit, one named like a
# docker container (under a cgroup of ours) its container id; a name
# with a double quote and a backslash is escaped (promtool, and the
# label's value read back through Prometheus's API).
set -u
[[ -n ${CG_TRACE:-} ]] && PS4='+ $SECONDS ' && set -x
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
for tool in prometheus promtool curl jq; do
	if ! command -v "$tool" >/dev/null; then
		fail "exporter_cgroup.tools" "$tool missing (scripts/install-deps.sh installs it)"
		cli_finish
		exit 1
	fi
done
# the v2 hierarchy, from mountinfo (hybrid here, /sys/fs/cgroup on a v2-only host)
root=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") { print $5; exit } break } }' /proc/self/mountinfo)
if [[ -z $root ]]; then
	echo "SKIP exporter_cgroup: no cgroup v2 hierarchy on this host"
	cli_finish
	exit 0
fi
cid=$(printf 'a2%062x' $$)	# 64 hex digits: a container id's shape
cgplain=$root/attr2-plain.$$
cgscope=$root/'attr2-q"b\s.'$$.scope
cgparent=$root/attr2-ctr.$$
cgdocker=$cgparent/docker-$cid.scope
_cg_cleanup() {
	local p
	for p in "${KILL_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	sleep 0.2
	rmdir "$cgdocker" "$cgparent" "$cgscope" "$cgplain" 2>/dev/null
	_exporter_cleanup
}
trap _cg_cleanup EXIT

# bad input: refused before anything is attached
for bad in 0 101 x; do
	"$IOMAPDIRTY" exporter --collector.cgroup --collector.cgroup.top "$bad" >/dev/null \
		2>"$work/bad.err"
	check "exporter_cgroup.bad_top[$bad].exit" 2 "$?"
done
check_match exporter_cgroup.bad_top.message "collector.cgroup.top wants 1 to 100" \
	"$(cat "$work/bad.err")"

mnt=$(xfsloop_make 1024 512) || { fail exporter_cgroup.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
for f in plain scope docker; do
	"$WORKLOAD" prep "$mnt/$f" 1M >/dev/null || { fail exporter_cgroup.prep "$f"; cli_finish; exit 1; }
done
mkdir "$cgplain" "$cgscope" "$cgparent" "$cgdocker" ||
	{ fail exporter_cgroup.mkdir "cannot make the cgroups"; cli_finish; exit 1; }

port=$(free_port)
if ! exp_start cg "$IOMAPDIRTY" exporter --mount "$mnt" --listen "127.0.0.1:$port" \
	--collector.cgroup --collector.cgroup.top 2; then
	fail exporter_cgroup.ready "$(tail -3 "$work/cg.err")"
	cli_finish
	exit 1
fi
pass exporter_cgroup.ready
pport=$(free_port)
while [[ $pport == "$port" ]]; do pport=$(free_port); done
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: iomapdirty
    static_configs:
      - targets: ["127.0.0.1:$port"]
YML
prom_start "$pport"

# writer CGROUP OUT ARGS...: the workload run inside CGROUP, its figures in OUT
writer() {
	local cg=$1 out=$2
	shift 2
	bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' _ "$cg" "$WORKLOAD" "$@" >"$out"
}
# submitted bytes: docker > scope > plain, so that plain is the one folded
writer "$cgdocker" "$work/docker.exp" scatter "$mnt/docker" --count 40 --len 3000 --stride 12345
check exporter_cgroup.writer_docker.exit 0 "$?"
writer "$cgscope" "$work/scope.exp" scatter "$mnt/scope" --count 25 --len 2000 --stride 13000 \
	--no-fsync
check exporter_cgroup.writer_scope.exit 0 "$?"
writer "$cgplain" "$work/plain.exp" scatter "$mnt/plain" --count 10 --len 300 --stride 9000
check exporter_cgroup.writer_plain.exit 0 "$?"
sync	# the scope writer's folios, from this shell's cgroup

promql_json() {
	curl -sf --max-time 5 --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query"
}
promql() {
	promql_json "$1" | jq -r '.data.result | if length == 1 then .[0].value[1] else "results:\(length)" end'
}
# wait_promql QUERY EXPECTED: polls up to 30 s; prints the last answer
wait_promql() {
	local v i
	for i in $(seq 60); do
		v=$(promql "$1")
		[[ $v == "$2" ]] && break
		sleep 0.5
	done
	echo "$v"
}

fields="app_bytes dirty_blocks submitted_blocks submitted_bytes folios"
for name in docker scope; do
	eval "cg=\$cg$name"
	id=$(stat -c %i "$cg")
	for f in $fields; do
		want=$(jq ".$f" "$work/$name.exp")
		check "exporter_cgroup.$name.$f" "$want" \
			"$(wait_promql "iomapdirty_cgroup_${f}_total{cgroup_id=\"$id\"}" "$want")"
	done
	check "exporter_cgroup.$name.cgroup_label" "${cg#"$root"}" \
		"$(promql_json "iomapdirty_cgroup_app_bytes_total{cgroup_id=\"$id\"}" |
			jq -r '.data.result[0].metric.cgroup')"
done
check exporter_cgroup.scope.unit_label "${cgscope##*/}" \
	"$(promql_json "iomapdirty_cgroup_app_bytes_total{cgroup_id=\"$(stat -c %i "$cgscope")\"}" |
		jq -r '.data.result[0].metric.unit')"
check exporter_cgroup.docker.container_label "$cid" \
	"$(promql_json "iomapdirty_cgroup_app_bytes_total{cgroup_id=\"$(stat -c %i "$cgdocker")\"}" |
		jq -r '.data.result[0].metric.container')"
check exporter_cgroup.docker.unit_label "docker-$cid.scope" \
	"$(promql_json "iomapdirty_cgroup_app_bytes_total{cgroup_id=\"$(stat -c %i "$cgdocker")\"}" |
		jq -r '.data.result[0].metric.unit')"
# the third cgroup, beyond the bound: in "other", exactly its writer's figures
for f in $fields; do
	want=$(jq ".$f" "$work/plain.exp")
	check "exporter_cgroup.other.$f" "$want" \
		"$(wait_promql "iomapdirty_cgroup_${f}_total{cgroup=\"other\"}" "$want")"
	# the family's series add up to the filesystem's total
	check "exporter_cgroup.sum_is_total.$f" \
		"$(promql "iomapdirty_${f}_total{dev=\"$dev\"}")" \
		"$(promql "sum(iomapdirty_cgroup_${f}_total)")"
done
check exporter_cgroup.series_bounded 3 \
	"$(promql_json 'iomapdirty_cgroup_app_bytes_total' | jq '.data.result | length')"
check exporter_cgroup.plain_not_shown "results:0" \
	"$(promql "iomapdirty_cgroup_app_bytes_total{cgroup_id=\"$(stat -c %i "$cgplain")\"}")"
check exporter_cgroup.folded 1 "$(promql 'iomapdirty_cgroups_folded')"
check exporter_cgroup.no_losses 0 "$(promql 'sum(iomapdirty_lost_total)')"

scrape() { curl -sf --max-time 5 "http://127.0.0.1:$1/metrics"; }
scrape "$port" >"$work/scrape.txt"
promtool check metrics <"$work/scrape.txt" >"$work/promtool.out" 2>&1
check exporter_cgroup.promtool_check_metrics "0:" "$?:$(grep -v '^$' "$work/promtool.out")"
check_match exporter_cgroup.label_escaped 'cgroup="/attr2-q\\"b\\\\s\.[0-9]+\.scope"' \
	"$(grep '^iomapdirty_cgroup_app_bytes_total' "$work/scrape.txt")"
kill -TERM "$EXP_PID"
bounded_wait "$EXP_PID" 10
check exporter_cgroup.sigterm.exit 0 "$?"

# without --collector.cgroup: no per-cgroup series, and the map is one entry
port=$(free_port)
if exp_start plain "$IOMAPDIRTY" exporter --mount "$mnt" --listen "127.0.0.1:$port"; then
	"$WORKLOAD" scatter "$mnt/plain" --count 2 --len 100 --stride 9000 >/dev/null
	scrape "$port" >"$work/off.txt"
	check exporter_cgroup.off.no_series 0 "$(grep -c '^iomapdirty_cgroup' "$work/off.txt")"
	kill -TERM "$EXP_PID"
	bounded_wait "$EXP_PID" 10
	check exporter_cgroup.off.exit 0 "$?"
else
	fail exporter_cgroup.off.ready "$(tail -3 "$work/plain.err")"
fi
kill -TERM "$prom_pid" 2>/dev/null
wait "$prom_pid" 2>/dev/null
cli_finish
