#!/usr/bin/env bash
# `iomapdirty verify` under a running database (issue 22): Debian's
# PostgreSQL 15, started here as the postgres user on a loop XFS with 4 KiB
# blocks (its own socket directory and port), loaded with `pgbench -i`
# BEFORE verify attaches (its table pages dirty in the page cache: the
# kernel's periodic writeback is held off meanwhile), then pgbench runs
# under verify and a CHECKPOINT writes everything back. Expected: PASS;
# the data bytes seen at the block layer are the tool's submitted bytes;
# the folios dirtied before attach are reported apart. The server, the
# filesystem and the settings are undone at the end, also on failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
pgbin=/usr/lib/postgresql/15/bin
work=$(mktemp -d /tmp/cli_pg.XXXXXX)
vm=/proc/sys/vm
old_expire=$(<"$vm/dirty_expire_centisecs")
old_wb=$(<"$vm/dirty_writeback_centisecs")
data= sock=
pg() { runuser -u postgres -- "$@"; }
restore() {
	[[ -n $data && -f $data/postmaster.pid ]] &&
		pg "$pgbin/pg_ctl" -D "$data" -m immediate -w -t 20 stop >/dev/null 2>&1
	echo "$old_expire" >"$vm/dirty_expire_centisecs"
	echo "$old_wb" >"$vm/dirty_writeback_centisecs"
	xfsloop_cleanup_all
	rm -rf "$work" "$sock"
}
trap restore EXIT

if [[ ! -x $pgbin/pg_ctl || ! -x $pgbin/pgbench ]] || ! id postgres >/dev/null 2>&1; then
	fail pg.installed "PostgreSQL 15 missing (Debian's postgresql: make deps)"
	cli_finish
	exit
fi
mnt=$(xfsloop_make 4096 512) || { fail pg.setup "xfsloop_make 4096"; cli_finish; exit; }
# the postgres user must reach the data directory (the fixture's folder is 0700)
chmod 711 "$(dirname "$mnt")"
data=$mnt/pgdata
sock=$(mktemp -d /tmp/wt-verify-pgsock.XXXXXX)
mkdir "$data" && chown postgres: "$data" "$sock" && chmod 700 "$data" "$sock"
# a free port of our own, away from a system cluster on 5432
port=
for p in $(shuf -i 20000-29999 -n 20); do
	ss -Htln "sport = :$p" | grep -q . || { port=$p; break; }
done
pgopts="-c listen_addresses='' -k $sock -p $port -c shared_buffers=32MB"
if ! pg "$pgbin/initdb" -D "$data" -A trust -N >"$work/initdb.log" 2>&1 ||
   ! pg "$pgbin/pg_ctl" -D "$data" -o "$pgopts" -l "$sock/pg.log" -w -t 30 start >/dev/null; then
	fail pg.start "$(tail -3 "$work/initdb.log" "$sock/pg.log" 2>/dev/null)"
	cli_finish
	exit
fi
pass pg.started

# loaded before verify attaches; its pages stay dirty until the window
sync
echo 360000 >"$vm/dirty_expire_centisecs"
echo 0 >"$vm/dirty_writeback_centisecs"
pg "$pgbin/pgbench" -h "$sock" -p "$port" -i -s 2 -q postgres >"$work/init.log" 2>&1
check pg.pgbench_init 0 "$?"
dirty_before=$(awk '/^Dirty:/ {print $2}' /proc/meminfo)

j=$work/v.json
if start_tool "$j" "$work/v.err" verify --mount "$mnt" --json; then
	pg "$pgbin/pgbench" -h "$sock" -p "$port" -c 2 -T 20 postgres >"$work/run.log" 2>&1
	check pg.pgbench_run 0 "$?"
	pg "$pgbin/psql" -X -q -h "$sock" -p "$port" -d postgres -c CHECKPOINT
	check pg.checkpoint 0 "$?"
	stop_tool INT
	check pg.exit_pass 0 "$TOOL_RC"
	check pg.verdict '"pass"' "$(jq .verdict "$j")"
	check pg.violations 0 "$(jq '[.filesystems[].stats.violation_blocks] | add' "$j")"
	check pg.unchecked 0 "$(jq '[.filesystems[].stats.unchecked_blocks] | add' "$j")"
	check pg.losses 0 "$(jq '[.losses[]] | add' "$j")"
	check pg.pending 0 "$(jq .pending_blocks "$j")"
	# every byte writeback submitted reached the block layer, no more
	check_match pg.some_data '^[1-9][0-9]*$' "$(jq '[.filesystems[].stats.submitted_bytes] | add' "$j")"
	check pg.block_layer_data_bytes "$(jq '[.filesystems[].stats.submitted_bytes] | add' "$j")" \
		"$(jq '[.block_devices[].data_bytes] | add' "$j")"
	# the table pages pgbench -i left dirty: checked, and reported apart
	check_match pg.preattach_folios '^[1-9][0-9]*$' "$(jq .preattach_folios "$j")"
	check_match pg.preattach_blocks '^[1-9][0-9]*$' "$(jq .preattach_checked_blocks "$j")"
	check_match pg.window_blocks '^[1-9][0-9]*$' "$(jq .checked_blocks "$j")"
	check_match pg.reason "dirtied before attach" "$(jq -r .reason "$j")"
	echo "# pgbench: $(grep -o 'tps = [0-9.]*' "$work/run.log" | head -1); page cache dirty" \
		"at attach ${dirty_before} kB; pre-attach $(jq .preattach_folios "$j") folios," \
		"window $(jq .checked_blocks "$j") blocks"
else
	fail pg.ready "$(tail -2 "$work/v.err")"
fi
pg "$pgbin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null
check pg.stopped 0 "$?"
cli_finish
