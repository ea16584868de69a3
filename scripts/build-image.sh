#!/usr/bin/env bash
# Builds the OCI image iomapdirty:VERSION offline from Debian's packages:
# a root file system of only the .deb's run-time libraries (mmdebstrap
# --variant=extract: no shell, no dpkg, no compiler), the .deb unpacked on
# top, imported with podman. The static binary is no alternative: it has
# no exporter (a static libmicrohttpd needs gnutls, see the Makefile).
#
# usage: scripts/build-image.sh PATH/iomapdirty_VERSION_ARCH.deb [TAG]
#
# The library root file system is cached in
# /var/cache/iomapdirty-image/KEY, KEY a hash of everything it is built
# from: this script, the suite, the package names from the .deb's Depends
# and their candidate versions in the host's apt lists (so a security
# update of a library rebuilds it). Prints the image's tag.
set -euo pipefail
deb=$1
ver=$(dpkg-deb -f "$deb" Version)
tag=${2:-localhost/iomapdirty:$ver}
suite=bookworm
cache=/var/cache/iomapdirty-image
pkgs=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//; /^$/d' | sort -u)
key=$( { cat "$0"; echo "$suite"; apt-cache policy $pkgs | grep -E '^[a-z]|Candidate'; } |
	sha256sum | cut -c1-16)
base=$cache/$key
if [[ ! -d $base ]]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mmdebstrap --quiet --variant=extract --include="$(echo $pkgs | tr ' ' ,)" \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$suite" "$tmp/root" \
		"deb http://deb.debian.org/debian $suite main" \
		"deb http://deb.debian.org/debian $suite-updates main" \
		"deb http://deb.debian.org/debian-security $suite-security main" >&2
	mv "$tmp/root" "$base"
	rm -rf "$tmp"
	trap - EXIT
fi
img=$(mktemp -d /tmp/iomapdirty-image.XXXXXX)
trap 'rm -rf "$img"' EXIT
cp -a "$base/." "$img/"
dpkg-deb -x "$deb" "$img"
# what extract left for apt and dpkg, and docs: not needed to run
rm -rf "$img"/var/lib/apt "$img"/var/cache/apt "$img"/var/lib/dpkg "$img"/usr/share/doc \
	"$img"/usr/share/man "$img"/etc/apt
mkdir -p "$img/host" "$img/run/iomapdirty"
ldconfig -r "$img"
tar -C "$img" --numeric-owner -cf - . |
	podman import --quiet \
		--change 'ENTRYPOINT ["/usr/sbin/iomapdirty"]' \
		--change 'CMD ["exporter", "--path.rootfs", "/host", "--listen", "0.0.0.0:19110"]' \
		--change 'EXPOSE 19110/tcp' \
		--change "LABEL org.opencontainers.image.version=$ver" \
		- "$tag" >/dev/null
echo "$tag"
