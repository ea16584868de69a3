# iomapdirty end-to-end in a kernel-lab guest (tests/vm/README.md, "The
# payload").  Run by /init with busybox sh, cwd /payload, VMCHECK_VARIANT set.
# /payload/bin holds iomapdirty and workload (static), jq and the seed's fio
# job (`make vmcheck` puts them there through VM_PAYLOAD_EXTRA).
#
# For each mechanism (fentry, kprobe, tracepoint: tp_btf where the guest
# allows it, and raw_tp forced): iomapdirty hist around
# scripted writes on the 1 KiB-block XFS, its summary compared with the
# figures the workload computes from what it wrote, and with the data bytes
# the block layer saw (block_rq_issue on the loop device, inside the file's
# extents); mmap dirtying; verify.  Then the seed's fio job, scaled to the
# guest, under `iomapdirty run`.  On 6.12: XFS with 16 KiB blocks, and
# verify on a partition, dm-linear and dm-crypt (stacked()).  Every check
# prints VMTEST PASS|FAIL;
# figures for docs/lab-results.md are VMRESULT lines (tests/vm/lab-results.sh).
# The run files of the scattered writes and of fio (`run --json`) leave
# the guest as VMFILE lines (export_file) for the host's A/B report.
# shellcheck disable=SC2046,SC2154 # set -- $(...) splits on purpose; load sets E_*, V_* ...
. /lib/vmcheck/lib.sh
export PATH=/payload/bin:$PATH
V=$VMCHECK_VARIANT
T=/sys/kernel/tracing
W=/tmp/payload
PAGE_SIZE=$(vm_page_size)
READY_TIMEOUT=60	# seconds for a tool to attach (TCG is slow)
STOP_TIMEOUT=60		# seconds for it to print its summary and exit
RUN_TIMEOUT=300		# seconds for a workload or fio under the tool
MMAP_PAGES=8
# The seed's fio job (examples/seed-randwrite.fio) scaled to the guest.
FIO_SIZE=16M FIO_RUNTIME=20 FIO_JOBS=1
# Which mechanisms this guest must serve and which it must refuse (exit 3,
# with the reason): what the host built, not what the tool says.
# 6.1 on ppc64 has no ftrace direct calls, so no fentry (kernel-ppc64le.config).
if [ "$PAGE_SIZE" = 4096 ]; then
	# x86_64, 4 KiB pages: the 1 KiB-block XFS, 4 blocks per folio
	MNT=/mnt/xfs1k DEV=/dev/loop0
	MODES="fentry kprobe tracepoint raw_tp"
	# small scattered overwrites, then fsync: every write inside one
	# block of its own folio (aligned), or as the smoke suite (crossing:
	# 2 of the 20 writes cross a block)
	NWRITES=20 WLEN=100 STRIDE_ALIGNED=20480 STRIDE_CROSSING=20000
	FIO_BS=1k PREP_SIZE=1M
else
	# ppc64le, 64 KiB pages: the seed's geometry, XFS with 4 KiB blocks,
	# 16 blocks per folio; one aligned 4 KiB write per folio
	MNT=/mnt/xfs4k DEV=/dev/loop1
	MODES="kprobe tracepoint raw_tp"
	NWRITES=20 WLEN=4096 STRIDE_ALIGNED=$PAGE_SIZE STRIDE_CROSSING=""
	FIO_BS=4k PREP_SIZE=$((NWRITES * PAGE_SIZE))
fi
mkdir -p $W
info() { echo "VMINFO [$(now)] $*"; }
now() { cut -d' ' -f1 /proc/uptime; }
jqm() { jq -M "$@"; }

# check NAME WANT GOT [WHAT]: equal as strings (jq -c prints numbers exactly)
check() {
	if [ "$2" = "$3" ]; then
		vmtest_pass "$1"
	else
		vmtest_fail "$1" "${4:+$4: }want $2 got $3"
	fi
}

# check_ratio NAME NUM DEN GOT: GOT is NUM/DEN as the tool prints it (4 decimals)
check_ratio() {
	if awk -v n="$2" -v d="$3" -v g="$4" 'BEGIN {
		if (d == 0) exit g != "null"
		r = n / d; exit !(g != "null" && g - r < 0.00005 && r - g < 0.00005) }'; then
		vmtest_pass "$1"
	else
		vmtest_fail "$1" "want $2/$3 got $4"
	fi
}

# ------------------------------------------------------------------ the tool
TOOL_PID='' TOOL_RC=''
# tool_start OUT ERR ARGS...: iomapdirty ARGS in the background, until ready
tool_start() {
	out=$1 err=$2 i=0
	shift 2
	# emptied here: the child's own redirection may come after our first grep
	: >"$out"
	: >"$err"
	iomapdirty "$@" >>"$out" 2>>"$err" &
	TOOL_PID=$!
	while ! grep -q 'iomapdirty: ready' "$err"; do
		if ! kill -0 $TOOL_PID 2>/dev/null || [ $i -ge $((READY_TIMEOUT * 10)) ]; then
			tool_stop
			echo "--- iomapdirty $* did not get ready (exit $TOOL_RC):"
			cat "$err"
			return 1
		fi
		sleep 0.1
		i=$((i + 1))
	done
}

# tool_stop: SIGINT, wait; TOOL_RC is its exit status (124: had to be killed)
tool_stop() {
	i=0
	kill -INT $TOOL_PID 2>/dev/null
	while kill -0 $TOOL_PID 2>/dev/null && [ $i -lt $((STOP_TIMEOUT * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $TOOL_PID 2>/dev/null; then
		kill -KILL $TOOL_PID
		wait $TOOL_PID
		TOOL_RC=124
	else
		wait $TOOL_PID
		TOOL_RC=$?
	fi
	TOOL_PID=
}

# tool_wait_end DUR: the tool was started with -D DUR: waits for it to end
# by itself (at most DUR + STOP_TIMEOUT s), then tool_stop collects its status
tool_wait_end() {
	i=0
	while kill -0 $TOOL_PID 2>/dev/null && [ $i -lt $((($1 + STOP_TIMEOUT) * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	tool_stop
}

# ------------------------------------------------- block layer ground truth
# 512-byte sector range of the internal log: "start end"
log_sectors() {
	ls=$(xfs_db -r -c 'sb 0' -c 'p logstart' "$1" | sed 's/.*= //')
	lb=$(xfs_db -r -c 'sb 0' -c 'p logblocks' "$1" | sed 's/.*= //')
	bsz=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$1" | sed 's/.*= //')
	start=$(xfs_db -r -c "convert fsb $ls daddr" "$1" | sed 's/.*(\([0-9]*\)).*/\1/')
	echo "$start $((start + lb * bsz / 512))"
}
set -- $(log_sectors $DEV)
LOG0=$1 LOG1=$2
DEVT=$(cat /sys/block/${DEV#/dev/}/dev)	# MAJ:MIN
info "payload $DEV ($DEVT): log sectors [$LOG0, $LOG1)"

# block_rq_issue on our device only, into a buffer large enough for fio
trace_start() {
	echo 0 >$T/tracing_on
	echo 32768 >$T/buffer_size_kb
	echo >$T/trace
	echo "dev == $(((${DEVT%:*} << 20) | ${DEVT#*:}))" >$T/events/block/block_rq_issue/filter
	echo 1 >$T/events/block/block_rq_issue/enable
	echo 1 >$T/tracing_on
}

# trace_stop RAW: the trace into RAW; TRACE_OVERRUN: events lost
trace_stop() {
	echo 0 >$T/tracing_on
	cat $T/trace >"$1"
	TRACE_OVERRUN=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $T/per_cpu/cpu*/stats)
	echo 0 >$T/events/block/block_rq_issue/enable
	echo 0 >$T/events/block/block_rq_issue/filter
	echo >$T/trace
}

# file_extents FILE: its extents as "first_sector end_sector" (fiemap, 512 B units)
file_extents() {
	xfs_io -r -c fiemap "$1" | sed -n 's/.*\]: *\([0-9]*\)\.\.\([0-9]*\).*/\1 \2/p' |
		awk '{ print $1, $2 + 1 }'
}

# blk_bytes RAW EXTENTS: "file_bytes other_bytes log_bytes requests" written:
# inside the file's extents, elsewhere outside the log (metadata), in the log
blk_bytes() {
	awk -v l0=$LOG0 -v l1=$LOG1 '
		BEGIN { n = 0 }
		FNR == NR { es[n] = $1; ee[n] = $2; n++; next }
		/ block_rq_issue: / {
			sub(/.* block_rq_issue: /, "")
			# dev rwbs bytes (cmd) sector + nr_sector [comm]
			if ($2 !~ /W/) next
			split($0, a, / \+ /); k = split(a[1], l, " "); split(a[2], r, " ")
			s = l[k]; e = s + r[1]
			if (e == s) next
			reqs++
			if ((s % 2 || e % 2) && odd++ < 10)
				print "VMINFO block request not 1 KiB aligned: " $0 > "/dev/stderr"
			if (s >= l0 && s < l1) { logb += (e - s) * 512; next }
			in_file = 0
			for (i = 0; i < n; i++) {
				lo = s > es[i] ? s : es[i]; hi = e < ee[i] ? e : ee[i]
				if (hi > lo) in_file += hi - lo
			}
			fileb += in_file * 512; other += (e - s - in_file) * 512
		}
		END { print fileb + 0, other + 0, logb + 0, reqs + 0 }' "$2" "$1"
}

# ----------------------------------------------------------------- the plan
plan_hook() {	# JSON HOOK FIELD
	jqm -r --arg h "$2" ".plan.hooks[] | select(.hook == \$h) | .$3" "$1"
}

# The writeback hook auto mode must take: the per-folio function when this
# build left it traceable (available_filter_functions, read here, not from
# the tool), else 6.1's iomap_do_writepage, else the iomap_writepage
# tracepoint (6.10+ has no iomap_do_writepage; writepage_map is inlined)
expected_writeback_hook() {
	for f in iomap_writepage_map iomap_do_writepage; do
		grep -qx "$f" $T/available_filter_functions && { echo $f; return; }
	done
	echo iomap_writepage
}

check_plan() {
	echo "--- iomapdirty probes"
	iomapdirty probes
	rc=$?
	iomapdirty probes --json >$W/plan.json
	echo "--- iomapdirty probes --json"
	cat $W/plan.json
	# this kernel's facts, as tests/fixtures/family-*.facts record them
	echo "--- iomapdirty probes --dump-facts"
	iomapdirty probes --dump-facts
	check plan_auto_exit 0 $rc "iomapdirty probes"
	p=$W/plan.json
	wb=$(expected_writeback_hook)
	check plan_writeback_hook $wb "$(plan_hook $p writeback_begin target)" \
		"writeback hook (from available_filter_functions)"
	if [ $wb != iomap_writepage_map ]; then
		case "$(plan_hook $p writeback_begin rejected)" in
		*"iomap_writepage_map: not in this kernel"*)
			vmtest_pass plan_writepage_map_fallback_documented ;;
		*)
			vmtest_fail plan_writepage_map_fallback_documented \
				"want iomap_writepage_map rejected as not in this kernel, got: $(plan_hook $p writeback_begin rejected)" ;;
		esac
	fi
	check plan_submit_tracepoint iomap_writepage_map "$(plan_hook $p submit target)"
	# a kernel with BTF and no policy against tracing programs takes tp_btf
	check plan_submit_program_type tp_btf "$(plan_hook $p submit program_type)"
	check plan_write_hook iomap_write_end "$(plan_hook $p write target)"
	# auto takes fentry for the write hook where the config has ftrace
	# direct calls, kprobes where not (ppc64 6.1)
	check plan_write_mechanism $AUTO_WRITE_MECH "$(plan_hook $p write mechanism)"
	case "$VM_SERIES/$VM_PATCH" in
	6.1/rfcv4)
		check plan_family a "$(jqm -r .plan.family $p)"
		check plan_dirty_bitmap iomap_page.state "$(jqm -r .plan.dirty_bitmap $p)"
		check plan_whole_folio_dirty_hook iomap_dirty_folio "$(plan_hook $p whole_folio_dirty target)" ;;
	6.1/unpatched)
		check plan_family b "$(jqm -r .plan.family $p)"
		check plan_dirty_bitmap none "$(jqm -r .plan.dirty_bitmap $p)" ;;
	6.12/*)
		check plan_family c "$(jqm -r .plan.family $p)"
		check plan_dirty_bitmap iomap_folio_state "$(jqm -r .plan.dirty_bitmap $p)"
		check plan_whole_folio_dirty_hook iomap_dirty_folio "$(plan_hook $p whole_folio_dirty target)" ;;
	*) vmtest_fail plan_variant_known "no expectations for $V" ;;
	esac
}

# ------------------------------------------------------- cgroup attribution
# Whether writers' cgroups can be known, from the kernel's config, not from
# the tool: without CONFIG_CGROUPS (the lab's 6.1 builds) BPF programs have
# no cgroup helpers. The tool must say so (probes, the plan in JSON) and
# run must not pass every process's writes off as CMD's: exit 3, naming
# --all. The run files below are then made with --all and must say so.
RUN_SCOPE="" RUN_SCOPE_WANT=cgroup WRITER_CGROUP_WANT='["number"]'
cgroup_scope() {
	want=unavailable
	vm_kconfig | grep -q '^CONFIG_CGROUPS=y' && want=available
	check cgroup_attribution $want "$(jqm -r .plan.cgroup_attribution $W/plan.json)" \
		"probes --json: the plan's cgroup_attribution"
	iomapdirty probes >$W/probes.out 2>&1
	vmtest_check cgroup_attribution_text "no 'cgroup attribution: $want' in probes" \
		grep -q "^cgroup attribution: $want" $W/probes.out
	[ $want = available ] && return
	RUN_SCOPE=--all RUN_SCOPE_WANT=all WRITER_CGROUP_WANT='["null"]'
	check cgroup_attribution_why string "$(jqm -r '.plan.cgroup_attribution_why | type' $W/plan.json)"
	iomapdirty run -q --mount $MNT -- true >$W/run-refused.out 2>&1
	rc=$?
	cat $W/run-refused.out
	check run_not_exact_exit 3 $rc "run without --all where writers' cgroups are unknown"
	vmtest_check run_not_exact_reason "no 'cannot tell CMD's writes ... --all' on stderr" \
		grep -q "cannot tell CMD's writes.*--all" $W/run-refused.out
}

# run file RUNFILE, check NAME: whose writes it says it counts, the writers' cgroup ids
check_scope() {
	check "$2.scope" $RUN_SCOPE_WANT "$(jqm -r .scope.counts $1)" "the run file's scope.counts"
	check "$2.writer_cgroup_id" "$WRITER_CGROUP_WANT" \
		"$(jqm -c '[.files[].writer.cgroup_id | type] | unique' $1)" \
		"files[].writer.cgroup_id: null where the kernel cannot tell"
}

# ------------------------------------------------------------ the scenarios
ACCOUNTING=full	# hist's level in measured(); always_on() sets always-on
# The workload's figures: from the measured folio layout when it was probed.
EXP_PICK='if .layout.probe == "kpageflags" and .layout.expect != null then .layout.expect else . end'

# The tool's final summary totals, compact, into $2; losses into $3.
summary_totals() {
	jqm -c 'select(.type == "summary") | .totals' "$1" | tail -n 1 >"$2"
	jqm -c 'select(.type == "summary") | [.losses | to_entries[] | select(.value != 0)] | from_entries' \
		"$1" | tail -n 1 >"$3"
}

# load PREFIX FILE FILTER: the scalar fields of the object FILTER selects
# in FILE as shell variables PREFIX<field>, as jq -c prints them (one jq
# per JSON document: each jq start costs a fraction of a second under TCG)
load() {
	eval "$(jqm -r "$3"' | to_entries[] | select(.key | test("^[a-z_0-9]+$"))
		| select(.value | type != "object" and type != "array")
		| "'"$1"'\(.key)=\(.value | if type == "string" then . else tojson end | @sh)"' "$2")"
}
val() { eval "echo \"\${$1$2-}\""; }
g() { val G_ "$1"; }	# tool's totals (load G_ ...)
x() { val X_ "$1"; }	# workload's figures (load X_ ...)

# measured MODE NAME FILE WORKLOAD-ARGS...: lays out FILE (1 MiB), runs
# `workload WORKLOAD-ARGS` under `iomapdirty hist --mode MODE --accounting
# $ACCOUNTING` with the block
# layer traced, checks that both exited 0, and loads the tool's totals (G_),
# the workload's figures (X_: EXP_PICK, E_: all) and the file's block-layer
# bytes (blk_file blk_other blk_log blk_reqs). Returns 1 if a step failed
# (reported).
measured() {
	m=$1 n=$2 f=$3
	shift 3
	rm -f $f
	info "$n: prep"
	workload prep $f $PREP_SIZE >$W/prep.json || { vmtest_fail "$n.prep" "workload prep failed"; return 1; }
	sync
	if ! tool_start $W/hist.out $W/hist.err hist --mode $m --accounting $ACCOUNTING \
		--json --mount $MNT -i 3600; then
		vmtest_fail "$n.attach" "iomapdirty hist --mode $m --accounting $ACCOUNTING did not attach"
		return 1
	fi
	trace_start
	timeout $RUN_TIMEOUT workload "$@" >$W/exp.json
	wrc=$?
	trace_stop $W/blk.trace
	sleep 1
	tool_stop
	check "$n.workload_exit" 0 $wrc
	check "$n.tool_exit" 0 $TOOL_RC "iomapdirty hist"
	summary_totals $W/hist.out $W/got.json $W/losses.json
	[ -s $W/got.json ] || { vmtest_fail "$n.summary" "no summary"; cat $W/hist.err; return 1; }
	load G_ $W/got.json .
	load X_ $W/exp.json "$EXP_PICK"
	load E_ $W/exp.json .
	file_extents $f >$W/extents
	set -- $(blk_bytes $W/blk.trace $W/extents)
	blk_file=$1 blk_other=$2 blk_log=$3 blk_reqs=$4
}

# shown NAME: prints what measured() loaded, and checks that nothing was lost
shown() {
	info "$1: workload and tool done, checking"
	echo "--- $1: workload"
	cat $W/exp.json
	echo "--- $1: iomapdirty summary totals"
	cat $W/got.json
	check "$1.losses" '{}' "$(cat $W/losses.json)"
}

# scatter MODE NAME STRIDE: hist around NWRITES x WLEN bytes at STRIDE + fsync
scatter() {
	m=$1 name=$2 n="$1.$2" stride=$3 f=$MNT/$2-$1.dat
	measured $m $n $f scatter $f --count $NWRITES --len $WLEN --stride $stride || return
	shown $n
	# blocks per (order-0) folio, from the workload's page and block size
	bpf=$((E_page_size / E_block_size))
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	for k in app_bytes write_calls app_dirty_blocks folios; do
		check "$n.$k" "$(x $k)" "$(g $k)"
	done
	check "$n.dirty_blocks" "$(x app_dirty_blocks)" "$(g dirty_blocks)" "no other dirtying"
	check_ratio "$n.block_rounding" "$(x app_dirty_bytes)" "$(x app_bytes)" "$(g block_rounding)"
	if [ "$VM_TRACKING" = yes ]; then
		check "$n.submitted_blocks" "$(g dirty_blocks)" "$(g submitted_blocks)" "only dirty blocks"
		check "$n.folio_amplification" 1 "$(g folio_amplification)"
		check "$n.kernel_dirty_blocks" "$(g dirty_blocks)" "$(g kernel_dirty_blocks)" "RFCv4 state[] bitmap"
		check "$n.bitmap_folios" "$(g folios)" "$(g bitmap_folios)"
	else
		check "$n.submitted_blocks" $(($(g folios) * bpf)) "$(g submitted_blocks)" \
			"whole folios, $bpf blocks each"
		check_ratio "$n.folio_amplification" "$(g submitted_blocks)" "$(g dirty_blocks)" \
			"$(g folio_amplification)"
	fi
	check "$n.blocklayer_bytes" "$(g submitted_bytes)" "$blk_file" \
		"data written into the file at the block layer vs the tool's submitted_bytes"
	echo "VMRESULT scatter variant=$V mode=$m name=$name stride=$stride writes=$NWRITES len=$WLEN" \
		"app_bytes=$(g app_bytes) write_calls=$(g write_calls)" \
		"app_dirty_blocks=$(g app_dirty_blocks) dirty_blocks=$(g dirty_blocks)" \
		"folios=$(g folios) submitted_blocks=$(g submitted_blocks)" \
		"submitted_bytes=$(g submitted_bytes) kernel_dirty_blocks=$(g kernel_dirty_blocks)" \
		"block_rounding=$(g block_rounding) folio_amplification=$(g folio_amplification)" \
		"blk_file_bytes=$blk_file blk_other_bytes=$blk_other blk_log_bytes=$blk_log blk_requests=$blk_reqs"
	rm -f $f
}

# mmap MODE: one byte stored into each of MMAP_PAGES pages; whole folios dirty
mmap_dirty() {
	m=$1 n="$1.mmap" f=$MNT/mmap-$1.dat
	measured $m $n $f mmap $f --pages $MMAP_PAGES || return
	shown $n
	check "$n.app_bytes" 0 "$(g app_bytes)"
	check "$n.folios" "$(x folios)" "$(g folios)"
	if [ "$VM_TRACKING" = yes ]; then
		if [ "$m" = tracepoint ] || [ "$m" = raw_tp ]; then
			# no hook on iomap_dirty_folio: the RFCv4 bitmap shows it
			check "$n.other_dirty_folios" "$(x whole_folio_dirty_events)" "$(g other_dirty_folios)" \
				"folios dirty in the bitmap with no write seen"
		else
			check "$n.whole_folio_dirty_events" "$(x whole_folio_dirty_events)" \
				"$(g whole_folio_dirty_events)" "iomap_dirty_folio events = pages touched"
		fi
		check "$n.dirty_blocks" "$(x dirty_blocks)" "$(g dirty_blocks)"
		check "$n.submitted_blocks" "$(x submitted_blocks)" "$(g submitted_blocks)"
		check "$n.folio_amplification" 1 "$(g folio_amplification)"
	else
		# no iomap_dirty_folio and no bitmap: documented as folios with
		# no dirtying seen, kept out of the amplification
		check "$n.folios_no_dirty_seen" "$(x folios)" "$(g folios_no_dirty_seen)"
		check "$n.unseen_submitted_blocks" "$(g submitted_blocks)" "$(g unseen_submitted_blocks)"
	fi
	check "$n.blocklayer_bytes" "$(g submitted_bytes)" "$blk_file" \
		"data written into the file at the block layer vs the tool's submitted_bytes"
	rm -f $f
}

# short_copy MODE: a write(2) whose copy faults half way (its buffer's
# second page unmapped), then one byte into the page it never reached: the
# tool counts what the kernel copied, as write(2)'s return values say
short_copy() {
	m=$1 n="$1.short_copy" f=$MNT/short-$1.dat
	measured $m $n $f shortcopy $f || return
	shown $n
	for k in app_bytes write_calls app_dirty_blocks folios; do
		check "$n.$k" "$(x $k)" "$(g $k)"
	done
	check "$n.dirty_blocks" "$(x app_dirty_blocks)" "$(g dirty_blocks)" "no other dirtying"
	check "$n.blocklayer_bytes" "$(g submitted_bytes)" "$blk_file" \
		"data written into the file at the block layer vs the tool's submitted_bytes"
	rm -f $f
}

# verify MODE [NAME VERIFY-ARGS...]: -D seconds around the scattered writes;
# the verdict is known
verify() {
	m=$1 n="$1.${2:-verify}" f=$MNT/verify-$1.dat dur=8
	shift
	[ $# -gt 0 ] && shift
	rm -f $f
	info "$n: prep"
	workload prep $f $PREP_SIZE >$W/prep.json || { vmtest_fail "$n.prep" "workload prep failed"; return; }
	sync
	if ! tool_start $W/verify.out $W/verify.err verify --mode $m --mount $MNT -D $dur --json "$@"; then
		vmtest_fail "$n.attach" "iomapdirty verify --mode $m did not attach"
		return
	fi
	w0=$(now)
	timeout $RUN_TIMEOUT workload scatter $f --count $NWRITES --len $WLEN \
		--stride ${STRIDE_CROSSING:-$STRIDE_ALIGNED} >$W/exp.json
	w1=$(now)
	tool_wait_end $dur
	echo "--- $n: iomapdirty verify --mode $m --mount $MNT -D $dur --json"
	cat $W/verify.out
	v=$W/verify.out
	if awk -v a=$w0 -v b=$w1 -v d=$dur 'BEGIN { exit !(b - a < d - 1) }'; then
		vmtest_pass "$n.workload_inside_window"
	else
		vmtest_fail "$n.workload_inside_window" "workload took $w0..$w1 s, window $dur s"
	fi
	load X_ $W/exp.json "$EXP_PICK"
	load V_ $v '{verdict, reason, checked_at_bio_only,
		submitted_blocks: ([.filesystems[].stats.submitted_blocks] | add),
		unchecked_blocks: ([.filesystems[].stats.unchecked_blocks] | add),
		violation_blocks: ([.filesystems[].stats.violation_blocks] | add),
		folios: ([.filesystems[].stats.folios] | add),
		bio_checked: ([.block_devices[].bio_checked_blocks] | add),
		bio_clean: ([.block_devices[].bio_violation_blocks] | add),
		bio_unjudged: ([.block_devices[].bio_unjudged_blocks] | add),
		offenders: (.offenders | length)}'
	reason=$V_reason
	info "$n: verdict $V_verdict (exit $TOOL_RC): $reason"
	sub=$V_submitted_blocks
	case "$VM_SERIES/$VM_PATCH/$n" in
	6.1/rfcv4/*.simulated_clean)
		# the first dirty block of every folio hidden from the check
		# (--simulate-clean 1): the kernel writes it, and the write bios
		# carry one clean block per folio: the check at the bio fails
		check "$n.exit" 1 $TOOL_RC "verify --simulate-clean on 6.1 RFCv4"
		check "$n.verdict" fail "$V_verdict"
		check "$n.bio_clean" "$V_folios" "$V_bio_clean" "one clean block per folio"
		check "$n.bio_checked" "$((sub - V_folios))" "$V_bio_checked"
		check "$n.offenders_listed" true "$([ "${V_offenders:-0}" -gt 0 ] && echo true)"
		case "$reason" in
		*"clean blocks were carried by write bios"*) vmtest_pass "$n.reason" ;;
		*) vmtest_fail "$n.reason" "want 'N clean blocks were carried by write bios', got '$reason'" ;;
		esac
		;;
	6.1/rfcv4/*)
		# 6.1's iomap_writepage_map tracepoint: one event per block, no
		# offset (docs/kernels.md); every block a write bio carries is
		# placed from its page and checked there against its folio's
		# dirty bitmap as writeback began: a pass, with that evidence
		check "$n.exit" 0 $TOOL_RC "verify on 6.1 RFCv4, checked in the write bios"
		check "$n.verdict" pass "$V_verdict"
		check "$n.checked_at_bio_only" true "$V_checked_at_bio_only"
		case "$reason" in
		*"checked in the write bios"*) vmtest_pass "$n.reason" ;;
		*) vmtest_fail "$n.reason" "want 'N blocks checked in the write bios', got '$reason'" ;;
		esac
		check "$n.submitted_blocks" "$(x dirty_blocks)" "$sub"
		check "$n.bio_checked" "$(x dirty_blocks)" "$V_bio_checked" \
			"blocks the workload dirtied, checked dirty in the write bios"
		check "$n.bio_clean" 0 "$V_bio_clean"
		check "$n.bio_unjudged" 0 "$V_bio_unjudged"
		check "$n.violation_blocks" 0 "$V_violation_blocks"
		;;
	6.12/*)
		# 6.9+: the tracepoint gives each range's offset and length, so
		# every submitted block is placed; the kernel wrote only dirty
		# blocks, so the verdict is pass
		check "$n.exit" 0 $TOOL_RC "verify with per-block dirty tracking"
		check "$n.verdict" pass "$V_verdict"
		check "$n.submitted_blocks" "$(x dirty_blocks)" "$sub"
		# checked a second time in the write bios: the two agree
		check "$n.checked_at_bio_only" false "$V_checked_at_bio_only"
		check "$n.bio_checked" "$(x dirty_blocks)" "$V_bio_checked"
		check "$n.bio_clean" 0 "$V_bio_clean"
		check "$n.unchecked_blocks" 0 "$V_unchecked_blocks"
		check "$n.violation_blocks" 0 "$V_violation_blocks"
		;;
	*)
		check "$n.exit" 1 $TOOL_RC "verify without per-block dirty tracking"
		check "$n.verdict" fail "$V_verdict"
		case "$reason" in
		*"no per-block dirty tracking"*) vmtest_pass "$n.reason" ;;
		*) vmtest_fail "$n.reason" "want 'no per-block dirty tracking', got '$reason'" ;;
		esac
		# the evidence: every folio went clean -> dirty inside the
		# window, so the writes seen are its dirty blocks; the write
		# bios carried those and, for the rest of each folio, clean ones
		check "$n.bio_checked" "$(x dirty_blocks)" "$V_bio_checked" \
			"blocks the workload dirtied, dirty in the write bios"
		check "$n.bio_clean" "$((sub - $(x dirty_blocks)))" "$V_bio_clean" \
			"the rest of each folio written, clean"
		check "$n.offenders_listed" true "$([ "${V_offenders:-0}" -gt 0 ] && echo true)"
		;;
	esac
	rm -f $f
}

# ------------------------------------------ verify opened on a busy host
# (issue 22) preattach MODE: NWRITES folios of one file dirtied before
# verify attaches, NWRITES of another written and fsynced under it, then
# the first written back too (sync); the kernel's periodic writeback held
# off meanwhile. Pages dirtied before attach are never missing evidence:
# with a dirty bitmap (RFCv4, 6.12) their blocks are checked against it,
# in the write bios, and counted apart; without one (unpatched 6.1) the
# verdict is FAIL with the window's clean blocks as offenders, never
# INCOMPLETE. Expected figures are the workload's; the offenders' inode is
# the window file's (stat).
preattach() {
	m=$1 n=$1.preattach pre=$MNT/pre-$1.dat in=$MNT/in-$1.dat
	vm=/proc/sys/vm
	rm -f $pre $in
	if ! workload prep $pre $PREP_SIZE >/dev/null || ! workload prep $in $PREP_SIZE >/dev/null; then
		vmtest_fail "$n.prep" "workload prep failed"
		return
	fi
	sync
	old_expire=$(cat $vm/dirty_expire_centisecs) old_wb=$(cat $vm/dirty_writeback_centisecs)
	echo 360000 >$vm/dirty_expire_centisecs
	echo 0 >$vm/dirty_writeback_centisecs
	workload scatter $pre --count $NWRITES --len $WLEN --stride $STRIDE_ALIGNED \
		--no-fsync >$W/pre.json
	trace_start
	if tool_start $W/pa.out $W/pa.err verify --mode $m --mount $MNT --json; then
		timeout $RUN_TIMEOUT workload scatter $in --count $NWRITES --len $WLEN \
			--stride $STRIDE_ALIGNED >$W/in.json
		sync
		tool_stop
	else
		TOOL_RC=attach
	fi
	trace_stop $W/blk.trace
	echo $old_expire >$vm/dirty_expire_centisecs
	echo $old_wb >$vm/dirty_writeback_centisecs
	[ "$TOOL_RC" = attach ] && { vmtest_fail "$n.attach" "iomapdirty verify did not attach"; return; }
	echo "--- $n: iomapdirty verify --mode $m --mount $MNT --json (NWRITES folios dirty before)"
	cat $W/pa.out
	load P_ $W/pre.json "$EXP_PICK"
	load I_ $W/in.json "$EXP_PICK"
	load IE_ $W/in.json .
	load V_ $W/pa.out '{verdict, reason, preattach_folios, checked_blocks,
		submitted_blocks: ([.filesystems[].stats.submitted_blocks] | add),
		app_bytes: ([.filesystems[].stats.app_bytes] | add),
		data_bytes: ([.block_devices[].data_bytes] | add),
		submitted_bytes: ([.filesystems[].stats.submitted_bytes] | add),
		bio_checked: ([.block_devices[].bio_checked_blocks] | add),
		bio_preattach: ([.block_devices[].bio_preattach_blocks] | add),
		bio_clean: ([.block_devices[].bio_violation_blocks] | add),
		offender_inodes: ([.offenders[].ino] | unique | map(tostring) | join(","))}'
	info "$n: verdict $V_verdict (exit $TOOL_RC): $V_reason"
	check "$n.window_app_bytes" "$I_app_bytes" "$V_app_bytes" "bytes written under verify"
	# the block layer's own bytes into both files (block_rq_issue inside
	# their extents): what the tool saw submitted, N's and M's
	{ file_extents $pre; file_extents $in; } >$W/extents
	set -- $(blk_bytes $W/blk.trace $W/extents)
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	check "$n.block_layer_file_bytes" "$V_submitted_bytes" "$1" \
		"data written into the two files at the block layer vs the tool's submitted bytes"
	# and verify's own figure of data bytes at the block layer (6.1-6.8:
	# the blocks its bio pages place in a file: no offsets to match)
	check "$n.block_layer_data_bytes" "$V_submitted_bytes" "$V_data_bytes" \
		"data bytes verify matched at the block layer vs its submitted bytes"
	if [ "$VM_TRACKING" = yes ]; then
		check "$n.exit" 0 $TOOL_RC "verify opened with $P_folios folios dirty"
		check "$n.verdict" pass "$V_verdict"
		check "$n.preattach_folios" "$P_folios" "$V_preattach_folios"
		check "$n.checked_blocks" "$I_dirty_blocks" "$V_checked_blocks" \
			"blocks dirtied under verify, checked"
		check "$n.bio_preattach" "$P_dirty_blocks" "$V_bio_preattach" \
			"blocks dirtied before attach, checked in the write bios"
		check "$n.bio_checked" "$((P_dirty_blocks + I_dirty_blocks))" "$V_bio_checked"
		check "$n.bio_clean" 0 "$V_bio_clean"
	else
		check "$n.exit" 1 $TOOL_RC "verify without per-block dirty tracking"
		check "$n.verdict" fail "$V_verdict"
		# the window's folios: their dirty blocks and, for the rest of
		# each, clean ones; the pre-attach folios judged by neither
		check "$n.bio_checked" "$I_dirty_blocks" "$V_bio_checked"
		check "$n.bio_clean" "$((I_folios * PAGE_SIZE / IE_block_size - I_dirty_blocks))" \
			"$V_bio_clean" "the rest of each window folio, clean"
		check "$n.offenders" "$(stat -c %i $in)" "$V_offender_inodes" \
			"offenders: the window's file only"
	fi
	rm -f $pre $in
}

# ------------------------------------------- the always-on accounting level
# `--accounting always-on` (issue 13; the exporter's default): no per-page
# records. Application bytes and write calls are counted per file at the
# write; the rest at writeback, which in tracepoint modes finds the folio
# in the page cache's xarray (bpf/page_cache.bpf.h; probe reads on 6.1,
# which has no bpf_rdonly_cast) and reads the kernel's dirty bitmap.
# Checked against the same ground truth as the full level: the payload's
# own writes, the folio geometry and the block layer. What the level does
# not measure must be null, never 0: the lists are docs/json-schema.md's.
AO_MODES="tracepoint raw_tp auto"
AO_NULL="app_dirty_blocks app_dirty_bytes other_dirty_blocks other_dirty_folios
	whole_folio_dirty_events unexplained_blocks block_rounding
	preattach_folios preattach_checked_blocks preattach_violation_blocks"
# without a dirty bitmap (no per-block tracking: unpatched 6.1) also what
# needs one
AO_NULL_NO_BITMAP="dirty_blocks dirty_bytes folios_no_dirty_seen unseen_submitted_blocks
	violation_blocks violation_folios folio_amplification kernel_dirty_blocks bitmap_folios"
# bpf_rdonly_cast (6.2+) from the guest's kallsyms, not from the tool
HAS_RDONLY_CAST=no
grep -q ' bpf_rdonly_cast$' /proc/kallsyms && HAS_RDONLY_CAST=yes

# ao_summary FILTER: FILTER on the last summary of the run, compact
ao_summary() { jqm -c "select(.type == \"summary\") | $1" $W/hist.out | tail -n 1; }

# ao_hist HIST V: "folios in the bucket holding V, folios in all buckets"
ao_hist() {
	ao_summary ".histograms.$1.buckets | [([.[] | select(.min <= $2 and
		(.max == null or $2 <= .max)) | .count] | add // 0), ([.[].count] | add // 0)]"
}

# ao_plan MODE N: the level as the output names it, and its attach plan
ao_plan() {
	check "$2.accounting" '["always-on","always-on"]' "$(ao_summary '[.accounting, .plan.accounting]')"
	check "$2.max_page_records" null "$(ao_summary .max_page_records)" "no page records kept"
	check "$2.detached_hooks" '[false,false,false]' "$(ao_summary '[.plan.hooks[] |
		select(.hook == "whole_folio_dirty" or .hook == "folio_pointer" or .hook == "invalidate") |
		.chosen]')" "hooks that only feed page records"
	[ "$1" = auto ] && return
	# tracepoint writeback: the folio from the page cache, with guarded
	# loads where the kernel has bpf_rdonly_cast and the program is tp_btf
	want="page cache" ptype=$(ao_summary '.plan.hooks[] | select(.hook == "writeback_begin") | .program_type')
	[ "$HAS_RDONLY_CAST/$ptype" = 'yes/"tp_btf"' ] && want="$want, guarded loads"
	note=$(ao_summary '.plan.hooks[] | select(.hook == "writeback_begin") | .note') got=
	case "$note" in *"folio found in the page cache"*) got="page cache" ;; esac
	case "$note" in *"read with guarded loads"*) got="$got, guarded loads" ;; esac
	info "$2: bpf_rdonly_cast in kallsyms: $HAS_RDONLY_CAST; writeback_begin $ptype: $note"
	check "$2.writeback_folio_lookup" "$want" "$got" "writeback_begin's note ($ptype)"
}

# ao_check MODE N APP_BYTES CALLS [uniform]: after measured(), the
# always-on summary against the ground truth; uniform: every folio has as
# many dirty blocks as the others (histograms checked)
ao_check() {
	m=$1 n=$2 app=$3 calls=$4 uniform=${5-}
	bpf=$((E_page_size / E_block_size))
	echo "--- $n: workload"
	cat $W/exp.json
	echo "--- $n: iomapdirty summary totals"
	cat $W/got.json
	check "$n.losses" '{}' "$(cat $W/losses.json)"
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	nulls=$AO_NULL
	[ "$VM_TRACKING" = yes ] || nulls="$nulls $AO_NULL_NO_BITMAP"
	# the same fields null in the totals, per filesystem and per file
	check "$n.not_measured_null" "[$(echo $nulls | tr ' ' '\n' | jqm -R . | jqm -cs sort)]" \
		"$(ao_summary '[.totals, .filesystems[].stats, .files[].stats] |
			map([to_entries[] | select(.value == null) | .key] | sort) | unique')" \
		"fields null (not measured) in totals, filesystems[], files[]"
	check "$n.app_bytes" "$app" "$(g app_bytes)" "bytes the payload wrote"
	check "$n.write_calls" "$calls" "$(g write_calls)" "write(2) calls the payload made"
	check "$n.per_file" "[[$app,$calls]]" "$(ao_summary "[.files[] |
		select(.ino == $E_ino and .dev == \"$E_dev\") | .stats | [.app_bytes, .write_calls]]")" \
		"the file's own [app_bytes, write_calls]"
	check "$n.per_filesystem" "[[$app,$calls]]" "$(ao_summary "[.filesystems[] |
		select(.dev == \"$E_dev\") | .stats | [.app_bytes, .write_calls]]")" \
		"the filesystem's [app_bytes, write_calls]"
	check "$n.folios" "$(x folios)" "$(g folios)"
	check "$n.max_folio_bytes" "$(x max_folio_bytes)" "$(g max_folio_bytes)"
	if [ "$VM_TRACKING" = yes ]; then
		want=$(x dirty_blocks)
		check "$n.dirty_blocks" "$want" "$(g dirty_blocks)" "from the kernel's bitmap"
		check "$n.kernel_dirty_blocks" "$want" "$(g kernel_dirty_blocks)"
		check "$n.bitmap_folios" "$(g folios)" "$(g bitmap_folios)" "the bitmap read for every folio"
		check "$n.submitted_blocks" "$want" "$(g submitted_blocks)" "only dirty blocks"
		check "$n.folio_amplification" 1 "$(g folio_amplification)"
		check "$n.violation_blocks" 0 "$(g violation_blocks)"
	else
		want=$(($(x folios) * bpf))
		check "$n.submitted_blocks" "$want" "$(g submitted_blocks)" \
			"whole folios, $bpf blocks each"
	fi
	if [ -n "$uniform" ]; then
		# blocks per folio: dirty (tracking: only those submitted), or whole
		spf=$bpf dpf=$(($(x dirty_blocks) / $(x folios)))
		[ "$VM_TRACKING" = yes ] && spf=$dpf
		check "$n.hist_submitted_blocks" "[$(x folios),$(x folios)]" \
			"$(ao_hist submitted_blocks_per_folio $spf)" "every folio in the bucket of $spf"
		# dirty blocks per folio: from the bitmap, else not measured:
		# null, not every folio in the 0 bucket (nor amplification)
		if [ "$VM_TRACKING" = yes ]; then
			check "$n.hist_dirty_blocks" "[$(x folios),$(x folios)]" \
				"$(ao_hist dirty_blocks_per_folio $dpf)" "every folio in the bucket of $dpf"
		else
			check "$n.hist_dirty_blocks" null \
				"$(ao_summary '.histograms.dirty_blocks_per_folio | if . == null then . else [.buckets[].count] end')" \
				"not measured without a bitmap"
			check "$n.hist_folio_amplification" null \
				"$(ao_summary '.histograms.folio_amplification | if . == null then . else [.buckets[].count] end')" \
				"not measured without a bitmap"
		fi
	fi
	check "$n.blocklayer_bytes" "$(g submitted_bytes)" "$blk_file" \
		"data written into the file at the block layer vs the tool's submitted_bytes"
	check "$n.blocklayer_expected" $((want * E_block_size)) "$blk_file" \
		"data written into the file at the block layer vs the blocks the geometry wants"
	echo "VMRESULT always_on variant=$V mode=$m name=${n##*.}" \
		"app_bytes=$(g app_bytes) write_calls=$(g write_calls) dirty_blocks=$(g dirty_blocks)" \
		"kernel_dirty_blocks=$(g kernel_dirty_blocks) bitmap_folios=$(g bitmap_folios)" \
		"folios=$(g folios) submitted_blocks=$(g submitted_blocks) submitted_bytes=$(g submitted_bytes)" \
		"folio_amplification=$(g folio_amplification) blk_file_bytes=$blk_file"
}

# always_on MODE: the aligned (and crossing) scattered writes and, in
# tracepoint mode, mmap dirtying, under hist --accounting always-on
always_on() {
	m=$1 ACCOUNTING=always-on
	f=$MNT/ao-aligned-$m.dat
	if measured $m always_on.$m.aligned $f scatter $f --count $NWRITES --len $WLEN \
		--stride $STRIDE_ALIGNED; then
		ao_plan $m always_on.$m
		ao_check $m always_on.$m.aligned $((NWRITES * WLEN)) $NWRITES uniform
	fi
	rm -f $f
	f=$MNT/ao-crossing-$m.dat
	if [ -n "$STRIDE_CROSSING" ] && measured $m always_on.$m.crossing $f scatter $f \
		--count $NWRITES --len $WLEN --stride $STRIDE_CROSSING; then
		ao_check $m always_on.$m.crossing $((NWRITES * WLEN)) $NWRITES
	fi
	rm -f $f
	f=$MNT/ao-mmap-$m.dat
	# whole folios dirtied through a mapping: no write call, the bitmap
	# (or whole folios) at writeback
	if [ $m = tracepoint ] && measured $m always_on.$m.mmap $f mmap $f --pages $MMAP_PAGES; then
		ao_check $m always_on.$m.mmap 0 0 uniform
	fi
	rm -f $f
	ACCOUNTING=full
}

# ------------------------------------------------- blocks larger than pages
# 6.12: XFS with 16 KiB blocks on 4 KiB pages (large block size, new in
# 6.12): every folio is at least one block, so a small write dirties a
# whole block and nothing is amplified. The host's mkfs.xfs makes it.
LBS=16384 LBS_MNT=/mnt/xfs16k LBS_DEV=/dev/loop2
large_blocks() {
	m=$1 n="$1.lbs16k" f=$LBS_MNT/lbs-$1.dat
	truncate -s 512M /tmp/xfs16k.img
	if losetup $LBS_DEV /tmp/xfs16k.img && mkfs.xfs -q -f -b size=$LBS $LBS_DEV; then
		vmtest_pass "$n.mkfs"
	else
		vmtest_fail "$n.mkfs" "mkfs.xfs -b size=$LBS failed"
		return
	fi
	mkdir -p $LBS_MNT
	if mount -t xfs $LBS_DEV $LBS_MNT; then
		vmtest_pass "$n.mount"
	else
		vmtest_fail "$n.mount" "the kernel refused XFS with $LBS-byte blocks"
		dmesg | tail -n 5
		return
	fi
	# measured and blk_bytes work on MNT, DEV and its log
	o_mnt=$MNT o_dev=$DEV o_devt=$DEVT o_l0=$LOG0 o_l1=$LOG1
	MNT=$LBS_MNT DEV=$LBS_DEV DEVT=$(cat /sys/block/${LBS_DEV#/dev/}/dev)
	set -- $(log_sectors $DEV)
	LOG0=$1 LOG1=$2
	if measured $m $n $f scatter $f --count $NWRITES --len $WLEN --stride $((2 * LBS)); then
		echo "--- $n: workload"
		cat $W/exp.json
		echo "--- $n: iomapdirty summary totals"
		cat $W/got.json
		check "$n.block_size" $LBS "$(val E_ block_size)" "the filesystem block size the workload saw"
		check "$n.losses" '{}' "$(cat $W/losses.json)"
		for k in app_bytes write_calls app_dirty_blocks folios; do
			check "$n.$k" "$(x $k)" "$(g $k)"
		done
		check "$n.dirty_blocks" "$(x app_dirty_blocks)" "$(g dirty_blocks)"
		check "$n.submitted_blocks" "$(x app_dirty_blocks)" "$(g submitted_blocks)" \
			"one block per folio: the dirty block is the folio"
		check "$n.folio_amplification" 1 "$(g folio_amplification)"
		check "$n.blocklayer_expected" $(($(x app_dirty_blocks) * LBS)) "$blk_file" \
			"bytes the block layer wrote into the file vs the dirty blocks the workload made"
		check "$n.blocklayer_bytes" "$(g submitted_bytes)" "$blk_file" \
			"data written into the file at the block layer vs the tool's submitted_bytes"
		echo "VMRESULT lbs variant=$V mode=$m block_size=$LBS writes=$NWRITES len=$WLEN" \
			"app_dirty_blocks=$(g app_dirty_blocks) folios=$(g folios)" \
			"submitted_blocks=$(g submitted_blocks) submitted_bytes=$(g submitted_bytes)" \
			"folio_amplification=$(g folio_amplification) blk_file_bytes=$blk_file"
	fi
	rm -f $f
	MNT=$o_mnt DEV=$o_dev DEVT=$o_devt LOG0=$o_l0 LOG1=$o_l1
	umount $LBS_MNT
	losetup -d $LBS_DEV
}

# ------------------------------------------------------------- run files
# The lab's own run files, for the A/B that vmcheck.sh builds on the host
# with `iomapdirty compare` and `iomapdirty report` (docs/lab-results.md).
# export_file NAME FILE: FILE on the console as VMFILE lines (gzip, then
# base64, one line each), between a BEGIN line with its size and sha256
# and an END line; the host decodes it and checks both.
export_file() {
	echo "VMFILE BEGIN $1 bytes=$(wc -c <"$2") sha256=$(sha256sum <"$2" | cut -d' ' -f1)"
	gzip -9 -c "$2" | base64 | sed "s/^/VMFILE DATA $1 /"
	echo "VMFILE END $1"
}

# runfile_scatter: the aligned scattered overwrites (one write in one
# block of its own folio, then fsync) under `iomapdirty run --json` in the
# auto plan, the block layer traced; the run file checked against the
# workload's figures and the block layer, then exported.
runfile_scatter() {
	n=runfile f=$MNT/runfile.dat rf=$W/runfile-scatter.json
	rm -f $f $rf
	workload prep $f $PREP_SIZE >$W/prep.json || { vmtest_fail "$n.prep" "workload prep failed"; return; }
	sync
	trace_start
	# -q: no text summary on stdout, which the workload's figures go to
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --mount $MNT --json $rf -- \
		workload scatter $f --count $NWRITES --len $WLEN --stride $STRIDE_ALIGNED >$W/exp.json
	rc=$?
	trace_stop $W/blk.trace
	check "$n.exit" 0 $rc "iomapdirty run --json -- workload scatter"
	[ -s $rf ] || { vmtest_fail "$n.output" "no run file"; return; }
	check_scope $rf $n
	load X_ $W/exp.json "$EXP_PICK"
	load E_ $W/exp.json .
	load R_ $rf .totals
	file_extents $f >$W/extents
	set -- $(blk_bytes $W/blk.trace $W/extents)
	blk_file=$1
	r() { val R_ "$1"; }
	echo "--- $n: iomapdirty run totals: $(jqm -c .totals $rf)"
	check "$n.losses" '{}' "$(jqm -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' $rf)"
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	for k in app_bytes folios; do
		check "$n.$k" "$(x $k)" "$(r $k)"
	done
	check "$n.dirty_blocks" "$(x app_dirty_blocks)" "$(r dirty_blocks)"
	if [ "$VM_TRACKING" = yes ]; then
		check "$n.submitted_blocks" "$(r dirty_blocks)" "$(r submitted_blocks)" "only dirty blocks"
	else
		check "$n.submitted_blocks" $(($(r folios) * E_page_size / E_block_size)) \
			"$(r submitted_blocks)" "whole folios"
	fi
	check "$n.blocklayer_bytes" "$(r submitted_bytes)" "$blk_file" \
		"data written into the file at the block layer vs the run file's submitted_bytes"
	echo "VMRESULT runfile variant=$V name=scatter stride=$STRIDE_ALIGNED writes=$NWRITES len=$WLEN" \
		"app_bytes=$(r app_bytes) dirty_blocks=$(r dirty_blocks) folios=$(r folios)" \
		"submitted_blocks=$(r submitted_blocks) submitted_bytes=$(r submitted_bytes)" \
		"folio_amplification=$(r folio_amplification) blk_file_bytes=$blk_file"
	export_file scatter $rf
	rm -f $f
}

# ext4_scatter: the buffer-head backend (issue 26) on a 1 KiB-block ext4
# (x86_64 guests, which have mkfs.ext4): the aligned scattered overwrites
# under `iomapdirty run --json` in the auto plan, checked against the
# workload's figures and the block layer as runfile_scatter does; on a
# kernel whose plan has no such backend, the run must name ext4 NOT
# WATCHED instead. The run file leaves as VMFILE ext4 (the side by side).
EXT4_MNT=/mnt/ext4 EXT4_IMG=/tmp/ext4.img EXT4_LOOP=/dev/loop4
ext4_scatter() {
	n=ext4 f=$EXT4_MNT/f rf=$W/ext4.json
	command -v mkfs.ext4 >/dev/null || { info "no mkfs.ext4 in this guest: no ext4 run"; return; }
	grep -qw ext4 /proc/filesystems || { info "no ext4 in this kernel: no ext4 run"; return; }
	truncate -s 64M $EXT4_IMG && losetup $EXT4_LOOP $EXT4_IMG &&
		mkfs.ext4 -q -F -b 1024 $EXT4_LOOP && mkdir -p $EXT4_MNT &&
		mount -t ext4 $EXT4_LOOP $EXT4_MNT || { vmtest_fail $n.mount "mkfs.ext4 or mount failed"; return; }
	vmtest_pass $n.mount
	set -- "$DEV" "$DEVT" "$LOG0" "$LOG1"
	DEV=$EXT4_LOOP DEVT=$(cat /sys/block/loop4/dev) LOG0=0 LOG1=0
	backend=$(iomapdirty probes --json | jqm -r '.plan.backends[] | select(.filesystem == "ext4") | .backend')
	info "ext4 backend in the auto plan: $backend"
	workload prep $f $PREP_SIZE >$W/prep.json || vmtest_fail "$n.prep" "workload prep failed"
	sync
	trace_start
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --mount $EXT4_MNT --json $rf -- \
		workload scatter $f --count $NWRITES --len $WLEN --stride $STRIDE_ALIGNED >$W/exp.json
	rc=$?
	trace_stop $W/blk.trace
	if [ "$backend" != buffer_heads ]; then
		# refused, exit 5, with why: no backend counts ext4 in this plan
		check "$n.refused_exit" 5 $rc "run --mount EXT4 where the plan has no ext4 backend"
	else
		check "$n.exit" 0 $rc "iomapdirty run --json -- workload scatter on ext4"
		ext4_check $rf $f
		ext4_verify
		ext4_always_on
		ext4_journal_inode
	fi
	DEV=$1 DEVT=$2 LOG0=$3 LOG1=$4
	rm -f $f
	umount $EXT4_MNT
	losetup -d $EXT4_LOOP
	rm -f $EXT4_IMG
}

# btrfs_scatter: the btrfs backend (issue 26) on a btrfs whose blocks are
# as large as the page (4 KiB on x86_64, 64 KiB on ppc64le), the scattered
# overwrites under `iomapdirty run --mount`, the block layer traced: the
# run file against the workload's figures, and the bytes submitted against
# the block layer's writes into the btrfs's data chunks (its chunk tree:
# btrfs writes each block anew elsewhere). With 64 KiB pages, also a btrfs
# with 4 KiB blocks (btrfs_subpage). Where the kernel has no btrfs (the
# x86_64 6.1 builds), the plan must attach no btrfs backend.
BTRFS_MNT=/mnt/btrfs BTRFS_IMG=/tmp/btrfs.img BTRFS_LOOP=/dev/loop5
btrfs_scatter() {
	n=btrfs f=$BTRFS_MNT/f rf=$W/btrfs.json
	command -v mkfs.btrfs >/dev/null || { info "no mkfs.btrfs in this guest: no btrfs run"; return; }
	backend=$(iomapdirty probes --json | jqm -r '.plan.backends[] | select(.filesystem == "btrfs") | .backend')
	if ! grep -qw btrfs /proc/filesystems; then
		check "$n.no_backend" null "$backend" "btrfs backend where the kernel has no btrfs"
		return
	fi
	check "$n.backend" btrfs "$backend" "the auto plan's btrfs backend"
	info "btrfs backend: $(iomapdirty probes --json | jqm -c '.plan.backends[] | select(.filesystem == "btrfs") | .note')"
	btrfs_fresh $PAGE_SIZE || return
	set -- "$DEV" "$DEVT" "$LOG0" "$LOG1"
	DEV=$BTRFS_LOOP DEVT=$(cat /sys/block/${BTRFS_LOOP#/dev/}/dev) LOG0=0 LOG1=0
	workload prep $f $PREP_SIZE >$W/prep.json || vmtest_fail "$n.prep" "workload prep failed"
	sync
	trace_start
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --mount $BTRFS_MNT --json $rf -- \
		workload scatter $f --count $NWRITES --len $WLEN --stride $STRIDE_ALIGNED >$W/exp.json
	check "$n.exit" 0 $? "iomapdirty run --json -- workload scatter on btrfs"
	trace_stop $W/blk.trace
	btrfs_check $rf
	DEV=$1 DEVT=$2 LOG0=$3 LOG1=$4
	btrfs_gone
	[ "$PAGE_SIZE" = 4096 ] || btrfs_subpage
}

btrfs_fresh() {	# SECTORSIZE: a new btrfs on $BTRFS_MNT
	truncate -s 256M $BTRFS_IMG && losetup $BTRFS_LOOP $BTRFS_IMG &&
		mkfs.btrfs -q -f -s $1 $BTRFS_LOOP >/dev/null && mkdir -p $BTRFS_MNT &&
		mount -t btrfs $BTRFS_LOOP $BTRFS_MNT ||
		{ vmtest_fail $n.mount "mkfs.btrfs -s $1 or mount failed"; btrfs_gone; return 1; }
}

btrfs_gone() {
	umount $BTRFS_MNT 2>/dev/null
	losetup -d $BTRFS_LOOP 2>/dev/null
	rm -f $BTRFS_IMG
}

# btrfs_subpage: 4 KiB blocks on 64 KiB pages, which the backend does not
# place: the workload's folios named NOT WATCHED as `btrfs subpage` (with
# btrfs's own metadata, the same superblock: at least the file's), none
# counted, and `--mount` of it refused (exit 5) with why
btrfs_subpage() {
	n=btrfs_subpage f=$BTRFS_MNT/f rf=$W/btrfs-subpage.json
	btrfs_fresh 4096 || return
	workload prep $f $PREP_SIZE >$W/prep.json || vmtest_fail "$n.prep" "workload prep failed"
	sync
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --json $rf -- \
		workload scatter $f --count $NWRITES --len $WLEN --stride $STRIDE_ALIGNED >$W/exp.json
	check "$n.exit" 0 $? "iomapdirty run --json -- workload scatter on a subpage btrfs"
	check "$n.named" true "$(jqm --argjson w $NWRITES '[.unwatched_filesystems[] |
		select(.kind == "btrfs subpage") | .folios_dirtied >= $w] == [true]' $rf)"
	check "$n.not_counted" 0 "$(jqm .totals.app_bytes $rf)"
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --mount $BTRFS_MNT -- true 2>$W/subpage.err
	check "$n.mount_refused" 5 $? "run --mount of a subpage btrfs"
	check "$n.mount_why" 1 "$(grep -c 'btrfs with 4096-byte blocks, smaller than the 65536-byte page' $W/subpage.err)"
	btrfs_gone
}

btrfs_check() {	# RUNFILE
	[ -s $1 ] || { vmtest_fail "$n.output" "no run file"; return; }
	load X_ $W/exp.json "$EXP_PICK"
	load R_ $1 .totals
	btrfs inspect-internal dump-tree -t chunk $BTRFS_LOOP 2>/dev/null |
		awk '/CHUNK_ITEM/ { for (i = 1; i < NF; i++) if ($i == "CHUNK_ITEM") l = $(i + 1) }
		/length .* type DATA/ { len = $2; data = 1; next }
		/length .* type / { data = 0 }
		data && /stripe [0-9]+ devid/ { print $NF / 512, ($NF + len) / 512 }' >$W/chunks
	set -- $1 $(blk_bytes $W/blk.trace $W/chunks)
	r() { val R_ "$1"; }
	echo "--- $n: iomapdirty run totals: $(jqm -c .totals $1)"
	check "$n.losses" '{}' "$(jqm -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' $1)"
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	check "$n.data_chunks_found" true "$([ -s $W/chunks ] && echo true || echo false)"
	for k in app_bytes write_calls app_dirty_blocks dirty_blocks folios submitted_blocks; do
		check "$n.$k" "$(x $k)" "$(r $k)"
	done
	check "$n.violation_blocks" 0 "$(r violation_blocks)"
	check "$n.blocklayer_bytes" "$(r submitted_bytes)" "$2" \
		"data written into the btrfs's data chunks at the block layer vs the run file's submitted_bytes"
	echo "VMRESULT btrfs variant=$V backend=btrfs stride=$STRIDE_ALIGNED writes=$NWRITES len=$WLEN" \
		"app_bytes=$(r app_bytes) dirty_blocks=$(r dirty_blocks) folios=$(r folios)" \
		"submitted_blocks=$(r submitted_blocks) submitted_bytes=$(r submitted_bytes)" \
		"folio_amplification=$(r folio_amplification) blk_data_bytes=$2"
	export_file btrfs $1
}

ext4_check() {	# RUNFILE FILE
	[ -s $1 ] || { vmtest_fail "$n.output" "no run file"; return; }
	load X_ $W/exp.json "$EXP_PICK"
	load R_ $1 .totals
	file_extents $2 >$W/extents
	set -- $1 $(blk_bytes $W/blk.trace $W/extents)
	r() { val R_ "$1"; }
	echo "--- $n: iomapdirty run totals: $(jqm -c .totals $1)"
	check "$n.losses" '{}' "$(jqm -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' $1)"
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	for k in app_bytes write_calls app_dirty_blocks dirty_blocks folios submitted_blocks; do
		check "$n.$k" "$(x $k)" "$(r $k)"
	done
	check "$n.violation_blocks" 0 "$(r violation_blocks)"
	check "$n.blocklayer_bytes" "$(r submitted_bytes)" "$2" \
		"data written into the ext4 file at the block layer vs the run file's submitted_bytes"
	echo "VMRESULT ext4 variant=$V backend=buffer_heads stride=$STRIDE_ALIGNED writes=$NWRITES len=$WLEN" \
		"app_bytes=$(r app_bytes) dirty_blocks=$(r dirty_blocks) folios=$(r folios)" \
		"submitted_blocks=$(r submitted_blocks) submitted_bytes=$(r submitted_bytes)" \
		"folio_amplification=$(r folio_amplification) blk_file_bytes=$2"
	export_file ext4 $1
}

# ext4_always_on: the same overwrites of a new file under `run --all
# --accounting always-on` (the exporter's level): no page records, so the
# dirty blocks are read from the folios' buffer heads at their first write
# bio. Against the workload and the block layer; what the level does not
# measure null (without an iomap dirty bitmap, 6.1 unpatched, the dirty
# figures are null for every filesystem of the session).
ext4_always_on() {
	n=ext4_always_on f=$EXT4_MNT/a rf=$W/ext4-ao.json
	workload prep $f $PREP_SIZE >/dev/null && sync
	trace_start
	timeout $RUN_TIMEOUT iomapdirty run -q --all --accounting always-on --mount $EXT4_MNT \
		--json $rf -- workload scatter $f --count $NWRITES --len $WLEN \
		--stride $STRIDE_ALIGNED >$W/ea-exp.json
	rc=$?
	trace_stop $W/blk.trace
	check "$n.exit" 0 $rc "iomapdirty run --accounting always-on on ext4"
	[ -s $rf ] || { vmtest_fail "$n.output" "no run file"; rm -f $f; return; }
	load X_ $W/ea-exp.json "$EXP_PICK"
	load R_ $rf .totals
	file_extents $f >$W/extents
	r() { val R_ "$1"; }
	echo "--- $n: iomapdirty run totals: $(jqm -c .totals $rf)"
	check "$n.losses" '{}' "$(jqm -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' $rf)"
	check "$n.app_bytes" "$(x syscall_bytes)" "$(r app_bytes)" "counted at the write"
	for k in write_calls folios submitted_blocks; do
		check "$n.$k" "$(x $k)" "$(r $k)"
	done
	check "$n.app_dirty_blocks" null "$(jqm -c .totals.app_dirty_blocks $rf)" "not measured"
	if [ "$(jqm -r .plan.dirty_bitmap $rf)" = none ]; then
		check "$n.dirty_blocks" null "$(jqm -c .totals.dirty_blocks $rf)" \
			"no iomap dirty bitmap: not measured at this level"
	else
		check "$n.dirty_blocks" "$(x dirty_blocks)" "$(r dirty_blocks)" "from the buffer heads"
		check "$n.violation_blocks" 0 "$(r violation_blocks)"
	fi
	set -- $(blk_bytes $W/blk.trace $W/extents)
	check "$n.blocklayer_bytes" "$(r submitted_bytes)" "$1" \
		"data written into the ext4 file at the block layer vs submitted_bytes"
	echo "VMRESULT ext4_always_on variant=$V app_bytes=$(r app_bytes) dirty_blocks=$(r dirty_blocks)" \
		"folios=$(r folios) submitted_blocks=$(r submitted_blocks) submitted_bytes=$(r submitted_bytes)"
	rm -f $f
}

# ext4_journal_inode: a file whose data ext4 journals (chattr +j on a
# nodelalloc mount: the guest's root has CAP_SYS_RESOURCE, which the
# development host lacks) beside one it does not, both written in one run:
# the first named NOT WATCHED ("ext4 data=journal"), in no figure; the
# filesystem's figures exactly the other file's.
ext4_journal_inode() {
	n=ext4_journal_inode
	umount $EXT4_MNT && mount -t ext4 -o nodelalloc $EXT4_LOOP $EXT4_MNT ||
		{ vmtest_fail $n.mount "mount -o nodelalloc failed"; return; }
	workload prep $EXT4_MNT/g $PREP_SIZE >/dev/null && workload prep $EXT4_MNT/h $PREP_SIZE >/dev/null
	chattr +j $EXT4_MNT/g
	check "$n.chattr" 0 $? "chattr +j (needs CAP_SYS_RESOURCE)"
	sync
	timeout $RUN_TIMEOUT iomapdirty run -q $RUN_SCOPE --mount $EXT4_MNT --json $W/ej.json -- \
		sh -c "workload scatter $EXT4_MNT/g --count 6 --len $WLEN --stride $STRIDE_ALIGNED \
			>$W/ej-g.json && workload scatter $EXT4_MNT/h --count 4 --len $WLEN \
			--stride $STRIDE_ALIGNED >$W/ej-h.json"
	check "$n.exit" 0 $? "iomapdirty run on a nodelalloc ext4 with a chattr +j file"
	ino=$(stat -c %i $EXT4_MNT/g)
	echo "--- $n: unwatched $(jqm -c .unwatched_filesystems $W/ej.json)"
	check "$n.listed" true "$(jqm --argjson w "$(jqm .folios $W/ej-g.json)" \
		'[.unwatched_filesystems[] | select(.kind == "ext4 data=journal") |
		.folios_dirtied >= $w] == [true]' $W/ej.json)" "the journalled file's folios named"
	check "$n.not_counted" 0 "$(jqm --argjson i $ino '[.files[] | select(.ino == $i)] | length' \
		$W/ej.json)" "the journalled file in no figure"
	load X_ $W/ej-h.json "$EXP_PICK"
	load R_ $W/ej.json .totals
	for k in app_bytes dirty_blocks submitted_blocks folios; do
		check "$n.$k" "$(x $k)" "$(val R_ $k)" "the filesystem's figures: the other file's"
	done
	rm -f $EXT4_MNT/g $EXT4_MNT/h
}

# ext4_verify: `verify --mount` of the ext4 around the scattered overwrites
# of a new file: PASS on every kernel, 6.1 unpatched too (ext4's dirty
# bits are its buffers', whatever iomap has), its data bytes at the block
# layer those the workload submits, checked in the bios that carried them.
ext4_verify() {
	n=ext4_verify f=$EXT4_MNT/v dur=8
	workload prep $f $PREP_SIZE >/dev/null && sync
	if ! tool_start $W/ev.out $W/ev.err verify --mount $EXT4_MNT -D $dur --json; then
		vmtest_fail "$n.attach" "iomapdirty verify --mount EXT4 did not attach"
		return
	fi
	timeout $RUN_TIMEOUT workload scatter $f --count $NWRITES --len $WLEN \
		--stride $STRIDE_ALIGNED >$W/ev-exp.json
	sync
	tool_wait_end $dur
	echo "--- $n: iomapdirty verify --mount $EXT4_MNT -D $dur --json"
	cat $W/ev.out
	load X_ $W/ev-exp.json "$EXP_PICK"
	load S_ $W/ev.out '{verdict, checked_blocks,
		bh_blocks: ([.block_devices[].buffer_head_blocks] | add),
		data_bytes: ([.block_devices[].data_bytes] | add),
		unmatched_bios: ([.block_devices[].unmatched_bios] | add)}'
	check "$n.exit" 0 $TOOL_RC "verify --mount EXT4"
	check "$n.verdict" pass "$S_verdict"
	check "$n.checked_blocks" "$(x submitted_blocks)" "$S_checked_blocks" \
		"blocks checked in the write bios vs the workload's submitted blocks"
	check "$n.buffer_head_blocks" "$(x submitted_blocks)" "$S_bh_blocks"
	check "$n.block_layer_data_bytes" "$(x submitted_bytes)" "$S_data_bytes" \
		"data bytes at the block layer vs the workload's"
	echo "VMRESULT ext4_verify variant=$V verdict=$S_verdict checked_blocks=$S_checked_blocks" \
		"data_bytes=$S_data_bytes other_bios=$S_unmatched_bios"
	rm -f $f
}

# --------------------------------------------- stacked devices (issue 10)
# verify matches write bios in the coordinates the filesystem submits in
# (docs/design.md, Verify): XFS on partition 1 of a partitioned loop device
# (bios are queued in whole-disk sectors, the partition's start is taken
# back off), on dm-linear as LVM makes it (1 MiB in: the filesystem's bio
# is matched on the dm device, before dm remaps it to the loop device) and
# on dm-crypt. 6.9+ only: before, the submit tracepoint gives no offsets,
# so no block is placed. sfdisk, dmsetup and mdadm come from the host
# (VM_PAYLOAD_EXTRA, with their libraries: x86_64 guests).
STK_MNT=/mnt/stacked STK_IMG=/tmp/stacked.img STK_LOOP=/dev/loop3 STK_DM=iomapdirty-stk
# the node of dm device NAME: devtmpfs makes /dev/dm-N (no udev here to
# make /dev/mapper/NAME)
dm_node() {
	for d in /sys/block/dm-*; do
		[ "$(cat $d/dm/name 2>/dev/null)" = "$1" ] && { echo /dev/${d##*/}; return; }
	done
}

# stacked_verify NAME BLOCKDEV: XFS on BLOCKDEV, verify around scattered
# writes: PASS, the block layer's data bytes = the tool's submitted bytes =
# the workload's, every one seen, on the device the filesystem is on
stacked_verify() {
	n=stacked.$1 bdev=$2 f=$STK_MNT/v.dat dur=8
	mkdir -p $STK_MNT
	if mkfs.xfs -q -f -b size=1024 $bdev && mount -t xfs $bdev $STK_MNT; then
		vmtest_pass "$n.mount"
	else
		vmtest_fail "$n.mount" "mkfs.xfs or mount on $bdev failed"
		return
	fi
	workload prep $f $PREP_SIZE >/dev/null && sync
	if tool_start $W/stk.out $W/stk.err verify --mount $STK_MNT -D $dur --json; then
		timeout $RUN_TIMEOUT workload scatter $f --count $NWRITES --len $WLEN \
			--stride ${STRIDE_CROSSING:-$STRIDE_ALIGNED} >$W/stk-exp.json
		tool_wait_end $dur
		echo "--- $n: iomapdirty verify --mount $STK_MNT ($bdev) -D $dur --json"
		cat $W/stk.out
		load X_ $W/stk-exp.json "$EXP_PICK"
		load S_ $W/stk.out '{verdict, pending_blocks, bio_dev: .block_devices[0].dev,
			data_bytes: ([.block_devices[].data_bytes] | add),
			submitted_bytes: ([.filesystems[].stats.submitted_bytes] | add)}'
		check "$n.exit" 0 $TOOL_RC "verify on $1"
		check "$n.verdict" pass "$S_verdict"
		check "$n.submitted_bytes" "$(x submitted_bytes)" "$S_submitted_bytes" \
			"the tool's submitted bytes vs the workload's"
		check "$n.block_layer_data_bytes" "$(x submitted_bytes)" "$S_data_bytes" \
			"data bytes matched at the block layer vs the workload's"
		check "$n.unseen_blocks" 0 "$S_pending_blocks"
		check "$n.bio_device" \
			"$(awk -v m=$STK_MNT '$5 == m { print $3 }' /proc/self/mountinfo)" "$S_bio_dev" \
			"bios matched on the device the filesystem is on"
		echo "VMRESULT stacked variant=$V layout=$1 verdict=$S_verdict" \
			"submitted_bytes=$S_submitted_bytes data_bytes=$S_data_bytes"
	else
		vmtest_fail "$n.attach" "iomapdirty verify did not attach"
	fi
	rm -f $f
	umount $STK_MNT
}

stacked() {
	truncate -s 600M $STK_IMG
	if echo 'start=2048, type=83' | sfdisk -q $STK_IMG && losetup -P $STK_LOOP $STK_IMG &&
	   { [ -b ${STK_LOOP}p1 ] || { sleep 1; [ -b ${STK_LOOP}p1 ]; }; }; then
		vmtest_pass stacked.partition.table
		stacked_verify partition ${STK_LOOP}p1
	else
		vmtest_fail stacked.partition.table "no partition ${STK_LOOP}p1 (sfdisk, losetup -P)"
	fi
	# dm-linear over the whole loop device, 1 MiB in (LVM's first extent)
	sectors=$(($(blockdev --getsz $STK_LOOP) - 2048))
	if dmsetup create --noudevsync $STK_DM --table "0 $sectors linear $STK_LOOP 2048"; then
		vmtest_pass stacked.dmlinear.create
		stacked_verify dmlinear "$(dm_node $STK_DM)"
		dmsetup remove --noudevsync $STK_DM
	else
		vmtest_fail stacked.dmlinear.create "dmsetup create (linear) failed"
	fi
	# dm-crypt (aes-xts-plain64, a throwaway key) over the same device
	key=$(printf '%064d' 0)
	if dmsetup create --noudevsync $STK_DM \
		--table "0 $sectors crypt aes-xts-plain64 $key 0 $STK_LOOP 2048"; then
		vmtest_pass stacked.dmcrypt.create
		stacked_verify dmcrypt "$(dm_node $STK_DM)"
		dmsetup remove --noudevsync $STK_DM
	else
		vmtest_fail stacked.dmcrypt.create "dmsetup create (crypt) failed"
	fi
	losetup -d $STK_LOOP
	rm -f $STK_IMG
	stacked_md raid1
	stacked_md raid0
}

# md raid1 and raid0 over two loop devices (mdadm from Debian's package,
# unpacked on the host by scripts/mdadm-unpacked.sh): the filesystem's bio
# is matched on the md device, before raid1 clones it onto both members
# and raid0 splits it by chunk. raid1 is made --assume-clean, so no resync
# writes beside the checks (they would go to the members anyway).
STK_MD=/dev/md0 STK_MD_LOOPS="/dev/loop4 /dev/loop5"
stacked_md() {
	level=$1 devs= clean=
	[ $level = raid1 ] && clean=--assume-clean
	for l in $STK_MD_LOOPS; do
		truncate -s 700M /tmp/md-${l#/dev/}.img && losetup $l /tmp/md-${l#/dev/}.img ||
			break
		devs="$devs $l"
	done
	if [ "$devs" = " $STK_MD_LOOPS" ] &&
	   mdadm --create $STK_MD --run --quiet --metadata=1.2 --level=$level --raid-devices=2 \
		$clean $devs </dev/null &&
	   [ "$(cat /sys/block/${STK_MD#/dev/}/md/level)" = $level ]; then
		vmtest_pass stacked.$level.create
		stacked_verify $level $STK_MD
		mdadm --stop $STK_MD
	else
		vmtest_fail stacked.$level.create "losetup ($devs of $STK_MD_LOOPS) or mdadm --create $STK_MD --level=$level failed"
	fi
	for l in $devs; do
		losetup -d $l
	done
	rm -f /tmp/md-loop*.img
}

# ------------------------------------------------------------ the seed's fio
# fio_seed NAME [THROTTLE_BPS]: on $MNT ($DEV, $DEVT, its log at [$LOG0,
# $LOG1)); NAME names its checks, its VMRESULT line and its exported run
# file, THROTTLE_BPS the device's write limit (0: none) in the VMRESULT
fio_seed() {
	n=$1 thr=${2:-0} job=$W/seed-randwrite.fio
	# examples/seed-randwrite.fio, scaled to the guest (see its header)
	# (end_fsync=1: fio does not fdatasync its last write, which would stay
	# dirty in the page cache after the run, seen by neither the tool nor
	# the block layer, and make app_bytes one write short of fio's io_bytes)
	sed -e "s/^numjobs=.*/numjobs=$FIO_JOBS/" -e "s/^size=.*/size=$FIO_SIZE/" \
		-e "s/^bs=.*/bs=$FIO_BS/" \
		-e "s/^runtime=.*/runtime=$FIO_RUNTIME/" -e '$a end_fsync=1' \
		/payload/bin/seed-randwrite.fio >$job
	echo "--- the seed's fio job, scaled to the guest"
	grep -v '^;' $job
	# lay the file out first, so that the measured run is the random overwrites
	info "fio: laying out the file"
	fio --directory=$MNT --create_only=1 --output=$W/fio-create.txt $job ||
		{ vmtest_fail "$n.create" "fio --create_only failed"; cat $W/fio-create.txt; return; }
	sync
	echo 3 >/proc/sys/vm/drop_caches
	trace_start
	t0=$(now)
	info "fio: the measured run"
	rm -f $W/fio.json
	timeout $RUN_TIMEOUT iomapdirty run $RUN_SCOPE --mount $MNT --json $W/run.json \
		--fio-json $W/fio.json -- \
		fio --directory=$MNT --output-format=json --output=$W/fio.json $job
	rc=$?
	t1=$(now)
	trace_stop $W/blk.trace
	info "fio under iomapdirty run: $(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }') s"
	check "$n.exit" 0 $rc "iomapdirty run -- fio"
	[ -s $W/run.json ] && [ -s $W/fio.json ] || { vmtest_fail "$n.output" "no JSON from the tool or fio"; return; }
	check_scope $W/run.json $n
	info "fio: counting the block layer's requests"
	for f in $MNT/fio-run.*; do file_extents $f; done >$W/extents
	set -- $(blk_bytes $W/blk.trace $W/extents)
	blk_file=$1 blk_other=$2 blk_log=$3
	load R_ $W/run.json .totals
	load F_ $W/fio.json '.jobs[0].write'
	r() { val R_ "$1"; }
	fw() { val F_ "$1"; }
	echo "--- fio write: $(jqm -c '.jobs[0].write | {io_bytes, bw_bytes, iops, total_ios, runtime}' $W/fio.json)"
	echo "--- iomapdirty run totals: $(jqm -c .totals $W/run.json)"
	check "$n.losses" '{}' "$(jqm -c '[.losses | to_entries[] | select(.value != 0)] | from_entries' $W/run.json)"
	check "$n.trace_overrun" 0 "$TRACE_OVERRUN"
	check "$n.app_bytes" "$(fw io_bytes)" "$(r app_bytes)" "fio's write io_bytes"
	check "$n.write_calls" "$(fw total_ios)" "$(r write_calls)" "fio's writes (bs=$FIO_BS: one folio each)"
	# fdatasync after every write: one folio, one dirty block per write
	check "$n.folios" "$(fw total_ios)" "$(r folios)"
	check "$n.dirty_blocks" "$(fw total_ios)" "$(r dirty_blocks)"
	if [ "$VM_TRACKING" = yes ]; then
		check "$n.folio_amplification" 1 "$(r folio_amplification)"
	else
		bpf=$((PAGE_SIZE / $(r block_bytes)))
		check "$n.submitted_blocks" $(($(r folios) * bpf)) "$(r submitted_blocks)" "whole folios"
		check "$n.folio_amplification" "$bpf" "$(r folio_amplification)"
	fi
	check "$n.blocklayer_bytes" "$(r submitted_bytes)" "$blk_file" \
		"data written into fio's file at the block layer vs the tool's submitted_bytes"
	# run --fio-json kept fio's own figures in the run file (one job)
	check "$n.run_file_fio" "$(jqm -c '.jobs[0].write | [.io_bytes, .bw_bytes, .total_ios]' $W/fio.json)" \
		"$(jqm -c '.fio.write | [.io_bytes, .bw_bytes, .total_ios]' $W/run.json)" "fio's results in the run file"
	if [ "$(r submitted_bytes)" != "$blk_file" ]; then
		echo "--- fio: write requests by size (sectors), and the file's extents"
		awk '/ block_rq_issue: / && $0 ~ / W/ { sub(/.*\+ /, ""); n[$1]++ }
			END { for (k in n) print k, n[k] }' $W/blk.trace | sort -n
		cat $W/extents
	fi
	echo "VMRESULT $n variant=$V bw_bytes=$(fw bw_bytes) iops=$(fw iops) write_ios=$(fw total_ios)" \
		"io_bytes=$(fw io_bytes) runtime_ms=$(fw runtime)" \
		"app_bytes=$(r app_bytes) write_calls=$(r write_calls) dirty_blocks=$(r dirty_blocks)" \
		"folios=$(r folios) submitted_blocks=$(r submitted_blocks) submitted_bytes=$(r submitted_bytes)" \
		"block_rounding=$(r block_rounding) folio_amplification=$(r folio_amplification)" \
		"blk_file_bytes=$blk_file blk_other_bytes=$blk_other blk_log_bytes=$blk_log" \
		"size=$FIO_SIZE runtime_s=$FIO_RUNTIME numjobs=$FIO_JOBS bs=$FIO_BS page_size=$PAGE_SIZE" \
		"throttle_bps=$thr"
	export_file $n $W/run.json
	rm -f $MNT/fio-run.*
}

# fio_throttled: the seed's fio job again, on an XFS of the same geometry
# on the virtio disk whose writes QEMU throttles (vmcheck.throttle=BPS on
# the kernel command line, tests/vm/vmcheck.sh): the device, not the
# emulated CPU, then bounds fio's bandwidth, as on the seed's hardware.
fio_throttled() {
	[ -n "$VMCHECK_THROTTLE" ] || { info "no throttled disk for this guest"; return; }
	n=fio_throttled
	[ -b /dev/vda ] || { vmtest_fail $n.disk "vmcheck.throttle=$VMCHECK_THROTTLE but no /dev/vda"; return; }
	bsz=$(xfs_db -r -c 'sb 0' -c 'p blocksize' $DEV | sed 's/.*= //')
	mkdir -p /mnt/throttled
	if ! mkfs.xfs -q -f -K -b size=$bsz /dev/vda || ! mount -t xfs /dev/vda /mnt/throttled; then
		vmtest_fail $n.mount "mkfs.xfs -b size=$bsz or mount of /dev/vda failed"
		return
	fi
	vmtest_pass $n.mount
	set -- "$MNT" "$DEV" "$DEVT" "$LOG0" "$LOG1"
	MNT=/mnt/throttled DEV=/dev/vda DEVT=$(cat /sys/block/vda/dev)
	LOG0=$(log_sectors $DEV | cut -d' ' -f1) LOG1=$(log_sectors $DEV | cut -d' ' -f2)
	info "throttled disk $DEV ($DEVT, writes at most $VMCHECK_THROTTLE B/s): log sectors [$LOG0, $LOG1)"
	fio_seed $n "$VMCHECK_THROTTLE"
	umount /mnt/throttled
	fio_throttled_ext4 $bsz
	MNT=$1 DEV=$2 DEVT=$3 LOG0=$4 LOG1=$5
}

# fio_throttled_ext4 BLOCKSIZE: the same job on an ext4 of the same block
# size on the same throttled disk (the side by side the seed article asks
# for): buffer heads write only a folio's dirty blocks on every kernel,
# so one block per write is expected, as with per-block dirty tracking.
# No lazy init (-E, noinit_itable): its zeroing would share the throttled
# bandwidth with fio.
fio_throttled_ext4() {
	n=fio_throttled_ext4
	command -v mkfs.ext4 >/dev/null || { info "no mkfs.ext4 in this guest: no ext4 fio"; return; }
	backend=$(iomapdirty probes --json | jqm -r '.plan.backends[] | select(.filesystem == "ext4") | .backend')
	[ "$backend" = buffer_heads ] || { info "no ext4 backend in this plan: no ext4 fio"; return; }
	if ! mkfs.ext4 -q -F -b $1 -E lazy_itable_init=1,lazy_journal_init=1 /dev/vda ||
		! mount -t ext4 -o noinit_itable /dev/vda /mnt/throttled; then
		vmtest_fail $n.mount "mkfs.ext4 -b $1 or mount of /dev/vda failed"
		return
	fi
	vmtest_pass $n.mount
	LOG0=0 LOG1=0	# ext4's journal is counted apart by the file's extents
	t=$VM_TRACKING
	VM_TRACKING=yes
	fio_seed $n "$VMCHECK_THROTTLE"
	VM_TRACKING=$t
	umount /mnt/throttled
}

# ---------------------------------------------------------------------- main
info "payload: iomapdirty end-to-end, variant $V, uptime $(now) s"
# Mechanisms this guest cannot serve, from the kernel, not from the tool:
# no ftrace direct calls in the config, no fentry; no traceable writeback
# function (6.10+: iomap_do_writepage gone, iomap_writepage_map inlined),
# no forced fentry or kprobe mode (the writeback hook would need one).
# Those must be refused (exit 3, with the reason), and auto is then run
# end to end too: it is the only way the guest mixes mechanisms.
REFUSED_MODES="" AUTO_WRITE_MECH=fentry
vm_kconfig | grep -q '^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y' ||
	REFUSED_MODES="fentry" AUTO_WRITE_MECH=kprobe
[ "$(expected_writeback_hook)" = iomap_writepage ] && REFUSED_MODES="fentry kprobe"
for m in $REFUSED_MODES; do
	MODES=$(echo " $MODES " | sed "s/ $m / /; s/^ *//; s/ *$//")
done
[ -n "$REFUSED_MODES" ] && MODES="$MODES auto"
info "modes to serve: $MODES; to refuse: ${REFUSED_MODES:-none}"
check_plan
cgroup_scope
info "plan checked"
for m in $REFUSED_MODES; do
	# this guest cannot serve the mode: exit 3 (unsupported) and the reason
	echo "--- iomapdirty probes --mode $m (must be refused)"
	iomapdirty probes --mode $m >$W/refused.out 2>&1
	rc=$?
	cat $W/refused.out
	check "$m.probes_refused_exit" 3 $rc "iomapdirty probes --mode $m on a kernel without it"
	vmtest_check "$m.probes_refused_reason" "no 'cannot measure ... with mode $m: <reason>'" \
		grep -q "cannot measure '[a-z_]*' with mode $m: ." $W/refused.out
done
for m in $MODES; do
	echo "--- iomapdirty probes --mode $m"
	iomapdirty probes --mode $m
	rc=$?
	check "$m.probes_exit" 0 $rc "iomapdirty probes --mode $m (this mechanism exists in the guest)"
	[ $rc -eq 0 ] || continue
	m0=$(now)
	scatter $m aligned $STRIDE_ALIGNED
	[ -n "$STRIDE_CROSSING" ] && scatter $m crossing $STRIDE_CROSSING
	mmap_dirty $m
	# iomap_iter gives back what a faulted copy never reached
	case $m in tracepoint | raw_tp) short_copy $m ;; esac
	verify $m
	# the check at the bio can fail (6.1 RFCv4: the only check there)
	[ "$VM_SERIES/$VM_PATCH" = 6.1/rfcv4 ] && [ "$m" = tracepoint ] &&
		verify $m simulated_clean --simulate-clean 1
	info "mode $m: $(awk -v a=$m0 -v b=$(now) 'BEGIN { print b - a }') s"
done
for m in $AO_MODES; do
	m0=$(now)
	always_on $m
	info "always-on, mode $m: $(awk -v a=$m0 -v b=$(now) 'BEGIN { print b - a }') s"
done
preattach tracepoint
[ "$VM_SERIES" = 6.12 ] && large_blocks tracepoint
[ "$VM_SERIES" = 6.12 ] && stacked
runfile_scatter
ext4_scatter
btrfs_scatter
fio_seed fio
fio_throttled
info "payload done, uptime $(now) s"
exit 0
