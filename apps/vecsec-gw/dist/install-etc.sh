#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# meson install: the sample /etc/vecsec files, but never over an
# operator's own (a reinstall keeps vecsec-gw.conf and vecsec-gw.env as
# they are; the samples stay in DATADIR for comparison).
# usage: install-etc.sh SYSCONFDIR DATADIR   (DESTDIR honoured)
set -eu
etc="${DESTDIR:-}$1/vecsec"
src="${DESTDIR:-}$2/vecsec/etc"
install -d -m 0755 "$etc"
for f in vecsec-gw.conf vecsec-gw.env; do
	if [ -e "$etc/$f" ]; then
		echo "vecsec: $etc/$f exists: kept (sample: $src/$f)"
	else
		install -m 0600 "$src/$f" "$etc/$f"
	fi
done
