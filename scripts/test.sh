#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's test command: set up (Debian packages, DPDK driver-SDK
# headers), build, and run the default suites in three builds:
#   build/          optimized build of everything (lib, PMD, apps, tests)
#   build-asan/     lib/ and its unit tests under ASan + UBSan (LeakSanitizer on)
#   build-aarch64/  lib/ and its unit tests cross-built for aarch64
#                   (cross/aarch64-linux-gnu.ini), run under qemu-aarch64:
#                   every test program runs its suite at each ISA level
#                   (scalar, then NEON, forced in turn), and
#                   VECSEC_TEST_REQUIRE_ISA=neon turns a missing NEON level
#                   into a failure, so every run proves the NEON kernels.
# Exits non-zero on any failure. Extra arguments go to `meson test` of the
# optimized build (e.g. --suite slow).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./scripts/setup.sh

jobs=$(nproc)
suites=(--suite fast --suite pmd --suite interop)
[ $# -gt 0 ] && suites=("$@")

configure() {
	local dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" "$@" >/dev/null
	else
		rm -rf "$dir"
		meson setup "$dir" "$@" >/dev/null
	fi
}

pass=0
fail=0
run_suites() {
	local dir=$1 log rc
	shift
	log="$dir/meson-logs/test-summary.txt"
	set +e
	meson test -C "$dir" --num-processes "$jobs" --print-errorlogs "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	set -e
	local ok bad
	ok=$(awk '/^Ok:/ {print $2}' "$log" | tail -n 1)
	bad=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $2} END {print s + 0}' "$log")
	pass=$((pass + ${ok:-0}))
	fail=$((fail + bad))
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		fail=$((fail + 1))
	fi
}

echo "== optimized build =="
configure build -Dbuildtype=release
ninja -C build
run_suites build "${suites[@]}"

echo "== ASan + UBSan build (lib/ and its tests) =="
configure build-asan -Dbuildtype=debugoptimized -Dlib_only=true \
	-Db_sanitize=address,undefined -Db_lundef=false \
	-Dc_args=-fno-sanitize-recover=all
ninja -C build-asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
run_suites build-asan --suite fast

echo "== aarch64 cross build (lib/ and its tests) under qemu-aarch64 =="
unset ASAN_OPTIONS UBSAN_OPTIONS
# setup.sh installed all of these: a missing one is a failure, never a skip
arm_missing=()
for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-pkg-config qemu-aarch64; do
	command -v "$t" >/dev/null || arm_missing+=("$t")
done
for f in /lib/ld-linux-aarch64.so.1 \
	"$top/.deps/arm64-dev/usr/lib/aarch64-linux-gnu/pkgconfig/libgcrypt.pc"; do
	[ -e "$f" ] || arm_missing+=("$f")
done
if [ ${#arm_missing[@]} -gt 0 ]; then
	echo "FAIL: aarch64: missing after scripts/setup.sh: ${arm_missing[*]}" >&2
	echo "FAIL: aarch64: the NEON kernels were not tested"
	fail=$((fail + 1))
else
	configure build-aarch64 --cross-file cross/aarch64-linux-gnu.ini -Dbuildtype=release \
		-Dlib_only=true \
		-Dpkg_config_path="$top/.deps/arm64-dev/usr/lib/aarch64-linux-gnu/pkgconfig"
	ninja -C build-aarch64
	start=$(date +%s)
	before=$pass
	VECSEC_TEST_REQUIRE_ISA=neon run_suites build-aarch64 --suite fast
	# a cross test meson could not run (no exe_wrapper) is reported as skipped
	skipped=$(awk '/^Skipped:/ {print $2}' build-aarch64/meson-logs/test-summary.txt | tail -n 1)
	if [ "${skipped:-0}" -ne 0 ] || [ "$pass" -eq "$before" ]; then
		echo "FAIL: aarch64: ${skipped:-0} test programs skipped, $((pass - before)) passed"
		fail=$((fail + 1))
	fi
	echo "aarch64 suite under qemu-aarch64: $(($(date +%s) - start)) s"
fi

echo
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
