#!/usr/bin/env bash
# The tool's bounds, reached for real: more files than its per-file and
# path maps hold (file_map_full, path_map_full, with exact counts, the
# per-filesystem totals still exact), one write(2) over the pages the
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
nfiles_map=none npaths_map=none
if start_tool "$work/sizes.json" "$work/sizes.err" hist --json --mount "$mnt" -i 60; then
	nfiles_map=$(map_entries "$TOOL_PID" files)
	npaths_map=$(map_entries "$TOOL_PID" paths)
	stop_tool INT
else
	fail limits.sizes.ready "$(tail -2 "$work/sizes.err")"
fi
check_match limits.files_map_size '^[0-9]+$' "$nfiles_map"
check_match limits.paths_map_size '^[0-9]+$' "$npaths_map"
[[ $nfiles_map =~ ^[0-9]+$ && $npaths_map =~ ^[0-9]+$ ]] || { cli_finish; exit; }
extra=100
n=$((nfiles_map + extra))
mkdir "$mnt/many"
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/many.json" -q -- \
	"$WORKLOAD" manyfiles "$mnt/many" "$n" 100 >"$work/many.exp" 2>"$work/many.err"
check limits.many.exit 0 "$?"
sum=$work/many.json
# every file is one folio, folded once: each one past the map is one miss
check limits.many.file_map_full "$((n - nfiles_map))" "$(jq .losses.file_map_full "$sum")"
check limits.many.path_map_full "$((n - npaths_map))" "$(jq .losses.path_map_full "$sum")"
check limits.many.files_listed "$nfiles_map" "$(jq '.files | length' "$sum")"
# the per-filesystem figures have their own map: still exact
for f in app_bytes write_calls folios dirty_blocks submitted_blocks submitted_bytes; do
	check "limits.many.totals.$f" "$(jq ".$f" "$work/many.exp")" "$(jq ".totals.$f" "$sum")"
done
rm -rf "$mnt/many"

# --- one write(2) over the pages the write path splits ------------------
max_pages=$(define IOMAPDIRTY_MAX_WRITE_PAGES)
psz=$(getconf PAGESIZE)
check_match limits.max_write_pages '^[0-9]+$' "$max_pages"
big=$(((max_pages + 256) * psz))	# 1 MiB over the bound
"$IOMAPDIRTY" run --mount "$mnt" --json "$work/big.json" -q -- \
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
