#!/usr/bin/env bash
# The exporter's HTTP server (issue 23; user/exporter_http.c) against
# slow and hostile clients, its endpoints, TLS and basic auth. It runs
# alone (.output/tests/http_serve: the server with a fixed /metrics body,
# no BPF, so no instance lock); tests/exporter/run.sh has the whole
# exporter. Ground truth is the clients' own view: what this script (and
# slowclients.py) sent, which connections the server closed, when.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
top=$EXPORTER_TOP
for tool in curl python3; do
	command -v "$tool" >/dev/null || { fail "web.tools" "$tool missing"; cli_finish; exit 1; }
done
SERVE=${HTTP_SERVE:-$top/.output/tests/http_serve}
[[ -x $SERVE ]] || { fail web.fixture "$SERVE not built (make all)"; cli_finish; exit 1; }

# exp_stop_pid PID: SIGTERM, at most 5 s; STOPPED="exit N" or "killed"
exp_stop_pid() {
	kill -TERM "$1" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		STOPPED=killed
	else
		wait "$1"
		STOPPED="exit $?"
	fi
}

# metric NAME_AND_LABELS FILE: the value of that exact series
metric() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# --- slow clients --------------------------------------------------------
# 300 connections from 30 loopback addresses (10 each), every one
# trickling a header byte each 0.5 s for up to 9 s: an idle timeout never
# fires. The limits: 8 per address (so 2 of each 10, 60 in all, are
# refused at once), a 3 s deadline for a whole request (the 240 others
# closed by the server at about 3 s). Scrapes from 127.0.0.1 meanwhile
# must answer within 1 s.
deadline=3
port=$(free_port)
if ! exp_start slow "$SERVE" "$port" $deadline 512 8; then
	fail web.slow.ready "$(tail -3 "$work/slow.err")"
	cli_finish
	exit 1
fi
slow_pid=$EXP_PID
python3 "$top/tests/exporter/slowclients.py" "$port" 30 10 0.5 9 >"$work/slow.json" &
slow_client=$!
KILL_PIDS+=("$slow_client")
for _ in $(seq 100); do grep -q connected "$work/slow.json" && break; sleep 0.1; done
check_match web.slow.client.connected '"connected": 300' "$(head -1 "$work/slow.json")"
sleep 0.3	# the server has accepted them all; none is past the deadline yet
ok=0 slowest=0
for i in 1 2 3 4 5; do
	r=$(curl -s --interface 127.0.0.1 --max-time 1 -o "$work/during.$i" \
		-w '%{http_code} %{time_total}' "http://127.0.0.1:$port/metrics")
	[[ ${r%% *} == 200 ]] && ok=$((ok + 1))
	slowest=$(awk -v a="$slowest" -v b="${r#* }" 'BEGIN { print (b > a) ? b : a }')
	sleep 0.2
done
check web.slow.scrapes_during_answered 5 "$ok"
check web.slow.scrapes_during_within_1s yes "$(awk -v s="$slowest" 'BEGIN { print (s < 1) ? "yes" : "no" }')"
# while they are held: 240 slow ones and this scrape
check web.slow.connections_open_during 241 \
	"$(metric iomapdirty_http_connections_open "$work/during.1")"
wait "$slow_client"
slow=$(tail -1 "$work/slow.json")
echo "# slow clients: $slow"
check web.slow.client.opened 300 "$(jq .opened <<<"$slow")"
check web.slow.client.refused_at_once 60 "$(jq .closed_within_1s <<<"$slow")"
# every held one closed by the server at the deadline, none left to the client's end
check web.slow.client.closed_at_deadline 240 "$(jq .closed_after_1s <<<"$slow")"
check web.slow.client.none_left_open 0 "$(jq .still_open <<<"$slow")"
check web.slow.client.closed_not_before_deadline yes \
	"$(jq --argjson d $deadline '.earliest_late_close_s >= $d - 0.2' <<<"$slow" |
		sed 's/true/yes/')"
check web.slow.client.closed_by_deadline_plus_1s yes \
	"$(jq --argjson d $deadline '.latest_close_s <= $d + 1' <<<"$slow" | sed 's/true/yes/')"
curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >"$work/after.txt"
check web.slow.counted.per_address 60 \
	"$(metric 'iomapdirty_http_connections_rejected_total{reason="per_address_limit"}' "$work/after.txt")"
check web.slow.counted.connection_limit 0 \
	"$(metric 'iomapdirty_http_connections_rejected_total{reason="connection_limit"}' "$work/after.txt")"
check web.slow.counted.deadline 240 \
	"$(metric iomapdirty_http_request_deadline_exceeded_total "$work/after.txt")"
check web.slow.counted.open_after 1 "$(metric iomapdirty_http_connections_open "$work/after.txt")"
check web.slow.counted.max_per_address 8 \
	"$(metric iomapdirty_http_connections_per_address_max "$work/after.txt")"
# the 5 scrapes during, the one above (this one counts itself), the 240
check web.slow.counted.accepted 246 \
	"$(metric iomapdirty_http_connections_accepted_total "$work/after.txt")"
exp_stop_pid "$slow_pid"
check web.slow.stop "exit 0" "$STOPPED"

cli_finish
