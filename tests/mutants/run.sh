#!/usr/bin/env bash
# make mutants: small deliberate faults put into a scratch copy of the tree,
# one at a time; each must make the suites named in its file fail.
#
# usage: tests/mutants/run.sh [--check] [MUTANT...]
#        (root; default: every *.mutant; --check only applies and builds
#        each one, no suites: needs no test lock, tells whether the code
#        moved under a mutant)
#
# A mutant file (tests/mutants/NAME.mutant) is:
#   # what the fault is, why the suites must see it
#   run: COMMAND...        the suites to run (from the scratch tree's top;
#                          several run: lines allowed; $MNT_HINT unused)
#   edit: FILE|FOLDER      where to change, then one or more pairs
#   from: EXACT LINE       a line that must occur exactly once in FILE (or
#                          in all of FOLDER: robust to code moving between
#                          files, not to the line itself changing)
#   to: NEW LINE           what it becomes (\n for several lines)
#
# The real tree is never touched: its files are copied to a scratch
# directory under /tmp and built; for each mutant its suites run on that
# unchanged copy first (they must pass), then on a copy with the mutant. A mutant whose line is not
# found exactly once (the code moved) is an ERROR, not a catch; so is one
# that does not build. Prints "N of M mutants caught"; exit status 0 only
# when every mutant was caught and none was in error.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/mutants
scratch=$(mktemp -d /tmp/iomapdirty-mutants.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
log=$scratch/log

check_only=0
if [[ ${1:-} == --check ]]; then
	check_only=1
	shift
fi
mutants=("$@")
if [[ ${#mutants[@]} -eq 0 ]]; then
	mutants=()
	for m in "$here"/*.mutant; do mutants+=("$(basename "$m" .mutant)"); done
fi

# copy_tree DIR: the real tree's files (tracked and new, not ignored), as on disk
copy_tree() {
	mkdir -p "$1"
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - -cf -) | tar -xf - -C "$1"
}

# apply MUTANT DIR: edits DIR; prints why and returns 1 if a line is not
# there exactly once
apply() {
	local file=$here/$1.mutant dir=$2 key val target='' from='' n
	cp -a "$dir" "$dir.orig"
	while IFS= read -r line; do
		key=${line%%:*}
		val=${line#*: }
		case $key in
		edit) target=$dir/$val
			[[ -e $target ]] || { echo "no file or folder $val"; return 1; } ;;
		from) from=$val ;;
		to)
			[[ -n $target && -n $from ]] || { echo "to: without edit:/from:"; return 1; }
			n=$(grep -rcxF -- "$from" "$target" | awk -F: '{ s += $NF } END { print s + 0 }')
			if [[ $n != 1 ]]; then
				echo "line found $n times in ${target#$dir/}: $from"
				return 1
			fi
			[[ -d $target ]] && target=$(grep -rlxF -- "$from" "$target")
			FROM=$from TO=$val perl -0pi -e '
				my ($f, $t) = ($ENV{FROM}, $ENV{TO});
				$t =~ s/\\n/\n/g;
				s/^\Q$f\E$/$t/m' "$target" || return 1
			from= ;;
		esac
	done < <(grep -E '^(edit|from|to):' "$file")
	[[ -z $from ]] || { echo "from: without to:"; return 1; }
	if diff -rq "$dir.orig" "$dir" >/dev/null; then
		echo "the edit changed nothing"
		return 1
	fi
	rm -rf "$dir.orig"
}

# run_suites MUTANT DIR: 0 if every run: line passed
run_suites() {
	local cmd rc=0
	while IFS= read -r cmd; do
		(cd "$2" && eval "$cmd") >>"$log.$1" 2>&1 || rc=1
	done < <(sed -n 's/^run: //p' "$here/$1.mutant")
	return $rc
}

build() { make -s -C "$1" all e2e-bins >>"$2" 2>&1; }

base=$scratch/base
copy_tree "$base"
if ! build "$base" "$log.base"; then
	tail -20 "$log.base"
	echo "ERROR baseline does not build"
	exit 1
fi
if ((check_only)); then
	bad=0
	for m in "${mutants[@]}"; do
		d=$scratch/$m
		cp -a "$base" "$d"
		if ! why=$(apply "$m" "$d"); then
			echo "ERROR $m: does not apply: $why"; bad=1
		elif ! build "$d" "$log.$m"; then
			echo "ERROR $m: does not build: $(grep -m1 -i error "$log.$m")"; bad=1
		else
			echo "OK $m: applies and builds"
		fi
		rm -rf "$d"
	done
	exit $bad
fi
caught=0 errors=0
for m in "${mutants[@]}"; do
	d=$scratch/$m
	t0=$SECONDS
	# the same suites on the unchanged copy first: they must pass, or a
	# failure under the mutant would prove nothing
	if [[ ! -f $here/$m.mutant ]]; then
		echo "ERROR $m: no such mutant"
		errors=$((errors + 1))
		continue
	fi
	runs=$(sed -n 's/^run: //p' "$here/$m.mutant" | md5sum | cut -c1-12)
	if [[ ! -e $scratch/base-ok.$runs ]]; then
		if ! run_suites "$m" "$base"; then
			echo "ERROR $m: its suites fail without the mutant: $(grep -m1 '^FAIL' "$log.$m" | cut -c1-200)"
			errors=$((errors + 1))
			rm -f "$log.$m"
			continue
		fi
		touch "$scratch/base-ok.$runs"	# the same suites pass once is enough
	fi
	rm -f "$log.$m"
	rm -rf "$d"
	cp -a "$base" "$d"
	if ! why=$(apply "$m" "$d"); then
		echo "ERROR $m: does not apply: $why"
		errors=$((errors + 1))
	elif ! build "$d" "$log.$m"; then
		echo "ERROR $m: does not build: $(grep -m1 -i error "$log.$m")"
		errors=$((errors + 1))
	elif run_suites "$m" "$d"; then
		echo "SURVIVED $m: $(sed -n 's/^# //p' "$here/$m.mutant" | head -1) ($((SECONDS - t0)) s)"
	elif ! grep -q '^FAIL' "$log.$m"; then
		echo "ERROR $m: the suites failed without a FAIL line: $(tail -1 "$log.$m")"
		errors=$((errors + 1))
	else
		caught=$((caught + 1))
		echo "CAUGHT $m ($((SECONDS - t0)) s): $(grep -m1 '^FAIL' "$log.$m" | cut -c1-160)"
	fi
	rm -rf "$d"
done
echo "$caught of ${#mutants[@]} mutants caught ($errors in error)"
((caught == ${#mutants[@]}))
