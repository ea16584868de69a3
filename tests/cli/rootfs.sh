#!/usr/bin/env bash
# --path.rootfs DIR (a container's view of the host): the exporter runs in
# a mount namespace of its own (unshare -m) where the host's root is
# bind-mounted at DIR with its submounts and the loop XFS is no longer at
# its host path, exactly as in a container started with -v /:DIR. Its
# /metrics must label the filesystem with the host's mount point (from
# DIR/proc/1/mountinfo), not DIR/... (its own mountinfo), and count the
# workload's writes made on the host; --mount takes the host's path.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=../lib/scrape.sh
source "$CLI_TOP/tests/lib/scrape.sh"
XFSLOOP_NO_TRAP=1
# shellcheck source=../lib/xfsloop.sh
source "$CLI_TOP/tests/lib/xfsloop.sh"
work=$(mktemp -d /tmp/iomapdirty-rootfs.XXXXXX)
cleanup() {
	local p
	for p in "${CLI_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${CLI_PIDS[@]}"; do bounded_wait "$p" 10; done
	xfsloop_cleanup_all
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bad input: a DIR that is not a host root is refused before attaching
# (bounded: an exporter that took it would serve until stopped)
timeout -s KILL 20 "$IOMAPDIRTY" exporter --path.rootfs "$work" --listen 127.0.0.1:1 \
	>/dev/null 2>"$work/bad.err"
check rootfs.not_a_host_root.exit 2 "$?"
check_match rootfs.not_a_host_root.message "proc/1/mountinfo: No such file" "$(cat "$work/bad.err")"
timeout -s KILL 20 "$IOMAPDIRTY" exporter --path.rootfs "$work/none" >/dev/null 2>"$work/bad.err"
check rootfs.missing_dir.exit 2 "$?"

mnt=$(xfsloop_make 1024 512) || { fail rootfs.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null
port=$((20000 + RANDOM % 10000))
while ss -Hltn "sport = :$port" | grep -q .; do port=$((20000 + RANDOM % 10000)); done
root=$work/host
mkdir "$root"
# the "container": the host's root at $root, the XFS gone from its host path
cat >"$work/ctr.sh" <<SH
mount --rbind / "$root" && umount -l "$mnt" || exit 99
exec "$IOMAPDIRTY" exporter --path.rootfs "$root" --mount "$mnt" \
	--listen 127.0.0.1:$port --top-files 5
SH
unshare -m --propagation private bash "$work/ctr.sh" >"$work/ctr.out" 2>"$work/ctr.err" &
TOOL_PID=$!
CLI_PIDS+=("$TOOL_PID")
ready=no
for i in $(seq 300); do
	grep -q 'ready (pid' "$work/ctr.err" && { ready=yes; break; }
	kill -0 "$TOOL_PID" 2>/dev/null || break
	sleep 0.1
done
check rootfs.exporter_ready yes "$ready"
[[ $ready == yes ]] || echo "# $(tail -3 "$work/ctr.err")"

# the writes, on the host: 8 of 100 bytes 20000 apart, one block each
exp=$("$WORKLOAD" scatter "$mnt/f" --count 8 --len 100 --stride 20000)
scrape_matches_workload rootfs "http://127.0.0.1:$port/metrics" "$mnt" "$dev" "$exp"
# the per-file series: the file's host path, checked as present there
check rootfs.file_path_is_host_path "$mnt/f" "$(grep -m1 "^iomapdirty_file_app_bytes_total{" \
	<<<"$SCRAPE_BODY" | sed -n 's/.*path="\([^"]*\)".*/\1/p')"
check rootfs.no_container_path "" "$(grep -F "$root" <<<"$SCRAPE_BODY" | head -2)"
stop_tool TERM
check rootfs.exporter_exit 0 "$TOOL_RC"
cli_finish
