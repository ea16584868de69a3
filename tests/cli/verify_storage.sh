#!/usr/bin/env bash
# `iomapdirty verify` on the layouts of production hosts (issue 10): no
# pass without evidence. Every expected figure comes from the workload's
# own offsets (tests/e2e/workload), never from the tool.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_vs.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

# --- no pass without evidence -------------------------------------------
mnt=$(xfsloop_make 4096 512)
start_tool "$work/none.json" "$work/none.err" verify --mount "$mnt" --json ||
	fail none.ready "$(tail -2 "$work/none.err")"
sleep 0.5
stop_tool INT
check none.exit_incomplete 8 "$TOOL_RC"
check none.verdict '"no_evidence"' "$(jq .verdict "$work/none.json")"
check_match none.reason "nothing was checked" "$(jq -r .reason "$work/none.json")"

cli_finish
