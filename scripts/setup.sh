#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Idempotent set-up for a fresh Debian 12 machine: installs every Debian
# package that vecsec's build, tests and benchmarks need (only those missing),
# then fetches DPDK's driver-SDK headers from the distribution's `dpdk` source
# package of exactly the installed libdpdk-dev version into .deps/ (ignored),
# and strongSwan's headers (the `strongswan` source package of the installed
# libstrongswan's upstream version) plus the config.h that
# drivers/strongswan/configure makes from them, for the kernel-vecsec charon
# plugin. A deb-src entry, if needed, is derived from the machine's own deb
# sources; no host name is written anywhere.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
deps="$top/.deps"

PKGS=(gcc g++ make meson ninja-build pkg-config python3 dpkg-dev
      dpdk dpdk-dev libdpdk-dev dpdk-doc libpcap-dev libcunit1-dev
      libssl-dev openssl libsodium-dev libgcrypt20-dev libipsec-mb-dev nettle-dev
      python3-scapy python3-cryptography python3-matplotlib gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      qemu-user iproute2 libclang-rt-14-dev clang-14 xz-utils
      python3-pyelftools groff-base
      strongswan-charon strongswan-swanctl strongswan-pki libcharon-extra-plugins
      libstrongswan-standard-plugins libstrongswan-extra-plugins bzip2 ethtool binutils
      prometheus libmnl-dev graphviz iputils-ping)

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || die "not root and no sudo: cannot install packages"
	SUDO=sudo
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	log "apt-get update"
	$SUDO apt-get update -q >/dev/null || die "apt-get update failed"
	updated=1
}

if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null || die "apt-get install failed for: ${missing[*]}"
fi

# ---- arm64 libraries for the aarch64 cross build (Debian multiarch) ---------
# The lib/ tests run under qemu-aarch64 (scripts/test.sh) and link the same
# oracles as on x86: arm64 OpenSSL, libsodium, CUnit and libgcrypt. Those
# whose -dev packages are Multi-Arch: same install beside the amd64 ones.
# libgcrypt20-dev and libgpg-error-dev are not (installing their :arm64
# builds removes the amd64 ones, and libxmlsec1-dev with them): only their
# runtime libraries are installed, and their development files (headers,
# libgcrypt.so, .pc) are unpacked from the arm64 .debs of exactly the
# installed runtime's version into .deps/arm64-dev, whose .pc folder the
# cross build names (pkg_config_path). pkgconf:arm64 gives the cross
# pkg-config (aarch64-linux-gnu-pkg-config) of cross/aarch64-linux-gnu.ini.
PKGS_ARM64=(libc6:arm64 libssl-dev:arm64 libsodium-dev:arm64 libcunit1-dev:arm64
	    libgcrypt20:arm64 libgpg-error0:arm64 pkgconf:arm64)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	log "adding the arm64 architecture (multiarch)"
	$SUDO dpkg --add-architecture arm64
	updated=0
fi
missing=()
for p in "${PKGS_ARM64[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	log "installing: ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null || die "apt-get install failed for: ${missing[*]}"
fi
arm64dev="$deps/arm64-dev"
gcry_ver=$(dpkg-query -W -f='${Version}' libgcrypt20:arm64)
gpge_ver=$(dpkg-query -W -f='${Version}' libgpg-error0:arm64)
if [ "$(cat "$arm64dev/.version" 2>/dev/null)" != "$gcry_ver $gpge_ver" ]; then
	log "unpacking libgcrypt20-dev:arm64 $gcry_ver, libgpg-error-dev:arm64 $gpge_ver"
	rm -rf "$arm64dev" "$deps/dl-arm64"
	mkdir -p "$arm64dev" "$deps/dl-arm64"
	(cd "$deps/dl-arm64" && apt-get download -q "libgcrypt20-dev:arm64=$gcry_ver" \
		"libgpg-error-dev:arm64=$gpge_ver" >/dev/null 2>&1) || {
		apt_update
		(cd "$deps/dl-arm64" && apt-get download -q "libgcrypt20-dev:arm64=$gcry_ver" \
			"libgpg-error-dev:arm64=$gpge_ver" >/dev/null 2>&1)
	} || die "cannot download the arm64 libgcrypt/libgpg-error development packages"
	for d in "$deps"/dl-arm64/*.deb; do
		dpkg-deb -x "$d" "$arm64dev" || die "cannot unpack $d"
	done
	lib="$arm64dev/usr/lib/aarch64-linux-gnu"
	# the .so links point at the installed arm64 runtime libraries
	ln -sf /usr/lib/aarch64-linux-gnu/libgcrypt.so.20 "$lib/libgcrypt.so"
	ln -sf /usr/lib/aarch64-linux-gnu/libgpg-error.so.0 "$lib/libgpg-error.so"
	rm -f "$lib"/*.a
	sed -i "s|^prefix=.*|prefix=$arm64dev/usr|" "$lib"/pkgconfig/*.pc
	# gpg-error.h lives in the multiarch include folder
	sed -i 's|^Cflags:.*|Cflags: -I${includedir}/aarch64-linux-gnu|' "$lib/pkgconfig/gpg-error.pc"
	echo "$gcry_ver $gpge_ver" > "$arm64dev/.version"
fi

# ---- DPDK driver-SDK headers -------------------------------------------------
# Add deb-src twins of the configured deb sources, if apt has no source for
# $1 (package=version).
have_src() { apt-get source --print-uris -q "$1" >/dev/null 2>&1; }
ensure_deb_src() {
	have_src "$1" && return 0
	apt_update
	if ! have_src "$1"; then
		srcfile=/etc/apt/sources.list.d/vecsec-deb-src.sources
		log "adding deb-src entries derived from the configured sources ($srcfile)"
		tmp=$(mktemp)
		# deb822 files: copy each stanza whose Types include deb, as deb-src.
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			[ "$f" = "$srcfile" ] && continue
			awk 'BEGIN{RS=""; ORS="\n\n"}
			     /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && !/(^|\n)Enabled: *no/ {
				sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f" >> "$tmp"
		done
		# one-line sources.list entries
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			grep -E '^[[:space:]]*deb[[:space:]]' "$f" | sed -E 's/^[[:space:]]*deb[[:space:]]/deb-src /' \
				> "$tmp.list" || true
			if [ -s "$tmp.list" ]; then
				cat "$tmp.list" | $SUDO tee -a /etc/apt/sources.list.d/vecsec-deb-src.list >/dev/null
			fi
			rm -f "$tmp.list"
		done
		[ -s "$tmp" ] && $SUDO cp "$tmp" "$srcfile"
		rm -f "$tmp"
		updated=0
		apt_update
		have_src "$1" || return 1
	fi
	return 0
}

dpdk_sdk() {
ver=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) || die "libdpdk-dev not installed"
sdk="$deps/dpdk-sdk"
stamp="$sdk/.version"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ] && [ -d "$deps/dpdk-src" ]; then
	log "DPDK driver-SDK headers for $ver already present"
	return 0
fi
ensure_deb_src "dpdk=$ver" || die "the dpdk source package of version $ver (= installed libdpdk-dev) is not available from the configured archives; cannot fetch the driver-SDK headers"

log "fetching dpdk source package $ver"
rm -rf "$deps/dpdk-src" "$sdk"
mkdir -p "$deps/dl" "$sdk/include"
(cd "$deps/dl" && apt-get source --download-only -q "dpdk=$ver" >/dev/null) \
	|| die "apt-get source dpdk=$ver failed"
dsc=$(ls "$deps/dl"/dpdk_*.dsc | head -n 1)
[ -n "$dsc" ] || die "no .dsc downloaded"
upver=${ver%-*}
orig=$(ls "$deps"/dl/dpdk_"${upver#*:}".orig.tar.* 2>/dev/null | head -n 1)
[ -n "$orig" ] || die "no orig tarball for $ver"
mkdir -p "$deps/dpdk-src"
tar -xf "$orig" -C "$deps/dpdk-src" --strip-components=1 \
	|| die "cannot unpack $orig"
# Debian patches, if any, so the tree is exactly the packaged version.
deb=$(ls "$deps"/dl/dpdk_*.debian.tar.* 2>/dev/null | head -n 1)
if [ -n "$deb" ]; then
	tar -xf "$deb" -C "$deps/dpdk-src"
	if [ -f "$deps/dpdk-src/debian/patches/series" ]; then
		while read -r p; do
			case "$p" in ''|\#*) continue ;; esac
			patch -d "$deps/dpdk-src" -p1 -s -N < "$deps/dpdk-src/debian/patches/$p" \
				|| die "Debian patch $p does not apply"
		done < "$deps/dpdk-src/debian/patches/series"
	fi
fi

# The headers a PMD needs that libdpdk-dev does not install.
for h in lib/cryptodev/cryptodev_pmd.h lib/eal/include/dev_driver.h \
	 lib/eal/include/bus_driver.h drivers/bus/vdev/bus_vdev_driver.h \
	 lib/security/rte_security_driver.h lib/ethdev/ethdev_driver.h \
	 lib/ethdev/ethdev_pci.h lib/ethdev/ethdev_vdev.h; do
	[ -f "$deps/dpdk-src/$h" ] && cp "$deps/dpdk-src/$h" "$sdk/include/"
done
for h in cryptodev_pmd.h dev_driver.h bus_driver.h bus_vdev_driver.h; do
	[ -f "$sdk/include/$h" ] || die "driver-SDK header $h not found in dpdk $ver"
done
echo "$ver" > "$stamp"
log "DPDK driver-SDK headers for $ver in $sdk/include"
}

# ---- strongSwan headers and config.h (the kernel-vecsec charon plugin) -------
# Debian ships no libstrongswan-dev. The headers come from the `strongswan`
# source package of the installed libstrongswan; only its upstream tarball
# is used (identical for every Debian revision of one upstream version; the
# Debian patches touch no header a plugin depends on), checked against the
# SHA256 of apt's signed source index. The archive may no longer serve the
# exact revision's .dsc (it happened for a security update), so the other
# revisions of the same upstream version are tried. drivers/strongswan/configure
# then makes config.h and checks it against the installed binaries.
strongswan_src() {
	local full up out stamp dl v line name sha got orig=""
	full=$(dpkg-query -W -f='${source:Version}' libstrongswan 2>/dev/null) ||
		die "libstrongswan not installed"
	up=$(dpkg-query -W -f='${source:Upstream-Version}' libstrongswan)
	out="$deps/strongswan"
	stamp="$out/.version"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$full" ] && [ -f "$out/build/config.h" ]; then
		log "strongSwan $up headers and config.h already present"
		return 0
	fi
	ensure_deb_src "strongswan=$full" || log "no deb-src for strongswan=$full; trying other $up revisions"
	dl="$deps/dl-strongswan"
	rm -rf "$dl"
	mkdir -p "$dl"
	local cands=("$full")
	while read -r v; do
		[ "$v" != "$full" ] && cands+=("$v")
	done < <(apt-cache showsrc strongswan 2>/dev/null | awk '/^Version:/ {print $2}' |
		grep -F -- "$up-" | sort -u -r)
	for v in "${cands[@]}"; do
		line=$(apt-get source --print-uris -q "strongswan=$v" 2>/dev/null |
			grep -E "strongswan_${up//./\\.}\.orig\.tar\.[a-z0-9]+' " | head -n 1) || true
		[ -n "$line" ] || continue
		name=$(awk '{print $2}' <<<"$line")
		sha=$(grep -o 'SHA256:[0-9a-f]*' <<<"$line" | cut -d: -f2)
		log "fetching strongswan source $v ($name)"
		# a missing .dsc or debian.tar makes apt fail after the tarball came
		(cd "$dl" && apt-get source --download-only -q "strongswan=$v" >/dev/null 2>&1) || true
		[ -f "$dl/$name" ] || continue
		got=$(sha256sum "$dl/$name" | cut -d' ' -f1)
		if [ -n "$sha" ] && [ "$got" = "$sha" ]; then
			orig="$dl/$name"
			break
		fi
		log "$name: SHA256 $got is not the index's $sha; ignored"
		rm -f "$dl/$name"
	done
	[ -n "$orig" ] || die "no strongswan $up source tarball could be fetched (tried ${cands[*]}); the kernel-vecsec plugin needs its headers"
	rm -rf "$out"
	mkdir -p "$out/src" "$out/build"
	tar -xf "$orig" -C "$out/src" --strip-components=1 || die "cannot unpack $orig"
	"$top/drivers/strongswan/configure" "$out/src" "$out/build" ||
		die "drivers/strongswan/configure failed: no config.h for the kernel-vecsec plugin"
	echo "$full" > "$stamp"
	rm -rf "$dl"
	log "strongSwan $up headers in $out/src, config.h in $out/build"
}

dpdk_sdk
strongswan_src
