#!/bin/bash
# validate_truth.sh - check the workload's expected figures against the
# kernel's own iomap tracepoints (tracefs_truth.sh), no BPF involved.
#
# usage: validate_truth.sh [SCENARIO...]     (default: all; needs root)
# A suite of `make check` (tests/run.sh): the expectations every e2e run
# is held to are themselves held to the kernel, with no BPF loaded.
# Prints PASS/FAIL per figure, INFO lines with the raw numbers, and
# "N passed, N failed"; exit status 1 if anything failed.
# Set KEEP=DIR to keep each scenario's expected JSON, truth JSON and raw trace.
set -u
E2E_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/xfsloop.sh
source "$E2E_DIR/../lib/xfsloop.sh"
# shellcheck source=e2e_lib.sh
source "$E2E_DIR/e2e_lib.sh"

make -s -C "$E2E_DIR" workload || exit 1
"$WORKLOAD" selftest >/dev/null || { echo "FAIL workload selftest"; exit 1; }

work=$(mktemp -d /tmp/e2e_truth.XXXXXX)
keep=${KEEP:-}
trap 'xfsloop_cleanup_all; rm -rf "$work"' EXIT

# Figures the kernel's tracepoints can confirm.
TRUTH_FIELDS=(folios folio_bytes submitted_blocks submitted_bytes max_folio_bytes)

run_one() {
	local name=$1 bs mnt view truth ino
	bs=$(scenario_bs "$name") || { e2e_fail "$name" "unknown scenario"; return; }
	mnt=$(xfsloop_make "$bs" 512) || { e2e_fail "$name" "no fixture"; return; }
	if ! scenario_prep "$name" "$mnt" >"$work/prep.json"; then
		e2e_fail "$name" "prep failed"; xfsloop_cleanup "$mnt"; return
	fi
	scenario_argv "$name" "$mnt"
	if ! timeout -s KILL 120 "$E2E_DIR/tracefs_truth.sh" -B -o "$work/exp.json" \
		-r "$work/raw.txt" "$mnt" -- "${SCENARIO_ARGV[@]}" >"$work/truth.json"; then
		e2e_fail "$name" "workload or tracing failed"; xfsloop_cleanup "$mnt"; return
	fi
	view=$(e2e_expect_view "$work/exp.json")
	truth=$(<"$work/truth.json")
	echo "INFO $name: kernel $(jq -c '{folios, submitted_blocks, submitted_bytes, max_folio_bytes, folio_sizes, ranges, hole_ranges}' <<<"$truth")"
	echo "INFO $name: expected $(jq -c '.totals | {folios, submitted_blocks, submitted_bytes, max_folio_bytes, dirty_blocks, whole_folio_dirty_events}' <<<"$view")"
	e2e_note_layout "$name" "$view"
	e2e_compare "$name" "$(jq -c .totals <<<"$view")" "$truth" "${TRUTH_FIELDS[@]}"
	e2e_check "$name.per_folio.submitted_blocks" \
		"$(jq -cS '.totals.per_folio.submitted_blocks' <<<"$view")" \
		"$(jq -cS '.per_folio.submitted_blocks' <<<"$truth")"
	# what reached the device inside the files' extents (block_rq_issue)
	e2e_check "$name.device_bytes" "$(jq -c '.totals.submitted_bytes' <<<"$view")" \
		"$(jq -c .device_bytes <<<"$truth")"
	e2e_check "$name.hole_bytes" 0 "$(jq -c .hole_bytes <<<"$truth")"
	if [[ $name == unwritten_* ]]; then	# each range went to the unwritten extent
		e2e_check "$name.unwritten_ranges" "$(jq -c .ranges <<<"$truth")" \
			"$(jq -c .unwritten_ranges <<<"$truth")"
	fi
	e2e_check "$name.per_folio.folio_bytes" \
		"$(jq -cS '.totals.per_folio.folio_bytes' <<<"$view")" \
		"$(jq -cS '.per_folio.folio_bytes' <<<"$truth")"
	e2e_check_constraints "$name" "$view" "$(jq .folios <<<"$truth")" \
		"$(jq .max_folio_bytes <<<"$truth")"
	if [[ $(jq '.files | length' <<<"$view") -gt 1 ]]; then
		for ino in $(jq -r '.files | keys[]' <<<"$view"); do
			e2e_compare "$name.ino$ino" "$(jq -c --arg i "$ino" '.files[$i]' <<<"$view")" \
				"$(jq -c --arg i "$ino" '.files[$i] // {}' <<<"$truth")" "${TRUTH_FIELDS[@]}"
		done
	fi
	if [[ -n $keep ]]; then
		mkdir -p "$keep"
		cp "$work/exp.json" "$keep/$name.expected.json"
		cp "$work/truth.json" "$keep/$name.truth.json"
		cp "$work/raw.txt" "$keep/$name.trace.txt"
		cp "$work/prep.json" "$keep/$name.prep.json"
	fi
	xfsloop_cleanup "$mnt"
}

scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=("${E2E_SCENARIOS[@]}")
for s in "${scenarios[@]}"; do
	run_one "$s"
done
e2e_summary
