#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""ESP interop between DPDK's stock ipsec-secgw (crypto from the cryptodev
under test) and scapy's independent ESP implementation (RFC 7634:
ChaCha20-Poly1305 with a 4-byte salt, 8-byte IV, 16-byte ICV).

The scenario, shared by both subcommands:
  port 0 (protected, clear side)   tap CLR, local network 10.10.0.0/16
  port 1 (unprotected, ESP side)   tap ESP, gateway 172.31.0.1
  tunnel "lookaside" (no-offload): SA out 10 / in 110, peer 172.31.0.2,
                                   remote network 192.168.10.0/24
  tunnel "cpu-crypto":             SA out 11 / in 111, peer 172.31.0.3,
                                   remote network 192.168.11.0/24
All addresses are private and exist only inside the test's network namespace.

usage:
  secgw_interop.py config SEED             print the ipsec-secgw -f file
  secgw_interop.py traffic SEED CLR ESP    run both directions, assert, report
Keys come from SEED, so the two calls agree without a key file.
"""

import random
import sys
import threading
import time

from scapy.all import AsyncSniffer, Ether, ICMP, IP, Raw, TCP, UDP, conf
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.utils import checksum

GW_MAC = {0: '02:00:00:00:00:10', 1: '02:00:00:00:00:11'}   # DPDK side of the taps
HOST_MAC = {0: '02:00:00:00:00:20', 1: '02:00:00:00:00:21'}  # neighbours the gateway sends to
GW_OUTER = '172.31.0.1'
LOCAL_NET = '10.10'

TUNNELS = [
    # name, type keyword, SPI out, SPI in, peer, remote /24
    ('lookaside', 'no-offload', 10, 110, '172.31.0.2', '192.168.10'),
    ('cpu-crypto', 'cpu-crypto', 11, 111, '172.31.0.3', '192.168.11'),
]

# Inner payload sizes: empty, around the 4-byte ESP alignment and the
# 64-byte ChaCha block, and up to what fits a 1500-byte MTU after ESP.
PAYLOAD_SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64,
                 65, 100, 127, 128, 129, 255, 256, 257, 511, 512, 777, 1000,
                 1023, 1024, 1200, 1300, 1380, 1400]


def keys(seed):
    """36-byte keying material (32-byte key, 4-byte salt) per SPI."""
    rng = random.Random(seed)
    out = {}
    for _, _, spi_out, spi_in, _, _ in TUNNELS:
        out[spi_out] = rng.randbytes(36)
        out[spi_in] = rng.randbytes(36)
    return out


def config(seed):
    k = keys(seed)
    hexkey = lambda b: ':'.join('%02x' % x for x in b)   # noqa: E731
    lines = ['# ipsec-secgw config written by test/pmd-tools/secgw_interop.py']
    for name, typ, spi_out, spi_in, peer, remote in TUNNELS:
        lines += [
            '# tunnel %s' % name,
            'sp ipv4 out esp protect %d pri 1 dst %s.0/24 sport 0:65535 dport 0:65535'
            % (spi_out, remote),
            'sp ipv4 in esp protect %d pri 1 src %s.0/24 dst %s.0.0/16 sport 0:65535 '
            'dport 0:65535' % (spi_in, remote, LOCAL_NET),
            'sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel src %s '
            'dst %s type %s' % (spi_out, hexkey(k[spi_out]), GW_OUTER, peer, typ),
            'sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel src %s '
            'dst %s type %s' % (spi_in, hexkey(k[spi_in]), peer, GW_OUTER, typ),
        ]
    lines += [
        'rt ipv4 dst 172.31.0.0/24 port 1',
        'rt ipv4 dst %s.0.0/16 port 0' % LOCAL_NET,
        'neigh port 0 %s' % HOST_MAC[0],
        'neigh port 1 %s' % HOST_MAC[1],
    ]
    print('\n'.join(lines))


def inner_packets(rng, remote, ident_base, outbound):
    """Clear IPv4 packets of every payload size, UDP, TCP and ICMP mixed.
    The IP id is unique per packet, so results can be matched to inputs."""
    pkts = []
    for i, size in enumerate(PAYLOAD_SIZES):
        local = '%s.%d.%d' % (LOCAL_NET, rng.randrange(1, 255), rng.randrange(1, 255))
        far = '%s.%d' % (remote, rng.randrange(1, 255))
        src, dst = (local, far) if outbound else (far, local)
        ip = IP(src=src, dst=dst, id=ident_base + i, ttl=64 - (i % 8))
        payload = Raw(rng.randbytes(size))
        kind = i % 3
        if kind == 0:
            p = ip / UDP(sport=rng.randrange(1024, 65535), dport=4500 + i) / payload
        elif kind == 1:
            p = ip / TCP(sport=rng.randrange(1024, 65535), dport=443, flags='PA',
                         seq=rng.randrange(1 << 32)) / payload
        else:
            p = ip / ICMP(type=8, id=i, seq=i) / payload
        pkts.append(IP(bytes(p)))        # fill lengths and checksums once
    return pkts


def send_all(frames, iface):
    """One socket for the lot (sendp() opens one per call, which is slow)."""
    sock = conf.L2socket(iface=iface)
    try:
        for f in frames:
            sock.send(f)
    finally:
        sock.close()


class Capture:
    """AsyncSniffer that counts matches as they come (its results list only
    exists after stop())."""

    def __init__(self, iface, match):
        self.count = 0
        self.listening = threading.Event()
        self.sniffer = AsyncSniffer(iface=iface, store=True, lfilter=match,
                                    prn=self._seen, started_callback=self.listening.set)

    def _seen(self, _pkt):
        self.count += 1

    def start(self):
        self.sniffer.start()
        # the capture socket must be open before we send
        if not self.listening.wait(60):
            raise RuntimeError("the sniffer did not start")

    def wait(self, want, deadline_s=60):
        """Until `want` packets matched (the caller counts them), at most deadline_s."""
        end = time.monotonic() + deadline_s
        while self.count < want and time.monotonic() < end:
            time.sleep(0.02)
        return self.sniffer.stop()


def outbound(tun, k, rng, clr, esp):
    """Clear in on port 0, ESP out on port 1, scapy decrypts every packet."""
    name, _, spi, _, peer, remote = tun
    sent = inner_packets(rng, remote, 0x1000 + spi * 0x100, True)
    sa = SecurityAssociation(ESP, spi=spi, crypt_algo='CHACHA20-POLY1305',
                             crypt_key=k[spi], tunnel_header=IP(src=GW_OUTER, dst=peer))
    cap = Capture(esp, lambda p: (IP in p and p[IP].proto == 50 and
                                  p[IP].src == GW_OUTER and p[IP].dst == peer))
    cap.start()
    send_all([Ether(src=HOST_MAC[0], dst=GW_MAC[0]) / p for p in sent], clr)
    got = cap.wait(len(sent))

    errors = []
    by_id = {p[IP].id: bytes(p) for p in sent}
    seqs = []
    matched = set()
    for pkt in got:
        outer = pkt[IP]
        if outer[ESP].spi != spi:
            errors.append('SPI %#x, expected %#x' % (outer[ESP].spi, spi))
            continue
        hdr = bytes(outer)[:outer.ihl * 4]
        if checksum(hdr) != 0:
            errors.append('seq %d: bad outer IPv4 header checksum' % outer[ESP].seq)
        seqs.append(outer[ESP].seq)
        try:
            clear = sa.decrypt(IP(bytes(outer)))
        except Exception as e:     # scapy raises on a bad ICV or padding
            errors.append('seq %d: scapy could not decrypt: %s' % (outer[ESP].seq, e))
            continue
        ident = clear[IP].id
        if ident not in by_id:
            errors.append('seq %d: unknown inner packet id %#x' % (outer[ESP].seq, ident))
        elif bytes(clear) != by_id[ident]:
            errors.append('inner packet %#x differs after the round trip' % ident)
        else:
            matched.add(ident)
    if seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
        errors.append('ESP sequence numbers not strictly increasing: %s' % seqs[:8])
    if len(got) != len(sent):
        errors.append('%d ESP packets captured for %d sent' % (len(got), len(sent)))
    report('%s outbound (gateway encrypts, scapy decrypts)' % name, len(sent),
           len(matched), errors)
    return not errors


def inbound(tun, k, rng, clr, esp):
    """scapy encrypts, ESP in on port 1, clear out on port 0, byte-exact.
    Two forged packets (a flipped ciphertext bit, a flipped ICV bit) must be
    dropped by the gateway, not delivered."""
    name, _, _, spi, peer, remote = tun
    orig = inner_packets(rng, remote, 0x4000 + spi * 0x100, False)
    forged = inner_packets(rng, remote, 0x7000 + spi * 0x10, False)[:2]
    sa = SecurityAssociation(ESP, spi=spi, crypt_algo='CHACHA20-POLY1305',
                             crypt_key=k[spi], tunnel_header=IP(src=peer, dst=GW_OUTER))
    frames = []
    for p in orig:
        frames.append(Ether(src=HOST_MAC[1], dst=GW_MAC[1]) / sa.encrypt(p))
    for n, p in enumerate(forged):
        raw = bytearray(bytes(sa.encrypt(p)))
        pos = 20 + 8 + 8 + 2 if n == 0 else len(raw) - 3   # ciphertext / ICV
        raw[pos] ^= 0x04
        frames.append(Ether(src=HOST_MAC[1], dst=GW_MAC[1]) / IP(bytes(raw)))
    # A valid packet after the forgeries: the SA still works.
    tail = inner_packets(rng, remote, 0x7800 + spi * 0x10, False)[5]
    orig.append(tail)
    frames.append(Ether(src=HOST_MAC[1], dst=GW_MAC[1]) / sa.encrypt(tail))

    cap = Capture(clr, lambda p: (IP in p and p[IP].src.startswith(remote + '.') and
                                  p[IP].dst.startswith(LOCAL_NET + '.')))
    cap.start()
    send_all(frames, esp)
    got = cap.wait(len(orig))

    errors = []
    by_id = {p[IP].id: bytes(p) for p in orig}
    bad_ids = {p[IP].id for p in forged}
    matched = set()
    for pkt in got:
        ip = pkt[IP]
        ident = ip.id
        if ident in bad_ids:
            errors.append('forged packet %#x was delivered' % ident)
        elif ident not in by_id:
            errors.append('unknown packet id %#x delivered' % ident)
        elif bytes(ip) != by_id[ident]:
            errors.append('packet %#x differs after the round trip' % ident)
        else:
            matched.add(ident)
        if pkt[Ether].dst.lower() != HOST_MAC[0]:
            errors.append('packet %#x sent to %s, not the neighbour' % (ident, pkt[Ether].dst))
    if len(matched) != len(orig):
        errors.append('%d of %d packets delivered intact' % (len(matched), len(orig)))
    report('%s inbound (scapy encrypts, gateway decrypts, 2 forgeries dropped)' % name,
           len(orig), len(matched), errors)
    return not errors


def report(what, sent, ok, errors):
    state = 'ok  ' if not errors else 'FAIL'
    print('%s %s: %d/%d packets' % (state, what, ok, sent))
    for e in errors[:10]:
        print('       ' + e)


def traffic(seed, clr, esp):
    conf.verb = 0
    k = keys(seed)
    rng = random.Random(seed + 1)
    ok = True
    for tun in TUNNELS:
        for phase in (outbound, inbound):
            t0 = time.monotonic()
            ok &= phase(tun, k, rng, clr, esp)
            print('       (%.1f s)' % (time.monotonic() - t0), flush=True)
    return 0 if ok else 1


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'config':
        config(int(sys.argv[2]))
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == 'traffic':
        return traffic(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main())
