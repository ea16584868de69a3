# Built-in smoke suite of the iomapdirty kernel lab guest.
#
# Ground truth for sub-folio dirty tracking: on a file whose folios are all
# uptodate, 20 writes of 100 bytes at offsets i*20000 then fsync.  Bytes
# that reach the loop device are counted twice: from /proc/diskstats (all
# writes, log included) and from the block_rq_issue tracepoint split into
# log and data by the log's sector range (read with xfs_db).  An unpatched
# 6.1 writes whole 4 KiB folios back; RFCv4 writes only the dirty blocks.
. /lib/vmcheck/lib.sh
T=/sys/kernel/tracing
NWRITES=20 STRIDE=20000 WLEN=100

# daddr (512-byte sector) range of the internal log: "start end"
log_sectors() {
	ls=$(xfs_db -r -c 'sb 0' -c 'p logstart' "$1" | sed 's/.*= //')
	lb=$(xfs_db -r -c 'sb 0' -c 'p logblocks' "$1" | sed 's/.*= //')
	bsz=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$1" | sed 's/.*= //')
	start=$(xfs_db -r -c "convert fsb $ls daddr" "$1" | sed 's/.*(\([0-9]*\)).*/\1/')
	echo "$start $((start + lb * bsz / 512))"
}

# folios (4 KiB) and blocks touched by the writes: "folios blocks"
touched() {	# blocksize
	i=0
	while [ $i -lt $NWRITES ]; do
		o=$((i * STRIDE)) e=$((i * STRIDE + WLEN - 1))
		f=$((o / 4096))
		while [ $f -le $((e / 4096)) ]; do echo "f $f"; f=$((f + 1)); done
		b=$((o / $1))
		while [ $b -le $((e / $1)) ]; do echo "b $b"; b=$((b + 1)); done
		i=$((i + 1))
	done | sort -u | awk '$1=="f"{f++} $1=="b"{b++} END{print f+0, b+0}'
}

sectors_written() { awk -v d="$1" '$3 == d { print $10 }' /proc/diskstats; }

tracing_start() {
	echo 0 >$T/tracing_on
	echo >$T/trace
	echo 'p:vmcheck_iwe iomap_write_end' >>$T/kprobe_events 2>/dev/null ||
		echo "VMINFO cannot create a kprobe on iomap_write_end"
	for e in block/block_rq_issue iomap/iomap_writepage kprobes/vmcheck_iwe; do
		[ -f $T/events/$e/enable ] && echo 1 >$T/events/$e/enable
	done
	echo 1 >$T/tracing_on
}

tracing_stop() {	# save the trace to $1
	echo 0 >$T/tracing_on
	cat $T/trace >"$1"
	for e in block/block_rq_issue iomap/iomap_writepage kprobes/vmcheck_iwe; do
		[ -f $T/events/$e/enable ] && echo 0 >$T/events/$e/enable
	done
	echo '-:vmcheck_iwe' >>$T/kprobe_events 2>/dev/null
	echo >$T/trace
}

smoke_scattered() {	# name mountpoint loopdev blocksize
	name=$1 mnt=$2 dev=$3 bs=$4
	f=$mnt/smoke.dat exp=/tmp/smoke-$name.expect trace=/tmp/smoke-$name.trace
	devname=${dev#/dev/}
	majmin=$(tr ':' ',' </sys/block/"$devname"/dev)
	set -- $(log_sectors "$dev")
	log0=$1 log1=$2
	set -- $(touched "$bs")
	nfolios=$1 nblocks=$2

	# lay the file out; its folios stay in the page cache, all uptodate
	xfs_io -f -c "pwrite -q -S 0x11 0 1m" -c fsync "$f"
	xfs_io -f -c "pwrite -q -S 0x11 0 1m" "$exp"
	sync
	sleep 1

	set --
	i=0
	while [ $i -lt $NWRITES ]; do
		set -- "$@" -c "pwrite -q -S 0x5a $((i * STRIDE)) $WLEN"
		i=$((i + 1))
	done
	s0=$(sectors_written "$devname")
	tracing_start
	xfs_io "$@" -c fsync "$f"
	tracing_stop "$trace"
	s1=$(sectors_written "$devname")
	xfs_io "$@" "$exp"

	set -- $(awk -v dev="$majmin" -v l0="$log0" -v l1="$log1" '
		/ block_rq_issue: / {
			sub(/.* block_rq_issue: /, "")
			# dev rwbs bytes (cmd) sector + nr_sector [comm]
			if ($1 != dev || $2 !~ /W/) next
			n = split($0, a, / \+ /); split(a[1], l, " "); split(a[2], r, " ")
			sec = l[length(l)]; nr = r[1]
			if (sec >= l0 && sec < l1) logb += nr * 512; else { datab += nr * 512; reqs++ }
		}
		/ iomap_writepage: / { wp++ }
		/ vmcheck_iwe: / { we++ }
		END { print datab + 0, logb + 0, reqs + 0, wp + 0, we + 0 }' "$trace")
	data=$1 logbytes=$2 reqs=$3 wpages=$4 wends=$5
	disk=$(((s1 - s0) * 512))
	echo "VMRESULT smoke $name variant=$VMCHECK_VARIANT blocksize=$bs diskstats_write_bytes=$disk" \
		"data_write_bytes=$data log_write_bytes=$logbytes data_write_requests=$reqs" \
		"iomap_writepage_events=$wpages iomap_write_end_calls=$wends" \
		"touched_folios=$nfolios touched_blocks=$nblocks"

	echo 3 >/proc/sys/vm/drop_caches
	vmtest_check "smoke_${name}_content" "file differs from the expected bytes after drop_caches" \
		cmp -s "$f" "$exp"
	vmtest_check "smoke_${name}_write_end_calls" "kprobe iomap_write_end fired $wends times, want $NWRITES" \
		test "$wends" -eq $NWRITES
	vmtest_check "smoke_${name}_writeback_folios" "iomap_writepage fired $wpages times, want $nfolios" \
		test "$wpages" -eq "$nfolios"
	folio_bytes=$((nfolios * 4096)) block_bytes=$((nblocks * bs))
	if [ "$VMCHECK_VARIANT" = rfcv4 ] && [ "$bs" -lt 4096 ]; then
		# only the dirty blocks go out (metadata may add a little)
		vmtest_check "smoke_${name}_data_bytes" \
			"data writes $data bytes, want >= $block_bytes and < $folio_bytes (dirty blocks only)" \
			test "$data" -ge "$block_bytes" -a "$data" -lt "$folio_bytes"
	else
		vmtest_check "smoke_${name}_data_bytes" \
			"data writes $data bytes, want >= $folio_bytes (whole folios)" \
			test "$data" -ge "$folio_bytes"
	fi
	rm -f "$f" "$exp"
}

smoke_fio() {	# name mountpoint
	if fio --name="smoke-$1" --directory="$2" --rw=randwrite --bs=4k --size=4m \
		--ioengine=psync --fsync=8 --verify=crc32c --do_verify=1 \
		--output="/tmp/fio-$1.txt" >/dev/null 2>&1; then
		vmtest_pass "fio_verify_$1"
	else
		tail -5 "/tmp/fio-$1.txt" 2>/dev/null
		vmtest_fail "fio_verify_$1" "fio randwrite+verify failed"
	fi
	rm -f "$2"/smoke-"$1"*
}

smoke_scattered xfs1k /mnt/xfs1k /dev/loop0 1024
smoke_scattered xfs4k /mnt/xfs4k /dev/loop1 4096
smoke_fio xfs1k /mnt/xfs1k
smoke_fio xfs4k /mnt/xfs4k
