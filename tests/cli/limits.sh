#!/usr/bin/env bash
# The tool's bounds, reached for real: more files than its per-file and
# path maps hold (LRU maps: the oldest files evicted, no loss counted,
# the evictions counted exactly, a file written again after its eviction
# marked partial, the per-filesystem totals still exact), one write(2) over the pages the
# write path splits (write_too_large), a folio over the per-folio bound
# (where this host can make one), and a runtime failure (exit 6) when the
# kernel's objects cannot be had (descriptor limit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_limits.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
hdr=$CLI_TOP/include/iomapdirty.h

# define NAME: a #define of include/iomapdirty.h (what the tool is built with)
define() { awk -v n="$1" '$1 == "#define" && $2 == n { print $3 }' "$hdr"; }
# map_entries PID NAME: max_entries of the BPF map NAME held by process PID,
# asked of the kernel (fdinfo map ids, bpftool), whatever the source's shape
map_entries() {
	local id fd
	for fd in /proc/"$1"/fdinfo/*; do
		awk '/^map_id:/ { print $2 }' "$fd" 2>/dev/null
	done | sort -un | while read -r id; do
		bpftool map show id "$id" --json 2>/dev/null
	done | jq -s -r --arg n "$2" '[.[] | select(.name == $n)] | if length == 1 then .[0].max_entries else "none" end'
}

mnt=$(xfsloop_make 1024 1024) || { fail limits.fixture "xfsloop_make failed"; cli_finish; exit; }

# --- more files than the maps hold --------------------------------------
nfiles_map=none npaths_map=none nwriters_map=none
if start_tool "$work/sizes.json" "$work/sizes.err" hist --json --mount "$mnt" -i 60; then
	nfiles_map=$(map_entries "$TOOL_PID" files)
	npaths_map=$(map_entries "$TOOL_PID" paths)
	nwriters_map=$(map_entries "$TOOL_PID" file_writers)
	stop_tool INT
else
	fail limits.sizes.ready "$(tail -2 "$work/sizes.err")"
fi
check_match limits.files_map_size '^[0-9]+$' "$nfiles_map"
check_match limits.paths_map_size '^[0-9]+$' "$npaths_map"
check_match limits.writers_map_size '^[0-9]+$' "$nwriters_map"
[[ $nfiles_map =~ ^[0-9]+$ && $npaths_map =~ ^[0-9]+$ ]] || { cli_finish; exit; }
# 2000 files more than the maps hold: the first of them are surely evicted
# (LRU, approximate), and f000000..f000009 are written again after that
extra=2000
n=$((nfiles_map + extra))
again=10
mkdir "$mnt/many"
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/many.json" -q -- sh -c '
	"$1" manyfiles "$2" "$3" 100 || exit
	for i in $(seq 0 $(($4 - 1))); do
		xfs_io -c "pwrite -q 0 100" -c fsync "$(printf "%s/f%06d" "$2" "$i")" || exit
	done' sh "$WORKLOAD" "$mnt/many" "$n" "$again" >"$work/many.exp" 2>"$work/many.err"
check limits.many.exit 0 "$?"
sum=$work/many.json
# an eviction is not a loss: nothing counted lost, every eviction counted
check limits.many.file_map_full 0 "$(jq .losses.file_map_full "$sum")"
check limits.many.path_map_full 0 "$(jq .losses.path_map_full "$sum")"
live=$(jq '.files | length' "$sum")
check_match limits.many.files_listed "^[0-9]+$" "$live"
((live <= nfiles_map && live > nfiles_map - 2048)) ||
	fail limits.many.files_listed_near_full "$live files listed, map holds $nfiles_map"
# each file was made once, and f000000.. once more after its eviction
check limits.many.files_evicted "$((n + again - live))" \
	"$(jq .events.file_entries_evicted "$sum")"
check limits.many.file_entries_created "$((n + again))" \
	"$(jq .events.file_entries_created "$sum")"
# each file's writer noted once, and f000000.. once more if its entry was
# evicted by then: file_writers' LRU is approximate (per-CPU lists), so an
# old entry may survive the 1000 or more files past its size (seen once in
# CI: 18384 of 18384..18394). Every file made an entry; at most 'again' more.
if [[ $nwriters_map =~ ^[0-9]+$ ]] && ((n >= nwriters_map + 1000)); then
	wc_made=$(jq .events.writer_entries_created "$sum")
	if [[ $wc_made =~ ^[0-9]+$ ]] && ((wc_made >= n && wc_made <= n + again)); then
		pass limits.many.writer_entries_created
	else
		fail limits.many.writer_entries_created "expected $n..$((n + again)), got $wc_made"
	fi
else
	fail limits.many.writer_entries_created "file_writers holds $nwriters_map, only $n files"
fi
# the files written again: listed with the second write only, marked partial
f0=$(jq -c --arg p "$mnt/many/f000000" '[.files[] | select(.path == $p)] | .[0] |
	[.partial, .stats.app_bytes]' "$sum")
check limits.many.readmitted_partial "[true,100]" "$f0"
check limits.many.readmitted_count "$again" "$(jq '[.files[] | select(.partial)] | length' "$sum")"
# the newest file was never evicted: whole
check limits.many.newest_whole "[false,100]" "$(jq -c --arg p "$(printf "%s/many/f%06d" \
	"$mnt" $((n - 1)))" '[.files[] | select(.path == $p)] | .[0] | [.partial, .stats.app_bytes]' "$sum")"
# the per-filesystem figures have their own map: still exact
check limits.many.totals.app_bytes "$(($(jq .app_bytes "$work/many.exp") + again * 100))" \
	"$(jq .totals.app_bytes "$sum")"
check limits.many.totals.write_calls "$(($(jq .write_calls "$work/many.exp") + again))" \
	"$(jq .totals.write_calls "$sum")"
for f in folios dirty_blocks submitted_blocks submitted_bytes; do
	check "limits.many.totals.$f" "$(($(jq ".$f" "$work/many.exp") * (n + again) / n))" \
		"$(jq ".totals.$f" "$sum")"
done
# the text summary says so
"$IOMAPDIRTY" run --mount "$mnt" -- sh -c 'rm -rf "$1"; mkdir "$1"; "$2" manyfiles "$1" "$3" 10' \
	sh "$mnt/many" "$WORKLOAD" "$n" >"$work/many.txt" 2>&1
check_match limits.many.text_evicted "[0-9]+ files evicted from the per-file maps, their figures still in the filesystem totals" \
	"$(cat "$work/many.txt")"
rm -rf "$mnt/many"

# A file written back again and again while more new files than the paths
# map holds are written back: its path stays. Writeback looks paths up for
# a file only when the file's entry in files says its path was found more
# than PATHS_KNOWN_WINDOW path entries ago (bpf/paths.bpf.h); a lookup is
# what keeps the path the recently used in the LRU. Without that window,
# the path of this file, found once, would be evicted like the oldest.
# The file is not fsync'd: manyfiles' syncfs writes it back with the
# others in the flusher's thread, whose sum of it is folded into files
# when it moves to the next file (an fsync'ing process would keep it
# until the end).
mkdir "$mnt/kept"
batch=1000
batches=$(((npaths_map + extra) / batch))
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/kept.json" -q -- sh -c '
	for b in $(seq 1 "$4"); do
		xfs_io -f -c "pwrite -q 0 100" "$2/keep" || exit
		mkdir "$2/b$b" && "$1" manyfiles "$2/b$b" "$3" 100 >/dev/null || exit
	done
	xfs_io -c "pwrite -q 0 100" -c syncfs "$2/keep"' \
	sh "$WORKLOAD" "$mnt/kept" "$batch" "$batches" 2>"$work/kept.err"
check limits.kept.exit 0 "$?"
# the premise: paths evicted other files' paths
check_match limits.kept.paths_evicted '^[1-9][0-9]*$' \
	"$(jq .events.path_entries_evicted "$work/kept.json")"
check limits.kept.path_of_rewritten "$((batches + 1))" "$(jq --arg p "$mnt/kept/keep" \
	'[.files[] | select(.path == $p)] | .[0].stats.write_calls' "$work/kept.json")"
rm -rf "$mnt/kept"

# --- one write(2) over the pages the write path splits ------------------
max_pages=$(define IOMAPDIRTY_MAX_WRITE_PAGES)
psz=$(getconf PAGESIZE)
check_match limits.max_write_pages '^[0-9]+$' "$max_pages"
big=$(((max_pages + 256) * psz))	# 1 MiB over the bound
# --all: the pages past the bound are recorded by no write, so no cgroup
# can own them; counting every process's writeback counts them
"$IOMAPDIRTY" run --all --mount "$mnt" --json "$work/big.json" -q -- \
	xfs_io -f -c "pwrite -q -b $big 0 $big" -c fsync "$mnt/big" 2>"$work/big.err"
check limits.big_write.exit 0 "$?"
check limits.big_write.write_too_large 1 "$(jq .losses.write_too_large "$work/big.json")"
# the writeback side does not depend on the write path: all of it
check limits.big_write.submitted_bytes "$big" "$(jq .totals.submitted_bytes "$work/big.json")"
# text output names the loss too
"$IOMAPDIRTY" run --mount "$mnt" -- \
	xfs_io -c "pwrite -q -b $big 0 $big" -c fsync "$mnt/big" >"$work/big.txt" 2>&1
check_match limits.big_write.text "losses:.* write_too_large=1" "$(cat "$work/big.txt")"
rm -f "$mnt/big"

# --- a folio over the per-folio bound -----------------------------------
# The page cache's largest folio is a PMD (hpage_pmd_size); the bound is
# IOMAPDIRTY_MAX_FOLIO_PAGES pages. Only a host whose PMD folio is larger
# (e.g. 64 KiB pages) can make one.
pmd=$(cat /sys/kernel/mm/transparent_hugepage/hpage_pmd_size 2>/dev/null)
maxfp=$(define IOMAPDIRTY_MAX_FOLIO_PAGES)
if [[ $pmd =~ ^[0-9]+$ && $maxfp =~ ^[0-9]+$ ]] && ((pmd / psz <= maxfp)); then
	echo "SKIP limits.folio_too_large: this host's largest page-cache folio is $pmd B = $((pmd / psz)) pages (hpage_pmd_size), not over the bound of $maxfp"
else
	fail limits.folio_too_large "a folio over $maxfp pages is possible here (PMD $pmd B): write this test"
fi

# --- runtime failure: the kernel's objects cannot be had ----------------
# With RLIMIT_NOFILE at 20 the tool starts (facts, BTF, lock) but cannot
# hold a descriptor for each of its maps and programs: the load fails with
# EMFILE, a runtime failure (exit 6) with its reason, nothing attached.
# (Too large a --max-pages is no way to get one here: the kernel allocates
# the page table even at the option's ceiling.)
before=$("$CLI_TOP/tests/lib/links.sh" count)
(ulimit -n 20; exec "$IOMAPDIRTY" hist --mount "$mnt" -c 1 -i 0.1) >/dev/null 2>"$work/six.err"
check limits.runtime_failure.exit 6 "$?"
# the reason, on the tool's own last line (the plan lines come first)
check_match limits.runtime_failure.message "^iomapdirty: .*(Too many open files|EMFILE)" \
	"$(grep -v '^libbpf: ' "$work/six.err" | tail -n 2)"
check limits.runtime_failure.no_links "$before" "$("$CLI_TOP/tests/lib/links.sh" count)"
cli_finish
