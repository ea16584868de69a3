#!/usr/bin/env bash
# Installs what iomapdirty needs to build, run and test, from Debian's
# packages (Debian 12). Idempotent: does nothing when all are present.
# Usage: scripts/install-deps.sh [--lab]   (--lab: also the kernel lab's)
set -euo pipefail

pkgs=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
      libmicrohttpd-dev prometheus libsystemd-dev libcrypt-dev apache2-utils openssl
      libncurses-dev libjson-c-dev xfsprogs fio jq tmux util-linux procps bpftrace
      chromium python3 fdisk strace dmsetup
      debhelper lintian mmdebstrap podman runc catatonit python3-yaml
      systemd-container	# tests/exporter/systemd.sh: the unit under systemd-nspawn --boot
      btrfs-progs	# tests/cli/unwatched.sh: a btrfs, named NOT WATCHED
      postgresql)	# tests/cli/verify_postgres.sh: a database under verify
if [ "${1:-}" = "--lab" ]; then
	pkgs+=(linux-source-6.1 build-essential bc bison flex kmod
	       libssl-dev dwarves qemu-system-x86 busybox-static cpio xz-utils
	       qemu-system-ppc gcc-powerpc64le-linux-gnu binutils-powerpc64le-linux-gnu
	       libc6-dev-ppc64el-cross
	       dmsetup)
fi
# Unpacked apart, not installed: the ppc64el libraries the ppc64le guest's
# static binaries link (scripts/ppc64el-sysroot.sh says why not multiarch),
# and the 6.12 guest's mdadm (scripts/mdadm-unpacked.sh: it needs udev)
lab_sysroot() {
	[ "${1:-}" = "--lab" ] || return 0
	"$(dirname "$0")/ppc64el-sysroot.sh"
	"$(dirname "$0")/mdadm-unpacked.sh"
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	lab_sysroot "${1:-}"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing ${missing[*]}; run as root to install" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# the lab fetches ppc64el packages (apt-get download): their indexes too
[ "${1:-}" = "--lab" ] && ! dpkg --print-foreign-architectures | grep -qx ppc64el &&
	dpkg --add-architecture ppc64el
# A mirror caught mid-sync fails an index ("File has unexpected size",
# seen here on bookworm-security's ppc64el index): try again a few times.
# After the last try, an index that still failed is left out and the
# install says whether it mattered.
retry() {	# what command...
	local what=$1 n
	shift
	for n in 1 2 3; do
		"$@" && return 0
		[ "$n" = 3 ] && break
		echo "install-deps: $what failed (try $n of 3), again in $((n * 20)) s" >&2
		sleep $((n * 20))
	done
	return 1
}
retry "apt-get update" apt-get -o Acquire::Retries=3 update -qq ||
	echo "install-deps: some package indexes failed to update; installing anyway" >&2
retry "apt-get install" apt-get -o Acquire::Retries=3 install -y -qq \
	--no-install-recommends "${missing[@]}" >/dev/null
lab_sysroot "${1:-}"
