#!/usr/bin/env bash
# `make install DESTDIR=...` puts every file where the systemd unit and the
# docs say; the unit passes `systemd-analyze verify`; the manual page
# renders and documents every subcommand the binary lists; the installed
# rules pass promtool; the installed binary, with only the capabilities the
# unit grants, attaches and counts; `make uninstall` leaves nothing behind.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
top=$EXPORTER_TOP

dest=$work/root
prefix=/usr/local
make -s -C "$top" install DESTDIR="$dest" PREFIX=$prefix >"$work/install.log" 2>&1
check install.make_install 0 "$?"
unit=$dest$prefix/lib/systemd/system/iomapdirty-exporter.service
for f in sbin/iomapdirty share/man/man8/iomapdirty.8 lib/systemd/system/iomapdirty-exporter.service \
	 share/iomapdirty/prometheus/iomapdirty-rules.yml \
	 share/iomapdirty/prometheus/iomapdirty-rules_test.yml \
	 share/iomapdirty/grafana/iomapdirty-dashboard.json \
	 share/doc/iomapdirty/metrics.md share/doc/iomapdirty/fleet.md; do
	check "install.file[$f]" yes "$([[ -s $dest$prefix/$f ]] && echo yes || echo no)"
done
# the unit runs the binary where make install put it
exec_path=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
check install.unit_execstart "$prefix/sbin/iomapdirty" "$exec_path"
check install.unit_execstart_executable yes "$([[ -x $dest$exec_path ]] && echo yes || echo no)"
check install.binary_mode 755 "$(stat -c %a "$dest$prefix/sbin/iomapdirty")"

if command -v systemd-analyze >/dev/null; then
	# the installed unit with ExecStart inside DESTDIR (verify checks that
	# it exists); it prints a line for each problem (an unknown key too,
	# which it ignores with status 0): status 0 and no line. The man: link
	# is checked by the man -l test below, not against the host's pages.
	sed "s|^ExecStart=$prefix|ExecStart=$dest$prefix|" "$unit" >"$work/$(basename "$unit")"
	systemd-analyze verify --man=no "$work/$(basename "$unit")" >"$work/verify.log" 2>&1
	rc=$?
	check install.systemd_analyze_verify "0:" "$rc:$(grep -v -e 'Failed to connect to bus' \
		-e 'System has not been booted with systemd' "$work/verify.log" | head -3)"
else
	echo "SKIP install.systemd_analyze_verify: systemd-analyze not installed"
fi

# the manual page renders, and documents each subcommand the binary lists
man -l "$dest$prefix/share/man/man8/iomapdirty.8" 2>"$work/man.err" | col -bx >"$work/man.txt"
check install.man_renders "0:" "$?:$(head -2 "$work/man.err")"
cmds=$("$dest$prefix/sbin/iomapdirty" --help | awk '/^commands:/ { on = 1; next }
	on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
check_match install.binary_lists_commands 'exporter' "$cmds"
for c in $cmds; do
	check "install.man_documents[$c]" yes "$(grep -qE "^ +$c +(prints|shows|attaches|observes|reads|writes)" \
		"$work/man.txt" && grep -qE "iomapdirty $c " "$work/man.txt" && echo yes || echo no)"
done

# the installed rules: syntax, and their own unit tests
promtool check rules "$dest$prefix/share/iomapdirty/prometheus/iomapdirty-rules.yml" \
	>"$work/rules.log" 2>&1
check install.promtool_check_rules "0" "$?"
(cd "$dest$prefix/share/iomapdirty/prometheus" && promtool test rules iomapdirty-rules_test.yml) \
	>"$work/rtest.log" 2>&1
check install.promtool_test_rules "0:" "$?:$(grep -A3 FAILED "$work/rtest.log" | head -4)"
check install.dashboard_json yes "$(jq -e '.panels | length > 0' \
	"$dest$prefix/share/iomapdirty/grafana/iomapdirty-dashboard.json" >/dev/null && echo yes || echo no)"

# the unit's capabilities are enough, and the smallest set: the installed
# binary as root with only CapabilityBoundingSet attaches and counts
# exactly; without CAP_PERFMON or without CAP_BPF it is refused (exit 4)
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
bset=$(for c in $caps; do printf ',+%s' "$(tr 'A-Z' 'a-z' <<<"${c#CAP_}")"; done)
check install.unit_caps "CAP_BPF CAP_PERFMON CAP_SETUID CAP_SETGID" "$caps"
if command -v setpriv >/dev/null; then
	mnt=$(xfsloop_make 1024 512)
	"$WORKLOAD" prep "$mnt/f" 1048576 >/dev/null
	port=$(free_port)
	exp_start caps setpriv --bounding-set="-all$bset" --inh-caps=-all \
		"$dest$exec_path" exporter --mount "$mnt" --listen "127.0.0.1:$port"
	pid=$EXP_PID
	check_match install.unit_caps_attach 'ready \(pid' "$(tail -3 "$work/caps.err" 2>&1)"
	# CAP_PERFMON (bit 38) loads the programs; once attached only CAP_BPF
	# (bit 39) is kept (docs/iomapdirty.md): nothing else is effective,
	# and the counts below are read with that alone
	check install.unit_caps_effective 0000008000000000 \
		"$(awk '/^CapEff:/ { print $2 }' /proc/"$pid"/status 2>/dev/null)"
	exp=$("$WORKLOAD" scatter "$mnt/f" --count 10 --len 100 --stride 8192)
	got=none
	for i in $(seq 40); do
		got=$(curl -sf --max-time 5 "http://127.0.0.1:$port/metrics" |
			awk '/^iomapdirty_app_bytes_total\{/ { print $NF }')
		[[ $got == "$(jq .app_bytes <<<"$exp")" ]] && break
		sleep 0.25
	done
	check install.unit_caps_counts "$(jq .app_bytes <<<"$exp")" "$got"
	kill -TERM "$pid"
	wait "$pid"
	check install.unit_caps_clean_stop 0 "$?"
	setpriv --bounding-set=-all,+bpf --inh-caps=-all "$dest$exec_path" exporter \
		--mount "$mnt" --listen "127.0.0.1:$port" >/dev/null 2>"$work/noperf.err"
	check install.without_perfmon_refused 4 "$?"
	setpriv --bounding-set=-all,+perfmon --inh-caps=-all "$dest$exec_path" exporter \
		--mount "$mnt" --listen "127.0.0.1:$port" >/dev/null 2>"$work/nobpf.err"
	check install.without_bpf_refused 4 "$?"
else
	echo "SKIP install.unit_caps_attach: no setpriv"
fi

make -s -C "$top" uninstall DESTDIR="$dest" PREFIX=$prefix >"$work/uninstall.log" 2>&1
check install.make_uninstall 0 "$?"
check install.nothing_left "" "$(find "$dest" -type f | sed "s|^$dest||" | tr '\n' ' ')"
cli_finish
