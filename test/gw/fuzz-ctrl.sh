#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build the vecsec-gw control protocol's libFuzzer target (test/gw/fuzz_ctrl.c:
# ctrl.c's framing, ctrl_cmd.c's request table, the handlers, the change
# engine cp.c (and cp_rt.c), parser.c and the cluster requests (ha.c), the data plane stubbed) with clang-14 into
# OUT_DIR and run it for SECONDS (default 20; the environment's
# FUZZ_SECONDS wins, for long runs:
# FUZZ_SECONDS=1800 test/gw/fuzz-ctrl.sh . build build/test/gw/fuzz-ctrl).
# Seeds: the committed corpus test/gw/fuzz-ctrl-corpus/. Everything it
# writes (binary, corpus, crash files) stays under OUT_DIR. Exits non-zero
# when the target cannot be built or the fuzzer finds a crash, leak, UB or
# a broken check.
#
# usage: fuzz-ctrl.sh SOURCE_ROOT BUILD_ROOT OUT_DIR [SECONDS]
# (BUILD_ROOT: the meson build folder, for the generated vecsec_version.h that
# gw_pkt.h's lib/esp header needs)
set -euo pipefail
usage="usage: fuzz-ctrl.sh SOURCE_ROOT BUILD_ROOT OUT_DIR [SECONDS]"
top=$(readlink -f "${1:?$usage}")
build=$(readlink -f "${2:?$usage}")
out=${3:?$usage}
secs=${FUZZ_SECONDS:-${4:-20}}
cc=${CLANG:-clang-14}
command -v "$cc" >/dev/null || { echo "FAIL: no $cc (scripts/setup.sh installs clang-14)" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/fuzz_ctrl

# Only DPDK's headers: the few DPDK functions these files call are stubbed in
# fuzz_ctrl.c, so no DPDK library is linked and the sanitizers see it all.
# shellcheck disable=SC2046
"$cc" -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$top/apps/vecsec-gw" -I"$top/lib/include" -I"$top/lib/include/vecsec" -I"$build/lib" \
	$(pkg-config --cflags libdpdk) -DALLOW_EXPERIMENTAL_API \
	"$top/test/gw/fuzz_ctrl.c" "$top/apps/vecsec-gw/ctrl.c" "$top/apps/vecsec-gw/ctrl_ike.c" \
	"$top/apps/vecsec-gw/ctrl_cmd.c" "$top/apps/vecsec-gw/cp.c" "$top/apps/vecsec-gw/evq.c" \
	"$top/apps/vecsec-gw/parser.c" "$top/apps/vecsec-gw/cp_rt.c" "$top/apps/vecsec-gw/ha.c" \
	-o "$bin.tmp"
mv "$bin.tmp" "$bin"

mkdir -p "$out/corpus"
echo "fuzz-ctrl: $(ls "$top/test/gw/fuzz-ctrl-corpus" | wc -l) seeds, $secs s"
# -close_fd_mask=1: the handlers' log lines on stdout; libFuzzer reports on stderr
cd "$out"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=12288 \
	-close_fd_mask=1 -artifact_prefix="$out/" -print_final_stats=1 \
	"$out/corpus" "$top/test/gw/fuzz-ctrl-corpus"
