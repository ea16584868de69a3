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
# Rebuilt when the candidate versions change (the list in DIR/.packages).
# Usage: scripts/ppc64el-sysroot.sh [DIR]   (default /var/cache/iomapdirty-ppc64el)
set -euo pipefail

dir=${1:-/var/cache/iomapdirty-ppc64el}
pkgs=(libbpf-dev libelf-dev zlib1g-dev libncurses-dev libjson-c-dev)

dpkg --print-foreign-architectures | grep -qx ppc64el || {
	dpkg --add-architecture ppc64el
	apt-get -o Acquire::Retries=3 update -qq || true
}
want=$(for p in "${pkgs[@]}"; do
	v=$(apt-cache policy "$p:ppc64el" | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] || {
		echo "ppc64el-sysroot: no candidate for $p:ppc64el (apt-get update?)" >&2
		exit 1
	}
	echo "$p $v"
done)
if [ -f "$dir/.packages" ] && [ "$(cat "$dir/.packages")" = "$want" ]; then
	echo "ppc64el-sysroot: $dir up to date"
	exit 0
fi
echo "ppc64el-sysroot: unpacking ${pkgs[*]} (ppc64el) into $dir"
rm -rf "$dir"
mkdir -p "$dir/debs"
( cd "$dir/debs" && apt-get download -q -o APT::Sandbox::User=root \
	"${pkgs[@]/%/:ppc64el}" >/dev/null ) || {
	echo "ppc64el-sysroot: apt-get download failed" >&2
	exit 1
}
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
rm -rf "$dir/debs"
echo "$want" >"$dir/.packages"
