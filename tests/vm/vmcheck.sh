#!/usr/bin/env bash
# iomapdirty kernel lab: build Debian's linux-source-6.1 twice (unpatched and
# with the RFCv4 iomap sub-folio dirty-tracking series), boot each under
# qemu with a busybox initramfs holding two loop-mounted XFS filesystems,
# run /payload/run.sh (VM_PAYLOAD_DIR) or the built-in smoke suite, and
# count the guests' `VMTEST PASS|FAIL` lines.  See tests/vm/README.md.
#
# Environment:
#   VM_KERNELS            variants to build and boot (default "unpatched rfcv4")
#   VM_PAYLOAD_DIR        directory copied to /payload in the guest
#   VM_PAYLOAD_EXTRA      files (paths, or commands on PATH) copied into
#                         /payload/bin, a ".static" suffix dropped; dynamic
#                         executables get their libraries
#   VM_RESULTS_MD         also write the payload's results table there
#                         (tests/vm/lab-results.sh; after a run with no failure)
#   VM_SMOKE              auto (smoke suite unless /payload/run.sh), always, never
#   SEEDS_DIR             seed patches (default: <repo>/../shared/seeds)
#   IOMAPDIRTY_LAB_CACHE  kernel cache (default /var/cache/iomapdirty-lab)
#   VM_OUT_DIR            console logs and initramfs (default $cache/out)
#   VM_TIMEOUT            seconds per guest boot (default 600)
#   VM_MEM                guest memory in MiB (default 1536)
#   VM_JOBS               make -j (default: nproc)
#   VM_KEEP_SRC           1 keeps the kernel source tree after a build (default 1)
#   VM_ACCEL              tcg (default) or kvm; a /dev/kvm that exists does not
#                         always work (it hangs in nested sandboxes), so opt in
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || (cd "$HERE/../.." && pwd))
SEEDS_DIR=${SEEDS_DIR:-$REPO/../shared/seeds}
CACHE=${IOMAPDIRTY_LAB_CACHE:-/var/cache/iomapdirty-lab}
OUT=${VM_OUT_DIR:-$CACHE/out}
VM_KERNELS=${VM_KERNELS:-unpatched rfcv4}
VM_PAYLOAD_DIR=${VM_PAYLOAD_DIR:-}
VM_PAYLOAD_EXTRA=${VM_PAYLOAD_EXTRA:-}
VM_RESULTS_MD=${VM_RESULTS_MD:-}
VM_SMOKE=${VM_SMOKE:-auto}
VM_TIMEOUT=${VM_TIMEOUT:-600}
VM_MEM=${VM_MEM:-1536}
VM_JOBS=${VM_JOBS:-$(nproc)}
VM_KEEP_SRC=${VM_KEEP_SRC:-1}
VM_ACCEL=${VM_ACCEL:-tcg}

# Bump when the build recipe below changes in a way the cache key cannot see.
RECIPE=1
SRC_PKG=linux-source-6.1
SRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
SEED_PATCHES=(002-patch-iomap-allocate-iop-in-write-begin-early.patch
	003-patch-iomap-change-uptodate-variable-name-to-state.patch
	004-patch-iomap-support-subpage-size-dirty-tracking-to-improve-wri.patch)
FIXUP_003=$HERE/patches/003-fixup-6.1-adjust-read-range.patch
FRAGMENT=$HERE/kernel.config
GUEST_DIR=$HERE/guest
DEB_PKGS=(linux-source-6.1 build-essential bc bison flex libssl-dev libelf-dev
	dwarves xz-utils perl qemu-system-x86 busybox-static xfsprogs fio cpio
	gzip bpftool util-linux coreutils clang libbpf-dev)

log() { printf '[vmcheck] %s\n' "$*" >&2; }
die() {
	printf '[vmcheck] ERROR: %s\n' "$*" >&2
	exit 1
}
now() { date +%s; }

# ---------------------------------------------------------------- deps
install_deps() {
	local missing=() p
	for p in "${DEB_PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		log "Debian dependencies present"
		return
	fi
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}) and not root to install them"
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2 || die "apt-get update failed"
	apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die "apt-get install failed"
}

check_disk() {
	mkdir -p "$CACHE"
	local avail_kb
	avail_kb=$(df -Pk "$CACHE" | awk 'NR==2 {print $4}')
	log "free space in $CACHE: $((avail_kb / 1024)) MiB"
	[ "$avail_kb" -ge $((6 * 1024 * 1024)) ] ||
		die "need about 6 GiB free in $CACHE for a kernel build"
}

# ---------------------------------------------------------------- cache key
cache_key() {
	local p
	{
		echo "recipe=$RECIPE"
		echo "source=$SRC_PKG $(dpkg-query -W -f='${Version}' "$SRC_PKG")"
		for p in "${SEED_PATCHES[@]}"; do
			echo "seed $p $(sha256sum <"$SEEDS_DIR/$p" | cut -d' ' -f1)"
		done
		echo "fixup $(sha256sum <"$FIXUP_003" | cut -d' ' -f1)"
		echo "config $(sha256sum <"$FRAGMENT" | cut -d' ' -f1)"
	} | sha256sum | cut -c1-16
}

# ---------------------------------------------------------------- kernels
# Files the patches touch, saved before patching so that the tree can go
# back to unpatched without reverse-applying a series that had a reject.
patched_files() {
	local p
	for p in "${SEED_PATCHES[@]}"; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$SEEDS_DIR/$p"
	done | sort -u
}

prepare_tree() {
	if [ -f "$SRC/.vmcheck-extracted" ]; then
		return
	fi
	log "extracting $SRC_TARBALL"
	rm -rf "$KDIR/src"
	mkdir -p "$KDIR/src"
	tar -C "$KDIR/src" -xf "$SRC_TARBALL"
	[ -d "$SRC" ] || die "tarball did not give $SRC"
	mkdir -p "$KDIR/pristine"
	(cd "$SRC" && patched_files | while read -r f; do
		mkdir -p "$KDIR/pristine/$(dirname "$f")"
		cp "$f" "$KDIR/pristine/$f"
	done)
	echo unpatched >"$SRC/.vmcheck-state"
	touch "$SRC/.vmcheck-extracted"
}

configure_tree() {
	[ -f "$SRC/.vmcheck-configured" ] && return
	log "configuring: tinyconfig + $(basename "$FRAGMENT")"
	(
		cd "$SRC"
		make -s tinyconfig >/dev/null
		scripts/kconfig/merge_config.sh -m .config "$FRAGMENT" >/dev/null
		make -s olddefconfig >/dev/null 2>&1
	) || die "kernel configuration failed"
	local line bad=0
	while read -r line; do
		grep -qx "$line" "$SRC/.config" || {
			log "config: $line did not survive olddefconfig"
			bad=1
		}
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=' "$FRAGMENT")
	[ $bad -eq 0 ] || die "kernel config fragment not satisfied (see above)"
	touch "$SRC/.vmcheck-configured"
}

restore_pristine() {
	(cd "$KDIR/pristine" && find . -type f) | while read -r f; do
		cp "$KDIR/pristine/$f" "$SRC/$f"
	done
}

apply_rfcv4() {
	local p out rc rej=$KDIR/patch-003.rej
	restore_pristine
	cd "$SRC"
	log "applying ${SEED_PATCHES[0]}"
	patch -p1 --batch --no-backup-if-mismatch <"$SEEDS_DIR/${SEED_PATCHES[0]}" >&2 ||
		die "seed ${SEED_PATCHES[0]} does not apply"

	log "applying ${SEED_PATCHES[1]} (one known reject on 6.1.y)"
	rm -f "$rej"
	rc=0
	out=$(patch -p1 --batch --no-backup-if-mismatch -r "$rej" \
		<"$SEEDS_DIR/${SEED_PATCHES[1]}" 2>&1) || rc=$?
	printf '%s\n' "$out" >&2
	if [ $rc -eq 0 ]; then
		log "003 applied cleanly: the fix-up is not needed on this source"
	else
		# Accept exactly the one known reject: the first loop of
		# iomap_adjust_read_range(), nothing else.
		[ $rc -eq 1 ] || die "patch 003 failed (exit $rc)"
		if ! { [ "$(grep -c '^@@ ' "$rej")" -eq 1 ] &&
			grep -q '^-.*if (!test_bit(i, iop->uptodate))' "$rej" &&
			grep -q '^+.*if (!iop_test_uptodate(iop, i, nr_blocks))' "$rej" &&
			[ "$(grep -c '^[-+][^-+]' "$rej")" -eq 2 ]; }; then
			die "patch 003: unexpected rejects (see $rej)"
		fi
		log "applying our fix-up $(basename "$FIXUP_003")"
		patch -p1 --batch --fuzz=0 --no-backup-if-mismatch <"$FIXUP_003" >&2 ||
			die "fix-up $FIXUP_003 does not apply after 003"
	fi

	log "applying ${SEED_PATCHES[2]}"
	patch -p1 --batch --no-backup-if-mismatch <"$SEEDS_DIR/${SEED_PATCHES[2]}" >&2 ||
		die "seed ${SEED_PATCHES[2]} does not apply"

	! grep -q 'iop->uptodate' fs/iomap/buffered-io.c ||
		die "patched tree still uses iop->uptodate"
	grep -q 'iomap_dirty_folio' fs/iomap/buffered-io.c ||
		die "patched tree has no iomap_dirty_folio"
	find . -name '*.rej' -newer "$SRC/.vmcheck-extracted" | grep -q . &&
		die "stray .rej files in $SRC"
	cd - >/dev/null
}

set_tree_state() {	# unpatched|rfcv4
	[ "$(cat "$SRC/.vmcheck-state")" = "$1" ] && return
	case "$1" in
	unpatched) restore_pristine ;;
	rfcv4) apply_rfcv4 ;;
	esac
	echo "$1" >"$SRC/.vmcheck-state"
}

build_variant() {	# variant
	local v=$1 dest=$KDIR/$1 t0 t1 blog=$KDIR/logs/build-$1.log
	if [ -f "$dest/.done" ]; then
		log "kernel $v: cached in $dest (built in $(cat "$dest/build-seconds")s)"
		return
	fi
	prepare_tree
	configure_tree
	set_tree_state "$v"
	log "building kernel $v (make -j$VM_JOBS bzImage, log: $blog)"
	mkdir -p "$KDIR/logs"
	t0=$(now)
	if ! nice -n 19 make -C "$SRC" -j"$VM_JOBS" bzImage >"$blog" 2>&1; then
		tail -n 40 "$blog" >&2
		die "kernel $v failed to build (full log: $blog)"
	fi
	t1=$(now)
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$SRC/arch/x86/boot/bzImage" "$SRC/vmlinux" "$SRC/System.map" "$dest/"
	cp "$SRC/.config" "$dest/config"
	if [ "$v" = rfcv4 ]; then	# the exact source change, for reference
		(cd "$KDIR/pristine" && find . -type f | sort | while read -r f; do
			diff -u --label "a/${f#./}" --label "b/${f#./}" "$f" "$SRC/$f" || true
		done) >"$dest/rfcv4-applied.diff"
	fi
	echo $((t1 - t0)) >"$dest/build-seconds"
	touch "$dest/.done"
	log "kernel $v built in $((t1 - t0))s"
}

build_kernels() {
	local v
	mkdir -p "$KDIR"
	exec 9>"$KDIR/.lock"
	flock 9
	# unpatched first: the rfcv4 build is then incremental in the same tree
	for v in unpatched rfcv4; do
		case " $VM_KERNELS " in *" $v "*) build_variant "$v" ;; esac
	done
	if [ "$VM_KEEP_SRC" = 0 ] && [ -f "$KDIR/unpatched/.done" ] && [ -f "$KDIR/rfcv4/.done" ]; then
		log "removing the source tree ($KDIR/src)"
		rm -rf "$KDIR/src"
	fi
	flock -u 9
}

# ---------------------------------------------------------------- initramfs
copy_with_libs() {	# root binary...
	local root=$1 bin lib
	shift
	for bin in "$@"; do
		bin=$(command -v "$bin") || die "$bin not found on the host"
		install -D -m 0755 "$bin" "$root/bin/$(basename "$bin")"
		copy_libs "$root" "$bin"
	done
}

copy_libs() {	# root elf: the shared libraries and loader that ldd lists
	local lib libs
	# ldd fails on static executables and on scripts: nothing to copy
	libs=$(ldd "$2" 2>/dev/null | grep -oE '/[^ ]+') || return 0
	for lib in $libs; do
		[ -e "$1/$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$1/$lib"
	done
}

# bpfcheck: a small libbpf loader run in the guest (see bpfcheck/)
build_bpfcheck() {
	local d=$OUT/bpfcheck
	mkdir -p "$d"
	clang -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
		-c "$HERE/bpfcheck/bpfcheck.bpf.c" -o "$d/bpfcheck.bpf.o" ||
		die "cannot compile bpfcheck.bpf.c"
	gcc -O2 -Wall -Wextra -o "$d/bpfcheck" "$HERE/bpfcheck/bpfcheck.c" -lbpf ||
		die "cannot compile bpfcheck.c"
}

build_initramfs() {
	local root=$OUT/initramfs-root img=$OUT/initramfs.cpio.gz f
	log "building initramfs"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,root,etc,lib/vmcheck,payload}
	install -m 0755 /bin/busybox "$root/bin/busybox"
	! ldd /bin/busybox >/dev/null 2>&1 ||
		die "/bin/busybox is dynamically linked: install busybox-static"
	copy_with_libs "$root" mkfs.xfs xfs_io xfs_db fio bpftool
	build_bpfcheck
	copy_with_libs "$root" "$OUT/bpfcheck/bpfcheck"
	install -m 0644 "$OUT/bpfcheck/bpfcheck.bpf.o" "$root/lib/vmcheck/"
	install -m 0755 "$GUEST_DIR/init" "$root/init"
	install -m 0644 "$GUEST_DIR/lib.sh" "$GUEST_DIR/facts.sh" "$GUEST_DIR/smoke.sh" \
		"$root/lib/vmcheck/"
	mknod -m 0600 "$root/dev/console" c 5 1
	mknod -m 0666 "$root/dev/null" c 1 3
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	if [ -n "$VM_PAYLOAD_DIR" ]; then
		[ -d "$VM_PAYLOAD_DIR" ] || die "VM_PAYLOAD_DIR=$VM_PAYLOAD_DIR is not a directory"
		log "payload: $VM_PAYLOAD_DIR -> /payload"
		cp -a "$VM_PAYLOAD_DIR/." "$root/payload/"
		# dynamic executables in the payload get their libraries too
		find "$root/payload" -type f -perm -u+x | while read -r f; do
			copy_libs "$root" "$f"
		done
	fi
	for f in $VM_PAYLOAD_EXTRA; do
		local src name
		if [ -e "$f" ]; then
			src=$f
		else
			src=$(command -v "$f") || die "VM_PAYLOAD_EXTRA: $f not found"
		fi
		name=$(basename "$src" .static)
		install -D -m 0755 "$src" "$root/payload/bin/$name"
		copy_libs "$root" "$src"
		log "payload: $src -> /payload/bin/$name"
	done
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$img"
	log "initramfs: $img ($(du -h "$img" | cut -f1))"
}

# ---------------------------------------------------------------- boot
boot_variant() {	# variant -> console log in $OUT/<variant>.console.log
	local v=$1 clog=$OUT/$1.console.log pid t0 t_init="" rc=0 done_at=""
	log "booting $v (timeout ${VM_TIMEOUT}s, console: $clog)"
	: >"$clog"
	t0=$(now)
	local accel=(-accel tcg)
	[ "$VM_ACCEL" = kvm ] && accel=(-accel kvm -cpu host)
	timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 "${accel[@]}" \
		-m "$VM_MEM" -smp 1 -nographic -no-reboot \
		-kernel "$KDIR/$v/bzImage" -initrd "$OUT/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=6 vmcheck.variant=$v vmcheck.smoke=$VM_SMOKE" \
		</dev/null >"$clog" 2>&1 &
	pid=$!
	# qemu normally exits through ACPI poweroff; if the guest printed
	# VMTEST DONE but did not power off, stop it after a grace period.
	while kill -0 "$pid" 2>/dev/null; do
		if [ -z "$t_init" ] && grep -q '^VMINFO init started' "$clog"; then
			t_init=$(now)
		fi
		if [ -z "$done_at" ] && grep -q '^VMTEST DONE' "$clog"; then
			done_at=$(now)
		fi
		if [ -n "$done_at" ] && [ $(($(now) - done_at)) -gt 30 ]; then
			log "$v: guest did not power off after VMTEST DONE, stopping qemu"
			kill "$pid" 2>/dev/null || true
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	BOOT_SECONDS[$v]=$([ -n "$t_init" ] && echo $((t_init - t0)) || echo "?")
	TOTAL_SECONDS[$v]=$(($(now) - t0))
	QEMU_RC[$v]=$rc
	tr -d '\r' <"$clog" >"$clog.tmp" && mv "$clog.tmp" "$clog"
}

# ---------------------------------------------------------------- results
PASSED=0
FAILED=0
pass() {
	PASSED=$((PASSED + 1))
	echo "PASS $1"
}
fail() {
	FAILED=$((FAILED + 1))
	echo "FAIL $1${2:+: $2}"
}

check_variant() {	# variant
	local v=$1 clog=$OUT/$1.console.log status name reason
	while read -r _ status name reason; do
		case "$status" in
		PASS) pass "$v:$name" ;;
		FAIL) fail "$v:$name" "$reason" ;;
		esac
	done < <(grep -E '^VMTEST (PASS|FAIL) ' "$clog" || true)

	local problem=""
	if [ "${QEMU_RC[$v]}" = 124 ] || [ "${QEMU_RC[$v]}" = 137 ]; then
		problem="guest timed out after ${VM_TIMEOUT}s"
	elif grep -qE 'Kernel panic|end Kernel panic' "$clog"; then
		problem="kernel panic"
	elif ! grep -q '^VMTEST DONE' "$clog"; then
		problem="no VMTEST DONE (qemu exit ${QEMU_RC[$v]})"
	fi
	if [ -n "$problem" ]; then
		fail "$v:guest_completed" "$problem"
		echo "----- last 40 lines of $clog -----"
		tail -n 40 "$clog"
		echo "-----"
	else
		pass "$v:guest_completed"
	fi
	if grep -qE '(WARNING:|BUG:|Oops|general protection fault)' "$clog"; then
		fail "$v:kernel_log_clean" "WARNING/BUG/Oops in the console log"
		grep -nE -A3 '(WARNING:|BUG:|Oops|general protection fault)' "$clog" | head -n 40
	else
		pass "$v:kernel_log_clean"
	fi
}

smoke_value() {	# variant fsname key; empty when the smoke suite did not run
	{ grep "^VMRESULT smoke $2 variant=$1 " "$OUT/$1.console.log" 2>/dev/null || true; } |
		tr ' ' '\n' | sed -n "s/^$3=//p" | head -n1
}

compare_variants() {
	local u r ud rd
	case " $VM_KERNELS " in *" unpatched "*) ;; *) return ;; esac
	case " $VM_KERNELS " in *" rfcv4 "*) ;; *) return ;; esac
	u=$(smoke_value unpatched xfs1k data_write_bytes)
	r=$(smoke_value rfcv4 xfs1k data_write_bytes)
	[ -n "$u" ] && [ -n "$r" ] || return 0	# smoke suite did not run
	ud=$(smoke_value unpatched xfs1k diskstats_write_bytes)
	rd=$(smoke_value rfcv4 xfs1k diskstats_write_bytes)
	echo "xfs1k, 20 x 100-byte writes + fsync: data bytes unpatched=$u rfcv4=$r;" \
		"all writes (diskstats) unpatched=$ud rfcv4=$rd"
	if [ "$r" -gt 0 ] && [ $((r * 2)) -le "$u" ]; then
		pass "compare:xfs1k_rfcv4_writes_less_data"
	else
		fail "compare:xfs1k_rfcv4_writes_less_data" \
			"rfcv4 wrote $r data bytes, unpatched $u: want rfcv4 <= unpatched/2"
	fi
}

# The payload's VMRESULT lines as a Markdown report (tests/vm/lab-results.sh)
write_results() {
	local md=$OUT/lab-results.md v logs=()
	grep -qs '^VMRESULT fio ' "$OUT"/*.console.log || return 0
	for v in $VM_KERNELS; do logs+=("$v=$OUT/$v.console.log"); done
	"$HERE/lab-results.sh" --passed "$PASSED" --failed "$FAILED" "${logs[@]}" >"$md" ||
		{ fail "lab_results" "tests/vm/lab-results.sh failed"; return 0; }
	log "results: $md"
	[ -n "$VM_RESULTS_MD" ] || return 0
	if [ "$FAILED" -ne 0 ]; then
		log "not updating $VM_RESULTS_MD: $FAILED checks failed"
	elif [ "${#logs[@]}" -ne 2 ] ||
		! grep -qs '^VMRESULT fio variant=unpatched ' "$OUT/unpatched.console.log" ||
		! grep -qs '^VMRESULT fio variant=rfcv4 ' "$OUT/rfcv4.console.log"; then
		log "not updating $VM_RESULTS_MD: it needs both kernels (VM_KERNELS=\"$VM_KERNELS\")"
	else
		cp "$md" "$VM_RESULTS_MD"
		log "wrote $VM_RESULTS_MD"
	fi
}

# ---------------------------------------------------------------- main
main() {
	local v
	for v in $VM_KERNELS; do
		case "$v" in unpatched | rfcv4) ;; *) die "unknown kernel variant '$v' in VM_KERNELS" ;; esac
	done
	case "$VM_ACCEL" in tcg | kvm) ;; *) die "VM_ACCEL must be tcg or kvm" ;; esac
	[ "$(uname -m)" = x86_64 ] || die "x86_64 host required"
	install_deps
	[ -d "$SEEDS_DIR" ] || die "seed patches not found: set SEEDS_DIR (tried $SEEDS_DIR)"
	SEEDS_DIR=$(cd "$SEEDS_DIR" && pwd)
	for v in "${SEED_PATCHES[@]}"; do
		[ -f "$SEEDS_DIR/$v" ] || die "missing seed patch $SEEDS_DIR/$v"
	done
	check_disk
	KEY=$(cache_key)
	KDIR=$CACHE/$KEY
	SRC=$KDIR/src/linux-source-6.1
	log "cache: $KDIR"
	build_kernels

	mkdir -p "$OUT"
	build_initramfs
	declare -gA BOOT_SECONDS TOTAL_SECONDS QEMU_RC
	for v in $VM_KERNELS; do
		boot_variant "$v"
	done

	echo "== iomapdirty kernel lab =="
	for v in $VM_KERNELS; do
		echo "-- $v: build $(cat "$KDIR/$v/build-seconds")s (when it was built)," \
			"boot to /init ${BOOT_SECONDS[$v]}s, whole run ${TOTAL_SECONDS[$v]}s," \
			"console $OUT/$v.console.log"
		grep -E '^VMRESULT ' "$OUT/$v.console.log" || true
		check_variant "$v"
	done
	compare_variants
	write_results
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

# main and exit in one compound command: bash never reads past it, so the
# file may be edited while a run is going on.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
	exit
fi
