#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build DPDK's stock ipsec-secgw example, unmodified, from the dpdk-doc
# package against the installed libdpdk (its own Makefile, pkg-config), in
# OUT_DIR/ipsec-secgw (an ignored build folder). The sources are copied
# because the Makefile builds into ./build next to them and /usr/share is
# not ours to write. Rebuilds only when the installed sources changed.
#
# usage: build-secgw.sh OUT_DIR     prints the path of the binary
set -euo pipefail
src=/usr/share/dpdk/examples
out=${1:?usage: build-secgw.sh OUT_DIR}
[ -f "$src/ipsec-secgw/Makefile" ] || { echo "no $src/ipsec-secgw: install dpdk-doc" >&2; exit 1; }
pkg-config --exists libdpdk || { echo "no libdpdk.pc: install libdpdk-dev" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/ipsec-secgw/build/ipsec-secgw

exec 9>"$out/.ipsec-secgw.lock"
flock 9
stamp=$(cd "$src" && find ipsec-secgw common -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)
if [ ! -x "$bin" ] || [ "$(cat "$out/ipsec-secgw/.stamp" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$out/ipsec-secgw" "$out/common"
	cp -a "$src/ipsec-secgw" "$src/common" "$out/"
	# The Makefile's shared link keeps the EAL's plugin path (Debian's
	# pmds-23.0), so net_tap and the reference crypto PMDs load by themselves.
	if ! make -C "$out/ipsec-secgw" -j2 >"$out/ipsec-secgw/make.log" 2>&1; then
		tail -n 30 "$out/ipsec-secgw/make.log" >&2
		exit 1
	fi
	echo "$stamp" >"$out/ipsec-secgw/.stamp"
fi
echo "$bin"
