#!/usr/bin/env bash
# `iomapdirty exporter` against a real Prometheus server (Debian's
# prometheus), started here on loopback with its own data directory and a
# 1 s scrape interval: after scripted writes with known offsets on a
# loop-mounted 1 KiB-block XFS, PromQL through Prometheus's HTTP API must
# return the exact figures computed below from those offsets. Then faults:
# bad listen addresses, a taken port, scrapers that never read, 50 scrapes
# at once, SIGHUP, SIGTERM mid-scrape; after each stop the kernel must hold
# none of the exporter's BPF programs or links (bpftool, by owner pid).
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
top=$EXPORTER_TOP
for tool in prometheus promtool curl jq bpftool; do
	if ! command -v "$tool" >/dev/null; then
		fail "exporter.tools" "$tool missing (scripts/install-deps.sh installs it)"
		cli_finish
		exit 1
	fi
done

# exp_stop SIGNAL TIMEOUT_S: signal, wait at most TIMEOUT_S; sets EXP_RC
# (255 if it had to be killed).
exp_stop() {
	local i
	kill -"$1" "$EXP_PID" 2>/dev/null
	for i in $(seq $(($2 * 10))); do
		kill -0 "$EXP_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$EXP_PID" 2>/dev/null; then
		kill -KILL "$EXP_PID"
		wait "$EXP_PID" 2>/dev/null
		EXP_RC=255
	else
		wait "$EXP_PID"
		EXP_RC=$?
	fi
}

# BPF programs and links process $1 holds, as the kernel lists them in its
# fds' fdinfo ("link_id:", "prog_id:"; this bpftool has no pid column):
# "link:ID prog:ID ...".
bpf_owned() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		*bpf-link*|*bpf_link*)
			sed -n 's/^link_id:[[:space:]]*/link:/p' "/proc/$1/fdinfo/${fd##*/}" ;;
		*bpf-prog*|*bpf_prog*)
			sed -n 's/^prog_id:[[:space:]]*/prog:/p' "/proc/$1/fdinfo/${fd##*/}" ;;
		esac
	done | sort -u | tr '\n' ' '
}

# Of those objects, the ones the kernel still has 2 s after the process
# ended, with their names. Not at once: a raw_tp link puts its program
# only after an RCU grace period (bpf_link_free(), dealloc_deferred), so
# the program can outlive the process by milliseconds on a loaded host
# (seen once: one program still listed right after exit); a leak stays.
bpf_alive() {
	local x left i
	for i in $(seq 20); do
		left=
		for x in $1; do
			bpftool "${x%%:*}" show id "${x#*:}" >/dev/null 2>&1 && left+="$x "
		done
		[[ -z $left ]] && break
		sleep 0.1
	done
	for x in $left; do
		printf '%s(%s) ' "$x" "$(bpftool -j "${x%%:*}" show id "${x#*:}" 2>/dev/null |
			jq -r '.name // .type // "gone"')"
	done
	echo
}

scrape() { curl -sf --max-time 5 "http://127.0.0.1:$1/metrics"; }

mnt=$(xfsloop_make 1024 512) || { fail exporter.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null
"$WORKLOAD" prep "$mnt/g" 1048576 >/dev/null

# --- bad input: each refused before anything is attached -----------------
for bad in 127.0.0.1 127.0.0.1:0 127.0.0.1:65536 300.1.2.3:9000 '[::1:9000' \
	   example.invalid:9000 :9000 '127.0.0.1:80x'; do
	"$IOMAPDIRTY" exporter --listen "$bad" --mount "$mnt" >/dev/null 2>"$work/bad.err"
	rc=$?
	check "exporter.bad_listen[$bad].exit" 2 "$rc"
done
check_match exporter.bad_listen.message "--listen wants ADDR:PORT" "$(cat "$work/bad.err")"
"$IOMAPDIRTY" exporter --listen 192.0.2.1:9000 --mount "$mnt" >/dev/null 2>"$work/na.err"
check exporter.listen_address_not_here.exit 2 "$?"
check_match exporter.listen_address_not_here.message "Cannot assign requested address" \
	"$(cat "$work/na.err")"
"$IOMAPDIRTY" exporter --cache -1 >/dev/null 2>&1
check exporter.bad_cache.exit 2 "$?"
"$IOMAPDIRTY" exporter --top-files 101 >/dev/null 2>&1
check exporter.bad_top_files.exit 2 "$?"
"$IOMAPDIRTY" exporter --accounting sometimes >/dev/null 2>"$work/acc.err"
check exporter.accounting_unknown.exit 2 "$?"
check_match exporter.accounting_unknown.message "levels are: full, always-on" \
	"$(cat "$work/acc.err")"
# the default level keeps no page records: whose data a folio holds is unknown
"$IOMAPDIRTY" exporter --pid 1 --mount "$mnt" >/dev/null 2>"$work/accpid.err"
check exporter.always_on_pid_refused.exit 2 "$?"
check_match exporter.always_on_pid_refused.message "needs --accounting full" \
	"$(cat "$work/accpid.err")"
port=$(free_port)
"$IOMAPDIRTY" exporter --listen "127.0.0.1:$port" --mount /proc >/dev/null 2>"$work/proc.err"
check exporter.not_iomap_target.exit 5 "$?"
check_match exporter.not_iomap_target.reason "does not use iomap buffered writeback" \
	"$(cat "$work/proc.err")"
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$IOMAPDIRTY" exporter --listen "127.0.0.1:$port" --mount "$mnt" \
		>/dev/null 2>"$work/priv.err"
	check exporter.unprivileged.exit 4 "$?"
	check_match exporter.unprivileged.reason "needs root" "$(cat "$work/priv.err")"
else
	echo "SKIP exporter.unprivileged: no setpriv"
fi

# --- the exporter and a Prometheus server scraping it -------------------
port=$(free_port)
# 50 scrapes at once from 127.0.0.1 below: over the default per-address
# limit (16; web.sh tests the limits)
if ! exp_start main "$IOMAPDIRTY" exporter --mount "$mnt" --listen "127.0.0.1:$port" \
	--web.max-connections-per-address 64; then
	fail exporter.ready "$(tail -3 "$work/main.err")"
	cli_finish
	exit 1
fi
main_pid=$EXP_PID
pass exporter.ready
owned=$(bpf_owned "$main_pid")
check_match exporter.bpf_links_while_running 'link:[0-9]+' "$owned"
check_match exporter.bpf_progs_while_running 'prog:[0-9]+' "$owned"
# the programs' own cost (live/engine.h, engine_prog_stats()): a series per
# program the exporter holds, by name (the first 15 characters: the kernel
# keeps no more, bpftool may show more from the program's BTF)
want=$(for x in $owned; do
	[[ $x == prog:* ]] && bpftool -j prog show id "${x#prog:}" 2>/dev/null | jq -r .name
done | cut -c1-15 | sort)
series='s/^iomapdirty_bpf_program_recursion_misses_total{program="\([^"]*\)"} [0-9]*$/\1/p'
check exporter.program_stats_every_program "$want" \
	"$(scrape "$port" | sed -n "$series" | cut -c1-15 | sort)"
# the process that serves HTTP: a child, not uid 0, no capability (none
# that reads any file: CAP_DAC_READ_SEARCH, bit 2; not CAP_SYS_ADMIN)
web_pid=$(sed -n 's/.*ready (pid [0-9]*): serving .* from pid \([0-9]*\) as uid.*/\1/p' \
	"$work/main.err")
check exporter.web_child_of_exporter "$main_pid" \
	"$(awk '/^PPid:/ { print $2 }' "/proc/$web_pid/status" 2>/dev/null)"
check_match exporter.web_child_not_uid_0 '^Uid:	[1-9][0-9]*	[1-9][0-9]*	[1-9][0-9]*	[1-9][0-9]*$' \
	"$(grep '^Uid:' "/proc/$web_pid/status" 2>/dev/null)"
check exporter.web_child_no_capability "0000000000000000" \
	"$(awk '/^CapEff:/ { print $2 }' /proc/"$web_pid"/task/*/status 2>/dev/null | sort -u | tr -d '\n')"
check exporter.web_child_holds_no_bpf "" "$(bpf_owned "$web_pid" | tr -d ' ')"
check_match exporter.log_names_accounting_level 'info: accounting level "always-on"' \
	"$(cat "$work/main.err")"

pport=$(free_port)
while [[ $pport == "$port" ]]; do pport=$(free_port); done
cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $work/rules/*.yml
scrape_configs:
  - job_name: iomapdirty
    static_configs:
      - targets: ["127.0.0.1:$port"]
        labels:
          host: testhost
YML
mkdir -p "$work/rules"
for f in "$top"/deploy/prometheus/*.yml; do
	[[ -f $f && $f != *_test.yml ]] && cp "$f" "$work/rules/"
done
prom_start "$pport"
ready=no
for i in $(seq 300); do
	curl -sf --max-time 1 "http://127.0.0.1:$pport/-/ready" >/dev/null && { ready=yes; break; }
	kill -0 "$prom_pid" 2>/dev/null || break
	sleep 0.1
done
check exporter.prometheus_ready yes "$ready"
[[ $ready == yes ]] || echo "# prometheus: $(tail -3 "$work/prometheus.log")"

promql() {
	curl -sf --max-time 5 --data-urlencode "query=$1" \
		"http://127.0.0.1:$pport/api/v1/query" |
		jq -r '.data.result | if length == 1 then .[0].value[1] else "results:\(length)" end'
}
# wait_promql QUERY EXPECTED: polls up to 20 s; prints the last answer
wait_promql() {
	local v i
	for i in $(seq 40); do
		v=$(promql "$1")
		[[ $v == "$2" ]] && break
		sleep 0.5
	done
	echo "$v"
}

sel="dev=\"$dev\",job=\"iomapdirty\",host=\"testhost\""
# a first write (100 bytes, one block, one folio) so that the filesystem's
# series exist before the measured writes: rates then see all of those
"$WORKLOAD" scatter "$mnt/g" --count 1 --len 100 --stride 4096 >/dev/null
check exporter.promql.first_write 100 \
	"$(wait_promql "iomapdirty_app_bytes_total{$sel}" 100)"

# the writes: 40 of 3000 bytes every 12345 bytes, fsync'd at the end. No
# two share a block or a page (the gap, 9345 bytes, is over a page), so
# each write dirties its own blocks and folios (order-0: one per page).
count=40 len=3000 stride=12345 bs=1024 ps=4096
want_app=$((count * len)) want_blocks=0 want_folios=0
for ((i = 0; i < count; i++)); do
	o=$((i * stride)) e=$((i * stride + len - 1))
	want_blocks=$((want_blocks + e / bs - o / bs + 1))
	want_folios=$((want_folios + e / ps - o / ps + 1))
done
want_sub=$((want_blocks * bs))
# what Prometheus sees: the measured writes plus the first one
tot_app=$((want_app + 100)) tot_blocks=$((want_blocks + 1))
tot_sub=$((want_sub + bs)) tot_folios=$((want_folios + 1))
exp=$("$WORKLOAD" scatter "$mnt/f" --count $count --len $len --stride $stride)
# the workload's own model must agree with the arithmetic above
check exporter.model.app_bytes "$want_app" "$(jq .app_bytes <<<"$exp")"
check exporter.model.dirty_blocks "$want_blocks" "$(jq .dirty_blocks <<<"$exp")"
check exporter.model.folios "$want_folios" "$(jq .folios <<<"$exp")"

check exporter.promql.app_bytes "$tot_app" \
	"$(wait_promql "iomapdirty_app_bytes_total{$sel}" "$tot_app")"
check exporter.promql.dirty_blocks "$tot_blocks" \
	"$(wait_promql "iomapdirty_dirty_blocks_total{$sel}" "$tot_blocks")"
check exporter.promql.submitted_bytes "$tot_sub" \
	"$(wait_promql "iomapdirty_submitted_bytes_total{$sel}" "$tot_sub")"
check exporter.promql.folios_written_back "$tot_folios" \
	"$(wait_promql "iomapdirty_folios_total{$sel}" "$tot_folios")"
check exporter.promql.hist_count_is_folios "$tot_folios" \
	"$(wait_promql 'iomapdirty_dirty_blocks_per_folio_count{job="iomapdirty"}' "$tot_folios")"
check exporter.promql.hist_sum_is_dirty_blocks "$tot_blocks" \
	"$(wait_promql 'iomapdirty_dirty_blocks_per_folio_sum{job="iomapdirty"}' "$tot_blocks")"
# the shipped rules, loaded and evaluated on these series: the measured
# writes' ratios (the rates' window starts after the first write)
if compgen -G "$work/rules/*.yml" >/dev/null; then
	# every rule the shipped files define (python3-yaml reads them, not the tool)
	nrules=$(python3 -c 'import sys, yaml
print(sum(len(g.get("rules") or []) for f in sys.argv[1:]
	  for g in (yaml.safe_load(open(f)) or {}).get("groups") or []))' "$work"/rules/*.yml 2>&1)
	check exporter.rules_loaded_healthy "$nrules" "$(curl -sf --max-time 5 \
		"http://127.0.0.1:$pport/api/v1/rules" |
		jq '[.data.groups[].rules[] | select(.health == "ok")] | length')"
	check exporter.recording.folio_amplification 1 \
		"$(wait_promql "iomapdirty:folio_amplification:ratio_rate5m{$sel}" 1)"
	# rate() extrapolates each series to the window's edges, and not
	# below 0: near a series' start (here: 100 B, then 1024 B) the two
	# series of a ratio are stretched differently, by up to a few tenths
	# of a percent here. Exact values are checked on the counters above;
	# this checks that the rule divides the right series, within 1%.
	# block rounding needs the full level's page records: the exporter's
	# default (always-on) has no app_dirty_bytes, so the rule gives nothing
	check exporter.recording.block_rounding_absent "results:0" \
		"$(promql "iomapdirty:block_rounding:ratio_rate5m{$sel}")"
	check exporter.alert_not_firing "results:0" \
		"$(promql 'ALERTS{alertname="IomapdirtyCleanBlocksWritten"}')"
else
	fail exporter.rules "no rule files in deploy/prometheus"
fi
# the Grafana dashboard's queries parse and run (its $instance as ".*")
dash=$top/deploy/grafana/iomapdirty-dashboard.json
bad=$(jq -r '.panels[].targets[].expr' "$dash" | sed 's/\$instance/.*/g' | while read -r q; do
	st=$(curl -s --max-time 5 --data-urlencode "query=$q" \
		"http://127.0.0.1:$pport/api/v1/query" | jq -r .status)
	[[ $st == success ]] || printf '%s; ' "$q"
done)
check exporter.grafana_queries_valid "" "$bad"
check exporter.grafana_amplification_panel_value 1 "$(promql "$(jq -r \
	'.panels[] | select(.title | startswith("Folio amplification (submitted")) | .targets[0].expr' \
	"$dash" | sed "s/instance=~\"\\\$instance\"/dev=\"$dev\"/")")"
check exporter.promql.violations 0 "$(promql "iomapdirty_violation_blocks_total{$sel}")"
check exporter.promql.no_losses 0 "$(promql 'sum(iomapdirty_lost_total{job="iomapdirty"})')"
check exporter.promql.mountpoint_label "$mnt" \
	"$(curl -sf --max-time 5 --data-urlencode "query=iomapdirty_app_bytes_total{$sel}" \
		"http://127.0.0.1:$pport/api/v1/query" | jq -r '.data.result[0].metric.mountpoint')"
check exporter.promql.accounting_level_always_on 1 \
	"$(promql 'iomapdirty_info{accounting_level="always-on"}')"
# not measured at that level: no series at all, never a 0
check exporter.promql.app_dirty_bytes_absent "results:0" \
	"$(promql "iomapdirty_app_dirty_bytes_total{$sel}")"
check exporter.promql.scrape_up 1 "$(promql 'up{job="iomapdirty"}')"

scrape "$port" >"$work/scrape.txt"
check exporter.scrape_ok 0 "$?"
promtool check metrics <"$work/scrape.txt" >"$work/promtool.out" 2>&1
check exporter.promtool_check_metrics "0:" "$?:$(grep -v '^$' "$work/promtool.out")"
# histograms: cumulative buckets never decrease and end in _count
bad=$(awk '/_bucket\{/ { n = $1; sub(/_bucket.*/, "", n); v = $NF + 0;
		if (n == last && v < prev) print n; last = n; prev = v }
	   /_count / { n = $1; sub(/_count$/, "", n); if (n == last && $NF + 0 != prev) print n }' \
	"$work/scrape.txt" | sort -u | tr '\n' ' ')
check exporter.histograms_cumulative "" "$bad"
check exporter.no_per_file_series_by_default 0 "$(grep -c '^iomapdirty_file_' "$work/scrape.txt")"
# the BPF programs' own statistics: the sysctl as the kernel has it (never
# set by the exporter); run time and runs only while it is 1; recursion
# misses always, one series per loaded program
en=$(cat /proc/sys/kernel/bpf_stats_enabled)
check exporter.bpf_stats_enabled_as_kernel "$en" \
	"$(awk '$1 == "iomapdirty_bpf_stats_enabled" { print $2 }' "$work/scrape.txt")"
check exporter.bpf_stats_sysctl_untouched "$en" "$(cat /proc/sys/kernel/bpf_stats_enabled)"
check_match exporter.bpf_recursion_misses_series \
	'^iomapdirty_bpf_program_recursion_misses_total\{program="[a-z0-9_]+"\} [0-9]+$' \
	"$(grep '^iomapdirty_bpf_program_recursion_misses_total' "$work/scrape.txt" | head -1)"
check exporter.bpf_run_series_only_when_enabled \
	"$([[ $en == 1 ]] && echo present || echo 0)" \
	"$(n=$(grep -c '^iomapdirty_bpf_program_runs_total' "$work/scrape.txt");
	   [[ $en == 1 && $n -gt 0 ]] && echo present || echo "$n")"
check exporter.healthy 200 "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' \
	"http://127.0.0.1:$port/-/healthy")"
check exporter.ready_once_attached 200 "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' \
	"http://127.0.0.1:$port/-/ready")"

# --- faults against the running exporter --------------------------------
# the port is taken: a second exporter (--shared: past the instance lock)
"$IOMAPDIRTY" exporter --shared --listen "127.0.0.1:$port" --mount "$mnt" \
	>/dev/null 2>"$work/inuse.err"
check exporter.port_in_use.exit 7 "$?"
check_match exporter.port_in_use.message "Address already in use" "$(cat "$work/inuse.err")"
# the instance lock: a second exporter without --shared on another port
"$IOMAPDIRTY" exporter --listen "127.0.0.1:$(free_port)" --mount "$mnt" \
	>/dev/null 2>"$work/lock.err"
check exporter.second_instance.exit 7 "$?"

# scrapers that connect and never read: one sends nothing, four send a
# request and never read the answer. Others are still served at once.
exec 5<>"/dev/tcp/127.0.0.1/$port"
for fd in 6 7 8 9; do
	eval "exec $fd<>/dev/tcp/127.0.0.1/$port"
	printf 'GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n' >&"$fd"
done
t0=$(date +%s%N)
scrape "$port" >/dev/null
rc=$?
t1=$(date +%s%N)
check exporter.served_beside_stuck_scrapers 0 "$rc"
check_match exporter.served_beside_stuck_scrapers.fast '^[0-9]$' "$(((t1 - t0) / 1000000000))"

# 50 scrapes at once: every one a whole, valid answer
for i in $(seq 50); do
	curl -s --max-time 20 -o "$work/par.$i" -w '%{http_code}\n' \
		"http://127.0.0.1:$port/metrics" >"$work/par.$i.code" &
done
wait_par=0
for i in $(seq 200); do
	[[ $(cat "$work"/par.*.code 2>/dev/null | grep -c .) -ge 50 ]] && break
	sleep 0.1
done
ok=0
for i in $(seq 50); do
	[[ $(cat "$work/par.$i.code" 2>/dev/null) == 200 ]] &&
		tail -1 "$work/par.$i" | grep -q '^iomapdirty_scrape_duration_seconds ' &&
		grep -q "^iomapdirty_app_bytes_total{dev=\"$dev\"" "$work/par.$i" && ok=$((ok + 1))
done
check exporter.parallel_50_scrapes 50 "$ok"

# the stuck connections are closed by the server after its idle timeout (10 s)
established() { ss -Htn state established "( sport = :$port )" | grep -c .; }
for i in $(seq 150); do
	[[ $(established) == 0 ]] && break
	sleep 0.1
done
check exporter.stuck_scrapers_timed_out 0 "$(established)"
exec 5>&- 6>&- 7>&- 8>&- 9>&-

# SIGHUP: logged, nothing else
kill -HUP "$main_pid"
sleep 0.5
check exporter.sighup_alive yes "$(kill -0 "$main_pid" 2>/dev/null && echo yes || echo no)"
scrape "$port" >/dev/null
check exporter.sighup_still_serving 0 "$?"
check_match exporter.sighup_logged 'SIGHUP from pid [0-9]+: nothing to reload' \
	"$(cat "$work/main.err")"

# the metrics the exporter served are in Prometheus's own view too
check exporter.promql.scrapes_counted yes \
	"$(v=$(promql 'iomapdirty_exporter_scrapes_total{job="iomapdirty"}'); [[ $v =~ ^[0-9]+$ && $v -gt 50 ]] && echo yes || echo "no:$v")"

# SIGTERM in the middle of scrapes (a stuck reader among them): exit 0, fast
exec 5<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n' >&5
scrapers=()
for i in $(seq 20); do scrape "$port" >/dev/null 2>&1 & scrapers+=($!); done
EXP_PID=$main_pid
exp_stop TERM 5
check exporter.sigterm_mid_scrape.exit 0 "$EXP_RC"
exec 5>&-
wait "${scrapers[@]}" 2>/dev/null
check_match exporter.sigterm_logged 'SIGTERM from pid [0-9]+: stopping' "$(cat "$work/main.err")"
check exporter.sigterm.no_bpf_left "" "$(bpf_alive "$owned" | tr -d ' ')"
check exporter.sigterm.port_closed 0 "$(ss -Hltn "sport = :$port" | grep -c .)"

# SIGINT: the same clean stop
# ... under a stand-in for systemd's notify socket (Type=notify): READY=1
# with the exporter's pid once it is attached, STOPPING=1 at the stop
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(60)
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        d = s.recv(4096); f.write(d.replace(b"\n", b" ") + b"\n")
        if d.startswith(b"STOPPING"): break' "$work/notify.sock" "$work/notify.log" &
KILL_PIDS+=($!)
for _ in $(seq 50); do [[ -S $work/notify.sock ]] && break; sleep 0.1; done
if NOTIFY_SOCKET=$work/notify.sock exp_start int "$IOMAPDIRTY" exporter --mount "$mnt" \
	--listen "127.0.0.1:$(free_port)"; then
	owned=$(bpf_owned "$EXP_PID")
	check_match exporter.sigint.bpf_while_running 'link:[0-9]+' "$owned"
	for _ in $(seq 20); do grep -qs READY "$work/notify.log" && break; sleep 0.1; done
	check_match exporter.sd_notify_ready "^READY=1 STATUS=serving .* MAINPID=$EXP_PID\$" \
		"$(head -1 "$work/notify.log" 2>/dev/null)"
	exp_stop INT 5
	check exporter.sd_notify_stopping "STOPPING=1" "$(sed -n 2p "$work/notify.log")"
	check exporter.sigint.exit 0 "$EXP_RC"
	check exporter.sigint.no_bpf_left "" "$(bpf_alive "$owned" | tr -d ' ')"
else
	fail exporter.sigint.ready "$(tail -2 "$work/int.err")"
fi

kill -TERM "$prom_pid" 2>/dev/null
wait "$prom_pid" 2>/dev/null
cli_finish
