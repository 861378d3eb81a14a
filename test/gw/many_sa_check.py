#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw with bursts spread over many SAs, against scapy's ESP: NSA
outbound and NSA inbound ChaCha20-Poly1305 IPv4 tunnel SAs, traffic in a
seeded random order over all of them with runs of one SA now and then, so
that a 32-packet burst holds up to 32 SAs (the worker's SA grouping, its
hash collisions, the per-burst crypto op allocation and the one inbound
policy lookup per burst). Ports are net_pcap files, no network needed.

Checks: every outbound ESP packet decrypts with scapy to its original, in
order within its SA, with consecutive sequence numbers; every inbound packet
comes out equal to its original, in order within its SA; inbound packets
sent on SA a whose inner destination belongs to SA b are dropped as
`policy`, counted on SA a; every counter is exact.

usage: many_sa_check.py GATEWAY_BINARY [--cpu-crypto] [--sas N]
"""
import os
import random
import sys
import tempfile

from scapy.all import IP, UDP, Raw, rdpcap, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey  # noqa: E402

K = 5           # packets per SA and direction
CROSS = 9       # inbound packets on one SA for another SA's network
GW_OUT, PEER = "172.31.2.1", "172.31.1.1"


class Sa:
    def __init__(self, n, inbound):
        self.n = n
        self.inbound = inbound
        self.spi = (0x20000 if inbound else 0x10000) + n
        self.key = bytes((n * 13 + i * 7 + (101 if inbound else 3)) & 0xff for i in range(36))
        d = "in" if inbound else "out"
        self.dst = "10.%d.%d.%d" % (200 if inbound else 100, n >> 6, 1 + (n & 63) * 2)
        src, dst = (PEER, GW_OUT) if inbound else (GW_OUT, PEER)
        self.conf = ("sp ipv4 %s esp protect %d pri 1 dst %s/32\n"
                     "sa %s %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s\n" % (d, self.spi, self.dst, d, self.spi, hexkey(self.key),
                                          src, dst))
        self.sa = SecurityAssociation(ESP, spi=self.spi, crypt_algo="CHACHA20-POLY1305",
                                      crypt_key=self.key, tunnel_header=IP(src=src, dst=dst))
        self.next_seq = 1

    def clear(self, k, dst=None):
        body = bytes((k * 5 + i + self.n) & 0xff for i in range(20 + (k * 11 + self.n) % 90))
        return IP(src="192.168.7.%d" % (1 + self.n % 250), dst=dst or self.dst) / \
            UDP(sport=3000 + k, dport=4000 + self.n) / Raw(body)

    def encrypt(self, p):
        self.sa.seq_num = self.next_seq
        self.next_seq += 1
        return self.sa.encrypt(p)


def order(rnd, nsa):
    """SA index per packet: K each, shuffled, with some runs of one SA kept together."""
    runs = []
    for s in range(nsa):
        left = K
        while left:
            r = 1 if rnd.random() < 0.7 else min(left, rnd.randint(2, 4))
            r = min(r, left)
            runs.append((s, r))
            left -= r
    rnd.shuffle(runs)
    return [s for (s, r) in runs for _ in range(r)]


def main():
    gwbin = sys.argv[1]
    extra, _, own = gwtest.gw_args(sys.argv[2:], values=("--sas",), eal_opts=())
    nsa = int(own.get("--sas", 100))
    rnd = random.Random(7)
    prefix = gwtest.file_prefix("manysa")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-manysa-")
    ok = True
    try:
        outs = [Sa(i, False) for i in range(nsa)]
        ins = [Sa(i, True) for i in range(nsa)]
        conf = "".join(s.conf for s in outs + ins)
        conf += "rt ipv4 dst 172.31.1.0/24 port 1\nrt ipv4 dst 10.200.0.0/16 port 0\n"
        conf += gwtest.NEIGH
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)

        clear_in, out_orig = [], {s.spi: [] for s in outs}
        for i in order(rnd, nsa):
            s = outs[i]
            p = s.clear(len(out_orig[s.spi]))
            out_orig[s.spi].append(p)
            clear_in.append(eth(p))
        esp_in, in_orig = [], {s.spi: [] for s in ins}
        for i in order(rnd, nsa):
            s = ins[i]
            p = s.clear(len(in_orig[s.spi]))
            in_orig[s.spi].append(p)
            esp_in.append(eth(s.encrypt(p)))
        # inbound on SA a for SA b's network: decrypts, then fails the policy check
        cross = {}
        for c in range(CROSS):
            a, b = rnd.sample(range(nsa), 2)
            p = ins[a].clear(100 + c, dst=ins[b].dst)
            cross[ins[a].spi] = cross.get(ins[a].spi, 0) + 1
            esp_in.insert(rnd.randrange(len(esp_in) + 1), eth(ins[a].encrypt(p)))

        stats = gwtest.run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, app=extra)
        if stats is None:
            return 1

        esp_out = gwtest.EspOut(outs)
        for p, s, k in esp_out.each(os.path.join(tmp, "esp_out.pcap")):
            if p[ESP].seq != k + 1 or k >= K:
                print("FAIL: SA out %#x: packet %d has seq %d" % (s.spi, k, p[ESP].seq))
                ok = False
                continue
            # scapy raises on a bad ICV
            ok = gwtest.check_decrypt("SA out %#x" % s.spi, k, lambda: s.sa.decrypt(p),
                                      out_orig[s.spi][k], show=False) and ok
        ok = esp_out.ok and ok
        bad = [s.spi for s in outs if esp_out.seen[s.spi] != K]
        if bad:
            print("FAIL: %d outbound SAs without %d packets out, first %#x" % (len(bad), K, bad[0]))
            ok = False
        else:
            print("ok   outbound: %d SAs x %d packets decrypt with scapy, in order" % (nsa, K))

        got, ok1 = gwtest.clear_by_sa(rdpcap(os.path.join(tmp, "clear_out.pcap")), ins)
        ok = ok1 and ok
        nbad = 0
        for s in ins:
            if got[s.spi] != [raw(p) for p in in_orig[s.spi]]:
                nbad += 1
                if nbad == 1:
                    print("FAIL: SA in %#x: %d packets out, %d expected, or other bytes/order"
                          % (s.spi, len(got[s.spi]), K))
        if nbad:
            ok = False
        else:
            print("ok   inbound: %d SAs x %d packets decrypt to the originals, in order"
                  % (nsa, K))

        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, {"policy": CROSS}) and ok
        for e in st["sa"]:
            c = cross.get(e["spi"], 0) if e["dir"] == "in" else 0
            if e["pkts"] != K + c or e["drops"]["policy"] != c:
                print("FAIL: SA %s %#x: %d packets, %d policy drops; want %d, %d"
                      % (e["dir"], e["spi"], e["pkts"], e["drops"]["policy"], K + c, c))
                ok = False
        ok = gwtest.check_esp_totals(st, K * nsa, K * nsa) and ok
        if ok:
            print("ok   counters: %d policy drops on the SAs they came in on" % CROSS)
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
