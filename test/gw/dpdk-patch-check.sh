#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# The rte_ipsec patches proposed in docs/dpdk-ipsec-replay.md, checked: the
# ```diff blocks of the document, applied in order to lib/ipsec of the DPDK
# source of the installed version (.deps/dpdk-src, from scripts/setup.sh),
# built with test/gw/dpdk_replay_bugs.c in place of the installed
# librte_ipsec, and run: every case must then behave as RFC 4303 says.
#
# usage: dpdk-patch-check.sh SOURCE_ROOT WORK_DIR
set -eu
top=$1
work=$2
src=$top/.deps/dpdk-src
cc=${CC:-cc}

if [ ! -f "$src/lib/ipsec/esp_inb.c" ] || [ ! -f "$src/VERSION" ]; then
	echo "FAIL: no DPDK source in $src (scripts/setup.sh fetches it)"
	exit 1
fi
have=$(pkg-config --modversion libdpdk)
want=$(cat "$src/VERSION")
if [ "$have" != "$want" ]; then
	echo "FAIL: installed DPDK $have, source $want: the patched lib/ipsec must match"
	exit 1
fi
rm -rf "$work"
mkdir -p "$work/lib/ipsec"
cp "$src"/lib/ipsec/*.c "$src"/lib/ipsec/*.h "$work/lib/ipsec/"
awk '/^```diff$/ { on = 1; next } /^```$/ { on = 0 } on' "$top/docs/dpdk-ipsec-replay.md" \
	> "$work/fixes.diff"
echo "applying $(grep -c '^@@' "$work/fixes.diff") hunks to DPDK $want lib/ipsec"
(cd "$work" && patch -p1 --no-backup-if-mismatch < fixes.diff)
cflags=$(pkg-config --cflags libdpdk)
for f in esp_inb esp_outb sa ses; do
	# shellcheck disable=SC2086
	$cc -O2 -fPIC -Wall -Wextra -Werror -Wno-unused-parameter -DALLOW_EXPERIMENTAL_API \
		-DALLOW_INTERNAL_API $cflags -I"$work/lib/ipsec" -c "$work/lib/ipsec/$f.c" \
		-o "$work/$f.o"
done
# the program's own rte_ipsec symbols come first: the patched library is used
# shellcheck disable=SC2086
$cc -O2 -DALLOW_EXPERIMENTAL_API $cflags "$top/test/gw/dpdk_replay_bugs.c" "$work"/*.o \
	$(pkg-config --libs libdpdk) -o "$work/dpdk_replay_bugs_patched"
rc=0
"$work/dpdk_replay_bugs_patched" -l 0 --no-pci --no-huge -m 64 --no-shconf --no-telemetry \
	--file-prefix vecsec-dpdk-patch --log-level '*:warning' -- fixed || rc=$?
rm -rf "$work"
exit $rc
