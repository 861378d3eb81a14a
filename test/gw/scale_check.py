#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw at scale, from a configuration file: T IPv4 tunnels (default
100,000: 2T SAs, ChaCha20-Poly1305, each with its outbound and inbound SP
rule and a host route to its peer), generated here. Checks:

  - `--check` accepts the file and counts every SA, SP and route (a gateway
    with a fixed table of 1024 SAs stops at the 1025th);
  - the gateway starts with all of them (its "loaded in" line, printed);
  - traffic on a random sample of tunnels, both ways, interleaved: every
    outbound ESP packet decrypts with scapy, with the sampled tunnel's key,
    to its original (sequence numbers 1, 2, ... per SA); every inbound ESP
    packet scapy made for a sampled tunnel comes out as its original;
  - no drop, and the sampled SAs' counters in --stats-file are exact.

Ports are net_pcap files, no network needed.

usage: scale_check.py GATEWAY_BINARY [--tunnels T] [--sample N] [--cpu-crypto]
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

GW, SPI_OUT, SPI_IN = "172.16.0.1", 0x100000, 0x200000
LOCAL = "192.168.0.0/16"
PER_SA = 2              # packets per sampled SA and direction
BASE_OUT = bytes((0x51 + 7 * i) & 0xff for i in range(36))
BASE_IN = bytes((0x3c + 11 * i) & 0xff for i in range(36))


def ip4(a):
    return "%d.%d.%d.%d" % (a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255)


def peer(k):
    return ip4((100 << 24 | 64 << 16) + k + 1)         # 100.64.0.1 ...


def net(k):
    return ip4((10 << 24) + 16 * k)                    # 10.0.0.0/28, 10.0.0.16/28 ...


def key(base, k):
    """Tunnel k's key material: its number in the first 4 bytes of a base."""
    return k.to_bytes(4, "big") + base[4:]


def config(t):
    """The configuration text of t tunnels, built in one pass."""
    out = []
    for k in range(t):
        p, n = peer(k), net(k)
        out.append("sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                   "src %s dst %s\n" % (SPI_OUT + k, key(BASE_OUT, k).hex(":"), GW, p))
        out.append("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                   "src %s dst %s\n" % (SPI_IN + k, key(BASE_IN, k).hex(":"), p, GW))
        out.append("sp ipv4 out esp protect %d pri 1 src %s dst %s/28\n"
                   "sp ipv4 in esp protect %d pri 1 src %s/28 dst %s\n"
                   "rt ipv4 dst %s/32 port 1\n" % (SPI_OUT + k, LOCAL, n, SPI_IN + k, n,
                                                   LOCAL, p))
    out.append("rt ipv4 dst %s port 0\n" % LOCAL)
    out.append(gwtest.NEIGH)
    return "".join(out)


def main():
    from scapy.all import IP, UDP, Raw, rdpcap, raw, wrpcap
    from scapy.layers.ipsec import ESP, SecurityAssociation

    gwbin = sys.argv[1]
    app, _, own = gwtest.gw_args(sys.argv[2:], values=("--tunnels", "--sample"), eal_opts=())
    t = int(own.get("--tunnels", 100000))
    nsample = min(int(own.get("--sample", 64)), t)
    rnd = random.Random(14)
    prefix = gwtest.file_prefix("scale")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-scale-")
    ok = True
    try:
        t0 = time.monotonic()
        cfg = os.path.join(tmp, "gw.cfg")
        fd = os.open(cfg, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)     # it holds keys
        with os.fdopen(fd, "w") as f:
            f.write(config(t))
        print("ok   %d tunnels: %d SAs, %d SP rules, %d routes written in %.1f s (%.0f MB)"
              % (t, 2 * t, 2 * t, t + 1, time.monotonic() - t0, os.path.getsize(cfg) / 1e6))

        r = subprocess.run([gwbin, "--check", cfg], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
        want = "OK: %d SA, %d SP, %d routes" % (2 * t, 2 * t, t + 1)
        if r.returncode != 0 or want not in r.stdout:
            print("FAIL: --check: rc %d: %s" % (r.returncode, r.stdout.strip()[-300:]))
            return 1
        print("ok   --check: %s" % want)

        # the sample: tunnels drawn at random, both directions, packets interleaved
        sample = sorted(rnd.sample(range(t), nsample))
        outs, ins = {}, {}
        clear_in, esp_in, out_orig, in_orig = [], [], {}, {}
        for k in sample:
            outs[SPI_OUT + k] = SecurityAssociation(
                ESP, spi=SPI_OUT + k, crypt_algo="CHACHA20-POLY1305",
                crypt_key=key(BASE_OUT, k), tunnel_header=IP(src=GW, dst=peer(k)))
            ins[SPI_IN + k] = SecurityAssociation(
                ESP, spi=SPI_IN + k, crypt_algo="CHACHA20-POLY1305",
                crypt_key=key(BASE_IN, k), tunnel_header=IP(src=peer(k), dst=GW))
            base = (10 << 24) + 16 * k
            for j in range(PER_SA):
                body = bytes((k + j + i) & 0xff for i in range(16 + (k * 7 + j) % 200))
                po = IP(src="192.168.%d.%d" % (k % 250, 1 + j), dst=ip4(base + 1 + j)) / \
                    UDP(sport=1000 + j, dport=2000 + k % 1000) / Raw(body)
                out_orig.setdefault(SPI_OUT + k, []).append(po)
                clear_in.append(gwtest.eth(po))
                pi = IP(src=ip4(base + 2 + j), dst="192.168.%d.%d" % (k % 250, 9 + j)) / \
                    UDP(sport=3000 + j, dport=4000 + k % 1000) / Raw(body[::-1])
                in_orig.setdefault(SPI_IN + k, []).append(pi)
                sa = ins[SPI_IN + k]
                sa.seq_num = j + 1
                esp_in.append(gwtest.eth(sa.encrypt(pi)))
        # interleave, keeping each SA's own order (its sequence numbers)
        clear_in = interleave(rnd, clear_in, PER_SA)
        esp_in = interleave(rnd, esp_in, PER_SA)

        wrpcap(os.path.join(tmp, "clear_in.pcap"), clear_in)
        wrpcap(os.path.join(tmp, "esp_in.pcap"), esp_in)
        stats = os.path.join(tmp, "stats.json")
        # DPDK memory: about 6 KiB per SA with crypto_vecsec's 2 KiB sessions, and room
        mem = max(512, 256 + (2 * t * 10) // 1024)
        cmd = [gwbin, "-l", "0", "--no-pci", "--no-huge", "-m", str(mem), "--file-prefix",
               prefix, "--log-level", "*:warning", "--log-level", "vecsec.gw:info"] + \
            gwtest.pcap_ports(tmp) + \
            ["--", "-f", cfg, "-u", "2", "--idle-exit", "0.5", "--stats-file", stats] + app + \
            gwtest.seq_state_args(app)
        t0 = time.monotonic()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=600)
        wall = time.monotonic() - t0
        lines = [x for x in r.stdout.splitlines() if not x.startswith("  SA ")]
        print("\n".join(lines[:12]))
        if r.returncode != 0:
            print("FAIL: gateway exited with %d" % r.returncode)
            return 1
        m = re.search(r"(\d+) SA, (\d+) SP, (\d+) routes", r.stdout)
        if m is None or [int(x) for x in m.groups()] != [2 * t, 2 * t, t + 1]:
            print("FAIL: the gateway did not start with %d SAs, %d SPs, %d routes" %
                  (2 * t, 2 * t, t + 1))
            ok = False
        m = re.search(r"loaded in ([0-9.]+) s", r.stdout)
        print("ok   started with %d SAs: %s; the whole run %.1f s"
              % (2 * t, m.group(0) if m else "(no load time printed)", wall))

        esp_out = gwtest.EspOut([])
        esp_out.by_spi = outs
        esp_out.seen = {s: 0 for s in outs}
        n = 0
        for p, sa, k in esp_out.each(os.path.join(tmp, "esp_out.pcap")):
            spi = p[ESP].spi
            if k >= PER_SA or p[ESP].seq != k + 1:
                print("FAIL: SA out %#x: packet %d has sequence number %d"
                      % (spi, k, p[ESP].seq))
                ok = False
                continue
            ok = gwtest.check_decrypt("SA out %#x" % spi, k, lambda: sa.decrypt(p),
                                      out_orig[spi][k], show=False) and ok
            n += 1
        ok = esp_out.ok and ok
        if n != PER_SA * nsample:
            print("FAIL: %d outbound ESP packets decrypted, want %d" % (n, PER_SA * nsample))
            ok = False
        else:
            print("ok   outbound: %d sampled tunnels x %d packets decrypt with scapy to the "
                  "originals, in order" % (nsample, PER_SA))

        got = {}
        for f in rdpcap(os.path.join(tmp, "clear_out.pcap")):
            got.setdefault(raw(f.payload), 0)
            got[raw(f.payload)] += 1
        want_in = [raw(p) for v in in_orig.values() for p in v]
        missing = [w for w in want_in if got.get(w, 0) != 1]
        if missing or sum(got.values()) != len(want_in):
            print("FAIL: inbound: %d of %d originals not out exactly once, %d frames out"
                  % (len(missing), len(want_in), sum(got.values())))
            ok = False
        else:
            print("ok   inbound: %d sampled tunnels x %d scapy ESP packets come out as the "
                  "originals" % (nsample, PER_SA))

        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, {}) and ok
        ok = gwtest.check_esp_totals(st, PER_SA * nsample, PER_SA * nsample) and ok
        counted = {(e["dir"], e["spi"]): e["pkts"] for e in st["sa"]}
        bad = [s for s in list(outs) + list(ins)
               if counted.get(("out" if s in outs else "in", s)) != PER_SA]
        if len(st["sa"]) != 2 * t or bad:
            print("FAIL: %d SAs in the stats (want %d); %d sampled SAs without %d packets"
                  % (len(st["sa"]), 2 * t, len(bad), PER_SA))
            ok = False
        else:
            print("ok   counters: %d SAs, the sampled ones %d packets each, no drop"
                  % (2 * t, PER_SA))
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


def interleave(rnd, frames, per):
    """Shuffle frames made in groups of `per` (one SA's), keeping each group's order."""
    groups = [frames[i:i + per] for i in range(0, len(frames), per)]
    order = [g for g, grp in enumerate(groups) for _ in grp]
    rnd.shuffle(order)
    pos = [0] * len(groups)
    out = []
    for g in order:
        out.append(groups[g][pos[g]])
        pos[g] += 1
    return out


if __name__ == "__main__":
    sys.exit(main())
