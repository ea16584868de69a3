#!/usr/bin/env bash
# Runs unit-test binaries; each prints PASS/FAIL lines (unit.h).
# A binary that crashes or fails without a FAIL line counts as a failure.
set -u
status=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' <<<"$out"; then
		echo "FAIL $(basename "$t"): exited $rc without a FAIL line"
	fi
	[ $rc -ne 0 ] && status=1
done
exit $status
