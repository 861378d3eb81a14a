#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# vecsec-gw demo, no arguments needed: builds what it needs, then runs the
# gateway on its built-in configuration (IPv4/IPv6, tunnel and transport,
# ChaCha20-Poly1305 and AES-GCM, an ESN SA crossing 2^32, a bypass flow)
# with four net_ring ports in one process: clear packets in on port 0, ESP
# out of port 1, looped into port 2, clear out of port 3. Every packet is
# checked byte for byte and counted; the script fails if one is missing,
# damaged or counted wrong. Runs once with crypto_vecsec preferred (when its
# PMD is built) and once with DPDK's crypto_aesni_mb, 64 B and 1400 B frames.
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

# crypto_vecsec is linked into vecsec-gw when its PMD is built; the gateway
# picks cryptodevs by capability, preferring the --prefer driver.
drivers=(crypto_aesni_mb)
if [ -f build/drivers/crypto/vecsec/libvecsec_pmd.a ]; then
	drivers=(crypto_vecsec crypto_aesni_mb)
fi
if [ ${#vdev[@]} -ne 0 ]; then
	drivers=("${vdev[1]%%,*}")
	drivers=("${drivers[0]%%[0-9]*}")
fi

fail=0
summary=()
for drv in "${drivers[@]}"; do
	for size in 64 1400; do
		echo "== vecsec-gw demo: $pkts packets of $size bytes, clear -> ESP -> clear, $drv first =="
		log=$(mktemp)
		if ! timeout 120 "$gw" -l 0 --no-pci --no-huge -m 512 --file-prefix "vecsec-gw-demo-$$" \
			--log-level '*:warning' --no-telemetry "${vdev[@]}" -- \
			--demo --gen-pkts "$pkts" --gen-size "$size" --prefer "$drv" "${extra[@]}" \
			| tee "$log"; then
			fail=1
		fi
		summary+=("$(printf '%-16s %5s B: %s' "$drv" "$size" \
			"$(sed -n 's/^rate: .*Mpps end to end.*, \([0-9.]* Mpps\) gateway only.*/\1 gateway only/p' "$log")")")
		rm -f "$log"
		echo
	done
done
echo "== summary (one worker lcore; ChaCha20-Poly1305 SAs on the preferred driver, AES-GCM on any) =="
printf '%s\n' "${summary[@]}"
if [ "$fail" -ne 0 ]; then
	echo "demo-gw: FAILED"
	exit 1
fi
echo "demo-gw: all packets came back intact"
