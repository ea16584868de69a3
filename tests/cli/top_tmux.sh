#!/usr/bin/env bash
# `iomapdirty top` used as a person would: in a terminal (a detached tmux
# session of 160x40 on a private tmux server), on a fresh loop-mounted
# 1 KiB-block XFS, with writes made by tests/e2e/workload, which prints the
# figures a correct tool must show (computed from the offsets it writes,
# never from the tool). Reads the screen with `tmux capture-pane -p`.
# Then batch mode (--json, text, no terminal) and bad arguments.
#
#   bash tests/cli/top_tmux.sh        (root; needs tmux, jq, a built tree)
#
# Prints PASS/FAIL lines and "N passed, N failed"; exits non-zero on failure.
# Everything it starts (tmux server, tool processes, loop devices, mounts)
# is undone on every exit path.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
XFSLOOP_NO_TRAP=1	# our trap below calls xfsloop_cleanup_all
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"

SOCK=iomapdirty-top-test-$$	# private tmux server: never touches others
work=$(mktemp -d /tmp/cli_top.XXXXXX)
TOP_PID=
BATCH_PID=
FD9_OPEN=0
SCREEN=

tm() { tmux -L "$SOCK" -f /dev/null "$@"; }

cleanup() {
	local p
	for p in $TOP_PID $BATCH_PID; do
		kill -TERM "$p" 2>/dev/null && { sleep 1; kill -KILL "$p" 2>/dev/null; }
	done
	tm kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	[[ $FD9_OPEN == 1 ]] && exec 9>&-
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# tmux and jq are installed by scripts/install-deps.sh (make check runs it)
# and make check runs as root: a missing one is a broken precondition here,
# not a reason to skip.
for tool in tmux jq; do
	if ! command -v "$tool" >/dev/null; then
		fail top.precondition "$tool not installed (scripts/install-deps.sh)"
		cli_finish
		exit
	fi
done
if [[ $(id -u) != 0 ]]; then
	fail top.precondition "needs root (BPF, loop devices)"
	cli_finish
	exit
fi
if [[ ! -x $IOMAPDIRTY || ! -x $WORKLOAD ]]; then
	fail top.build "build first: make && make -C tests/e2e"
	cli_finish
	exit
fi

# human BYTES: the rule of top's interactive byte columns, written out again
# here (not taken from the tool): below 1024 the integer; otherwise
# BYTES / 1024^k for the largest k with 1024^k <= BYTES, one decimal rounded
# half up (tenths = (10 BYTES + 1024^k / 2) / 1024^k), suffix K, M, G, T; a
# value that rounds to 1024.0 takes the next suffix. 1700 -> "1.7K".
human() {
	local v=$1 unit=1024 k=0 units=KMGT t

	if ((v < 1024)); then
		echo "$v"
		return
	fi
	while ((k < 3 && unit * 1024 <= v)); do
		unit=$((unit * 1024)); k=$((k + 1))
	done
	t=$(((v * 10 + unit / 2) / unit))
	if ((t >= 10240 && k < 3)); then
		unit=$((unit * 1024)); k=$((k + 1))
		t=$(((v * 10 + unit / 2) / unit))
	fi
	echo "$((t / 10)).$((t % 10))${units:k:1}"
}

# ratio NUM DEN: "%.2fx" as the tool prints ROUND and AMP
ratio() { awk -v n="$1" -v d="$2" 'BEGIN { if (d == 0) print "n/a"; else printf "%.2fx\n", n / d }'; }

capture() { SCREEN=$(tm capture-pane -p -t top:0.0 2>/dev/null); }
# wait_for SECONDS FIXED-STRING...: until the screen holds every string
wait_for() {
	local secs=$1 i s ok
	shift
	for ((i = 0; i < secs * 5; i++)); do
		capture
		ok=1
		for s in "$@"; do
			grep -qF -- "$s" <<<"$SCREEN" || { ok=0; break; }
		done
		[[ $ok == 1 ]] && return 0
		sleep 0.2
	done
	return 1
}
show_screen() { sed 's/^/#  | /' <<<"$SCREEN"; }
# SHOW_SCREENS=1: print the screen at the main steps (for the record)
show_step() { [[ ${SHOW_SCREENS:-0} == 1 ]] && { echo "# screen: $1"; show_screen; }; return 0; }
# screen_check NAME SECONDS STRING...: PASS when the screen shows them all
screen_check() {
	local name=$1 secs=$2
	shift 2
	if wait_for "$secs" "$@"; then
		pass "$name"
	else
		fail "$name" "screen never showed: $*"
		show_screen
	fi
}
# row PATH-CELL: the table line whose PATH cell is exactly PATH-CELL
row() { awk -v p="$1" 'substr($0, 1, length(p) + 1) == p " "' <<<"$SCREEN" | head -1; }
# field PATH-CELL N: Nth column after PATH (1 DEV, 2 APP, 3 DIRTY, 4 WB,
# 5 FOLIOS, 6 ROUND, 7 AMP, 8 MAXFOLIO)
field() {
	local r
	r=$(row "$1")
	r=${r:${#1}}
	awk -v n="$2" '{ print $n }' <<<"$r"
}
# settle SECONDS PATH-CELL N EXPECTED [PATH-CELL N EXPECTED ...]: waits until
# every cell shows its value. A refresh can come between a write's fsync and
# the end of its folio's writeback context (finished by the next refresh's
# flush), so a row may show the state of a moment before; the tool must get
# there within a few refreshes. The checks that follow read this screen.
settle() {
	local secs=$1 i j ok
	shift
	for ((i = 0; i < secs * 5; i++)); do
		capture
		ok=1
		for ((j = 1; j <= $#; j += 3)); do
			local p=${!j} n=$((j + 1)) e=$((j + 2))
			[[ $(field "$p" "${!n}") == "${!e}" ]] || { ok=0; break; }
		done
		[[ $ok == 1 ]] && return 0
		sleep 0.2
	done
	return 1
}
line_no() { awk -v p="$1" 'substr($0, 1, length(p) + 1) == p " " { print NR; exit }' <<<"$SCREEN"; }
type_line() { tm send-keys -t top:0.0 -l "$1" && tm send-keys -t top:0.0 Enter; }
# the tool: the child of the pane's shell (whatever the binary is named)
tool_pid() { pgrep -P "$(tm display -p -t top:0.0 '#{pane_pid}')" | head -1; }
pane_alt() { tm display -p -t top:0.0 '#{alternate_on}'; }
wait_file() {	# FILE SECONDS
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.2
	done
	return 1
}

# ------------------------------------------------------------ fixtures
mnt=$(xfsloop_make 1024 512) || { fail top.fixture "xfsloop_make failed"; cli_finish; exit; }
mkdir -p "$mnt/d1" "$mnt/sub/dir"
A=$mnt/d1/a.dat
B=$mnt/sub/dir/b.dat
"$WORKLOAD" prep "$A" 1M >/dev/null && "$WORKLOAD" prep "$B" 1M >/dev/null ||
	{ fail top.prep "workload prep failed"; cli_finish; exit; }

# One instance at a time unless --shared: if another one (someone else's)
# holds the lock, run alongside it rather than fail for a reason unrelated
# to top.
shared=
if ! flock -n /run/iomapdirty/lock true 2>/dev/null; then
	echo "# another iomapdirty instance holds the lock: using --shared"
	shared=--shared
fi

# ------------------------------------------------------- interactive top
tm new-session -d -s top -x 160 -y 40 -c "$CLI_TOP" \
	"env -u TMUX PS1='$ ' bash --norc --noprofile -i" ||
	{ fail top.tmux "cannot start tmux"; cli_finish; exit; }
type_line "stty -g > $work/stty.before"
wait_file "$work/stty.before" 10
type_line "$IOMAPDIRTY top --mount $mnt -C -i 1 -s app $shared; echo TOP_EXIT=\$? > $work/rc; cat $work/rc"

screen_check top.tmux.header 90 "iomapdirty top - cumulative since attach" \
	"kernel family" "attach plan:" "filesystem: $(xfsloop_dev "$mnt") xfs on $mnt" \
	"losses since attach: none" "0 files" "sort: APP desc" "PATH" "MAXFOLIO"
check top.tmux.alternate_screen_on 1 "$(pane_alt)"
TOP_PID=$(tool_pid)
[[ -n $TOP_PID ]] && pass top.tmux.process || fail top.tmux.process "no iomapdirty under the tmux shell"

expA=$("$WORKLOAD" scatter "$A" --count 10 --len 100 --stride 20000)
expB=$("$WORKLOAD" scatter "$B" --count 17 --len 100 --stride 20000)
appA=$(jq .app_bytes <<<"$expA")
appB=$(jq .app_bytes <<<"$expB")
check top.workload.a_bytes 1000 "$appA"	# 10 x 100, as asked of the workload
check top.workload.b_bytes 1700 "$appB"

# both rows with their expected APP, after a refresh
screen_check top.tmux.rows 15 "$A " "$B " "2 files"
settle 10 "$A" 2 "$(human "$appA")" "$A" 4 "$(human "$(jq .submitted_bytes <<<"$expA")")" \
	"$B" 2 "$(human "$appB")" "$B" 4 "$(human "$(jq .submitted_bytes <<<"$expB")")"
for f in A B; do
	if [[ $f == A ]]; then p=$A exp=$expA; else p=$B exp=$expB; fi
	check "top.tmux.$f.full_path" "$p" "$(row "$p" | awk '{ print $1 }')"
	check "top.tmux.$f.dev" "$(jq -r .dev <<<"$exp")" "$(field "$p" 1)"
	check "top.tmux.$f.app" "$(human "$(jq .app_bytes <<<"$exp")")" "$(field "$p" 2)"
	check "top.tmux.$f.dirty" "$(human "$(jq .dirty_bytes <<<"$exp")")" "$(field "$p" 3)"
	check "top.tmux.$f.wb" "$(human "$(jq .submitted_bytes <<<"$exp")")" "$(field "$p" 4)"
	check "top.tmux.$f.folios" "$(jq .folios <<<"$exp")" "$(field "$p" 5)"
	check "top.tmux.$f.round" \
		"$(ratio "$(jq .app_dirty_bytes <<<"$exp")" "$(jq .app_bytes <<<"$exp")")" \
		"$(field "$p" 6)"
done
check top.tmux.human_1700 "1.7K" "$(field "$B" 2)"	# the rule, by hand
show_step "after the writes"
check_match top.tmux.totals "totals: app $(human $((appA + appB))) " "$SCREEN"
la=$(line_no "$A") lb=$(line_no "$B")
if [[ -n $la && -n $lb && $lb -lt $la ]]; then
	pass top.tmux.sorted_by_app_desc
else
	fail top.tmux.sorted_by_app_desc "b.dat (line ${lb:-?}) should be above a.dat (line ${la:-?})"
	show_screen
fi

# sort keys: > < s move the column, r reverses, digits and initials pick
keys_check() {	# NAME KEY EXPECTED-STATUS
	tm send-keys -t top:0.0 -l "$2"
	screen_check "$1" 5 "$3"
}
keys_check top.keys.next '>' "sort: DIRTY desc"
keys_check top.keys.prev '<' "sort: APP desc"
keys_check top.keys.s 's' "sort: DIRTY desc"
keys_check top.keys.reverse 'r' "sort: DIRTY asc"
la=$(line_no "$A") lb=$(line_no "$B")
[[ -n $la && -n $lb && $la -lt $lb ]] && pass top.keys.reverse_reorders ||
	fail top.keys.reverse_reorders "dirty asc: a.dat (line ${la:-?}) should be above b.dat (line ${lb:-?})"
keys_check top.keys.unreverse 'r' "sort: DIRTY desc"
keys_check top.keys.digit '9' "sort: MAXFOLIO desc"
keys_check top.keys.initial_p 'p' "sort: PATH asc"
la=$(line_no "$A") lb=$(line_no "$B")
[[ -n $la && -n $lb && $la -lt $lb ]] && pass top.keys.path_order ||
	fail top.keys.path_order "path asc: d1/a.dat should be above sub/dir/b.dat"
keys_check top.keys.cumulative_off 'c' "iomapdirty top - per interval of 1 s"
keys_check top.keys.cumulative_on 'c' "iomapdirty top - cumulative since attach"
keys_check top.keys.initial_a 'a' "sort: APP desc"

# rename one file, delete the other (open, unlink, write + fsync through
# the open file), write once more: the rows keep their inode and add up
A2=$mnt/d1/a-renamed.dat
mv "$A" "$A2"
exp2A=$("$WORKLOAD" scatter "$A2" --count 1 --len 100 --stride 1 --start 50000)
exec 9<>"$B"
FD9_OPEN=1
rm "$B"
exp2B=$("$WORKLOAD" scatter "/proc/$$/fd/9" --count 1 --len 100 --stride 1 --start 50000)
screen_check top.tmux.moved_deleted 20 "$A (moved)" "$B (deleted)"
app2A=$(human $((appA + $(jq .app_bytes <<<"$exp2A"))))
app2B=$(human $((appB + $(jq .app_bytes <<<"$exp2B"))))
settle 10 "$A (moved)" 2 "$app2A" "$B (deleted)" 2 "$app2B"
check top.tmux.moved.app "$app2A" "$(field "$A (moved)" 2)"
check top.tmux.deleted.app "$app2B" "$(field "$B (deleted)" 2)"
check top.tmux.still_2_files 1 "$(grep -c '^2 files ' <<<"$SCREEN")"
show_step "after mv and unlink"
exec 9>&-
FD9_OPEN=0

# q: exit status 0, the terminal as it was before
tm send-keys -t top:0.0 q
if wait_file "$work/rc" 20; then
	check top.tmux.q_exit_status TOP_EXIT=0 "$(cat "$work/rc")"
	TOP_PID=
else
	fail top.tmux.q_exit_status "still running 20 s after q"
fi
sleep 0.5
capture
check top.tmux.alternate_screen_off 0 "$(pane_alt)"
if grep -q 'sort: ' <<<"$SCREEN" || ! grep -q "^TOP_EXIT=0" <<<"$SCREEN"; then
	fail top.tmux.screen_restored "top's screen still there, or no shell output after it"
	show_screen
else
	pass top.tmux.screen_restored
fi
show_step "after q"
type_line "stty -g > $work/stty.after"
wait_file "$work/stty.after" 10
check top.tmux.tty_modes_restored "$(cat "$work/stty.before")" "$(cat "$work/stty.after" 2>/dev/null)"

# Ctrl-C (SIGINT from the terminal), SIGTERM, and SIGHUP (a closed ssh
# session, tmux kill-session) leave the terminal clean too
for sig in INT TERM HUP; do
	rm -f "$work/rc" "$work/stty.after"
	type_line "clear; $IOMAPDIRTY top --mount $mnt -i 1 $shared; echo TOP_EXIT=\$? > $work/rc"
	if ! wait_for 90 "sort: WB desc"; then
		fail "top.tmux.sig$sig.start" "no top screen"
		show_screen
		continue
	fi
	TOP_PID=$(tool_pid)
	if [[ $sig == INT ]]; then
		tm send-keys -t top:0.0 C-c
	else
		kill -"$sig" "$TOP_PID"
	fi
	if wait_file "$work/rc" 20; then
		check "top.tmux.sig$sig.exit_status" TOP_EXIT=0 "$(cat "$work/rc")"
		TOP_PID=
	else
		fail "top.tmux.sig$sig.exit_status" "still running 20 s after SIG$sig"
	fi
	sleep 0.3
	check "top.tmux.sig$sig.alternate_screen_off" 0 "$(pane_alt)"
	type_line "stty -g > $work/stty.after"
	wait_file "$work/stty.after" 10
	check "top.tmux.sig$sig.tty_modes_restored" "$(cat "$work/stty.before")" \
		"$(cat "$work/stty.after" 2>/dev/null)"
done
tm kill-server 2>/dev/null

# ------------------------------------------------------------ batch mode
# JSON: 2 reports and the summary; the writes fall in the first interval.
C=$mnt/sub/dir/c.dat
"$WORKLOAD" prep "$C" 1M >/dev/null
"$IOMAPDIRTY" top --mount "$mnt" -b -n 2 -i 2 --json $shared >"$work/top.json" 2>"$work/top.err" &
BATCH_PID=$!
for _ in $(seq 900); do
	grep -qx "iomapdirty: ready (pid $BATCH_PID)" "$work/top.err" && break
	kill -0 "$BATCH_PID" 2>/dev/null || break
	sleep 0.1
done
expA=$("$WORKLOAD" scatter "$A2" --count 10 --len 100 --stride 20000)
expC=$("$WORKLOAD" scatter "$C" --count 17 --len 100 --stride 20000)
bounded_wait "$BATCH_PID" 60
check top.json.exit_status 0 "$?"
BATCH_PID=
check top.json.lines 3 "$(wc -l <"$work/top.json")"
n=0
while IFS= read -r l; do
	n=$((n + 1))
	jq -e . >/dev/null 2>&1 <<<"$l" && pass "top.json.line$n.parses" ||
		fail "top.json.line$n.parses" "${l:0:200}"
done <"$work/top.json"
check top.json.types "top top summary" "$(jq -r .type "$work/top.json" | xargs)"
check top.json.intervals "1 2" "$(jq -r 'select(.type == "top") | .interval' "$work/top.json" | xargs)"
check top.json.schema "iomapdirty/1" "$(jq -r .schema "$work/top.json" | sort -u)"
check top.json.sort "wb" "$(jq -r .sort "$work/top.json" | sort -u)"
sum=$(tail -n 1 "$work/top.json")
check top.json.summary_cumulative true "$(jq .cumulative <<<"$sum")"
for f in A C; do
	if [[ $f == A ]]; then p=$A2 exp=$expA; else p=$C exp=$expC; fi
	ino=$(jq .ino <<<"$exp")
	file=$(jq -c --argjson ino "$ino" '.files[] | select(.ino == $ino)' <<<"$sum")
	check "top.json.$f.path" "\"$p\"" "$(jq .path <<<"$file")"
	check "top.json.$f.path_state" '"ok"' "$(jq .path_state <<<"$file")"
	check "top.json.$f.dev" "$(jq .dev <<<"$exp")" "$(jq .dev <<<"$file")"
	for k in app_bytes write_calls dirty_bytes submitted_bytes folios; do
		check "top.json.$f.$k" "$(jq ".$k" <<<"$exp")" "$(jq ".stats.$k" <<<"$file")"
	done
	# the intervals add up to the summary
	check "top.json.$f.intervals_add_up" "$(jq .app_bytes <<<"$exp")" \
		"$(jq -s --argjson ino "$ino" '[.[] | select(.type == "top") | .files[] |
			select(.ino == $ino) | .stats.app_bytes] | add' "$work/top.json")"
done
check top.json.sorted_wb_desc true \
	"$(jq '[.files[].stats.submitted_bytes] | . == (sort | reverse)' <<<"$sum")"
# the loss counters under their names (as in the other subcommands' JSON)
check top.json.losses_named true \
	"$(jq '.losses | has("page_map_full") and has("file_map_full") and has("path_map_full") and has("read_failures")' <<<"$sum")"
check top.json.no_losses 0 "$(jq .lost <<<"$sum")"

# Text: stdout not a terminal means batch, without -b; ends with the summary.
"$IOMAPDIRTY" top --mount "$mnt" -n 1 -i 2 -s path $shared >"$work/top.txt" 2>"$work/top.err" &
BATCH_PID=$!
for _ in $(seq 900); do
	grep -qx "iomapdirty: ready (pid $BATCH_PID)" "$work/top.err" && break
	kill -0 "$BATCH_PID" 2>/dev/null || break
	sleep 0.1
done
expC=$("$WORKLOAD" scatter "$C" --count 17 --len 100 --stride 20000)
expA=$("$WORKLOAD" scatter "$A2" --count 10 --len 100 --stride 20000)
bounded_wait "$BATCH_PID" 60
check top.text.exit_status 0 "$?"
BATCH_PID=
txt=$(cat "$work/top.txt")
summary=$(sed -n '/^=== summary ===$/,$p' "$work/top.txt")
check_match top.text.interval "^=== interval 1 ===$" "$txt"
check_match top.text.summary "^=== summary ===$" "$txt"
check_match top.text.header "^attach plan:" "$txt"
check_match top.text.title "^PATH +DEV +APP +DIRTY +WB +FOLIOS +ROUND +AMP +MAXFOLIO +COMM +CGROUP *$" "$summary"
# exact integers in batch mode; sorted by path: d1/a-renamed.dat, sub/dir/c.dat
check top.text.rows "$A2 $(jq -r .dev <<<"$expA") $(jq .app_bytes <<<"$expA") $(jq .dirty_bytes <<<"$expA")
$C $(jq -r .dev <<<"$expC") $(jq .app_bytes <<<"$expC") $(jq .dirty_bytes <<<"$expC")" \
	"$(grep "^$mnt/" <<<"$summary" | awk '{ print $1, $2, $3, $4 }')"
if grep -q $'\033' "$work/top.txt"; then
	fail top.text.no_escape_codes "escape sequences in batch output"
else
	pass top.text.no_escape_codes
fi

# Lost events are shown by name: 4000 pages dirtied at once overflow what
# --max-pages 1024 holds (256 sets of 7 ways and 128 overflow entries: 1920
# records at most), and the figures that depend on them are short.
D=$mnt/d.dat
"$WORKLOAD" prep "$D" 16M >/dev/null
"$IOMAPDIRTY" top --mount "$mnt" -n 1 -i 3 --max-pages 1024 $shared \
	>"$work/loss.txt" 2>"$work/loss.err" &
BATCH_PID=$!
for _ in $(seq 900); do
	grep -qx "iomapdirty: ready (pid $BATCH_PID)" "$work/loss.err" && break
	kill -0 "$BATCH_PID" 2>/dev/null || break
	sleep 0.1
done
expD=$("$WORKLOAD" scatter "$D" --count 4000 --len 100 --stride 4096)
bounded_wait "$BATCH_PID" 60
check top.losses.exit_status 0 "$?"
BATCH_PID=
check_match top.losses.named_in_summary "^losses: [1-9][0-9]* \(.*page_map_full=[1-9][0-9]*" \
	"$(sed -n '/^=== summary ===$/,$p' "$work/loss.txt")"
gotD=$(awk -v p="$D" '$1 == p { print $3; exit }' "$work/loss.txt")
if [[ -n $gotD && $gotD -lt $(jq .app_bytes <<<"$expD") ]]; then
	pass top.losses.explain_short_app
else
	fail top.losses.explain_short_app "APP '$gotD' should be below $(jq .app_bytes <<<"$expD") with losses"
fi

# SIGINT ends batch mode too: the summary still comes, exit status 0.
"$IOMAPDIRTY" top --mount "$mnt" -b --json -i 1 $shared >"$work/sig.json" 2>"$work/sig.err" &
BATCH_PID=$!
for _ in $(seq 900); do
	grep -qx "iomapdirty: ready (pid $BATCH_PID)" "$work/sig.err" && break
	kill -0 "$BATCH_PID" 2>/dev/null || break
	sleep 0.1
done
expC=$("$WORKLOAD" scatter "$C" --count 3 --len 100 --stride 20000)
sleep 1.5
kill -INT "$BATCH_PID"
bounded_wait "$BATCH_PID" 60
check top.signal.exit_status 0 "$?"
BATCH_PID=
check top.signal.summary_last summary "$(tail -n 1 "$work/sig.json" | jq -r .type)"
check top.signal.summary_app "$(jq .app_bytes <<<"$expC")" \
	"$(tail -n 1 "$work/sig.json" | jq --argjson ino "$(jq .ino <<<"$expC")" \
		'.files[] | select(.ino == $ino) | .stats.app_bytes')"

# Bad values: exit 2 and a clear message, before anything is loaded.
"$IOMAPDIRTY" top -s bogus >/dev/null 2>"$work/bad.err"
check top.bad.sort_exit 2 "$?"
check_match top.bad.sort_lists_columns "unknown column 'bogus'; columns are: path, dev, app, dirty, wb, folios, round, amp, maxfolio" "$(cat "$work/bad.err")"
"$IOMAPDIRTY" top -i 0 >/dev/null 2>"$work/bad.err"
check top.bad.interval_exit 2 "$?"
check_match top.bad.interval_message "--interval wants seconds" "$(cat "$work/bad.err")"
"$IOMAPDIRTY" top -n 0 >/dev/null 2>&1
check top.bad.count_exit 2 "$?"
"$IOMAPDIRTY" top extra >/dev/null 2>&1
check top.bad.argument_exit 2 "$?"

cli_finish
