#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the vecsec-gw configuration parser's libFuzzer target with clang-14
# (meson's C compiler is gcc, which has no libFuzzer) into OUT_DIR and run
# it for SECONDS (default 20; FUZZ_SECONDS in the environment wins). Seeds:
# ipsec-secgw's sample configurations and the configurations of
# test/gw/config_check.py. Everything it writes
# (binary, corpus, crash files) stays under OUT_DIR. Exits non-zero when
# the target cannot be built or the fuzzer finds a crash, leak, or UB.
#
# usage: fuzz-parser.sh SOURCE_ROOT OUT_DIR [SECONDS]
set -euo pipefail
top=$(readlink -f "${1:?usage: fuzz-parser.sh SOURCE_ROOT OUT_DIR [SECONDS]}")
out=${2:?usage: fuzz-parser.sh SOURCE_ROOT OUT_DIR [SECONDS]}
secs=${FUZZ_SECONDS:-${3:-20}}   # FUZZ_SECONDS=1800: a long run, one variable away
cc=${CLANG:-clang-14}
command -v "$cc" >/dev/null || { echo "FAIL: no $cc (scripts/setup.sh installs clang-14)" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/fuzz_parser

# parser.c only needs DPDK's headers (the crypto algorithm enums): no DPDK library
# is linked, so the sanitizers see every line that runs.
# shellcheck disable=SC2046
"$cc" -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$top/apps/vecsec-gw" $(pkg-config --cflags libdpdk) -DALLOW_EXPERIMENTAL_API \
	"$top/test/gw/fuzz_parser.c" "$top/apps/vecsec-gw/parser.c" -o "$bin.tmp"
mv "$bin.tmp" "$bin"

# The seed corpus is rebuilt each run; libFuzzer adds what it finds to corpus/.
rm -rf "$out/seeds"
mkdir -p "$out/seeds" "$out/corpus"
for f in /usr/share/dpdk/examples/ipsec-secgw/ep0.cfg /usr/share/dpdk/examples/ipsec-secgw/ep1.cfg; do
	[ -f "$f" ] && cp "$f" "$out/seeds/"
done
/usr/bin/python3 - "$top/test/gw" "$out/seeds" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
import config_check as c
open(os.path.join(sys.argv[2], "good.cfg"), "w").write(c.GOOD)
for i, case in enumerate(c.BAD):
    open(os.path.join(sys.argv[2], "bad%03d.cfg" % i), "w").write(case[0] + "\n")
PY
echo "fuzz-parser: $(ls "$out/seeds" | wc -l) seeds, $secs s"
# -close_fd_mask=1: the parser prints nothing, libFuzzer's own report goes to stderr
cd "$out"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
	-artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$out/seeds"
