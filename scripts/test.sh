#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's test command: set up (Debian packages, DPDK driver-SDK
# headers), build, and run the default suites in two builds:
#   build/       optimized build of everything (lib, PMD, apps, tests)
#   build-asan/  lib/ and its unit tests under ASan + UBSan (LeakSanitizer on)
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

echo
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
