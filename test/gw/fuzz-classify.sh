#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Build vecsec-gw's rx classification libFuzzer target (test/gw/fuzz_classify.c
# on apps/vecsec-gw/gw_pkt.h and lib/esp's IPv6 walk, lib/esp/esp_ip.c) with
# clang-14 and ASan + UBSan into OUT_DIR and run it for SECONDS (default 20;
# FUZZ_SECONDS in the environment wins, e.g. FUZZ_SECONDS=1800 for a long
# run). Seeds: the frames of
# test/gw/fuzz-classify-seeds.pcap (real packets, see test/gw/fuzz_seeds.py),
# each with a few control bytes (port side, NIC checksum verdict, bytes
# readable in place). Everything it writes (binary, corpus, crash files) stays
# under OUT_DIR. Exits non-zero when the target cannot be built or the fuzzer
# finds a crash, leak, UB or a broken promise (abort).
#
# usage: fuzz-classify.sh SOURCE_ROOT BUILD_ROOT OUT_DIR [SECONDS]
# (BUILD_ROOT: the meson build folder, for the generated vecsec_version.h)
set -euo pipefail
usage="usage: fuzz-classify.sh SOURCE_ROOT BUILD_ROOT OUT_DIR [SECONDS]"
top=$(readlink -f "${1:?$usage}")
build=$(readlink -f "${2:?$usage}")
out=${3:?$usage}
secs=${FUZZ_SECONDS:-${4:-20}}
cc=${CLANG:-clang-14}
command -v "$cc" >/dev/null || { echo "FAIL: no $cc (scripts/setup.sh installs clang-14)" >&2; exit 1; }
mkdir -p "$out"
out=$(readlink -f "$out")
bin=$out/fuzz_classify

# gw_pkt.h needs DPDK's headers only and lib/esp's portable walk: no DPDK
# library, no EAL, so the sanitizers see every line that runs.
# shellcheck disable=SC2046
"$cc" -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$top/apps/vecsec-gw" -I"$top/lib/include" -I"$top/lib/include/vecsec" -I"$build/lib" \
	$(pkg-config --cflags libdpdk) -DALLOW_EXPERIMENTAL_API \
	"$top/test/gw/fuzz_classify.c" "$top/lib/esp/esp_ip.c" -o "$bin.tmp"
mv "$bin.tmp" "$bin"

# The seed corpus is rebuilt each run; libFuzzer adds what it finds to corpus/.
rm -rf "$out/seeds"
mkdir -p "$out/seeds" "$out/corpus"
/usr/bin/python3 - "$top/test/gw" "$out/seeds" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
sys.dont_write_bytecode = True          # no __pycache__ in the source tree
import gwtest
# control byte: bit 0 ESP side, bits 1-2 checksum verdict (verify, good, bad, fix),
# bits 3-7 bytes readable in place / 16 (0: all)
ctls = (0x01, 0x00, 0x03, 0x07, 0x01 | 4 << 3)
frames = list(gwtest.read_pcap(os.path.join(sys.argv[1], "fuzz-classify-seeds.pcap")))
for i, fr in enumerate(frames):
    for c in ctls:
        with open(os.path.join(sys.argv[2], "f%03d-%02x" % (i, c)), "wb") as f:
            f.write(bytes([c]) + fr)
PY
echo "fuzz-classify: $(ls "$out/seeds" | wc -l) seeds, $secs s"
cd "$out"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
	-artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" "$out/seeds"
