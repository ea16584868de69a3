#!/usr/bin/env bash
# Issue 27 item 7: `probes --facts FILE` reads a regular file only, never
# through a symbolic link, of a bounded size, and what it echoes from the
# file (the release, a rejected line) goes through the one sanitizer. No BPF.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_facts.XXXXXX)
trap 'rm -rf "$work"' EXIT
good=$CLI_TOP/tests/fixtures/family-d-6.18-this-machine.facts
ESC=$'\x1b'

"$IOMAPDIRTY" probes --facts "$good" >/dev/null 2>&1
check facts.good_file 0 "$?"
ln -s "$good" "$work/link.facts"
err=$("$IOMAPDIRTY" probes --facts "$work/link.facts" 2>&1 >/dev/null)
check facts.symlink_refused_exit 2 "$?"
check_match facts.symlink_refused_says "symbolic link" "$err"
timeout 10 "$IOMAPDIRTY" probes --facts /dev/zero >/dev/null 2>&1
check facts.dev_zero_refused_exit 2 "$?"
mkfifo "$work/fifo"
timeout 10 "$IOMAPDIRTY" probes --facts "$work/fifo" >/dev/null 2>&1
check facts.fifo_refused_exit 2 "$?"
{ cat "$good"; head -c 17M /dev/zero | tr '\0' '#'; } >"$work/big.facts"
err=$(timeout 20 "$IOMAPDIRTY" probes --facts "$work/big.facts" 2>&1 >/dev/null)
check facts.too_large_exit 2 "$?"
check_match facts.too_large_says "larger than" "$err"
# echoed text: escapes, never raw
{ echo "release 6.1${ESC}[31mred"; grep -v '^release' "$good"; } >"$work/rel.facts"
out=$("$IOMAPDIRTY" probes --facts "$work/rel.facts" 2>&1)
check facts.release_no_raw_escape no "$(grep -q "$ESC" <<<"$out" && echo yes || echo no)"
check_match facts.release_shown_escaped 'kernel: 6\.1\\x1b\[31mred' "$out"
{ cat "$good"; printf 'bogus %s]0;owned\a line\n' "$ESC"; } >"$work/line.facts"
out=$("$IOMAPDIRTY" probes --facts "$work/line.facts" 2>&1)
check facts.rejected_line_exit 2 "$?"
check facts.rejected_line_no_raw_escape no \
	"$(grep -q "[$ESC$(printf '\a')]" <<<"$out" && echo yes || echo no)"
check_match facts.rejected_line_escaped 'bogus \\x1b\]0;owned\\x07' "$out"

# cgroup attribution: the kernel's answer for each cgroup helper, from the
# file. Neither (a kernel without CONFIG_CGROUPS): unavailable, and why;
# both: available; a file recorded before these lines: unknown, not available
helpers() { grep -v '^helper' "$good"; printf 'helper %s %s\n' get_current_cgroup_id "$1" \
	get_current_ancestor_cgroup_id "$2"; }
attribution() { "$IOMAPDIRTY" probes --json --facts "$1" | jq -r .plan.cgroup_attribution; }
helpers 0 0 >"$work/nocg.facts"
helpers 1 0 >"$work/noanc.facts"
helpers 1 1 >"$work/cg.facts"
out=$("$IOMAPDIRTY" probes --facts "$work/nocg.facts" 2>&1)
check_match facts.cgroup_unavailable_text \
	'^cgroup attribution: unavailable \(.*bpf_get_current_cgroup_id.*CONFIG_CGROUPS' "$out"
check facts.cgroup_unavailable_json unavailable "$(attribution "$work/nocg.facts")"
check facts.cgroup_ancestor_missing_json unavailable "$(attribution "$work/noanc.facts")"
check facts.cgroup_available_json available "$(attribution "$work/cg.facts")"
check facts.cgroup_available_why null \
	"$("$IOMAPDIRTY" probes --json --facts "$work/cg.facts" | jq -c .plan.cgroup_attribution_why)"
check facts.cgroup_unrecorded_json unknown "$(attribution "$good")"
{ cat "$good"; echo "helper get_current_cgroup_id 2"; } >"$work/badhelper.facts"
"$IOMAPDIRTY" probes --facts "$work/badhelper.facts" >/dev/null 2>&1
check facts.helper_bad_value_exit 2 "$?"
# Hook target prototypes (issue 28 item 3): this kernel's facts with
# fentry allowed take iomap_writeback_folio's folio from argument 1, as
# its prototype (wpc, folio) says; with the folio moved to argument 0, a
# signature no row of the table describes, fentry refuses the function
# rather than read a guessed argument
sed 's/^trial fentry \([a-z_]*\) .*/trial fentry \1 ok/' "$good" >"$work/fentry.facts"
moved='s/^\(func iomap_writeback_folio .*args=\)iomap_writepage_ctx\*,folio\*$/\1folio*,iomap_writepage_ctx*/'
sed "$moved" "$work/fentry.facts" >"$work/moved.facts"
wb() { "$IOMAPDIRTY" probes --json --mode fentry --facts "$1" |
	jq -r '.plan.hooks[] | select(.hook == "writeback_begin") | "\(.mechanism) \(.target) \(.note)"'; }
check facts.proto_wb_folio_arg1 "fentry iomap_writeback_folio folio pointer from argument 1" \
	"$(wb "$work/fentry.facts")"
out=$("$IOMAPDIRTY" probes --mode fentry --facts "$work/moved.facts" 2>&1)
check facts.proto_moved_refused_exit 3 "$?"
check_match facts.proto_moved_refused_says \
	"writeback_begin.*fentry iomap_writeback_folio: prototype not one this tool knows" "$out"
# The filesystem backends (issue 26): XFS counted by the iomap backend
# when the plan holds, rejected with the plan's reason when it does not;
# ext4 and the block devices never, each with why, in JSON and in text
be() { "$IOMAPDIRTY" probes --json "$@" |
	jq -r '.plan.backends[] | "\(.filesystem)|\(.backend)|\(.chosen)|\(.why)"'; }
out=$(be --facts "$good")
check_match facts.backend_xfs_chosen '^xfs\|iomap\|true\|null$' "$out"
check_match facts.backend_ext4_chosen '^ext4\|buffer_heads\|true\|null$' "$out"
check_match facts.backend_bdev_rejected '^block device\|null\|false\|.*page cache' "$out"
# one row per kind of filesystem the tool tells apart (include/fs_kinds.h)
check facts.backend_rows "$(grep -c 'X(FS_KIND_' "$CLI_TOP/include/fs_kinds.h")" "$(wc -l <<<"$out")"
# raw_tp: the buffer-head backend has tp_btf programs only
out=$(be --mode raw_tp --facts "$good")
check_match facts.backend_ext4_rejected '^ext4\|null\|false\|buffer heads.*NOT WATCHED' "$out"
out=$("$IOMAPDIRTY" probes --mode raw_tp --facts "$good" 2>&1)
check_match facts.backend_ext4_hooks_say_why "^ext4_write .*no tp_btf program for 'ext4_write'" "$out"
out=$(be --mode fentry --facts "$work/moved.facts")
check_match facts.backend_xfs_refused '^xfs\|iomap\|false\|rejected: .*writeback_begin' "$out"
out=$("$IOMAPDIRTY" probes --facts "$good" 2>&1)
check_match facts.backend_text_xfs '^xfs +iomap +counted' "$out"
check_match facts.backend_text_ext4 '^ext4 +buffer_heads +counted' "$out"
cli_finish
