#!/usr/bin/env bash
# `hist` text output, interval by interval: the scatter51 writes (1 KiB
# blocks: 51 folios, 46 with one dirty block, 5 with two) during the first
# intervals, then quiet ones, then the summary. Every interval has its
# block of figures and its histograms, the intervals add up to the
# summary, and the summary's lines and histogram buckets are the ones the
# workload's own figures give, formatted by the rules written out here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_histtext.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT
mnt=$(xfsloop_make 1024 512) || { fail hist_text.fixture "xfsloop_make failed"; cli_finish; exit; }
"$WORKLOAD" prep "$mnt/f" 4M >/dev/null

if ! start_tool "$work/out.txt" "$work/err.txt" hist --mount "$mnt" -i 1; then
	fail hist_text.ready "$(tail -2 "$work/err.txt")"
	cli_finish
	exit
fi
"$WORKLOAD" scatter "$mnt/f" --count 51 --len 100 --stride 20000 >"$work/exp.json"
sleep 3.5
stop_tool INT
check hist_text.exit 0 "$TOOL_RC"
out=$work/out.txt
x() { jq -r ".$1" "$work/exp.json"; }

# blocks: "=== interval N (S s) ===" ... up to the next header
nint=$(grep -c '^=== interval [0-9]* ([0-9.]* s) ===$' "$out")
if ((nint >= 3)); then pass hist_text.intervals; else fail hist_text.intervals "expected >= 3 interval blocks got $nint"; fi
check hist_text.numbered "$(seq 1 "$nint" | xargs)" \
	"$(sed -n 's/^=== interval \([0-9]*\) .*/\1/p' "$out" | xargs)"
check hist_text.one_summary 1 "$(grep -c '^=== summary ([0-9.]* s) ===$' "$out")"
check hist_text.summary_last "summary" \
	"$(grep '^=== ' "$out" | tail -1 | awk '{ print $2 }')"
# each block has the five stats lines, a losses line, four histograms
blocks=$((nint + 1))
for re in '^  written      [0-9]+ B in [0-9]+ write calls$' \
	'^  dirty        [0-9]+ blocks \([0-9]+ B\): [0-9]+ by writes, [0-9]+ other in [0-9]+ folios$' \
	'^  written back [0-9]+ folios \([0-9]+ B, largest [0-9]+ B\), [0-9]+ with no dirtying seen$' \
	'^  submitted    [0-9]+ blocks \([0-9]+ B\)$' \
	'^  block rounding ([0-9]+\.[0-9]{2}x|n/a), folio amplification ([0-9]+\.[0-9]{2}x|n/a)$' \
	'^  losses: none$' \
	'^dirty_blocks_per_folio +: count +distribution \(blocks\)$' \
	'^submitted_blocks_per_folio +: count +distribution \(blocks\)$' \
	'^folio_amplification +: count +distribution \(ratio\)$' \
	'^folio_bytes +: count +distribution \(bytes\)$'; do
	check "hist_text.every_block:${re:1:28}" "$blocks" "$(grep -cE -- "$re" "$out")"
done

# the intervals add up to the summary
sumint() { sed -n '/^=== interval/,/^=== summary/p' "$out" | sed -n "$1" | awk '{ s += $1 } END { print s + 0 }'; }
summ() { sed -n '/^=== summary/,$p' "$out" | sed -n "$1"; }
check hist_text.intervals_add_up.written \
	"$(summ 's/^  written      \([0-9]*\) B.*/\1/p')" \
	"$(sumint 's/^  written      \([0-9]*\) B.*/\1/p')"
check hist_text.intervals_add_up.submitted \
	"$(summ 's/^  submitted    \([0-9]*\) blocks.*/\1/p')" \
	"$(sumint 's/^  submitted    \([0-9]*\) blocks.*/\1/p')"

# the summary against the workload's figures
ratio() { awk -v n="$1" -v d="$2" 'BEGIN { if (d == 0) print "n/a"; else printf "%.2fx\n", n / d }'; }
check hist_text.summary.written "  written      $(x app_bytes) B in $(x write_calls) write calls" \
	"$(summ '/^  written      /p')"
check hist_text.summary.dirty \
	"  dirty        $(x dirty_blocks) blocks ($(x dirty_bytes) B): $(x app_dirty_blocks) by writes, 0 other in 0 folios" \
	"$(summ '/^  dirty        /p')"
check hist_text.summary.written_back \
	"  written back $(x folios) folios ($(x folio_bytes) B, largest $(x max_folio_bytes) B), 0 with no dirtying seen" \
	"$(summ '/^  written back /p')"
check hist_text.summary.submitted "  submitted    $(x submitted_blocks) blocks ($(x submitted_bytes) B)" \
	"$(summ '/^  submitted    /p')"
check hist_text.summary.ratios \
	"  block rounding $(ratio "$(x app_dirty_bytes)" "$(x app_bytes)"), folio amplification $(ratio "$(x submitted_blocks)" "$(x dirty_blocks)")" \
	"$(summ '/^  block rounding /p')"

# histogram rows of the summary: "LABEL : COUNT |stars|", log2 buckets
# [2^(k-1), 2^k - 1] (bucket 0 is 0 -> 0), the widest 40 stars
hist_rows() {	# NAME: "label=count" of the summary's histogram NAME
	summ '/^=== summary/,$p' | awk -v h="$1" '
		$1 == h && $2 == ":" { on = 1; next }
		on && /^$/ { if (seen) exit; next }
		on && / : / { seen = 1; split($0, a, " : "); gsub(/^ +/, "", a[1]);
			split(a[2], b, " "); if (b[1] != 0) printf "%s=%s ", a[1], b[1] }'
}
want_rows() {	# KEY: the workload's per-folio values, bucketed here
	jq -r ".per_folio.$1 | to_entries[] | \"\(.key) \(.value)\"" "$work/exp.json" |
		awk '{ v = $1; k = 0; while (2 ^ k <= v) k++
			lo = k ? 2 ^ (k - 1) : 0; hi = k ? 2 ^ k - 1 : 0
			c[lo " -> " hi] += $2; o[lo " -> " hi] = lo }
		END { for (l in c) print o[l], l "=" c[l] }' | sort -n | cut -d' ' -f2- | tr '\n' ' '
}
check hist_text.summary.dirty_blocks_per_folio "$(want_rows dirty_blocks)" \
	"$(hist_rows dirty_blocks_per_folio)"
check hist_text.summary.submitted_blocks_per_folio "$(want_rows submitted_blocks)" \
	"$(hist_rows submitted_blocks_per_folio)"
check hist_text.summary.folio_bytes "$(want_rows folio_bytes)" "$(hist_rows folio_bytes)"
# the bar of the largest bucket is 40 stars wide
check hist_text.summary.widest_bar 40 \
	"$(summ '/^=== summary/,$p' | grep -o '|\**' | awk '{ print length($0) - 1 }' | sort -n | tail -1)"
cli_finish
