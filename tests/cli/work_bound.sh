#!/usr/bin/env bash
# The writeback program's work per folio does not grow with the folio when
# the dirty blocks do not (issue 29): a large folio with one dirty block
# costs about what a 4 KiB folio does. Counted, not timed: the programs
# count their steps (loop iterations over bitmap words and pages, and page
# record lookups) in the event counter writeback_fill_steps.
#
# One 1 KiB-block XFS, two files: one laid out in 2 MiB chunks (large
# folios), one in 4 KiB chunks (order-0 folios). `run` writes 100 bytes
# every 2 MiB into each (one dirty block per folio), at both accounting
# levels. Ground truth: the workload's own figures (folios and dirty
# blocks, from kpageflags). Each large-folio run must have seen folios of
# at least 256 KiB, or the check says it could not be made.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"
# shellcheck source=../lib/xfsloop.sh
source "$here/../lib/xfsloop.sh"
work=$(mktemp -d /tmp/cli_work_bound.XXXXXX)
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

# Steps per folio a large folio may cost beyond an order-0 one: the word of
# its dirty block and the page of it (collect_dirty_word_cb,
# collect_word_page_cb). Walking every word of a 2 MiB folio of 1 KiB
# blocks costs 32 per loop.
EXTRA_STEPS=3
COUNT=8

m=$(xfsloop_make 1024 512) || { fail work_bound.fixture "xfsloop_make failed"; cli_finish; exit; }
"$WORKLOAD" prep "$m/large" 16M --chunk 2M >/dev/null &&
	"$WORKLOAD" prep "$m/small" 16M >/dev/null && sync ||
	{ fail work_bound.fixture "workload prep failed"; cli_finish; exit; }

# one_case FILE LEVEL: sets STEPS to the run's steps per folio (rounded
# up), or to "" when the run gave none (checks on the way). always-on
# keeps no per-page records, so `run` needs --all there (nothing else
# writes to this filesystem).
one_case() {
	local f=$1 level=$2 name=work_bound.$1_$2 j=$work/$1_$2.json e=$work/$1_$2.exp
	local steps folios all=

	STEPS=
	[[ $level == always-on ]] && all=--all
	timeout -k 5 120 "$IOMAPDIRTY" run --mode tracepoint --accounting "$level" $all -m "$m" \
		--json "$j" -q -- "$WORKLOAD" scatter "$m/$f" --count $COUNT --len 100 \
		--stride 2097152 --start 1000 >"$e" 2>"$work/$1_$2.err"
	check "$name.exit" 0 "$?"
	if [[ ! -s $j || ! -s $e ]]; then
		fail "$name.output" "no JSON from the run or the workload: $(tail -2 "$work/$1_$2.err")"
		return
	fi
	folios=$(jq .totals.folios "$j")
	check "$name.folios" "$(jq .folios "$e")" "$folios"
	check "$name.dirty_blocks" "$(jq .dirty_blocks "$e")" "$(jq .totals.dirty_blocks "$j")"
	steps=$(jq .events.writeback_fill_steps "$j")
	if [[ ! $steps =~ ^[0-9]+$ || ! $folios =~ ^[1-9][0-9]*$ ]]; then
		fail "$name.steps" "no steps or folios in the run's JSON: '$steps', '$folios'"
		return
	fi
	echo "INFO $name: $steps steps over $folios folios of at most" \
		"$(jq .totals.max_folio_bytes "$j") bytes"
	STEPS=$(((steps + folios - 1) / folios))
}

for level in full always-on; do
	one_case small $level
	small=$STEPS
	one_case large $level
	large=$STEPS
	[[ -n $small && -n $large ]] || continue
	maxf=$(jq .totals.max_folio_bytes "$work/large_$level.json")
	check "work_bound.small_$level.order0" 4096 "$(jq .totals.max_folio_bytes "$work/small_$level.json")"
	if [[ ! $maxf =~ ^[0-9]+$ ]] || ((maxf < 262144)); then
		fail "work_bound.large_$level.folio_size" "no folio of 256 KiB or more to measure (largest $maxf)"
		continue
	fi
	if ((large <= small + EXTRA_STEPS)); then
		pass "work_bound.$level: $large steps per $maxf-byte folio with one dirty block, $small per 4 KiB folio"
	else
		fail "work_bound.$level" "$large steps per $maxf-byte folio with one dirty block, $small per 4 KiB folio: more than $EXTRA_STEPS more"
	fi
done
cli_finish
