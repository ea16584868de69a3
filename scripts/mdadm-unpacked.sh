#!/usr/bin/env bash
# mdadm for the kernel lab's 6.12 guest (md raid0/raid1 under verify),
# unpacked from Debian's package into a directory of its own: the guest
# payload copies DIR/sbin/mdadm with the libraries it links.
#
# Not installed: Debian's mdadm depends on udev, whose installation would
# start or configure a udev on this host, which runs none and whose tests
# make their own device nodes (losetup -P, partx -a).
# Unpacked again when the candidate version changes (DIR/.version).
# Usage: scripts/mdadm-unpacked.sh [DIR]   (default /var/cache/iomapdirty-mdadm)
set -euo pipefail

dir=${1:-/var/cache/iomapdirty-mdadm}
want=$(apt-cache policy mdadm | sed -n 's/^ *Candidate: //p')
[ -n "$want" ] && [ "$want" != "(none)" ] || {
	echo "mdadm-unpacked: no candidate for mdadm (apt-get update?)" >&2
	exit 1
}
if [ -x "$dir/sbin/mdadm" ] && [ "$(cat "$dir/.version" 2>/dev/null)" = "$want" ]; then
	echo "mdadm-unpacked: $dir up to date ($want)"
	exit 0
fi
echo "mdadm-unpacked: unpacking mdadm $want into $dir"
rm -rf "$dir"
mkdir -p "$dir/debs"
( cd "$dir/debs" && apt-get download -q -o Acquire::Retries=3 \
	-o APT::Sandbox::User=root "mdadm=$want" >/dev/null ) || {
	echo "mdadm-unpacked: apt-get download mdadm failed" >&2
	exit 1
}
dpkg-deb -x "$dir"/debs/mdadm_*.deb "$dir"
rm -rf "$dir/debs"
[ -x "$dir/sbin/mdadm" ] || {
	echo "mdadm-unpacked: no sbin/mdadm in the package" >&2
	exit 1
}
echo "$want" >"$dir/.version"
