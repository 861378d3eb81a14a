#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Writes the committed seed corpora of two libFuzzer targets as pcap files of
Ethernet frames (real packets, made with scapy; run again only to change
them):

  test/gw/fuzz-classify-seeds.pcap   vecsec-gw's rx classification
      (test/gw/fuzz_classify.c): IPv4 with and without options, IPv4
      fragments (first, middle, last), IPv6 with Hop-by-Hop, Routing and
      Destination Options chains, IPv6 fragments, ESP over IPv4/IPv6, ESP
      in UDP 4500, NAT-keepalives, IKE on 4500 (zero marker), TCP, ARP.
  test/pmd/fuzz-sec-seeds.pcap       crypto_vecsec's rte_security ESP
      ingress walk and trailer check (test/pmd/fuzz_sec_parse.c, lib/esp): ESP
      packets as the PMD's ingress takes them, tunnel and transport, IPv4
      (options too) and IPv6 (extension headers too), sealed with
      ChaCha20-Poly1305 by scapy; and the same ESP packets' plaintext form
      (trailer in clear) so the trailer check is reached from the start.

usage: fuzz_seeds.py [SOURCE_ROOT]
"""
import os
import sys

from scapy.all import (Ether, ARP, IP, IPv6, IPOption, UDP, TCP, Raw, ICMP, IPv6ExtHdrHopByHop,
                       IPv6ExtHdrRouting, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, fragment,
                       fragment6, wrpcap, raw)
from scapy.layers.ipsec import ESP, SecurityAssociation


def eth(p):
    return Ether(src="02:00:00:00:00:aa", dst="02:00:00:00:00:bb") / p


def body(n, tag=0):
    return bytes(((i * 7 + tag) & 0xff) for i in range(n))


def classify_frames():
    v4 = IP(src="172.31.1.1", dst="172.31.2.1")
    v6 = IPv6(src="fd00:aa::1", dst="fd00:bb::1")
    opt = IP(src="192.168.1.1", dst="10.1.1.7", options=[IPOption(b"\x01\x01\x01\x00")])
    sa4 = SecurityAssociation(ESP, spi=0x102, crypt_algo="CHACHA20-POLY1305",
                              crypt_key=body(36, 1), tunnel_header=v4)
    sa6 = SecurityAssociation(ESP, spi=0x106, crypt_algo="CHACHA20-POLY1305",
                              crypt_key=body(36, 2), tunnel_header=v6)
    inner = IP(src="192.168.1.1", dst="10.2.1.7") / UDP(sport=1000, dport=2000) / Raw(body(40))
    f = []
    f.append(eth(IP(src="192.168.1.1", dst="10.1.1.7") / UDP(sport=1, dport=2) / Raw(body(30))))
    f.append(eth(opt / UDP(sport=1, dport=2) / Raw(body(30))))
    f.append(eth(IP(src="192.168.1.1", dst="10.1.1.7") / TCP(sport=3, dport=4) / Raw(body(9))))
    f.append(eth(IP(src="192.168.1.1", dst="10.1.1.7") / ICMP()))
    for p in fragment(IP(src="192.168.1.1", dst="10.1.1.7", id=7) / UDP() / Raw(body(900)),
                      fragsize=400):
        f.append(eth(p))
    f.append(eth(IPv6(src="fd09::1", dst="fd01:1::7") / UDP(sport=1, dport=2) / Raw(body(20))))
    f.append(eth(IPv6(src="fd09::1", dst="fd01:1::7") / IPv6ExtHdrHopByHop() /
                 IPv6ExtHdrRouting(addresses=["fd01:1::8"], segleft=1) / IPv6ExtHdrDestOpt() /
                 UDP(sport=1, dport=2) / Raw(body(20))))
    for p in fragment6(IPv6(src="fd09::1", dst="fd01:1::7") / IPv6ExtHdrFragment(id=9) /
                       UDP() / Raw(body(900)), 500):
        f.append(eth(p))
    f.append(eth(sa4.encrypt(inner)))
    f.append(eth(sa6.encrypt(inner)))
    f.append(eth(IPv6(src="fd00:aa::1", dst="fd00:bb::1") / IPv6ExtHdrDestOpt() /
                 raw(sa6.encrypt(inner))[40:]))
    f[-1][IPv6].nh = 60
    f[-1][IPv6ExtHdrDestOpt].nh = 50
    natt = SecurityAssociation(ESP, spi=0x108, crypt_algo="CHACHA20-POLY1305",
                               crypt_key=body(36, 3), tunnel_header=v4,
                               nat_t_header=UDP(sport=4500, dport=4500))
    f.append(eth(natt.encrypt(inner)))
    f.append(eth(v4 / UDP(sport=4500, dport=4500) / Raw(b"\xff")))             # keepalive
    f.append(eth(v6 / UDP(sport=4500, dport=4500) / Raw(b"\xff")))
    f.append(eth(v4 / UDP(sport=4500, dport=4500) / Raw(b"\x00\x00\x00\x00ike")))  # IKE marker
    for p in fragment(IP(raw(sa4.encrypt(IP(src="192.168.1.1", dst="10.2.1.7") / UDP() /
                                        Raw(body(800))))), fragsize=400):
        f.append(eth(p))
    f.append(Ether(src="02:00:00:00:00:aa", dst="ff:ff:ff:ff:ff:ff") /
             ARP(psrc="192.168.1.1", pdst="192.168.1.2", hwsrc="02:00:00:00:00:aa"))
    return f


def sec_frames():
    f = []
    key = body(36, 5)
    for hdr in (IP(src="172.31.1.1", dst="172.31.2.1"), IPv6(src="fd00:aa::1", dst="fd00:bb::1")):
        sa = SecurityAssociation(ESP, spi=0x1001, crypt_algo="CHACHA20-POLY1305", crypt_key=key,
                                 tunnel_header=hdr)
        for n in (0, 1, 33, 200):
            f.append(eth(sa.encrypt(IP(src="192.168.1.1", dst="10.2.1.7") / UDP() /
                                    Raw(body(n)))))
    trs = SecurityAssociation(ESP, spi=0x1002, crypt_algo="CHACHA20-POLY1305", crypt_key=key)
    f.append(eth(trs.encrypt(IP(src="192.168.1.1", dst="10.2.1.7",
                                options=[IPOption(b"\x01\x01\x01\x00")]) / UDP() / Raw(body(50)))))
    f.append(eth(trs.encrypt(IPv6(src="fd09::1", dst="fd02:1::7") / IPv6ExtHdrHopByHop() /
                             IPv6ExtHdrDestOpt() / TCP() / Raw(body(20)))))
    f.append(eth(trs.encrypt(IPv6(src="fd09::1", dst="fd02:1::7") / UDP() / Raw(body(7)))))
    # plaintext ESP: the trailer (padding 1 2 .., pad length, next header) readable as is
    for nh, payload in ((4, raw(IP(src="192.168.1.1", dst="10.2.1.7") / UDP() / Raw(body(9)))),
                        (41, raw(IPv6(src="fd09::1", dst="fd02::7") / UDP() / Raw(body(9)))),
                        (59, body(10)), (17, body(12))):
        pad = (4 - (len(payload) + 2) % 4) % 4
        esp = (b"\x00\x00\x10\x01\x00\x00\x00\x07" + body(8, 9) + payload +
               bytes(range(1, pad + 1)) + bytes([pad, nh]) + body(16, 11))
        f.append(eth(IP(src="172.31.1.1", dst="172.31.2.1", proto=50) / Raw(esp)))
    return f


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    wrpcap(os.path.join(top, "test", "gw", "fuzz-classify-seeds.pcap"), classify_frames())
    wrpcap(os.path.join(top, "test", "pmd", "fuzz-sec-seeds.pcap"), sec_frames())


if __name__ == "__main__":
    main()
