#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build DPDK's stock ipsec-secgw example from the dpdk-doc package against
# the installed libdpdk (its own Makefile, pkg-config), in
# OUT_DIR/ipsec-secgw (an ignored build folder). The sources are copied
# because the Makefile builds into ./build next to them and /usr/share is
# not ours to write; DPDK's code is never committed. Rebuilds only when the
# installed sources (or the edit asked for) changed.
#
# Unmodified by default: what the interop tests run against
# (test/pmd-tools/secgw-interop.sh, test/gw/secgw_b2b.py). With
# --no-rx-csum, the benchmark's copy (scripts/bench-gw.sh) with ONE
# scripted edit: its port configuration asks for Rx checksum offload
# (RTE_ETH_RX_OFFLOAD_CHECKSUM), which net_pcap and net_null lack, so the
# unmodified app refuses those ports; the edit makes that request 0 and
# nothing else changes (the data path reads the checksum flags only to drop
# packets marked bad, and these ports mark none). Give the two different
# OUT_DIRs.
#
# usage: build-secgw.sh OUT_DIR [--no-rx-csum]     prints the path of the binary
set -euo pipefail
usage="usage: build-secgw.sh OUT_DIR [--no-rx-csum]"
src=/usr/share/dpdk/examples
out=${1:?$usage}
nocsum=0
case "${2:-}" in
"") ;;
--no-rx-csum) nocsum=1 ;;
*) echo "$usage" >&2; exit 1 ;;
esac
[ -f "$src/ipsec-secgw/Makefile" ] || { echo "no $src/ipsec-secgw: install dpdk-doc" >&2; exit 1; }
pkg-config --exists libdpdk || { echo "no libdpdk.pc: install libdpdk-dev" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/ipsec-secgw/build/ipsec-secgw

exec 9>"$out/.ipsec-secgw.lock"
flock 9
stamp=$(cd "$src" && find ipsec-secgw common -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)
[ "$nocsum" = 0 ] || stamp="$stamp-nocsum1"
if [ ! -x "$bin" ] || [ "$(cat "$out/ipsec-secgw/.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$out/ipsec-secgw" "$out/common"
	cp -a "$src/ipsec-secgw" "$src/common" "$out/"
	if [ "$nocsum" = 1 ]; then
		chmod -R u+w "$out/ipsec-secgw" "$out/common"
		f=$out/ipsec-secgw/ipsec-secgw.c
		# The one edit: in `static struct rte_eth_conf port_conf`, the line
		#	.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,
		# becomes `.offloads = 0,` (plus a comment saying why). Exactly one such
		# line must exist, else the sources changed and the edit is refused.
		n=$(grep -c '^[[:space:]]*\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,[[:space:]]*$' "$f" ||
			true)
		[ "$n" = 1 ] || { echo "build-secgw: expected one Rx checksum offload line in $f," \
			"found $n" >&2; exit 1; }
		sed -i 's|^\([[:space:]]*\)\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,[[:space:]]*$|\1.offloads = 0, /* vecsec bench: no Rx checksum offload (net_pcap, net_null lack it) */|' "$f"
		grep -q 'vecsec bench: no Rx checksum offload' "$f" ||
			{ echo "build-secgw: edit failed" >&2; exit 1; }
	fi
	# The Makefile's shared link keeps the EAL's plugin path (Debian's
	# pmds-23.0), so net_tap and the reference crypto PMDs load by themselves.
	if ! make -C "$out/ipsec-secgw" -j2 >"$out/ipsec-secgw/make.log" 2>&1; then
		tail -n 30 "$out/ipsec-secgw/make.log" >&2
		exit 1
	fi
	echo "$stamp" >"$out/ipsec-secgw/.stamp"
fi
echo "$bin"
