#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw robustness: seeded random and half-valid frames (truncated and
lying IPv4/IPv6 headers, fragments, ESP with known and unknown SPIs, random
lengths 0..1514, options, odd ethertypes) into both ports from pcap files,
then (from a second seeded stream, so the first frames stay as they were)
NAT-T and IPv6 extension header cases: ESP in UDP 4500 for transport and
tunnel SAs with lying UDP lengths, keepalives, IKE markers, extension chains
of random kinds and lengths, truncated anywhere, before ESP, UDP or TCP.
The gateway must not crash, and every received packet must be either sent
or dropped under exactly one reason: sum(rx) == sum(tx) + sum(drops).
No scapy needed (plain struct), so the frames can be anything.

usage: fuzz_pcap.py GATEWAY_BINARY [SEED] [COUNT] [gateway options, e.g. --cpu-crypto]
"""
import os
import random
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

CONF = """\
sp ipv4 out esp protect 1 dst 10.1.0.0/16
sp ipv4 in esp protect 2 dst 10.2.0.0/16
sp ipv6 out esp protect 3 dst fd01::/16
sp ipv6 in esp protect 4 dst fd02::/16
sp ipv4 out esp bypass dst 10.9.0.0/16
sp ipv4 in esp bypass dst 10.9.0.0/16
sa out 1 aead_algo chacha20-poly1305 aead_key %(k36)s mode ipv4-tunnel src 172.31.2.1 dst 172.31.1.1
sa in 2 aead_algo chacha20-poly1305 aead_key %(k36)s mode ipv4-tunnel src 172.31.1.1 dst 172.31.2.1
sa out 3 aead_algo aes-128-gcm aead_key %(k20)s mode transport
sa in 4 aead_algo aes-128-gcm aead_key %(k20)s mode transport
sa out 5 aead_algo chacha20-poly1305 aead_key %(k36)s mode transport udp-encap
sa in 6 aead_algo chacha20-poly1305 aead_key %(k36)s mode transport udp-encap
sa out 7 aead_algo aes-128-gcm aead_key %(k20)s mode transport udp-encap
sa in 8 aead_algo aes-128-gcm aead_key %(k20)s mode transport udp-encap
sp ipv4 out esp protect 5 pri 2 dst 10.5.0.0/16
sp ipv4 in esp protect 6 pri 2 dst 10.6.0.0/16
sp ipv6 out esp protect 7 pri 2 dst fd05::/16
sp ipv6 in esp protect 8 pri 2 dst fd06::/16
rt ipv4 dst 10.5.0.0/16 port 1
rt ipv6 dst fd05::/16 port 1
rt ipv6 dst fd06::/16 port 0
rt ipv4 dst 172.31.1.0/24 port 1
rt ipv4 dst 10.9.0.0/16 port 1
rt ipv6 dst fd01::/16 port 1
rt ipv4 dst 10.0.0.0/8 port 0
rt ipv6 dst fd02::/16 port 0
""" % dict(k36=":".join(["5a"] * 36), k20=":".join(["a5"] * 20))


def csum(h):
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(rnd, src, dst, proto, payload, lie=False):
    ihl = 5 if rnd.random() < 0.8 else rnd.randint(0, 15)
    opts = bytes(rnd.getrandbits(8) for _ in range(max(0, ihl - 5) * 4))
    tot = 20 + len(opts) + len(payload)
    if lie:
        tot = rnd.choice([0, 1, 19, tot - 1, tot + 1, tot + 100, 65535])
    frag = 0
    if rnd.random() < 0.1:
        frag = rnd.choice([0x2000, 0x0001, 0x2005, 0x4000])
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot & 0xffff, rnd.getrandbits(16), frag, 64,
                    proto, 0, bytes(src), bytes(dst)) + opts
    if len(h) % 2 == 0:
        h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(rnd, src, dst, nh, payload, lie=False):
    plen = len(payload)
    if lie:
        plen = rnd.choice([0, plen - 1, plen + 1, 65535])
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xffff, nh, 64, bytes(src),
                       bytes(dst)) + payload


def esp(rnd, spi):
    n = rnd.choice([0, 1, 7, 8, 15, 16, 23, 24, 27, 28, 31, 32, 40, 64, 200, 1400])
    return struct.pack("!II", spi, rnd.randint(0, 5)) + bytes(rnd.getrandbits(8) for _ in range(n))


def frame(rnd, esp_side):
    kind = rnd.random()
    lie = rnd.random() < 0.25
    v4 = lambda a, b, c, d: bytes([a, b, c, d])
    v6 = lambda p: bytes([0xfd, p] + [0] * 13 + [rnd.randint(1, 9)])
    if kind < 0.05:                                   # garbage of any length
        return bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 80)))
    if kind < 0.10:                                   # other ethertypes
        et = rnd.choice([0x0806, 0x8100, 0x88cc, 0x0800, 0x86dd])
        return b"\x02" * 12 + struct.pack("!H", et) + bytes(rnd.getrandbits(8)
                                                           for _ in range(rnd.randint(0, 30)))
    if esp_side:
        spi = rnd.choice([2, 4, 1, 3, 0, 99, 0xffffffff])
        if kind < 0.55:
            l3 = ipv4(rnd, v4(172, 31, 1, 1), v4(172, 31, 2, 1), 50, esp(rnd, spi), lie)
            et = 0x0800
        elif kind < 0.8:
            l3 = ipv6(rnd, v6(9), v6(2), 50, esp(rnd, spi), lie)
            et = 0x86dd
        else:                                         # clear traffic on the ESP side
            l3 = ipv4(rnd, v4(192, 168, 0, 1), v4(10, rnd.choice([2, 9]), 0, 1),
                      rnd.choice([6, 17, 1]), bytes(rnd.getrandbits(8)
                                                    for _ in range(rnd.randint(0, 60))), lie)
            et = 0x0800
    else:
        pl = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 1400)))
        if kind < 0.6:
            l3 = ipv4(rnd, v4(192, 168, 0, 1), v4(10, rnd.choice([1, 9, 2, 7]), 0, 1),
                      rnd.choice([6, 17, 1, 50, 132]), pl, lie)
            et = 0x0800
        else:
            l3 = ipv6(rnd, v6(9), v6(rnd.choice([1, 2, 7])), rnd.choice([6, 17, 0, 44, 58]), pl, lie)
            et = 0x86dd
    if rnd.random() < 0.1:
        l3 = l3[:rnd.randint(0, len(l3))]             # cut anywhere
    return b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02" + struct.pack("!H", et) + l3


def ext_chain(rnd, last):
    """Random IPv6 extension headers (valid or not) ending in protocol last: (first nh, bytes)."""
    kinds = [rnd.choice([0, 43, 60, 60, 44, 51, 0]) for _ in range(rnd.choice([0, 1, 2, 3, 5]))]
    out = b""
    for i, k in enumerate(kinds):
        nxt = kinds[i + 1] if i + 1 < len(kinds) else last
        units = rnd.choice([0, 0, 1, 2, 15, 255])
        body = bytes(rnd.getrandbits(8) for _ in range((units + 1) * 8 - 2))
        out += bytes([nxt, units]) + body
    return (kinds[0] if kinds else last), out


def frame_natt_ext(rnd, esp_side):
    v4 = lambda a, b, c, d: bytes([a, b, c, d])
    v6 = lambda p: bytes([0xfd, p] + [0] * 13 + [rnd.randint(1, 9)])
    lie = rnd.random() < 0.2
    kind = rnd.random()
    if esp_side:
        spi = rnd.choice([6, 8, 2, 4, 99])
        what = rnd.random()
        if what < 0.2:
            pl = b"\xff"                              # NAT-keepalive
        elif what < 0.35:
            pl = b"\x00\x00\x00\x00" + bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 40)))
        else:
            pl = esp(rnd, spi)
        ulen = 8 + len(pl)
        if rnd.random() < 0.2:
            ulen = rnd.choice([0, 7, 8, ulen - 1, ulen + 1, 65535])
        udp = struct.pack("!HHHH", 4500, rnd.choice([4500, 4500, 4501]), ulen & 0xffff, 0) + pl
        if kind < 0.4:
            l3 = ipv4(rnd, v4(172, 31, 1, 1), v4(172, 31, 2, 1), 17, udp, lie)
            et = 0x0800
        else:
            last = rnd.choice([17, 17, 50])
            nh, ext = ext_chain(rnd, last)
            l3 = ipv6(rnd, v6(9), v6(rnd.choice([2, 6])), nh,
                      ext + (udp if last == 17 else esp(rnd, spi)), lie)
            et = 0x86dd
    else:
        proto = rnd.choice([6, 17, 1])
        pl = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 1400)))
        if kind < 0.3:
            l3 = ipv4(rnd, v4(192, 168, 0, 1), v4(10, 5, 0, 1), proto, pl, lie)
            et = 0x0800
        else:
            nh, ext = ext_chain(rnd, proto)
            l3 = ipv6(rnd, v6(9), v6(rnd.choice([1, 5, 2])), nh, ext + pl, lie)
            et = 0x86dd
    if rnd.random() < 0.15:
        l3 = l3[:rnd.randint(0, len(l3))]             # cut anywhere
    return b"\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02" + struct.pack("!H", et) + l3



def main():
    gw = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 4000
    extra = sys.argv[4:]
    rnd = random.Random(seed)
    prefix = gwtest.file_prefix(os.path.basename(sys.argv[0])[:6])
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-fuzz-")
    ok = True
    try:
        # empty frames are not valid pcap records for every reader: keep >= 1 byte
        clear = [frame(rnd, False) or b"\x00" for _ in range(count)]
        prot = [frame(rnd, True) or b"\x00" for _ in range(count)]
        rnd2 = random.Random(seed * 7919 + 1)
        clear += [frame_natt_ext(rnd2, False) for _ in range(count // 4)]
        prot += [frame_natt_ext(rnd2, True) for _ in range(count // 4)]
        gwtest.write_pcap(os.path.join(tmp, "clear_in.pcap"), clear)
        gwtest.write_pcap(os.path.join(tmp, "esp_in.pcap"), prot)
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), CONF)
        stats = os.path.join(tmp, "stats.json")
        cmd = gwtest.gw_cmd(gw, prefix, ["--no-telemetry"] + gwtest.pcap_ports(tmp),
                            app=gwtest.pcap_run(cfg, stats) + extra)
        r = gwtest.run_gw(cmd, timeout=300, tail=3000, note=" (seed %d)" % seed)
        if r.returncode != 0:
            return 1
        s = gwtest.load_stats(stats)
        rx, tx, drops = gwtest.port_totals(s)
        # fragments: taken into reassembled datagrams, or made on tx (frag.c)
        moved = gwtest.frames_moved(s)
        print("seed %d: %d frames in, rx %d, tx %d, drops %d (%s)" %
              (seed, len(clear) + len(prot), rx, tx, drops,
               ", ".join("%s %d" % kv for kv in sorted(s["drops"].items()) if kv[1])))
        if rx != len(clear) + len(prot):
            print("FAIL: rx %d, wrote %d frames" % (rx, len(clear) + len(prot)))
            ok = False
        if moved != tx + drops:
            print("FAIL: rx %d (%d after fragments) != tx %d + drops %d: a packet was lost or "
                  "counted twice" % (rx, moved, tx, drops))
            ok = False
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
