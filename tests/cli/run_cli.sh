#!/usr/bin/env bash
# Runs every CLI test script in this folder (all *.sh but lib.sh and
# itself), passing their PASS/FAIL lines through; exits non-zero if any
# script failed. Each script's wall time is an INFO line, and the five
# slowest close the run (the CI budget: tests/vm/README.md, "Cost").
set -u
here=$(cd "$(dirname "$0")" && pwd)
status=0
times=()
for t in "$here"/*.sh; do
	case $(basename "$t") in
	run_cli.sh|lib.sh) continue ;;
	esac
	echo "### $(basename "$t")"
	t0=$SECONDS
	bash "$t" || status=1
	times+=("$((SECONDS - t0)) $(basename "$t")")
	echo "INFO cli time $(basename "$t") $((SECONDS - t0)) s"
done
echo "INFO cli slowest: $(printf '%s\n' "${times[@]}" | sort -rn | head -5 |
	awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1 }')"
exit $status
