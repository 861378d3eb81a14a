#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# crypto_vecsec against Debian's crypto_aesni_mb and crypto_chacha20_poly1305
# (Intel ipsec-mb), measured by DPDK's stock dpdk-test-crypto-perf with one
# command line for all: --ptest throughput, AEAD chacha20-poly1305, encrypt
# and decrypt, AAD 8, burst 32, buffers 64..8192 bytes. Each PMD runs
# BENCH_REPS times (runs interleaved across PMDs so drift hits all alike);
# the report takes the median per size. Writes out/bench-pmd.csv,
# out/bench-pmd.png (cycles/byte against size) and the raw outputs in
# out/bench-pmd/, and prints the command lines that reproduce every run.
#
# EAL gets --force-max-simd-bitwidth=512 for every PMD: ipsec-mb picks its
# AVX-512 code from CPUID alone, DPDK's x86 default (256) would hold only
# vecsec back. crypto-perf's throughput mode never gives a valid tag, so
# every decrypt op fails authentication in every PMD: decrypt numbers
# include each PMD's auth-failure path.
#
# usage: scripts/bench-pmd.sh [BUILD_DIR]          (default: build)
# env:   BENCH_OPS=N       ops per buffer size and run (default 100000)
#        BENCH_REPS=N      runs per PMD and direction (default 3)
#        BENCH_SIZES=a,b   buffer sizes (default 64,...,8192)
#        BENCH_VECSEC_ISAS="avx2 ssse3"  extra crypto_vecsec series (isa= devarg)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. test/pmd-tools/lib.sh

build=${1:-build}
ops=${BENCH_OPS:-100000}
reps=${BENCH_REPS:-3}
sizes=${BENCH_SIZES:-64,128,256,512,1024,1420,2048,4096,8192}
out=$top/out
raw=$out/bench-pmd
rm -rf "$raw"
mkdir -p "$raw"

# series: "label devtype vdev-args"
series=("crypto_vecsec crypto_vecsec -")
for isa in ${BENCH_VECSEC_ISAS:-}; do
	series+=("crypto_vecsec[isa=$isa] crypto_vecsec isa=$isa")
done
series+=("crypto_aesni_mb crypto_aesni_mb -" "crypto_chacha20_poly1305 crypto_chacha20_poly1305 -")

perf_args=(--ptest throughput --optype aead --aead-algo chacha20-poly1305
	--aead-key-sz 32 --aead-iv-sz 12 --aead-aad-sz 8 --digest-sz 16
	--burst-sz 32 --buffer-sz "$sizes" --total-ops "$ops" --csv-friendly)

{
	echo "date: $(date -u +%FT%TZ)"
	echo "host: $(uname -srm), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "dpdk: $(pkg-config --modversion libdpdk), crypto-perf $(command -v dpdk-test-crypto-perf)"
	echo "vecsec: $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
} >"$raw/env.txt"
cat "$raw/env.txt"

n=0
total=$(( ${#series[@]} * 2 * reps ))
: >"$raw/commands.txt"
for rep in $(seq 1 "$reps"); do
	for s in "${series[@]}"; do
		read -r label devtype devargs <<<"$s"
		pt_init "bench-$n" "$build" "$devtype"
		vdev=$PT_VDEV
		[ "$devargs" != - ] && vdev="$PT_VDEV,$devargs"
		dev=("${PT_EAL_DEV[@]}")
		dev[${#dev[@]}-1]=$vdev
		# pt_eal (lib.sh): --no-pci --no-huge -m 1024, own file prefix
		read -r -a eal <<<"$(pt_eal 1024)"
		for op in encrypt decrypt; do
			n=$((n + 1))
			cmd=(timeout -k 5 300 dpdk-test-crypto-perf -l 0,1 "${eal[@]}"
				--force-max-simd-bitwidth=512 "${dev[@]}" --
				--devtype "$devtype" --aead-op "$op" "${perf_args[@]}")
			f="$raw/$label.$op.$rep.txt"
			printf '[%d/%d] %s %s run %d\n' "$n" "$total" "$label" "$op" "$rep"
			echo "${cmd[*]}" >>"$raw/commands.txt"
			if ! "${cmd[@]}" >"$f" 2>&1; then
				tail -n 15 "$f"
				pt_cleanup_runtime
				echo "bench-pmd: run failed: ${cmd[*]}" >&2
				exit 1
			fi
			pt_cleanup_runtime
			grep -m1 "crypto_vecsec0: libvecsec" "$f" || true
		done
	done
done

/usr/bin/python3 "$top/scripts/bench_pmd_report.py" "$raw" "$out/bench-pmd.csv" \
	"$out/bench-pmd.png" "$ops"
echo
echo "Reproduce one run (the same line for every PMD but --vdev/-d/--devtype):"
sort -u "$raw/commands.txt" | sed 's/--file-prefix [^ ]*/--file-prefix bench/' | sort -u | sed 's/^/  /'
