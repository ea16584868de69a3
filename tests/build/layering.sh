#!/usr/bin/env bash
# The folders of user/ and what each may include (docs/design.md, "Where
# the code is"), checked on what the compiler reads, not on include lines:
# each file's whole header closure (gcc -M, transitive, system headers too).
#
#   lib/     small libraries             only lib/
#   model/   what a reading is           lib/, model/
#   host/    mounts, devices, cgroups    lib/, model/, host/
#   output/  text, JSON, top, exposition never the engine, the session,
#   runs/    run files read back           the sampler, the BPF skeleton
#                                          or a libbpf header: renderers
#                                          get file paths through a
#                                          struct file_lookup; and never
#                                          host/: mount points, types and
#                                          cgroup paths come through a
#                                          struct host_lookup
#   live/, exporter/, cmd/               anything
#
# The engine is opaque: its insides (live/engine_priv.h, struct engine)
# are reached only by its own files, live/engine*.c; every other file,
# commands included, asks through live/engine.h's functions.
#
# Every .c and .h of user/ is in a folder this script knows (a new folder
# needs its rule here), and each check is shown to see a violation. And
# the kernel symbols the tool attaches to are written once, in the hook
# target table (live/programs.c), never in plan.c or facts.c.
# PASS/FAIL lines, one per file and rule; no root needed.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
CC=${CC:-cc}
pass=0 fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# the folders below user/ and the folders each may reach (empty: any)
declare -A ALLOWED=(
	[lib]="lib" [model]="lib model" [host]="lib model host"
	[output]="" [runs]="" [live]="" [exporter]="" [cmd]="" [static]=""
)
# what a renderer must never reach, as paths the compiler names
RENDERER_BANNED='user/live/engine\.h|user/live/session\.h|user/live/sampler\.h|iomapdirty\.skel\.h|/bpf/(libbpf|bpf)\.h'
# what a renderer must not reach either: the host (mount table, cgroup tree)
HOST_HEADER='(^|/)user/host/[^ ]*\.h'

# the engine's insides, and the files that may reach them
ENGINE_PRIVATE='user/live/engine_priv\.h'
engine_own() { [[ $1 == user/live/engine*.c || $1 == user/live/engine_priv.h ]]; }
# true when a file outside the engine reaches its insides
reaches_engine_private() {	# file deps
	! engine_own "$1" && grep -qE "$ENGINE_PRIVATE" <<<"$2"
}

# every header closure, once: "file: dep dep ..." (make syntax, joined)
closure() {	# file
	"$CC" -M -I.output -Iinclude -Iuser "$1" 2>/dev/null |
		tr -d '\\\n' | sed 's/^[^:]*://'
}

# check_banned FILE DEPS PATTERN OK_TEXT WHY: PASS if no header of DEPS matches
check_banned() {
	local banned
	banned=$(tr ' ' '\n' <<<"$2" | grep -E "$3" | sort -u | tr '\n' ' ')
	if [ -n "$banned" ]; then
		bad "layering.$1: reaches $banned($5)"
	else
		ok "layering.$1: $4"
	fi
}

for f in user/*/*.c user/*/*.h; do
	dir=${f#user/}
	dir=${dir%%/*}
	if [[ -z ${ALLOWED[$dir]+x} ]]; then
		bad "layering.$f: folder user/$dir has no rule in tests/build/layering.sh"
		continue
	fi
	deps=$(closure "$f")
	if [ -z "$deps" ]; then
		bad "layering.$f: the compiler listed no headers (gcc -M failed: a header missing?)"
		continue
	fi
	# folders of user/ the file reaches
	reached=$(tr ' ' '\n' <<<"$deps" | sed -n 's|^\(\./\)\{0,1\}user/\([a-z]*\)/.*|\2|p' | sort -u)
	allowed=${ALLOWED[$dir]}
	if [ -n "$allowed" ]; then
		wrong=
		for r in $reached; do
			[[ " $allowed " == *" $r "* ]] || wrong+=" user/$r/"
		done
		if [ -n "$wrong" ]; then
			bad "layering.$f: user/$dir/ may reach only ${allowed// /, }; reaches$wrong"
		else
			ok "layering.$f: reaches only ${allowed// /, }"
		fi
	fi
	case $dir in
	output | runs | model | host | lib)
		check_banned "$f" "$deps" "$RENDERER_BANNED" \
			"no engine, session, sampler, skeleton or libbpf header" \
			"renderers never touch the engine or BPF"
		;;
	esac
	case $dir in
	output | runs)
		check_banned "$f" "$deps" "$HOST_HEADER" "no host/ header" \
			"renderers ask the caller's struct host_lookup"
		;;
	esac
	if engine_own "$f"; then
		:
	elif reaches_engine_private "$f" "$deps"; then
		bad "layering.$f: reaches live/engine_priv.h (the engine's insides: ask through live/engine.h)"
	else
		ok "layering.$f: not the engine's insides (live/engine_priv.h)"
	fi
done

# One table of hook targets (live/programs.c, hook_targets[]): the planner
# takes every kernel symbol from it, so none is written in plan.c as a
# string of its own.
# (the writeback functions' rows come from include/wb_funcs.h's X-macro)
symbols=$({ sed -n 's/^\t{ HOOK_[A-Z_]*, TARGET_[A-Z]*, "\([a-z_0-9]*\)".*/\1/p' user/live/programs.c
	sed -n 's/^\tX(\([a-z_0-9]*\), .*/\1/p' include/wb_funcs.h; } | sort -u)
if [ "$(wc -w <<<"$symbols")" -lt 10 ]; then
	bad "targets.table_read: $(wc -w <<<"$symbols") symbols read from hook_targets[] (its shape changed?)"
else
	ok "targets.table_read: $(wc -w <<<"$symbols") kernel symbols in hook_targets[]"
fi
for sym in $symbols; do
	if grep -n "\"$sym\"" user/live/plan.c user/live/facts.c >/dev/null; then
		bad "targets.$sym: written as a string in $(grep -ln "\"$sym\"" user/live/plan.c user/live/facts.c | tr '\n' ' ')(take it from hook_targets[])"
	else
		ok "targets.$sym: only in hook_targets[], not in plan.c or facts.c"
	fi
done

# the check itself: a file of output/ that includes the engine must be seen
probe=$(mktemp -d /tmp/iomapdirty-layering.XXXXXX)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/user/output"
printf '#include "live/engine.h"\n' >"$probe/user/output/probe.c"
if (cd "$probe" && "$CC" -M -I"$top/.output" -I"$top/include" -I"$top/user" \
	user/output/probe.c 2>/dev/null) | tr -d '\\\n' | grep -qE "$RENDERER_BANNED"; then
	ok "layering.self_check: an output file that includes live/engine.h is seen"
else
	bad "layering.self_check: an output file that includes live/engine.h is not seen"
fi
# and one that includes a host/ header
printf '#include "host/fsinfo.h"\n' >"$probe/user/output/probe_host.c"
if (cd "$probe" && "$CC" -M -I"$top/.output" -I"$top/include" -I"$top/user" \
	user/output/probe_host.c 2>/dev/null) | tr -d '\\\n' | tr ' ' '\n' |
	grep -qE "$HOST_HEADER"; then
	ok "layering.self_check_host: an output file that includes host/fsinfo.h is seen"
else
	bad "layering.self_check_host: an output file that includes host/fsinfo.h is not seen"
fi
# the pattern matches the compiler's name for a host header in the real tree
if tr ' ' '\n' <<<"$(closure user/host/names.c)" | grep -qE "$HOST_HEADER"; then
	ok "layering.self_check_host_name: host/names.c's closure names its host/ headers"
else
	bad "layering.self_check_host_name: host/names.c's closure names no host/ header" \
		"(renamed? the rule sees nothing)"
fi
# and a command that includes the engine's insides; the pattern is shown
# to match the compiler's name for the header, on the engine's own file
mkdir -p "$probe/user/cmd"
printf '#include "live/engine_priv.h"\n' >"$probe/user/cmd/probe.c"
deps=$(cd "$probe" && "$CC" -M -I"$top/.output" -I"$top/include" -I"$top/user" \
	user/cmd/probe.c 2>/dev/null | tr -d '\\\n')
if reaches_engine_private user/cmd/probe.c "$deps"; then
	ok "layering.self_check_private: a command that includes live/engine_priv.h is seen"
else
	bad "layering.self_check_private: a command that includes live/engine_priv.h is not seen"
fi
if grep -qE "$ENGINE_PRIVATE" <<<"$(closure user/live/engine_read.c)"; then
	ok "layering.self_check_private_name: live/engine_read.c's closure names live/engine_priv.h"
else
	bad "layering.self_check_private_name: live/engine_read.c's closure does not" \
		"name live/engine_priv.h (renamed? the rule sees nothing)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
