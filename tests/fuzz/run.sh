#!/usr/bin/env bash
# Runs each libFuzzer harness for SECONDS on its corpus (tests/fuzz/corpus/
# NAME, new inputs kept in a scratch copy so the tree stays as committed).
# PASS when it ran that long with no crash, leak or sanitizer report.
#   tests/fuzz/run.sh SECONDS .output-fuzz/fuzz_*
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=$1
shift
status=0
for f in "$@"; do
	name=$(basename "$f")
	corpus=$here/corpus/${name#fuzz_}
	scratch=$(mktemp -d /tmp/iomapdirty-fuzz.XXXXXX)
	cp -r "$corpus/." "$scratch/" 2>/dev/null
	out=$("$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$scratch/" "$scratch" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "PASS fuzz $name: $(grep -o '#[0-9]*.*DONE.*' <<<"$out" | tail -1)"
	else
		echo "FAIL fuzz $name: exit $rc"
		grep -E 'ERROR|SUMMARY|Test unit written' <<<"$out" | head -5
		ls "$scratch"/crash-* "$scratch"/leak-* 2>/dev/null | head -3 | while read -r a; do
			mkdir -p /tmp/iomapdirty-fuzz-artifacts && cp "$a" /tmp/iomapdirty-fuzz-artifacts/
			echo "  input kept: /tmp/iomapdirty-fuzz-artifacts/$(basename "$a")"
		done
		status=1
	fi
	rm -rf "$scratch"
done
exit $status
