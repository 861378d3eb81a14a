#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vecsec-gw demo, no arguments needed: builds what it needs, then runs the
# gateway on its built-in configuration (IPv4/IPv6, tunnel and transport,
# ChaCha20-Poly1305 and AES-GCM, an ESN SA crossing 2^32, a bypass flow)
# with four net_ring ports in one process: clear packets in on port 0, ESP
# out of port 1, looped into port 2, clear out of port 3. Every packet is
# checked byte for byte and counted; the script fails if one is missing,
# damaged or counted wrong. Uses crypto_vecsec when its PMD is built, else
# DPDK's crypto_aesni_mb.
#
#   scripts/demo-gw.sh [--pkts N] [--cpu-crypto] [--cryptodev VDEV]
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
	--cryptodev) vdev=(--vdev "$2"); shift 2 ;;
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

pmd=build/drivers/crypto/vecsec/librte_crypto_vecsec.so
plugin=()
if [ ${#vdev[@]} -eq 0 ] && [ -f "$pmd" ]; then
	plugin=(-d "$top/$pmd")
	vdev=(--vdev crypto_vecsec0)
fi

fail=0
for size in 64 1400; do
	echo "== vecsec-gw demo: $pkts packets of $size bytes, clear -> ESP -> clear =="
	if ! timeout 120 "$gw" -l 0 --no-pci --no-huge -m 512 --file-prefix "vecsec-gw-demo-$$" \
		--log-level '*:warning' --no-telemetry "${plugin[@]}" "${vdev[@]}" -- \
		--demo --gen-pkts "$pkts" --gen-size "$size" "${extra[@]}"; then
		fail=1
	fi
	echo
done
if [ "$fail" -ne 0 ]; then
	echo "demo-gw: FAILED"
	exit 1
fi
echo "demo-gw: all packets came back intact"
