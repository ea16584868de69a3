#!/usr/bin/env bash
# `iomapdirty compare` and `iomapdirty report` on run files made here: the
# same scripted workload (tests/e2e/workload, which prints the figures a
# correct tool must report, computed from the offsets it writes) under
# `iomapdirty run --json` on a 1 KiB-block and a 4 KiB-block loop XFS.
# Expected values and ratios come from the workload's figures, never from
# the tool; the report is rendered by headless Chromium.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_cmp.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
PY=/usr/bin/python3	# Debian's, with nothing but the standard library
outcheck() { "$PY" "$here/outcheck.py" "$@"; }

# The file written has a name a page or a terminal could take for code.
name='<script>alert(1)'
for bs in 1024 4096; do
	mnt=$(xfsloop_make "$bs" 512)
	"$WORKLOAD" prep "$mnt/$name" 1M >/dev/null
	"$IOMAPDIRTY" run --mount "$mnt" -q --json "$work/run$bs.json" -- \
		"$WORKLOAD" scatter "$mnt/$name" --count 51 --len 100 --stride 20000 \
		>"$work/wl$bs.json" 2>"$work/run$bs.err"
	check "run$bs.exit" 0 "$?"
	check "run$bs.path_in_run_file" "\"$mnt/$name\"" \
		"$(jq '.files[0].path' "$work/run$bs.json")"
	check "run$bs.host_in_run_file" "\"$(uname -r)\"" "$(jq .host.kernel "$work/run$bs.json")"
	mnts+=("$mnt")
done
A=$work/run1024.json B=$work/run4096.json WA=$work/wl1024.json WB=$work/wl4096.json

# --- compare --format json: values and ratios from the workload's figures
"$IOMAPDIRTY" compare --format json "$A" "$B" >"$work/cmp.json" 2>"$work/cmp.err"
check compare.json.exit 0 "$?"
check compare.json.valid 0 "$(jq -e . "$work/cmp.json" >/dev/null 2>&1; echo $?)"
# the change in words, as the manual defines it: the larger over the smaller
change() {	# A B -> "same", "3.64x more", "16.0x less"
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == b) { print "same"; exit }
		f = b > a ? b / a : a / b
		fmt = f < 10 ? "%.2fx %s\n" : "%.1fx %s\n"
		printf fmt, f, (b > a ? "more" : "less") }'
}
for f in app_bytes write_calls dirty_blocks dirty_bytes submitted_blocks \
	submitted_bytes folios folio_bytes; do
	a=$(jq ".$f" "$WA") b=$(jq ".$f" "$WB")
	row=$(jq -c --arg f "$f" '.rows[] | select(.figure == $f)' "$work/cmp.json")
	check "compare.json.$f.values" "[$a,$b]" "$(jq -c .values <<<"$row")"
	check "compare.json.$f.change" "$(change "$a" "$b")" "$(jq -r '.change[1]' <<<"$row")"
	# ratio_to_first = B / A, to 6 significant digits
	check "compare.json.$f.ratio" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.5e", b / a }')" \
		"$(jq '.ratio_to_first[1]' <<<"$row" | awk '{ printf "%.5e", $1 }')"
done
# 1 KiB vs 4 KiB blocks: the block size itself, read from the filesystems
check compare.json.block_size "[1024,4096]" \
	"$(jq -c '.rows[] | select(.figure == "block_bytes") | .values' "$work/cmp.json")"
check compare.json.folio_mix "[$(jq '.folios' "$WA"),$(jq '.folios' "$WB")]" \
	"$(jq -c '.rows[] | select(.figure == "folios_4096") | .values' "$work/cmp.json")"
check compare.json.losses "[0,0]" \
	"$(jq -c '.rows[] | select(.figure == "losses") | .values' "$work/cmp.json")"

# --- text: 80 columns, the change column in words --------------------------
"$IOMAPDIRTY" compare --labels 1k,4k "$A" "$B" >"$work/cmp.txt"
check compare.text.exit 0 "$?"
check compare.text.fits_80_columns 0 "$(awk 'length($0) > 80' "$work/cmp.txt" | wc -l)"
for f in submitted_bytes:"submitted bytes" dirty_blocks:"dirty blocks" app_bytes:"application bytes"; do
	key=${f%%:*} label=${f#*:}
	a=$(jq ".$key" "$WA") b=$(jq ".$key" "$WB")
	check_match "compare.text.$key" "^$label +$a +$b +$(change "$a" "$b")\$" "$(cat "$work/cmp.txt")"
done
check_match compare.text.header "^figure +A 1k +B 4k +B vs A$" "$(cat "$work/cmp.txt")"

# three runs: still 80 columns, a change column per later run
"$IOMAPDIRTY" compare "$A" "$B" "$A" >"$work/cmp3.txt"
check compare.three.exit 0 "$?"
check compare.three.fits_80_columns 0 "$(awk 'length($0) > 80' "$work/cmp3.txt" | wc -l)"
check_match compare.three.changes "C vs A" "$(cat "$work/cmp3.txt")"

# --- markdown: a pipe table, values in place ---------------------------------
"$IOMAPDIRTY" compare --format markdown --labels '1k|a,4k' "$A" "$B" >"$work/cmp.md"
check compare.md.exit 0 "$?"
if outcheck mdtable <"$work/cmp.md" >"$work/md.json" 2>"$work/md.err"; then
	pass compare.md.parses_as_table
else
	fail compare.md.parses_as_table "$(cat "$work/md.err")"
fi
check compare.md.header '["figure","1k|a","4k","4k vs 1k|a"]' "$(jq -c .header "$work/md.json")"
a=$(jq .submitted_bytes "$WA") b=$(jq .submitted_bytes "$WB")
check compare.md.submitted_bytes "[\"submitted bytes\",\"$a\",\"$b\",\"$(change "$a" "$b")\"]" \
	"$(jq -c '.rows[] | select(.[0] == "submitted bytes")' "$work/md.json")"

# --- names with control bytes never reach the terminal ----------------------
cp "$A" "$work/a"$'\e[2J'"b.json"
"$IOMAPDIRTY" compare --labels $'\e]0;x\a1k\x9b,4k\xc2\x9b' "$A" "$B" >"$work/esc.txt" 2>&1
"$IOMAPDIRTY" compare "$work/a"$'\e[2J'"b.json" "$B" >>"$work/esc.txt" 2>&1
"$IOMAPDIRTY" compare "$work/missing"$'\e[2J'".json" "$B" >>"$work/esc.txt" 2>&1
check compare.no_control_bytes 0 "$(LC_ALL=C tr -d '\n' <"$work/esc.txt" |
	LC_ALL=C grep -c $'[\x01-\x1f\x7f]')"
check compare.no_c1_controls 0 "$(grep -c $'\xc2\x9b' "$work/esc.txt")"

# --- bad input: a clear message, exit 2 ---------------------------------------
expect() {	# NAME REGEX ARGS...
	local name=$1 re=$2 err rc
	shift 2
	err=$("$IOMAPDIRTY" "$@" 2>&1 >/dev/null)
	rc=$?
	check "$name.exit" 2 "$rc"
	check_match "$name.message" "$re" "$err"
}
printf 'not json at all\n' >"$work/text.json"
head -c 200 "$A" >"$work/cut.json"
jq -c '.schema = "iomapdirty/2"' "$A" >"$work/schema2.json"
jq -c 'del(.schema)' "$A" >"$work/noschema.json"
jq -c 'del(.totals.submitted_bytes)' "$A" >"$work/nofield.json"
jq -c '.totals.app_bytes = -5' "$A" >"$work/negative.json"
"$IOMAPDIRTY" probes --json >"$work/plan.json" 2>/dev/null
cat "$A" "$B" >"$work/two_docs.json"
ln -s "$A" "$work/link.json"
expect bad.missing "nope.json: No such file or directory" compare "$work/nope.json" "$B"
expect bad.not_json "text.json: not JSON" compare "$work/text.json" "$B"
expect bad.truncated "cut.json: not JSON" compare "$A" "$work/cut.json"
expect bad.schema 'unknown schema "iomapdirty/2"' compare "$work/schema2.json" "$B"
expect bad.no_schema "unknown schema \(none\)" compare "$A" "$work/noschema.json"
expect bad.field_missing "totals.submitted_bytes missing" compare "$A" "$work/nofield.json"
expect bad.negative "totals.app_bytes: not a non-negative integer" compare "$A" "$work/negative.json"
expect bad.not_a_run 'a "plan" document, not a run' compare "$work/plan.json" "$B"
expect bad.two_documents "more than one JSON document" compare "$work/two_docs.json" "$B"
expect bad.symlink "symbolic link" compare "$work/link.json" "$B"
expect bad.directory "not a regular file" compare "$work" "$B"
expect bad.one_file "at least two run files" compare "$A"
expect bad.no_file "at least two run files" compare
expect bad.labels "--labels names 1 runs for 2 files" compare --labels x "$A" "$B"
expect bad.format "--format wants" compare --format html "$A" "$B"

# --- fio's own figures kept beside ours (run --fio-json) ---------------------
mnt=${mnts[0]}
fio_job=(fio --name=w --filename="$mnt/fio.dat" --rw=randwrite --bs=4k --size=1M
	--ioengine=psync --end_fsync=1 --randseed=7)
for r in 1 2; do
	"$IOMAPDIRTY" run --mount "$mnt" -q --json "$work/fio$r.json" --fio-json "$work/fio$r.out" -- \
		"${fio_job[@]}" --output-format=json --output="$work/fio$r.out" 2>"$work/fio$r.err"
	check "fio$r.exit" 0 "$?"
done
# the job's own size, and fio's own figures as fio wrote them
check fio.io_bytes 1048576 "$(jq .fio.write.io_bytes "$work/fio1.json")"
check fio.bw_bytes "$(jq '.jobs[0].write.bw_bytes' "$work/fio1.out")" \
	"$(jq .fio.write.bw_bytes "$work/fio1.json")"
check fio.iops "$(jq '.jobs[0].write.iops' "$work/fio1.out" | awk '{ printf "%.3e", $1 }')" \
	"$(jq .fio.write.iops "$work/fio1.json" | awk '{ printf "%.3e", $1 }')"
"$IOMAPDIRTY" compare --format json "$work/fio1.json" "$work/fio2.json" >"$work/fiocmp.json"
check fio.compare_bw "[$(jq '.jobs[0].write.bw_bytes' "$work/fio1.out"),$(jq '.jobs[0].write.bw_bytes' "$work/fio2.out")]" \
	"$(jq -c '.rows[] | select(.figure == "fio_write_bw_bytes") | .values' "$work/fiocmp.json")"
check_match fio.compare_text "^fio write bandwidth " \
	"$("$IOMAPDIRTY" compare "$work/fio1.json" "$work/fio2.json")"
# runs without fio have no fio rows
check fio.absent_without_fio "" \
	"$(jq -c '.rows[] | select(.figure | startswith("fio_"))' "$work/cmp.json")"
# a results file this run did not write (left by an earlier one) is refused
cp "$work/fio1.out" "$work/old.out"
touch -d '1 hour ago' "$work/old.out"
err=$("$IOMAPDIRTY" run --mount "$mnt" -q --json "$work/old.json" --fio-json "$work/old.out" -- true 2>&1)
check fio.stale_exit 6 "$?"
check_match fio.stale_message "not written during this run" "$err"
check fio.stale_run_file_still_written '"run"' "$(jq .type "$work/old.json")"
check fio.stale_not_kept null "$(jq .fio "$work/old.json")"
err=$("$IOMAPDIRTY" run --mount "$mnt" -q --fio-json "$A" -- touch "$A" 2>&1)
check fio.not_fio_exit 6 "$?"
check_match fio.not_fio_message "not fio's --output-format=json" "$err"

# --- report: one self-contained page, rendered by headless Chromium ---------
"$IOMAPDIRTY" report "$A" "$B" --labels 1k,4k -o "$work/report.html" 2>"$work/report.err"
check report.exit 0 "$?"
check report.no_external_reference "" "$(grep -Eio 'https?:|ftp:|url\(|@import|<link|<script|<img|<iframe|<object|src=|href=' "$work/report.html" | sort -u | tr '\n' ' ')"
check report.name_escaped 2 "$(grep -c '&lt;script&gt;alert(1)' "$work/report.html")"
chrome() {	# chromium ARGS... (as root, no network, a throw-away profile)
	local profile rc
	profile=$(mktemp -d /tmp/cli_chrome.XXXXXX)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --hide-scrollbars --user-data-dir="$profile" "$@" 2>/dev/null
	rc=$?
	rm -rf "$profile"
	return $rc
}
if ! command -v chromium >/dev/null; then
	fail report.chromium "chromium is not installed (scripts/install-deps.sh)"
else
	chrome --dump-dom "file://$work/report.html" >"$work/dom.html"
	check report.dump_dom_exit 0 "$?"
	outcheck html "$work/dom.html" >"$work/dom.json"
	check report.dom_no_script_element "[]" "$(jq -c '[.tags[] | select(. == "script")]' "$work/dom.json")"
	# the file's name is text on the page, in each run's files table
	for r in 0 1; do
		check "report.dom.files$r.name_is_text" "${mnts[$r]}/$name" \
			"$(jq -r ".tables[\"files-$r\"][1][0]" "$work/dom.json")"
	done
	# the totals of each run file, as the files have them
	for f in app_bytes:"application bytes" dirty_blocks:"dirty blocks" \
		submitted_bytes:"submitted bytes" folios:"folios written back"; do
		key=${f%%:*} label=${f#*:}
		check "report.dom.totals.$key" "[\"$label\",\"$(jq .totals.$key "$A")\",\"$(jq .totals.$key "$B")\",\"$(change "$(jq .totals.$key "$A")" "$(jq .totals.$key "$B")")\"]" \
			"$(jq -c --arg l "$label" '.tables["totals-table"][] | select(.[0] == $l)' "$work/dom.json")"
	done
	# every histogram bucket of both runs: its count in the table and as a bar
	for h in dirty_blocks_per_folio submitted_blocks_per_folio folio_amplification folio_bytes; do
		want=$(jq -c --arg h "$h" '[.histograms[$h].buckets[] | select(.count > 0) | .count]' "$A" "$B" | jq -cs 'add | sort')
		got=$(jq -c --arg h "$h" '[.rects[] | select(.hist == $h and .count > 0) | .count] | sort' "$work/dom.json")
		check "report.dom.$h.bars" "$want" "$got"
		got=$(jq -c --arg h "$h" '[.tables["h-" + $h][1:][] | .[1:][] | tonumber | select(. > 0)] | sort' "$work/dom.json")
		check "report.dom.$h.table" "$want" "$got"
		# bar heights in proportion to the counts
		check "report.dom.$h.heights" 0 "$(jq --arg h "$h" '[.rects[] | select(.hist == $h)] |
			(map(.count) | max) as $c | (map(.height) | max) as $hh |
			map(select((.height / $hh - .count / $c) | fabs > 0.001)) | length' "$work/dom.json")"
	done
	check_match report.dom.losses "None: every event was counted" "$(jq -r .text "$work/dom.json")"
	check_match report.dom.kernel "$(uname -r)" "$(jq -r '.tables["run-table"][] | select(.[0] == "kernel") | .[1]' "$work/dom.json")"
	# a screenshot at a laptop's width that is not blank
	chrome --window-size=1366,900 --screenshot="$work/shot.png" "file://$work/report.html" >/dev/null
	check report.screenshot_exit 0 "$?"
	outcheck png "$work/shot.png" >"$work/shot.json"
	check report.screenshot.background '"ffffff"' "$(jq .background "$work/shot.json")"
	check report.screenshot.colours_many true "$(jq '.colours > 50' "$work/shot.json")"
	check report.screenshot.not_blank true "$(jq '.other_share > 0.03' "$work/shot.json")"
	# and a PDF (the print stylesheet)
	chrome --no-pdf-header-footer --print-to-pdf="$work/report.pdf" "file://$work/report.html" >/dev/null
	check report.pdf "%PDF" "$(head -c 4 "$work/report.pdf")"
fi

# one run: a page without the A/B columns; bad input: exit 2
"$IOMAPDIRTY" report "$A" -o "$work/one.html"
check report.one_run.exit 0 "$?"
check report.one_run.no_change_column 0 "$(grep -c ' vs ' "$work/one.html")"
expect report.bad.schema 'unknown schema "iomapdirty/2"' report "$work/schema2.json" -o "$work/x.html"
expect report.bad.missing "No such file" report "$work/nope.json" -o "$work/x.html"
expect report.bad.no_output "no output file" report "$A"
expect report.bad.output_dir "cannot create a file in its directory \\(/nonexistent\\)" report "$A" -o /nonexistent/r.html
check report.bad.nothing_written 0 "$(ls "$work"/x.html 2>/dev/null | wc -l)"
# a symbolic link as output: refused (usage, exit 2), neither written
# through nor replaced (tests/cli/outputs.sh has every kind of target)
echo keep >"$work/target"
ln -s "$work/target" "$work/link.html"
"$IOMAPDIRTY" report "$A" -o "$work/link.html" 2>"$work/link.err"
check report.symlink_refused 2 "$?"
check_match report.symlink_refused.message "is a symbolic link" "$(cat "$work/link.err")"
check report.symlink_not_followed keep "$(cat "$work/target")"
check report.symlink_kept "symbolic link" "$(stat -c %F "$work/link.html")"
check report.no_temp_left 0 "$(ls -a "$work" | grep -c '^\.iomapdirty\.')"

cli_finish
