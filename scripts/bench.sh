#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The full library benchmark: every primitive at 16 .. 16384 bytes, once per
# ISA level of this CPU, against OpenSSL, libsodium, libgcrypt and ipsec-mb,
# and bursts of 32 packets (64 .. 1420 bytes and IMIX). Builds build/ if
# needed (scripts/setup.sh installs what it needs), writes out/bench.csv
# and out/bench.png. Extra arguments go to vecsec-bench, e.g.
#   ./scripts/bench.sh --case chacha20-poly1305,aria-128-gcm --reps 51
#   ./scripts/bench.sh --quick          (about a minute)
# BENCH_DOCS_IMG=1 also copies the plot and its CSV to docs/img/bench-lib.png
# and .csv, the committed picture of the library against its peers
# (docs/measurements.md), with the machine's load beside them (.load).
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
./build/apps/vecsec-bench/vecsec-bench --burst --csv out/bench.csv --png out/bench.png "$@"
echo
echo "bench: every point: $top/out/bench.csv"
[ -f out/bench.png ] && echo "bench: plot: $top/out/bench.png"
if [ "${BENCH_DOCS_IMG:-0}" = 1 ] && [ -f out/bench.png ]; then
	cp out/bench.png docs/img/bench-lib.png
	cp out/bench.csv docs/img/bench-lib.csv
	printf 'scripts/bench.sh %s\n%s CPUs, %s\nload average after the run%s\n' "$*" "$(nproc)" \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" \
		"$(uptime | sed 's/.*load average//')" > docs/img/bench-lib.load
	echo "bench: docs/img/bench-lib.png, .csv and .load written"
fi
exit 0
