#!/usr/bin/env bash
# Debian packages unpacked (dpkg-deb -x) into a directory of their own, not
# installed: what the kernel lab needs that the host must not install
# (scripts/ppc64el-sysroot.sh and scripts/mdadm-unpacked.sh say why).
# Unpacked again when a package's candidate version changes (DIR/.packages
# lists them, a "package version" line each).
# Usage: scripts/deb-unpack.sh NAME DIR PACKAGE[:ARCH]...   (NAME: in messages)
set -euo pipefail

name=$1 dir=$2
shift 2
want=$(for p in "$@"; do
	v=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
	[ -n "$v" ] && [ "$v" != "(none)" ] || {
		echo "$name: no candidate for $p (apt-get update?)" >&2
		exit 1
	}
	echo "$p $v"
done)
if [ -f "$dir/.packages" ] && [ "$(cat "$dir/.packages")" = "$want" ]; then
	echo "$name: $dir up to date"
	exit 0
fi
echo "$name: unpacking $* into $dir"
rm -rf "$dir"
mkdir -p "$dir/debs"
( cd "$dir/debs" && apt-get download -q -o Acquire::Retries=3 \
	-o APT::Sandbox::User=root "$@" >/dev/null ) || {
	echo "$name: apt-get download failed" >&2
	exit 1
}
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$dir"
done
rm -rf "$dir/debs"
echo "$want" >"$dir/.packages"
