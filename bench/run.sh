#!/usr/bin/env bash
# bench/run.sh - overhead benchmark of iomapdirty (see docs/PERFORMANCE.md).
#
#   bench/run.sh [--quick] [--reps=N] [--wait-quiet[=SECONDS]] [--no-build]
#                [--only=hot,seed,many] [--keep-raw]
#
#   --quick       smoke run (~2 min): shorter runs, fewer rounds and files
#   --reps=N      rounds per workload (default 5; --quick 2 for hot, 1 else)
#   --wait-quiet  first wait (default up to 900 s) for no cc1, no qemu and a
#                 load average under 0.7; the state is recorded either way
#   --no-build    do not run `make iomapdirty` first
#   --keep-raw    keep the observers' full JSON output (gzip) in results/raw
#
# On a loop-mounted 1 KiB-block XFS made for the run (tests/lib/xfsloop.sh),
# three fio workloads (hot: 4 KiB random overwrites, no fsync; seed: the
# seed's job, examples/seed-randwrite.fio, shortened; many: small random
# overwrites across thousands of files with periodic fsync), each run alone
# (A), under `iomapdirty hist` (B, full accounting), under `iomapdirty top
# -b` (C, when the binary has it), under the bpftrace peer bench/peer.bt (D),
# with only empty programs on the same hooks (E: `bench/floor --type=tp_btf`,
# without statistics; what merely attaching costs, the floor of any tracer
# there), under `iomapdirty hist --accounting always-on` (F) and under the
# Prometheus exporter at its default level, always-on, not scraped (G),
# interleaved in rounds (A B C D E F G, B C D E F G A, ...; each ratio is
# against the A of its own round). Then, per workload, one stats phase with
# the kernel's BPF run-time statistics on (BPF_ENABLE_STATS, held by
# bench/floor --stats only for that phase): iomapdirty at both levels, the
# peer and the floor (empty programs on the same raw tracepoints) attached
# together, ns per event of each program.
# After each workload, bench/micro prices the building blocks (a probe
# read, a direct BTF read, a hash lookup, ...) on its events, and the floor
# of any design on its folios (wb_floor).
# Then load-and-attach time (10 starts), a strace breakdown of one start,
# and the kernel memory of the maps for three --max-pages values.
#
# Prints a table; writes bench/results/latest.json and latest.md, and the
# per-run files under bench/results/raw/ (replaced at each run). Needs root.
# Every observer runs with --shared; every process started here is ended
# here (and dies with the harness: PR_SET_PDEATHSIG in bench/benchutil).
set -uo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
TOOL=$REPO/iomapdirty
OUT=$BENCH/.output
BU=$OUT/benchutil
FLOOR=$OUT/floor
RESULTS=$BENCH/results
RAW=$RESULTS/raw

quick=0 reps= wait_quiet=0 build=1 only=hot,seed,many keep_raw=0
for arg in "$@"; do
	case $arg in
	--quick) quick=1 ;;
	--reps=*) reps=${arg#*=} ;;
	--wait-quiet) wait_quiet=900 ;;
	--wait-quiet=*) wait_quiet=${arg#*=} ;;
	--no-build) build=0 ;;
	--only=*) only=${arg#*=} ;;
	--keep-raw) keep_raw=1 ;;
	-h|--help) sed -n '2,36p' "$0"; exit 0 ;;
	*) echo "run.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
	esac
done

if ((quick)); then
	HOT_S=3 SEED_S=2 MANY_S=3 REPS_HOT=${reps:-2} REPS_OTHER=${reps:-1}
	STATS_REPS=1 LOAD_STARTS=3 NFILES_PER_JOB=1000 OVER_FILES_PER_JOB=9000
else
	HOT_S=10 SEED_S=5 MANY_S=5 REPS_HOT=${reps:-5} REPS_OTHER=${reps:-5}
	STATS_REPS=3 LOAD_STARTS=10 NFILES_PER_JOB=4000 OVER_FILES_PER_JOB=10000
fi
HOT_FILE_MB=128		# per job, 2 jobs: 65536 pages < the default --max-pages
MANY_FILE_KB=16

log() { printf '[bench %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) == 0 ]] || die "needs root (BPF, loop devices, mount)"

# ------------------------------------------------------------ dependencies
need=()
for c in fio bpftrace bpftool jq python3 mkfs.xfs losetup clang; do
	command -v "$c" >/dev/null || need+=("$c")
done
if ((${#need[@]})); then
	log "missing ${need[*]}: installing the project's dependencies"
	"$REPO/scripts/install-deps.sh" >&2 || die "scripts/install-deps.sh failed"
	command -v python3 >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq python3 >/dev/null; } ||
		die "cannot install python3"
fi
command -v strace >/dev/null ||
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null 2>&1 ||
	  log "strace not available: no start-up breakdown"; }

if ((build)); then
	make -C "$REPO" -s iomapdirty >&2 ||
		{ [[ -x $TOOL ]] && log "warning: make failed; benchmarking the existing $TOOL"; } ||
		die "cannot build iomapdirty"
fi
make -C "$BENCH" -s helpers >&2 || die "cannot build bench helpers"
[[ -x $TOOL ]] || die "no $TOOL"

HAVE_TOP=0
"$TOOL" top --help >/dev/null 2>&1 && HAVE_TOP=1
HAVE_EXPORTER=0
"$TOOL" exporter --help >/dev/null 2>&1 && HAVE_EXPORTER=1
# a port nobody listens on (the exporter binds before it attaches)
EXPORTER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# ---------------------------------------------------------------- cleanup
PIDS=()		# benchutil wrappers and fio started by us
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=()
	xfsloop_cleanup_all
}
on_signal() { log "interrupted"; cleanup; trap - EXIT; exit 130; }
export XFSLOOP_NO_TRAP=1
# shellcheck source=../tests/lib/xfsloop.sh
source "$REPO/tests/lib/xfsloop.sh"
trap cleanup EXIT
trap on_signal INT TERM

forget_pid() {
	local p=$1 keep=() q
	for q in "${PIDS[@]}"; do [[ $q == "$p" ]] || keep+=("$q"); done
	PIDS=("${keep[@]}")
}

# ------------------------------------------------------------ quiet check
count_cc1() { local n; n=$(pgrep -c -x cc1 2>/dev/null); echo "${n:-0}"; }
count_qemu() { local n; n=$(pgrep -c -f "^qemu-system" 2>/dev/null); echo "${n:-0}"; }
busy_state() {	# "cc1=N load1=X"
	printf 'cc1=%s qemu=%s load1=%s' "$(count_cc1)" "$(count_qemu)" "$(cut -d' ' -f1 /proc/loadavg)"
}
is_quiet() {
	local cc1 load
	cc1=$(count_cc1)
	load=$(cut -d' ' -f1 /proc/loadavg)
	[[ $cc1 == 0 && $(count_qemu) == 0 ]] && awk -v l="$load" 'BEGIN { exit !(l < 0.7) }'
}
if ((wait_quiet)); then
	log "waiting up to ${wait_quiet}s for a quiet machine (no cc1, no qemu, load < 0.7)"
	for ((i = 0; i < wait_quiet; i += 10)); do
		is_quiet && break
		sleep 10
	done
fi
is_quiet || log "warning: machine busy at start ($(busy_state)); A/B are interleaved, but expect spread"

rm -rf "$RAW"
mkdir -p "$RAW"
START_STATE=$(busy_state)
{
	echo "{"
	echo "\"date\": \"$(date -u +%FT%TZ)\","
	echo "\"quick\": $quick,"
	echo "\"nproc\": $(nproc),"
	echo "\"mem_total_kb\": $(awk '/MemTotal/ {print $2}' /proc/meminfo),"
	echo "\"kernel\": \"$(uname -r)\","
	echo "\"cpu\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')\","
	echo "\"start_state\": \"$START_STATE\","
	echo "\"git\": \"$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)\","
	echo "\"tool_sha256\": \"$(sha256sum "$TOOL" | cut -c1-16)\","
	echo "\"have_top\": $HAVE_TOP,"
	echo "\"fio\": \"$(fio --version)\","
	echo "\"bpftrace\": \"$(bpftrace --version | head -1)\","
	echo "\"hot_seconds\": $HOT_S, \"seed_seconds\": $SEED_S, \"many_seconds\": $MANY_S,"
	echo "\"reps_hot\": $REPS_HOT, \"reps_other\": $REPS_OTHER,"
	echo "\"many_files\": $((2 * NFILES_PER_JOB)), \"many_file_kb\": $MANY_FILE_KB,"
	echo "\"hot_file_mb\": $HOT_FILE_MB"
	echo "}"
} >"$RAW/machine.json"

# ---------------------------------------------------------------- fixture
log "making a 1 KiB-block XFS on a loop device"
MNT=$(xfsloop_make 1024 1200) || die "xfsloop_make failed"
DEV=$(xfsloop_dev "$MNT")
KDEV=$(( (${DEV%:*} << 20) | ${DEV#*:} ))
log "fixture $MNT (dev $DEV)"

# ------------------------------------------------------------- workloads
# fio_args WORKLOAD SECONDS -> the fio command line (without output options)
SEED_JOB=$RAW/seed.fio
sed "s/^runtime=.*/runtime=$SEED_S/" "$REPO/examples/seed-randwrite.fio" >"$SEED_JOB"
fio_args() {
	case $1 in
	hot)
		echo fio --name=hot --directory="$MNT/hot" --nrfiles=1 \
			--filesize=${HOT_FILE_MB}m --numjobs=2 --bs=4k --rw=randwrite \
			--ioengine=psync --overwrite=1 --time_based --runtime="$HOT_S" \
			--group_reporting ;;
	seed)
		echo fio --directory="$MNT/seed" "$SEED_JOB" ;;
	many)
		echo fio --name=many --directory="$MNT/many" --nrfiles=$NFILES_PER_JOB \
			--filesize=${MANY_FILE_KB}k --numjobs=2 --bs=1k --rw=randwrite \
			--file_service_type=random --fsync=32 --ioengine=psync \
			--overwrite=1 --time_based --runtime="$MANY_S" --group_reporting ;;
	esac
}
layout() {
	log "laying out the $1 files"
	mkdir -p "$MNT/$1"
	case $1 in
	hot)
		fio --name=hot --directory="$MNT/hot" --nrfiles=1 --filesize=${HOT_FILE_MB}m \
			--numjobs=2 --bs=1m --rw=write --ioengine=psync --output=/dev/null ;;
	seed)
		fio --directory="$MNT/seed" --create_only=1 --output=/dev/null "$SEED_JOB" ;;
	many)
		fio --name=many --directory="$MNT/many" --nrfiles=$NFILES_PER_JOB \
			--filesize=${MANY_FILE_KB}k --numjobs=2 --bs=${MANY_FILE_KB}k \
			--rw=write --ioengine=psync --output=/dev/null ;;
	esac
	sync -f "$MNT"
}

# -------------------------------------------------------------- observers
# wait_file FILE WRAPPER_PID TIMEOUT_S: 0 when FILE is non-empty
wait_file() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		[[ -s $1 ]] && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# start_obs KIND DIR [ARG...]: starts an observer (floor: with ARGs, e.g.
# --stats, --type=tp_btf); sets OBS_WRAP, OBS_PID. 0 when attached.
start_obs() {
	local kind=$1 dir=$2 cmd
	OBS_WRAP= OBS_PID=
	case $kind in
	hist) cmd=("$TOOL" hist --shared -i 1 --json --mount "$MNT") ;;
	aon) cmd=("$TOOL" hist --shared -i 1 --json --mount "$MNT" --accounting always-on) ;;
	exporter) cmd=("$TOOL" exporter --shared --mount "$MNT" --listen "127.0.0.1:$EXPORTER_PORT") ;;
	top) cmd=("$TOOL" top --shared -b --json -i 1 --mount "$MNT") ;;
	peer) cmd=(env BPFTRACE_MAP_KEYS_MAX=65536 bpftrace -f json "$BENCH/peer.bt" "$KDEV") ;;
	floor) cmd=("$FLOOR" "${@:3}") ;;
	esac
	"$BU" run -e "$dir/$kind.err" -m ready -r "$dir/$kind.ready" -p "$dir/$kind.pid" \
		-o "$dir/$kind.rusage.json" -- "${cmd[@]}" >"$dir/$kind.out" &
	OBS_WRAP=$!
	PIDS+=("$OBS_WRAP")
	wait_file "$dir/$kind.pid" "$OBS_WRAP" 5 || return 1
	OBS_PID=$(<"$dir/$kind.pid")
	if [[ $kind == peer ]]; then
		# attached when its three tracepoints carry its programs
		local i n
		for ((i = 0; i < 600; i++)); do
			n=$(bpftool perf show --json 2>/dev/null |
				jq "[.[] | select(.pid == $OBS_PID)] | length" 2>/dev/null)
			[[ ${n:-0} -ge 3 ]] && break
			kill -0 "$OBS_WRAP" 2>/dev/null || return 1
			sleep 0.05
		done
		[[ ${n:-0} -ge 3 ]] || return 1
		bpftool perf show --json | jq -c "[.[] | select(.pid == $OBS_PID)]" >"$dir/peer.perf.json"
		return 0
	fi
	wait_file "$dir/$kind.ready" "$OBS_WRAP" 30
}

# stop_obs KIND DIR: SIGINT, wait for the summary, keep only what is needed
stop_obs() {
	local kind=$1 dir=$2 wrap=$3 i
	kill -INT "$wrap" 2>/dev/null
	# bpftrace prints its maps and detaches: give it time on a busy machine
	for ((i = 0; i < 900; i++)); do
		kill -0 "$wrap" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$wrap" 2>/dev/null; then
		log "warning: $kind did not stop on SIGINT in 45 s: SIGTERM"
		kill -TERM "$wrap" 2>/dev/null
		sleep 1
		kill -KILL "$wrap" 2>/dev/null
	fi
	wait "$wrap" 2>/dev/null
	forget_pid "$wrap"
	case $kind in
	hist|top|aon)
		# the last summary line, without the per-file list (can be MBs)
		grep '"type":"summary"' "$dir/$kind.out" | tail -1 |
			jq -c '. + {nfiles_listed: ((.files // []) | length)} | del(.files)' \
			>"$dir/$kind.summary.json" 2>/dev/null
		if ((keep_raw)); then gzip -f "$dir/$kind.out"; else rm -f "$dir/$kind.out"; fi ;;
	peer)
		jq -s -c '[.[] | select(.type == "map") | .data] | add // {} |
			{files: ((.["@app_bytes"] // {}) | length),
			 app_bytes: ((.["@app_bytes"] // {}) | [.[]] | add // 0),
			 writes: (.["@writes"] // 0), folios: (.["@folios"] // 0),
			 folio_bytes: (.["@folio_bytes"] // 0),
			 submits: (.["@submits"] // 0),
			 submitted_bytes: (.["@submitted_bytes"] // 0),
			 hole_bytes: (.["@hole_bytes"] // 0)}' \
			"$dir/peer.out" >"$dir/peer.summary.json" 2>/dev/null
		rm -f "$dir/peer.out" ;;
	esac
}

# foreign probes: programs on our tracepoints that are not ours
TPS='["iomap_iter","xfs_file_buffered_write","writeback_dirty_folio","iomap_writeback_folio","iomap_add_to_ioend","iomap_invalidate_folio"]'
foreign_probes() {	# OUR_PROG_IDS_JSON -> count
	local ours=$1
	{
		bpftool link show --json 2>/dev/null |
			jq -c --argjson t "$TPS" '[.[] | select(.type == "raw_tracepoint" and
				(.tp_name as $n | $t | index($n))) | .prog_id]'
		bpftool perf show --json 2>/dev/null |
			jq -c --argjson t "$TPS" '[.[] | select(.tracepoint != null and
				(.tracepoint as $n | $t | index($n))) | .prog_id]'
	} | jq -s --argjson o "$ours" 'add | map(select(. as $p | $o | index($p) | not)) | length'
}

# run_fio WORKLOAD DIR: runs fio in the background (so a signal can end it)
run_fio() {
	local wl=$1 dir=$2 p
	# shellcheck disable=SC2046
	$(fio_args "$wl") --output-format=json --output="$dir/fio.json" >"$dir/fio.err" 2>&1 &
	p=$!
	PIDS+=("$p")
	wait "$p"
	forget_pid "$p"
}

# ------------------------------------------------------------ throughput
# one_run WORKLOAD VARIANT REP
one_run() {
	local wl=$1 v=$2 rep=$3 dir kind= args=() ours='[]' wrap=
	dir=$RAW/$wl/$v-$rep
	mkdir -p "$dir"
	case $v in
	B-hist) kind=hist ;;
	C-top) kind=top ;;
	D-bpftrace) kind=peer ;;
	E-floor) kind=floor args=(--type=tp_btf) ;;	# statistics off, as for B-D
	F-aon) kind=aon ;;
	G-exporter) kind=exporter ;;
	esac
	sync -f "$MNT"	# nothing dirty from before attach
	if [[ -n $kind ]]; then
		if ! start_obs "$kind" "$dir" "${args[@]}"; then
			log "error: $kind did not attach (see $dir/$kind.err)"
			[[ -n $OBS_WRAP ]] && stop_obs "$kind" "$dir" "$OBS_WRAP"
			echo '{"failed": true}' >"$dir/failed.json"
			return 1
		fi
		wrap=$OBS_WRAP
		# floor leaves out what the kernel refuses: say so, not a smaller floor
		[[ $kind == floor ]] && grep -q 'refused' "$dir/floor.err" &&
			log "warning: floor attached only part of its programs: $(grep 'refused:' "$dir/floor.err" | tr '\n' ' ')"
		ours=$("$BU" pidbpf "$OBS_PID" | jq -c '[.progs[].id]')
	fi
	printf '{"state": "%s", "foreign_probes": %s}\n' "$(busy_state)" \
		"$(foreign_probes "$ours")" >"$dir/env.json"
	run_fio "$wl" "$dir"
	sync -f "$MNT"	# observed writeback of what the run dirtied
	if [[ -n $kind ]]; then
		[[ $wl == many && $kind != peer ]] &&
			"$BU" pidbpf "$OBS_PID" --count >"$dir/$kind.bpf.json"
		[[ $wl != many || $kind == peer ]] &&
			"$BU" pidbpf "$OBS_PID" >"$dir/$kind.bpf.json"
		stop_obs "$kind" "$dir" "$wrap"
	fi
	log "$wl $v #$rep: $(jq -r '.jobs[0].write | "\(.iops | floor) IOPS"' "$dir/fio.json" 2>/dev/null) ($(busy_state))"
}

throughput() {
	local wl=$1 n=$2 rep v variants=(A-fio B-hist)
	((HAVE_TOP)) && variants+=(C-top)
	variants+=(D-bpftrace E-floor F-aon)
	((HAVE_EXPORTER)) && variants+=(G-exporter)
	# the order turns by one each round (A B C D E, B C D E A, ...): no variant
	# always follows the same one (the state a run leaves behind, the
	# teardown of an observer, would otherwise favour one variant)
	local nv=${#variants[@]} i
	for ((rep = 1; rep <= n; rep++)); do
		for ((i = 0; i < nv; i++)); do
			one_run "$wl" "${variants[(i + rep - 1) % nv]}" "$rep"
		done
	done
}

# ------------------------------------------------------------ BPF stats
# stats_run WORKLOAD REP: floor (holding BPF_ENABLE_STATS), hist and peer
# attached together; ns per event of each program over the same events.
stats_run() {
	local wl=$1 rep=$2 dir fw hw pw hp pp aw ap
	dir=$RAW/$wl/stats-$rep
	mkdir -p "$dir"
	sync -f "$MNT"
	start_obs floor "$dir" --stats || { log "error: floor did not attach"; return 1; }
	fw=$OBS_WRAP
	if ! start_obs hist "$dir"; then
		log "error: hist did not attach"; stop_obs floor "$dir" "$fw"; return 1
	fi
	hw=$OBS_WRAP hp=$OBS_PID
	if ! start_obs aon "$dir"; then
		log "error: hist always-on did not attach"; stop_obs hist "$dir" "$hw"
		stop_obs floor "$dir" "$fw"; return 1
	fi
	aw=$OBS_WRAP ap=$OBS_PID
	if ! start_obs peer "$dir"; then
		log "error: peer did not attach"; stop_obs aon "$dir" "$aw"
		stop_obs hist "$dir" "$hw"; stop_obs floor "$dir" "$fw"
		return 1
	fi
	pw=$OBS_WRAP pp=$OBS_PID
	printf '{"state": "%s"}\n' "$(busy_state)" >"$dir/env.json"
	run_fio "$wl" "$dir"
	sync -f "$MNT"
	"$BU" pidbpf "$hp" >"$dir/hist.bpf.json"
	"$BU" pidbpf "$ap" >"$dir/aon.bpf.json"
	"$BU" pidbpf "$pp" >"$dir/peer.bpf.json"
	stop_obs peer "$dir" "$pw"
	stop_obs aon "$dir" "$aw"
	stop_obs hist "$dir" "$hw"
	stop_obs floor "$dir" "$fw"
	log "$wl stats #$rep done"
}

# ------------------------------------------------------- building blocks
# bench/micro during one run of workload WL: what a probe read, a direct
# BTF read and a hash lookup cost per event here, and the floor of any
# design on the writeback hook (wb_floor) on this workload's folios.
micro() {
	local wl=$1 dir=$RAW/micro-$1 w
	mkdir -p "$dir"
	sync -f "$MNT"
	"$BU" run -e "$dir/micro.err" -m ready -r "$dir/micro.ready" -- "$OUT/micro" \
		>"$dir/micro.out" &
	w=$!
	PIDS+=("$w")
	if wait_file "$dir/micro.ready" "$w" 30; then
		run_fio "$wl" "$dir"
		sync -f "$MNT"	# every folio it dirtied written back under micro
	else
		log "warning: micro did not attach (see $dir/micro.err)"
	fi
	kill -INT "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	forget_pid "$w"
}

# ------------------------------------------- past the documented file bound
# More files than the files and paths maps hold (16384): the entries must
# stop at max_entries and the misses show as file_map_full/path_map_full.
overflow() {
	local dir=$RAW/overflow n=$OVER_FILES_PER_JOB
	mkdir -p "$dir" "$MNT/over"
	log "past the bound: $((2 * n)) files"
	fio --name=over --directory="$MNT/over" --nrfiles="$n" --filesize=4k --numjobs=2 \
		--bs=4k --rw=write --ioengine=psync --output=/dev/null
	sync -f "$MNT"
	echo $((2 * n)) >"$dir/nfiles"
	start_obs hist "$dir" || { log "error: hist did not attach"; return 1; }
	local w=$OBS_WRAP p=$OBS_PID
	fio --name=over --directory="$MNT/over" --nrfiles="$n" --filesize=4k --numjobs=2 \
		--bs=1k --rw=randwrite --file_service_type=sequential --ioengine=psync \
		--overwrite=1 --io_size=$((n * 4))k --output=/dev/null &
	local f=$!
	PIDS+=("$f")
	wait "$f"
	forget_pid "$f"
	sync -f "$MNT"
	"$BU" pidbpf "$p" --count >"$dir/hist.bpf.json"
	stop_obs hist "$dir" "$w"
	rm -rf "${MNT:?}/over"
	sync -f "$MNT"
}

# ------------------------------------------------------- start-up, memory
startup() {
	local dir=$RAW/startup i
	mkdir -p "$dir"
	sync -f "$MNT"
	for ((i = 1; i <= LOAD_STARTS; i++)); do
		mkdir -p "$dir/$i"
		start_obs hist "$dir/$i" || log "warning: start $i did not attach"
		[[ -n $OBS_WRAP ]] && stop_obs hist "$dir/$i" "$OBS_WRAP"
	done
	log "start-up: $(cat "$dir"/*/hist.ready | awk '{print $1}' | sort -n | tr '\n' ' ')ms"
	if command -v strace >/dev/null; then
		local w p
		"$BU" run -e "$dir/strace.err" -m ready -r "$dir/strace.ready" -p "$dir/strace.pid" -- \
			strace -f --seccomp-bpf -e trace=openat,bpf,close,write,execve -ttt -T \
			-o "$dir/strace.txt" "$TOOL" hist --shared -i 1 --json --mount "$MNT" \
			>/dev/null &
		w=$!
		PIDS+=("$w")
		if wait_file "$dir/strace.ready" "$w" 30; then
			# signal iomapdirty itself: strace does not pass SIGINT on
			p=$(pgrep -P "$(<"$dir/strace.pid")" -x iomapdirty)
			[[ -n $p ]] && kill -INT "$p"
		fi
		for ((i = 0; i < 200; i++)); do kill -0 "$w" 2>/dev/null || break; sleep 0.05; done
		kill -TERM "$w" 2>/dev/null
		wait "$w" 2>/dev/null
		forget_pid "$w"
	fi
	# kernel memory of the maps against --max-pages
	for mp in 16384 131072 524288; do
		mkdir -p "$dir/maxpages-$mp"
		"$BU" run -e "$dir/maxpages-$mp/hist.err" -m ready -r "$dir/maxpages-$mp/hist.ready" \
			-p "$dir/maxpages-$mp/hist.pid" -o "$dir/maxpages-$mp/hist.rusage.json" -- \
			"$TOOL" hist --shared -i 1 --json --mount "$MNT" --max-pages "$mp" \
			>/dev/null &
		w=$!
		PIDS+=("$w")
		if wait_file "$dir/maxpages-$mp/hist.ready" "$w" 30; then
			"$BU" pidbpf "$(<"$dir/maxpages-$mp/hist.pid")" >"$dir/maxpages-$mp/hist.bpf.json"
		fi
		stop_obs maxpages "$dir/maxpages-$mp" "$w"
	done
}

# ------------------------------------------------------------------ main
IFS=, read -ra WLS <<<"$only"
t_start=$(date +%s)
for wl in "${WLS[@]}"; do
	case $wl in hot|seed|many) ;; *) die "unknown workload $wl" ;; esac
	layout "$wl" || die "layout of $wl failed"
	n=$REPS_OTHER
	[[ $wl == hot ]] && n=$REPS_HOT
	# one unrecorded run first: the first run after the layout is slower
	# (log, allocation and cache state), which would flatter every ratio
	mkdir -p "$RAW/warmup-$wl"
	sync -f "$MNT"
	run_fio "$wl" "$RAW/warmup-$wl"
	log "workload $wl: $n interleaved rounds"
	throughput "$wl" "$n"
	# stats rounds: the overhead figure's spread (report.py)
	for ((r = 1; r <= STATS_REPS; r++)); do stats_run "$wl" "$r"; done
	micro "$wl"
	rm -rf "${MNT:?}/$wl"	# room for the next workload
	sync -f "$MNT"
	[[ $wl == many ]] && overflow
done
startup
echo "{\"end_state\": \"$(busy_state)\", \"seconds\": $(( $(date +%s) - t_start ))}" >"$RAW/end.json"
cleanup
trap - EXIT

python3 "$BENCH/report.py" "$RAW" "$RESULTS/latest.json" "$RESULTS/latest.md"
