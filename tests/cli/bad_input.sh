#!/usr/bin/env bash
# Bad input and hostile conditions: each gets a clear message and its own
# exit code (docs/iomapdirty.md), never a crash, a leaked BPF link or a
# partial JSON document.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_bad.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
mnt=$(xfsloop_make 1024 512)

# expect NAME CODE REGEX ARGS...: exit code and a message on stderr
expect() {
	local name=$1 code=$2 re=$3 err rc
	shift 3
	err=$("$IOMAPDIRTY" "$@" 2>&1 >/dev/null)
	rc=$?
	check "$name.exit" "$code" "$rc"
	check_match "$name.message" "$re" "$err"
}

expect no_command 2 "usage" 
expect unknown_command 2 "unknown command 'frobnicate'" frobnicate
for c in hist run verify probes; do
	expect "$c.unknown_option" 2 "unrecognized option|invalid option" "$c" --bogus
done
expect hist.interval_zero 2 "--interval wants" hist -i 0
expect hist.interval_text 2 "--interval wants" hist -i soon
expect hist.count_negative 2 "--count wants" hist -c -1
expect hist.mode_unknown 2 "--mode wants" hist --mode ebpf
expect hist.pid_text 2 "--pid wants" hist -p abc
expect hist.comm_too_long 2 "--comm wants" hist --comm abcdefghijklmnopqrstuvwxyz
expect hist.mount_and_dev 2 "exclude each other" hist --mount / --dev 7:0
expect hist.dev_malformed 2 "--dev wants MAJOR:MINOR" hist --dev loop0
expect hist.dev_not_mounted 5 "not a mounted filesystem" hist --dev 4000:4000
expect hist.mount_missing 5 "No such file or directory" hist --mount /nonexistent/dir
expect hist.mount_not_iomap 5 "does not use iomap" hist --mount /proc
expect verify.mount_not_iomap 2 "does not use iomap" verify --mount /proc
expect probes.facts_missing 2 "No such file" probes --facts /nonexistent.facts
printf 'btf 0\n' >"$work/nobtf.facts"
expect probes.no_btf 3 "no BTF" probes --facts "$work/nobtf.facts"
printf 'btf 1\nthis is not a fact\n' >"$work/bad.facts"
expect probes.bad_facts 2 "line 2" probes --facts "$work/bad.facts"

# a mechanism this kernel refuses (the kernel says so, tests/lib/
# host_profile.sh, not the tool): exit 3 and why, before anything loads
# shellcheck source=../lib/host_profile.sh
source "$here/../lib/host_profile.sh"
if why=$(mode_absent fentry "$here/../lib"); then
	expect hist.forced_fentry_refused 3 "cannot measure" hist --mount "$mnt" --mode fentry -c 1
else
	echo "SKIP hist.forced_fentry_refused: this kernel lets fentry attach (nothing to refuse)"
fi

# not root: clear message, exit 4 (setpriv: util-linux, always here)
err=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$IOMAPDIRTY" hist --mount "$mnt" -c 1 2>&1 >/dev/null)
check not_root.exit 4 "$?"
check_match not_root.message "needs root" "$err"

# a second instance: refused with the first one's pid; --shared allows it
start_tool "$work/a.out" "$work/a.err" hist --mount "$mnt" --json -i 60 ||
	fail second.first_ready "$(cat "$work/a.err")"
first=$TOOL_PID
err=$("$IOMAPDIRTY" hist --mount "$mnt" -c 1 -i 0.1 2>&1 >/dev/null)
check second.exit 7 "$?"
check_match second.message "another instance is running \(pid $first\)" "$err"
"$IOMAPDIRTY" hist --mount "$mnt" -c 1 -i 0.1 --shared --json >"$work/b.out" 2>/dev/null
check second.shared_exit 0 "$?"
check second.shared_json '"summary"' "$(tail -1 "$work/b.out" | jq .type)"

# SIGINT mid-run: a whole summary, exit 0, and no BPF link left behind
"$WORKLOAD" prep "$mnt/f" 262144 >/dev/null
"$WORKLOAD" scatter "$mnt/f" --count 20 --len 100 --stride 9000 >/dev/null
stop_tool INT
check sigint.exit 0 "$TOOL_RC"
check sigint.every_line_json 0 "$(jq -c . "$work/a.out" >/dev/null 2>&1; echo $?)"
check sigint.summary_last '"summary"' "$(tail -1 "$work/a.out" | jq .type)"
# the prep's 262144 bytes and the 20 writes of 100, all while attached
check sigint.summary_counts $((262144 + 2000)) "$(tail -1 "$work/a.out" | jq .totals.app_bytes)"
start_tool "$work/c.out" "$work/c.err" hist --mount "$mnt" --json -i 60
stop_tool TERM
check sigterm.exit 0 "$TOOL_RC"
check sigterm.summary '"summary"' "$(tail -1 "$work/c.out" | jq .type)"
sleep 0.5
check no_leaked_links 0 "$(cli_links)"
left=
for p in "${CLI_PIDS[@]}"; do [[ -d /proc/$p ]] && left+="$p "; done
check no_leftover_process "" "$left"
cli_finish
