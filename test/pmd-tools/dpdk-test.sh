#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# DPDK's own cryptodev unit tests (app/test/test_cryptodev.c of the installed
# version, built by tools/external/build-dpdk-test.sh) against the vecsec PMD: the whole
# generic symmetric suite (run_cryptodev_testsuite(): blockcipher, AEAD,
# ChaCha20-Poly1305, general, ... sub-suites; what the PMD's capabilities
# do not cover is skipped by the suite itself), once with lookaside ops and
# once through rte_cryptodev_sym_cpu_crypto_process(). Passes when no test
# fails and every ChaCha20-Poly1305 case the mode allows ran and passed.
#
# usage: dpdk-test.sh BUILD_DIR [DEVTYPE]   (DEVTYPE: see lib.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pt_init dpdk-test "${1:-}" "${2:-}"

build=$(pt_abs "${1:-.}")
bin=$("$here/../../tools/external/build-dpdk-test.sh" "$build/pmd-tools") ||
	pt_die "could not build dpdk-test (see $build/pmd-tools/dpdk-test/build.log)"

work=$(mktemp -d)
trap 'rm -rf "$work"; pt_cleanup_runtime' EXIT
read -r -a eal <<<"$(pt_eal 1024)"
bad=0

# run COMMAND MIN_CHACHA_PASSED
run()
{
	local cmd=$1 min=$2 log=$work/$1.log rc=0
	echo "== $cmd ($PT_DEVTYPE): DPDK_TEST=$cmd DPDK_TEST_CRYPTODEV=$PT_DEVTYPE $bin -l 0 ${eal[*]} ${PT_EAL_DEV[*]}"
	DPDK_TEST=$cmd DPDK_TEST_CRYPTODEV=$PT_DEVTYPE timeout -k 5 600 \
		"${PT_RUN[@]}" "$bin" -l 0 "${eal[@]}" "${PT_EAL_DEV[@]}" </dev/null >"$log" 2>&1 || rc=$?
	pt_cleanup_runtime
	# Every executed case, then the sub-suite lines of the final summary.
	grep -E '^ \+ TestCase .* (succeeded|failed)' "$log" | sed 's/^ + /   /' || true
	grep -E '^ \+ [^:]+ : [0-9]+/[0-9]+ passed' "$log" |
		grep -vE ': 0/[0-9]+ passed, ([0-9]+)/\1 skipped' | sed 's/^ + /   /' || true
	local total failed passed skipped unsup chacha cpass cfail
	total=$(awk -F: '/^ \+ Tests Total/ {v = $2} END {print v + 0}' "$log")
	skipped=$(awk -F: '/^ \+ Tests Skipped/ {v = $2} END {print v + 0}' "$log")
	passed=$(awk -F: '/^ \+ Tests Passed/ {v = $2} END {print v + 0}' "$log")
	failed=$(awk -F: '/^ \+ Tests Failed/ {v = $2} END {print v + 0}' "$log")
	unsup=$(awk -F: '/^ \+ Tests Unsupported/ {v = $2} END {print v + 0}' "$log")
	chacha=$(grep -E '^ \+ Chacha20-Poly1305 Test Suite : ' "$log" | tail -n 1 || true)
	cpass=$(echo "$chacha" | sed -nE 's/.*: ([0-9]+)\/[0-9]+ passed.*/\1/p')
	cfail=$(echo "$chacha" | sed -nE 's/.* ([0-9]+)\/[0-9]+ failed.*/\1/p')
	echo "   total $total: passed $passed, failed $failed, skipped $skipped, unsupported $unsup (rc $rc)"
	if [ "$rc" -ne 0 ] || ! grep -q '^Test OK' "$log" || [ "$failed" -ne 0 ] ||
			[ "${cfail:-1}" -ne 0 ] || [ "${cpass:-0}" -lt "$min" ]; then
		grep -E 'failed|FAILED|Error|error' "$log" | grep -v ' 0/[0-9]* failed' | head -n 20 || true
		echo "FAIL $cmd: rc $rc, $failed failed, ChaCha20-Poly1305 passed ${cpass:-?} (need $min)"
		bad=$((bad + 1))
	else
		echo "ok   $cmd"
	fi
}

# test_cryptodev.c's ChaCha20-Poly1305 suite: RFC 8439 encrypt, decrypt, and
# an out-of-place SGL encrypt that the suite skips in CPU-crypto mode.
run cryptodev_under_test_autotest 3
run cryptodev_cpu_under_test_autotest 2

if [ "$bad" -ne 0 ]; then
	echo "FAIL dpdk-test ($PT_DEVTYPE): $bad of 2 runs failed"
	exit 1
fi
echo "PASS dpdk-test ($PT_DEVTYPE): DPDK's cryptodev suites, lookaside and cpu-crypto"
