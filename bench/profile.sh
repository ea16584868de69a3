#!/usr/bin/env bash
# bench/profile.sh - where iomapdirty's BPF programs spend their time.
#
#   bench/profile.sh [SECONDS] [hot|seed]
#
# Runs one workload of bench/run.sh (default hot, 6 s) under
# `iomapdirty hist --shared`, samples all CPUs with `perf record -e cpu-clock
# -g`, and prints, for the samples taken inside one of iomapdirty's BPF
# programs, the program and the kernel function at the top of the stack
# (probe reads, hash map operations, bpf_loop, ...). Needs root and perf.
# cpu-clock cannot sample with interrupts off: tp_dirty_folio runs under
# the mapping's i_pages lock with interrupts disabled, so its time shows up
# as _raw_spin_unlock_irqrestore in filemap_dirty_folio, not here.
# Not part of run.sh: perf is optional and the profile is for diagnosis.
# PROFILE_KEEP=FILE keeps the perf.data (e.g. for perf report --sort sym).
set -uo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$BENCH/.." && pwd)
SECS=${1:-6}
WL=${2:-hot}
command -v perf >/dev/null || { echo "profile.sh: needs perf (linux-perf)" >&2; exit 1; }
make -C "$BENCH" -s helpers >&2 || exit 1
export XFSLOOP_NO_TRAP=1
# shellcheck source=../tests/lib/xfsloop.sh
source "$REPO/tests/lib/xfsloop.sh"
WORK=$(mktemp -d /tmp/iomapdirty-profile.XXXXXX)
WRAP=
cleanup() {
	[[ -n $WRAP ]] && { kill -INT "$WRAP" 2>/dev/null; sleep 1; kill -TERM "$WRAP" 2>/dev/null; wait "$WRAP" 2>/dev/null; }
	xfsloop_cleanup_all
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

MNT=$(xfsloop_make 1024 1024) || exit 1
mkdir -p "$MNT/w"
case $WL in
hot)
	fio --name=hot --directory="$MNT/w" --nrfiles=1 --filesize=128m --numjobs=2 --bs=1m \
		--rw=write --ioengine=psync --output=/dev/null
	FIO=(fio --name=hot --directory="$MNT/w" --nrfiles=1 --filesize=128m --numjobs=2
	     --bs=4k --rw=randwrite --ioengine=psync --overwrite=1 --time_based
	     --runtime=$((SECS + 2)) --output=/dev/null) ;;
seed)
	sed "s/^runtime=.*/runtime=$((SECS + 2))/" "$REPO/examples/seed-randwrite.fio" >"$WORK/seed.fio"
	fio --directory="$MNT/w" --create_only=1 --output=/dev/null "$WORK/seed.fio"
	FIO=(fio --directory="$MNT/w" --output=/dev/null "$WORK/seed.fio") ;;
*) echo "profile.sh: workload hot or seed" >&2; exit 2 ;;
esac
sync -f "$MNT"
"$BENCH/.output/benchutil" run -e "$WORK/hist.err" -m ready -r "$WORK/ready" -- \
	"$REPO/iomapdirty" hist --shared -i 1 --json --mount "$MNT" >/dev/null &
WRAP=$!
for _ in $(seq 200); do [[ -s $WORK/ready ]] && break; sleep 0.05; done
[[ -s $WORK/ready ]] || { echo "profile.sh: iomapdirty did not attach" >&2; exit 1; }
"${FIO[@]}" &
FIOPID=$!
sleep 1
perf record -q -e cpu-clock -F 2999 -a -g -o "$WORK/perf.data" -- sleep "$SECS" 2>/dev/null
[[ -n ${PROFILE_KEEP:-} ]] && cp "$WORK/perf.data" "$PROFILE_KEEP"
wait "$FIOPID"
sync -f "$MNT"
perf script -i "$WORK/perf.data" -F ip,sym 2>/dev/null | python3 -c '
import collections, re, sys
total = 0; inbpf = 0
by_prog = collections.Counter(); by_leaf = collections.Counter(); by_inner = collections.Counter()
stack = []
def flush():
    global total, inbpf
    if not stack:
        return
    total += 1
    progs = [s for s in stack if s.startswith("bpf_prog_")]
    if progs:
        inbpf += 1
        # outermost program (the one attached to the tracepoint)
        prog = re.sub(r"^bpf_prog_[0-9a-f]+_", "", progs[-1])
        by_prog[prog] += 1
        by_inner[re.sub(r"^bpf_prog_[0-9a-f]+_", "", progs[0])] += 1
        leaf = stack[0]
        if leaf.startswith("bpf_prog_"):
            leaf = "(BPF instructions: " + re.sub(r"^bpf_prog_[0-9a-f]+_", "", leaf) + ")"
        by_leaf[leaf] += 1
for line in sys.stdin:
    line = line.strip()
    if not line:
        flush(); stack = []
        continue
    parts = line.split(None, 1)
    stack.append(parts[1] if len(parts) > 1 else "?")
flush()
print(f"samples: {total}, inside iomapdirty BPF programs: {inbpf} ({100*inbpf/max(total,1):.1f}% of all CPU time)")
print("by program (the one attached to the tracepoint):")
for k, v in by_prog.most_common(8):
    print(f"  {100*v/max(inbpf,1):5.1f}%  {k}")
print("by BPF function (innermost: callbacks of bpf_loop, subprograms):")
for k, v in by_inner.most_common(10):
    print(f"  {100*v/max(inbpf,1):5.1f}%  {k}")
print("by function at the top of the stack:")
for k, v in by_leaf.most_common(18):
    print(f"  {100*v/max(inbpf,1):5.1f}%  {k}")
'
