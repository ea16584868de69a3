#!/usr/bin/env bash
# mdadm for the kernel lab's 6.12 guest (md raid0/raid1 under verify),
# unpacked from Debian's package into a directory of its own
# (scripts/deb-unpack.sh): the guest payload copies DIR/sbin/mdadm with
# the libraries it links.
#
# Not installed: Debian's mdadm depends on udev, whose installation would
# start or configure a udev on this host, which runs none and whose tests
# make their own device nodes (losetup -P, partx -a).
# Usage: scripts/mdadm-unpacked.sh [DIR]   (default /var/cache/iomapdirty-mdadm)
set -euo pipefail

dir=${1:-/var/cache/iomapdirty-mdadm}
"$(dirname "$0")/deb-unpack.sh" mdadm-unpacked "$dir" mdadm
[ -x "$dir/sbin/mdadm" ] || {
	echo "mdadm-unpacked: no sbin/mdadm in $dir" >&2
	exit 1
}
