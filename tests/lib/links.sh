#!/usr/bin/env bash
# links.sh count|list [BPF_OBJECT]: the BPF links the kernel has for
# iomapdirty's programs, asked of the kernel (bpftool link show / prog
# show), matched by program name. The names are those of the program
# symbols in the BPF object (default .output/iomapdirty.bpf.o), cut to the
# kernel's 15 characters. Tests take the count before and after: a process
# that died, a link pinned or leaked in any way shows, whoever made it.
set -u
what=${1:-count}
obj=${2:-$(cd "$(dirname "$0")/../.." && pwd)/.output/iomapdirty.bpf.o}
[[ -f $obj ]] || { echo "links.sh: no BPF object $obj" >&2; exit 2; }
names=$(readelf -sW "$obj" | awk '$4 == "FUNC" && $5 == "GLOBAL" { print substr($8, 1, 15) }' |
	sort -u | jq -R . | jq -sc .)
[[ $names != "[]" ]] || { echo "links.sh: no programs in $obj" >&2; exit 2; }
progs=$(bpftool prog show --json) || exit 2
links=$(bpftool link show --json) || exit 2
ours=$(jq -c --argjson n "$names" --argjson p "$progs" '
	($p | map({key: (.id | tostring), value: .name}) | from_entries) as $name
	| [.[] | select($name[.prog_id | tostring] as $m | $m != null and ($n | index($m)))
	   | {id, prog: $name[.prog_id | tostring], type}]' <<<"$links") || exit 2
case $what in
count) jq length <<<"$ours" ;;
list) jq -r '.[] | "\(.id):\(.prog)"' <<<"$ours" ;;
*) echo "usage: links.sh count|list [BPF_OBJECT]" >&2; exit 2 ;;
esac
