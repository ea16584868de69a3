#!/usr/bin/env bash
# Runs every CLI test script in this folder (all *.sh but lib.sh and
# itself), passing their PASS/FAIL lines through; exits non-zero if any
# script failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
for t in "$here"/*.sh; do
	case $(basename "$t") in
	run_cli.sh|lib.sh) continue ;;
	esac
	echo "### $(basename "$t")"
	bash "$t" || status=1
done
exit $status
