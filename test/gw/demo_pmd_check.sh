#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The quick start from a checkout under a world-writable folder (/tmp):
# EAL refuses a -d plugin anywhere under one, so scripts/demo-gw.sh checks
# the build's crypto_vecsec before EAL starts and hands EAL a private copy
# (scripts/demo-pmd.sh). Here the PMD lies in a 1777 folder under /tmp:
#   - the gateway given that -d fails in EAL init (what the demo ran into)
#   - pmd_unsafe names the world-writable folder; pmd_private makes a copy
#     whose path has no world-writable component, and the gateway's demo
#     runs on crypto_vecsec from it
#   - pmd_private_cleanup removes the copy; no EAL runtime folder is left
#   - a PMD already in a safe place is used as it is (no copy)
#
#   demo_pmd_check.sh SOURCE_ROOT GATEWAY_BINARY PMD_SO
set -uo pipefail
src=$1 gw=$2 so=$3
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ok() { echo "ok   $*"; }

ww=$(mktemp -d /tmp/vecsec-demo-pmd.XXXXXX)
chmod 1777 "$ww"
prefix=vecsec-demo-pmd-$$
rundir=/var/run/dpdk/$prefix
[ "$(id -u)" = 0 ] || rundir=${XDG_RUNTIME_DIR:-/tmp}/dpdk/$prefix
# shellcheck source=../../scripts/demo-pmd.sh
. "$src/scripts/demo-pmd.sh"
trap 'pmd_private_cleanup; rm -rf "$ww" "$rundir"' EXIT
cp "$(readlink -f "$so")" "$ww/librte_crypto_vecsec.so"

demo() {        # demo PMD LOG: the gateway's demo on crypto_vecsec loaded from PMD
	timeout 120 "$gw" -d "$1" -l 0 --no-pci --no-huge -m 256 --file-prefix "$prefix" \
		--no-telemetry -- --demo --gen-pkts 2000 \
		--demo-aead chacha20-poly1305 --prefer crypto_vecsec >"$2" 2>&1
}

log=$ww/refused.log
if demo "$ww/librte_crypto_vecsec.so" "$log"; then
	bad "the gateway loaded a PMD from the world-writable $ww (EAL should refuse it)"
elif ! grep -q "world-writable" "$log"; then
	bad "the gateway failed, not for the world-writable folder: $(tail -3 "$log")"
else
	ok "EAL refuses the PMD under $ww: $(grep -m1 world-writable "$log")"
fi
rm -rf "$rundir"

if ! w=$(pmd_unsafe "$ww/librte_crypto_vecsec.so"); then
	bad "pmd_unsafe found nothing world-writable above $ww"
elif [ "$w" != "$ww" ]; then
	bad "pmd_unsafe named $w, want $ww"
else
	ok "pmd_unsafe names $w"
fi

if ! pmd_private "$ww/librte_crypto_vecsec.so" 2>"$ww/msg"; then
	bad "pmd_private found no place for a copy: $(cat "$ww/msg")"
elif [ -z "$pmd_private_dir" ] || [ "$pmd_so" = "$ww/librte_crypto_vecsec.so" ]; then
	bad "pmd_private made no copy ($pmd_so)"
elif w=$(pmd_unsafe "$pmd_so"); then
	bad "the copy $pmd_so lies under the world-writable $w"
elif [ "$(stat -c %a "$pmd_private_dir")" != 700 ]; then
	bad "the copy's folder $pmd_private_dir is mode $(stat -c %a "$pmd_private_dir"), want 700"
else
	ok "pmd_private: a copy in $pmd_private_dir ($(cat "$ww/msg"))"
	log=$ww/copy.log
	if demo "$pmd_so" "$log" && grep -q "(driver crypto_vecsec" "$log"; then
		ok "the demo runs on crypto_vecsec from the copy"
	else
		bad "the demo from the copy failed: $(tail -5 "$log")"
	fi
fi
copy=$pmd_private_dir
pmd_private_cleanup
if [ -n "$copy" ] && [ -e "$copy" ]; then
	bad "pmd_private_cleanup left $copy"
fi
if [ -e "$rundir" ] && [ -z "$(ls -A "$rundir")" ]; then
	bad "an empty EAL runtime folder $rundir is left"
fi
rm -rf "$rundir"

# a PMD where EAL takes it: no copy
safe=$(readlink -f "$so")
if w=$(pmd_unsafe "$safe"); then
	ok "(the build's own PMD lies under the world-writable $w: no check of the safe case)"
else
	pmd_private "$safe"
	if [ -n "$pmd_private_dir" ] || [ "$pmd_so" != "$safe" ]; then
		bad "pmd_private copied a PMD EAL accepts as it is ($pmd_so)"
	else
		ok "a PMD outside world-writable folders is used as it is"
	fi
fi

[ "$fail" = 0 ] && echo PASS || echo FAIL
exit "$fail"
