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
# SIMD width: crypto_vecsec follows EAL's --force-max-simd-bitwidth, as
# DPDK asks of PMDs (rte_vect_get_max_simd_bitwidth(); x86's default of 256
# bits stops it at AVX2), while crypto_aesni_mb and crypto_chacha20_poly1305
# pick ipsec-mb's AVX-512 code from CPUID alone, whatever EAL's width. So
# every PMD runs at each width of BENCH_WIDTHS: "512"
# (--force-max-simd-bitwidth=512, series named as the PMD) and "default"
# (no flag: what a stock command line gets; series named PMD@default);
# ratios compare PMDs at the same width. crypto-perf's throughput mode never gives a valid tag, so
# every decrypt op fails authentication in every PMD: decrypt numbers
# include each PMD's auth-failure path.
#
# Second part, "32 sessions per burst": our apps/vecsec-pmd-bench on the
# same PMDs, bursts of 32 ops where op j uses session j (32 keys per burst,
# as a gateway sees it; crypto-perf gives every op one session), and with
# --sessions 1 for comparison. Out of place, valid tags (decrypt really
# authenticates), every op's status checked, outputs verified against
# OpenSSL first; sizes as above plus IMIX. Runs interleave with crypto-perf's.
# The machine is shared: vecsec-pmd-bench also reports cpu% (its CPU time
# over wall time) and on-CPU cycles/op (TSC cycles/op x cpu%), which the
# lower PNG panels plot. Writes out/bench-pmd-sessions.csv.
#
# usage: scripts/bench-pmd.sh [BUILD_DIR]          (default: build)
# env:   BENCH_OPS=N       ops per buffer size and run (default 100000)
#        BENCH_REPS=N      runs per PMD and direction (default 3)
#        BENCH_SIZES=a,b   buffer sizes (default 64,...,8192)
#        BENCH_VECSEC_ISAS="avx2 ssse3"  extra crypto_vecsec series (isa= devarg)
#        BENCH_WIDTHS="512 default"  EAL SIMD widths to run every series at
#        BENCH_SESSIONS="32 1"  --sessions values for vecsec-pmd-bench ("" skips it)
#        BENCH_SESS_OPS=N  vecsec-pmd-bench ops per size and run (default BENCH_OPS)
#        BENCH_IMIX=0      leave IMIX out of the vecsec-pmd-bench sizes
#        BENCH_PERF=0      skip dpdk-test-crypto-perf (only vecsec-pmd-bench)
# A quick run (about a minute): BENCH_OPS=20000 BENCH_REPS=1 scripts/bench-pmd.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. test/pmd-tools/lib.sh

build=${1:-build}
ops=${BENCH_OPS:-100000}
reps=${BENCH_REPS:-3}
sizes=${BENCH_SIZES:-64,128,256,512,1024,1420,2048,4096,8192}
sessions=${BENCH_SESSIONS-32 1}
sess_ops=${BENCH_SESS_OPS:-$ops}
sess_sizes=$sizes
[ "${BENCH_IMIX:-1}" = 0 ] || sess_sizes="$sizes,imix"
run_perf=${BENCH_PERF:-1}
out=$top/out
raw=$out/bench-pmd
rawsess=$out/bench-pmd-sessions
rm -rf "$raw" "$rawsess"
mkdir -p "$raw" "$rawsess"
pmdbench=$(pt_abs "$build")/apps/vecsec-pmd-bench/vecsec-pmd-bench
if [ -n "$sessions" ] && [ ! -x "$pmdbench" ]; then
	echo "bench-pmd: no $pmdbench (build it: ninja -C $build)" >&2
	exit 1
fi

# series: "label devtype vdev-args width"
base=("crypto_vecsec crypto_vecsec -")
for isa in ${BENCH_VECSEC_ISAS:-}; do
	base+=("crypto_vecsec[isa=$isa] crypto_vecsec isa=$isa")
done
base+=("crypto_aesni_mb crypto_aesni_mb -" "crypto_chacha20_poly1305 crypto_chacha20_poly1305 -")
series=()
for w in ${BENCH_WIDTHS:-512 default}; do
	case "$w" in
	512) suffix= ;;
	default) suffix=@default ;;
	*) echo "bench-pmd: BENCH_WIDTHS takes 512 and default, not $w" >&2; exit 1 ;;
	esac
	for s in "${base[@]}"; do
		read -r label devtype devargs <<<"$s"
		series+=("$label$suffix $devtype $devargs $w")
	done
done

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
nsess=$(wc -w <<<"$sessions")
total=$(( ${#series[@]} * (run_perf * 2 + nsess) * reps ))
: >"$raw/commands.txt"
: >"$rawsess/commands.txt"
for rep in $(seq 1 "$reps"); do
	for s in "${series[@]}"; do
		read -r label devtype devargs width <<<"$s"
		simd=()
		[ "$width" = 512 ] && simd=(--force-max-simd-bitwidth=512)
		pt_init "bench-$n" "$build" "$devtype"
		vdev=$PT_VDEV
		[ "$devargs" != - ] && vdev="$PT_VDEV,$devargs"
		dev=("${PT_EAL_DEV[@]}")
		dev[${#dev[@]}-1]=$vdev
		# pt_eal (lib.sh): --no-pci --no-huge -m 1024, own file prefix
		read -r -a eal <<<"$(pt_eal 1024)"
		ops_run=(encrypt decrypt)
		[ "$run_perf" = 0 ] && ops_run=()
		for op in "${ops_run[@]}"; do
			n=$((n + 1))
			cmd=(timeout -k 5 300 dpdk-test-crypto-perf -l 0,1 "${eal[@]}"
				"${simd[@]}" "${dev[@]}" --
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
		for ns in $sessions; do
			n=$((n + 1))
			read -r -a eal <<<"$(pt_eal 256)"
			f="$rawsess/$label.s$ns.$rep"
			cmd=(timeout -k 5 300 "$pmdbench" -l 0 "${eal[@]}"
				"${simd[@]}" "${dev[@]}" --
				--devtype "$devtype" --sessions "$ns" --sizes "$sess_sizes"
				--ops "$sess_ops" --reps 1 --csv "$f.csv")
			printf '[%d/%d] %s vecsec-pmd-bench --sessions %d run %d\n' \
				"$n" "$total" "$label" "$ns" "$rep"
			echo "${cmd[*]}" >>"$rawsess/commands.txt"
			if ! "${cmd[@]}" >"$f.txt" 2>&1; then
				tail -n 15 "$f.txt"
				pt_cleanup_runtime
				echo "bench-pmd: run failed: ${cmd[*]}" >&2
				exit 1
			fi
			pt_cleanup_runtime
			grep -m1 "^verify: PASS" "$f.txt" >/dev/null ||
				{ echo "bench-pmd: no verify line in $f.txt" >&2; exit 1; }
		done
	done
done

/usr/bin/python3 "$top/tools/report/bench_pmd_report.py" "$raw" "$out/bench-pmd.csv" \
	"$out/bench-pmd.png" "$ops" "$rawsess" "$out/bench-pmd-sessions.csv"
echo
if [ "$run_perf" != 0 ]; then
	echo "Reproduce one crypto-perf run (the same line for every PMD but --vdev/-d/--devtype):"
	sed 's/--file-prefix [^ ]*/--file-prefix bench/' "$raw/commands.txt" |
		sort -u | sed 's/^/  /'
fi
if [ -n "$sessions" ]; then
	echo "Reproduce one vecsec-pmd-bench run (--csv FILE writes the CSV rows too):"
	sed 's/--file-prefix [^ ]*/--file-prefix bench/; s/ --csv [^ ]*//' "$rawsess/commands.txt" |
		sort -u | sed 's/^/  /'
fi
