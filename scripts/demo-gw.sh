#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vecsec-gw demo, no arguments needed: builds what it needs, then runs the
# gateway on its built-in configuration (IPv4/IPv6, tunnel and transport,
# ChaCha20-Poly1305 and AES-GCM, an ESN SA crossing 2^32, a bypass flow)
# with four net_ring ports in one process: clear packets in on port 0, ESP
# out of port 1, looped into port 2, clear out of port 3. Every packet is
# checked byte for byte and counted; the script fails if one is missing,
# damaged or counted wrong. Then ChaCha20-Poly1305 only, on crypto_vecsec
# (when its PMD is built), crypto_aesni_mb and crypto_chacha20_poly1305, 64 B
# and 1400 B frames, with a summary of the rates.
#
#   scripts/demo-gw.sh [--pkts N] [--cpu-crypto]
#   VECSEC_DEMO_SKIP_SETUP=1 skips scripts/setup.sh (packages, SDK headers).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

pkts=200000
extra=()
vdev=()
while [ $# -gt 0 ]; do
	case "$1" in
	--pkts) pkts=$2; shift 2 ;;
	--cpu-crypto) extra+=(--cpu-crypto); shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "demo-gw: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [ "${VECSEC_DEMO_SKIP_SETUP:-0}" != 1 ]; then
	./scripts/setup.sh
fi
if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null

gw=build/apps/vecsec-gw/vecsec-gw
[ -x "$gw" ] || { echo "demo-gw: $gw was not built (is libdpdk-dev installed?)" >&2; exit 1; }

# EAL leaves its runtime folder behind (and /var/run/dpdk, if it made it):
# remove this run's, and the PMD's private copy, if one was made
. scripts/demo-pmd.sh
rundirs=("/var/run/dpdk/vecsec-gw-demo-$$" "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk/vecsec-gw-demo-$$")
made_rundir=0
[ -d /var/run/dpdk ] || made_rundir=1
cleanup() {
	rm -rf "${rundirs[@]}"
	[ "$made_rundir" = 0 ] || rmdir /var/run/dpdk 2>/dev/null || true
	pmd_private_cleanup
}
trap cleanup EXIT

# the build's crypto_vecsec, which the gateway run from the build tree hands
# EAL itself (-d): under a world-writable folder (a checkout in /tmp) EAL
# refuses it and every run would fail; a private copy instead, or one line
# that says what to do, before any EAL starts
pmd=()
if [ -e build/drivers/crypto/vecsec/librte_crypto_vecsec.so ]; then
	pmd_private build/drivers/crypto/vecsec/librte_crypto_vecsec.so || exit 1
	[ -z "$pmd_private_dir" ] || pmd=(-d "$pmd_so")
fi

run() {       # run NAME ARGS...: one demo, its rate line kept for the summary
	local name=$1 log
	shift
	log=$(mktemp)
	echo "== vecsec-gw demo: $name =="
	if ! timeout 120 "$gw" "${pmd[@]}" -l 0 --no-pci --no-huge -m 512 --file-prefix "vecsec-gw-demo-$$" \
		--log-level '*:warning' --no-telemetry --force-max-simd-bitwidth=512 "${vdev[@]}" -- \
		--demo --gen-pkts "$pkts" "${extra[@]}" "$@" | tee "$log"; then
		fail=1
	fi
	summary+=("$(printf '%-44s %s | %s' "$name" \
		"$(sed -n 's/^rate: .*, \([0-9.]* Mpps\) gateway only.*/\1 gateway wall/p' "$log")" \
		"$(sed -n 's/^rate: \([0-9.]* Mpps\) per CPU second.*/\1 per CPU s (all)/p' "$log")")")
	rm -f "$log"
	echo
}

fail=0
summary=()
# every feature at once: IPv4/IPv6, tunnel/transport, ChaCha20-Poly1305 and
# AES-GCM, ESN across 2^32, bypass
run "mixed SAs, 64 B" --gen-size 64
run "mixed SAs, 1400 B" --gen-size 1400
# ChaCha20-Poly1305 only, per cryptodev (crypto_vecsec: the build's .so, which the gateway
# run from the build tree hands EAL itself)
drivers=(crypto_aesni_mb crypto_chacha20_poly1305)
if [ -f build/drivers/crypto/vecsec/libvecsec_pmd.a ]; then
	drivers=(crypto_vecsec "${drivers[@]}")
fi
for drv in "${drivers[@]}"; do
	for size in 64 1400; do
		run "chacha20-poly1305 on $drv, $size B" --gen-size "$size" \
			--demo-aead chacha20-poly1305 --prefer "$drv"
	done
done
# ARIA-GCM: only crypto_vecsec has it
if [ -f build/drivers/crypto/vecsec/libvecsec_pmd.a ]; then
	for size in 64 1400; do
		run "aria-128-gcm on crypto_vecsec, $size B" --gen-size "$size" \
			--demo-aead aria-128-gcm
	done
fi
echo "== summary: $pkts packets each, one worker lcore, each packet encrypted and decrypted =="
printf '%s\n' "${summary[@]}"
echo "(per CPU s: packets per CPU second of the whole process, generator and checker"
echo " included; steadier than wall time on a shared machine)"
if [ "$fail" -ne 0 ]; then
	echo "demo-gw: FAILED"
	exit 1
fi
echo "demo-gw: all packets came back intact"
