#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench-smoke: vecsec-bench on every case at 64 bytes with --reps 3, single
# messages and bursts. The bench cross-checks every implementation's output
# against the first one's before timing (a mismatch exits non-zero), so a
# measured row means "gave the same bytes". Checks:
#   - exit status 0; the CSV header; one row per case x implementation x op;
#   - measured rows: 3 samples, positive cycles, cycles/byte, ns/B, MiB/s,
#     ops/s; n/a rows carry a reason;
#   - chacha20-poly1305 (single and burst, seal and open) is measured for
#     every peer built in, and for every vecsec ISA level when libvecsec has
#     the AEAD (meson sets BENCH_EXPECT_VECSEC=1 then): vecsec == peers;
#   - a corrupted output is caught: --inject-fault makes the run fail with
#     MISMATCH (single, burst, and the last of imix-esp's 96 jobs);
#   - --sizes imix-esp (three bursts of 32 ESP payloads in turn) with
#     --mixed: a seal and an open row per implementation, mean 339 bytes,
#     chacha20-poly1305 cross-checked between >= 2 of them, a table row; the
#     vecsec-<top>-nomixed column is there and measured;
#   - the kernel-level modes (--two-pass, --lanes, --crossover, --staged):
#     every variant the CPU can run measures chacha20-poly1305 seal and open
#     (so its output equalled the others'), the ones it cannot are named;
#   - --floor: the kernel-floor table and CSV columns are there, and each
#     vecsec burst row (chacha20-poly1305 and xchacha20-poly1305, every ISA
#     level with lanes; 64, imix and imix-esp) has positive floor cycles and
#     a positive burst / floor ratio (no timing asserted), imix-esp's blocks
#     per message those of its 96 jobs; --floor elsewhere is refused;
#   - --insns (the untimed workload of tools/arm64_insns.py): exit 0, the
#     runtime address of main(), one line per case with its byte count,
#     single and burst.
#   bench_smoke.sh <vecsec-bench>
set -u
bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
err() { echo "bench-smoke: FAIL: $*" >&2; fail=1; }

if ! "$bench" --quick --sizes 64 --reps 3 --burst --csv "$tmp/s.csv" \
	> "$tmp/out.txt" 2> "$tmp/err.txt"; then
	cat "$tmp/out.txt" "$tmp/err.txt" >&2
	echo "bench-smoke: FAIL: vecsec-bench exited non-zero" >&2
	exit 1
fi
cat "$tmp/out.txt"
csv=$tmp/s.csv

want=mode,case,op,size,bytes,impl,detail,status,note,reps
want=$want,cycles_per_op,cycles_per_byte,ns_per_byte,mib_per_s,ops_per_s,iqr_pct
[ "$(head -n 1 "$csv")" = "$want" ] || err "CSV header is '$(head -n 1 "$csv")'"

# implementations the run measured, and the cases --help lists
impls=$(sed -n 's/^measured: //p' "$tmp/out.txt" | tr ',' '\n' | sed 's/^ *//; s/ .*//')
[ -n "$impls" ] || err "no 'measured:' line"
nimpls=$(printf '%s\n' "$impls" | wc -l)
"$bench" --help > "$tmp/help.txt" || err "--help failed"
cases=$(sed -n '/^cases:/,/^$/p' "$tmp/help.txt" | awk 'NF > 1 {print $1}')
nburst=$(grep -c '\[burst\]' "$tmp/help.txt")
naead=$(grep -c '\[aead' "$tmp/help.txt")
ncases=$(printf '%s\n' "$cases" | wc -l)
[ "$ncases" -ge 11 ] || err "--help lists $ncases cases"

# rows: single = (cases + AEAD cases) x impls, burst = 2 x burst cases x impls
want_rows=$(( (ncases + naead + 2 * nburst) * nimpls ))
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" = "$want_rows" ] || err "$rows CSV rows, want $want_rows"
for c in $cases; do
	grep -q "^single,$c,.*,64,64.0," "$csv" || err "no row for $c"
done

awk -F, 'NR > 1 {
	if ($8 == "ok") {
		if (!($10 == 3 && $11 > 0 && $12 > 0 && $13 > 0 && $14 > 0 && $15 > 0 && $16 >= 0))
			print "bad numbers: " $0
	} else if ($8 == "n/a") {
		if ($9 == "") print "n/a without a reason: " $0
	} else {
		print "bad status: " $0
	}
}' "$csv" > "$tmp/bad.txt"
[ -s "$tmp/bad.txt" ] && err "$(cat "$tmp/bad.txt")"

for im in $impls; do
	for mode in single burst; do
		for op in seal open; do
			st=$(awk -F, -v m="$mode" -v i="$im" -v o="$op" '$1 == m &&
				$2 == "chacha20-poly1305" && $3 == o && $6 == i {print $8}' "$csv")
			case "$im" in
			vecsec-*) [ "${BENCH_EXPECT_VECSEC:-0}" = 1 ] || continue ;;
			esac
			[ "$st" = ok ] || err "chacha20-poly1305 $mode $op $im: '$st', want ok"
		done
	done
done

# which (mode, case, op) had two or more implementations agree byte for byte
awk -F, 'NR > 1 && $8 == "ok" {n[$1 " " $2 " " $3]++}
	END {for (k in n) if (n[k] > 1) print k}' "$csv" | sort > "$tmp/checked.txt"
grep -q '^single chacha20-poly1305 seal$' "$tmp/checked.txt" ||
	err "chacha20-poly1305 was not cross-checked between two implementations"
echo "bench-smoke: cross-checked (identical output from >= 2 implementations):" \
	"$(wc -l < "$tmp/checked.txt") of $(awk -F, 'NR > 1 {print $1 $2 $3}' "$csv" | sort -u |
	wc -l) points"
vna=$(awk -F, 'NR > 1 && $6 ~ /^vecsec-/ && $8 == "n/a" {print $1 " " $2 ": " $9}' "$csv" | sort -u)
[ -n "$vna" ] && printf 'bench-smoke: note: vecsec n/a: %s\n' "$vna"

# The cross-check must catch a corrupted output (single and burst).
victim=$(awk -F, '$2 == "chacha20-poly1305" && $8 == "ok" {print $6}' "$csv" | tail -n 1)
for mode in "" --burst-only imix-esp; do
	sz=64
	[ "$mode" = imix-esp ] && sz=imix-esp mode=--burst-only
	if "$bench" --case chacha20-poly1305 --sizes $sz --reps 1 $mode --inject-fault "$victim" \
		> "$tmp/f.txt" 2>&1; then
		err "corrupted $victim output was not detected (${mode:-single})"
	elif ! grep -q MISMATCH "$tmp/f.txt"; then
		cat "$tmp/f.txt" >&2
		err "fault run failed without a MISMATCH report (${mode:-single})"
	fi
done

# imix-esp: three bursts of 32 in turn (ESP payloads of IMIX frames), --mixed
if ! "$bench" --case chacha20-poly1305 --burst-only --sizes imix-esp --reps 1 --mixed \
	--csv "$tmp/e.csv" > "$tmp/e.txt" 2>&1; then
	cat "$tmp/e.txt" >&2
	err "vecsec-bench --sizes imix-esp --mixed failed"
fi
eimpls=$(sed -n 's/^measured: //p' "$tmp/e.txt" | tr ',' '\n' | sed 's/^ *//; s/ .*//')
for im in $eimpls; do
	for op in seal open; do
		n=$(awk -F, -v i="$im" -v o="$op" '$1 == "burst" && $2 == "chacha20-poly1305" &&
			$3 == o && $4 == "imix-esp" && $5 == "339.0" && $6 == i' "$tmp/e.csv" | wc -l)
		[ "$n" = 1 ] || err "imix-esp: $n $op rows for $im, want 1"
	done
done
n=$(awk -F, '$4 == "imix-esp" && $3 == "seal" && $8 == "ok"' "$tmp/e.csv" | wc -l)
[ "$n" -ge 2 ] || err "imix-esp: seal measured by $n implementations, want >= 2 (cross-check)"
grep -Eq '^seal +imix-esp +[0-9]' "$tmp/e.txt" || err "imix-esp: no 'seal imix-esp' table row"
grep -q 'imix-esp: 3 bursts of 32 in turn' "$tmp/e.txt" || err "imix-esp: no note on its bursts"
if [ "${BENCH_EXPECT_VECSEC:-0}" = 1 ]; then
	nm=$(printf '%s\n' $eimpls | grep -c -- '-nomixed$')
	[ "$nm" = 1 ] || err "--mixed: $nm vecsec-<isa>-nomixed columns, want 1"
	for op in seal open; do
		awk -F, -v o="$op" '$3 == o && $6 ~ /^vecsec-.*-nomixed$/ && $8 == "ok"' \
			"$tmp/e.csv" | grep -q . || err "--mixed: no measured $op row for nomixed"
	done
fi

# Kernel-level modes: each variant is cross-checked like any implementation.
if [ "${BENCH_EXPECT_VECSEC:-0}" = 1 ]; then
	if ! "$bench" --case chacha20-poly1305 --sizes 64,imix --reps 1 --no-peers --two-pass \
		--lanes --crossover --staged --csv "$tmp/k.csv" > "$tmp/k.txt" 2>&1; then
		cat "$tmp/k.txt" >&2
		err "vecsec-bench --two-pass --lanes --crossover --staged failed"
	fi
	for v in 2pass lanes-x8/x4 lanes-x4/x4 all-lanes per-job staged general; do
		mode=burst
		[ "$v" = 2pass ] && mode=single
		for op in seal open; do
			n=$(awk -F, -v m="$mode" -v o="$op" -v v="$v" '$1 == m && $3 == o &&
				$8 == "ok" && $6 ~ ("^vecsec-(.*-)?" v "$")' "$tmp/k.csv" | wc -l)
			un=$(grep -c "vecsec-.*$v unusable" "$tmp/k.txt")
			[ "$n" -gt 0 ] || [ "$un" -gt 0 ] ||
				err "variant $v: no measured $mode $op row and not said unusable"
		done
	done
	grep 'unusable' "$tmp/k.txt" | sed 's/^/bench-smoke: note: /'
fi

# --floor: the kernel floor of vecsec's bursts, its table and its CSV columns
if [ "${BENCH_EXPECT_VECSEC:-0}" = 1 ]; then
	if ! "$bench" --case chacha20-poly1305,xchacha20-poly1305 --sizes 64,imix,imix-esp --reps 3 \
		--burst-only --no-peers --floor --csv "$tmp/fl.csv" > "$tmp/fl.txt" 2>&1; then
		cat "$tmp/fl.txt" >&2
		err "vecsec-bench --floor failed"
	fi
	fw=$want,floor_chacha_blocks,floor_poly1305_blocks,floor_chacha_cycles
	fw=$fw,floor_poly1305_cycles,floor_cycles,burst_per_floor,floor_single_jobs
	[ "$(head -n 1 "$tmp/fl.csv")" = "$fw" ] ||
		err "--floor CSV header is '$(head -n 1 "$tmp/fl.csv")'"
	[ "$(grep -c 'kernel floor (--floor)' "$tmp/fl.txt")" = 2 ] ||
		err "--floor: no kernel-floor table for each case"
	grep -Eq '^seal +64 +vecsec-[a-z0-9]+ .* [0-9.]+x' "$tmp/fl.txt" ||
		err "--floor: no seal 64 floor line"
	# every vecsec burst row: a floor, or n/a only where the ISA has no lanes
	awk -F, 'NR > 1 && $8 == "ok" {
		if ($17 == "") {
			if ($6 != "vecsec-scalar") print "no floor: " $0
		} else if (!($17 > 0 && $18 > 0 && $19 > 0 && $20 > 0 &&
			     ($21 - $19 - $20) ^ 2 < 0.04)) {
			print "bad floor: " $0
		} else if (!($22 > 0 && $23 >= 0 && $23 <= ($4 == "imix-esp" ? 96 : 32))) {
			print "bad ratio: " $0
		} else if ($4 == "imix-esp" && $2 == "chacha20-poly1305" &&
			   ($17 != "6.50" || $18 != "23.92")) {
			print "imix-esp floor blocks are not those of its 96 jobs: " $0
		}
	}' "$tmp/fl.csv" > "$tmp/flbad.txt"
	[ -s "$tmp/flbad.txt" ] && err "$(cat "$tmp/flbad.txt")"
	nfl=$(awk -F, 'NR > 1 && $17 != "" && $22 > 0' "$tmp/fl.csv" | wc -l)
	[ "$nfl" -gt 0 ] || err "--floor: no CSV row with a floor"
	sed -n '/kernel floor/,/^$/p' "$tmp/fl.txt" | head -n 8 | sed 's/^/bench-smoke: floor: /'
	if "$bench" --case chacha20 --burst-only --floor --reps 1 > "$tmp/fr.txt" 2>&1 ||
		! grep -q 'has no kernel floor' "$tmp/fr.txt"; then
		err "--floor with another case was not refused"
	fi
	if "$bench" --case chacha20-poly1305 --floor --reps 1 > "$tmp/fr.txt" 2>&1 ||
		! grep -q 'needs --burst' "$tmp/fr.txt"; then
		err "--floor without --burst was not refused"
	fi
fi

# --insns: no timing; main()'s address and the bytes each case ran
if "$bench" --insns 3 --case chacha20,poly1305,adiantum-xchacha12 --sizes 1024 \
	> "$tmp/i.txt" 2>&1 &&
	"$bench" --insns 2 --burst --case chacha20-poly1305 --sizes 512 >> "$tmp/i.txt" 2>&1; then
	grep -q '^main 0x[0-9a-f]*$' "$tmp/i.txt" || err "--insns: no 'main 0x...' line"
	for want in 'chacha20 1024 bytes x 1 at .*: 3072 bytes' \
		'poly1305 1024 bytes x 1 at .*: 3072 bytes' \
		'adiantum-xchacha12 1024 bytes x 1 at .*: 3072 bytes' \
		'chacha20-poly1305 512 bytes x 32 (burst) at .*: 32768 bytes'; do
		grep -q "^insns: $want\$" "$tmp/i.txt" || err "--insns: no line '$want'"
	done
else
	cat "$tmp/i.txt" >&2
	err "vecsec-bench --insns failed"
fi

[ "$fail" = 0 ] && echo "bench-smoke: ok ($rows rows, fault injection caught)"
exit "$fail"
