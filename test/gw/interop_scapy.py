#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw against scapy's ESP (scapy.layers.ipsec), no network needed: the
gateway's two ports are net_pcap devices reading and writing pcap files.

  port 0 protected (clear):  rx clear_in.pcap  -> tx clear_out.pcap
  port 1 unprotected (ESP): rx esp_in.pcap    -> tx esp_out.pcap

Outbound: scapy's clear packets go through the gateway, scapy decrypts what
comes out and compares with the originals. Inbound: scapy encrypts, the
gateway decrypts, the clear packets must equal the originals byte for byte.
Then tampered, replayed, truncated and unknown-SPI packets must be dropped
under the right counter, and every counter must be exact.

With --lookaside-protocol, the ChaCha20-Poly1305 SAs without NAT-T are
`type lookaside-protocol-offload`: crypto_vecsec's rte_security ESP sessions
do the ESP framing, sequence numbers, anti-replay and crypto; the rest stay
lookaside-none. Same packets, same counters.

usage: interop_scapy.py GATEWAY_BINARY [--cpu-crypto] [--lookaside-protocol]
                        [--vdev CRYPTO_VDEV] [-d PMD.so]
"""
import os
import struct
import sys
import tempfile

from scapy.all import IP, IPv6, UDP, Raw, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import eth, hexkey  # noqa: E402

N = 12          # valid packets per SA and direction
ESN0 = 0xfffffffc   # ESN SAs start here: the 32-bit boundary is crossed in the run
LKP = False         # --lookaside-protocol


key = gwtest.keygen(37, 11, 5)
# tunnel ends: peer -> gateway inbound, gateway -> peer outbound; protected networks
# 10.1xx (out), 10.2xx (in); fd01:xx:: / fd02:xx::
PLAN = gwtest.AddressPlan("172.31.1", "172.31.2", "fd00:aa", "fd00:bb")


# name, spi, algo (gateway keyword), scapy algo, key bytes incl. salt, mode, inner family, esn,
# NAT-T (ESP in UDP 4500)
SAS = [
    ("v4tun-chacha", 0x101, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "ipv4-tunnel", 4, False, False),
    ("v6tun-chacha", 0x102, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "ipv6-tunnel", 6, False, False),
    ("v4trs-chacha", 0x103, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "transport", 4, False, False),
    ("v6trs-chacha", 0x104, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "transport", 6, False, False),
    ("v4tun-gcm128", 0x105, "aes-128-gcm", "AES-GCM", 20, "ipv4-tunnel", 4, False, False),
    ("v6trs-gcm256", 0x106, "aes-256-gcm", "AES-GCM", 36, "transport", 6, False, False),
    ("v4tun-chacha-esn", 0x107, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "ipv4-tunnel", 4, True,
     False),
    ("v4tun-chacha-natt", 0x108, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "ipv4-tunnel", 4,
     False, True),
    ("v6tun-gcm-natt", 0x109, "aes-256-gcm", "AES-GCM", 36, "ipv6-tunnel", 6, False, True),
]


class Sa:
    def __init__(self, idx, spec, inbound):
        (self.name, spi, self.algo, self.salgo, klen, self.mode, self.fam, self.esn,
         self.natt) = spec
        self.idx = idx
        self.inbound = inbound
        self.spi = spi + (0x1000 if inbound else 0)
        self.key = key(self.spi & 0xff ^ (0x55 if inbound else 0), klen)
        self.tunnel = self.mode != "transport"
        outer6 = self.mode == "ipv6-tunnel"
        PLAN.apply(self, idx)
        sa = "sa %s %d aead_algo %s aead_key %s mode %s" % (gwtest.direction(self), self.spi,
                                                           self.algo, hexkey(self.key), self.mode)
        if self.tunnel:
            sa += " src %s dst %s" % gwtest.tunnel_ends(self)
        if self.esn:
            sa += " esn %d" % ESN0
        if self.natt:
            sa += " udp-encap"
        elif LKP and self.algo == "chacha20-poly1305":
            sa += " type lookaside-protocol-offload"
        self.conf = gwtest.sp_line(self) + sa + "\n"
        hdr = None
        if self.tunnel:
            s, t = gwtest.tunnel_ends(self)
            hdr = IPv6(src=s, dst=t) if outer6 else IP(src=s, dst=t)
        self.sa = SecurityAssociation(ESP, spi=self.spi, crypt_algo=self.salgo,
                                      crypt_key=self.key, tunnel_header=hdr,
                                      esn_en=self.esn, esn=0,
                                      nat_t_header=UDP(sport=4500, dport=4500) if self.natt
                                      else None)

    def clear(self, k, size=80):
        return gwtest.udp_packet(self, k, size, 7, 1000 + k, 2000)

    def seq(self, k):
        """
        ESP sequence number (64-bit) of the k-th packet, k from 0. rte_ipsec
        (and so ipsec-secgw) sends `esn N` as the first number outbound, and
        takes it as the last one seen inbound.
        """
        if not self.esn:
            return k + 1
        return ESN0 + k + (1 if self.inbound else 0)

    def encrypt(self, p, k):
        s = self.seq(k)
        # scapy takes `seq_num or self.seq_num`: a low half of 0 must come from there
        self.sa.seq_num = s & 0xffffffff
        return self.sa.encrypt(p, esn_en=self.esn, esn=s >> 32)

    def decrypt(self, p, k):
        s = self.seq(k)
        return self.sa.decrypt(p, esn_en=self.esn, esn=s >> 32)


def main():
    global LKP
    gwbin = sys.argv[1]
    extra_app, extra_eal, own = gwtest.gw_args(sys.argv[2:], flags=("--lookaside-protocol",))
    LKP = "--lookaside-protocol" in own

    prefix = gwtest.file_prefix(os.path.basename(sys.argv[0])[:6])
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-interop-")
    ok = True
    try:
        outs, ins = gwtest.sa_pairs(Sa, SAS)
        conf = "".join(s.conf for s in outs + ins)
        # outbound: ESP (tunnel: outer dst, transport: inner dst) -> port 1
        # inbound: decrypted -> port 0
        conf += PLAN.routes() + gwtest.NEIGH
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)

        # outbound traffic, interleaved over the SAs
        clear_in, out_orig = gwtest.clear_traffic(outs, N, lambda k: 40 + 13 * k)
        # one outbound packet that fits the MTU in clear but not after ESP, with DF in
        # transport mode (cannot be fragmented) -> too_big
        big = outs[2].clear(N, 1500 - 20 - 8 - 10 - 12)
        big[IP].flags = "DF"
        clear_in.append(eth(big))
        # inbound traffic
        esp_in, in_want = gwtest.esp_traffic(ins, N, lambda k: 30 + 17 * k)
        # bad packets, all on SA 0 (IPv4 tunnel ChaCha20-Poly1305)
        s0 = ins[0]
        good = s0.encrypt(s0.clear(N, 64), N)
        bad = bytearray(raw(good))
        bad[len(bad) - 20] ^= 0x01                         # in the ciphertext
        esp_in.append(eth(IP(bytes(bad))))                 # -> auth_failed
        esp_in.append(eth(s0.encrypt(s0.clear(0, 30), 0)))  # seq 1 again -> replay
        trunc = raw(s0.encrypt(s0.clear(N + 1, 64), N + 1))[:-3]
        t = IP(trunc)
        t.len = len(trunc)
        del t.chksum
        esp_in.append(eth(IP(raw(t))))                     # misaligned -> malformed
        esp_in.append(eth(IP(raw(good)[:40])))             # IP length > frame -> malformed
        unk = raw(good)
        unk = unk[:20] + struct.pack("!I", 0xdead) + unk[24:]
        esp_in.append(eth(IP(unk)))                        # -> no_sa
        v6unk = IPv6(src="fd00:aa::9", dst="fd00:bb::9") / ESP(spi=0xbeef, seq=1, data=b"x" * 40)
        esp_in.append(eth(v6unk))                          # -> no_sa
        # NAT-T: plain ESP for a UDP-encapsulated SA -> no_sa; IKE on 4500 (zero marker) is
        # clear traffic for the SPD -> policy
        sn = [s for s in ins if s.natt][0]
        plain = SecurityAssociation(ESP, spi=sn.spi, crypt_algo=sn.salgo, crypt_key=sn.key,
                                    tunnel_header=IP(src=sn.peer, dst=sn.gw))
        esp_in.append(eth(plain.encrypt(sn.clear(0, 30))))
        esp_in.append(eth(IP(src=sn.peer, dst=sn.gw) / UDP(sport=4500, dport=4500) /
                          Raw(b"\x00\x00\x00\x00ike")))
        exp_drops = {"auth_failed": 1, "replay": 1, "malformed": 2, "no_sa": 3, "policy": 1,
                     "too_big": 1}

        stats = gwtest.run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, extra_eal,
                                   extra_app, lcores=os.environ.get("GW_LCORES", "0"))
        if stats is None:
            return 1

        # outbound: decrypt what the gateway encrypted
        esp_out = gwtest.EspOut(outs)
        for p, s, k in esp_out.each(os.path.join(tmp, "esp_out.pcap")):
            if p[ESP].seq != (s.seq(k) & 0xffffffff):
                print("FAIL: %s: packet %d has seq %d, want %d" % (s.name, k, p[ESP].seq, s.seq(k)))
                ok = False
            if s.natt != (UDP in p and p[UDP].dport == 4500 and p[UDP].sport == 4500):
                print("FAIL: %s: packet %d: UDP encapsulation %s" % (s.name, k, "missing"
                      if s.natt else "unexpected"))
                ok = False
            if s.tunnel and (p.src != s.gw or p.dst != s.peer):
                print("FAIL: %s: outer header %s -> %s" % (s.name, p.src, p.dst))
                ok = False
            # scapy raises on a bad ICV
            ok = gwtest.check_decrypt(s.name, k, lambda: s.decrypt(p, k), out_orig[s.spi][k]) and ok
        ok = esp_out.check_counts(N, "ok   outbound %-17s %d packets decrypt with scapy to the "
                                  "originals") and ok

        # inbound: the gateway's clear output must equal scapy's originals, in
        # order within each SA (the gateway may interleave SAs differently)
        ok = gwtest.check_clear_port(os.path.join(tmp, "clear_out.pcap"), ins, in_want,
                                     lambda s: "ok   inbound  %-17s %d scapy packets decrypt to "
                                     "the originals" % (s.name, N)) and ok

        # counters
        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, exp_drops) and ok
        # the big one counts on its outbound SA
        ok = gwtest.check_sa_pkts(st, lambda e: N + (1 if e["dir"] == "out" and
                                                     e["spi"] == outs[2].spi else 0)) and ok
        ok = gwtest.check_sa_drops(st, lambda e, r: 1 if e["dir"] == "in" and e["spi"] == s0.spi
                                   else None, ("auth_failed", "replay", "malformed")) and ok
        ok = gwtest.check_esp_totals(st, N * len(SAS) + 1, N * len(SAS)) and ok
        if ok:
            print("ok   drops: %s" % ", ".join("%s %d" % kv for kv in sorted(exp_drops.items())))
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
