#!/usr/bin/env bash
# iomapdirty kernel lab: build Debian's linux-source-6.1 twice (unpatched and
# with the RFCv4 iomap sub-folio dirty-tracking series) for x86_64 and
# ppc64le, fetch Debian's binary 6.12 kernel (linux-image-6.12-amd64), boot
# each under qemu with a busybox initramfs holding two loop-mounted XFS
# filesystems,
# run /payload/run.sh (VM_PAYLOAD_DIR) or the built-in smoke suite, and
# count the guests' `VMTEST PASS|FAIL` lines.  See tests/vm/README.md.
#
# Environment:
#   VM_KERNELS            variants to build and boot (default "unpatched rfcv4")
#   VM_PAYLOAD_DIR        directory copied to /payload in the guest
#   VM_PAYLOAD_EXTRA      files (paths, or commands on PATH) copied into
#                         /payload/bin, a ".static" suffix dropped; dynamic
#                         executables get their libraries (x86_64 guests)
#   VM_PAYLOAD_EXTRA_PPC64LE  the same for the ppc64le guests: files only
#                         (static, or data); fio, jq, mkfs.xfs ... come
#                         from Debian's ppc64el packages
#   VM_RESULTS_MD         also write the payload's results table there
#                         (tests/vm/lab-results.sh; after a run of every guest
#                         with no failure), and beside it the A/B reports of
#                         the guests' run files (lab-ab-*.html) and the run
#                         files (lab-runs/)
#   IOMAPDIRTY            the host's iomapdirty for compare and report
#                         (default: <repo>/iomapdirty)
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
#   VM_BUILD_ONLY         1: build the kernels into the cache and stop
#   VM_RECHECK            1: boot nothing, run the host's checks on the console
#                         logs kept in VM_OUT_DIR (developing the checks)
#   VM_PARALLEL           guests booted at once (default: nproc; TCG runs a
#                         guest on one host thread)
#   VM_THROTTLE_BPS       write limit in bytes/s of the virtio disk QEMU gives
#                         the guests built here (throttling.bps-write, default
#                         1 MiB/s; 0: no such disk): the payload's throttled
#                         fio pair (payload/run.sh, fio_throttled)
#   VM_TIMING_FILE        append "lab<TAB>step<TAB>seconds<TAB>note" lines for
#                         every kernel build and every guest (.ci/run's table)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(git -C "$HERE" rev-parse --show-toplevel 2>/dev/null || (cd "$HERE/../.." && pwd))
SEEDS_DIR=${SEEDS_DIR:-$REPO/../shared/seeds}
CACHE=${IOMAPDIRTY_LAB_CACHE:-/var/cache/iomapdirty-lab}
# the ppc64el libraries bpfcheck links (scripts/ppc64el-sysroot.sh)
PPC64EL_SYSROOT=${PPC64EL_SYSROOT:-/var/cache/iomapdirty-ppc64el}
OUT=${VM_OUT_DIR:-$CACHE/out}
VM_KERNELS=${VM_KERNELS:-unpatched rfcv4 debian612 ppc-unpatched ppc-rfcv4}
VM_PAYLOAD_DIR=${VM_PAYLOAD_DIR:-}
VM_PAYLOAD_EXTRA=${VM_PAYLOAD_EXTRA:-}
VM_PAYLOAD_EXTRA_PPC64LE=${VM_PAYLOAD_EXTRA_PPC64LE:-}
VM_RESULTS_MD=${VM_RESULTS_MD:-}
VM_SMOKE=${VM_SMOKE:-auto}
VM_TIMEOUT=${VM_TIMEOUT:-600}
VM_MEM=${VM_MEM:-1536}
VM_JOBS=${VM_JOBS:-$(nproc)}
VM_KEEP_SRC=${VM_KEEP_SRC:-1}
VM_ACCEL=${VM_ACCEL:-tcg}
VM_PARALLEL=${VM_PARALLEL:-$(nproc)}
VM_THROTTLE_BPS=${VM_THROTTLE_BPS:-1048576}
VM_TIMING_FILE=${VM_TIMING_FILE:-}

# Bump when the build recipe below changes in a way the cache key cannot see.
RECIPE=3
# Debug info without variable locations: BTF (pahole) needs the types and
# the functions, never where a variable lives. Var-tracking is most of what
# -g costs the compiler (fs/xfs of 6.1 at -j2: 189 s of CPU with it, 174 s
# without, 164 s with no debug info at all); it does not change the code.
KCFLAGS_LAB="-fno-var-tracking -fno-var-tracking-assignments"
SEED_PATCHES=(002-patch-iomap-allocate-iop-in-write-begin-early.patch
	003-patch-iomap-change-uptodate-variable-name-to-state.patch
	004-patch-iomap-support-subpage-size-dirty-tracking-to-improve-wri.patch)
FIXUP_003=$HERE/patches/003-fixup-6.1-adjust-read-range.patch
GUEST_DIR=$HERE/guest
ALL_KERNELS="unpatched rfcv4 debian612 ppc-unpatched ppc-rfcv4"
DEB_PKGS=(linux-source-6.1 build-essential bc bison flex
	libssl-dev libelf-dev dwarves xz-utils perl qemu-system-x86 qemu-system-ppc
	gcc-powerpc64le-linux-gnu busybox-static xfsprogs fio cpio gzip bpftool
	util-linux coreutils clang libbpf-dev kmod)
# debian612 boots Debian's own binary kernel, not a build: the image the
# metapackage points at, apt's candidate version (fetch_debian_kernel).
# Bump DEB_RECIPE when what is kept from the package changes.
DEB_IMAGE_META=linux-image-6.12-amd64
DEB_RECIPE=1
# Its modules that the guest needs (loaded by /init, with what modprobe
# resolves them to: modules.dep and softdeps): loop devices, XFS,
# device-mapper (linear, crypt with aes-xts-plain64), the AF_ALG hash and
# skcipher interfaces, md raid0/raid1, ext4, btrfs.
DEB_MODULES=(loop xfs dm-mod dm-crypt xts af_alg algif_hash algif_skcipher md-mod raid0 raid1
	ext4 btrfs)

# A guest kernel ("variant") is built in a source tree shared with the
# variants of the same source, architecture and config (the rfcv4 build is
# then incremental).  variant_tree VARIANT sets TREE, TREE_STATE (the
# patch state the tree needs: unpatched or rfcv4) and, for the tree,
# ARCH_NAME (x86_64|ppc64le), TREE_KIND (build: from source; debian:
# Debian's binary image, fetched), SRC_PKG, FRAGMENTS, PATCHED (1: the key
# covers the seed patches).
variant_tree() {
	case "$1" in
	unpatched | rfcv4) TREE=x86_64-6.1 TREE_STATE=$1 ;;
	debian612) TREE=x86_64-6.12 TREE_STATE=unpatched ;;
	ppc-unpatched | ppc-rfcv4) TREE=ppc64le-6.1 TREE_STATE=${1#ppc-} ;;
	*) die "unknown kernel variant '$1' (known: $ALL_KERNELS)" ;;
	esac
	select_tree "$TREE"
}

select_tree() {
	TREE_KIND=build
	case "$1" in
	x86_64-6.1)
		ARCH_NAME=x86_64 SRC_PKG=linux-source-6.1 PATCHED=1
		FRAGMENTS=("$HERE/kernel.config" "$HERE/kernel-x86_64.config") ;;
	x86_64-6.12)
		ARCH_NAME=x86_64 SRC_PKG="" PATCHED=0 FRAGMENTS=() TREE_KIND=debian
		debian_image ;;
	ppc64le-6.1)
		ARCH_NAME=ppc64le SRC_PKG=linux-source-6.1 PATCHED=1
		FRAGMENTS=("$HERE/kernel.config" "$HERE/kernel-ppc64le.config") ;;
	esac
	SRC_TARBALL=/usr/src/$SRC_PKG.tar.xz
	case "$ARCH_NAME" in
	x86_64) KMAKE=(make) BOOT_IMAGE=arch/x86/boot/bzImage KTARGET=bzImage ;;
	ppc64le) KMAKE=(make ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-)
		BOOT_IMAGE=vmlinux KTARGET=vmlinux ;;
	esac
	KDIR=$CACHE/$1-$(cache_key "$1")
	SRC=$KDIR/src/$SRC_PKG
}

# debian_image: DEB_IMAGE, the versioned image package that DEB_IMAGE_META
# depends on (linux-image-6.12.118+deb12-amd64: the ABI is in the name),
# and DEB_IMAGE_VERSION, apt's candidate for it. Asked once per run
# (DEB_IMAGE= asks again).
debian_image() {
	[ -n "${DEB_IMAGE:-}" ] && return
	DEB_IMAGE=$(apt-cache depends "$DEB_IMAGE_META" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
	[ -n "$DEB_IMAGE" ] ||
		die "apt knows no $DEB_IMAGE_META (bookworm-security in the sources? apt-get update?)"
	DEB_IMAGE_VERSION=$(apt-cache policy "$DEB_IMAGE" 2>/dev/null |
		awk '$1 == "Candidate:" { print $2; exit }')
	case "$DEB_IMAGE_VERSION" in
	"" | "(none)") die "apt has no candidate version of $DEB_IMAGE" ;;
	esac
}

log() { printf '[vmcheck] %s\n' "$*" >&2; }
die() {
	printf '[vmcheck] ERROR: %s\n' "$*" >&2
	exit 1
}
now() { date +%s; }
timing() {	# step seconds note: one line of .ci/run's timing table
	[ -n "$VM_TIMING_FILE" ] || return 0
	printf 'lab\t%s\t%s\t%s\n' "$1" "$2" "$3" >>"$VM_TIMING_FILE"
}

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
cache_key() {	# tree: what the built kernels depend on
	local p
	if [ "$TREE_KIND" = debian ]; then	# the package, as apt's candidate names it
		echo "recipe=$DEB_RECIPE tree=$1 package=$DEB_IMAGE version=$DEB_IMAGE_VERSION" |
			sha256sum | cut -c1-16
		return
	fi
	{
		echo "recipe=$RECIPE tree=$1 arch=$ARCH_NAME"
		echo "source=$SRC_PKG $(dpkg-query -W -f='${Version}' "$SRC_PKG")"
		if [ "$ARCH_NAME" = ppc64le ]; then
			echo "cc=$(powerpc64le-linux-gnu-gcc -dumpfullversion 2>/dev/null)"
		else
			echo "cc=$(gcc -dumpfullversion)"
		fi
		echo "pahole=$(pahole --version 2>/dev/null)"
		if [ "$PATCHED" = 1 ]; then
			for p in "${SEED_PATCHES[@]}"; do
				echo "seed $p $(sha256sum <"$SEEDS_DIR/$p" | cut -d' ' -f1)"
			done
			echo "fixup $(sha256sum <"$FIXUP_003" | cut -d' ' -f1)"
		fi
		for p in "${FRAGMENTS[@]}"; do
			echo "config $(basename "$p") $(sha256sum <"$p" | cut -d' ' -f1)"
		done
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
	log "configuring $TREE: tinyconfig + ${FRAGMENTS[*]##*/}"
	(
		cd "$SRC"
		"${KMAKE[@]}" -s tinyconfig >/dev/null
		scripts/kconfig/merge_config.sh -m .config "${FRAGMENTS[@]}" >/dev/null
		"${KMAKE[@]}" -s olddefconfig >/dev/null 2>&1
	) || die "kernel configuration failed"
	local line bad=0
	while read -r line; do
		grep -qx "$line" "$SRC/.config" || {
			log "config: $line did not survive olddefconfig"
			bad=1
		}
	done < <(cat "${FRAGMENTS[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=')
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

build_variant() {	# variant: into $KDIR/<unpatched|rfcv4> of its tree
	local v=$1 dest t0 t1 blog
	variant_tree "$v"
	if [ "$TREE_KIND" = debian ]; then
		fetch_debian_kernel "$v"
		return
	fi
	dest=$KDIR/$TREE_STATE
	blog=$KDIR/logs/build-$TREE_STATE.log
	if [ -f "$dest/.done" ]; then
		log "kernel $v: cached in $dest (built in $(cat "$dest/build-seconds")s)"
		timing "kernel build $v" 0 "cached (built in $(cat "$dest/build-seconds") s)"
		return
	fi
	prepare_tree
	configure_tree
	set_tree_state "$TREE_STATE"
	log "building kernel $v ($TREE, ${KMAKE[*]} -j$VM_JOBS $KTARGET, log: $blog)"
	mkdir -p "$KDIR/logs"
	t0=$(now)
	# CPU time beside the wall time: on a shared machine the wall time
	# says how busy it was, the CPU time what the build costs
	local TIMEFORMAT='%U %S' rc=0 cpu
	{ time nice -n 19 "${KMAKE[@]}" -C "$SRC" -j"$VM_JOBS" KCFLAGS="$KCFLAGS_LAB" \
		"$KTARGET" >"$blog" 2>&1 || rc=$?; } 2>"$KDIR/logs/cpu-$TREE_STATE"
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$blog" >&2
		die "kernel $v failed to build (full log: $blog)"
	fi
	t1=$(now)
	cpu=$(awk '{printf "%d", $1 + $2}' "$KDIR/logs/cpu-$TREE_STATE")
	rm -rf "$dest"
	mkdir -p "$dest"
	cp "$SRC/vmlinux" "$SRC/System.map" "$dest/"
	cp "$SRC/.config" "$dest/config"
	case "$ARCH_NAME" in
	x86_64) cp "$SRC/$BOOT_IMAGE" "$dest/boot-image" ;;
	# pSeries firmware loads the ELF; without DWARF it is a quarter the size
	ppc64le) powerpc64le-linux-gnu-objcopy --strip-debug "$SRC/vmlinux" "$dest/boot-image" ||
		die "cannot strip $SRC/vmlinux" ;;
	esac
	if [ "$TREE_STATE" = rfcv4 ]; then	# the exact source change, for reference
		(cd "$KDIR/pristine" && find . -type f | sort | while read -r f; do
			diff -u --label "a/${f#./}" --label "b/${f#./}" "$f" "$SRC/$f" || true
		done) >"$dest/rfcv4-applied.diff"
	fi
	echo $((t1 - t0)) >"$dest/build-seconds"
	echo "$cpu" >"$dest/build-cpu-seconds"
	touch "$dest/.done"
	log "kernel $v built in $((t1 - t0))s ($cpu s of CPU)"
	timing "kernel build $v" $((t1 - t0)) "built, -j$VM_JOBS, $cpu s CPU (user+sys)"
}

# debian612's kernel is not built: Debian's binary image package (DEB_IMAGE
# at apt's candidate version) is fetched with apt-get download and unpacked
# into $KDIR/root (boot/, lib/modules/<release>/ with the modules.dep that
# depmod makes, as the package's postinst would), its image, config and
# System.map copied to $KDIR/unpatched. A download that fails (apt's lists
# older than the mirror, which dropped that version) gets one apt-get
# update and apt's new candidate, under its own key.
fetch_debian_kernel() {	# variant; $KDIR's lock is held
	local v=$1 dest t0 t1 rel deb try
	for try in 1 2; do
		dest=$KDIR/$TREE_STATE
		if [ -f "$dest/.done" ]; then
			log "kernel $v: cached in $dest ($(cat "$dest/package"))"
			timing "kernel fetch $v" 0 "cached ($(cat "$dest/package"))"
			return
		fi
		t0=$(now)
		rm -rf "$KDIR/deb" "$KDIR/root" "$dest"
		mkdir -p "$KDIR/deb"
		log "kernel $v: fetching $DEB_IMAGE $DEB_IMAGE_VERSION into $KDIR"
		(cd "$KDIR/deb" && apt-get download -q -o APT::Sandbox::User=root \
			"$DEB_IMAGE=$DEB_IMAGE_VERSION" >&2) && break
		[ "$try" = 1 ] || die "apt-get download $DEB_IMAGE=$DEB_IMAGE_VERSION failed"
		log "apt-get download failed: apt-get update, then apt's candidate again"
		rm -rf "$KDIR/deb"
		apt-get update -q >&2 || die "apt-get update failed"
		DEB_IMAGE=
		variant_tree "$v"
		mkdir -p "$KDIR"
		exec 9>"$KDIR/.lock"
		flock -w 3600 9 || die "$KDIR/.lock held for an hour by another fetch"
	done
	deb=$(echo "$KDIR"/deb/*.deb)
	[ -f "$deb" ] || die "apt-get download gave no single .deb in $KDIR/deb"
	mkdir -p "$KDIR/root"
	dpkg-deb -x "$deb" "$KDIR/root" || die "cannot unpack $deb"
	rel=$(ls "$KDIR/root/lib/modules")
	[ -n "$rel" ] && [ "$(wc -l <<<"$rel")" = 1 ] && [ -f "$KDIR/root/boot/vmlinuz-$rel" ] ||
		die "$deb: no single kernel release with its vmlinuz (lib/modules: $rel)"
	depmod -b "$KDIR/root" "$rel" || die "depmod failed on $KDIR/root ($rel)"
	mkdir -p "$dest"
	cp "$KDIR/root/boot/vmlinuz-$rel" "$dest/boot-image"
	cp "$KDIR/root/boot/config-$rel" "$dest/config"
	cp "$KDIR/root/boot/System.map-$rel" "$dest/System.map"
	echo "$rel" >"$dest/kernel-release"
	echo "$DEB_IMAGE $DEB_IMAGE_VERSION" >"$dest/package"
	rm -rf "$KDIR/deb"
	t1=$(now)
	echo $((t1 - t0)) >"$dest/build-seconds"
	touch "$dest/.done"
	log "kernel $v: $DEB_IMAGE $DEB_IMAGE_VERSION ($rel) fetched and unpacked in $((t1 - t0))s"
	timing "kernel fetch $v" $((t1 - t0)) "fetched $DEB_IMAGE $DEB_IMAGE_VERSION"
}

build_kernels() {	# one tree after the other, unpatched before rfcv4 in each
	local v tree
	for tree in x86_64-6.1 x86_64-6.12 ppc64le-6.1; do
		for v in $ALL_KERNELS; do
			case " $VM_KERNELS " in *" $v "*) ;; *) continue ;; esac
			variant_tree "$v"
			[ "$TREE" = "$tree" ] || continue
			mkdir -p "$KDIR"
			exec 9>"$KDIR/.lock"
			# another run building the same tree: wait for it, bounded
			flock -w 3600 9 || die "$KDIR/.lock held for an hour by another build"
			build_variant "$v"
			flock -u 9
		done
		select_tree "$tree"
		if [ "$VM_KEEP_SRC" = 0 ] && [ -d "$KDIR/src" ] &&
			{ [ "$PATCHED" = 0 ] || [ -f "$KDIR/rfcv4/.done" ]; } &&
			[ -f "$KDIR/unpatched/.done" ]; then
			log "removing the source tree ($KDIR/src)"
			rm -rf "$KDIR/src"
		fi
	done
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

# bpfcheck: a small libbpf loader run in the guest (see bpfcheck/); the
# BPF object is the same for every architecture, the loader is static for
# ppc64le (its guest has no libbpf)
build_bpfcheck() {	# arch
	local d=$OUT/bpfcheck
	mkdir -p "$d"
	clang -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
		-c "$HERE/bpfcheck/bpfcheck.bpf.c" -o "$d/bpfcheck.bpf.o" ||
		die "cannot compile bpfcheck.bpf.c"
	case "$1" in
	x86_64) gcc -O2 -Wall -Wextra -o "$d/bpfcheck" "$HERE/bpfcheck/bpfcheck.c" -lbpf ;;
	ppc64le) powerpc64le-linux-gnu-gcc -O2 -Wall -Wextra -static -o "$d/bpfcheck-ppc64le" \
		-isystem "$PPC64EL_SYSROOT/usr/include" "$HERE/bpfcheck/bpfcheck.c" \
		-L"$PPC64EL_SYSROOT/usr/lib/powerpc64le-linux-gnu" -lbpf -lelf -lz ;;
	esac || die "cannot compile bpfcheck.c for $1"
}

# ---------------------------------------------------------------- ppc64le userland
# The ppc64le guest's programs come from Debian's ppc64el packages, fetched
# with `apt-get download` and unpacked with `dpkg-deb -x` (installing them
# would replace the host's amd64 busybox and xfsprogs): busybox-static,
# mkfs.xfs/xfs_io/xfs_db, fio, jq, bpftool and every library they need,
# found by following DT_NEEDED through the unpacked tree.  Cached in
# $CACHE/ppc64le-userland-<key>, the key being the host's versions of the
# same packages (multiarch keeps them equal).
PPC_PKGS=(busybox-static xfsprogs e2fsprogs btrfs-progs fio jq bpftool libc6)
PPC_BINS=(bin/busybox sbin/mkfs.xfs usr/sbin/xfs_io usr/sbin/xfs_db sbin/mkfs.ext4 usr/bin/chattr
	sbin/mkfs.btrfs bin/btrfs usr/bin/fio usr/bin/jq usr/sbin/bpftool)
PPC_TRIPLET=powerpc64le-linux-gnu
PPC_LIBDIRS=(lib/$PPC_TRIPLET usr/lib/$PPC_TRIPLET usr/lib/$PPC_TRIPLET/ceph lib64)

ppc_find_lib() {	# sysroot soname -> path inside sysroot, or nothing
	local d
	for d in "${PPC_LIBDIRS[@]}"; do
		[ -e "$1/$d/$2" ] && { echo "$d/$2"; return; }
	done
	return 0
}

ppc_fetch() {	# dir pkg...: download each PKG:ppc64el and unpack it into dir/root
	local dir=$1 p deb
	shift
	( cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root \
		"${@/%/:ppc64el}" 2>&1 | grep -v -e '^W: Download is performed unsandboxed' \
		-e '^Get:' -e '^Fetched' >&2
	  exit "${PIPESTATUS[0]}" ) || die "apt-get download (ppc64el) $* failed"
	for p in "$@"; do
		for deb in "$dir/debs/${p}_"*_ppc64el.deb; do
			[ -f "$deb" ] || die "no .deb for $p:ppc64el"
			dpkg-deb -x "$deb" "$dir/root"
		done
		echo "$p" >>"$dir/packages"
	done
}

ppc_needed() {	# elf: its DT_NEEDED sonames
	readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

ppc_missing() {	# sysroot: sonames that PPC_BINS need, directly or not, and it lacks
	local -A seen=()
	local queue=() f so p
	for f in "${PPC_BINS[@]}"; do queue+=("$f"); done
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		for so in $(ppc_needed "$1/$f"); do
			[ -n "${seen[$so]:-}" ] && continue
			seen[$so]=1
			p=$(ppc_find_lib "$1" "$so")
			if [ -n "$p" ]; then queue+=("$p"); else echo "$so"; fi
		done
	done
}

ppc_userland() {	# sets PPC_ROOT (an unpacked ppc64el tree holding PPC_BINS and their libraries)
	local key p d todo f so pkg pkgs n=0
	key=$(for p in "${PPC_PKGS[@]}"; do
		echo "$p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)"
	done | sha256sum | cut -c1-16)
	d=$CACHE/ppc64le-userland-$key
	PPC_ROOT=$d/root
	[ -f "$d/.done" ] && return
	log "ppc64le userland: fetching ${PPC_PKGS[*]} (ppc64el) and their libraries into $d"
	rm -rf "$d"
	mkdir -p "$d/debs" "$d/root"
	ppc_fetch "$d" "${PPC_PKGS[@]}"
	# the libraries: a soname missing from the tree comes from the package
	# that holds it on the host (same name in every architecture)
	while :; do
		todo=()
		for f in "${PPC_BINS[@]}"; do
			[ -e "$d/root/$f" ] || die "ppc64le userland: $f not in the packages"
		done
		mapfile -t todo < <(ppc_missing "$d/root")
		[ ${#todo[@]} -eq 0 ] && break
		n=$((n + 1))
		[ $n -le 20 ] || die "ppc64le userland: libraries not resolved: ${todo[*]}"
		pkgs=()
		for so in "${todo[@]}"; do
			pkg=$(dpkg -S "*/$so" 2>/dev/null | awk -F': ' -v t="/x86_64-linux-gnu/$so" '
				$1 !~ /[ ,]/ && substr($2, length($2) - length(t) + 1) == t {
					sub(/:amd64$/, "", $1); print $1; exit }')
			[ -n "$pkg" ] || die "ppc64le userland: no host (amd64) package holds $so"
			! grep -qx "$pkg" "$d/packages" || die "ppc64le userland: $pkg does not give $so"
			case " ${pkgs[*]} " in *" $pkg "*) ;; *) pkgs+=("$pkg") ;; esac
		done
		ppc_fetch "$d" "${pkgs[@]}"
	done
	rm -rf "$d/debs"
	touch "$d/.done"
	log "ppc64le userland: $(wc -l <"$d/packages") packages"
}

ppc_copy() {	# initramfs-root path-in-sysroot: the file and the libraries it needs
	local so p
	[ -e "$1/$2" ] && return
	install -D -m 0755 "$(readlink -f "$PPC_ROOT/$2")" "$1/$2"
	for so in $(ppc_needed "$PPC_ROOT/$2"); do
		p=$(ppc_find_lib "$PPC_ROOT" "$so")
		[ -n "$p" ] || die "ppc64le: $so (needed by $2) missing"
		ppc_copy "$1" "$p"
	done
}

# ---------------------------------------------------------------- initramfs
payload_into() {	# root extra-list: VM_PAYLOAD_DIR and the extra files
	local root=$1 f src name
	if [ -n "$VM_PAYLOAD_DIR" ]; then
		[ -d "$VM_PAYLOAD_DIR" ] || die "VM_PAYLOAD_DIR=$VM_PAYLOAD_DIR is not a directory"
		log "payload: $VM_PAYLOAD_DIR -> /payload"
		cp -a "$VM_PAYLOAD_DIR/." "$root/payload/"
		# dynamic executables in the payload get their libraries too
		[ "$ARCH_NAME" = x86_64 ] && find "$root/payload" -type f -perm -u+x | while read -r f; do
			copy_libs "$root" "$f"
		done
	fi
	for f in $2; do
		if [ -e "$f" ]; then
			src=$f
		else
			src=$(command -v "$f") || die "payload extra: $f not found"
		fi
		name=$(basename "$src" .static)
		install -D -m 0755 "$src" "$root/payload/bin/$name"
		[ "$ARCH_NAME" = x86_64 ] && copy_libs "$root" "$src"
		log "payload ($ARCH_NAME): $src -> /payload/bin/$name"
	done
}

build_initramfs() {	# arch -> $OUT/initramfs-<arch>.cpio.gz
	local arch=$1 root=$OUT/initramfs-root-$1 img=$OUT/initramfs-$1.cpio.gz f
	ARCH_NAME=$arch
	log "building initramfs ($arch)"
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,mnt,root,etc,lib/vmcheck,payload}
	build_bpfcheck "$arch"
	case "$arch" in
	x86_64)
		install -m 0755 /bin/busybox "$root/bin/busybox"
		! ldd /bin/busybox >/dev/null 2>&1 ||
			die "/bin/busybox is dynamically linked: install busybox-static"
		copy_with_libs "$root" mkfs.xfs xfs_io xfs_db fio bpftool mkfs.ext4 chattr \
			mkfs.btrfs btrfs
		copy_with_libs "$root" "$OUT/bpfcheck/bpfcheck"
		payload_into "$root" "$VM_PAYLOAD_EXTRA"
		;;
	ppc64le)
		ppc_userland
		for f in "${PPC_BINS[@]}"; do
			ppc_copy "$root" "$f"
			[ -e "$root/bin/${f##*/}" ] || ln -s "/$f" "$root/bin/${f##*/}"
		done
		# the loader by its ABI path (/lib64/ld64.so.2)
		mkdir -p "$root/lib64"
		ppc_copy "$root" "lib/$PPC_TRIPLET/ld64.so.2"
		ln -sf "/lib/$PPC_TRIPLET/ld64.so.2" "$root/lib64/ld64.so.2"
		install -m 0755 "$OUT/bpfcheck/bpfcheck-ppc64le" "$root/bin/bpfcheck"
		payload_into "$root" "$VM_PAYLOAD_EXTRA_PPC64LE"
		;;
	esac
	install -m 0644 "$OUT/bpfcheck/bpfcheck.bpf.o" "$root/lib/vmcheck/"
	install -m 0755 "$GUEST_DIR/init" "$root/init"
	install -m 0644 "$GUEST_DIR/lib.sh" "$GUEST_DIR/facts.sh" "$GUEST_DIR/smoke.sh" \
		"$root/lib/vmcheck/"
	mknod -m 0600 "$root/dev/console" c 5 1
	mknod -m 0666 "$root/dev/null" c 1 3
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$img"
	log "initramfs: $img ($(du -h "$img" | cut -f1))"
}

# debian612's initramfs: the x86_64 one, then a second cpio archive (the
# kernel unpacks concatenated archives in order) with what Debian's kernel
# keeps in modules: DEB_MODULES and what modprobe on the host resolves them
# to (modules.dep, softdeps), decompressed (busybox insmod reads no .ko.xz),
# in load order in /lib/vmcheck/modules.load for /init; the names that must
# then be in /sys/module in modules.want; modules.dep for the guest's
# busybox modprobe; the package's config as /boot/config-<release>, where
# Debian puts it (its kernel has no /proc/config.gz).
debian_initramfs() {	# variant -> $OUT/initramfs-<variant>.cpio.gz
	local v=$1 root=$OUT/initramfs-root-$1 mods rel m out kind p ko
	local -A seen=()
	variant_tree "$v"
	mods=$KDIR/root rel=$(cat "$KDIR/$TREE_STATE/kernel-release")
	log "initramfs ($v): Debian's modules of $rel"
	rm -rf "$root"
	mkdir -p "$root/boot" "$root/lib/vmcheck" "$root/lib/modules/$rel"
	cp "$KDIR/$TREE_STATE/config" "$root/boot/config-$rel"
	cp "$mods/lib/modules/$rel"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$rel/"
	: >"$root/lib/vmcheck/modules.load"
	: >"$root/lib/vmcheck/modules.want"
	for m in "${DEB_MODULES[@]}"; do
		out=$(modprobe -d "$mods" -S "$rel" --show-depends "$m") ||
			die "$DEB_IMAGE has no module $m"
		while read -r kind p _; do
			[ "$kind" = builtin ] && continue
			[ "$kind" = insmod ] || die "modprobe --show-depends $m: '$kind $p'"
			p=${p#"$mods"}
			[ -n "${seen[$p]:-}" ] && continue
			seen[$p]=1
			ko=${p%.xz}
			mkdir -p "$root$(dirname "$ko")"
			case "$p" in
			*.ko.xz) xz -dc "$mods$p" >"$root$ko" || die "cannot decompress $mods$p" ;;
			*.ko) cp "$mods$p" "$root$ko" ;;
			*) die "$p: a module compression this script does not know" ;;
			esac
			echo "$ko" >>"$root/lib/vmcheck/modules.load"
		done <<<"$out"
		# not built in: it must be loaded
		[ "$(tail -n1 <<<"$out" | cut -d' ' -f1)" = insmod ] &&
			echo "${m//-/_}" >>"$root/lib/vmcheck/modules.want"
	done
	depmod -b "$root" "$rel" || die "depmod failed on $root"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 \
		>"$OUT/initramfs-$v.modules.cpio.gz"
	cat "$OUT/initramfs-x86_64.cpio.gz" "$OUT/initramfs-$v.modules.cpio.gz" \
		>"$OUT/initramfs-$v.cpio.gz"
	log "initramfs: $OUT/initramfs-$v.cpio.gz ($(wc -l <"$root/lib/vmcheck/modules.load") modules," \
		"$(du -h "$OUT/initramfs-$v.modules.cpio.gz" | cut -f1) on top of x86_64's)"
}

initramfs_of() {	# variant (variant_tree done): the initramfs it boots
	if [ "$TREE_KIND" = debian ]; then
		echo "$OUT/initramfs-$1.cpio.gz"
	else
		echo "$OUT/initramfs-$ARCH_NAME.cpio.gz"
	fi
}

# ---------------------------------------------------------------- boot
boot_variant() {	# variant -> console log in $OUT/<variant>.console.log
	local v=$1 clog=$OUT/$1.console.log pid t0 t_init="" rc=0 done_at=""
	log "booting $v (timeout ${VM_TIMEOUT}s, console: $clog)"
	: >"$clog"
	t0=$(now)
	local accel=(-accel tcg) qemu disk=() img=$OUT/$1.throttled.img
	variant_tree "$v"
	local append="panic=-1 oops=panic loglevel=6 vmcheck.variant=$v vmcheck.smoke=$VM_SMOKE"
	# The throttled disk: a sparse image, written at most VM_THROTTLE_BPS
	# bytes/s (QEMU's leaky bucket; cache=unsafe: the host's page cache
	# absorbs the rest, so only the limit bounds the guest). Debian's
	# kernel has virtio-blk as a module the guest does not load: the
	# lab's own builds only.
	rm -f "$img"
	if [ "$TREE_KIND" = build ] && [ "$VM_THROTTLE_BPS" -gt 0 ]; then
		truncate -s 512M "$img"
		disk=(-drive "file=$img,format=raw,if=none,id=throttled,cache=unsafe,throttling.bps-write=$VM_THROTTLE_BPS"
			-device virtio-blk-pci,drive=throttled)
		append="$append vmcheck.throttle=$VM_THROTTLE_BPS"
	fi
	case "$ARCH_NAME" in
	x86_64)
		[ "$VM_ACCEL" = kvm ] && accel=(-accel kvm -cpu host)
		qemu=(qemu-system-x86_64 "${accel[@]}" -append "console=ttyS0 $append") ;;
	ppc64le)
		# pSeries with QEMU's own firmware (x-vof: no SLOF), TCG
		qemu=(qemu-system-ppc64 -M pseries,x-vof=on -cpu power9 -accel tcg
			-append "console=hvc0 $append") ;;
	esac
	timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" \
		-m "$VM_MEM" -smp 1 -nographic -no-reboot \
		-kernel "$KDIR/$TREE_STATE/boot-image" -initrd "$(initramfs_of "$v")" \
		"${disk[@]}" </dev/null >"$clog" 2>&1 &
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
	rm -f "$img"
	tr -d '\r' <"$clog" >"$clog.tmp" && mv "$clog.tmp" "$clog"
	# boot to /init, boot to power-off, qemu's status: read by boot_all
	local total=$(($(now) - t0))
	echo "$([ -n "$t_init" ] && echo $((t_init - t0)) || echo "?") $total $rc" >"$OUT/$v.boot"
	timing "guest $v (boot to power-off)" "$total" "qemu exit $rc"
}

# Every guest in VM_KERNELS, VM_PARALLEL at a time: TCG runs a guest on one
# host thread, so two guests on two cores take the time of one.
boot_all() {
	local v running=0 t0
	t0=$(now)
	for v in $VM_KERNELS; do
		rm -f "$OUT/$v.boot"
		if [ "$running" -ge "$VM_PARALLEL" ]; then
			wait -n || true
			running=$((running - 1))
		fi
		boot_variant "$v" &
		running=$((running + 1))
	done
	wait || true
	timing "all guests ($VM_PARALLEL at a time)" $(($(now) - t0)) "$VM_KERNELS"
	for v in $VM_KERNELS; do
		if [ -f "$OUT/$v.boot" ]; then
			read -r "BOOT_SECONDS[$v]" "TOTAL_SECONDS[$v]" "QEMU_RC[$v]" <"$OUT/$v.boot"
		else
			BOOT_SECONDS[$v]="?" TOTAL_SECONDS[$v]="?" QEMU_RC[$v]=255
		fi
	done
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

# The suite a guest ran, for the expected count of its checks
guest_suite() {
	local payload=none
	if [ -n "$VM_PAYLOAD_DIR" ] && [ -f "$VM_PAYLOAD_DIR/run.sh" ]; then
		if [ "$(cd "$VM_PAYLOAD_DIR" && pwd -P)" = "$(cd "$HERE/payload" && pwd -P)" ]; then
			payload=payload
		else
			payload=foreign
		fi
	fi
	case "$payload/$VM_SMOKE" in
	none/never) echo none ;;
	none/*) echo smoke ;;
	*/always) echo "$payload+smoke" ;;
	*) echo "$payload" ;;
	esac
}

# expected-checks: "<variant> <suite> <count>" per line; the number of
# VMTEST PASS|FAIL lines a green guest prints.  A guest that printed
# fewer (a check that vanished, a garbled line, a script that died) or
# more (a check added without updating the table) fails.
EXPECTED_CHECKS=$HERE/expected-checks

check_count() {	# variant printed
	local v=$1 got=$2 suite want
	suite=$(guest_suite)
	if [ "$suite" = foreign ] || [ "$suite" = foreign+smoke ]; then
		echo "SKIP $v:check_count (a payload other than tests/vm/payload: no count known)"
		return
	fi
	want=$(awk -v v="$v" -v s="$suite" '$1 == v && $2 == s { print $3 }' "$EXPECTED_CHECKS" 2>/dev/null || true)
	if [ -z "$want" ]; then
		fail "$v:check_count" "no count for '$v $suite' in $EXPECTED_CHECKS (guest printed $got)"
	elif [ "$got" -ne "$want" ]; then
		fail "$v:check_count" "guest printed $got checks, $EXPECTED_CHECKS wants $want ($suite)"
	else
		pass "$v:check_count"
	fi
}

# pSeries prints this on every boot with a fresh NVRAM (not a kernel bug)
KNOWN_WARNINGS='WARNING: nvram corruption detected: 0-length partition'

check_variant() {	# variant
	local v=$1 clog=$OUT/$1.console.log status name reason n=0 bad
	while read -r _ status name reason; do
		n=$((n + 1))
		case "$status" in
		PASS) pass "$v:$name" ;;
		FAIL) fail "$v:$name" "$reason" ;;
		esac
	done < <(grep -E '^VMTEST (PASS|FAIL) ' "$clog" || true)
	# a VMTEST line that is neither a check nor DONE: a garbled FAIL
	# (interleaved output) must not vanish
	bad=$(grep -a 'VMTEST' "$clog" | grep -cvE '^VMTEST ((PASS|FAIL) [^ ]+( .*)?|DONE)$' || true)
	if [ "$bad" -gt 0 ]; then
		fail "$v:vmtest_lines_wellformed" "$bad garbled VMTEST lines:"
		grep -a 'VMTEST' "$clog" | grep -vE '^VMTEST ((PASS|FAIL) [^ ]+( .*)?|DONE)$' | head -n 5
	else
		pass "$v:vmtest_lines_wellformed"
	fi
	check_count "$v" "$n"

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
	if grep -vF "$KNOWN_WARNINGS" "$clog" | grep -qE '(WARNING:|BUG:|Oops|general protection fault)'; then
		fail "$v:kernel_log_clean" "WARNING/BUG/Oops in the console log"
		grep -vF "$KNOWN_WARNINGS" "$clog" | grep -nE -A3 '(WARNING:|BUG:|Oops|general protection fault)' | head -n 40
	else
		pass "$v:kernel_log_clean"
	fi
}

# result_value variant kind key [match...]: from the guest's VMRESULT lines
result_value() {
	local v=$1 kind=$2 key=$3 m l ok
	shift 3
	{ grep "^VMRESULT $kind " "$OUT/$v.console.log" 2>/dev/null || true; } | while read -r l; do
		ok=1
		for m in "$@"; do case " $l " in *" $m "*) ;; *) ok=0 ;; esac; done
		[ $ok = 1 ] || continue
		tr ' ' '\n' <<<"$l" | sed -n "s/^$key=//p" | head -n1
		break
	done
	return 0
}

# The direct A/B between the two builds of one source on one architecture,
# from the block layer's bytes in each guest; the expected figures come
# from the workload's geometry (writes, page and block size of the guest),
# never from the tool.
compare_pair() {	# unpatched-variant rfcv4-variant page block label
	local u=$1 r=$2 page=$3 block=$4 c="compare:$5" uw rw ub rb
	case " $VM_KERNELS " in *" $u "*) ;; *) return ;; esac
	case " $VM_KERNELS " in *" $r "*) ;; *) return ;; esac
	if [ "$(guest_suite)" = smoke ]; then
		compare_smoke "$u" "$r" "$5"
		return
	fi
	# aligned small overwrites, one per folio (tracepoint mode)
	uw=$(result_value "$u" scatter writes mode=tracepoint name=aligned)
	rw=$(result_value "$r" scatter writes mode=tracepoint name=aligned)
	ub=$(result_value "$u" scatter blk_file_bytes mode=tracepoint name=aligned)
	rb=$(result_value "$r" scatter blk_file_bytes mode=tracepoint name=aligned)
	echo "$5: aligned overwrites, one per folio: block-layer bytes unpatched=$ub rfcv4=$rb" \
		"(writes $uw/$rw, page $page, block $block)"
	if [ -z "$ub" ] || [ -z "$rb" ] || [ -z "$uw" ] || [ -z "$rw" ]; then
		fail "$c.aligned_ab" "a guest printed no VMRESULT scatter line for it"
	elif [ "$ub" -eq $((uw * page)) ] && [ "$rb" -eq $((rw * block)) ]; then
		pass "$c.aligned_ab"
	else
		fail "$c.aligned_ab" "want unpatched $((uw * page)) (whole folios) and rfcv4 $((rw * block)) (dirty blocks), got $ub and $rb"
	fi
	compare_fio fio "$u" "$r" "$page" "$block" "$5"
	[ "$VM_THROTTLE_BPS" -gt 0 ] && compare_fio fio_throttled "$u" "$r" "$page" "$block" "$5"
	[ "$VM_THROTTLE_BPS" -gt 0 ] && compare_fio_ext4 "$u" "$r" "$block" "$5"
	return 0
}

# compare_fio_ext4 UNPATCHED RFCV4 BLOCK LABEL: the seed's fio job on an
# ext4 of the same block size on the throttled disk (fio_throttled_ext4):
# buffer heads write one block per write on both kernels
compare_fio_ext4() {
	local k=fio_throttled_ext4 c="compare:$4.fio_throttled_ext4" ub rb uios rios
	uios=$(result_value "$1" $k write_ios)
	rios=$(result_value "$2" $k write_ios)
	ub=$(result_value "$1" $k blk_file_bytes)
	rb=$(result_value "$2" $k blk_file_bytes)
	echo "$4: ext4 randwrite, throttled disk: block-layer bytes unpatched=$ub for $uios" \
		"writes, rfcv4=$rb for $rios; bandwidth unpatched=$(result_value "$1" $k bw_bytes)" \
		"rfcv4=$(result_value "$2" $k bw_bytes) bytes/s"
	if [ -z "$ub" ] || [ -z "$rb" ] || [ -z "$uios" ] || [ -z "$rios" ] || [ "$uios" = 0 ] || [ "$rios" = 0 ]; then
		fail "$c" "a guest printed no VMRESULT $k line (or no writes)"
	elif [ "$ub" -eq $((uios * $3)) ] && [ "$rb" -eq $((rios * $3)) ]; then
		pass "$c"
	else
		fail "$c" "want $3 bytes per write on both kernels, got $ub/$uios and $rb/$rios"
	fi
}

# compare_fio KIND UNPATCHED RFCV4 PAGE BLOCK LABEL: the seed's fio job (on
# the loop device: fio; on the throttled disk: fio_throttled), bytes per
# write at the block layer; the bandwidths are printed, not checked
compare_fio() {
	local k=$1 u=$2 r=$3 page=$4 block=$5 c="compare:$6.$1_ab" ub rb uios rios ubw rbw
	uios=$(result_value "$u" "$k" write_ios)
	rios=$(result_value "$r" "$k" write_ios)
	ub=$(result_value "$u" "$k" blk_file_bytes)
	rb=$(result_value "$r" "$k" blk_file_bytes)
	ubw=$(result_value "$u" "$k" bw_bytes)
	rbw=$(result_value "$r" "$k" bw_bytes)
	echo "$6: $k randwrite: block-layer bytes unpatched=$ub for $uios writes," \
		"rfcv4=$rb for $rios writes; bandwidth unpatched=$ubw rfcv4=$rbw bytes/s"
	if [ -z "$ub" ] || [ -z "$rb" ] || [ -z "$uios" ] || [ -z "$rios" ] || [ "$uios" = 0 ] || [ "$rios" = 0 ]; then
		fail "$c" "a guest printed no VMRESULT $k line (or no writes)"
	elif [ "$ub" -eq $((uios * page)) ] && [ "$rb" -eq $((rios * block)) ]; then
		pass "$c"
	else
		fail "$c" "want $page bytes per write unpatched and $block rfcv4, got $ub/$uios and $rb/$rios"
	fi
}

smoke_value() {	# variant fsname key; empty when the smoke suite did not run
	{ grep "^VMRESULT smoke $2 variant=$1 " "$OUT/$1.console.log" 2>/dev/null || true; } |
		tr ' ' '\n' | sed -n "s/^$3=//p" | head -n1
}

compare_smoke() {	# unpatched-variant rfcv4-variant label
	local u r ud rd c="compare:$3.xfs1k_rfcv4_writes_less_data"
	u=$(smoke_value "$1" xfs1k data_write_bytes)
	r=$(smoke_value "$2" xfs1k data_write_bytes)
	ud=$(smoke_value "$1" xfs1k diskstats_write_bytes)
	rd=$(smoke_value "$2" xfs1k diskstats_write_bytes)
	echo "$3: xfs1k, 20 x 100-byte writes + fsync: data bytes unpatched=$u rfcv4=$r;" \
		"all writes (diskstats) unpatched=$ud rfcv4=$rd"
	if [ -z "$u" ] || [ -z "$r" ]; then
		fail "$c" "a guest printed no VMRESULT smoke line"
	elif [ "$r" -gt 0 ] && [ $((r * 2)) -le "$u" ]; then
		pass "$c"
	else
		fail "$c" "rfcv4 wrote $r data bytes, unpatched $u: want rfcv4 <= unpatched/2"
	fi
}

# side_by_side: the aligned scattered overwrites (1 KiB blocks, 4 KiB
# pages) on every x86_64 guest's XFS and on ext4 where a guest counted it,
# and on btrfs (4 KiB blocks) where a guest has it (Debian's 6.12), in one
# `iomapdirty compare` table ($OUT/ab/side-by-side.{md,json},
# docs/lab-results.md). Checked: each column's submitted bytes are the
# bytes the block layer wrote into the file in that run (the guest's
# VMRESULT line: block_rq_issue inside the file's extents; btrfs: inside
# its data chunks, as it writes each block anew elsewhere).
side_by_side() {
	local tool=${IOMAPDIRTY:-$REPO/iomapdirty} ab=$OUT/ab c=compare:side_by_side
	local files=() labels=() v name i got want kind
	[ "$(guest_suite)" = smoke ] && return
	for v in unpatched rfcv4 debian612; do
		case " $VM_KERNELS " in *" $v "*) ;; *) continue ;; esac
		for name in scatter ext4 btrfs; do
			[ -s "$OUT/runs/$v-$name.json" ] || continue
			files+=("$v-$name.json")
			case $v/$name in
			*/ext4) labels+=("ext4 $v") ;;
			*/btrfs) labels+=("btrfs $v") ;;
			*) labels+=("XFS $v") ;;
			esac
		done
	done
	[ ${#files[@]} -ge 2 ] || return 0
	mkdir -p "$ab"
	if ! (cd "$OUT/runs" && IFS=, && "$tool" compare --labels "${labels[*]}" --format json \
		"${files[@]}") >"$ab/side-by-side.json" ||
		! (cd "$OUT/runs" && IFS=, && "$tool" compare --labels "${labels[*]}" \
		--format markdown "${files[@]}") >"$ab/side-by-side.md"; then
		fail "$c" "$tool compare failed on ${files[*]}"
		return
	fi
	for i in "${!files[@]}"; do
		v=${files[$i]%%-*} name=${files[$i]#*-}
		name=${name%.json}
		kind=runfile
		[ "$name" = ext4 ] && kind=ext4
		[ "$name" = btrfs ] && kind=btrfs
		got=$(jq --argjson i "$i" '.rows[] | select(.figure == "submitted_bytes") |
			.values[$i]' "$ab/side-by-side.json")
		if [ "$kind" = ext4 ]; then
			want=$(result_value "$v" ext4 blk_file_bytes)
		elif [ "$kind" = btrfs ]; then
			want=$(result_value "$v" btrfs blk_data_bytes)
		else
			want=$(result_value "$v" runfile blk_file_bytes name=scatter)
		fi
		echo "side by side: ${labels[$i]}: submitted bytes $got, block layer $want"
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			pass "$c.${files[$i]%.json}"
		else
			fail "$c.${files[$i]%.json}" "compare says $got submitted, the block layer ${want:-nothing}"
		fi
	done
}

# side_by_side_fio UNPATCHED RFCV4 LABEL: the seed's fio job on the
# throttled disk, XFS and ext4 on both kernels, in one `iomapdirty compare`
# table ($OUT/ab/side-by-side-fio-LABEL.{md,json}) and one report page
# (lab-ab-LABEL-side-by-side.html). Checked: each column's submitted bytes
# are the block layer's bytes into fio's file in that run.
side_by_side_fio() {
	local u=$1 r=$2 label=$3 tool=${IOMAPDIRTY:-$REPO/iomapdirty} ab=$OUT/ab
	local c="compare:$3.side_by_side_fio" files=() labels=() kinds=() i got want
	case " $VM_KERNELS " in *" $u "* | *" $r "*) ;; *) return 0 ;; esac
	[ "$VM_THROTTLE_BPS" -gt 0 ] || return 0
	for i in "$u XFS fio_throttled" "$r XFS fio_throttled" "$u ext4 fio_throttled_ext4" \
		"$r ext4 fio_throttled_ext4"; do
		set -- $i
		[ -s "$OUT/runs/$1-$3.json" ] || { fail "$c" "no run file $1-$3.json"; return 0; }
		files+=("$1-$3.json") labels+=("$2 $1") kinds+=("$1 $3")
	done
	mkdir -p "$ab"
	if ! (cd "$OUT/runs" && IFS=, && "$tool" compare --labels "${labels[*]}" --format json \
		"${files[@]}") >"$ab/side-by-side-fio-$label.json" ||
		! (cd "$OUT/runs" && IFS=, && "$tool" compare --labels "${labels[*]}" \
		--format markdown "${files[@]}") >"$ab/side-by-side-fio-$label.md"; then
		fail "$c" "$tool compare failed on ${files[*]}"
		return 0
	fi
	for i in "${!files[@]}"; do
		set -- ${kinds[$i]}
		got=$(jq --argjson i "$i" '.rows[] | select(.figure == "submitted_bytes") |
			.values[$i]' "$ab/side-by-side-fio-$label.json")
		want=$(result_value "$1" "$2" blk_file_bytes)
		echo "side by side, $label fio: ${labels[$i]}: submitted bytes $got, block layer $want"
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			pass "$c.${files[$i]%.json}"
		else
			fail "$c.${files[$i]%.json}" "compare says $got submitted, the block layer ${want:-nothing}"
		fi
	done
	if (cd "$OUT/runs" && IFS=, && "$tool" report --labels "${labels[*]}" \
		--title "iomapdirty kernel lab, $label: the seed's fio job on a throttled disk, XFS and ext4" \
		-o "$ab/lab-ab-$label-side-by-side.html" "${files[@]}"); then
		pass "$c.report"
	else
		fail "$c.report" "$tool report failed"
	fi
}

compare_variants() {
	[ "$(guest_suite)" = none ] && return
	compare_pair unpatched rfcv4 4096 1024 x86_64
	compare_pair ppc-unpatched ppc-rfcv4 65536 4096 ppc64le
	ab_runfiles unpatched rfcv4 4096 1024 x86_64
	ab_runfiles ppc-unpatched ppc-rfcv4 65536 4096 ppc64le
	side_by_side
	side_by_side_fio unpatched rfcv4 x86_64
	side_by_side_fio ppc-unpatched ppc-rfcv4 ppc64le
}

# ---------------------------------------------------------------- run files
# The payload's run files (`iomapdirty run --json`: the scattered writes and
# the seed's fio job) come out of the guest as VMFILE lines on the console
# (payload/run.sh, export_file: gzip, base64). extract_runfiles VARIANT
# decodes each into $OUT/runs/VARIANT-NAME.json and checks its size and
# sha256 against the guest's BEGIN line: a line garbled on the serial
# console fails here, not in a report.
extract_runfiles() {	# variant
	local v=$1 clog=$OUT/$1.console.log name size sum f
	mkdir -p "$OUT/runs"
	rm -f "$OUT/runs/$v"-*.json
	while read -r _ _ name size sum; do
		f=$OUT/runs/$v-$name.json
		size=${size#bytes=} sum=${sum#sha256=}
		awk -v n="$name" '$1 == "VMFILE" && $2 == "DATA" && $3 == n { print $4 }' "$clog" |
			base64 -d 2>/dev/null | gzip -dc >"$f" 2>/dev/null || true
		if [ "$(wc -c <"$f")" = "$size" ] && [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$sum" ]; then
			pass "$v:runfile_copied.$name"
		else
			fail "$v:runfile_copied.$name" "decoded $(wc -c <"$f") bytes, the guest sent $size (sha256 $sum)"
			rm -f "$f"
		fi
	done < <(grep -a '^VMFILE BEGIN ' "$clog" || true)
}

# ab_runfiles UNPATCHED RFCV4 PAGE BLOCK LABEL: `iomapdirty compare` and
# `iomapdirty report` on the two guests' run files, into $OUT/ab. Checked:
# the compare's submitted-bytes ratio (rfcv4 / unpatched, from the run
# files) equals the ratio of the bytes the block layer wrote into the file
# in the same runs (the guests' VMRESULT lines, block_rq_issue, read
# independently of the tool), and both equal BLOCK / PAGE: one dirty block
# instead of the whole folio per write.
ab_runfiles() {
	local u=$1 r=$2 page=$3 block=$4 label=$5 c="compare:$5" name a b ub rb ratio
	local tool=${IOMAPDIRTY:-$REPO/iomapdirty} ab=$OUT/ab
	case " $VM_KERNELS " in *" $u "*) ;; *) return ;; esac
	case " $VM_KERNELS " in *" $r "*) ;; *) return ;; esac
	[ "$(guest_suite)" = smoke ] && return
	mkdir -p "$ab"
	rm -f "$ab/$label"-* "$ab/lab-ab-$label.html"
	for name in scatter fio; do
		a=$u-$name.json b=$r-$name.json
		if [ ! -s "$OUT/runs/$a" ] || [ ! -s "$OUT/runs/$b" ]; then
			fail "$c.runfile_ab.$name" "no run file from a guest ($a, $b in $OUT/runs)"
			continue
		fi
		# relative names: the tables show the files as docs/lab-runs has them
		if ! (cd "$OUT/runs" && "$tool" compare --labels "$u,$r" --format json "$a" "$b") \
			>"$ab/$label-$name.json" ||
			! (cd "$OUT/runs" && "$tool" compare --labels "$u,$r" --format markdown "$a" "$b") \
			>"$ab/$label-$name.md" ||
			! (cd "$OUT/runs" && "$tool" compare --labels "$u,$r" "$a" "$b") >"$ab/$label-$name.txt"; then
			fail "$c.runfile_ab.$name" "$tool compare failed on $a $b"
			continue
		fi
		ratio=$(jq '.rows[] | select(.figure == "submitted_bytes") | .ratio_to_first[1]' "$ab/$label-$name.json" || true)
		if [ "$name" = scatter ]; then
			ub=$(result_value "$u" runfile blk_file_bytes name=scatter)
			rb=$(result_value "$r" runfile blk_file_bytes name=scatter)
		else
			ub=$(result_value "$u" fio blk_file_bytes)
			rb=$(result_value "$r" fio blk_file_bytes)
		fi
		echo "$label: $name run files: compare's submitted bytes $r/$u = $ratio;" \
			"block layer $rb/$ub; block/page $block/$page"
		if [ -z "$ub" ] || [ -z "$rb" ] || [ "$ub" = 0 ]; then
			fail "$c.runfile_ab.$name" "a guest printed no block-layer bytes for the run"
		# (compare's JSON prints 6 significant digits)
		elif awk -v g="$ratio" -v ub="$ub" -v rb="$rb" -v p="$page" -v bl="$block" 'BEGIN {
			want = rb / ub
			exit !(g ~ /^[0-9.e+-]+$/ && g - want < 5e-6 * want && want - g < 5e-6 * want &&
				rb * p == ub * bl) }'; then
			pass "$c.runfile_ab.$name"
		else
			fail "$c.runfile_ab.$name" "compare says $ratio, the block layer $rb/$ub, the geometry $block/$page"
		fi
	done
	if [ -s "$OUT/runs/$u-fio.json" ] && [ -s "$OUT/runs/$r-fio.json" ]; then
		if (cd "$OUT/runs" && "$tool" report --labels "$u,$r" \
			--title "iomapdirty kernel lab, $label: the seed's fio job, unpatched vs RFCv4" \
			-o "$ab/lab-ab-$label.html" "$u-fio.json" "$r-fio.json"); then
			pass "$c.runfile_report"
		else
			fail "$c.runfile_report" "$tool report failed"
		fi
	fi
}

# The payload's VMRESULT lines as a Markdown report (tests/vm/lab-results.sh)
write_results() {
	local md=$OUT/lab-results.md v logs=()
	grep -qs '^VMRESULT fio ' "$OUT"/*.console.log || return 0
	for v in $VM_KERNELS; do logs+=("$v=$OUT/$v.console.log"); done
	"$HERE/lab-results.sh" --passed "$PASSED" --failed "$FAILED" --ab "$OUT/ab" "${logs[@]}" >"$md" ||
		{ fail "lab_results" "tests/vm/lab-results.sh failed"; return 0; }
	log "results: $md"
	[ -n "$VM_RESULTS_MD" ] || return 0
	if [ "$FAILED" -ne 0 ]; then
		log "not updating $VM_RESULTS_MD: $FAILED checks failed"
	elif [ "$(echo $VM_KERNELS | tr ' ' '\n' | sort | tr '\n' ' ')" != \
		"$(echo $ALL_KERNELS | tr ' ' '\n' | sort | tr '\n' ' ')" ]; then
		log "not updating $VM_RESULTS_MD: it needs every guest ($ALL_KERNELS; ran: $VM_KERNELS)"
	else
		cp "$md" "$VM_RESULTS_MD"
		log "wrote $VM_RESULTS_MD"
		publish_ab "$(dirname "$VM_RESULTS_MD")"
	fi
}

# The A/B reports and the run files they come from, next to
# VM_RESULTS_MD (which links them): DIR/lab-ab-LABEL.html, DIR/lab-runs/
publish_ab() {	# dir
	local f
	for f in "$OUT"/ab/lab-ab-*.html; do
		[ -s "$f" ] || continue
		cp "$f" "$1/"
		log "wrote $1/$(basename "$f")"
	done
	if ls "$OUT"/runs/*.json >/dev/null 2>&1; then
		rm -rf "$1/lab-runs"
		mkdir -p "$1/lab-runs"
		cp "$OUT"/runs/*.json "$1/lab-runs/"
		log "wrote $1/lab-runs/ ($(ls "$OUT"/runs/*.json | wc -l) run files)"
	fi
}

# ---------------------------------------------------------------- main
main() {
	local v t0
	case "$VM_ACCEL" in tcg | kvm) ;; *) die "VM_ACCEL must be tcg or kvm" ;; esac
	[ "$(uname -m)" = x86_64 ] || die "x86_64 host required"
	install_deps
	[ -d "$SEEDS_DIR" ] || die "seed patches not found: set SEEDS_DIR (tried $SEEDS_DIR)"
	SEEDS_DIR=$(cd "$SEEDS_DIR" && pwd)
	for v in "${SEED_PATCHES[@]}"; do
		[ -f "$SEEDS_DIR/$v" ] || die "missing seed patch $SEEDS_DIR/$v"
	done
	for v in $VM_KERNELS; do
		variant_tree "$v"	# dies on an unknown name
	done
	check_disk
	build_kernels
	if [ "${VM_BUILD_ONLY:-0}" = 1 ]; then
		log "VM_BUILD_ONLY=1: kernels built, not booting"
		return 0
	fi

	mkdir -p "$OUT"
	local arch
	[ "${VM_RECHECK:-0}" = 1 ] || for arch in x86_64 ppc64le; do
		for v in $VM_KERNELS; do
			variant_tree "$v"
			[ "$ARCH_NAME" = "$arch" ] || continue
			t0=$(now)
			build_initramfs "$arch"
			timing "initramfs $arch" $(($(now) - t0)) "payload, userland"
			break
		done
	done
	[ "${VM_RECHECK:-0}" = 1 ] || for v in $VM_KERNELS; do
		variant_tree "$v"
		[ "$TREE_KIND" = debian ] || continue
		t0=$(now)
		debian_initramfs "$v"
		timing "initramfs $v" $(($(now) - t0)) "x86_64's, Debian's modules"
	done
	declare -gA BOOT_SECONDS TOTAL_SECONDS QEMU_RC
	if [ "${VM_RECHECK:-0}" = 1 ]; then	# the host's checks on kept console logs
		for v in $VM_KERNELS; do
			BOOT_SECONDS[$v]="?" TOTAL_SECONDS[$v]="?" QEMU_RC[$v]=0
		done
	else
		boot_all
	fi

	echo "== iomapdirty kernel lab =="
	for v in $VM_KERNELS; do
		variant_tree "$v"
		if [ "$TREE_KIND" = debian ]; then
			printf -- '-- %s: %s, fetched in %ss,' "$v" "$(cat "$KDIR/$TREE_STATE/package")" \
				"$(cat "$KDIR/$TREE_STATE/build-seconds")"
		else
			printf -- '-- %s: build %ss (when it was built),' "$v" \
				"$(cat "$KDIR/$TREE_STATE/build-seconds")"
		fi
		echo " boot to /init ${BOOT_SECONDS[$v]}s, whole run ${TOTAL_SECONDS[$v]}s," \
			"console $OUT/$v.console.log"
		grep -E '^VMRESULT ' "$OUT/$v.console.log" || true
		check_variant "$v"
		extract_runfiles "$v"
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
