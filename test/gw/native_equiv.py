#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw's native SAs (type native: the gateway's own ESP, libvecsec's
lanes engine) against the cryptodev path, byte for byte.

The same configuration runs twice over the same pcaps: once as it is
(lookaside-none SAs: rte_ipsec with crypto_vecsec; the reference) and
once with --native (every SA native). Both runs must write the same
frames, bytes and order, on every port, and count the same drops by
reason, globally and per SA.

Outbound corpus: per SA (ChaCha20-Poly1305 IPv4/IPv6 tunnel and
transport, ESN across 2^32, NAT-T tunnel IPv4/IPv6 and transport,
ARIA-128-GCM and ARIA-256-GCM), clear packets of 0..1400 body bytes
(every padding length), IPv4 with options, IPv6 with a Destination
Options header (transport: ESP goes after it), and a 3000-byte datagram
sent in fragments, which the gateway reassembles into a chained mbuf
(the scatter-gather jobs).

Inbound corpus: the reference run's own ESP output, given back to SAs of
the same keys and SPIs (the direction in), plus hostile packets: flipped
ciphertext bits (auth_failed), replays of earlier frames (replay), an
unknown SPI (no_sa), ESP cut short (malformed), and ESP datagrams in IP
fragments (reassembled chains decrypted in place).

The clear packets that come out inbound must also be the originals
(normalised: the gateway forwards, so TTLs and checksums are compared
as they left the peer).

usage: native_equiv.py GATEWAY
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import hexkey  # noqa: E402

from scapy.all import (IP, IPv6, UDP, IPv6ExtHdrDestOpt, Ether, fragment,  # noqa: E402
                       defragment, raw, rdpcap)

key = gwtest.keygen(28, 7, 3)
PLAN = gwtest.AddressPlan("172.29.1", "172.29.2", "fd00:29a", "fd00:29b")
ESN0 = 0xfffffff0       # outbound ESN SAs start here: the run crosses 2^32

# name, spi, algo, key bytes with the salt, mode, inner family, esn, NAT-T
SAS = [
    ("v4tun-chacha", 0x2801, "chacha20-poly1305", 36, "ipv4-tunnel", 4, False, False),
    ("v6tun-chacha", 0x2802, "chacha20-poly1305", 36, "ipv6-tunnel", 6, False, False),
    ("v4trs-chacha", 0x2803, "chacha20-poly1305", 36, "transport", 4, False, False),
    ("v6trs-chacha", 0x2804, "chacha20-poly1305", 36, "transport", 6, False, False),
    ("v4tun-chacha-esn", 0x2805, "chacha20-poly1305", 36, "ipv4-tunnel", 4, True, False),
    ("v6trs-chacha-esn", 0x2806, "chacha20-poly1305", 36, "transport", 6, True, False),
    ("v4tun-chacha-natt", 0x2807, "chacha20-poly1305", 36, "ipv4-tunnel", 4, False, True),
    ("v6tun-chacha-natt", 0x2808, "chacha20-poly1305", 36, "ipv6-tunnel", 6, False, True),
    ("v4trs-chacha-natt", 0x2809, "chacha20-poly1305", 36, "transport", 4, False, True),
    ("v4tun-aria128", 0x280a, "aria-128-gcm", 20, "ipv4-tunnel", 4, False, False),
    ("v6trs-aria256", 0x280b, "aria-256-gcm", 36, "transport", 6, True, False),
]
SIZES = [0, 1, 2, 3, 4, 5, 17, 64, 200, 555, 1000, 1400]


class Sa:
    def __init__(self, idx, spec):
        (self.name, self.spi, self.algo, klen, self.mode, self.fam, self.esn,
         self.natt) = spec
        self.inbound = False
        self.key = key(self.spi & 0xff, klen)
        PLAN.apply(self, idx)
        # the same SA both ways: the inbound one takes what the outbound one sends
        ends = ""
        if self.mode != "transport":
            ends = " src %s dst %s" % gwtest.tunnel_ends(self)
        extra = " udp-encap" if self.natt else ""
        fam = "ipv4" if self.fam == 4 else "ipv6"
        self.conf = ""
        for d, esn in (("out", ESN0), ("in", ESN0 - 1)):
            self.conf += ("sa %s %d aead_algo %s aead_key %s mode %s%s%s%s\n" %
                          (d, self.spi, self.algo, hexkey(self.key), self.mode, ends,
                           " esn %d" % esn if self.esn else "", extra))
            self.conf += "sp %s %s esp protect %d pri 1 dst %s\n" % (fam, d, self.spi,
                                                                     self.net)

    def clear(self, k, size):
        p = gwtest.udp_packet(self, k, size, 5, 3000 + k, 4000)
        if self.fam == 6 and k % 4 == 1:
            # a Destination Options header: transport ESP goes after it
            p = IPv6(src=self.src, dst=self.dst) / IPv6ExtHdrDestOpt() / p[UDP]
        return p


def corpus_out(sas):
    frames = []
    for k, size in enumerate(SIZES):
        for s in sas:
            frames.append(gwtest.eth(s.clear(k, size)))
    # a datagram in fragments: reassembled into a chain, then ESP over the chain
    frames += [gwtest.eth(f) for f in fragment(big_packet(sas), fragsize=1200)]
    return frames


def big_packet(sas):
    """3000 bytes of UDP on the first SA, sent in fragments."""
    big = gwtest.udp_packet(sas[0], 99, 3000, 3, 3999, 4000)
    big[IP].flags = 0
    big[IP].id = 0x2828
    return big


def hostile_in(esp_frames):
    """
    The ESP frames back (the last three in IP fragments), with forged ones
    before their originals (auth_failed), and replayed, cut short and
    unknown ones after them.
    """
    frames = [Ether(src="02:00:00:00:00:aa", dst="02:00:00:00:00:bb") / Ether(f).payload
              for f in esp_frames]
    forged, after = [], []
    for i, f in enumerate(frames[:40]):
        b = bytearray(raw(f))
        if i % 4 == 0:
            b[-20] ^= 0x10                      # ciphertext: auth_failed
            forged.append(Ether(bytes(b)))
        elif i % 4 == 1:
            after.append(f)                     # replay
        elif i % 4 == 2:
            after.append(Ether(bytes(b[:-40])))  # cut short: the IP length is wrong
        elif IP in f and f[IP].proto == 50:
            hl = f[IP].ihl * 4
            b[14 + hl] ^= 0x7f                  # unknown SPI
            after.append(Ether(bytes(b)))
    out = forged + frames[:-3]
    # ESP datagrams in IP fragments: reassembled into chains before the SAD
    for f in frames[-3:]:
        if IP in f and f[IP].len > 600 and f[IP].frag == 0 and not f[IP].flags.MF:
            ip = f[IP].copy()
            ip.flags = 0
            out += [gwtest.eth(x) for x in fragment(ip, fragsize=512)]
        else:
            out.append(f)
    return out + after


def run(gwbin, tmp, tag, cfg, clear_in, esp_in, app):
    d = os.path.join(tmp, tag)
    os.makedirs(d)
    prefix = gwtest.file_prefix("neq" + tag[:3])
    try:
        stats = gwtest.run_pcap_gw(gwbin, prefix, d, cfg, clear_in, esp_in, app=app,
                                   timeout=180)
    finally:
        gwtest.eal_cleanup(prefix)
    if stats is None:
        return None
    out = {n: [raw(p) for p in rdpcap(os.path.join(d, n))]
           for n in ("clear_out.pcap", "esp_out.pcap")}
    return out, gwtest.load_stats(stats)


def per_flow(frames):
    """
    Frames in order per SA (ESP: by SPI, NAT-T's too; a cryptodev completes
    a burst's SAs in its own order) and per inner flow (clear: by
    destination): the order the protocol fixes.
    """
    groups = {}
    for x in frames:
        if len(x) > 62 and x[12:14] == b"\x86\xdd" and x[20] == 44:
            # an IPv6 fragment's identification is the sender's (frag.c: random start)
            x = x[:58] + bytes(4) + x[62:]
        p = Ether(x)
        ip = p[IP] if IP in p else p[IPv6]
        k = raw(ip)[:0]
        esp = p.getlayer("ESP")
        if esp is not None:
            k = b"esp%d" % esp.spi
        elif UDP in p and p[UDP].dport == 4500 and len(p[UDP].payload) > 8:
            k = b"natt" + raw(p[UDP].payload)[:4]
        else:
            k = raw(ip)[16:20] if IP in p else raw(ip)[24:40]
        groups.setdefault(k, []).append(x)
    return [groups[k] for k in sorted(groups)]


def same(what, ref, nat, want_type):
    """Both runs wrote the same frames and counted the same drops."""
    ok = True
    (fr, sr), (fn, sn) = ref, nat
    for port in fr:
        a, b = per_flow(fr[port]), per_flow(fn[port])
        if a != b:
            ok = False
            print("FAIL: %s %s: %d frames (reference) and %d (native)" % (what, port, len(a),
                                                                           len(b)))
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    j = next((j for j, (u, v) in enumerate(zip(x, y)) if u != v), None)
                    print("  first difference: flow %d (%d, %d frames), frame %s" %
                          (i, len(x), len(y), j))
                    if j is not None:
                        print("  ref %s\n  nat %s" % (x[j].hex(), y[j].hex()))
                    break
    if sr["drops"] != sn["drops"]:
        ok = False
        print("FAIL: %s drops: reference %s, native %s" % (what, sr["drops"], sn["drops"]))
    by = {(e["dir"], e["spi"]): e for e in sn["sa"]}
    for e in sr["sa"]:
        n = by[(e["dir"], e["spi"])]
        if (e["pkts"], e["bytes"], e["drops"]) != (n["pkts"], n["bytes"], n["drops"]):
            ok = False
            print("FAIL: %s SA %s %#x: reference %d pkts %s, native %d pkts %s" %
                  (what, e["dir"], e["spi"], e["pkts"], e["drops"], n["pkts"], n["drops"]))
        if n.get("type") != want_type or e.get("type") != "lookaside-none":
            ok = False
            print("FAIL: SA %#x ran as %s / %s" % (e["spi"], e.get("type"), n.get("type")))
    if ok:
        print("ok   %s: %d + %d frames identical, drops %s" %
              (what, len(fr["esp_out.pcap"]), len(fr["clear_out.pcap"]),
               {k: v for k, v in sr["drops"].items() if v}))
    return ok


def main():
    gwbin = sys.argv[1]
    sas = [Sa(i, s) for i, s in enumerate(SAS)]
    # inbound, the outbound networks are the clear side's too (port 0)
    cfg_text = "".join(s.conf for s in sas) + PLAN.routes() + gwtest.NEIGH + \
        "rt ipv4 dst 10.100.0.0/16 port 0\nrt ipv6 dst fd01::/16 port 0\n"
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-native-eq-", dir=os.environ.get("TMPDIR"))
    ok = True
    try:
        cfg = gwtest.write_config(os.path.join(tmp, "eq.cfg"), cfg_text)
        clear = corpus_out(sas)
        ref = run(gwbin, tmp, "out-ref", cfg, clear, [], [])
        nat = run(gwbin, tmp, "out-nat", cfg, clear, [], ["--native"])
        if ref is None or nat is None:
            return gwtest.finish(False)
        ok = same("outbound", ref, nat, "native") and ok
        esp = ref[0]["esp_out.pcap"]
        hostile = hostile_in(esp)
        ref = run(gwbin, tmp, "in-ref", cfg, [], hostile, [])
        nat = run(gwbin, tmp, "in-nat", cfg, [], hostile, ["--native"])
        if ref is None or nat is None:
            return gwtest.finish(False)
        ok = same("inbound", ref, nat, "native") and ok
        # what came out inbound is what went in outbound (the clear corpus, as forwarded)
        pkts = [IP(x[14:]) if x[14] >> 4 == 4 else IPv6(x[14:])
                for x in nat[0]["esp_out.pcap"] + nat[0]["clear_out.pcap"]]
        got = sorted(gwtest.norm(p) for p in
                     list(defragment([p for p in pkts if IP in p])) +
                     [p for p in pkts if IP not in p])
        want = []
        for k, size in enumerate(SIZES):
            for s in sas:
                want.append(gwtest.norm(s.clear(k, size)))
        want.append(gwtest.norm(big_packet(sas)))
        missing = [w for w in want if w not in got]
        if missing:
            ok = False
            print("FAIL: %d original packets not delivered inbound, e.g. %s" %
                  (len(missing), missing[0][:48].hex()))
        else:
            print("ok   inbound: all %d originals delivered" % len(want))
    finally:
        if os.environ.get("KEEP"):
            print("kept", tmp)
        else:
            gwtest.cleanup(tmp)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
