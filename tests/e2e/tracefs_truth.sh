#!/bin/bash
# tracefs_truth.sh - what the kernel itself says was written back, without BPF.
#
# usage: tracefs_truth.sh [-o CMD_STDOUT_FILE] [-r RAW_TRACE_FILE] [-b BLOCKSIZE]
#                         [-B] DEV|MOUNT -- COMMAND [ARGS...]
#
# Enables iomap:iomap_writeback_folio and iomap:iomap_add_to_ioend in a private
# tracefs instance, filtered on the filesystem's dev, runs COMMAND, then prints
# one JSON object:
#   {"folios":N,"submitted_bytes":B,"submitted_blocks":K,"max_folio_bytes":M,
#    "folio_bytes":sum of folio sizes,"block_size":BS,"folio_sizes":{"4096":n,...},
#    "hole_ranges":H,"hole_bytes":bytes of dirty ranges that mapped a hole,
#    "unwritten_ranges":ranges that went to unwritten extents,
#    "ranges":R,"lost_events":L,
#    "per_folio":{"submitted_blocks":{"BLOCKS":folios,..},"folio_bytes":{..}},
#    "files":{"INO":{same counters},...}}
# With -B (needs MOUNT) also block:block_rq_issue on the filesystem's device:
# "device_bytes" (and per file) are the bytes of write requests that fall
# inside the files' extents (FIEMAP via xfs_io, every regular file under
# MOUNT, read after COMMAND), "device_write_requests" how many write
# requests there were in all (log and metadata included).
#
# COMMAND's stdout goes to -o FILE (default: our stderr).  Exit status is
# COMMAND's if it failed, 1 on a tracing problem (incl. lost events), else 0.
#
# Semantics (fs/iomap on 6.17+; the 6.9-6.16 names iomap_writepage /
# iomap_writepage_map are used when the new ones are absent):
# - one iomap_writeback_folio event per folio handed to writeback; `length`
#   is folio_size().
# - iomap_add_to_ioend fires per dirty range and mapping.  The bytes really
#   added to the bio are map_len = min(dirty_len, offset + length - pos) (the
#   event's iomap offset/length); type HOLE submits nothing.  A dirty range
#   spanning several mappings is reported again from pos + map_len, so summing
#   map_len counts every byte once.
set -u

usage() {
	sed -n '3,5p' "$0" | sed 's/^# //' >&2
	exit 2
}

cmd_out=	# default: our stderr (not reopened: that would truncate a log file)
raw_out=
bs=
blk=0
while getopts "o:r:b:Bh" opt; do
	case $opt in
	o) cmd_out=$OPTARG ;;
	r) raw_out=$OPTARG ;;
	b) bs=$OPTARG ;;
	B) blk=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -ge 3 && $2 == -- ]] || usage
target=$1
shift 2

# Resolve MAJ:MIN and a mount point (for the block size).
if [[ -d $target ]]; then
	mnt=$target
	dev=$(mountpoint -d -- "$mnt") || { echo "not a mount point: $mnt" >&2; exit 2; }
elif [[ $target =~ ^([0-9]+):([0-9]+)$ ]]; then
	dev=$target
	mnt=$(awk -v d="$dev" '$3 == d { print $5; exit }' /proc/self/mountinfo)
else
	usage
fi
maj=${dev%:*}
min=${dev#*:}
kdev=$(((maj << 20) | min)) # kernel-internal dev_t, as the events store it
if [[ -z $bs ]]; then
	[[ -n $mnt ]] || { echo "no mount for $dev; pass -b" >&2; exit 2; }
	bs=$(stat -f -c %S -- "$mnt")
fi

T=/sys/kernel/tracing
if [[ ! -d $T/instances ]]; then
	mount -t tracefs nodev $T 2>/dev/null ||
		{ echo "cannot mount tracefs" >&2; exit 1; }
fi
ev_folio=iomap/iomap_writeback_folio
ev_range=iomap/iomap_add_to_ioend
if [[ ! -d $T/events/$ev_folio ]]; then
	ev_folio=iomap/iomap_writepage
	ev_range=iomap/iomap_writepage_map
fi
[[ -d $T/events/$ev_folio && -d $T/events/$ev_range ]] ||
	{ echo "iomap writeback tracepoints not found" >&2; exit 1; }
ev_blk=
if ((blk)); then
	[[ -n $mnt ]] || { echo "-B needs a mount point" >&2; exit 2; }
	ev_blk=block/block_rq_issue
	[[ -d $T/events/$ev_blk ]] || { echo "$ev_blk not found" >&2; exit 1; }
fi

inst=$T/instances/iomapdirty_truth.$$
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	[[ -d $inst ]] || return
	echo 0 >"$inst/tracing_on" 2>/dev/null
	echo 0 >"$inst/events/enable" 2>/dev/null
	rmdir "$inst" 2>/dev/null || echo "could not remove $inst" >&2
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$inst" || { echo "cannot create $inst" >&2; exit 1; }
echo 0 >"$inst/tracing_on"
echo 16384 >"$inst/buffer_size_kb"
for ev in $ev_folio $ev_range $ev_blk; do
	echo "dev == $kdev" >"$inst/events/$ev/filter" ||
		{ echo "cannot set filter on $ev" >&2; exit 1; }
	echo 1 >"$inst/events/$ev/enable"
done
: >"$inst/trace"
echo 1 >"$inst/tracing_on"

if [[ -n $cmd_out ]]; then "$@" >"$cmd_out"; else "$@" >&2; fi
cmd_rc=$?

echo 0 >"$inst/tracing_on"
trace=$(cat "$inst/trace")
[[ -n $raw_out ]] && printf '%s\n' "$trace" >"$raw_out"

# Lost events: the header reports entries-in-buffer/entries-written.
lost=0
if [[ $trace =~ entries-in-buffer/entries-written:\ ([0-9]+)/([0-9]+) ]]; then
	lost=$((BASH_REMATCH[2] - BASH_REMATCH[1]))
fi

declare -A f_folios f_bytes f_max f_holes f_hbytes f_ranges f_fbytes sizes
# Per folio: submitted bytes of the folio each thread is writing back
# (ranges follow their folio event in the same thread), then a histogram.
declare -A cur_sub per_folio_blocks
re_pid='^ *.+-([0-9]+) +\['
end_folio() { # PID
	local b
	[[ -n ${cur_sub[$1]:-} ]] || return 0
	b=$((cur_sub[$1] / bs))
	per_folio_blocks[$b]=$((${per_folio_blocks[$b]:-0} + 1))
	unset "cur_sub[$1]"
}
folios=0 sub_bytes=0 max_folio=0 holes=0 hole_bytes=0 ranges=0 folio_bytes=0 unwritten=0
re_folio=' (iomap_writeback_folio|iomap_writepage): dev [0-9]+:[0-9]+ ino 0x([0-9a-f]+) size 0x[0-9a-f]+ offset 0x([0-9a-f]+) length 0x([0-9a-f]+)'
re_range=' (iomap_add_to_ioend|iomap_writepage_map): dev [0-9]+:[0-9]+ ino 0x([0-9a-f]+) bdev [0-9]+:[0-9]+ pos 0x([0-9a-f]+) dirty len 0x([0-9a-f]+) addr 0x[0-9a-f]+ offset 0x([0-9a-f]+) length 0x([0-9a-f]+) type ([A-Z]+)'
while IFS= read -r line; do
	pid=0
	[[ $line =~ $re_pid ]] && pid=${BASH_REMATCH[1]}
	if [[ $line =~ $re_folio ]]; then
		end_folio "$pid"
		cur_sub[$pid]=0
		ino=$((16#${BASH_REMATCH[2]}))
		len=$((16#${BASH_REMATCH[4]}))
		((folios++, folio_bytes += len))
		f_fbytes[$ino]=$((${f_fbytes[$ino]:-0} + len))
		f_folios[$ino]=$((${f_folios[$ino]:-0} + 1))
		sizes[$len]=$((${sizes[$len]:-0} + 1))
		((len > max_folio)) && max_folio=$len
		((len > ${f_max[$ino]:-0})) && f_max[$ino]=$len
		: "${f_bytes[$ino]:=0}"
	elif [[ $line =~ $re_range ]]; then
		ino=$((16#${BASH_REMATCH[2]}))
		pos=$((16#${BASH_REMATCH[3]}))
		dlen=$((16#${BASH_REMATCH[4]}))
		moff=$((16#${BASH_REMATCH[5]}))
		mlen=$((16#${BASH_REMATCH[6]}))
		type=${BASH_REMATCH[7]}
		((ranges++))
		f_ranges[$ino]=$((${f_ranges[$ino]:-0} + 1))
		map=$((moff + mlen - pos))
		((dlen < map)) && map=$dlen
		[[ $type == UNWRITTEN ]] && ((unwritten++))
		if [[ $type == HOLE ]]; then
			((holes++, hole_bytes += map))
			f_holes[$ino]=$((${f_holes[$ino]:-0} + 1))
			f_hbytes[$ino]=$((${f_hbytes[$ino]:-0} + map))
			continue
		fi
		((sub_bytes += map))
		f_bytes[$ino]=$((${f_bytes[$ino]:-0} + map))
		cur_sub[$pid]=$((${cur_sub[$pid]:-0} + map))
	fi
done <<<"$trace"
for pid in "${!cur_sub[@]}"; do
	end_folio "$pid"
done

# Block layer: write requests' bytes inside each file's extents.
declare -A f_dev
dev_bytes=0 dev_reqs=0
if ((blk)); then
	ext=$(mktemp /tmp/tracefs_truth.ext.XXXXXX)
	while IFS= read -r -d '' f; do
		i=$(stat -c %i -- "$f")
		xfs_io -r -c fiemap -- "$f" |
			sed -n 's/.*\]: *\([0-9]*\)\.\.\([0-9]*\).*/\1 \2/p' |
			awk -v i="$i" '{ print i, $1, $2 + 1 }'
	done < <(find "$mnt" -xdev -type f -print0) >"$ext"
	while read -r i b _; do
		if [[ $i == requests ]]; then
			dev_reqs=$b
			continue
		fi
		f_dev[$i]=$b
		((dev_bytes += b))
	done < <(awk '
		BEGIN { n = 0 }
		FNR == NR { ino[n] = $1; es[n] = $2 + 0; ee[n] = $3 + 0; n++; next }
		/ block_rq_issue: / {
			sub(/.* block_rq_issue: /, "")
			# dev rwbs bytes (cmd) sector + nr_sector [comm]
			if ($2 !~ /W/) next
			split($0, a, / \+ /); k = split(a[1], l, " "); split(a[2], r, " ")
			s = l[k] + 0; e = s + r[1]
			if (e == s) next
			reqs++
			for (j = 0; j < n; j++) {
				lo = s > es[j] ? s : es[j]; hi = e < ee[j] ? e : ee[j]
				if (hi > lo) b[ino[j]] += (hi - lo) * 512
			}
		}
		END { for (i in b) print i, b[i]; print "requests", reqs + 0 }' \
		"$ext" <(printf '%s\n' "$trace"))
	rm -f "$ext"
fi

counters() { # folios bytes max holes ranges folio_bytes hole_bytes
	printf '"folios":%d,"folio_bytes":%d,"submitted_bytes":%d,"submitted_blocks":%d,"max_folio_bytes":%d,"hole_ranges":%d,"hole_bytes":%d,"ranges":%d' \
		"$1" "$6" "$2" $(($2 / bs)) "$3" "$4" "$7" "$5"
}
{
	printf '{'
	counters $folios $sub_bytes $max_folio $holes $ranges $folio_bytes $hole_bytes
	printf ',"block_size":%d,"lost_events":%d,"unwritten_ranges":%d,"folio_sizes":{' \
		"$bs" "$lost" "$unwritten"
	sep=
	for s in "${!sizes[@]}"; do
		printf '%s"%d":%d' "$sep" "$s" "${sizes[$s]}"; sep=,
	done
	printf '}'
	if ((blk)); then
		printf ',"device_bytes":%d,"device_write_requests":%d' "$dev_bytes" "$dev_reqs"
	fi
	printf ',"per_folio":{"submitted_blocks":{'
	sep=
	for s in "${!per_folio_blocks[@]}"; do
		printf '%s"%d":%d' "$sep" "$s" "${per_folio_blocks[$s]}"; sep=,
	done
	printf '},"folio_bytes":{'
	sep=
	for s in "${!sizes[@]}"; do
		printf '%s"%d":%d' "$sep" "$s" "${sizes[$s]}"; sep=,
	done
	printf '}},"files":{'
	sep=
	for ino in "${!f_bytes[@]}"; do
		printf '%s"%d":{' "$sep" "$ino"; sep=,
		counters "${f_folios[$ino]:-0}" "${f_bytes[$ino]}" "${f_max[$ino]:-0}" \
			"${f_holes[$ino]:-0}" "${f_ranges[$ino]:-0}" "${f_fbytes[$ino]:-0}" \
			"${f_hbytes[$ino]:-0}"
		((blk)) && printf ',"device_bytes":%d' "${f_dev[$ino]:-0}"
		printf '}'
	done
	printf '}}\n'
} | if command -v jq >/dev/null; then jq -cS .; else cat; fi

if ((cmd_rc != 0)); then
	echo "command failed with status $cmd_rc" >&2
	exit $cmd_rc
fi
if ((lost != 0)); then
	echo "tracefs lost $lost events" >&2
	exit 1
fi
exit 0
