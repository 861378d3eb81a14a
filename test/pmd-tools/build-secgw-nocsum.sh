#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build a copy of DPDK's stock ipsec-secgw example for the benchmark
# (scripts/bench-gw.sh) in OUT_DIR/ipsec-secgw, with ONE scripted edit: its
# port configuration asks for Rx checksum offload (RTE_ETH_RX_OFFLOAD_CHECKSUM),
# which net_pcap and net_null lack, so the unmodified app refuses those ports.
# The edit makes that request 0; nothing else changes (the data path reads
# the checksum flags only to drop packets marked bad, and these ports mark
# none). DPDK's code is copied from the dpdk-doc package at build time and
# never committed. The unmodified build that the interop tests use
# (build-secgw.sh, BUILD/pmd-tools/ipsec-secgw) is a different folder and
# stays untouched. Rebuilds only when the installed sources changed.
#
# usage: build-secgw-nocsum.sh OUT_DIR     prints the path of the binary
set -euo pipefail
src=/usr/share/dpdk/examples
out=${1:?usage: build-secgw-nocsum.sh OUT_DIR}
[ -f "$src/ipsec-secgw/Makefile" ] || { echo "no $src/ipsec-secgw: install dpdk-doc" >&2; exit 1; }
pkg-config --exists libdpdk || { echo "no libdpdk.pc: install libdpdk-dev" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/ipsec-secgw/build/ipsec-secgw

exec 9>"$out/.ipsec-secgw.lock"
flock 9
stamp=$(cd "$src" && find ipsec-secgw common -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)
stamp="$stamp-nocsum1"
if [ ! -x "$bin" ] || [ "$(cat "$out/ipsec-secgw/.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$out/ipsec-secgw" "$out/common"
	cp -a "$src/ipsec-secgw" "$src/common" "$out/"
	chmod -R u+w "$out/ipsec-secgw" "$out/common"
	f=$out/ipsec-secgw/ipsec-secgw.c
	# The one edit: in `static struct rte_eth_conf port_conf`, the line
	#	.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,
	# becomes `.offloads = 0,` (plus a comment saying why). Exactly one such
	# line must exist, else the sources changed and the edit is refused.
	n=$(grep -c '^[[:space:]]*\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,[[:space:]]*$' "$f" || true)
	[ "$n" = 1 ] || { echo "build-secgw-nocsum: expected one Rx checksum offload line in $f, found $n" >&2; exit 1; }
	sed -i 's|^\([[:space:]]*\)\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,[[:space:]]*$|\1.offloads = 0, /* vecsec bench: no Rx checksum offload (net_pcap, net_null lack it) */|' "$f"
	grep -q 'vecsec bench: no Rx checksum offload' "$f" || { echo "build-secgw-nocsum: edit failed" >&2; exit 1; }
	if ! make -C "$out/ipsec-secgw" -j2 >"$out/ipsec-secgw/make.log" 2>&1; then
		tail -n 30 "$out/ipsec-secgw/make.log" >&2
		exit 1
	fi
	echo "$stamp" >"$out/ipsec-secgw/.stamp"
fi
echo "$bin"
