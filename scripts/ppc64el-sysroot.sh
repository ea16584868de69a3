#!/usr/bin/env bash
# The ppc64el libraries the kernel lab's ppc64le guest links statically
# (libbpf, libelf, zlib, ncurses, json-c: their -dev packages' headers and
# .a files), unpacked from Debian's ppc64el packages into a directory of
# their own: `make static-ppc64le PPC64EL_SYSROOT=DIR` builds against it.
#
# Not installed as multiarch packages: those must carry exactly the
# version of the host's amd64 package of the same name, which a fresh
# machine whose amd64 packages came from a newer image than its mirror's
# ppc64el index cannot meet (seen here: linux-libc-dev and libssl3
# "not going to be installed"). Unpacked, they need only each other.
# Unpacked by scripts/deb-unpack.sh: again when a candidate version changes.
# Usage: scripts/ppc64el-sysroot.sh [DIR]   (default /var/cache/iomapdirty-ppc64el)
set -euo pipefail

dir=${1:-/var/cache/iomapdirty-ppc64el}
pkgs=(libbpf-dev libelf-dev zlib1g-dev libncurses-dev libjson-c-dev)

dpkg --print-foreign-architectures | grep -qx ppc64el || {
	dpkg --add-architecture ppc64el
	apt-get -o Acquire::Retries=3 update -qq || true
}
exec "$(dirname "$0")/deb-unpack.sh" ppc64el-sysroot "$dir" "${pkgs[@]/%/:ppc64el}"
