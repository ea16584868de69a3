#!/usr/bin/env bash
# The main job on an embedded default: a loop-mounted XFS with 1 KiB
# blocks (4 blocks per 4 KiB page) in a temporary directory, a random
# small-overwrite workload with fsync, and iomapdirty's live histograms
# while it runs; everything is torn down at the end, even on Ctrl-C.
#   DEMO_SECONDS  workload length (default 5)
#   DEMO_ARGS     extra iomapdirty hist options (e.g. --json)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# shellcheck source=../tests/lib/xfsloop.sh
source tests/lib/xfsloop.sh
seconds=${DEMO_SECONDS:-5}

if [ "$(id -u)" != 0 ]; then
	echo "demo: needs root (loop devices, mount, BPF)" >&2
	exit 4
fi
mnt=$(xfsloop_make 1024 512)
file=$mnt/demo.dat
echo "demo: XFS with 1 KiB blocks on $mnt ($(xfsloop_dev "$mnt")); laying out a 32 MiB file"
fio --name=layout --filename="$file" --size=32M --bs=1M --rw=write \
    --end_fsync=1 --ioengine=psync >/dev/null

err=$(mktemp)
# shellcheck disable=SC2086
./iomapdirty hist --mount "$mnt" -i 1 ${DEMO_ARGS:-} 2>"$err" &
tool=$!
for _ in $(seq 100); do grep -q ready "$err" && break; sleep 0.1; done
cat "$err"
if ! grep -q ready "$err"; then
	wait "$tool"
	exit $?
fi
echo "demo: random 512-byte overwrites with an fsync every 16 writes, ${seconds} s"
fio --name=demo --filename="$file" --size=32M --bs=512 --rw=randwrite \
    --overwrite=1 --fsync=16 --ioengine=psync --time_based --runtime="$seconds" \
    >/dev/null
sleep 1.5
kill -INT "$tool"
wait "$tool"
rc=$?
rm -f "$err"
exit $rc
