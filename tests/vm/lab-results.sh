#!/usr/bin/env bash
# lab-results.sh [--passed N --failed N] [--ab DIR] VARIANT=CONSOLE_LOG...
# Prints docs/lab-results.md (Markdown) from the VMRESULT lines that the
# payload (tests/vm/payload/run.sh) left in the guests' console logs: the
# seed's A/B (ppc64le, 64 KiB pages) next to the cover letter's numbers,
# then one section per kernel (x86_64 6.1 unpatched and rfcv4, x86_64
# Debian 6.12, ppc64le 6.1 unpatched and rfcv4), for the variants given.
# --ab DIR: vmcheck.sh's `iomapdirty compare` of the guests' run files
# (DIR/LABEL-NAME.md), embedded with a link to the HTML reports.
# vmcheck.sh calls it; it can be rerun on kept logs:
#   tests/vm/lab-results.sh unpatched=/var/cache/iomapdirty-lab/out/unpatched.console.log \
#       rfcv4=/var/cache/iomapdirty-lab/out/rfcv4.console.log
set -euo pipefail

passed="" failed="" abdir=""
declare -A LOGS
ALL=()
while [ $# -gt 0 ]; do
	case "$1" in
	--passed) passed=$2; shift 2 ;;
	--failed) failed=$2; shift 2 ;;
	--ab) abdir=$2; shift 2 ;;
	*=*) ALL+=("${1%%=*}"); LOGS[${1%%=*}]=${1#*=}; shift ;;
	*) echo "usage: $0 [--passed N --failed N] [--ab DIR] VARIANT=CONSOLE_LOG..." >&2; exit 2 ;;
	esac
done
[ ${#ALL[@]} -gt 0 ] || { echo "$0: no console logs given" >&2; exit 2; }
VARIANTS=("${ALL[@]}")

# value VARIANT KIND KEY [MATCH...]: KEY of the first "VMRESULT KIND" line of
# VARIANT's log that has every MATCH (key=value) in it; "-" if none
value() {
	local v=$1 kind=$2 key=$3 m
	shift 3
	local line
	line=$(grep "^VMRESULT $kind " "${LOGS[$v]}" 2>/dev/null | while read -r l; do
		ok=1
		for m in "$@"; do
			case " $l " in *" $m "*) ;; *) ok=0 ;; esac
		done
		[ $ok = 1 ] && { echo "$l"; break; }
	done)
	[ -n "$line" ] || { echo "-"; return; }
	tr ' ' '\n' <<<"$line" | sed -n "s/^$key=//p" | head -n1 | grep . || echo "-"
}

# thousands separators for integers
num() {
	if [[ $1 =~ ^[0-9]+$ ]]; then
		echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
	else
		echo "$1"
	fi
}
dec4() { awk -v r="$1" 'BEGIN { if (r ~ /^[0-9.]+$/) printf "%.4f", r; else print r }'; }
mib() { awk -v b="$1" 'BEGIN { if (b ~ /^[0-9.]+$/) printf "%.2f", b / 1048576; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && a > 0) printf "%.2f", b / a; else print "-" }'; }

# throttled_rows UNPATCHED RFCV4 BS: the seed's fio job on the virtio disk
# QEMU throttles (payload/run.sh, fio_throttled), as rows of the A/B table
throttled_rows() {
	local u=$1 r=$2 lim upw rpw
	lim=$(value "$u" fio_throttled throttle_bps)
	[ "$lim" != - ] || return 0
	upw=$(div "$(value "$u" fio_throttled blk_file_bytes)" "$(value "$u" fio_throttled write_ios)")
	rpw=$(div "$(value "$r" fio_throttled blk_file_bytes)" "$(value "$r" fio_throttled write_ios)")
	cat <<EOF
| fio on a disk throttled to $(mib "$lim") MiB/s of writes: writes ($3 each) | | $(num "$(value "$u" fio_throttled write_ios)") | $(num "$(value "$r" fio_throttled write_ios)") | |
| fio, throttled disk: block-layer bytes per write | | $(num "$upw") | $(num "$rpw") | $(ratio "$rpw" "$upw") |
| **fio write bandwidth, throttled disk** (rfcv4 / unpatched) | 28 vs 452 MB/s (16.1) | $(mib "$(value "$u" fio_throttled bw_bytes)") MiB/s | $(mib "$(value "$r" fio_throttled bw_bytes)") MiB/s | **$(ratio "$(value "$u" fio_throttled bw_bytes)" "$(value "$r" fio_throttled bw_bytes)")** |
EOF
	[ "$(value "$u" fio_throttled_ext4 write_ios)" != - ] || return 0
	upw=$(div "$(value "$u" fio_throttled_ext4 blk_file_bytes)" "$(value "$u" fio_throttled_ext4 write_ios)")
	rpw=$(div "$(value "$r" fio_throttled_ext4 blk_file_bytes)" "$(value "$r" fio_throttled_ext4 write_ios)")
	cat <<EOF
| the same job on ext4 (buffer heads), same disk: block-layer bytes per write | | $(num "$upw") | $(num "$rpw") | $(ratio "$rpw" "$upw") |
| **fio write bandwidth, throttled disk, ext4** | | $(mib "$(value "$u" fio_throttled_ext4 bw_bytes)") MiB/s | $(mib "$(value "$r" fio_throttled_ext4 bw_bytes)") MiB/s | $(ratio "$(value "$u" fio_throttled_ext4 bw_bytes)" "$(value "$r" fio_throttled_ext4 bw_bytes)") |
| ext4 / XFS bandwidth on the unpatched kernel | | **$(ratio "$(value "$u" fio_throttled bw_bytes)" "$(value "$u" fio_throttled_ext4 bw_bytes)")** | | |
EOF
}

row() {	# LABEL KIND KEY FORMAT [MATCH...]: one row, one column per variant
	local kind=$2 key=$3 fmt=$4 v out="| $1 |"
	shift 4
	for v in "${VARIANTS[@]}"; do
		case $fmt in
		num) out+=" $(num "$(value "$v" "$kind" "$key" "$@")") |" ;;
		ratio) out+=" $(dec4 "$(value "$v" "$kind" "$key" "$@")") |" ;;
		*) out+=" $(value "$v" "$kind" "$key" "$@") |" ;;
		esac
	done
	echo "$out"
}

header() {	# FIRST_COLUMN
	local v h="| $1 |" s="|---|"
	for v in "${VARIANTS[@]}"; do h+=" $v |"; s+="---:|"; done
	echo "$h"
	echo "$s"
}

have() { local v; for v in "${ALL[@]}"; do [ "$v" = "$1" ] && return 0; done; return 1; }
kver() { grep -m1 -o 'kernel=[^ ]*' "${LOGS[$1]}" | cut -d= -f2 || true; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.0f", a / b; else print "-" }'; }

cat <<EOF
# Kernel lab results

Generated by \`make vmcheck-all\` from a run that ended
$(date -u -r "${LOGS[${ALL[-1]}]}" '+%Y-%m-%d %H:%M UTC'). Every guest but debian612 (Debian's binary
kernel) is built from Debian's kernel sources; each is booted under qemu TCG (1 vCPU, 1536 MiB) by tests/vm/vmcheck.sh,
which runs tests/vm/payload/run.sh in it; the file is rewritten only by a
run of every guest with no failed check.
Checks in that run: ${passed:-?} passed, ${failed:-?} failed
(run.sh and the host's A/B assert every byte count and amplification
below against the workload's own offsets and the block layer;
fio's bandwidth and the metadata bytes are reported, not checked).

| guest | kernel | arch, page size | dirty tracking | payload filesystem |
|---|---|---|---|---|
EOF
for v in "${ALL[@]}"; do
	case "$v" in
	unpatched) echo "| unpatched | $(kver $v) (Debian linux-source-6.1) | x86_64, 4 KiB | none (family b) | XFS, 1 KiB blocks |" ;;
	rfcv4) echo "| rfcv4 | $(kver $v) + RFCv4 (seeds 002-004) | x86_64, 4 KiB | RFCv4 \`iomap_page.state\` (family a) | XFS, 1 KiB blocks |" ;;
	debian612) echo "| debian612 | $(kver $v) (Debian's binary linux-image-6.12-amd64) | x86_64, 4 KiB | \`iomap_folio_state\` (family c) | XFS, 1 KiB blocks; 16 KiB blocks |" ;;
	ppc-unpatched) echo "| ppc-unpatched | $(kver $v) (Debian linux-source-6.1) | ppc64le, 64 KiB | none (family b) | XFS, 4 KiB blocks |" ;;
	ppc-rfcv4) echo "| ppc-rfcv4 | $(kver $v) + RFCv4 | ppc64le, 64 KiB | RFCv4 (family a) | XFS, 4 KiB blocks |" ;;
	esac
done

if have ppc-unpatched && have ppc-rfcv4; then
	u=ppc-unpatched r=ppc-rfcv4
	a=(mode=tracepoint name=aligned)
	ubw=$(value $u fio bw_bytes) rbw=$(value $r fio bw_bytes)
	ub=$(value $u scatter blk_file_bytes "${a[@]}") rb=$(value $r scatter blk_file_bytes "${a[@]}")
	upw=$(div "$(value $u fio blk_file_bytes)" "$(value $u fio write_ios)")
	rpw=$(div "$(value $r fio blk_file_bytes)" "$(value $r fio write_ios)")
	cat <<EOF

## The seed's A/B on its own geometry: 64 KiB pages, XFS with 4 KiB blocks

The RFCv4 cover letter measured fio randwrite (bs=4k, fdatasync) on XFS
with 4 KiB blocks on Power with 64 KiB pages: ~28 MB/s without per-block
dirty tracking, ~452 MB/s with it (a 4 KiB write made writeback send the
whole 64 KiB folio). Here: the same Debian 6.1 source cross-built for
ppc64le (\`CONFIG_PPC_64K_PAGES\`) without and with the series, booted
with \`qemu-system-ppc64 -M pseries\` (TCG). Aligned overwrites:
\`workload scatter --count $(value $u scatter writes "${a[@]}") --len $(value $u scatter len "${a[@]}") --stride $(value $u scatter stride "${a[@]}")\`
(one aligned 4 KiB write per 64 KiB folio) and fsync, under \`iomapdirty
hist --mode tracepoint\`. fio: \`examples/seed-randwrite.fio\` with bs=4k,
size=$(value $u fio size), numjobs=$(value $u fio numjobs), runtime=$(value $u fio runtime_s) s, under \`iomapdirty run\`.
Block-layer bytes are \`block_rq_issue\` on the loop device inside the
file's extents, read in the guest independently of the tool.

| figure | seed (cover letter, Power) | ppc-unpatched | ppc-rfcv4 | unpatched / rfcv4 |
|---|---:|---:|---:|---:|
| **folio amplification**, aligned 4 KiB overwrites (tool) | (16 blocks per folio) | $(dec4 "$(value $u scatter folio_amplification "${a[@]}")") | $(dec4 "$(value $r scatter folio_amplification "${a[@]}")") | |
| bytes into the file, aligned overwrites (block layer) | | $(num "$ub") | $(num "$rb") | $(ratio "$rb" "$ub") |
| bytes submitted, aligned overwrites (tool) | | $(num "$(value $u scatter submitted_bytes "${a[@]}")") | $(num "$(value $r scatter submitted_bytes "${a[@]}")") | |
| fio writes (4 KiB each) | | $(num "$(value $u fio write_ios)") | $(num "$(value $r fio write_ios)") | |
| fio: bytes into the file (block layer) | | $(num "$(value $u fio blk_file_bytes)") | $(num "$(value $r fio blk_file_bytes)") | |
| **fio: block-layer bytes per 4 KiB write** | (65,536 vs 4,096) | $(num "$upw") | $(num "$rpw") | $(ratio "$rpw" "$upw") |
| fio: folio amplification (tool) | | $(dec4 "$(value $u fio folio_amplification)") | $(dec4 "$(value $r fio folio_amplification)") | |
| **fio write bandwidth** (rfcv4 / unpatched) | 28 vs 452 MB/s (16.1) | $(mib "$ubw") MiB/s | $(mib "$rbw") MiB/s | $(ratio "$ubw" "$rbw") |
EOF
	throttled_rows "$u" "$r" "4 KiB"
	cat <<EOF

The byte counts are the seed's geometry exactly. On the loop device (in
tmpfs) writing 15 more clean blocks costs a memory copy while the
emulated CPU time of every write and fdatasync dominates, so its
bandwidth ratio says little. On the throttled disk the device bounds
fio, as on the seed's hardware: there the bandwidth ratio is the one to
put beside the seed's 16x (a ratio within one run, under TCG).
EOF
fi

# XFS, ext4 and btrfs side by side (vmcheck.sh, side_by_side)
side_by_side() {
	[ -n "$abdir" ] && [ -s "$abdir/side-by-side.md" ] || return 0
	cat <<EOF

## XFS, ext4 and btrfs side by side

The same aligned scattered overwrites (\`workload scatter F --count N
--len 100 --stride 20480\`, one 100-byte write in one block of its own
folio, then fsync) on a 1 KiB-block XFS in every x86_64 guest, on a
1 KiB-block ext4 where the guest's plan has the buffer-head backend, and
on a btrfs (4 KiB blocks, as large as the page: its smallest on x86_64)
where the guest's kernel has btrfs (Debian's 6.12), each under
\`iomapdirty run --json\` in the auto plan. ext4 writes only the dirty
buffers, as buffer heads always did: its amplification is the patched
XFS's. btrfs writes the 4 KiB block each write dirtied, anew elsewhere
(copy on write). vmcheck.sh checks that each column's submitted bytes are
the bytes the block layer wrote into the file in that run (btrfs: into its
data chunks).

EOF
	cat "$abdir/side-by-side.md"
	side_by_side_fio ppc64le "the ppc64le guests (64 KiB pages, 4 KiB blocks)"
	side_by_side_fio x86_64 "the x86_64 guests (4 KiB pages, 1 KiB blocks)"
}

side_by_side_fio() {	# LABEL WHAT
	[ -s "$abdir/side-by-side-fio-$1.md" ] || return 0
	cat <<EOF

### The seed's fio job on a throttled disk, XFS and ext4: $2

The job of the A/B tables above on the disk QEMU throttles, once on an
XFS and once on an ext4 of the same block size, on both kernels, under
\`iomapdirty run --json --fio-json\`; vmcheck.sh checks each column's
submitted bytes against the block layer's bytes into fio's file. The same
four runs as one page: [lab-ab-$1-side-by-side.html](lab-ab-$1-side-by-side.html).

EOF
	cat "$abdir/side-by-side-fio-$1.md"
}
side_by_side

# ext4 at the always-on level (payload/run.sh, ext4_always_on)
ext4_always_on_table() {
	local v d any=""
	for v in "${VARIANTS[@]}"; do
		[ "$(value "$v" ext4_always_on folios)" != - ] && any=1
	done
	[ -n "$any" ] || return 0
	cat <<EOF

## ext4 at the always-on level (the exporter's)

The aligned scattered overwrites of a new file on the 1 KiB-block ext4,
under \`iomapdirty run --all --accounting always-on --mount\`: no page
records; the dirty blocks are read from each folio's buffer heads at its
first write bio. payload/run.sh checks every figure against the workload
and the submitted bytes against the block layer's bytes into the file.
Without an iomap dirty bitmap (6.1 unpatched) the level's dirty figures
are null for every filesystem of the session (n/a below).

| guest | application bytes | dirty blocks | folios | submitted blocks | submitted bytes |
|---|---:|---:|---:|---:|---:|
EOF
	for v in "${VARIANTS[@]}"; do
		[ "$(value "$v" ext4_always_on folios)" != - ] || continue
		d=$(value "$v" ext4_always_on dirty_blocks)
		[ "$d" = null ] && d=n/a
		echo "| $v | $(num "$(value "$v" ext4_always_on app_bytes)") | $(num "$d") |" \
			"$(num "$(value "$v" ext4_always_on folios)") |" \
			"$(num "$(value "$v" ext4_always_on submitted_blocks)") |" \
			"$(num "$(value "$v" ext4_always_on submitted_bytes)") |"
	done
}
ext4_always_on_table

# The compare tables vmcheck.sh made from the guests' run files
ab_tables() {
	local label u r name what
	{ [ -n "$abdir" ] && ls "$abdir"/*-fio.md >/dev/null 2>&1; } || return 0
	cat <<EOF

## The A/B from the lab's own run files

Each guest also keeps two run files (\`iomapdirty run --json\`, the auto
plan): the aligned scattered overwrites (\`iomapdirty run --mount MNT
--json F -- workload scatter ...\`, as in the tables below) and the seed's
fio job (with \`--fio-json\`, so that fio's bandwidth and IOPS are in the
file). They leave the guest on the serial console (gzip, base64; size and
sha256 checked) and are kept in [lab-runs/](lab-runs/). vmcheck.sh
compares each pair with \`iomapdirty compare\` and checks that the ratio of
the submitted bytes in the run files equals the ratio of the bytes the
block layer wrote into the file in the same runs, and that both are one
block per folio (block size / page size).
EOF
	what=""
	for label in ppc64le x86_64; do
		if [ -s "$abdir/lab-ab-$label.html" ]; then
			what+="${what:+, }[$label](lab-ab-$label.html)"
		fi
	done
	if [ -n "$what" ]; then
		printf 'The fio runs as pages (`iomapdirty report`): %s.\n' "$what"
	fi
	for label in ppc64le x86_64; do
		case $label in
		ppc64le) u=ppc-unpatched r=ppc-rfcv4 ;;
		x86_64) u=unpatched r=rfcv4 ;;
		esac
		for name in fio scatter; do
			[ -s "$abdir/$label-$name.md" ] || continue
			case $label/$name in
			ppc64le/fio) what="ppc64le, 64 KiB pages, XFS with 4 KiB blocks: the seed's fio job" ;;
			ppc64le/scatter) what="ppc64le, 64 KiB pages: aligned 4 KiB overwrites, one per folio" ;;
			x86_64/fio) what="x86_64, 4 KiB pages, XFS with 1 KiB blocks: the seed's fio job (bs=1k)" ;;
			x86_64/scatter) what="x86_64, 4 KiB pages, 1 KiB blocks: aligned 100-byte overwrites, one per folio" ;;
			esac
			printf '\n### %s\n\n' "$what"
			echo "    \$ iomapdirty compare --labels $u,$r --format markdown $u-$name.json $r-$name.json"
			echo
			cat "$abdir/$label-$name.md"
		done
	done
	return 0
}
ab_tables

frow() {	# LABEL KEY [mib|ratio|round]
	local out="| $1 |" v vals=()
	for v in "${VARIANTS[@]}"; do
		vals+=("$(value "$v" "${FKIND:-fio}" "$2")")
		case "${3:-}" in
		mib) out+=" $(mib "${vals[-1]}") MiB/s |" ;;
		ratio) out+=" $(dec4 "${vals[-1]}") |" ;;
		round) out+=" $(awk -v x="${vals[-1]}" 'BEGIN { printf "%.0f", x }') |" ;;
		*) out+=" $(num "${vals[-1]}") |" ;;
		esac
	done
	[ $two = 1 ] && out+=" $(ratio "${vals[0]}" "${vals[1]}") |"
	echo "$out"
}

tables() {
	local sv=(mode=tracepoint name=aligned) h s m p out amp sb bl v lbs none
	cat <<EOF

### Scripted small scattered overwrites

\`workload prep\` (page-sized writes, fsync: all folios clean and
uptodate), then under \`iomapdirty hist --mode tracepoint --json\`:
\`workload scatter F --count $(value "$fv" scatter writes "${sv[@]}") --len $(value "$fv" scatter len "${sv[@]}") --stride $(value "$fv" scatter stride "${sv[@]}")\`
(each write inside one block of its own folio) and fsync. "Block layer" is
\`block_rq_issue\` on the loop device during the workload, counted inside the
file's extents (\`xfs_io -c fiemap\`); the XFS log and other metadata
writes are counted apart.

EOF
	header "figure"
	row "application bytes (app_bytes)" scatter app_bytes num "${sv[@]}"
	row "write calls (per folio)" scatter write_calls num "${sv[@]}"
	row "dirty blocks" scatter dirty_blocks num "${sv[@]}"
	row "folios written back" scatter folios num "${sv[@]}"
	row "blocks submitted" scatter submitted_blocks num "${sv[@]}"
	row "bytes submitted (tool)" scatter submitted_bytes num "${sv[@]}"
	row "bytes written into the file (block layer)" scatter blk_file_bytes num "${sv[@]}"
	row "other bytes written, outside the file and the log (metadata)" scatter blk_other_bytes num "${sv[@]}"
	row "dirty blocks in the kernel's bitmap" scatter kernel_dirty_blocks num "${sv[@]}"
	row "block rounding" scatter block_rounding ratio "${sv[@]}"
	row "**folio amplification**" scatter folio_amplification ratio "${sv[@]}"
	cat <<EOF

Every mechanism the guest serves and each write pattern ("crossing":
stride 20000, 2 of the 20 writes cross a block boundary). Cells: folio
amplification; bytes submitted (tool) = bytes written into the file
(block layer).

EOF
	h="| mechanism | pattern |" s="|---|---|" none="| - |"
	for v in "${VARIANTS[@]}"; do h+=" $v |"; s+="---:|"; done
	echo "$h"
	echo "$s"
	for m in fentry kprobe tracepoint raw_tp auto; do
		for p in aligned crossing; do
			out="" none=1
			for v in "${VARIANTS[@]}"; do
				amp=$(dec4 "$(value "$v" scatter folio_amplification mode=$m name=$p)")
				sb=$(value "$v" scatter submitted_bytes mode=$m name=$p)
				bl=$(value "$v" scatter blk_file_bytes mode=$m name=$p)
				if [ "$sb" = - ]; then
					out+=" - |"
					continue
				fi
				none=0
				if [ "$sb" = "$bl" ]; then
					out+=" $amp; $(num "$sb") B = $(num "$bl") B |"
				else
					out+=" $amp; $(num "$sb") B != $(num "$bl") B |"
				fi
			done
			[ $none = 1 ] || echo "| $m | $p |$out"
		done
	done
	cat <<EOF

The always-on accounting level (\`hist --accounting always-on\`, the
exporter's default: no per-page records; application bytes and write
calls counted at the write, the rest from the kernel's dirty bitmap at
writeback), the same writes and the mmap dirtying (8 pages). Cells:
application bytes / write calls; dirty blocks (n/a without a bitmap: not
measured, null in JSON) = those in the kernel's bitmap, the folios whose
bitmap was read / folios; blocks submitted; bytes submitted (tool) = bytes
written into the file (block layer).

EOF
	echo "$h"
	echo "$s"
	for m in tracepoint raw_tp auto; do
		for p in aligned crossing mmap; do
			out="" none=1
			for v in "${VARIANTS[@]}"; do
				sel=(mode=$m name=$p)
				sb=$(value "$v" always_on submitted_bytes "${sel[@]}")
				bl=$(value "$v" always_on blk_file_bytes "${sel[@]}")
				if [ "$sb" = - ]; then
					out+=" - |"
					continue
				fi
				none=0
				eq="="
				[ "$sb" = "$bl" ] || eq="!="
				d=$(value "$v" always_on dirty_blocks "${sel[@]}")
				f=$(value "$v" always_on folios "${sel[@]}")
				out+=" $(num "$(value "$v" always_on app_bytes "${sel[@]}")") B / $(value "$v" always_on write_calls "${sel[@]}") calls;"
				if [ "$d" = null ]; then
					out+=" dirty n/a (no bitmap), $f folios;"
				else
					out+=" $d dirty = $(value "$v" always_on kernel_dirty_blocks "${sel[@]}") in the bitmap,"
					out+=" read in $(value "$v" always_on bitmap_folios "${sel[@]}") / $f folios;"
				fi
				out+=" $(value "$v" always_on submitted_blocks "${sel[@]}") submitted;"
				out+=" $(num "$sb") B $eq $(num "$bl") B |"
			done
			[ $none = 1 ] || echo "| $m | $p |$out"
		done
	done
	lbs=$(value "$fv" lbs block_size)
	if [ "$lbs" != - ]; then
		cat <<EOF

XFS with $lbs-byte blocks on 4 KiB pages (block size above the page size,
new in 6.12): the same scattered writes with stride $((2 * lbs)), under
\`--mode tracepoint\`.

EOF
		header "figure"
		row "dirty blocks" lbs app_dirty_blocks num
		row "folios written back" lbs folios num
		row "blocks submitted" lbs submitted_blocks num
		row "bytes submitted (tool)" lbs submitted_bytes num
		row "bytes written into the file (block layer)" lbs blk_file_bytes num
		row "**folio amplification**" lbs folio_amplification ratio
	fi
	cat <<EOF

### The seed's fio job, scaled to the guest

\`examples/seed-randwrite.fio\` with numjobs=$(value "$fv" fio numjobs), size=$(value "$fv" fio size), runtime=$(value "$fv" fio runtime_s) s,
bs=$(value "$fv" fio bs) (psync randwrite, overwrite, pre_read, fdatasync after every
write, end_fsync), the file laid out first (\`fio --create_only=1\`), then
\`iomapdirty run --mount MNT --json run.json -- fio ...\` (auto plan).
Bandwidth under TCG is a ratio within one run at best.

EOF
	h="| figure |" s="|---|"
	for v in "${VARIANTS[@]}"; do h+=" $v |"; s+="---:|"; done
	two=0
	if [ ${#VARIANTS[@]} -eq 2 ]; then
		two=1
		h+=" ${VARIANTS[1]} / ${VARIANTS[0]} |"
		s+="---:|"
	fi
	echo "$h"
	echo "$s"
	frow "**fio write bandwidth** (bw_bytes)" bw_bytes mib
	frow "fio write IOPS" iops round
	frow "fio writes (total_ios)" write_ios
	frow "fio run time (ms)" runtime_ms
	frow "fio bytes written (io_bytes)" io_bytes
	frow "application bytes (iomapdirty app_bytes)" app_bytes
	frow "write calls (per folio)" write_calls
	frow "dirty blocks" dirty_blocks
	frow "folios written back" folios
	frow "blocks submitted" submitted_blocks
	frow "bytes submitted (tool)" submitted_bytes
	frow "bytes written into fio's file (block layer)" blk_file_bytes
	frow "XFS log bytes written (block layer)" blk_log_bytes
	frow "block rounding" block_rounding ratio
	frow "**folio amplification**" folio_amplification ratio
	[ "$(value "$fv" fio_throttled throttle_bps)" != - ] || return 0
	cat <<EOF

The same job on an XFS of the same geometry on a virtio disk whose writes
QEMU throttles to $(mib "$(value "$fv" fio_throttled throttle_bps)") MiB/s (\`throttling.bps-write\`): the device, not
the emulated CPU, bounds fio, as on the seed's hardware.

EOF
	echo "$h"
	echo "$s"
	FKIND=fio_throttled
	frow "**fio write bandwidth, throttled disk** (bw_bytes)" bw_bytes mib
	frow "fio write IOPS" iops round
	frow "fio writes (total_ios)" write_ios
	frow "bytes submitted (tool)" submitted_bytes
	frow "bytes written into fio's file (block layer)" blk_file_bytes
	frow "**folio amplification**" folio_amplification ratio
	FKIND=fio
	[ "$(value "$fv" fio_throttled_ext4 write_ios)" != - ] || return 0
	cat <<EOF

The same job again on an ext4 of the same block size on that disk: ext4
keeps a dirty bit per block in its buffer heads, on every kernel, and
writes back only those blocks (iomapdirty's buffer-head backend).

EOF
	echo "$h"
	echo "$s"
	FKIND=fio_throttled_ext4
	frow "**fio write bandwidth, throttled disk, ext4** (bw_bytes)" bw_bytes mib
	frow "fio writes (total_ios)" write_ios
	frow "bytes submitted (tool)" submitted_bytes
	frow "bytes written into fio's file (block layer)" blk_file_bytes
	frow "**folio amplification**" folio_amplification ratio
	FKIND=fio
}

group() {	# title intro variant...
	local title=$1 intro=$2 v
	shift 2
	VARIANTS=()
	for v in "$@"; do have "$v" && VARIANTS+=("$v"); done
	[ ${#VARIANTS[@]} -gt 0 ] || return 0
	fv=${VARIANTS[0]}
	printf '\n## %s\n\n%s\n' "$title" "$intro"
	tables
}

group "x86_64, Debian 6.1: unpatched and RFCv4" \
	"XFS with 1 KiB blocks on 4 KiB pages: 4 blocks per order-0 folio, so the most an x86 guest shows is 4x." \
	unpatched rfcv4
group "x86_64, Debian 6.12 (family c: dirty tracking upstream)" \
	"Debian's binary kernel (linux-image-6.12-amd64), XFS and loop as modules: per-block dirty tracking is upstream (\`iomap_folio_state\`). XFS with 1 KiB blocks on 4 KiB pages." \
	debian612
# verify on stacked storage (payload stacked(), 6.9+ guests): one row per
# VMRESULT stacked line of each variant given
stacked_table() {
	local v layout verdict sub data what rows=""
	for v in "${ALL[@]}"; do
		while read -r _ _ _ layout verdict sub data; do
			layout=${layout#layout=}
			case $layout in
			partition) what="partition 1 of a loop disk (sfdisk, \`losetup -P\`)" ;;
			dmlinear) what="dm-linear, 1 MiB into the disk (as LVM)" ;;
			dmcrypt) what="dm-crypt, aes-xts-plain64" ;;
			raid1) what="md raid1 over two loop disks (mdadm, metadata 1.2)" ;;
			raid0) what="md raid0 over two loop disks (mdadm, 512 KiB chunks)" ;;
			*) what=$layout ;;
			esac
			rows+="| $v | $what | ${verdict#verdict=} | ${sub#submitted_bytes=} | ${data#data_bytes=} |"$'\n'
		done < <(grep "^VMRESULT stacked " "${LOGS[$v]}" 2>/dev/null)
	done
	[ -n "$rows" ] || return 0
	printf '\n## verify on stacked storage\n\n'
	printf '%s\n' "XFS (1 KiB blocks) on the layouts production runs, \`iomapdirty verify\` during scripted writes: the verdict, the bytes the tool saw submitted, and the data bytes the block layer carried for the filesystem's device (block tracepoints in the guest, matched in the filesystem's coordinates: a partition's start subtracted, dm and md matched on the top device before they remap, clone or split the bio onto their members)."
	printf '\n| kernel | layout | verdict | submitted bytes (tool) | data bytes at the block layer |\n|---|---|---|---|---|\n'
	printf '%s' "$rows"
}
stacked_table

group "ppc64le, Debian 6.1, 64 KiB pages: unpatched and RFCv4" \
	"XFS with 4 KiB blocks on 64 KiB pages: 16 blocks per folio, the seed's geometry." \
	ppc-unpatched ppc-rfcv4
