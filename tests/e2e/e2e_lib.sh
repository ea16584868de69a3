# shellcheck shell=bash
# shellcheck disable=SC2034 # E2E_SCENARIOS, SCENARIO_ARGV: for the sourcing scripts
# e2e_lib.sh - scenario table and comparison helpers shared by run_e2e.sh
# (the tool against the workload's expectations) and validate_truth.sh (the
# kernel's own tracepoints against the same expectations).  Source it after
# setting WORKLOAD (path of the built workload program).

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${WORKLOAD:=$E2E_DIR/workload}"

# Scenarios: NAME -> block size, preparation, workload arguments.
# prep uses page-sized chunks (order-0 folios) unless it says --chunk 1M.
E2E_SCENARIOS=(
	scatter51_1k scatter51_4k dense_1k span_1k span_4k
	mmap_1k mmap_4k mmap_large_1k eof_1k eof_4k eof_setup_1k
	large_4k large_setup_4k twofiles_1k truncate_1k mmap_eof_1k threads_1k preattach_1k unwritten_1k
	shortcopy_1k
)

scenario_bs() {
	case $1 in
	*_1k) echo 1024 ;;
	*_4k) echo 4096 ;;
	*) return 1 ;;
	esac
}

# scenario_prep NAME MNT: lay out the files (before the tool starts).
scenario_prep() {
	local name=$1 mnt=$2

	case $name in
	mmap_eof_*) "$WORKLOAD" prep "$mnt/f" 5000 ;;
	scatter51_* | dense_* | span_* | mmap_1k | mmap_4k)
		"$WORKLOAD" prep "$mnt/f" 4M ;;
	truncate_*) "$WORKLOAD" prep "$mnt/f" 16K ;;
	shortcopy_*) "$WORKLOAD" prep "$mnt/f" 64K ;;
	unwritten_*) # preallocated, never written: one unwritten extent
		xfs_io -f -c "falloc 0 1m" "$mnt/f" &&
		xfs_io -r -c "fiemap -v" "$mnt/f" | awk '$1 == "0:" && $NF ~ /^0x8..$/ { ok = 1 } END { exit !ok }' ||
		{ echo "unwritten_prep: no unwritten extent: $(xfs_io -r -c 'fiemap -v' "$mnt/f")" >&2; return 1; } ;;
	preattach_*) # dirty before the tool attaches, synced after
		"$WORKLOAD" prep "$mnt/f" 4M &&
		"$WORKLOAD" scatter "$mnt/f" --count 40 --len 700 --stride 24000 --no-fsync ;;
	mmap_large_*) "$WORKLOAD" prep "$mnt/f" 4M --chunk 1M ;;
	eof_setup_* | large_setup_*) : ;;
	eof_*) "$WORKLOAD" prep "$mnt/f" 5000 ;;
	large_*) "$WORKLOAD" prep "$mnt/f" 16M --chunk 1M ;;
	twofiles_*)
		"$WORKLOAD" prep "$mnt/a" 1M && "$WORKLOAD" prep "$mnt/b" 1M ;;
	threads_*)
		local f
		for f in t1 t2 t3 t4; do "$WORKLOAD" prep "$mnt/$f" 1M || return 1; done ;;
	*) return 1 ;;
	esac
}

# scenario_argv NAME MNT: fills the array SCENARIO_ARGV (workload command).
scenario_argv() {
	local name=$1 mnt=$2 w=$WORKLOAD

	case $name in
	mmap_eof_*) SCENARIO_ARGV=("$w" mmap_eof "$mnt/f") ;;
	scatter51_*)
		SCENARIO_ARGV=("$w" scatter "$mnt/f" --count 51 --len 100 --stride 20000) ;;
	dense_*) # overlapping writes: the union, not the sum, is dirtied
		SCENARIO_ARGV=("$w" scatter "$mnt/f" --count 200 --len 700 --stride 500 --start 1000) ;;
	span_*) SCENARIO_ARGV=("$w" span "$mnt/f") ;;
	truncate_*) SCENARIO_ARGV=("$w" truncate "$mnt/f") ;;
	shortcopy_*) # a write(2) whose copy faults half way: what was copied
		SCENARIO_ARGV=("$w" shortcopy "$mnt/f") ;;
	unwritten_*) # writes into the preallocated (unwritten) extent
		SCENARIO_ARGV=("$w" scatter "$mnt/f" --count 30 --len 300 --stride 33000) ;;
	preattach_*)
		SCENARIO_ARGV=("$w" scatter "$mnt/f" --count 40 --len 700 --stride 24000 --unseen) ;;
	mmap_*) SCENARIO_ARGV=("$w" mmap "$mnt/f" --pages 8) ;;
	eof_setup_*) SCENARIO_ARGV=("$w" eof "$mnt/f") ;;
	eof_*) SCENARIO_ARGV=("$w" eof "$mnt/f" --no-setup) ;;
	large_setup_*) SCENARIO_ARGV=("$w" large "$mnt/f") ;;
	large_*) SCENARIO_ARGV=("$w" large "$mnt/f" --no-setup) ;;
	twofiles_*) SCENARIO_ARGV=("$w" twofiles "$mnt/a" "$mnt/b") ;;
	threads_*) # 4 writers on 4 files at once, 2 threads fsyncing meanwhile
		SCENARIO_ARGV=("$w" threads --threads 4 "$mnt/t1" "$mnt/t2" "$mnt/t3" "$mnt/t4") ;;
	*) return 1 ;;
	esac
}

# The workload's expectations in one shape: {"totals":{..},"files":{"INO":{..}},
# "constraints":{..}}.  Uses the measured-layout figures when the probe worked
# (exact also with large folios), the offset arithmetic otherwise.
E2E_EXPECT_JQ='
def fields: {app_bytes, write_calls, write_syscalls, syscall_bytes, app_dirty_blocks, app_dirty_bytes,
	other_dirty_blocks, dirty_blocks, dirty_bytes, whole_folio_dirty_events,
	other_dirty_folios,
	folios, folio_bytes, max_folio_bytes, submitted_blocks, submitted_bytes,
	block_rounding, folio_amplification, per_folio};
def pick: if .layout.probe? == "kpageflags" and .layout.expect != null
	then .layout.expect | fields else fields end;
def calc: fields;
if has("files") then
	{totals: (.totals | pick), files: (.files | map_values(pick)),
	 calc: {totals: (.totals | calc), files: (.files | map_values(calc))}}
else
	{totals: pick, files: {(.ino | tostring): pick},
	 calc: {totals: calc, files: {(.ino | tostring): calc}}}
end
+ {constraints: {max_folios: (.max_folios // null),
	expect_large_folios: (.expect_large_folios // false),
	page_size: (.page_size // [.files[]?.page_size][0])}}'

e2e_expect_view() { jq -c "$E2E_EXPECT_JQ" "$1"; }

E2E_PASS=0
E2E_FAIL=0

e2e_pass() { echo "PASS $1"; E2E_PASS=$((E2E_PASS + 1)); }
e2e_fail() { echo "FAIL $1: $2"; E2E_FAIL=$((E2E_FAIL + 1)); }

# e2e_check NAME EXPECTED GOT: numbers (or null) compared as JSON values.
e2e_check() {
	if [[ $2 == "$3" ]]; then
		e2e_pass "$1"
	else
		e2e_fail "$1" "expected $2 got $3"
	fi
}

# e2e_compare PREFIX WANT GOT FIELD...: WANT and GOT are JSON objects.
# An expectation that is null or missing is a FAIL, not a skip: every
# figure compared here has one on this host (the folio layout probe works;
# where it does not, the expectations are incomplete and the run says so).
e2e_compare() {
	local prefix=$1 want_obj=$2 got_obj=$3 f want have
	shift 3
	for f; do
		want=$(jq -c --arg f "$f" '.[$f]' <<<"$want_obj")
		if [[ $want == null ]]; then
			e2e_fail "$prefix.$f" "no expectation for $f (folio layout unknown?)"
			continue
		fi
		have=$(jq -c --arg f "$f" '.[$f]' <<<"$got_obj")
		e2e_check "$prefix.$f" "$want" "$have"
	done
}

# Checks that hold whatever the folio sizes: bounds and large-folio presence.
e2e_check_constraints() {
	local prefix=$1 view=$2 folios=$3 max_folio=$4 maxf large psz

	maxf=$(jq '.constraints.max_folios' <<<"$view")
	large=$(jq '.constraints.expect_large_folios' <<<"$view")
	psz=$(jq '.constraints.page_size' <<<"$view")
	if [[ $maxf != null ]]; then
		if [[ $folios =~ ^[0-9]+$ ]] && ((folios >= 1 && folios <= maxf)); then
			e2e_pass "$prefix.folios_in_1..$maxf"
		else
			e2e_fail "$prefix.folios_in_1..$maxf" "expected 1..$maxf got $folios"
		fi
	fi
	if [[ $large == true ]]; then
		if [[ $max_folio =~ ^[0-9]+$ ]] && ((max_folio > psz)); then
			e2e_pass "$prefix.large_folios_seen"
		else
			e2e_fail "$prefix.large_folios_seen" "expected max_folio_bytes > $psz got $max_folio"
		fi
	fi
}

# Informational: where the offset arithmetic (order-0 assumption) and the
# measured layout differ.  Not a failure: it describes the fixture.
e2e_note_layout() {
	local name=$1 view=$2 d

	d=$(jq -c '[.calc.totals as $c | .totals | to_entries[]
		| select(.key != "per_folio" and $c[.key] != null and $c[.key] != .value)
		| "\(.key): offsets say \($c[.key]), layout says \(.value)"]' <<<"$view")
	[[ $d != "[]" ]] && echo "INFO $name: large folios: $d"
	return 0
}

e2e_summary() {
	echo "$E2E_PASS passed, $E2E_FAIL failed"
	[[ $E2E_FAIL == 0 ]]
}
