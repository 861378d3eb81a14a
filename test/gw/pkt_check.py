#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw against packets that authenticate but must not be delivered, and
headers that must not be repaired; net_pcap ports, no network needed.

  port 0 protected (clear):  rx clear_in.pcap  -> tx clear_out.pcap
  port 1 unprotected (ESP): rx esp_in.pcap    -> tx esp_out.pcap

Inbound, on IPv4 and IPv6 transport SAs and IPv4 tunnel SAs with and
without ESN (ChaCha20-Poly1305, ESP built here with a valid ICV):
  - dummy packets (next header 59, RFC 4303 2.6) are dropped as `dummy`
    in either mode, and their sequence numbers are spent;
  - an ESP packet whose outer IPv4 header checksum is wrong is dropped as
    `malformed` before the SAD (the genuine copy after it still passes);
  - a tunnel packet whose decrypted inner IPv4 header has a wrong checksum
    is dropped as `malformed`, never sent on with a fresh, valid one;
  - two different fragmented ESP datagrams that reuse one IPv4 ID, one
    after the other, are both reassembled and delivered.
Outbound (clear port): a packet with a wrong IPv4 checksum, for an SA or
for a bypass policy, is dropped as `malformed`; good ones pass.
Every delivered packet must equal its original byte for byte (checksums
included), every counter must be exact.

usage: pkt_check.py GATEWAY_BINARY [--cpu-crypto] [--lookaside-protocol]
                    [--vdev CRYPTO_VDEV] [-d PMD.so]
"""
import os
import struct
import sys
import tempfile

from scapy.all import IP, IPv6, UDP, Raw, raw, fragment
from scapy.layers.ipsec import ESP, SecurityAssociation
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import eth, hexkey  # noqa: E402

LKP = False         # --lookaside-protocol: every SA is crypto_vecsec's rte_security session
key = gwtest.keygen(29, 13, 3)
PLAN = gwtest.AddressPlan("172.30.1", "172.30.2", "fd00:ca", "fd00:cb")
BYPASS = "10.77.0.0/16"

# name, spi, mode, inner family, ESN (the 12-byte AAD; rte_ipsec keeps the high half
# between the trailer and the ICV)
SAS = [
    ("v4trs", 0x301, "transport", 4, False),
    ("v6trs", 0x302, "transport", 6, False),
    ("v4tun", 0x303, "ipv4-tunnel", 4, False),
    ("v4tun-esn", 0x304, "ipv4-tunnel", 4, True),
]


class Sa:
    def __init__(self, idx, spec, inbound):
        self.name, spi, self.mode, self.fam, self.esn = spec
        self.inbound = inbound
        self.spi = spi + (0x1000 if inbound else 0)
        self.key = key(self.spi & 0xff ^ (0x33 if inbound else 0), 36)
        self.tunnel = self.mode != "transport"
        PLAN.apply(self, idx)
        conf = "sa %s %d aead_algo chacha20-poly1305 aead_key %s mode %s" % (
            gwtest.direction(self), self.spi, hexkey(self.key), self.mode)
        hdr = None
        if self.tunnel:
            s, t = gwtest.tunnel_ends(self)
            conf += " src %s dst %s" % (s, t)
            hdr = IP(src=s, dst=t)
        if self.esn:
            conf += " esn 0"
        if LKP:
            conf += " type lookaside-protocol-offload"
        self.conf = gwtest.sp_line(self) + conf + "\n"
        self.sa = SecurityAssociation(ESP, spi=self.spi, crypt_algo="CHACHA20-POLY1305",
                                      crypt_key=self.key, tunnel_header=hdr, esn_en=self.esn,
                                      esn=0)
        self.seq = 0

    def clear(self, k, size=60):
        return gwtest.udp_packet(self, k, size, 5, 3000 + k, 4000)

    def outer(self, p=None):
        """
        The IP header ESP travels in: the tunnel's, or in transport mode the
        clear packet p's own (IPv4 options and all), else a plain one.
        """
        if self.tunnel:
            s, t = gwtest.tunnel_ends(self)
            return IP(src=s, dst=t, proto=50)
        if p is not None:
            o = p.copy()
            o.remove_payload()
            if self.fam == 4:
                o.proto = 50
                del o.len
                del o.chksum
            else:
                o.nh = 50
                del o.plen
            return o
        if self.fam == 4:
            return IP(src=self.src, dst=self.dst, proto=50)
        return IPv6(src=self.src, dst=self.dst, nh=50)

    def esp(self, payload, nh, seq=None, clear=None):
        """
        ESP (RFC 4303, RFC 7634) built here: payload, minimal padding, next
        header nh, a valid ICV; sequence number seq (default: the next);
        transport mode: in clear's IP header when given. Returns the IP
        packet (scapy).
        """
        if seq is None:
            self.seq += 1
            seq = self.seq
        pad = (4 - (len(payload) + 2) % 4) % 4
        pt = payload + bytes(range(1, pad + 1)) + bytes([pad, nh])
        iv = struct.pack("!Q", 0x1111 * seq)
        hdr = struct.pack("!II", self.spi, seq)
        aad = struct.pack("!III", self.spi, 0, seq) if self.esn else hdr    # RFC 7634 2.1
        ct = ChaCha20Poly1305(self.key[:32]).encrypt(self.key[32:] + iv, pt, aad)
        o = self.outer(clear)
        return o.__class__(raw(o / Raw(hdr + iv + ct)))

    def seal(self, p):
        """The clear packet p in ESP: tunnel, the whole packet; transport, its payload."""
        if self.tunnel:
            return self.esp(raw(p), 4 if self.fam == 4 else 41)
        if self.fam == 4:
            return self.esp(raw(p[IP].payload), p[IP].proto, clear=p)
        return self.esp(raw(p[IPv6].payload), p[IPv6].nh, clear=p)


def bad_cksum(p):
    """The IPv4 packet p (scapy, checksum computed) with its header checksum off by one bit."""
    b = bytearray(raw(p))
    b[10] ^= 0x04
    return IP(bytes(b))


def main():
    global LKP
    gwbin = sys.argv[1]
    extra_app, extra_eal, own = gwtest.gw_args(sys.argv[2:], flags=("--lookaside-protocol",))
    LKP = "--lookaside-protocol" in own

    prefix = gwtest.file_prefix("pktchk")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-pkt-")
    ok = True
    try:
        outs, ins = gwtest.sa_pairs(Sa, SAS)
        conf = "".join(s.conf for s in outs + ins)
        conf += "sp ipv4 out esp bypass pri 5 dst %s\n" % BYPASS
        conf += "rt ipv4 dst %s port 1\n" % BYPASS
        conf += PLAN.routes() + gwtest.NEIGH
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)
        by = {s.name: s for s in ins}
        t4, t6, tun, tesn = by["v4trs"], by["v6trs"], by["v4tun"], by["v4tun-esn"]
        want = {s.spi: [] for s in ins}
        esp_in = []

        def good(s, k, size=60):
            p = s.clear(k, size)
            want[s.spi].append(raw(p))
            e = s.seal(p)
            esp_in.append(eth(e))
            return e

        # dummy packets between two good ones, both transport SAs and the tunnel
        for s in (t4, t6, tun, tesn):
            good(s, 0)
            esp_in.append(eth(s.esp(bytes(range(17)), 59)))       # -> dummy
            good(s, 1)
        # the dummy's number is spent: the same ESP again is a replay
        d = t4.esp(b"\x00" * 8, 59)
        esp_in += [eth(d), eth(d)]                              # -> dummy, replay
        # wrong outer checksum (transport and tunnel): dropped before the SAD,
        # so the genuine packet with the same number right after it passes
        for s in (t4, tun):
            p = s.clear(2)
            e = s.seal(p)
            esp_in.append(eth(bad_cksum(e)))                    # -> malformed
            esp_in.append(eth(e))
            want[s.spi].append(raw(p))
        # tunnel: inner header with a wrong checksum under a valid ICV
        inner = bad_cksum(tun.clear(3))
        esp_in.append(eth(tun.esp(raw(inner), 4)))              # -> malformed
        # two fragmented ESP datagrams, one IPv4 ID, one after the other
        for k in (4, 5):
            e = tun.seal(tun.clear(k, 1200))
            want[tun.spi].append(raw(tun.clear(k, 1200)))
            e[IP].id = 0x4242
            del e[IP].chksum
            for f in fragment(IP(raw(e)), fragsize=400):
                esp_in.append(eth(f))

        # clear side: good and bad-checksum packets for an SA and for the bypass policy
        o4 = [s for s in outs if s.name == "v4tun"][0]
        clear_in, out_orig = [], []
        p = o4.clear(0)
        clear_in.append(eth(p))
        out_orig.append(p)
        clear_in.append(eth(bad_cksum(o4.clear(1))))             # -> malformed
        byp = IP(src="192.168.9.1", dst="10.77.0.9") / UDP(sport=5, dport=6) / Raw(b"by" * 20)
        clear_in.append(eth(byp))
        clear_in.append(eth(bad_cksum(byp)))                     # -> malformed

        exp_drops = {"dummy": 5, "replay": 1, "malformed": 5}
        stats = gwtest.run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, extra_eal,
                                   extra_app)
        if stats is None:
            return 1

        # inbound: exactly the good packets, byte for byte (valid checksums as sent)
        ok = gwtest.check_clear_port(os.path.join(tmp, "clear_out.pcap"), ins, want,
                                     lambda s: "ok   inbound  %-6s %d packets, dummies and bad "
                                     "headers dropped" % (s.name, len(want[s.spi]))) and ok

        # outbound: one ESP packet from the SA, the good bypass packet, nothing else
        from scapy.all import rdpcap
        got = rdpcap(os.path.join(tmp, "esp_out.pcap"))
        esp = [f.payload for f in got if ESP in f]
        clr = [f.payload for f in got if ESP not in f]
        if len(esp) != 1 or len(clr) != 1:
            print("FAIL: ESP port: %d ESP and %d other packets, want 1 and 1" % (len(esp),
                                                                                 len(clr)))
            ok = False
        else:
            o4.sa.seq_num = 1
            ok = gwtest.check_decrypt(o4.name, 0, lambda: o4.sa.decrypt(esp[0]), out_orig[0]) and ok
            if raw(clr[0]) != raw(byp):
                print("FAIL: the bypass packet changed")
                ok = False
            else:
                print("ok   outbound: the good packets only (SA and bypass)")

        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, exp_drops) and ok
        per_sa = {(t4.spi, "dummy"): 2, (t6.spi, "dummy"): 1, (tun.spi, "dummy"): 1,
                  (tesn.spi, "dummy"): 1,
                  (tun.spi, "malformed"): 1, (t4.spi, "replay"): 1}
        ok = gwtest.check_sa_drops(st, lambda e, r: per_sa.get((e["spi"], r), 0)
                                   if e["dir"] == "in" else 0,
                                   ("dummy", "malformed", "replay")) and ok
        if st.get("reassembled") != 2 or st.get("reasm_frags") != 2 * 4:
            print("FAIL: reassembled %s datagrams from %s fragments, want 2 from 8"
                  % (st.get("reassembled"), st.get("reasm_frags")))
            ok = False
        moved = gwtest.frames_moved(st)
        rx, tx, drops = gwtest.port_totals(st)
        if moved != tx + drops:
            print("FAIL: rx %d (%d with fragments) != tx %d + drops %d" % (rx, moved, tx, drops))
            ok = False
        if ok:
            print("ok   drops: %s; 2 datagrams with one IPv4 ID reassembled"
                  % ", ".join("%s %d" % kv for kv in sorted(exp_drops.items())))
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
