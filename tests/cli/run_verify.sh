#!/usr/bin/env bash
# `iomapdirty run` and `iomapdirty verify` against scripted workloads on a
# loop-mounted 1 KiB-block XFS, with expected figures computed by the
# workload from the offsets it writes (tests/e2e/workload).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_rv.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

mnt=$(xfsloop_make 1024 512)
"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null

# --- run: the summary of exactly the command's run, its exit status ------
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/run.json" -- \
	"$WORKLOAD" scatter "$mnt/f" --count 51 --len 100 --stride 20000 \
	>"$work/run.txt" 2>"$work/run.err"
rc=$?
check run.exit_status 0 "$rc"
exp=$(grep -o '^{.*}' "$work/run.txt" | head -1)
for f in app_bytes dirty_blocks submitted_blocks submitted_bytes folios; do
	check "run.json.$f" "$(jq ".$f" <<<"$exp")" "$(jq ".totals.$f" "$work/run.json")"
done
check run.json.type '"run"' "$(jq .type "$work/run.json")"
check run.json.losses 0 "$(jq '[.losses[]] | add' "$work/run.json")"
# the summary is on stderr: stdout is the command's own, whole and alone
check_match run.text_summary "=== run summary" "$(cat "$work/run.err")"
check_match run.text_exit "command exited with status 0" "$(cat "$work/run.err")"
check run.stdout_is_the_commands "$(jq -c . <<<"$exp")" "$(jq -c . "$work/run.txt" 2>&1)"

# the command's own status comes back, and no JSON when asked not to exist
"$IOMAPDIRTY" run --mount "$mnt" -q -- sh -c 'exit 3' 2>/dev/null
check run.exit_status_passed_on 3 "$?"
"$IOMAPDIRTY" run --mount "$mnt" -q -- sh -c 'kill -TERM $$' 2>/dev/null
check run.killed_child_is_128_plus_signal 143 "$?"
rm -f "$work/none.json"
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/none.json" -q -- /nonexistent/cmd 2>"$work/noexec.err"
check run.missing_command_exit 127 "$?"
check_match run.missing_command_message "cannot run '/nonexistent/cmd'" "$(cat "$work/noexec.err")"
check run.missing_command_no_json 0 "$(ls "$work"/none.json* 2>/dev/null | wc -l)"
"$IOMAPDIRTY" run --mount "$mnt" 2>/dev/null
check run.no_command_is_usage 2 "$?"

# SIGINT from another process mid-run: passed on, summary still whole
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/int.json" -q -- sleep 30 2>/dev/null &
pid=$!
CLI_PIDS+=("$pid")
sleep 2
kill -INT "$pid"
bounded_wait "$pid" 30
check run.sigint_exit_is_child_status 130 "$?"
check run.sigint_json_complete '"run"' "$(jq .type "$work/int.json" 2>&1)"
check run.no_leaked_links 0 "$(cli_links)"

# --- page records past a full set: spilled to the overflow, nothing lost ---
# --max-pages 1024 is 256 sets of 7 ways: 1000 pages dirtied at once put
# about 4 in each set, and more than 7 in some (spilled; an expected 13 or
# so sets, none only if the hash were broken), well within the 128 overflow
# entries. The counts must still be exact.
"$WORKLOAD" prep "$mnt/sp" 4M >/dev/null
"$IOMAPDIRTY" run --mount "$mnt" --max-pages 1024 --json "$work/sp.json" -- \
	"$WORKLOAD" scatter "$mnt/sp" --count 1000 --len 100 --stride 4096 \
	>"$work/sp.txt" 2>"$work/sp.err"
check spill.exit_status 0 "$?"
exp=$(grep -o '^{.*}' "$work/sp.txt" | head -1)
for f in app_bytes dirty_blocks submitted_blocks folios; do
	check "spill.json.$f" "$(jq ".$f" <<<"$exp")" "$(jq ".totals.$f" "$work/sp.json")"
done
check spill.no_losses 0 "$(jq '[.losses[]] | add' "$work/sp.json")"
check_match spill.some_spilled '^[1-9][0-9]*$' "$(jq .events.page_records_spilled "$work/sp.json")"

# --- verify: passes on this kernel, with block-layer ground truth ---------
"$WORKLOAD" prep "$mnt/g" 1048576 >/dev/null
start_tool "$work/v.json" "$work/v.err" verify --mount "$mnt" --json ||
	fail verify.ready "$(tail -2 "$work/v.err")"
exp=$("$WORKLOAD" scatter "$mnt/g" --count 51 --len 100 --stride 20000)
sleep 1
stop_tool INT
check verify.exit_pass 0 "$TOOL_RC"
check verify.verdict '"pass"' "$(jq .verdict "$work/v.json")"
check verify.violations 0 "$(jq '.filesystems[0].stats.violation_blocks' "$work/v.json")"
# every submitted data byte reached the block layer, matched by address
check verify.data_bytes_at_block_layer "$(jq .submitted_bytes <<<"$exp")" \
	"$(jq '.block_devices[0].data_bytes' "$work/v.json")"
check verify.pending 0 "$(jq .pending_blocks "$work/v.json")"

# --- verify --simulate-clean: the detection path, labelled simulated ------
"$WORKLOAD" prep "$mnt/h" 1048576 >/dev/null
ino=$(stat -c %i "$mnt/h")
start_tool "$work/s.json" "$work/s.err" verify --mount "$mnt" --json --simulate-clean 5 --list 100 ||
	fail simulate.ready "$(tail -2 "$work/s.err")"
"$WORKLOAD" scatter "$mnt/h" --count 51 --len 100 --stride 20000 >/dev/null
sleep 1
stop_tool INT
check simulate.exit_fail 1 "$TOOL_RC"
# expected: folios (pages) at indexes divisible by 5 that the writes touch;
# the first block each write dirties there is the one flagged
want=$(for i in $(seq 0 50); do
	o=$((i * 20000)); p=$((o / 4096))
	((p % 5 == 0)) && echo "$((o / 1024 * 1024))"
done | sort -un | tr '\n' ' ')
got=$(jq -r --argjson ino "$ino" '[.offenders[] | select(.ino == $ino) | .offset] | sort | map(tostring) | join(" ")' "$work/s.json")
check simulate.offending_offsets "${want% }" "$got"
check simulate.labelled "$(wc -w <<<"$want")" "$(jq .simulated_clean_folios "$work/s.json")"
check simulate.block_layer_unchanged "$(jq '.filesystems[0].stats.submitted_bytes' "$work/s.json")" \
	"$(jq '.block_devices[0].data_bytes' "$work/s.json")"
cli_finish
