#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The README's test command: set up (Debian packages, DPDK driver-SDK
# headers), build, and run the default suites in three builds:
#   build/       optimized build of everything (lib, PMD, apps, tests):
#                suites fast, pmd and interop
#   build-asan/  everything again under ASan + UBSan (LeakSanitizer on):
#                the same suites through meson's test setup `sanitize`
#                (meson.build: sanitizer options, LeakSanitizer's
#                suppressions in test/sanitize/lsan.supp, longer timeouts,
#                and the declared subset: tests also in suite `nosan` are
#                left out, each with its reason where it is defined; every
#                test program still runs at least once)
#   build-aarch64/
#                lib/ and its unit tests cross-built for aarch64
#                (cross/aarch64-linux-gnu.ini) and run under qemu-aarch64,
#                suite fast whatever the arguments: every test program runs
#                its suite at each ISA level (scalar, then NEON, forced in
#                turn) and VECSEC_TEST_REQUIRE_ISA=neon makes a missing NEON
#                level a failure, so every run proves the NEON kernels. A
#                cross tool, qemu or arm64 library missing after setup.sh is
#                a failure, not a skip.
# DPDK's stock tools (dpdk-test-crypto-perf, ipsec-secgw, app/test) are not
# instrumented; where they load the ASan-built PMD, test/pmd-tools/lib.sh
# preloads the sanitizer runtimes (LeakSanitizer off for them: their leaks
# are DPDK's).
#
# At the end: no EAL runtime folder (/run/dpdk/PREFIX) may be left behind;
# one that is new after the run, or that the run touched and left, counts
# as a failed check. On a machine shared with other DPDK runs, run this
# with a private /run/dpdk (e.g. `unshare --mount` and a tmpfs on /run/dpdk)
# so that their folders are not counted.
#
# Exits non-zero on any failure and prints `tests: N passed, M failed` (all
# three builds and the runtime-folder check). Extra arguments replace the
# suites of build/ and build-asan/ (e.g. --suite slow).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

./scripts/setup.sh

jobs=$(nproc)
suites=(--suite fast --suite pmd --suite interop)
[ $# -gt 0 ] && suites=("$@")

# EAL runtime folders present now, and a stamp to see which the run touches
rt_list() {
	local d
	for d in /run/dpdk "${XDG_RUNTIME_DIR:-/nonexistent}/dpdk"; do
		[ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 "$@"
	done | sort
	return 0
}
rt_stamp=$(mktemp)
rt_before=$(rt_list)
trap 'rm -f "$rt_stamp"' EXIT

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

echo "== ASan + UBSan build (everything; test setup 'sanitize') =="
# -Db_lundef=false: the PMD's .so leaves the sanitizer runtime to the program.
# -g1 (after the buildtype's -g): line tables are all a sanitizer report
# needs, and it compiles a quarter faster (this build is the longest step).
configure build-asan -Dbuildtype=debugoptimized \
	-Db_sanitize=address,undefined -Db_lundef=false \
	"-Dc_args=-fno-sanitize-recover=all -g1"
ninja -C build-asan
# DPDK's stock tools (ipsec-secgw, dpdk-test's cryptodev part) are built by
# the tests, uninstrumented, into BUILD/pmd-tools; the sanitizer run uses the
# same binaries, so it gets the optimized build's rather than compiling them
# again (their build scripts rebuild when the stamp of their inputs differs).
if [ -d build/pmd-tools ]; then
	mkdir -p build-asan/pmd-tools
	cp -a build/pmd-tools/. build-asan/pmd-tools/
fi
# --no-suite nosan: the setup's exclude_suites does not apply once --suite is given
run_suites build-asan --setup sanitize --no-suite nosan "${suites[@]}"

echo "== aarch64 cross build (lib/ and its tests) under qemu-aarch64 =="
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

echo "== EAL runtime folders =="
# new since the start, or there before and touched by the run (and not removed)
left=$(comm -13 <(echo "$rt_before") <(rt_list))
touched=$(comm -12 <(echo "$rt_before") <(rt_list -newer "$rt_stamp"))
left=$(printf '%s\n%s\n' "$left" "$touched" | sed '/^$/d' | sort -u)
if [ -n "$left" ]; then
	echo "FAIL: the run left $(echo "$left" | wc -l) EAL runtime folder(s) behind" \
		"(each test must remove what it creates):"
	echo "$left" | sed 's/^/  /'
	fail=$((fail + 1))
else
	echo "ok   no EAL runtime folder left behind"
	pass=$((pass + 1))
fi

echo
echo "tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
