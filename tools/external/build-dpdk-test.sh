#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the cryptodev part of DPDK's dpdk-test (app/test of the installed
# version's source, .deps/dpdk-src from scripts/setup.sh) against the
# installed libdpdk, in OUT_DIR/dpdk-test. DPDK's files are copied, never
# edited: test_cryptodev.c is compiled through dpdk_test_under_test.c (it
# adds the commands for a driver named at run time) and dpdk_test_stubs.c
# stands in for the app/test sources left out. One header, rte_test.h, is
# copied from the source tree because Debian's libdpdk-dev does not install
# it. Rebuilds only when an input changed.
#
# usage: build-dpdk-test.sh OUT_DIR [DPDK_SRC]     prints the binary's path
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-dpdk-test.sh OUT_DIR [DPDK_SRC]}
src=${2:-$here/../../.deps/dpdk-src}
[ -f "$src/app/test/test_cryptodev.c" ] ||
	{ echo "no DPDK source tree at $src: run scripts/setup.sh" >&2; exit 1; }
src=$(readlink -f "$src")
want=$(pkg-config --modversion libdpdk)
have=$(cat "$src/VERSION")
[ "$want" = "$have" ] ||
	{ echo "DPDK source $have does not match the installed libdpdk $want" >&2; exit 1; }

mkdir -p "$out"
out=$(readlink -f "$out")
dir=$out/dpdk-test
bin=$dir/dpdk-test-cryptodev
exec 9>"$out/.dpdk-test.lock"
flock 9

# DPDK's files this build needs: the test harness, the cryptodev suites
# (test_cryptodev.c runs the blockcipher, IPsec and PDCP sub-suites too).
files=(test.c test.h commands.c test_pdump.h sample_packet_forward.h
	test_cryptodev_blockcipher.c test_cryptodev_security_ipsec.c
	test_cryptodev_security_pdcp.c)
stamp=$( (cd "$src/app/test" && cat "${files[@]}" test_cryptodev*.h test_cryptodev.c;
	cat "$src/lib/eal/include/rte_test.h" "$here/dpdk_test_under_test.c" \
		"$here/dpdk_test_stubs.c" "$here/build-dpdk-test.sh"; echo "$want") | sha256sum | cut -c1-16)
if [ -x "$bin" ] && [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$bin"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir/dpdk"
(cd "$src/app/test" && cp "${files[@]}" test_cryptodev*.h test_cryptodev.c "$dir/dpdk/")
cp "$src/lib/eal/include/rte_test.h" "$dir/dpdk/"
cp "$here/dpdk_test_under_test.c" "$here/dpdk_test_stubs.c" "$dir/"

read -r -a cflags <<<"$(pkg-config --cflags libdpdk)"
# DPDK's own build of app/test: -DALLOW_EXPERIMENTAL_API, no -Werror.
cflags+=(-O2 -g -I"$dir/dpdk" -DALLOW_EXPERIMENTAL_API -DALLOW_INTERNAL_API -w)
srcs=("$dir/dpdk/test.c" "$dir/dpdk/commands.c" "$dir/dpdk/test_cryptodev_blockcipher.c"
	"$dir/dpdk/test_cryptodev_security_ipsec.c" "$dir/dpdk/test_cryptodev_security_pdcp.c"
	"$dir/dpdk_test_under_test.c" "$dir/dpdk_test_stubs.c")
objs=()
pids=()
log=$dir/build.log
: >"$log"
# two compilers at a time (build machines are shared: -j2 at most)
for s in "${srcs[@]}"; do
	o=$dir/$(basename "${s%.c}").o
	objs+=("$o")
	cc "${cflags[@]}" -c "$s" -o "$o" >>"$log" 2>&1 &
	pids+=($!)
	if [ ${#pids[@]} -ge 2 ]; then
		wait "${pids[0]}" || { tail -n 30 "$log" >&2; exit 1; }
		pids=("${pids[@]:1}")
	fi
done
for p in "${pids[@]}"; do
	wait "$p" || { tail -n 30 "$log" >&2; exit 1; }
done
read -r -a libs <<<"$(pkg-config --libs libdpdk)"
# libdpdk.pc names only the libraries; the suites also call the vdev bus
# and the crypto scheduler PMD's API directly.
cc -o "$bin" "${objs[@]}" "${libs[@]}" -lrte_bus_vdev -lrte_crypto_scheduler \
	-lm -lpthread >>"$log" 2>&1 || { tail -n 30 "$log" >&2; exit 1; }
echo "$stamp" >"$dir/.stamp"
echo "$bin"
