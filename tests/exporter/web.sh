#!/usr/bin/env bash
# The exporter's HTTP server (issue 23; user/exporter/exporter_http.c) against
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

# cpu_ticks PID...: their CPU time (utime + stime, all threads), in ticks
cpu_ticks() {
	local p t=0
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
	done
	echo "$t"
}

# metric NAME_AND_LABELS FILE: the value of that exact series
metric() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# --- slow clients --------------------------------------------------------
# 300 connections from 30 loopback addresses (10 each), every one
# trickling a header byte each 0.5 s for up to 10 s: an idle timeout never
# fires. The limits: 8 per address (so 2 of each 10, 60 in all, are
# refused at once), a 5 s deadline for a whole request (the 240 others
# closed by the server at about 5 s). Scrapes from 127.0.0.1 meanwhile
# must answer within 1 s.
deadline=5
port=$(free_port)
if ! exp_start slow "$SERVE" "$port" $deadline 512 8; then
	fail web.slow.ready "$(tail -3 "$work/slow.err")"
	cli_finish
	exit 1
fi
slow_pid=$EXP_PID
python3 "$top/tests/exporter/slowclients.py" "$port" 30 10 0.5 10 2.5 >"$work/slow.json" &
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
echo "# server log: $(grep -c . "$work/slow.err") lines: $(tail -3 "$work/slow.err" | tr "\n" " ")"
check web.slow.client.opened 300 "$(jq .opened <<<"$slow")"
check web.slow.client.refused_at_once 60 "$(jq .closed_early <<<"$slow")"
# every held one closed by the server at the deadline, none left to the client's end
check web.slow.client.closed_at_deadline 240 "$(jq .closed_late <<<"$slow")"
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

# --- endpoints before "attach" --------------------------------------------
port=$(free_port)
if HTTP_SERVE_NOT_READY=1 exp_start notready "$SERVE" "$port" 10 512 16; then
	code() { curl -s --max-time 2 -o /dev/null -w '%{http_code}' "$@"; }
	check web.not_ready.healthy 200 "$(code "http://127.0.0.1:$port/-/healthy")"
	check web.not_ready.ready 503 "$(code "http://127.0.0.1:$port/-/ready")"
	check web.not_ready.metrics 503 "$(code "http://127.0.0.1:$port/metrics")"
	check web.not_ready.post 405 "$(code -X POST "http://127.0.0.1:$port/metrics")"
	check web.not_ready.unknown_path 404 "$(code "http://127.0.0.1:$port/nothing")"
	exp_stop_pid "$EXP_PID"
	check web.not_ready.stop "exit 0" "$STOPPED"
else
	fail web.not_ready.start "$(tail -2 "$work/notready.err")"
fi

# --- TLS and basic authentication (--web.config.file) ----------------------
# a certificate made here, a password hash from htpasswd (bcrypt, $2y$)
for tool in openssl htpasswd prometheus; do
	command -v "$tool" >/dev/null || { fail "web.tls.tools" "$tool missing"; cli_finish; exit 1; }
done
mkdir "$work/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-keyout "$work/tls/server.key" -out "$work/tls/server.crt" -subj /CN=localhost \
	-addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1
check web.tls.certificate_made 0 "$?"
hash=$(htpasswd -nbB prom 's3cret pass' | cut -d: -f2)
check_match web.tls.hash_is_bcrypt '^\$2y\$' "$hash"
cat >"$work/tls/web.yml" <<YML
# relative names: from this file's directory
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  prom: $hash
YML
port=$(free_port)
if exp_start tls "$SERVE" "$port" 10 512 16 "$work/tls/web.yml"; then
	url=https://127.0.0.1:$port
	tcurl() { curl -s --max-time 5 --cacert "$work/tls/server.crt" "$@"; }
	r=$(tcurl -u 'prom:s3cret pass' -w '%{http_code}' -o "$work/tls.metrics" "$url/metrics")
	check web.tls.metrics_with_password 200 "$r"
	check web.tls.metrics_body 1 "$(metric http_serve_body "$work/tls.metrics")"
	check web.tls.wrong_password 401 "$(tcurl -u 'prom:s3cret' -o /dev/null -w '%{http_code}' "$url/metrics")"
	check web.tls.unknown_user 401 "$(tcurl -u 'alice:s3cret pass' -o /dev/null -w '%{http_code}' "$url/metrics")"
	check web.tls.no_credentials 401 "$(tcurl -o /dev/null -w '%{http_code}' "$url/metrics")"
	check_match web.tls.challenge 'WWW-Authenticate: Basic realm="iomapdirty"' \
		"$(tcurl -D - -o /dev/null "$url/metrics" | tr -d '\r')"
	check web.tls.healthy 200 "$(tcurl -u 'prom:s3cret pass' -o /dev/null -w '%{http_code}' "$url/-/healthy")"
	check web.tls.ready 200 "$(tcurl -u 'prom:s3cret pass' -o /dev/null -w '%{http_code}' "$url/-/ready")"
	# plain HTTP to the TLS port: no HTTP answer at all
	r=$(curl -s --max-time 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
	check web.tls.plain_http_refused 000 "$r"
	# a client that does not trust the certificate
	curl -s --max-time 3 -u 'prom:s3cret pass' -o /dev/null "$url/metrics"
	check web.tls.untrusted_certificate_refused 60 "$?"
	tcurl -u 'prom:s3cret pass' -o "$work/tls.after" "$url/metrics"
	check web.tls.counted_401 4 \
		"$(metric 'iomapdirty_http_responses_total{code="401"}' "$work/tls.after")"

	# a real Prometheus scraping it over TLS with the password
	pport=$(free_port)
	printf '%s' 's3cret pass' >"$work/tls/password"
	cat >"$work/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tls
    scheme: https
    tls_config:
      ca_file: $work/tls/server.crt
    basic_auth:
      username: prom
      password_file: $work/tls/password
    static_configs:
      - targets: ["127.0.0.1:$port"]
YML
	prom_start "$pport"
	v=
	for _ in $(seq 100); do
		v=$(curl -s --max-time 1 --data-urlencode 'query=http_serve_body{job="tls"} + up{job="tls"}' \
			"http://127.0.0.1:$pport/api/v1/query" | jq -r '.data.result[0].value[1] // empty')
		[[ $v == 2 ]] && break
		sleep 0.2
	done
	check web.tls.prometheus_scrapes_over_tls_with_auth 2 "$v"
	kill -TERM "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	exp_stop_pid "$EXP_PID"
	check web.tls.stop "exit 0" "$STOPPED"
else
	fail web.tls.start "$(tail -2 "$work/tls.err")"
fi

# --- least privilege: the server in a child, as nobody, no capability ------
# (exporter_privsep.c; the harness's parent stands for the exporter's
# privileged part and renders the body)
port=$(free_port)
if HTTP_SERVE_PRIVSEP=1 exp_start privsep "$SERVE" "$port" 10 512 16; then
	parent=$EXP_PID
	child=$(sed -n 's/^http_serve: child (pid \([0-9]*\))$/\1/p' "$work/privsep.err")
	st=/proc/$child/status
	check web.privsep.child_of_parent "$parent" "$(awk '/^PPid:/ { print $2 }' "$st" 2>/dev/null)"
	check web.privsep.child_uid_not_0 "65534 65534 65534 65534" \
		"$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "$st")"
	check web.privsep.child_no_groups "" "$(awk '/^Groups:/ { $1 = ""; print }' "$st" | tr -d ' ')"
	check web.privsep.child_no_capability "0000000000000000 0000000000000000" \
		"$(awk '/^Cap(Eff|Prm):/ { printf "%s ", $2 }' "$st" | sed 's/ $//')"
	check web.privsep.child_no_new_privs 1 "$(awk '/^NoNewPrivs:/ { print $2 }' "$st")"
	# no thread of the child has a capability either
	check web.privsep.child_threads_no_capability "0000000000000000" \
		"$(awk '/^CapEff:/ { print $2 }' /proc/"$child"/task/*/status | sort -u | tr '\n' ' ' | tr -d ' ')"
	check web.privsep.parent_not_listening 0 \
		"$(ss -Hltnp "sport = :$port" | grep -c "pid=$parent,")"
	curl -s --max-time 2 -o "$work/privsep.metrics" "http://127.0.0.1:$port/metrics"
	check web.privsep.body_from_parent 1 "$(metric http_serve_body "$work/privsep.metrics")"
	check web.privsep.ready 200 "$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' \
		"http://127.0.0.1:$port/-/ready")"
	# idle, neither process spins: CPU time (utime + stime, clock ticks)
	# over 2 s of no request, the kernel's count. A sweeper that waited on
	# a CLOCK_REALTIME condition with a CLOCK_MONOTONIC deadline never
	# slept: the child took a whole core (200 ticks in 2 s) for ever.
	hz=$(getconf CLK_TCK)
	t0=$(cpu_ticks "$child" "$parent")
	sleep 2
	t1=$(cpu_ticks "$child" "$parent")
	check web.privsep.idle_cpu_below_5pct yes \
		"$( (( t1 - t0 < hz / 10 )) && echo yes || echo "no: $((t1 - t0)) ticks in 2 s")"
	exp_stop_pid "$parent"
	check web.privsep.stop "exit 0" "$STOPPED"
	check web.privsep.child_gone_with_parent no "$(kill -0 "$child" 2>/dev/null && echo yes || echo no)"
	check web.privsep.port_closed 0 "$(ss -Hltn "sport = :$port" | grep -c .)"
else
	fail web.privsep.start "$(tail -2 "$work/privsep.err")"
fi
# the privileged part killed outright: the child ends too (parent-death signal)
port=$(free_port)
if HTTP_SERVE_PRIVSEP=1 exp_start privkill "$SERVE" "$port" 10 512 16; then
	child=$(sed -n 's/^http_serve: child (pid \([0-9]*\))$/\1/p' "$work/privkill.err")
	kill -KILL "$EXP_PID"
	for _ in $(seq 20); do kill -0 "$child" 2>/dev/null || break; sleep 0.1; done
	check web.privsep.child_ends_with_killed_parent no \
		"$(kill -0 "$child" 2>/dev/null && echo yes || echo no)"
else
	fail web.privsep.kill_start "$(tail -2 "$work/privkill.err")"
fi

# the exporter refuses what it does not support, naming it, before attaching
printf 'tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n' \
	>"$work/bad.yml"
"$IOMAPDIRTY" exporter --web.config.file "$work/bad.yml" >/dev/null 2>"$work/bad.err"
check web.config.unsupported_key.exit 2 "$?"
check_match web.config.unsupported_key.message \
	"line 4: tls_server_config.min_version is not supported" "$(cat "$work/bad.err")"
printf 'tls_server_config:\n  cert_file: nothere.crt\n  key_file: nothere.key\n' >"$work/nocert.yml"
"$IOMAPDIRTY" exporter --web.config.file "$work/nocert.yml" >/dev/null 2>"$work/nocert.err"
check web.config.missing_certificate.exit 2 "$?"
check_match web.config.missing_certificate.message "nothere.crt: No such file" \
	"$(cat "$work/nocert.err")"

cli_finish
