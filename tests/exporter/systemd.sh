#!/usr/bin/env bash
# The shipped unit (deploy/systemd) started by systemd as PID 1 (issue 23):
# a Debian system container booted with systemd-nspawn --boot, the tool put
# in by `make install DESTDIR=`, the unit enabled with `systemctl --root`
# and its flags in /etc/default/iomapdirty. Checked: the unit active at boot
# (Type=notify: READY=1 once attached), /-/ready and /metrics (the
# workload's bytes), the one-instance lock held (a `hist` beside it exits
# 7), the HTTP process not uid 0 and without capability, `systemctl stop`
# clean and no BPF link left, Restart= on each kind of exit code. And
# `hist --unit NAME` (issue 25) on a transient unit systemd-run made: the
# unit's writes exactly, not those of a writer outside it; inside the
# container (its own cgroup namespace) refused with the reason.
#
# What nspawn must be given (docs/fleet.md): CAP_BPF and CAP_PERFMON
# (--capability), and bpf and perf_event_open through its own seccomp
# filter (--system-call-filter; without it the unit's first bpf() gets
# EPERM and it exits 4). The host's network namespace is shared, so the
# test scrapes from the host; the loop XFS is bind-mounted at its path.
#
# The root (mmdebstrap minbase with systemd and the tool's libraries,
# about 1 min to make) is cached in /var/cache/iomapdirty-image, keyed on
# apt's candidate versions of its packages; each run boots a copy.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
top=$EXPORTER_TOP
for tool in systemd-nspawn mmdebstrap nsenter bpftool curl jq; do
	command -v "$tool" >/dev/null || { fail systemd.tools "$tool missing (scripts/install-deps.sh)"; cli_finish; exit 1; }
done
[[ -x $WORKLOAD ]] || { fail systemd.fixture "$WORKLOAD not built (make e2e-bins)"; cli_finish; exit 1; }
cache=/var/cache/iomapdirty-image
unit=iomapdirty-exporter.service
nspawn_pid=

# --- the root, cached ------------------------------------------------------
# image:
pkgs=(systemd systemd-sysv libbpf1 libncursesw6 libjson-c5 libmicrohttpd12 libcrypt1
      libsystemd0 libelf1 zlib1g libcap2)
key=$( { sed -n '/^# image:/,/^# end image/p' "$0"
	apt-cache policy "${pkgs[@]}" | grep -E '^[a-z]|Candidate'; } | sha256sum | cut -c1-16)
image=$cache/systemd-$key
mkdir -p "$cache"
if [[ ! -d $image ]]; then
	t0=$(date +%s)
	rm -rf "$image.tmp"
	mmdebstrap --quiet --variant=minbase --include="$(IFS=,; echo "${pkgs[*]}")" bookworm \
		"$image.tmp" "deb http://deb.debian.org/debian bookworm main" \
		"deb http://deb.debian.org/debian bookworm-updates main" \
		"deb http://deb.debian.org/debian-security bookworm-security main" \
		>"$work/mmdebstrap.log" 2>&1 && mv "$image.tmp" "$image"
	rm -rf "$image.tmp"
	echo "INFO systemd: made the root $image in $(($(date +%s) - t0)) s"
fi
# end image
ls -dt "$cache"/systemd-* 2>/dev/null | grep -v -e "\.tmp$" -e "^$image$" | tail -n +2 | xargs -r rm -rf
check systemd.root_has_systemd yes "$([[ -x $image/lib/systemd/systemd ]] && echo yes || echo no)"
[[ -x $image/lib/systemd/systemd ]] || { tail -5 "$work/mmdebstrap.log"; cli_finish; exit 1; }

root=$work/root
cp -a "$image" "$root"
make -s -C "$top" install DESTDIR="$root" >"$work/install.log" 2>&1
check systemd.make_install 0 "$?"
systemctl --root="$root" enable "$unit" >/dev/null 2>&1
check systemd.enabled yes "$([[ -L $root/etc/systemd/system/multi-user.target.wants/$unit ]] &&
	echo yes || echo no)"
machine=iomapdirty-test-$$
echo "$machine" >"$root/etc/hostname"

mnt=$(xfsloop_make 1024 512) || { fail systemd.fixture "no loop XFS"; cli_finish; exit 1; }
dev=$(xfsloop_dev "$mnt")
"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null
"$WORKLOAD" prep "$mnt/u" 1048576 >/dev/null
"$WORKLOAD" prep "$mnt/o" 1048576 >/dev/null
install -m 755 "$WORKLOAD" "$root/usr/local/bin/workload"
port=$(free_port)
echo "IOMAPDIRTY_EXPORTER_ARGS=\"--web.listen-address 127.0.0.1:$port --mount $mnt\"" \
	>"$root/etc/default/iomapdirty"
links_before=$("$top/tests/lib/links.sh" count 2>/dev/null)

# --- boot -------------------------------------------------------------------
_systemd_cleanup() {
	[[ -n $nspawn_pid ]] && kill -KILL "$nspawn_pid" 2>/dev/null
	_exporter_cleanup
}
trap _systemd_cleanup EXIT
systemd-nspawn --quiet -D "$root" --machine="$machine" --register=no --keep-unit --boot \
	--capability=CAP_BPF,CAP_PERFMON --system-call-filter='bpf perf_event_open' \
	--bind="$mnt" --console=pipe >"$work/console.log" 2>&1 </dev/null &
nspawn_pid=$!
# the container's PID 1 as the host sees it: nspawn's child once it runs
# systemd (before that, nspawn's own fork, still in the host's namespaces)
leader=
for _ in $(seq 100); do
	for c in $(pgrep -P "$nspawn_pid"); do
		[[ $(cat "/proc/$c/comm" 2>/dev/null) == systemd ]] && leader=$c
	done
	[[ -n $leader ]] && break
	sleep 0.1
done
[[ -n $leader ]] || { fail systemd.boot "no systemd under nspawn: $(tail -3 "$work/console.log")"
	cli_finish; exit 1; }
check systemd.own_pid_namespace yes \
	"$([[ $(readlink "/proc/$leader/ns/pid") != "$(readlink /proc/self/ns/pid)" ]] && echo yes || echo no)"
# a command inside the container (its namespaces; host's capabilities)
ns() { nsenter -t "$leader" -a "$@"; }
check systemd.pid1_is_systemd systemd "$(ns cat /proc/1/comm 2>/dev/null)"
# systemctl answers once PID 1's private bus is up: asked again until then
state=
t0=$SECONDS
while ((SECONDS - t0 < 60)); do
	state=$(timeout 60 nsenter -t "$leader" -a systemctl is-system-running --wait 2>/dev/null)
	[[ -n $state && $state != offline ]] && break
	sleep 0.25
done
check systemd.booted running "$state"
[[ $state == running ]] || echo "# failed units: $(ns systemctl --failed --no-legend --plain | tr '\n' ' ')"
show() { ns systemctl show -p "$1" --value "$unit"; }

# --- started at boot: active once READY=1 -------------------------------------
check systemd.unit.active_at_boot active "$(ns systemctl is-active "$unit")"
check_match systemd.unit.status_from_sd_notify "^serving 127.0.0.1:$port" "$(show StatusText)"
# a restart returns once the new process said READY=1: it must then be attached
ns systemctl restart "$unit"
check systemd.unit.restart 0 "$?"
ready=$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/-/ready")
links_up=$("$top/tests/lib/links.sh" count 2>/dev/null)
check systemd.ready_when_active 200 "$ready"
check systemd.attached_when_active yes "$( ((links_up > links_before)) && echo yes || echo no)"
main=$(show MainPID)
# no ExecReload (nothing to reload): refused, the same process serving on
ns systemctl reload "$unit" 2>"$work/reload.err"
check_match systemd.unit.reload_refused '^[1-9]' "$?"
check_match systemd.unit.reload_not_applicable "not applicable" "$(cat "$work/reload.err")"
check systemd.unit.active_after_reload "active $main" "$(ns systemctl is-active "$unit") $(show MainPID)"
st=$(ns cat "/proc/$main/status")
check systemd.main.uid_0 "0" "$(awk '/^Uid:/ { print $2 }' <<<"$st")"
# the bounding set: CAP_BPF (39), CAP_PERFMON (38), CAP_SETUID, CAP_SETGID
check systemd.main.bounding_set 000000c0000000c0 "$(awk '/^CapBnd:/ { print $2 }' <<<"$st")"
# once attached it keeps CAP_BPF alone (the unit's comment)
check systemd.main.effective_after_attach 0000008000000000 "$(awk '/^CapEff:/ { print $2 }' <<<"$st")"
web=$(ns cat "/proc/$main/task/$main/children" | awk '{ print $1 }')
wst=$(ns cat "/proc/$web/status")
check systemd.web.uid "65534 65534 65534 65534" "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' <<<"$wst")"
check systemd.web.no_capability "0000000000000000 0000000000000000" \
	"$(awk '/^Cap(Eff|Prm):/ { printf "%s ", $2 }' <<<"$wst" | sed 's/ $//')"
# journald: one priority per line (log.c), no "<6>" left in the text
check_match systemd.journal.ready_line "ready \(pid $main\)" \
	"$(ns journalctl -u "$unit" -b -o cat -p info --no-pager)"
check systemd.journal.no_priority_prefix_left 0 \
	"$(ns journalctl -u "$unit" -b -o cat --no-pager | grep -c '^<[0-9]>')"

# --- /metrics: the workload's bytes ------------------------------------------
exp=$("$WORKLOAD" scatter "$mnt/f" --count 10 --len 3000 --stride 12345)
want=$(jq .app_bytes <<<"$exp")
check systemd.workload.app_bytes 30000 "$want"
got=
for _ in $(seq 40); do
	got=$(curl -s --max-time 2 "http://127.0.0.1:$port/metrics" |
		awk -v k="iomapdirty_app_bytes_total{dev=\"$dev\"" 'index($0, k) == 1 { print $2 }')
	[[ $got == "$want" ]] && break
	sleep 0.25
done
check systemd.metrics.app_bytes "$want" "$got"

# --- the one-instance lock, in the RuntimeDirectory ---------------------------
check systemd.lock_dir "700 root" "$(ns stat -c '%a %U' /run/iomapdirty 2>&1)"
ns timeout 20 /usr/local/sbin/iomapdirty hist --mount "$mnt" >/dev/null 2>"$work/hist.err"
check systemd.hist_beside_exits_7 7 "$?"
check_match systemd.hist_names_the_unit "another instance is running \(pid $main\)" \
	"$(cat "$work/hist.err")"

# --- stop -------------------------------------------------------------------------
ns systemctl stop "$unit"
check systemd.stop.exit 0 "$?"
check systemd.stop.result "success 0 inactive" "$(show Result) $(show ExecMainStatus) $(show ActiveState)"
check systemd.stop.port_closed 0 "$(ss -Hltn "sport = :$port" | grep -c .)"
check systemd.stop.lock_dir_removed no "$(ns test -e /run/iomapdirty && echo yes || echo no)"
n=
for _ in $(seq 20); do
	n=$("$top/tests/lib/links.sh" count 2>/dev/null)
	[[ $n == "$links_before" ]] && break
	sleep 0.1	# a raw_tp link's program goes after an RCU grace period
done
check systemd.stop.no_bpf_link_left "$links_before" "$n"

# --- hist --unit: a transient unit of systemd-run -----------------------------
# The unit waits for /run/go, then writes a known workload; a writer outside
# it (the host's shell) writes another file at the same time. hist --unit
# on the host (which sees the container's cgroups, as an operator's would
# see a machine's or a pod's) must find the unit's cgroup by name, attached
# before either writes, and give the unit's figures exactly and nothing of
# the other's.
wunit=iomapdirty-writer-$$
ns systemd-run --quiet --unit="$wunit" /bin/sh -c \
	"while [ ! -e /run/go ]; do sleep 0.05; done; exec /usr/local/bin/workload scatter $mnt/u \
	--count 20 --len 1500 --stride 11000 >/var/tmp/unit.exp"
check systemd.unit_writer.started 0 "$?"
"$IOMAPDIRTY" hist --json --shared --mount "$mnt" --unit "$wunit" >"$work/unit.json" 2>"$work/unit.err" &
hist_pid=$!
KILL_PIDS+=("$hist_pid")
for _ in $(seq 200); do
	grep -qx "iomapdirty: ready (pid $hist_pid)" "$work/unit.err" && break
	kill -0 "$hist_pid" 2>/dev/null || break
	sleep 0.1
done
check_match systemd.unit_hist.ready '^iomapdirty: ready' "$(cat "$work/unit.err")"
"$WORKLOAD" scatter "$mnt/o" --count 7 --len 4000 --stride 20000 >"$work/other.exp"
ns touch /run/go
for _ in $(seq 100); do
	[[ $(ns systemctl is-active "$wunit" 2>/dev/null) == active ]] || break
	sleep 0.1
done
check systemd.unit_writer.done 0 "$(ns test -s /var/tmp/unit.exp; echo $?)"
sync
sleep 1
kill -INT "$hist_pid"
bounded_wait "$hist_pid" 30
check systemd.unit_hist.exit 0 "$?"
uexp=$root/var/tmp/unit.exp
usum=$(tail -n 1 "$work/unit.json")
check systemd.unit_hist.files "$(jq -r '"\(.dev):\(.ino)"' "$uexp")" \
	"$(jq -r '[.files[]? | "\(.dev):\(.ino)"] | join(" ")' <<<"$usum")"
for f in app_bytes write_calls dirty_blocks submitted_blocks submitted_bytes folios; do
	check "systemd.unit_hist.$f" "$(jq -c ".$f" "$uexp")" "$(jq -c ".totals.$f" <<<"$usum")"
done
check systemd.unit_hist.losses 0 "$(jq '[.losses[]] | add' <<<"$usum")"
# Inside the container (a cgroup namespace of its own: paths start at its
# root, so a cgroup's depth below the host's is not known there): --unit is
# refused with the reason, not answered with zeros.
if [[ $(ns readlink /proc/self/ns/cgroup) != "$(readlink /proc/self/ns/cgroup)" ]]; then
	ns systemd-run --quiet --unit="$wunit-2" sleep 20
	ns timeout 20 /usr/local/sbin/iomapdirty hist --shared --mount "$mnt" --unit "$wunit-2" -c 1 \
		>/dev/null 2>"$work/unit_ns.err"
	check systemd.unit_in_cgroupns.exit 3 "$?"
	check_match systemd.unit_in_cgroupns.says 'cgroup namespace of its own' "$(cat "$work/unit_ns.err")"
	ns systemctl stop "$wunit-2" 2>/dev/null
else
	echo "SKIP systemd.unit_in_cgroupns: the container shares the host's cgroup namespace"
fi

# --- Restart=: a usage or target error stays down, a taken port is retried ---
# the delay shortened for the test (a drop-in); the policy is the unit's
ns mkdir -p "/run/systemd/system/$unit.d"
printf '[Service]\nRestartSec=1s\n' | ns tee "/run/systemd/system/$unit.d/test.conf" >/dev/null
ns systemctl daemon-reload
for c in "2 --no-such-flag" "5 --mount /proc"; do
	ns systemctl reset-failed "$unit" 2>/dev/null
	echo "IOMAPDIRTY_EXPORTER_ARGS=\"--web.listen-address 127.0.0.1:$port ${c#* }\"" \
		>"$root/etc/default/iomapdirty"
	ns systemctl start "$unit" 2>/dev/null
	sleep 2.5	# past RestartSec
	check "systemd.restart.exit_${c%% *}_stays_down" "failed ${c%% *} 0" \
		"$(show ActiveState) $(show ExecMainStatus) $(show NRestarts)"
done
ns systemctl reset-failed "$unit" 2>/dev/null
# a port of its own: the scrapes above left the first one's server-side
# connections in TIME-WAIT, where the holder below cannot bind
port2=$(free_port)
echo "IOMAPDIRTY_EXPORTER_ARGS=\"--web.listen-address 127.0.0.1:$port2 --mount $mnt\"" \
	>"$root/etc/default/iomapdirty"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(3.5)' "$port2" &
holder=$!
KILL_PIDS+=("$holder")
for _ in $(seq 30); do ss -Hltn "sport = :$port2" | grep -q . && break; sleep 0.1; done
ns systemctl start --no-block "$unit"
sleep 2
check systemd.restart.port_taken_exit_7 7 "$(show ExecMainStatus)"
check_match systemd.restart.port_taken_retried '^[1-9]' "$(show NRestarts)"
wait "$holder"
st=
for _ in $(seq 40); do
	st=$(ns systemctl is-active "$unit")
	[[ $st == active ]] && break
	sleep 0.25
done
check systemd.restart.active_once_port_free active "$st"
check systemd.restart.ready_once_port_free 200 \
	"$(curl -s --max-time 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port2/-/ready")"
ns systemctl stop "$unit"

# --- power off ------------------------------------------------------------------
kill -TERM "$nspawn_pid"
bounded_wait "$nspawn_pid" 30
check systemd.poweroff 0 "$?"
nspawn_pid=
check systemd.no_bpf_link_left_at_end "$links_before" "$("$top/tests/lib/links.sh" count 2>/dev/null)"
cli_finish
