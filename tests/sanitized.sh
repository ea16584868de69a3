#!/usr/bin/env bash
# Runs the unit tests or the CLI suite with the AddressSanitizer/UBSan
# build (make asan: .output-asan/, ./iomapdirty-asan). Any sanitizer
# report (memory error, leak, undefined behaviour), in any process the
# suite started, is a FAIL line of its own, whatever the suite said.
#   tests/sanitized.sh unit | cli
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
reports=$(mktemp -d /tmp/iomapdirty-asan.XXXXXX)
trap 'rm -rf "$reports"' EXIT
export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="log_path=$reports/ubsan:print_stacktrace=1:halt_on_error=1"
case ${1:-} in
unit) tests/unit/run.sh .output-asan/tests/test_* ;;
cli) IOMAPDIRTY=$top/iomapdirty-asan tests/cli/run_cli.sh ;;
*) echo "usage: $0 unit|cli" >&2; exit 2 ;;
esac
status=$?
n=0
for r in "$reports"/*; do
	[ -e "$r" ] || continue
	n=$((n + 1))
	echo "FAIL sanitizer report $(basename "$r"): $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$r")"
	sed -n '1,30p' "$r" | sed 's/^/    /'
done
[ $n -eq 0 ] && echo "PASS sanitizer: no report from the $1 suite"
[ $n -eq 0 ] && exit $status
exit 1
