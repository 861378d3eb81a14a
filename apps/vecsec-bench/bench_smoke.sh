#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-smoke: vecsec-bench on one tiny case (chacha20-poly1305, 64 bytes,
# --reps 3, single and burst). Checks that it exits 0, that the CSV has the
# expected header and one measured row per implementation and op with
# positive numbers, that vecsec (when libvecsec has the AEAD) and every
# peer built in were measured (a measured point passed the byte-for-byte
# cross-check, which runs before timing), and that a corrupted output is
# caught: --inject-fault makes the run fail with MISMATCH.
#   bench_smoke.sh <vecsec-bench>
set -u
bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
novs=
err() { echo "bench-smoke: FAIL: $*" >&2; fail=1; }

args=(--quick --case chacha20-poly1305 --sizes 64 --reps 3 --burst)
if ! "$bench" "${args[@]}" --csv "$tmp/s.csv" > "$tmp/out.txt" 2> "$tmp/err.txt"; then
	cat "$tmp/out.txt" "$tmp/err.txt" >&2
	err "vecsec-bench exited non-zero"
	exit 1
fi
cat "$tmp/out.txt"

want='mode,case,op,size,bytes,impl,detail,status,note,reps,cycles_per_op,cycles_per_byte,ns_per_byte,mib_per_s,ops_per_s'
[ "$(head -n 1 "$tmp/s.csv")" = "$want" ] || err "CSV header is '$(head -n 1 "$tmp/s.csv")'"

# implementations the run says it measured
impls=$(sed -n 's/^measured: //p' "$tmp/out.txt" | tr ',' '\n' | sed 's/^ *//; s/ .*//')
[ -n "$impls" ] || err "no 'measured:' line"
for im in $impls; do
	for mode in single burst; do
		for op in seal open; do
			row=$(awk -F, -v m="$mode" -v i="$im" -v o="$op" \
				'$1 == m && $2 == "chacha20-poly1305" && $3 == o && $4 == "64" && $6 == i' \
				"$tmp/s.csv")
			n=$(printf '%s' "$row" | grep -c . || true)
			[ "$n" = 1 ] || { err "$mode $op $im: $n rows"; continue; }
			status=$(printf '%s' "$row" | cut -d, -f8)
			case "$im" in
			vecsec-*)
				# vecsec must be measured whenever libvecsec has the AEAD
				# (meson sets BENCH_EXPECT_VECSEC=1 then)
				if [ "${BENCH_EXPECT_VECSEC:-0}" != 1 ] &&
				   grep -q 'not in this libvecsec' <<<"$row"; then
					novs="$novs $im"
					continue
				fi ;;
			esac
			[ "$status" = ok ] || { err "$mode $op $im: status $status"; continue; }
			printf '%s\n' "$row" | awk -F, '{
				ok = $10 == 3 && $11 > 0 && $12 > 0 && $13 > 0 && $14 > 0 && $15 > 0
				exit ok ? 0 : 1 }' || err "$mode $op $im: bad numbers: $row"
		done
	done
done
[ -n "$novs" ] && echo "bench-smoke: note: this libvecsec has no chacha20-poly1305 AEAD yet:" \
	"vecsec rows are n/a, peers cross-checked against each other"
nok=$(awk -F, '$8 == "ok"' "$tmp/s.csv" | wc -l)
[ "$nok" -ge 2 ] || err "fewer than two measured implementations ($nok rows): nothing cross-checked"

# The cross-check must catch a corrupted output (single and burst).
victim=$(awk -F, '$8 == "ok" {print $6}' "$tmp/s.csv" | tail -n 1)
for mode in "" --burst-only; do
	if "$bench" --case chacha20-poly1305 --sizes 64 --reps 1 $mode --inject-fault "$victim" \
		> "$tmp/f.txt" 2>&1; then
		err "corrupted $victim output was not detected ($mode)"
	elif ! grep -q MISMATCH "$tmp/f.txt"; then
		cat "$tmp/f.txt" >&2
		err "fault run failed without a MISMATCH report ($mode)"
	fi
done

[ "$fail" = 0 ] && echo "bench-smoke: ok ($nok measured rows, fault injection caught)"
exit "$fail"
