#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# A lab tunnel in one command (docs/lab.md): four network namespaces,
#
#   hA --- gA [vecsec-gw + charon/kernel-vecsec] === gB [vecsec-gw + charon/kernel-vecsec] --- hB
#
# certificates from strongswan-pki, IKEv2 between the two charons, the
# gateways' routes and next hops from their kernels (--kernel-nh, no rule
# in their files); pings and numbered UDP through the tunnel, `vecsec-ctl
# show sa` and `swanctl --list-sas`; then everything is torn down, also
# after a failure or Ctrl-C. Exit status 0 when every check passed.
#
# Needs root (namespaces), the packages of scripts/setup.sh, and a build
# (made here if there is none: meson setup BUILD, ninja -C BUILD). Nothing
# is installed: charon loads the plugin from the build tree.
#
# usage: scripts/lab.sh [BUILD_DIR]     (default: build)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}

die() { printf 'lab: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (network namespaces); e.g. sudo $0 $*"
for t in ip ethtool ping pki swanctl python3 /usr/lib/ipsec/charon; do
	command -v "$t" >/dev/null || die "$t is missing: run scripts/setup.sh"
done
if [ ! -x "$build/apps/vecsec-gw/vecsec-gw" ] ||
		[ ! -e "$build/drivers/strongswan/libstrongswan-kernel-vecsec.so" ]; then
	echo "lab: no build in $build: building (meson setup, ninja)"
	[ -d "$build" ] || meson setup "$build" -Dbuildtype=release >/dev/null
	ninja -C "$build" >/dev/null
fi
build=$(cd "$build" && pwd)

# The driver removes what it made itself (namespaces, processes, its
# folder) on exit and on SIGTERM/SIGINT/SIGHUP; the trap makes sure of it
# when this shell is stopped: the driver is signalled, waited for, and any
# namespace of its prefix (lab<its pid>) left behind is deleted.
pid=
cleanup() {
	rc=$?
	trap - EXIT INT TERM HUP
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	if [ -n "$pid" ]; then
		for ns in $(ip netns list | awk '{print $1}' | grep -E "^lab$((pid % 100000))(hA|gA|gB|hB)$" || true); do
			ip netns del "$ns" 2>/dev/null || true
		done
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

python3 "$top/scripts/lab.py" "$build" &
pid=$!
wait "$pid"
