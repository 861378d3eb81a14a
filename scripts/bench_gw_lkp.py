#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw, one ChaCha20-Poly1305 IPv4 tunnel SA each way on crypto_vecsec:
`type lookaside-protocol-offload` (the PMD's rte_security ESP sessions: ESP
framing, sequence numbers and crypto in the PMD's burst) against the same SA
lookaside-none (rte_ipsec frames ESP, the PMD does the AEAD). Short: the
workload, ports, files and measurement are bench_gw.py's (net_pcap replay
in, net_null out, replay window 0, on-CPU rate from schedstat); cases are
interleaved, each run a fresh process, medians of --runs.

usage: bench_gw_lkp.py --gw build/apps/vecsec-gw/vecsec-gw [--runs 3] [--secs 1]
       [--traffic 64,1400]
"""
import argparse
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_gw  # noqa: E402

TYPES = {"lookaside-none": "", "lookaside-protocol": " type lookaside-protocol-offload"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gw", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--secs", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--traffic", default="64,1400")
    ap.add_argument("--logs", default="")
    a = ap.parse_args()
    traffic = [t for t in a.traffic.split(",") if t]
    tag = "lkp%d" % os.getpid()
    shm = "/dev/shm/vecsec-bench-gw-%s" % tag
    logs = a.logs or os.path.join(shm, "logs")
    os.makedirs(shm)
    os.makedirs(logs, exist_ok=True)
    try:
        pcaps = bench_gw.gen_pcaps(shm, traffic, False)
        cfgs = {}
        for typ, kw in TYPES.items():
            for d in ("out", "in"):
                text = "".join(ln + (kw if ln.startswith("sa ") else "") + "\n"
                               for ln in bench_gw.gw_conf(1, False, d).splitlines())
                path = os.path.join(shm, "gw-%s-%s.cfg" % (d, typ))
                with open(path, "w") as f:
                    f.write(text)
                os.chmod(path, 0o600)
                cfgs[(typ, d)] = path
        cases = []
        for d in ("out", "in"):
            for t in traffic:
                for typ in TYPES:
                    if d == "out":
                        f = pcaps["clear_" + t]
                        pv = ["--vdev", "net_pcap_b0,rx_pcap=%s,infinite_rx=1" % f,
                              "--vdev", "net_null_b1,no-rx=1"]
                        op = 1
                    else:
                        f = pcaps["esp1_" + t]
                        pv = ["--vdev", "net_null_b0,no-rx=1",
                              "--vdev", "net_pcap_b1,rx_pcap=%s,infinite_rx=1" % f]
                        op = 0
                    cmd = [a.gw, "-l", "0", "--no-pci", "--no-huge", "-m", "512",
                           "--log-level", "*:warning", "--force-max-simd-bitwidth=512",
                           "--vdev", "crypto_vecsec0"] + pv + \
                        ["--", "-f", cfgs[(typ, d)], "-u", "2", "-w", "0", "--prefer",
                         "crypto_vecsec", "--quiet", "--duration", "120"]
                    cases.append((typ, d, t, cmd, op))
        res = {i: [] for i in range(len(cases))}
        for r in range(a.runs):
            for i, (typ, d, t, cmd, op) in enumerate(cases):
                prefix = "vecsec-bgw-%s-%d" % (tag, i)
                full = cmd[:3] + ["--file-prefix", prefix] + cmd[3:]
                log = os.path.join(logs, "case%02d-run%d.log" % (i, r))
                v = bench_gw.one_run(full, prefix, op, log, a.warmup, a.secs)
                if isinstance(v, str):
                    print("  run %d %-18s %-3s %-4s FAILED: %s" % (r, typ, d, t, v))
                else:
                    res[i].append(v)
                    print("  run %d %-18s %-3s %-4s %6.3f Mpps wall %6.3f Mpps on CPU"
                          % (r, typ, d, t, v[0] / 1e6, v[1] / 1e6), flush=True)
        hz, src = bench_gw.tsc_hz()
        print("\nmedians of %d runs, TSC %.0f MHz (%s); cycles/packet on CPU" %
              (a.runs, hz / 1e6, src))
        print("%-4s %-5s %18s %18s %8s" % ("dir", "size", "lookaside-none", "lookaside-proto",
                                           "ratio"))
        for d in ("out", "in"):
            for t in traffic:
                cyc = {}
                for i, (typ, dd, tt, _, _) in enumerate(cases):
                    if dd == d and tt == t and res[i] and hz:
                        cyc[typ] = hz / statistics.median(x[1] for x in res[i])
                n, p = cyc.get("lookaside-none"), cyc.get("lookaside-protocol")
                print("%-4s %-5s %18s %18s %8s" % (
                    d, t, "%.0f" % n if n else "-", "%.0f" % p if p else "-",
                    "%.2f" % (p / n) if n and p else "-"))
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
