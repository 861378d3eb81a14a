#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Smoke test of vecsec-pmd-bench (meson test pmd-bench-smoke, suite pmd):
# size 256 and IMIX, 640 ops, 32 sessions, both directions, on crypto_vecsec
# and on Debian's crypto_aesni_mb and crypto_chacha20_poly1305 when its
# ipsec_mb PMD is installed (said so when not). Checks the exit status, the
# verification line, 0 failed ops and one CSV row per direction and size.
#
# usage: pmd_bench_smoke.sh VECSEC_PMD_BENCH BUILD_DIR
set -euo pipefail
bench=$1
build=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/pmd-tools/lib.sh"

devtypes=(crypto_vecsec)
if [ -e "$PT_PMD_DIR/librte_crypto_ipsec_mb.so" ]; then
	devtypes+=(crypto_aesni_mb crypto_chacha20_poly1305)
else
	echo "note: no $PT_PMD_DIR/librte_crypto_ipsec_mb.so: crypto_vecsec only"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; pt_cleanup_runtime' EXIT
for dt in "${devtypes[@]}"; do
	pt_init "pmd-bench-smoke" "$build" "$dt"
	read -r -a eal <<<"$(pt_eal 256)"
	cmd=(timeout -k 5 60 "$bench" -l 0 "${eal[@]}" --force-max-simd-bitwidth=512
		"${PT_EAL_DEV[@]}" -- --devtype "$dt" --sizes 256,imix --sessions 32
		--ops 640 --warmup 64 --reps 2 --groups 3 --csv "$tmp/$dt.csv")
	echo "${cmd[*]}"
	if ! "${cmd[@]}" >"$tmp/$dt.txt" 2>&1; then
		cat "$tmp/$dt.txt"
		pt_die "$dt: exit status non-zero"
	fi
	pt_cleanup_runtime
	cat "$tmp/$dt.txt"
	grep -q "^verify: PASS" "$tmp/$dt.txt" || pt_die "$dt: no 'verify: PASS'"
	grep -qx "failed ops: 0" "$tmp/$dt.txt" || pt_die "$dt: failed ops"
	head -n1 "$tmp/$dt.csv" | grep -q '^devtype,op,size,sessions,cycles_per_op,' ||
		pt_die "$dt: CSV header"
	for op in encrypt decrypt; do
		for sz in 256 imix; do
			# failed_ops (9th field) must be 0 and Mops (7th) positive
			awk -F, -v dt="$dt" -v op="$op" -v sz="$sz" \
				'$1 == dt && $2 == op && $3 == sz && $4 == 32 && $9 == 0 && $7 > 0 \
				{ found = 1 } END { exit !found }' "$tmp/$dt.csv" ||
				pt_die "$dt: no good CSV row for $op size $sz"
		done
	done
	rows=$(grep -c '^CSV,' "$tmp/$dt.txt")
	[ "$rows" -eq 4 ] || pt_die "$dt: $rows CSV lines on stdout, expected 4"
done
echo "PASS pmd-bench-smoke: ${devtypes[*]}"
