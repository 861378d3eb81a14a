#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# meson install, last step: say what this install wrote outside its prefix
# (only where the build was asked to: -Dpmd_dir=system, -Dstrongswan_*dir=
# system, a sysconfdir or systemd_unit_dir outside it), one line per path,
# so an operator knows what else on the host now sees vecsec.
# usage: install_outside.sh PREFIX PATH...   (a PATH may end in a glob; DESTDIR honoured)
set -eu
prefix=$1
shift
for p in "$@"; do
	case "$p" in
	"$prefix"/*) continue ;;
	esac
	for f in ${DESTDIR:-}$p; do
		[ -e "$f" ] || continue
		echo "vecsec: installed outside the prefix $prefix: ${f#"${DESTDIR:-}"}"
	done
done
