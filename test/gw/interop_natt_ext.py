#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw against scapy (scapy.layers.ipsec): NAT-T (RFC 3948, ESP in UDP
port 4500) for transport-mode SAs, and IPv6 extension headers (Hop-by-Hop,
Destination Options, Routing) before ESP and in clear traffic. The
gateway's two ports are net_pcap devices, as in interop_scapy.py:

  port 0 protected (clear):  rx clear_in.pcap  -> tx clear_out.pcap
  port 1 unprotected (ESP): rx esp_in.pcap    -> tx esp_out.pcap

Outbound: the gateway encrypts, the test checks the UDP header (ports,
length, checksum 0 over IPv4 and correct over IPv6), the IP lengths and
where ESP sits after the extension chain, removes the UDP header and scapy
decrypts to the originals. Inbound: scapy encrypts (nat_t_header for the
NAT-T SAs, extension headers before ESP, outer ones in tunnel mode), the
gateway's clear output must equal the originals byte for byte; packets
whose addresses a NAT changed come out with TCP/UDP checksums valid for the
new addresses (RFC 3948 3.1.2, procedure 2). NAT-keepalives, IKE on port
4500, ESP and UDP-ESP for the wrong kind of SA, truncated and malformed
extension chains, a fragment header: each counted once under its reason.

usage: interop_natt_ext.py GATEWAY_BINARY [--cpu-crypto] [--vdev CRYPTO_VDEV]
"""
import os
import struct
import sys
import tempfile

from scapy.all import (IP, IPv6, UDP, TCP, Raw, IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt,
                       IPv6ExtHdrRouting, IPv6ExtHdrFragment, rdpcap, raw)
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import eth, hexkey  # noqa: E402

N = 12          # valid packets per SA and direction
EXT = (0, 43, 60)   # Hop-by-Hop, Routing, Destination Options


key = gwtest.keygen(41, 13, 3)
# tunnel ends always IPv6 (the tunnel SAs are ipv6-tunnel), networks as interop_scapy.py
PLAN = gwtest.AddressPlan(None, None, "fd00:aa", "fd00:bb")


# name, spi, gateway algo, scapy algo, key bytes incl. salt, mode, family, NAT-T,
# IPv6 extension headers on every other packet
SAS = [
    ("v4trs-chacha-natt", 0x201, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "transport", 4,
     True, False),
    ("v4trs-gcm-natt", 0x202, "aes-128-gcm", "AES-GCM", 20, "transport", 4, True, False),
    ("v6trs-gcm-natt-ext", 0x203, "aes-256-gcm", "AES-GCM", 36, "transport", 6, True, True),
    ("v6trs-chacha-natt", 0x204, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "transport", 6,
     True, False),
    ("v6trs-chacha-ext", 0x205, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "transport", 6,
     False, True),
    ("v6tun-gcm-ext", 0x206, "aes-128-gcm", "AES-GCM", 20, "ipv6-tunnel", 6, False, True),
    ("v6tun-chacha-natt-ext", 0x207, "chacha20-poly1305", "CHACHA20-POLY1305", 36, "ipv6-tunnel",
     6, True, True),
]


def csum(data):
    """RFC 1071 ones' complement sum, folded, not inverted."""
    if len(data) % 2:
        data += b"\x00"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def ext_chain(b):
    """
    Walk the extension headers of the IPv6 packet b: (offset of the upper
    layer, its protocol, offset of the byte holding that protocol number).
    """
    off, nh, nh_off = 40, b[6], 6
    while nh in EXT:
        nh_off = off
        nh = b[off]
        off += (b[off + 1] + 1) * 8
    return off, nh, nh_off


def with_ext(p):
    """IPv6 packet p with Hop-by-Hop, Destination Options and Routing headers after the header."""
    ip = p[IPv6]
    return (IPv6(src=ip.src, dst=ip.dst) / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() /
            IPv6ExtHdrRouting() / ip.payload.copy())


def insert_outer_ext(b):
    """Bytes of IPv6 packet b with the same three extension headers inserted (raw)."""
    hbh = bytes([60, 0, 1, 4, 0, 0, 0, 0])
    dst = bytes([43, 0, 1, 4, 0, 0, 0, 0])
    rt = bytes([b[6], 0, 0, 0, 0, 0, 0, 0])
    plen = struct.unpack("!H", b[4:6])[0] + 24
    return b[:4] + struct.pack("!HB", plen, 0) + b[7:40] + hbh + dst + rt + b[40:]


class Sa:
    def __init__(self, idx, spec, inbound):
        (self.name, spi, self.algo, self.salgo, klen, self.mode, self.fam, self.natt,
         self.ext) = spec
        self.inbound = inbound
        self.spi = spi + (0x1000 if inbound else 0)
        self.key = key(self.spi & 0xff ^ (0x33 if inbound else 0), klen)
        self.tunnel = self.mode != "transport"
        n = idx + 1
        PLAN.apply(self, idx)
        self.nat_src = "198.51.100.%d" % n if self.fam == 4 else "2001:db8::%d" % n
        sa = "sa %s %d aead_algo %s aead_key %s mode %s" % (gwtest.direction(self), self.spi,
                                                           self.algo, hexkey(self.key), self.mode)
        if self.tunnel:
            sa += " src %s dst %s" % gwtest.tunnel_ends(self)
        if self.natt:
            sa += " udp-encap"
        self.conf = gwtest.sp_line(self) + sa + "\n"
        hdr = None
        if self.tunnel:
            s, t = gwtest.tunnel_ends(self)
            hdr = IPv6(src=s, dst=t)
        self.hdr = hdr
        self.sa = self.make_sa(self.natt)
        self.plain = self.make_sa(False)    # decrypts once the test has removed UDP

    def make_sa(self, natt):
        return SecurityAssociation(ESP, spi=self.spi, crypt_algo=self.salgo, crypt_key=self.key,
                                   tunnel_header=self.hdr,
                                   nat_t_header=UDP(sport=4500, dport=4500) if natt else None)

    def clear(self, k, size):
        body = bytes(((k * 5 + i + self.spi) & 0xff) for i in range(size))
        ip = IP(src=self.src, dst=self.dst) if self.fam == 4 else IPv6(src=self.src, dst=self.dst)
        l4 = TCP(sport=3000 + k, dport=80, flags="A") if k % 3 == 1 else UDP(sport=1000 + k,
                                                                            dport=2000)
        p = ip / l4 / Raw(body)
        if self.ext and k % 2 == 1:
            p = with_ext(p)
        return p.__class__(raw(p))

    def natted(self, p):
        """p as a NAT leaves it: another source address, the L4 checksum still the old one."""
        q = p.copy()
        q.src = self.nat_src
        if IP in q:
            del q[IP].chksum
        return q.__class__(raw(q))

    def encrypt(self, p, k):
        self.sa.seq_num = k + 1
        e = raw(self.sa.encrypt(p))
        if self.fam == 4 and self.natt and not self.tunnel:
            # scapy (2.5) builds the IPv4 header with UDP before ESP is appended: length 8
            hl = (e[0] & 15) * 4
            e = e[:hl + 4] + struct.pack("!H", len(e) - hl) + e[hl + 6:]
        if self.fam == 6 and self.natt and not self.tunnel and e[6] != 17:
            # scapy (2.5) leaves ESP (50) in the last extension header: it is UDP
            b = bytearray(e)
            b[ext_chain(e)[2]] = 17
            e = bytes(b)
        if self.tunnel and self.ext and k % 2 == 1:
            e = insert_outer_ext(e)
        return IP(e) if e[0] >> 4 == 4 else IPv6(e)


def norm(p):
    """gwtest.norm with TCP's checksum recomputed too (NAT'd packets)."""
    return gwtest.norm(p, tcp=True)


def esp_spi(p):
    """SPI of the gateway's ESP packet p: after the IP header, extensions and NAT-T's UDP."""
    b = raw(p)
    v4 = b[0] >> 4 == 4
    off = (b[0] & 15) * 4 if v4 else ext_chain(b)[0]
    if (b[9] if v4 else ext_chain(b)[1]) == 17:
        off += 8
    return struct.unpack("!I", b[off:off + 4])[0]


def check_out(s, b, k, fail):
    """
    One ESP packet the gateway sent for SA s: check the headers, remove the
    UDP header of NAT-T, return what scapy can decrypt (None on failure).
    """
    v4 = b[0] >> 4 == 4
    if v4:
        hl = (b[0] & 15) * 4
        proto, nh_off = b[9], 9
        if struct.unpack("!H", b[2:4])[0] != len(b) or csum(b[:hl]) != 0xffff:
            return fail("%s: packet %d: IPv4 total length or header checksum wrong" % (s.name, k))
    else:
        hl, proto, nh_off = ext_chain(b)
        if struct.unpack("!H", b[4:6])[0] != len(b) - 40:
            return fail("%s: packet %d: IPv6 payload length wrong" % (s.name, k))
        want_ext = s.ext and k % 2 == 1 and not s.tunnel
        if (hl > 40) != want_ext:
            return fail("%s: packet %d: extension headers %s" % (s.name, k, "lost" if want_ext
                        else "unexpected"))
    if not s.natt:
        if proto != 50:
            return fail("%s: packet %d: protocol %d after the IP header, want ESP" %
                        (s.name, k, proto))
        return b
    if proto != 17:
        return fail("%s: packet %d: protocol %d, want UDP" % (s.name, k, proto))
    sport, dport, ulen, uck = struct.unpack("!HHHH", b[hl:hl + 8])
    if (sport, dport) != (4500, 4500) or ulen != len(b) - hl:
        return fail("%s: packet %d: UDP %d -> %d length %d (packet %d after IP)" %
                    (s.name, k, sport, dport, ulen, len(b) - hl))
    if v4 and uck != 0:
        return fail("%s: packet %d: UDP checksum %#x over IPv4, want 0 (RFC 3948 2.1)" %
                    (s.name, k, uck))
    if not v4:
        ph = b[8:40] + struct.pack("!IxxxB", ulen, 17)
        if uck == 0 or csum(ph + b[hl:]) != 0xffff:
            return fail("%s: packet %d: UDP checksum %#x over IPv6 wrong" % (s.name, k, uck))
    # remove UDP: ESP right after the IP header, lengths fixed
    e = bytearray(b[:hl] + b[hl + 8:])
    e[nh_off] = 50
    if v4:
        e[2:4] = struct.pack("!H", len(e))
    else:
        e[4:6] = struct.pack("!H", len(e) - 40)
    return bytes(e)


def main():
    gwbin = sys.argv[1]
    extra_app, extra_eal, _ = gwtest.gw_args(sys.argv[2:])

    prefix = gwtest.file_prefix("natt")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-natt-")
    fails = []

    def fail(msg):
        print("FAIL: " + msg)
        fails.append(msg)
        return None

    try:
        outs, ins = gwtest.sa_pairs(Sa, SAS)
        conf = "".join(s.conf for s in outs + ins)
        # IKE to the gateway's addresses on port 4500 passes (IPv4 only: IPv6 IKE -> policy)
        conf += "sp ipv4 in esp bypass pri 100 proto 17:17 dport 4500:4500 dst 172.31.2.0/24\n"
        # the SPD sees the protocol and ports after the extension headers: TCP to port 81 of
        # fd01:5:: is discarded outbound, UDP to 7777 of fd02:5:: bypasses inbound
        conf += "sp ipv6 out esp discard pri 50 proto 6:6 dport 81:81 dst fd01:5::/48\n"
        conf += "sp ipv6 in esp bypass pri 50 proto 17:17 dport 7777:7777 dst fd02:5::/48\n"
        conf += "rt ipv6 dst fd00:aa::/32 port 1\nrt ipv4 dst 10.100.0.0/16 port 1\n"
        conf += "rt ipv6 dst fd01::/16 port 1\nrt ipv4 dst 10.200.0.0/16 port 0\n"
        conf += "rt ipv6 dst fd02::/16 port 0\nrt ipv4 dst 172.31.2.0/24 port 0\n"
        conf += gwtest.NEIGH
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)

        # outbound
        clear_in, out_orig = gwtest.clear_traffic(outs, N, lambda k: 20 + 11 * k)
        # a truncated extension chain on the protected side -> malformed
        clear_in.append(eth(IPv6(raw(IPv6(src="fd09::1", dst="fd01:1::7", nh=43) /
                                     Raw(b"\x11\x02" + b"\x00" * 10)))))
        exp = {"malformed": 1}
        clear_in.append(eth(with_ext(IPv6(src="fd09::5", dst="fd01:5::7") /
                                     TCP(sport=5, dport=81) / Raw(b"x" * 20))))
        exp["policy"] = 1

        # inbound; on NAT-T transport SAs every fourth packet has been through a NAT
        esp_in, in_want = [], {s.spi: [] for s in ins}
        for k in range(N):
            for s in ins:
                p = s.clear(k, 25 + 9 * k)
                if s.natt and not s.tunnel and k % 4 == 3:
                    q = s.natted(p)
                    esp_in.append(eth(s.encrypt(q, k)))
                    in_want[s.spi].append(norm(q))
                else:
                    esp_in.append(eth(s.encrypt(p, k)))
                    in_want[s.spi].append(raw(p))
        s0 = ins[0]                                     # IPv4 transport NAT-T
        sx = [s for s in ins if not s.natt and not s.tunnel][0]   # IPv6 transport, plain ESP
        g4 = "172.31.2.1"
        # NAT-keepalives (RFC 3948 2.3): one 0xFF octet
        esp_in.append(eth(IP(src="198.51.100.9", dst=g4) / UDP(sport=4500, dport=4500) /
                          Raw(b"\xff")))
        esp_in.append(eth(IPv6(src="fd00:aa::9", dst="fd00:bb::1") /
                          UDP(sport=4500, dport=4500) / Raw(b"\xff")))
        exp["natt_keepalive"] = 2
        # IKE (non-ESP marker) on 4500: IPv4 bypassed by its SP, IPv6 has none -> policy
        ike4 = IP(src="198.51.100.9", dst=g4) / UDP(sport=4500, dport=4500) / \
            Raw(b"\x00\x00\x00\x00" + b"\x11" * 28)
        esp_in.append(eth(ike4))
        esp_in.append(eth(IPv6(src="fd00:aa::9", dst="fd00:bb::1") /
                          UDP(sport=4500, dport=4500) / Raw(b"\x00\x00\x00\x00ike")))
        exp["policy"] += 1
        byp6 = IPv6(raw(with_ext(IPv6(src="fd00:aa::9", dst="fd02:5::8") /
                                 UDP(sport=5, dport=7777) / Raw(b"y" * 20))))
        esp_in.append(eth(byp6))
        # plain ESP for a NAT-T transport SA, UDP-ESP for a plain one -> no_sa
        esp_in.append(eth(IP(raw(s0.plain.encrypt(s0.clear(0, 30))))))
        sx_natt = sx.make_sa(True)
        esp_in.append(eth(IPv6(raw(sx_natt.encrypt(sx.clear(0, 30))))))
        exp["no_sa"] = 2
        # NAT-T transport with a UDP length that does not match -> malformed (SA)
        b = bytearray(raw(s0.encrypt(s0.clear(N, 40), N)))
        b[24:26] = struct.pack("!H", struct.unpack("!H", b[24:26])[0] - 4)
        esp_in.append(eth(IP(bytes(b))))
        # malformed extension chains before ESP
        esp6 = ESP(spi=sx.spi, seq=99, data=b"\x00" * 40)
        a6 = dict(src="fd00:aa::9", dst="fd00:bb::1")
        bad = [
            IPv6(nh=0, **a6) / Raw(b"\x32\x00\x01\x02"),              # Hop-by-Hop cut short
            IPv6(nh=0, **a6) / Raw(b"\x32\x02" + b"\x01\x04" + b"\x00" * 12),  # says 24 B, has 16
            IPv6(**a6) / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() / esp6,  # HbH not first
            IPv6(nh=60, **a6) / Raw((bytes([60, 15]) + b"\x00" * 126) * 3 +
                                    bytes([50, 15]) + b"\x00" * 126) / esp6,  # chain of 512 B
            IPv6(**a6) / IPv6ExtHdrRouting(nh=60) / Raw(b"\x32"),  # ends inside the next header
        ]
        for p in bad:
            esp_in.append(eth(IPv6(raw(p))))
        exp["malformed"] += 1 + len(bad)
        # a fragment header before ESP: reassembly (frag.c) takes it, with or without HbH
        # before it; the second is the first one's duplicate once HbH is gone, the first
        # never completes: both counted under frag (interop_frag.py tests fragments)
        esp_in.append(eth(IPv6(**a6) / IPv6ExtHdrFragment(m=1) / esp6))
        esp_in.append(eth(IPv6(**a6) / IPv6ExtHdrHopByHop() / IPv6ExtHdrFragment(m=1) / esp6))
        exp["frag"] = 2

        stats = gwtest.run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, extra_eal,
                                   extra_app, lcores=os.environ.get("GW_LCORES", "0"))
        if stats is None:
            return 1

        # outbound: check headers, decrypt
        esp_out = gwtest.EspOut(outs)
        for p, s, k in esp_out.each(os.path.join(tmp, "esp_out.pcap"), esp_spi):
            b = raw(p)
            v4 = b[0] >> 4 == 4
            e = check_out(s, b, k, fail)
            if e is None:
                continue
            ep = IP(e) if v4 else IPv6(e)
            if ep[ESP].seq != k + 1:
                fail("%s: packet %d has seq %d" % (s.name, k, ep[ESP].seq))
            # scapy raises on a bad ICV
            if not gwtest.check_decrypt(s.name, k, lambda: s.plain.decrypt(ep), out_orig[s.spi][k]):
                fails.append(s.name)
        if not esp_out.check_counts(N, "ok   outbound %-22s %d packets decrypt with scapy to the "
                                    "originals"):
            fails.append("outbound")

        # inbound: byte for byte, in order per SA
        frames, ike_seen = [], 0
        for f in rdpcap(os.path.join(tmp, "clear_out.pcap")):
            if raw(f.payload) in (raw(ike4), raw(byp6)):
                ike_seen += 1
            else:
                frames.append(f)
        got, ok1 = gwtest.clear_by_sa(frames, ins)
        if ike_seen != 2:
            fail("IKE on 4500 and UDP 7777 after extensions: %d bypassed, want 2" % ike_seen)
        ok2 = gwtest.check_inbound(ins, got, in_want, lambda s: "ok   inbound  %-22s %d scapy "
                                   "packets decrypt to the originals%s" %
                                   (s.name, N, " (NAT'd ones with fixed checksums)"
                                    if s.natt and not s.tunnel else ""))
        if not (ok1 and ok2):
            fails.append("inbound")

        # counters
        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, exp)
        ok = gwtest.check_sa_pkts(st, lambda e: N) and ok
        ok = gwtest.check_sa_drops(st, lambda e, r: 1 if e["dir"] == "in" and e["spi"] == s0.spi
                                   else 0, ("malformed",)) and ok
        ok = gwtest.check_esp_totals(st, N * len(SAS), N * len(SAS)) and ok
        if st["bypass"] != 2:
            fail("bypass %d, want 2" % st["bypass"])
        if not ok:
            fails.append("counters")
        if not fails:
            print("ok   drops: %s, bypass 2 (IKE, IPv6 with extensions)" %
                  ", ".join("%s %d" % kv for kv in sorted(exp.items())))
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(not fails)


if __name__ == "__main__":
    sys.exit(main())
