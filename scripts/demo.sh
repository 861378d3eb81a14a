#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's first command. Until the gateway exists, the demo is the
# library benchmark in quick mode: set up (Debian packages, DPDK headers),
# configure and build build/, then run vecsec-bench --quick --burst (every
# primitive at 64, 1420 and 8192 bytes against OpenSSL, libsodium,
# libgcrypt and ipsec-mb, plus bursts of 32 packets), printing the table and
# writing out/bench-quick.csv and out/bench-quick.png. Extra arguments go to
# vecsec-bench (e.g. --case chacha20-poly1305).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./scripts/setup.sh

if [ ! -f build/build.ninja ]; then
	rm -rf build
	meson setup build -Dbuildtype=release >/dev/null
fi
ninja -C build

mkdir -p out
./build/apps/vecsec-bench/vecsec-bench --quick --burst \
	--csv out/bench-quick.csv --png out/bench-quick.png "$@"

echo
echo "demo: table above; every point: $top/out/bench-quick.csv"
if [ -f out/bench-quick.png ]; then
	echo "demo: plot (cycles/byte vs size): $top/out/bench-quick.png"
fi
echo "demo: full run: ./scripts/bench.sh (writes out/bench.csv and out/bench.png)"
