#!/usr/bin/env bash
# Issue 27: the files iomapdirty writes and what CMD inherits from it. Each
# check here failed on the code before the fix (docs/iomapdirty.md,
# "Hostile input").
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_outputs.XXXXXX)
chmod 755 "$work"
cleanup() {
	local p
	for p in "${CLI_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
ran() { [[ -e $1 ]] && echo yes || echo no; }
kind() { stat -c %F "$1" 2>/dev/null; }

# ------------------------------------- 1. output targets: regular files only
# A device node, a symbolic link, a FIFO, a directory: refused with exit 2
# before CMD starts, and left as they were.
t=$work/targets
mkdir "$t"
echo precious >"$t/victim"
mknod "$t/node" c 1 3
ln -s "$t/victim" "$t/link"
ln -s /proc/self/fd/1 "$t/stdout_link"
mkfifo "$t/fifo"
mkdir "$t/dir"
for name in node link stdout_link fifo dir; do
	before=$(kind "$t/$name")
	timeout 60 "$IOMAPDIRTY" run --shared -q --json "$t/$name" -- touch "$t/ran.$name" \
		>/dev/null 2>"$t/$name.err"
	check "target.run_json.$name.exit" 2 "$?"
	check "target.run_json.$name.before_cmd" no "$(ran "$t/ran.$name")"
	check "target.run_json.$name.kept" "$before" "$(kind "$t/$name")"
	check_match "target.run_json.$name.message" "not a regular file: refused" "$(cat "$t/$name.err")"
done
check target.run_json.link_target_untouched precious "$(cat "$t/victim")"
# an existing regular file is replaced; "-" is standard output
echo old >"$t/old.json"
"$IOMAPDIRTY" run --shared -q --json "$t/old.json" -- true 2>/dev/null
check target.run_json.regular_replaced '"run" regular file' \
	"$(jq .type "$t/old.json" 2>/dev/null) $(kind "$t/old.json")"
out=$(cd "$t" && "$IOMAPDIRTY" run --shared -q --json - -- true 2>/dev/null)
check target.run_json.dash_stdout '"run"' "$(jq .type <<<"$out" 2>/dev/null)"
check target.run_json.dash_no_file no "$(ran "$t/-")"
# report -o: the same rules (user/output/outfile.c)
run=$t/old.json
for name in node link fifo dir; do
	before=$(kind "$t/$name")
	"$IOMAPDIRTY" report "$run" -o "$t/$name" >/dev/null 2>"$t/r.$name.err"
	check "target.report.$name.exit" 2 "$?"
	check "target.report.$name.kept" "$before" "$(kind "$t/$name")"
done
check target.report.link_target_untouched precious "$(cat "$t/victim")"
echo old >"$t/old.html"
"$IOMAPDIRTY" report "$run" -o "$t/old.html" 2>/dev/null
check target.report.regular_replaced "yes regular file" \
	"$(grep -q '<html' "$t/old.html" && echo yes) $(kind "$t/old.html")"
check target.report.dash_stdout yes \
	"$("$IOMAPDIRTY" report "$run" -o - 2>/dev/null | grep -q '<html' && echo yes)"

# ------------------------------ 2. CMD inherits no descriptor of the tool
# The shell CMD lists its own descriptors: only 0, 1, 2 and the 3 the
# caller passed; no run file, lock, BPF map or link of the tool's.
# The caller's own descriptors (what this shell passes on) are the ground
# truth: the same command run directly.
base=$(sh -c 'cd /proc/$$/fd && echo *' 3</dev/null 2>/dev/null)
fds=$(cd "$work" && "$IOMAPDIRTY" run --shared -q --user nobody --json "$work/fd.json" -- \
	sh -c 'cd /proc/$$/fd && echo *' 3</dev/null 2>/dev/null)
check fds.cmd_holds_only_the_callers "$base" "$fds"
base=$(sh -c 'cd /proc/$$/fd && echo *' 2>/dev/null)
fds=$("$IOMAPDIRTY" run --shared -q --json "$work/fd2.json" -- sh -c 'cd /proc/$$/fd && echo *' 2>/dev/null)
check fds.cmd_as_root "$base" "$fds"

# ------------------------------------- 5. the one atomic-output routine
# mode from the umask (not a forced 0644)
(umask 077 && "$IOMAPDIRTY" run --shared -q --json "$work/m.json" -- true 2>/dev/null)
check outfile.run_json_mode_umask 600 "$(stat -c %a "$work/m.json")"
(umask 002 && "$IOMAPDIRTY" report "$work/m.json" -o "$work/m.html" 2>/dev/null)
check outfile.report_mode_umask 664 "$(stat -c %a "$work/m.html")"
# killed with -9 while CMD runs: nothing left in the directory
k=$work/kill9
mkdir "$k"
"$IOMAPDIRTY" run --shared -q --json "$k/r.json" -- sleep 30 >/dev/null 2>&1 &
rpid=$!
CLI_PIDS+=("$rpid")
for _ in $(seq 100); do pgrep -P "$rpid" -x sleep >/dev/null && break; sleep 0.1; done
kill -9 "$rpid"
wait "$rpid" 2>/dev/null
check outfile.kill9_leaves_nothing "" "$(ls -A "$k")"
# the rename and the directory are synced (strace: fsync of the file, then
# of the directory, after the rename)
if command -v strace >/dev/null; then
	# LeakSanitizer cannot run under ptrace (tests/sanitized.sh): off here
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -e trace=fsync,rename,renameat,renameat2 -o "$work/st" \
		"$IOMAPDIRTY" run --shared -q --json "$work/s.json" -- true 2>/dev/null
	check outfile.fsync_file_rename_fsync_dir "fsync rename fsync" \
		"$(grep -oE '^[0-9]+ +(fsync|rename[a-z0-9]*)' "$work/st" | awk '{print $2}' |
		   sed 's/rename.*/rename/' | tr '\n' ' ' | sed 's/ $//')"
else
	fail outfile.fsync_file_rename_fsync_dir "strace missing (scripts/install-deps.sh)"
fi

# ------------------------------ 3. run --user: no controlling terminal
# under script(1) the tool has a terminal; CMD as nobody must not have it
# as its controlling terminal (ps shows "?"), and TIOCSTI on it fails
out=$(script -qec "$IOMAPDIRTY run --shared -q --user nobody -- sh -c 'ps -o tty= -p \$\$; ps -o sid= -p \$\$; echo pid \$\$' 2>/dev/null" /dev/null 2>/dev/null | tr -d '\r')
check run_user.no_controlling_tty "?" "$(sed -n 1p <<<"$out" | tr -d ' ')"
check run_user.own_session "$(sed -n 3p <<<"$out" | awk '{print $2}')" "$(sed -n 2p <<<"$out" | tr -d ' ')"
out=$(script -qec "$IOMAPDIRTY run --shared -q --user nobody -- /usr/bin/python3 -c 'import fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b\"#\"); print(\"pushed\")
except OSError as e: print(\"refused\", e.errno)' 2>/dev/null" /dev/null 2>/dev/null | tr -d '\r')
check_match run_user.tiocsti_refused "^refused" "$out"

cli_finish
