# shellcheck shell=bash
# shellcheck disable=SC2034 # HOST_*: for the sourcing scripts
# host_profile.sh - what this host must serve, written down, not discovered.
#
# The test suites run on the development and CI host described in the
# brief ("This machine": Linux 6.18 with BTF, tp_btf and raw tracepoints
# allowed, fentry/fexit refused by host policy with EPERM, kprobes not
# compiled in). Its profile:
#
#   HOST_REQUIRED_MODES   attach modes e2e must run; a refusal is a FAIL
#   HOST_ABSENT_MODES     modes this host cannot serve; each is SKIPped only
#                         when the kernel itself confirms it (mode_absent),
#                         and is required otherwise
#
# Another host (a laptop with kprobes, a guest) sets IOMAPDIRTY_HOST_PROFILE
# to a file of its own with the same two variables.
HOST_PROFILE_NAME="6.18 CI host (brief: This machine)"
HOST_REQUIRED_MODES="tracepoint raw_tp"
HOST_ABSENT_MODES="fentry kprobe"
if [[ -n ${IOMAPDIRTY_HOST_PROFILE:-} ]]; then
	# shellcheck disable=SC1090
	source "$IOMAPDIRTY_HOST_PROFILE" || return 1
fi

# mode_absent MODE TRIAL_DIR: prints why MODE cannot work here, asked of the
# kernel (never of iomapdirty); status 0 if the kernel confirms it is absent.
# TRIAL_DIR holds mode_trial and mode_trial.bpf.o (tests/lib, built by
# `make -C tests/e2e`).
mode_absent() {
	local mode=$1 dir=$2 out
	case $mode in
	kprobe)
		# CONFIG_KPROBES: register_kprobe in the symbol table, and the
		# kprobe_events file of tracefs.
		if grep -qw register_kprobe /proc/kallsyms ||
			[[ -e /sys/kernel/tracing/kprobe_events ||
			   -e /sys/kernel/debug/tracing/kprobe_events ]]; then
			return 1
		fi
		echo "kprobes not compiled in (no register_kprobe in /proc/kallsyms, no kprobe_events)"
		;;
	fentry)
		[[ -x $dir/mode_trial && -f $dir/mode_trial.bpf.o ]] || return 1
		out=$("$dir/mode_trial" "$dir/mode_trial.bpf.o" 2>&1)
		case $? in
		0) return 1 ;;
		1) echo "host policy: a trial fentry program was refused: $out" ;;
		*) return 1 ;;
		esac
		;;
	*) return 1 ;;
	esac
}
