#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's first command: vecsec's main job on its embedded default.
# Sets up (Debian packages, DPDK driver-SDK headers), builds build/, then
# runs the ESP gateway vecsec-gw on built-in sample traffic
# (scripts/demo-gw.sh: clear -> ESP -> clear through net_ring ports, every
# packet checked byte for byte, per-SA counters and Mpps, ChaCha20-Poly1305
# on crypto_vecsec beside Debian's ipsec-mb PMDs). Extra arguments go to
# demo-gw.sh (--pkts N, --cpu-crypto). The library benchmark is
# ./scripts/bench.sh (--quick for a one-minute run).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./scripts/setup.sh
if [ ! -f build/build.ninja ]; then
	rm -rf build
	meson setup build -Dbuildtype=release >/dev/null
fi
ninja -C build >/dev/null

VECSEC_DEMO_SKIP_SETUP=1 ./scripts/demo-gw.sh "$@"
echo
echo "demo: library benchmark with peers: ./scripts/bench.sh --quick (table, out/bench.csv, out/bench.png)"
echo "demo: PMD benchmark: ./scripts/bench-pmd.sh; gateway options: build/apps/vecsec-gw/vecsec-gw --help"
