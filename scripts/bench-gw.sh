#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Gateway benchmark: vecsec-gw against DPDK's stock ipsec-secgw, side by
# side in one run. One worker lcore, one ChaCha20-Poly1305 IPv4 tunnel SA,
# outbound (encrypt) and inbound (decrypt), 64 B, IMIX and 1400 B frames,
# replayed from pcap files (net_pcap infinite_rx=1) into every gateway alike;
# output to net_null. Cases:
#   vecsec-gw + crypto_vecsec (lookaside, cpu-crypto), + crypto_aesni_mb;
#   ipsec-secgw -l (library mode) + crypto_aesni_mb and + crypto_vecsec (-d),
#     lookaside and cpu-crypto (a copy of the stock app whose only change is
#     not requesting Rx checksum offload: tools/external/build-secgw.sh --no-rx-csum);
#   vecsec-gw 1000 SAs vs 1 SA, 2 workers vs 1 (64 B); the I/O floor (vecsec-gw
#   forwarding the same files in clear, SP bypass: what replay and sink cost);
#   the SA-count axis: 1, 1,000, 10,000 and 100,000 SAs at 64 B and IMIX, traffic
#   uniform and Zipf over the SAs, each point a loop of two packets per SA (at
#   least 12,288) and its ratio to 1 SA over a loop of the same length
#   (out/bench-gw-sas.png), with this machine's cost of a line from memory
#   (tools/memprobe: at 100,000 SAs per-SA state comes from memory, so the
#   ratio says as much about the machine as about the gateway) and each
#   point's extra cycles per packet over 1 SA in such lines.
# Medians of several runs; Mpps wall and per CPU second, cycles/packet.
# Writes out/bench-gw.csv, out/bench-gw.png, per-run logs in out/bench-gw/,
# and prints the command lines that reproduce each case.
#
# usage: scripts/bench-gw.sh [BUILD_DIR]        (about 30 minutes with the defaults)
# knobs: BENCH_GW_RUNS=3 (runs per case), BENCH_GW_SECS=1.0 (window),
#   BENCH_GW_WARMUP=0.5, BENCH_GW_TRAFFIC=64,imix,1400, BENCH_GW_SECGW=0 (skip
#   ipsec-secgw), BENCH_GW_MANY=0 (no 1000-SA case), BENCH_GW_WORKERS2=0,
#   BENCH_GW_TIMEOUT=3600 (the whole run, seconds), BENCH_GW_WORKERS=2 (lcores of the
#   multi-worker cases: one rx queue per worker, 1 SA and 1000 SAs), BENCH_GW_ONLY=REGEX
#   (only the cases whose "label dir size" matches), BENCH_GW_PERF=DIR (perf record
#   every run's window there, caseNN-runR.perf.data), BENCH_GW_SAS=1000 (SAs of the
#   many-SA cases: 32 keeps the per-SA state in cache, one SA per packet as with 1000).
#   BENCH_GW_BASE=PATH (another vecsec-gw binary, e.g. a copy built from main: its
#   64 B crypto_vecsec cases and every point of the SA-count axis run interleaved
#   with this build's, labelled "base"; the axis report adds this build / base).
#   BENCH_GW_LKP=1 (also crypto_vecsec's rte_security ESP sessions, SA type
#   lookaside-protocol-offload, every direction and size; with BENCH_GW_BASE the
#   base build's too: the PMD's ESP path before/after).
#   rte_security path alone: BENCH_GW_LKP=1 BENCH_GW_SECGW=0 BENCH_GW_MANY=0 \
#     BENCH_GW_WORKERS2=0 BENCH_GW_ONLY='vecsec (proto )?(out|in)' scripts/bench-gw.sh
#   1000 SAs vs 1 SA only: BENCH_GW_SECGW=0 BENCH_GW_TRAFFIC=64 \
#     BENCH_GW_ONLY='^vecsec-gw vecsec (1000 SAs )?(out|in)' scripts/bench-gw.sh
#   BENCH_GW_SA_AXIS=1,1000,10000,100000 (SA counts of the axis; 0: no axis),
#   BENCH_GW_SA_DIST=uniform,zipf, BENCH_GW_SA_TRAFFIC=64,imix, BENCH_GW_SA_PKTS=0
#   (packets per loop, 0: two per SA; the gateway gets that many mbufs more),
#   BENCH_GW_SA_TYPE=lookaside (the axis's SAs: lookaside, cpu-crypto, or proto:
#   crypto_vecsec's rte_security ESP sessions, type lookaside-protocol-offload; or
#   native: the gateway's own ESP, type native).
#   BENCH_GW_NATIVE=1 (also native SAs, type native, every direction and size, with
#   their cost above the I/O floor against lookaside-protocol (BENCH_GW_LKP=1) and
#   their rate against the stock ipsec-secgw + crypto_aesni_mb; with BENCH_GW_BASE
#   the base build's native SAs too, each case right after this build's).
#   Native against lookaside-protocol and the stock app: BENCH_GW_NATIVE=1 BENCH_GW_LKP=1 \
#     BENCH_GW_MANY=0 BENCH_GW_WORKERS2=0 BENCH_GW_SA_AXIS=0 scripts/bench-gw.sh
#   The SA axis only: BENCH_GW_ONLY='^axis' scripts/bench-gw.sh
#   BENCH_GW_CLUSTER=1 (also the active/active cluster of docs/ha.md, every direction
#   and size of BENCH_GW_TRAFFIC: BENCH_GW_CLUSTER_PEERS=8 peers, one tunnel SA each way
#   each, half of them in each segment of `--cluster 2@172.16.1.1` by the gateway's hash,
#   every frame to the node; cases one node carrying both segments (:all), node 1 (:1,
#   segment 2 filtered), node 2 (:2); reports (node 1 + node 2) / one node per CPU
#   second and the cycles of a filter drop). The cluster alone, 64 B and IMIX:
#     BENCH_GW_CLUSTER=1 BENCH_GW_SECGW=0 BENCH_GW_MANY=0 BENCH_GW_WORKERS2=0 \
#     BENCH_GW_SA_AXIS=0 BENCH_GW_TRAFFIC=64,imix BENCH_GW_RUNS=5 \
#     BENCH_GW_ONLY='^cluster' scripts/bench-gw.sh
#   BENCH_GW_HUGE=1: EAL memory from reserved hugepages (--in-memory, still
#   --no-pci) instead of --no-huge: the production setting; the machine must
#   have at least 1024 free 2 MiB pages (docs/operations.md, section 1)
#   BENCH_GW_ARGS='OPTIONS': more vecsec-gw options for every vecsec-gw case (the
#   base build's too), e.g. BENCH_GW_ARGS='--spd-cache 0' (no SPD flow cache; a base build must know them).
#   Quick look: BENCH_GW_RUNS=1 BENCH_GW_TRAFFIC=64 BENCH_GW_SA_AXIS=0 scripts/bench-gw.sh
#   BENCH_DOCS_IMG=1: the SA-count axis's plot and the CSV go to docs/img/
#   (bench-gw-sas.png, bench-gw.csv, and bench-gw.load: the command and the
#   machine's load), the committed picture of gateway rate against SA count
#   (docs/measurements.md)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${1:-build}

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" >/dev/null
fi
ninja -C "$build" -j2 >/dev/null
gw=$(readlink -f "$build/apps/vecsec-gw/vecsec-gw")
so=$(readlink -f "$build/drivers/crypto/vecsec/librte_crypto_vecsec.so")
[ -x "$gw" ] || { echo "bench-gw: no $gw (is libdpdk-dev installed?)" >&2; exit 1; }
[ -f "$so" ] || { echo "bench-gw: no $so" >&2; exit 1; }
# EAL refuses a -d PMD under a world-writable folder (a checkout in /tmp): a
# private copy, or one line that says what to do (scripts/demo-pmd.sh)
. scripts/demo-pmd.sh
trap pmd_private_cleanup EXIT
pmd_private "$so" || exit 1
so=$pmd_so
[ "$(id -u)" = 0 ] || echo "bench-gw: not root: EAL runtime folders go to \$XDG_RUNTIME_DIR" >&2

args=(--gw "$gw" --pmd-so "$so" --out out/bench-gw.csv --logs out/bench-gw
	--runs "${BENCH_GW_RUNS:-3}" --secs "${BENCH_GW_SECS:-1.0}"
	--warmup "${BENCH_GW_WARMUP:-0.5}" --tag $$ --traffic "${BENCH_GW_TRAFFIC:-64,imix,1400}")
if [ "${BENCH_GW_SECGW:-1}" = 1 ]; then
	secgw=$(tools/external/build-secgw.sh "$build/bench-gw/secgw-nocsum" --no-rx-csum)
	args+=(--secgw "$secgw")
fi
[ "${BENCH_GW_MANY:-1}" = 1 ] || args+=(--no-many)
[ "${BENCH_GW_WORKERS2:-1}" = 1 ] || args+=(--no-workers2)
args+=(--workers "${BENCH_GW_WORKERS:-2}" --sas "${BENCH_GW_SAS:-1000}")
args+=(--sa-axis "${BENCH_GW_SA_AXIS-1,1000,10000,100000}" --sa-dist "${BENCH_GW_SA_DIST:-uniform,zipf}"
	--sa-traffic "${BENCH_GW_SA_TRAFFIC:-64,imix}" --sa-pkts "${BENCH_GW_SA_PKTS:-0}"
	--sa-type "${BENCH_GW_SA_TYPE:-lookaside}")
[ -z "${BENCH_GW_ONLY:-}" ] || args+=(--only "$BENCH_GW_ONLY")
[ -z "${BENCH_GW_BASE:-}" ] || args+=(--gw-base "$(readlink -f "$BENCH_GW_BASE")")
[ "${BENCH_GW_LKP:-0}" = 0 ] || args+=(--lookaside-protocol)
[ "${BENCH_GW_NATIVE:-0}" = 0 ] || args+=(--native)
[ -z "${BENCH_GW_PERF:-}" ] || args+=(--perf "$BENCH_GW_PERF")
[ "${BENCH_GW_CLUSTER:-0}" = 0 ] || args+=(--cluster --cluster-peers "${BENCH_GW_CLUSTER_PEERS:-8}")
[ -z "${BENCH_GW_ARGS:-}" ] || args+=(--gw-args "$BENCH_GW_ARGS")
# the cost of a line from memory, printed with the SA-count axis
[ ! -x "$build/tools/memprobe/memprobe" ] || args+=(--memprobe "$(readlink -f "$build/tools/memprobe/memprobe")")
if [ "${BENCH_GW_HUGE:-0}" = 1 ]; then
	free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	if [ "${free:-0}" -lt 1024 ]; then
		echo "bench-gw: BENCH_GW_HUGE=1 needs reserved hugepages (HugePages_Free ${free:-0}," \
			"at least 1024 of 2 MiB: docs/operations.md)" >&2
		exit 1
	fi
	args+=(--hugepages)
fi
mkdir -p out
rm -rf out/bench-gw
echo "bench-gw: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
if [ "$(nproc)" -lt 4 ]; then
	echo "bench-gw: this machine has $(nproc) CPUs, shared with other processes: 2 workers need"
	echo "  both, so the 2-worker numbers are capped by the machine, not by the gateway"
fi
# The driver removes its /dev/shm folder and the EAL runtime folders itself;
# this catches what a killed run leaves.
cleanup() {
	rm -rf "/dev/shm/vecsec-bench-gw-$$" /var/run/dpdk/vecsec-bgw-$$-* \
		"${XDG_RUNTIME_DIR:-/nonexistent}"/dpdk/vecsec-bgw-$$-* 2>/dev/null || true
	pmd_private_cleanup
}
trap cleanup EXIT
# the driver is the gwrun package's (tools/gwrun/bench.py)
echo "bench-gw: PYTHONPATH=tools /usr/bin/python3 -m gwrun.bench ${args[*]}"
PYTHONPATH="$top/tools" timeout -s INT -k 20 "${BENCH_GW_TIMEOUT:-3600}" \
	/usr/bin/python3 -m gwrun.bench "${args[@]}"
if [ "${BENCH_DOCS_IMG:-0}" = 1 ] && [ -f out/bench-gw-sas.png ]; then
	cp out/bench-gw-sas.png docs/img/bench-gw-sas.png
	cp out/bench-gw.csv docs/img/bench-gw.csv
	{
		env | grep '^BENCH_GW_' | sort | tr '\n' ' '
		echo "scripts/bench-gw.sh $*"
		echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
		echo "load average after the run$(uptime | sed "s/.*load average//")"
	} > docs/img/bench-gw.load
	echo "bench-gw: docs/img/bench-gw-sas.png, bench-gw.csv and bench-gw.load written"
fi
