#!/usr/bin/env bash
# Issue 27 item 6: run files read by compare and report are refused when
# they are not what the schema says, with the place named and exit 2
# (docs/iomapdirty.md); never "every event was counted" from a file whose
# losses could not be read. No BPF: a hand-written run file
# (tests/fixtures/run-minimal.json) with one fault put in at a time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
work=$(mktemp -d /tmp/cli_runfile.XXXXXX)
trap 'rm -rf "$work"' EXIT
good=$CLI_TOP/tests/fixtures/run-minimal.json

"$IOMAPDIRTY" compare "$good" "$good" >/dev/null 2>&1
check strict.good_file_read 0 "$?"

# bad NAME KEY SED: the fixture with SED applied must be refused naming KEY
bad() {
	local f=$work/$1.json err rc
	sed "$3" "$good" >"$f"
	cmp -s "$f" "$good" && { fail "strict.$1" "the fault was not put in"; return; }
	err=$("$IOMAPDIRTY" compare "$f" "$good" 2>&1 >/dev/null)
	rc=$?
	check "strict.$1.compare_exit" 2 "$rc"
	check_match "strict.$1.compare_names_key" "$2" "$err"
	"$IOMAPDIRTY" report "$f" -o "$work/$1.html" >/dev/null 2>&1
	check "strict.$1.report_exit" 2 "$?"
	check "strict.$1.report_no_claim" no \
		"$(grep -qs 'every event was counted' "$work/$1.html" && echo yes || echo no)"
}
bad nan_ratio block_rounding 's/"block_rounding":11.24/"block_rounding":NaN/'
bad infinity_seconds seconds 's/"seconds":1.5/"seconds":Infinity/'
bad minus_infinity folio_amplification 's/"folio_amplification":1.0/"folio_amplification":-Infinity/'
bad huge_double seconds 's/"seconds":1.5/"seconds":1e400/'
bad above_2_64 submitted_bytes 's/"submitted_bytes":57344/"submitted_bytes":18446744073709551616/'
bad far_above_2_64 app_bytes 's/"app_bytes":5100/"app_bytes":99999999999999999999999/'
bad negative_counter dirty_blocks 's/"dirty_blocks":56/"dirty_blocks":-56/'
bad loss_string losses.page_map_full 's/"page_map_full":0/"page_map_full":"7"/'
bad loss_negative losses.file_map_full 's/"file_map_full":0/"file_map_full":-3/'
bad loss_fraction losses.page_map_full 's/"page_map_full":0/"page_map_full":2.5/'
bad loss_above_2_64 page_map_full 's/"page_map_full":0/"page_map_full":18446744073709551617/'
bad losses_not_object losses 's/"losses":{"page_map_full":0,"file_map_full":0}/"losses":[1]/'
# the largest value that fits is read
sed 's/"submitted_bytes":57344/"submitted_bytes":18446744073709551615/' "$good" >"$work/max.json"
out=$("$IOMAPDIRTY" compare --format json "$work/max.json" "$good" 2>&1)
check strict.u64_max_read 0 "$?"
check_match strict.u64_max_exact 18446744073709551615 "$out"

cli_finish
