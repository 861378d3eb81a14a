#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The vecsec PMD under DPDK's own, unmodified dpdk-test-crypto-perf:
#  - verify, encrypt and decrypt, with RFC 8439 2.8.2 (rfc8439-2.8.2.data)
#    and with OpenSSL-made vectors over lengths 1..9000 and AAD 1..1024
#    (cperf_vectors.py), in place and out of place: 0 failed ops;
#  - the same runs with one ciphertext byte flipped must fail every op
#    (proof that a wrong result is seen, not assumed);
#  - short throughput and latency runs: every op enqueued is dequeued.
# crypto-perf's throughput and latency modes never look at op status, so the
# verify runs are what proves the results right. For crypto_vecsec the
# vector runs go first to Debian's crypto_chacha20_poly1305 (ipsec-mb), a
# sanity check of the vector files (PT_VECTORS_ONLY=1: only those runs).
#
# usage: crypto-perf.sh BUILD_DIR [DEVTYPE]   (DEVTYPE: see lib.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pt_init crypto-perf "${1:-}" "${2:-}"

work=$(mktemp -d)
trap 'rm -rf "$work"; pt_cleanup_runtime' EXIT

ops=1000
checks=0
failures=()

# fail WHAT: record a failed run and go on, so one run lists every failure.
fail()
{
	echo "FAIL $1"
	failures+=("$1")
}
read -r -a eal <<<"$(pt_eal 256)"
perf=(timeout -k 5 120 "${PT_RUN[@]}" dpdk-test-crypto-perf -l 0,1 "${eal[@]}" "${PT_EAL_DEV[@]}" --
	--devtype "$PT_DEVTYPE" --optype aead --aead-algo chacha20-poly1305
	--aead-key-sz 32 --aead-iv-sz 12 --digest-sz 16)

# run_verify EXPECT FILE TEST LEN AAD OP [crypto-perf args...]
# EXPECT is "pass" (every op right) or "fail" (every op wrong).
run_verify()
{
	local expect=$1 file=$2 name=$3 len=$4 aad=$5 op=$6 out row
	shift 6
	local what="verify $op $name len=$len aad=$aad${*:+ $*}"
	if ! out=$("${perf[@]}" --ptest verify --aead-op "$op" --buffer-sz "$len" \
			--aead-aad-sz "$aad" --burst-sz 32 --total-ops "$ops" \
			--test-file "$file" --test-name "$name" "$@" 2>&1); then
		# Debian's reference PMDs have smaller limits (ipsec-mb's
		# chacha20-poly1305: AAD <= 240); vecsec must take every case.
		if [ "$PT_DEVTYPE" != crypto_vecsec ] &&
				echo "$out" | grep -q "does not support capabilities"; then
			echo "skip $what: beyond $PT_DEVTYPE's capabilities"
			return 0
		fi
		echo "$out" | grep -v '^#' | tail -n 8
		fail "$what: dpdk-test-crypto-perf exited non-zero"
		return 0
	fi
	# The row after the "Failed Ops" header: lcore, size, burst, enqueued,
	# dequeued, failed enq, failed deq, failed ops.
	row=$(echo "$out" | awk '/Failed Ops/ {h = 1; next} h && NF == 8 {print; exit}')
	if [ -z "$row" ]; then
		echo "$out" | grep -v '^#' | tail -n 8
		fail "$what: no result row"
		return 0
	fi
	read -r _ _ _ enq deq _ _ failed <<<"$row"
	if [ "$enq" != "$ops" ] || [ "$deq" != "$ops" ]; then
		fail "$what: enqueued $enq dequeued $deq of $ops"
		return 0
	fi
	if [ "$expect" = pass ] && [ "$failed" != 0 ]; then
		fail "$what: $failed of $ops ops failed"
		return 0
	fi
	if [ "$expect" = fail ] && [ "$failed" != "$ops" ]; then
		fail "$what: tampered vector, only $failed of $ops ops failed"
		return 0
	fi
	echo "ok   $what: $ops ops, $failed failed (expected $expect)"
	checks=$((checks + 1))
}

# run_load TEST [crypto-perf args...]: throughput or latency, all dequeued.
run_load()
{
	local test=$1 out
	shift
	local what="$test $*"
	if ! out=$("${perf[@]}" --ptest "$test" "$@" 2>&1); then
		echo "$out" | grep -v '^#' | tail -n 8
		fail "$what: dpdk-test-crypto-perf exited non-zero"
		return 0
	fi
	if [ "$test" = throughput ]; then
		# Rows under the "MOps" header: lcore, size, burst, enqueued,
		# dequeued, failed enq, failed deq, MOps, Gbps, cycles/buf.
		echo "$out" | awk -v n="$total" -v what="$what" '
			/MOps/ {h = 1; next}
			h && NF == 10 {
				rows++
				if ($4 != n || $5 != n) bad = bad " size " $2 ": " $4 "/" $5
				info = info sprintf(" %sB=%.3fMops", $2, $8)
			}
			END {
				if (rows == 0) { print "FAIL no throughput rows"; exit 1 }
				if (bad != "") { print "FAIL enqueued/dequeued != " n ":" bad; exit 1 }
				print "ok   " what ":" info
			}' || { failures+=("$what"); return 0; }
	else
		# "# total operations: N" then "#  enqueued  TOTAL ..." per size.
		echo "$out" | awk -v n="$total" -v what="$what" '
			/^# Buffer size:/ {size = $4}
			/^#  *enqueued/ {enq[size] = $3}
			/^#  *dequeued/ {deq[size] = $3; rows++}
			/^#  *time \[us\]/ {lat[size] = $5}
			END {
				if (rows == 0) { print "FAIL no latency rows"; exit 1 }
				for (s in deq) {
					if (enq[s] != n || deq[s] != n)
						bad = bad " size " s ": " enq[s] "/" deq[s]
					info = info sprintf(" %sB=%sus", s, lat[s])
				}
				if (bad != "") { print "FAIL enqueued/dequeued != " n ":" bad; exit 1 }
				print "ok   " what ": mean" info
			}' || { failures+=("$what"); return 0; }
	fi
	checks=$((checks + 1))
}

# The vector files are first checked on an independent implementation:
# Intel ipsec-mb's crypto_chacha20_poly1305, through the same tool.
if [ "$PT_DEVTYPE" = crypto_vecsec ] && [ -z "${PT_VECTORS_ONLY:-}" ]; then
	echo "== the test vectors against crypto_chacha20_poly1305 (reference) =="
	if ! PT_VECTORS_ONLY=1 "$here/crypto-perf.sh" "${1:-}" crypto_chacha20_poly1305 |
			sed 's/^/   /'; then
		pt_die "the test vectors fail on the reference PMD: fix the vectors first"
	fi
	echo "== $PT_DEVTYPE =="
fi

rfc=$here/rfc8439-2.8.2.data
# The tampered copy: the first ciphertext byte 0xd3 becomes 0xd2.
sed '0,/^0xd3, 0x1a/s//0xd2, 0x1a/' "$rfc" >"$work/rfc-bad.data"
cmp -s "$rfc" "$work/rfc-bad.data" && pt_die "could not tamper with the RFC vector"

for op in encrypt decrypt; do
	run_verify pass "$rfc" rfc8439_2_8_2 114 12 "$op"
	run_verify fail "$work/rfc-bad.data" rfc8439_2_8_2 114 12 "$op"
done
# Segment sizes of the chained runs. dpdk-test-crypto-perf lays a chain out
# in one mempool object, each mbuf header right after the previous segment's
# bytes (cperf_test_common.c), so a size that is not a multiple of 64 leaves
# the headers misaligned for struct rte_mbuf (64-byte aligned): the tool's
# own undefined behaviour, which UBSan's alignment check reports at the
# PMD's first read of m->next and stops the run. With the sanitizer-built
# PMD (PT_RUN set, see lib.sh) the chained runs use multiples of 64; odd
# segment sizes run under the sanitizers in test_pmd (its own chains), and
# here in the optimized build.
if [ ${#PT_RUN[@]} -eq 0 ]; then seg_oop=130 seg_big=1000; else seg_oop=192 seg_big=1024; fi
run_verify pass "$rfc" rfc8439_2_8_2 114 12 encrypt --out-of-place --segment-sz "$seg_oop"
run_verify pass "$rfc" rfc8439_2_8_2 114 12 decrypt --out-of-place --segment-sz "$seg_oop"

# Chained mbufs, in place: 50-byte segments put the text across three of
# them (crypto-perf only checks a tag that fits in one segment: 114 % 50 + 16 <= 50).
# No multiple of 64 does that for 114 bytes; the sanitizer build has the
# 9000-byte chain below.
if [ ${#PT_RUN[@]} -eq 0 ]; then
	run_verify pass "$rfc" rfc8439_2_8_2 114 12 encrypt --segment-sz 50
	run_verify pass "$rfc" rfc8439_2_8_2 114 12 decrypt --segment-sz 50
else
	echo "skip verify rfc8439_2_8_2 --segment-sz 50 (sanitizer build): misaligned" \
		"mbuf headers of dpdk-test-crypto-perf's chains, see above"
fi

/usr/bin/python3 "$here/cperf_vectors.py" "$work/oracle.data" >"$work/cases"
while read -r name len aad; do
	for op in encrypt decrypt; do
		run_verify pass "$work/oracle.data" "$name" "$len" "$aad" "$op"
	done
done <"$work/cases"
run_verify pass "$work/oracle.data" len9000_aad8 9000 8 encrypt --segment-sz "$seg_big"
run_verify pass "$work/oracle.data" len9000_aad8 9000 8 decrypt --segment-sz "$seg_big"

if [ -n "${PT_VECTORS_ONLY:-}" ]; then
	[ ${#failures[@]} -eq 0 ] || exit 1
	echo "PASS test vectors on $PT_DEVTYPE: $checks runs"
	exit 0
fi

total=20000
for op in encrypt decrypt; do
	run_load throughput --aead-op "$op" --aead-aad-sz 8 --burst-sz 32 \
		--buffer-sz 64,1420 --total-ops "$total"
done
total=2000
run_load latency --aead-op encrypt --aead-aad-sz 8 --burst-sz 32 \
	--buffer-sz 64,1420 --total-ops "$total"

if [ ${#failures[@]} -ne 0 ]; then
	echo "FAIL crypto-perf ($PT_DEVTYPE): ${#failures[@]} of $((checks + ${#failures[@]})) runs failed:"
	printf '     %s\n' "${failures[@]}"
	exit 1
fi
echo "PASS crypto-perf ($PT_DEVTYPE): $checks runs of dpdk-test-crypto-perf, 0 failed ops"
