#!/usr/bin/env bash
# Issue 11: a root tool a local user cannot turn against the host, and that
# never prints a number it did not measure. Each check here failed on the
# code before the fix (docs/iomapdirty.md, "Hostile input").
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
XFSLOOP_NO_TRAP=1
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
CHECK_OUT="$here/check_output.py"
work=$(mktemp -d /tmp/cli_harden.XXXXXX)
chmod 755 "$work"
fuse_mnt=
space_mnt=
space_loop=
cleanup() {
	local p
	for p in "${CLI_PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	if [[ -n $fuse_mnt ]]; then
		umount -l "$fuse_mnt" 2>/dev/null
	fi
	exec 7>&- 2>/dev/null
	if [[ -n $space_mnt ]]; then
		umount "$space_mnt" 2>/dev/null
		[[ -n $space_loop ]] && losetup -d "$space_loop" 2>/dev/null
	fi
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT
mnt=$(xfsloop_make 4096 512)
chmod 1777 "$mnt"

# clean OUTFILE: strict UTF-8 (and JSON) with no raw control character
clean() {	# NAME MODE FILE
	local why
	why=$(python3 "$CHECK_OUT" "$2" "$3" 2>&1)
	if [[ $? -eq 0 ]]; then pass "$1"; else fail "$1" "$why"; fi
}

# ----------------------------------------------------- 1. lock symlink
victim=$work/victim
echo "precious" >"$victim"
chmod 644 "$victim"
rm -f /run/lock/iomapdirty.lock
setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$victim" /run/lock/iomapdirty.lock
"$IOMAPDIRTY" hist --mount "$mnt" -c 1 -i 0.1 >/dev/null 2>"$work/lock.err"
check lock.planted_symlink.exit 0 "$?"
check lock.planted_symlink.target_untouched precious "$(cat "$victim")"
rm -f /run/lock/iomapdirty.lock
# the lock directory is root's, 0700
check lock.dir_mode "700 root" "$(stat -c '%a %U' /run/iomapdirty 2>/dev/null)"

# ------------------------------------------------ 2. run --json temp file
# the old temporary name was FILE.tmp.PID: plant it, as another user, in a
# sticky world-writable directory, for the pid the tool will have (exec).
drop=$work/drop
mkdir "$drop" && chmod 1777 "$drop"
echo "precious" >"$victim"
(
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		ln -s "$victim" "$drop/out.json.tmp.$BASHPID"
	exec "$IOMAPDIRTY" run --shared -q --mount "$mnt" --json "$drop/out.json" -- true
) 2>/dev/null
check run_json.planted_tmp.target_untouched precious "$(cat "$victim")"
check run_json.written '"run"' "$(jq .type "$drop/out.json" 2>/dev/null)"
check run_json.no_temp_left "" "$(find "$drop" -name '.out.json.*')"
rm -f "$work/marker"
"$IOMAPDIRTY" run --shared -q --json /nonexistent/dir/out.json -- touch "$work/marker" 2>"$work/j.err"
check run_json.bad_path_exit 2 "$?"
check run_json.bad_path_before_cmd no "$([[ -e $work/marker ]] && echo yes || echo no)"
check_match run_json.bad_path_message "cannot create a file in its directory" "$(cat "$work/j.err")"

# ------------------------------------------------------------ 3. --user
check run_user.uid 65534 "$("$IOMAPDIRTY" run --shared -q --user nobody -- id -u 2>/dev/null)"
check run_user.groups "$(id -G nobody)" "$("$IOMAPDIRTY" run --shared -q --user nobody -- id -G 2>/dev/null)"
"$IOMAPDIRTY" run --shared -q --user no-such-user-xyz -- true 2>/dev/null
check run_user.unknown_exit 2 "$?"

# ------------------------------ 4, 6, 7. hostile names through every output
h=$mnt/h
mkdir -p "$h"
long=$(printf 'a%.0s' $(seq 200))
longu=$(printf '\xc3\xa9%.0s' $(seq 100))	# 100 x "é": 200 bytes, cut mid-character
deep=$h$(printf '/d%.0s' $(seq 20))
mkdir -p "$deep"
names=($'new\nline' $'esc\e[31mred\e]0;title\a' $'c1\xc2\x9bcsi\xc2\x9d' 'quo"te'"'"'s\back'
       $'bad\xff\xfeutf8' $'bidi\xe2\x80\xaeevil' "$long" "$longu")
cat >"$work/writer.sh" <<WEOF
#!/usr/bin/env bash
sleep 1.5
for n in "\$@"; do "$WORKLOAD" prep "\$n" 64K >/dev/null || exit 1; done
sync
sleep 2.5
WEOF
chmod +x "$work/writer.sh"
paths=()
for n in "${names[@]}"; do paths+=("$h/$n"); done
paths+=("$deep/f")
# each observer runs until the run has ended (SIGINT: its summary, every
# file since attach), not for a fixed time a loaded machine can outlast
start_tool "$work/top.txt" "$work/top.txt.err" top --shared -b -i 1 -n 120 --mount "$mnt"
tt=$TOOL_PID
start_tool "$work/top.json" "$work/top.json.err" top --shared --json -i 1 -n 120 --mount "$mnt"
tj=$TOOL_PID
start_tool "$work/verify.txt" "$work/verify.txt.err" verify --shared -D 120 --simulate-clean 1 --list 100 --mount "$mnt"
vt=$TOOL_PID
start_tool "$work/verify.json" "$work/verify.json.err" verify --shared --json -D 120 --simulate-clean 1 --list 100 --mount "$mnt"
vj=$TOOL_PID
"$IOMAPDIRTY" run --shared -q --mount "$mnt" --json "$work/run.json" -- "$work/writer.sh" "${paths[@]}" 2>"$work/run.err"
check names.run_exit 0 "$?"
sleep 1
kill -INT $tt $tj $vt $vj 2>/dev/null
for p in $tt $tj $vt $vj; do bounded_wait "$p" 30; done
clean names.top_text text "$work/top.txt"
clean names.top_json json "$work/top.json"
clean names.verify_text text "$work/verify.txt"
clean names.verify_json json "$work/verify.json"
clean names.run_json json "$work/run.json"
# the files are there, by name, and the names are not lost
check_match names.top_text_escaped 'esc\\x1b\[31mred' "$(cat "$work/top.txt")"
check_match names.top_text_c1 'c1\\xc2\\x9bcsi' "$(cat "$work/top.txt")"
check_match names.verify_text_escaped 'new\\x0aline' "$(cat "$work/verify.txt")"
sum=$(tail -1 "$work/top.json")
check names.json_newline_kept 1 "$(jq --arg p "$h/"$'new\nline' '[.files[] | select(.path == $p)] | length' <<<"$sum")"
check names.json_invalid_hex "$(printf '%s' "$h/"$'bad\xff\xfeutf8' | od -An -tx1 | tr -d ' \n')" \
	"$(jq -r '.files[] | select(.path_hex != null) | .path_hex' <<<"$sum" | head -1)"
for n in long longu; do
	st=$(jq -r --arg p "$h/${!n:0:20}" '.files[] | select(.path | startswith($p)) | .path_state' <<<"$sum")
	check "names.${n}_component_truncated" truncated "$st"
done
check names.deep_truncated truncated \
	"$(jq -r '.files[] | select(.path | endswith("/d/d/f")) | .path_state' <<<"$sum")"

# ---------------------------------------- 5. a FUSE mount that never answers
# /dev/fuse opened and mounted, never read: every request on it blocks.
hang=$mnt/hang
mkdir -p "$hang"
"$WORKLOAD" prep "$hang/f" 64K >/dev/null
# Under the sanitizer build (tests/sanitized.sh) no leak check at exit for this
# one: LeakSanitizer stops the world with ptrace, which cannot attach to the
# path worker stuck in a FUSE request, so the exit itself would hang.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	start_tool "$work/hang.json" "$work/hang.err" top --shared --json -i 0.5 -n 8 --mount "$mnt"
th=$TOOL_PID
"$WORKLOAD" prep "$hang/f" 64K >/dev/null
sync
sleep 1.5
exec 7<>/dev/fuse
if mount -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 hang "$hang" 2>"$work/fuse.err"; then
	fuse_mnt=$hang
	if ! timeout 0.5 stat "$hang/f" >/dev/null 2>&1; then
		pass fuse.stat_really_hangs
	else
		fail fuse.stat_really_hangs "stat answered"
	fi
	"$WORKLOAD" prep "$mnt/after" 64K >/dev/null
	for i in $(seq 100); do kill -0 "$th" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$th" 2>/dev/null; then
		fail fuse.top_not_blocked "top still running 10 s after its 8 refreshes of 0.5 s"
		kill -9 "$th"
	else
		wait "$th"
		check fuse.top_exit 0 "$?"
		check fuse.lines 9 "$(wc -l <"$work/hang.json")"
		check fuse.path_unchecked unchecked \
			"$(tail -1 "$work/hang.json" | jq -r '.files[] | select(.path | endswith("/hang/f")) | .path_state')"
	fi
	# closing the last /dev/fuse descriptor aborts the connection
	umount -l "$hang" && fuse_mnt=
else
	echo "SKIP fuse: cannot mount a FUSE filesystem: $(cat "$work/fuse.err")"
	stop_tool INT
fi
exec 7>&-

# ----------------------------------------------------- 8. n/a, not 0 (unit: test_report)
# ------------------------------------------------------- 10. output errors
"$IOMAPDIRTY" hist --shared --mount "$mnt" -c 1 -i 0.1 >/dev/full 2>"$work/full.err"
check output.dev_full_exit 6 "$?"
check_match output.dev_full_reason "No space left on device" "$(cat "$work/full.err")"
"$IOMAPDIRTY" probes >/dev/full 2>/dev/null
check output.probes_dev_full_exit 6 "$?"
# a reader that goes away: with SIGPIPE ignored (systemd), exit 6 and why
start=$SECONDS
rc=$(bash -c 'trap "" PIPE; "$1" hist --shared --mount "$2" -i 0.2 --json 2>"$3" | head -1 >/dev/null;
	echo "${PIPESTATUS[0]}"' _ "$IOMAPDIRTY" "$mnt" "$work/pipe.err")
check output.sigpipe_ignored_exit 6 "$rc"
check_match output.sigpipe_ignored_reason "Broken pipe" "$(cat "$work/pipe.err")"
check output.sigpipe_ignored_prompt yes "$([[ $((SECONDS - start)) -lt 10 ]] && echo yes || echo no)"
# SIGPIPE as usual: the tool ends with its reader
rc=$(bash -c '"$1" hist --shared --mount "$2" -i 0.2 2>/dev/null | head -1 >/dev/null;
	echo "${PIPESTATUS[0]}"' _ "$IOMAPDIRTY" "$mnt")
check output.head_1_ends 141 "$rc"

# ------------------------------------------------- 11. kernel-side misses
out=$("$IOMAPDIRTY" hist --shared --mount "$mnt" -c 1 -i 0.1 --json 2>/dev/null | tail -1)
check misses.recursion_in_losses true "$(jq '.losses | has("recursion_misses")' <<<"$out")"
check misses.kprobe_in_losses true "$(jq '.losses | has("kprobe_misses")' <<<"$out")"

# ------------------------------------------------ 12. a mount point with a space
space_mnt="$work/with space"
mkdir "$space_mnt"
truncate -s 400M "$work/space.img"
mkfs.xfs -q -f "$work/space.img"
space_loop=$(losetup --find --show "$work/space.img")
mount "$space_loop" "$space_mnt"
start_tool "$work/space.json" "$work/space.err" top --shared --json -i 1 -n 2 --mount "$space_mnt"
"$WORKLOAD" prep "$space_mnt/f" 64K >/dev/null
sync
wait "$TOOL_PID"
check space.exit 0 "$?"
sum=$(tail -1 "$work/space.json")
check space.file_ok ok "$(jq -r '.files[0].path_state' <<<"$sum")"
check space.file_path "$space_mnt/f" "$(jq -r '.files[0].path' <<<"$sum")"
"$IOMAPDIRTY" run --shared -q --mount "$space_mnt" --json "$work/space.run.json" -- \
	"$WORKLOAD" prep "$space_mnt/g" 64K >/dev/null 2>&1
check space.mount_decoded "$space_mnt" "$(jq -r '.filesystems[0].mount // empty' "$work/space.run.json")"
out=$("$IOMAPDIRTY" hist --shared --mount "$space_mnt" -c 1 -i 0.1 2>/dev/null | head -3)
check_match space.block_size "block size 4096 B" "$out"

# -------------------------------------------------- 13. --max-pages memory
cg=
for l in $(cat /proc/self/cgroup); do
	case $l in
	*:memory:*) cg=/sys/fs/cgroup/memory${l#*:memory:} ;;
	0::*) [[ -z $cg && -e /sys/fs/cgroup/cgroup.controllers ]] && cg=/sys/fs/cgroup${l#0::} ;;
	esac
done
if [[ -n $cg ]] && mkdir "$cg/iomapdirty-test.$$" 2>/dev/null; then
	sub=$cg/iomapdirty-test.$$
	if [[ -e $sub/memory.limit_in_bytes ]]; then echo 1G >"$sub/memory.limit_in_bytes"
	else echo 1G >"$sub/memory.max"; fi
	err=$(bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" hist --shared --mount "$3" -c 1 -i 0.1 --max-pages 67108864' \
		_ "$sub" "$IOMAPDIRTY" "$mnt" 2>&1 >/dev/null)
	check max_pages.refused_exit 2 "$?"
	check_match max_pages.refused_reason "needs about [0-9]+ MiB.*memory cgroup limit" "$err"
	err=$(bash -c 'echo $$ >"$1/cgroup.procs" && exec "$2" hist --shared --mount "$3" -c 1 -i 0.1 --max-pages 1024' \
		_ "$sub" "$IOMAPDIRTY" "$mnt" 2>&1 >/dev/null)
	check max_pages.small_ok 0 "$?"
	rmdir "$sub"
else
	echo "SKIP max_pages: cannot make a memory cgroup"
fi

# ------------------------------------------------------ 15. run's signals
# a command that ignores SIGINT: the second signal kills it, summary follows
start_tool "$work/sig.out" "$work/sig.err" run --shared --mount "$mnt" -- \
	bash -c 'trap "" INT TERM; echo ready >&2; sleep 30'
rp=$TOOL_PID
# CMD's own "ready" (after its trap): before it, a SIGINT would end CMD
# itself (a loaded machine can take seconds from attach to CMD's trap)
for i in $(seq 300); do grep -qx ready "$work/sig.err" && break; sleep 0.1; done
kill -INT "$rp"
sleep 0.5
kill -INT "$rp"
for i in $(seq 50); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$rp" 2>/dev/null; then
	fail run.second_signal_kills "run still waiting 5 s after the second SIGINT"
	kill -9 "$rp"
	wait "$rp" 2>/dev/null
else
	wait "$rp"
	check run.second_signal_exit 137 "$?"
	# the summary is on stderr (CMD's stdout stays its own)
	check_match run.second_signal_summary "run summary" "$(cat "$work/sig.err")"
fi
# iomapdirty killed: CMD does not outlive it (parent-death signal)
start_tool "$work/pd.out" "$work/pd.err" run --shared --mount "$mnt" -- \
	bash -c 'echo ready >&2; exec sleep 30'
rp=$TOOL_PID
sleep 0.5
child=$(pgrep -P "$rp" | head -1)
kill -9 "$rp"
wait "$rp" 2>/dev/null
sleep 0.5
# gone, or a zombie waiting for its new parent to reap it: not running
state=$([[ -n $child ]] && awk '{print $3}' "/proc/$child/stat" 2>/dev/null)
check run.child_dies_with_parent dead "$([[ -z $child || -z $state || $state == Z ]] && echo dead || echo "running ($state)")"
[[ -n $child ]] && kill -9 "$child" 2>/dev/null

# top on a terminal, ended by SIGQUIT: the terminal is left as it was
if command -v tmux >/dev/null; then
	sock=$work/tmux.sock
	tmux -S "$sock" new-session -d -s hq -x 150 -y 40 "env -u TMUX bash --norc --noprofile -i"
	tmux -S "$sock" send-keys -t hq "stty -g > $work/stty.before; $IOMAPDIRTY top --shared --mount $mnt -i 1 2>/dev/null; stty -g > $work/stty.after" Enter
	tp=
	for i in $(seq 100); do
		tp=$(pgrep -f "^$IOMAPDIRTY top --shared --mount $mnt -i 1\$" | head -1)
		[[ -n $tp ]] && grep -q . <(tmux -S "$sock" capture-pane -p -t hq | grep 'iomapdirty top') && break
		sleep 0.1
	done
	sleep 1
	[[ -n $tp ]] && kill -QUIT "$tp"
	for i in $(seq 50); do [[ -s $work/stty.after ]] && break; sleep 0.1; done
	check top.sigquit_restores_terminal "$(cat "$work/stty.before" 2>/dev/null)" "$(cat "$work/stty.after" 2>/dev/null)"
	tmux -S "$sock" kill-server 2>/dev/null
else
	echo "SKIP top.sigquit_restores_terminal: no tmux"
fi

# --------------------------------------------- boundary values of every option
bound() {	# NAME CODE ARGS...: exit code of a quick run (usage errors are 2)
	local name=$1 code=$2 rc
	shift 2
	timeout 20 "$IOMAPDIRTY" "$@" >/dev/null 2>&1
	rc=$?
	check "bound.$name" "$code" "$rc"
}
bound interval_min_ok 0 hist --shared --mount "$mnt" -c 1 -i 0.01
bound interval_below 2 hist --shared --mount "$mnt" -c 1 -i 0.009
bound interval_above_max 2 hist --shared --mount "$mnt" -c 1 -i 86400.1
bound interval_nan 2 hist --shared --mount "$mnt" -c 1 -i nan
bound interval_inf 2 hist --shared --mount "$mnt" -c 1 -i inf
bound count_zero 2 hist --shared --mount "$mnt" -c 0
bound top_count_zero 2 top --shared --mount "$mnt" -b -n 0
bound top_count_over 2 top --shared --mount "$mnt" -b -n 1099511627777
bound top_interval_min_ok 0 top --shared --mount "$mnt" -b -n 1 -i 0.01
bound count_over 2 hist --shared --mount "$mnt" -c 1099511627777
bound count_huge 2 hist --shared --mount "$mnt" -c 18446744073709551616
bound max_pages_min 0 hist --shared --mount "$mnt" -c 1 -i 0.01 --max-pages 1024
bound max_pages_below 2 hist --shared --mount "$mnt" -c 1 --max-pages 1023
bound max_pages_over 2 hist --shared --mount "$mnt" -c 1 --max-pages 67108865
bound pid_zero 2 hist --shared --mount "$mnt" -c 1 --pid 0
bound pid_max_ok 0 hist --shared --mount "$mnt" -c 1 -i 0.01 --pid 2147483647
bound pid_over 2 hist --shared --mount "$mnt" -c 1 --pid 2147483648
bound pid_negative 2 hist --shared --mount "$mnt" -c 1 --pid -1
bound comm_15_ok 0 hist --shared --mount "$mnt" -c 1 -i 0.01 --comm 123456789012345
bound comm_16 2 hist --shared --mount "$mnt" -c 1 --comm 1234567890123456
bound comm_empty 2 hist --shared --mount "$mnt" -c 1 --comm ''
bound dev_major_over 2 hist --shared -c 1 --dev 4096:0
bound dev_minor_over 2 hist --shared -c 1 --dev 0:1048576
bound dev_trailing 2 hist --shared -c 1 --dev 7:0x
# accepted verify values: nothing is written meanwhile, so no evidence (8), not 2
bound list_max_ok 8 verify --shared --mount "$mnt" -D 0.01 --list 1024
bound list_over 2 verify --shared --mount "$mnt" -D 0.01 --list 1025
bound duration_min_ok 8 verify --shared --mount "$mnt" -D 0.01
bound duration_below 2 verify --shared --mount "$mnt" -D 0
bound simulate_zero 2 verify --shared --mount "$mnt" -D 0.01 --simulate-clean 0
bound simulate_over 2 verify --shared --mount "$mnt" -D 0.01 --simulate-clean 1073741825
cli_finish
