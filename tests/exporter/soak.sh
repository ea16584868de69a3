#!/usr/bin/env bash
# Soak: `iomapdirty exporter` at its defaults (always-on accounting; plus
# --top-files 20 for the per-file series) while SOAK_FILES new files
# (default 1,000,000: 61 times the per-file maps' 16384 entries) are made
# and written (2 bytes each, openat/write/close over 16 directories, a
# syncfs every 100,000) on a loop-mounted 1 KiB-block XFS, scraped every
# few seconds as Prometheus would. Checked against the workload's own
# figures: no loss counter ever moves, the filesystem totals are exact
# (app bytes = files x 2, write calls = files, one block submitted per
# file), the kernel's map memory (memlock of every BPF map the exporter
# holds, from /proc/PID/fdinfo) is the same at the end as after attach,
# its RSS at the end within SOAK_RSS_KB (below) of its RSS once the
# per-file maps were full three times over, the evictions counted, and
# the per-file series the newest files.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
n=${SOAK_FILES:-1000000}
len=2
sync_every=100000	# the workload syncs after every this many files
# The exporter's user space reads the per-file map whole: its buffers
# (the batch read, the snapshot, the top-files window's baseline) grow with
# the files in the map, up to its 16384 entries (measured: 8 MB after the
# first scrape, 16.5 MB once full). After that nothing may grow: RSS at the
# end within SOAK_RSS_KB of RSS at the first scrape after the map was full
# three times over (entries made >= 3 x 16384; measured: +36 kB from there
# to the end). Some 900,000 files churn through the maps in between: a
# leak of 2 bytes per file, or of one buffer per scrape, shows.
rss_slack_kb=${SOAK_RSS_KB:-2048}
for tool in curl jq; do
	command -v "$tool" >/dev/null || { fail soak.tools "$tool missing"; cli_finish; exit 1; }
done

# map memory (bytes) of the BPF maps process $1 holds, summed
maps_memlock() {
	local fd sum=0 m
	for fd in /proc/"$1"/fdinfo/*; do
		grep -q '^map_id:' "$fd" 2>/dev/null || continue
		m=$(awk '/^memlock:/ { print $2 }' "$fd")
		sum=$((sum + ${m:-0}))
	done
	echo "$sum"
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
scrape() { curl -sf --max-time 10 "http://127.0.0.1:$port/metrics"; }
# metric NAME LABEL_MATCH FILE: the value of the series (first match)
metric() { awk -v n="$1" -v l="$2" 'index($1, n) == 1 && index($0, l) { print $2; exit }' "$3"; }
losses() { awk '/^iomapdirty_lost_total/ { s += $2 } END { print s + 0 }' "$1"; }

mnt=$(xfsloop_make 1024 3000) || { fail soak.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
mkdir "$mnt/s"
port=$(free_port)
if ! exp_start soak "$IOMAPDIRTY" exporter --mount "$mnt" --listen "127.0.0.1:$port" \
	--top-files 20; then
	fail soak.ready "$(tail -3 "$work/soak.err")"
	cli_finish
	exit 1
fi
pid=$EXP_PID
scrape >"$work/first.txt" || fail soak.first_scrape "no answer"
mem0=$(maps_memlock "$pid")
rss0=$(rss_kb "$pid")
check_match soak.maps_memlock_read '^[1-9][0-9]*$' "$mem0"

start=$SECONDS
"$WORKLOAD" soakfiles "$mnt/s" "$n" "$len" --dirs 16 --sync-every "$sync_every" \
	>"$work/wl.json" 2>"$work/wl.err" &
wl=$!
KILL_PIDS+=("$wl")
scrapes=0 lost_seen=0 failed=0 rss_log=
while kill -0 "$wl" 2>/dev/null; do
	sleep 5
	if scrape >"$work/mid.txt"; then
		scrapes=$((scrapes + 1))
		l=$(losses "$work/mid.txt")
		if ((l > lost_seen)); then
			lost_seen=$l
			# which loss, and what the engine saw around it
			grep -E '^iomapdirty_(lost|events)_total' "$work/mid.txt" |
				awk '$2 != 0' >"$work/lost_during.txt"
		fi
		m=$(metric iomapdirty_events_total 'event="file_entries_created"' "$work/mid.txt")
		[[ -z ${rss_full:-} && ${m:-0} -ge $((3 * 16384)) ]] && rss_full=$(rss_kb "$pid")
		rss_log+=" ${m:-0}:$(rss_kb "$pid")"
	else
		failed=$((failed + 1))
	fi
done
wait "$wl"
check soak.workload.exit 0 "$?"
echo "INFO soak: $n files in $((SECONDS - start)) s ($(jq -c . "$work/wl.json" 2>/dev/null))"
check soak.scrapes_during_answered 0 "$failed"
check_match soak.scrapes_during '^[1-9]' "$scrapes"
check soak.no_loss_during 0 "$lost_seen"
[[ -s $work/lost_during.txt ]] && sed 's/^/INFO soak: at the first loss: /' "$work/lost_during.txt"

# the write sums reach the totals at the next flush (every second)
sleep 2
scrape >"$work/end.txt" || fail soak.end_scrape "no answer"
end=$work/end.txt
check soak.no_loss_at_end 0 "$(losses "$end")"
lbl="dev=\"$dev\""
# the workload's own figure (never empty: a missing one cannot equal a missing series)
wl() { jq -e ".$1 | numbers" "$work/wl.json" 2>/dev/null || echo "(no $1 from the workload)"; }
check soak.totals.app_bytes "$(wl app_bytes)" \
	"$(metric iomapdirty_app_bytes_total "$lbl" "$end")"
check soak.totals.write_calls "$(wl write_calls)" \
	"$(metric iomapdirty_write_calls_total "$lbl" "$end")"
# each file one 2-byte write into one 1 KiB block, synced: one block each
check soak.totals.submitted_blocks "$n" "$(metric iomapdirty_submitted_blocks_total "$lbl" "$end")"
check soak.totals.submitted_bytes "$((n * 1024))" \
	"$(metric iomapdirty_submitted_bytes_total "$lbl" "$end")"

made=$(metric iomapdirty_events_total 'event="file_entries_created"' "$end")
evicted=$(metric iomapdirty_events_total 'event="file_entries_evicted"' "$end")
check_match soak.evictions_counted '^[0-9]+$' "$evicted"
[[ $evicted =~ ^[0-9]+$ && $made =~ ^[0-9]+$ ]] || { evicted=0 made=0; }
# every file is one entry made (at its write) and all but the map's last
# 16384 are gone: made minus evicted is what the map holds
if ((made >= n && evicted >= n - 16384 && made - evicted <= 16384)); then
	pass soak.evictions_exact
else
	fail soak.evictions_exact "made $made, evicted $evicted, files $n, map 16384"
fi
check_match soak.path_evictions_counted '^[1-9][0-9]*$' \
	"$(metric iomapdirty_events_total 'event="path_entries_evicted"' "$end")"

mem1=$(maps_memlock "$pid")
rss1=$(rss_kb "$pid")
check soak.maps_memlock_unchanged "$mem0" "$mem1"
rss_full=${rss_full:-none}
echo "INFO soak: entries made:RSS kB at each scrape:$rss_log"
echo "INFO soak: exporter RSS ${rss0} kB after the first scrape, ${rss_full} kB once the" \
	"per-file map was full, ${rss1} kB at the end; maps ${mem0} B"
if [[ $rss_full =~ ^[0-9]+$ ]] && ((rss1 <= rss_full + rss_slack_kb)); then
	pass soak.rss_bounded
else
	fail soak.rss_bounded "RSS $rss_full kB once full, $rss1 kB at the end (slack $rss_slack_kb)"
fi

# the per-file series: 20 files, all written back after the last sync, the newest one in
grep '^iomapdirty_file_submitted_bytes_total{' "$end" |
	sed -n 's/.*path="[^"]*\/f\([0-9]*\)".*/\1/p' >"$work/top.txt"
check soak.top_files.count 20 "$(wc -l <"$work/top.txt")"
check soak.top_files.newest_present yes \
	"$(grep -qx "$((n - 1))" "$work/top.txt" && echo yes || echo no)"
# Ties (one block each) go to the newest entry. An entry is evicted long
# before its file's writeback (the map holds 16384 of a million) and made
# again then, so the newest entries are the files written back last: those
# after the workload's last sync (each sync waits for the writeback of all
# before it), never older ones. Within that batch the flusher's order, not
# the names', decides (under load 18 of the top 20 were not the newest 1000).
check soak.top_files.after_last_sync 0 \
	"$(awk -v lo=$(((n - 1) / sync_every * sync_every)) '$1 < lo' "$work/top.txt" | wc -l)"
echo "INFO soak: the top files' numbers (of $n): $(sort -n "$work/top.txt" | tr '\n' ' ')"
check soak.top_files.series_bounded 20 \
	"$(grep -c '^iomapdirty_file_app_bytes_total{' "$end")"

exp_stop() { kill -TERM "$pid"; wait "$pid"; }
exp_stop
check soak.stopped 0 "$?"
cli_finish
