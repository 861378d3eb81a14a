#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# drivers/strongswan/configure --check-only: the config.h that setup.sh made
# passes the ABI checks against the installed strongSwan; the same file
# without `#define ME` (a plain ./configure: no --enable-mediation) is
# refused with a message that names the mediation trap, and so is one that
# selects strongSwan's own printf.
#
#   configure_check.sh SOURCE_ROOT STRONGSWAN_DEPS SCRATCH
set -u
top=$1 deps=$2 tmp=$3
conf="$top/drivers/strongswan/configure"
fail=0
rm -rf "$tmp"
mkdir -p "$tmp/good" "$tmp/noME" "$tmp/printf"
cp "$deps/build/config.h" "$tmp/good/config.h"
grep -v '^#define ME ' "$deps/build/config.h" > "$tmp/noME/config.h"
{ cat "$deps/build/config.h"; echo '#define USE_BUILTIN_PRINTF 1'; } > "$tmp/printf/config.h"

if "$conf" --check-only "$deps/src" "$tmp/good" >"$tmp/good.log" 2>&1; then
	echo "ok   setup.sh's config.h passes the ABI checks"
else
	echo "FAIL setup.sh's config.h fails the ABI checks:"; cat "$tmp/good.log"; fail=1
fi
if "$conf" --check-only "$deps/src" "$tmp/noME" >"$tmp/noME.log" 2>&1; then
	echo "FAIL a config.h without ME passes"; fail=1
elif grep -q "ABI check ME FAILED: libcharon exports mediation_manager_create but config.h lacks ME" \
		"$tmp/noME.log" && grep -q "would corrupt charon's memory" "$tmp/noME.log"; then
	echo "ok   a config.h without ME is refused, naming mediation (--enable-mediation)"
else
	echo "FAIL a config.h without ME: unclear message:"; cat "$tmp/noME.log"; fail=1
fi
if "$conf" --check-only "$deps/src" "$tmp/printf" >"$tmp/printf.log" 2>&1; then
	echo "FAIL a config.h with strongSwan's own printf passes"; fail=1
elif grep -q "ABI check printf FAILED" "$tmp/printf.log"; then
	echo "ok   a config.h selecting strongSwan's own printf is refused"
else
	echo "FAIL a config.h with USE_BUILTIN_PRINTF: unclear message:"; cat "$tmp/printf.log"; fail=1
fi
rm -rf "$tmp"
[ "$fail" = 0 ] && echo PASS || echo FAIL
exit "$fail"
