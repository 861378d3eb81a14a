#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Gateway benchmark driver (run by scripts/bench-gw.sh, which builds first):
python3 -m gwrun.bench with tools/ on PYTHONPATH, or tools/gwrun/bench.py.

Workload: one worker lcore, one ChaCha20-Poly1305 IPv4 tunnel SA, outbound
(clear in, ESP out) and inbound (ESP in, clear out), three traffic mixes:
64 B frames, IMIX 7x64:4x576:1xBIG and 1400 B (sizes of the clear Ethernet
frame; inbound frames are those packets encrypted for the SA). BIG is 1460,
not 1500: the largest clear frame whose tunnel-ESP packet fits the ports'
1500-byte MTU (vecsec-gw drops what does not fit, unfragmented).

Traffic comes from pcap files generated here once (scapy), in /dev/shm,
replayed by net_pcap with infinite_rx=1; the output port is net_null (tx
counts and frees), the idle port net_null with no-rx=1. Every gateway gets
the same ports and files. Anti-replay is off everywhere (the files repeat
their sequence numbers). Rate = output port opackets (ethdev telemetry,
the same query for every app) over a window after a warm-up; on-CPU rate =
the same packets over the process's CPU time in that window (the sum over
its threads of /proc/PID/task/*/schedstat): on a shared machine a busy-
polling process does not always get its CPU, and the on-CPU figure is the
steadier one. cycles/packet = TSC Hz / rate.

Several runs per case (each a fresh process, cases interleaved so that a
noisy minute does not hit one case only); the report takes medians.

--lookaside-protocol adds crypto_vecsec's rte_security ESP sessions (the SA
`type lookaside-protocol-offload`: ESP framing, sequence numbers and the
AEAD in the PMD's burst) beside the same SA lookaside-none (rte_ipsec
frames ESP, the PMD does the AEAD), every direction and size; with
--gw-base, the base build's too.
--native with --gw-base: the base build's native SAs too ("base native"),
each right after this build's, and their ratio.

--cluster adds the active/active cluster of docs/ha.md (see "the
active/active cluster" below): one node carrying both segments against
each node of a pair, which gets every frame and drops the other node's
half, every direction and size; the report gives the pair's rate over one
node's on CPU and the cycles of a filter drop.
"""
import argparse
import csv
import re
import shlex
import os
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

if __package__ in (None, ""):           # run as a file: the package is in tools/
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from gwrun import eal                    # noqa: E402
from gwrun.files import hexkey, write_config    # noqa: E402
from gwrun.telemetry import Telemetry    # noqa: E402

KEY = bytes((0x30 + i) & 0xff for i in range(36))       # 32-byte key + 4-byte salt
GW_IP, PEER_IP = "172.16.1.1", "172.16.2.1"
OUT_SPI, IN_SPI = 1, 2            # 1 SA each way; with --sas N: OUT 1000+k, IN 3000+k
NPKT = 1200                       # packets per file (a multiple of 12 for IMIX)
MANY = 1000                       # SAs of the many-SA cases (--sas)
TRAFFIC = {"64": [64], "imix": [64] * 7 + [576] * 4 + [1460], "1400": [1400]}


def sa_key(k, nsa):
    if nsa == 1:
        return KEY
    return bytes((0x30 + i + 7 * k) & 0xff for i in range(36))


def flow_dst(f):
    return "10.1.%d.%d" % (f >> 8, f & 255)


# ---- traffic -------------------------------------------------------------

def gen_pcaps(d, traffics, many):
    """clear_<t>.pcap, esp1_<t>.pcap for every traffic; esp<MANY>_64.pcap when many."""
    from scapy.all import Ether, IP, UDP, Raw, wrpcap, raw, conf
    from scapy.layers.ipsec import ESP, SecurityAssociation
    conf.verb = 0
    made = {}

    def clear(i, size):
        f = i % MANY
        p = IP(src="192.168.1.%d" % (1 + i % 200), dst=flow_dst(f), ttl=64) / \
            UDP(sport=1024 + i % 4096, dport=2000)
        pad = size - 14 - len(p)
        return p / Raw(bytes((i + j) & 0xff for j in range(pad)))

    def sa_for(spi, key):
        return SecurityAssociation(ESP, spi=spi, crypt_algo="CHACHA20-POLY1305",
                                   crypt_key=key, tunnel_header=IP(src=PEER_IP, dst=GW_IP))

    mac = dict(src="02:00:00:00:aa:01", dst="02:00:00:00:bb:01")
    for t in traffics:
        sizes = TRAFFIC[t]
        pk = [clear(i, sizes[i % len(sizes)]) for i in range(NPKT)]
        frames = [Ether(**mac) / p for p in pk]
        assert all(len(raw(f)) == sizes[i % len(sizes)] for i, f in enumerate(frames))
        made["clear_" + t] = os.path.join(d, "clear_%s.pcap" % t)
        wrpcap(made["clear_" + t], frames)
        sa = sa_for(IN_SPI, KEY)
        esp = []
        for i, p in enumerate(pk):
            sa.seq_num = i + 1
            esp.append(Ether(**mac) / sa.encrypt(p))
        made["esp1_" + t] = os.path.join(d, "esp1_%s.pcap" % t)
        wrpcap(made["esp1_" + t], esp)
    if many:
        sas = [sa_for(3000 + k, sa_key(k, MANY)) for k in range(MANY)]
        esp = []
        for i in range(NPKT):
            p = clear(i, 64)
            sa = sas[i % MANY]
            sa.seq_num = i // MANY + 1
            esp.append(Ether(**mac) / sa.encrypt(p))
        made["esp%d_64" % MANY] = os.path.join(d, "esp%d_64.pcap" % MANY)
        wrpcap(made["esp%d_64" % MANY], esp)
    return made


def gw_conf(nsa, cpu_crypto, direction):
    """
    1 SA: both directions (ipsec-secgw refuses -u without an inbound SA);
    MANY SAs: the direction under test only (vecsec-gw takes at most 1024 SAs).
    """
    typ = " type cpu-crypto" if cpu_crypto else ""
    lines = []
    if nsa == 1:
        lines.append("sp ipv4 out esp protect %d pri 1 dst 10.1.0.0/16 sport 0:65535 "
                     "dport 0:65535" % OUT_SPI)
        lines.append("sp ipv4 in esp protect %d pri 1 dst 10.1.0.0/16 sport 0:65535 "
                     "dport 0:65535" % IN_SPI)
        lines.append("sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s%s" % (OUT_SPI, hexkey(KEY), GW_IP, PEER_IP, typ))
        lines.append("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s%s" % (IN_SPI, hexkey(KEY), PEER_IP, GW_IP, typ))
    else:
        for k in range(nsa):
            lines.append("sp ipv4 out esp protect %d pri 1 dst %s/32 sport 0:65535 "
                         "dport 0:65535" % (1000 + k, flow_dst(k)))
            lines.append("sp ipv4 in esp protect %d pri 1 dst %s/32 sport 0:65535 "
                         "dport 0:65535" % (3000 + k, flow_dst(k)))
        for k in range(nsa):
            key = hexkey(sa_key(k, nsa))
            lines.append("sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                         "src %s dst %s%s" % (1000 + k, key, GW_IP, PEER_IP, typ))
            lines.append("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                         "src %s dst %s%s" % (3000 + k, key, PEER_IP, GW_IP, typ))
    if nsa > 1:
        lines = [x for x in lines if x.split()[1 if x.startswith("sa") else 2] == direction]
    lines += ["rt ipv4 dst 172.16.2.0/24 port 1", "rt ipv4 dst 10.1.0.0/16 port 0",
              "neigh port 0 02:00:00:00:cc:00", "neigh port 1 02:00:00:00:cc:01"]
    return "\n".join(lines) + "\n"


# ---- the SA-count axis ----------------------------------------------------
#
# N ChaCha20-Poly1305 tunnel SAs in the direction under test (N = 1, 1,000,
# 10,000, 100,000), one SP rule each (a /32 flow), and one P-packet loop per
# (N, distribution, size, direction): every case replays the same number of
# packets, so rx, tx and the loop's own memory cost the same whatever N; only
# the per-SA state differs. Traffic over the SAs: uniform (each packet's SA
# drawn at random: a burst of 32 meets 32 SAs, and with 100,000 nearly every
# one is cold) or Zipf (s = 1: a few SAs carry most packets, as on real
# concentrators; ranks on a random permutation of the SAs, so the hot ones
# are not neighbours in memory). ESP is made here with the `cryptography`
# package (RFC 4303 / RFC 7634 layout), one packet per SA and size, reused
# wherever the SA recurs: with anti-replay off the gateway takes repeats.

AX_SPI_OUT, AX_SPI_IN = 0x10000, 0x400000
AX_BASE_KEY = bytes((0x61 + 3 * i) & 0xff for i in range(36))
AX_ZIPF_S = 1.0
AX_MAC = bytes.fromhex("020000000001020000000002") + b"\x08\x00"   # dst, src, IPv4


def ax_key(k):
    return k.to_bytes(4, "big") + AX_BASE_KEY[4:]


def ax_flow(k):
    return "10.%d.%d.%d" % (k >> 16 & 255, k >> 8 & 255, k & 255)


def ip_csum(h):
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ip_hdr(src, dst, proto, plen):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + plen, 0, 0, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", ip_csum(h)) + h[12:]


AX_PAT = bytes(range(256)) * 8


def ax_clear_ip(k, size):
    """The clear IP packet of SA k's flow in a frame of `size` bytes (UDP, no checksum)."""
    pay = size - 14 - 20 - 8
    udp = struct.pack("!HHHH", 1024 + k % 4096, 2000, 8 + pay, 0)
    return ip_hdr("192.168.%d.%d" % (k >> 8 & 255, 1 + k % 250), ax_flow(k), 17, 8 + pay) + \
        udp + AX_PAT[k % 256:k % 256 + pay]


def esp_tunnel_ip(inner, spi, seq, key, iv, src, dst):
    """The IPv4 packet src -> dst of ChaCha20-Poly1305 tunnel ESP (key: 32 bytes + salt)
    carrying the IPv4 packet inner, with that SPI, sequence number and 8-byte IV."""
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    padlen = (4 - (len(inner) + 2) % 4) % 4
    plain = inner + bytes(range(1, padlen + 1)) + bytes([padlen, 4])
    hdr = struct.pack("!II", spi, seq)
    ct = ChaCha20Poly1305(key[:32]).encrypt(key[32:] + iv, plain, hdr)
    esp = hdr + iv + ct
    return ip_hdr(src, dst, 50, len(esp)) + esp


def ax_esp_ip(k, size):
    """SA in k's ESP (tunnel, sequence number 1) carrying ax_clear_ip(k, size)."""
    return esp_tunnel_ip(ax_clear_ip(k, size), AX_SPI_IN + k, 1, ax_key(k),
                         k.to_bytes(8, "big"), PEER_IP, GW_IP)


def ax_order(n, dist, npkt, rnd):
    """The SA of each of the loop's npkt packets."""
    if n == 1:
        return [0] * npkt
    if dist == "uniform":
        return [rnd.randrange(n) for _ in range(npkt)]
    perm = list(range(n))
    rnd.shuffle(perm)
    cum, c = [], 0.0
    for r in range(n):
        c += 1.0 / (r + 1) ** AX_ZIPF_S
        cum.append(c)
    return rnd.choices(perm, cum_weights=cum, k=npkt)


def write_raw_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)))
            f.write(fr)


def ax_loop(n, a):
    """Packets of the loop of an n-SA point: --sa-pkts, else 2 per SA (at least 12,288)."""
    if a.sa_pkts:
        return a.sa_pkts
    return max(12288, 12 * ((2 * n + 11) // 12))


def ax_points(a):
    """(n, dist, loop) of every case of the axis: each loop size also with 1 SA."""
    pts, loops = [], []
    for n in a.sa_axis:
        for dist in (["-"] if n == 1 else a.sa_dist):
            pts.append((n, dist, ax_loop(n, a)))
            if ax_loop(n, a) not in loops:
                loops.append(ax_loop(n, a))
    for p in loops:
        if (1, "-", p) not in pts:
            pts.append((1, "-", p))
    return sorted(pts)


def ax_pcaps(d, a):
    """
    axclear_<t>_<n>_<dist>_<loop>.pcap (outbound input) and axesp_... (inbound)
    for every point. Returns {name: path} and the share of the n SAs each
    loop reaches {(n, dist, loop): fraction}.
    """
    import random
    made, reach = {}, {}
    cache, cache_n = {}, None
    for n, dist, npkt in ax_points(a):
        if n != cache_n:
            cache, cache_n = {}, n
        order = ax_order(n, dist, npkt, random.Random(n * 31 + len(dist)))
        reach[(n, dist, npkt)] = len(set(order)) / n
        for t in a.sa_traffic:
            sizes = TRAFFIC[t]
            clear, esp = [], []
            for i, k in enumerate(order):
                size = sizes[i % len(sizes)]
                clear.append(AX_MAC + ax_clear_ip(k, size))
                e = cache.get((k, size))
                if e is None:
                    e = cache[(k, size)] = AX_MAC + ax_esp_ip(k, size)
                esp.append(e)
            for kind, fr in (("axclear", clear), ("axesp", esp)):
                name = "%s_%s_%d_%s_%d" % (kind, t, n, dist, npkt)
                made[name] = os.path.join(d, name + ".pcap")
                write_raw_pcap(made[name], fr)
    return made, reach


AX_TYPES = {"lookaside": "", "cpu-crypto": " type cpu-crypto",
            "proto": " type lookaside-protocol-offload", "native": " type native"}


def ax_conf(n, direction, typ="lookaside"):
    """
    n SAs of one direction, one SP rule (a /32 flow) each; the same routes as
    gw_conf(). typ: the SAs' type (AX_TYPES: crypto_vecsec through rte_ipsec,
    lookaside or CPU crypto, or its rte_security ESP sessions).
    """
    lines = []
    for k in range(n):
        spi = (AX_SPI_OUT if direction == "out" else AX_SPI_IN) + k
        lines.append("sp ipv4 %s esp protect %d pri 1 dst %s/32" % (direction, spi, ax_flow(k)))
        lines.append("sa %s %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s%s" % (direction, spi, hexkey(ax_key(k)),
                                          GW_IP if direction == "out" else PEER_IP,
                                          PEER_IP if direction == "out" else GW_IP,
                                          AX_TYPES[typ]))
    lines += ["rt ipv4 dst 172.16.2.0/24 port 1", "rt ipv4 dst 10.0.0.0/8 port 0",
              "neigh port 0 02:00:00:00:cc:00", "neigh port 1 02:00:00:00:cc:01"]
    return "\n".join(lines) + "\n"


# ---- the active/active cluster (--cluster) ---------------------------------
#
# Two vecsec-gw nodes as one gateway (docs/ha.md): both receive every frame
# for the cluster address, each carries the peers of the segments active on
# it and drops the rest (`inactive_segment`). Here: P peers (172.16.2.x),
# half of them in segment 1 and half in segment 2 of a 2-segment cluster at
# GW_IP, by the gateway's own hash (apps/vecsec-gw/ha_seg.h, ported below and
# checked on strongSwan's values), one ChaCha20-Poly1305 tunnel SA each way
# per peer whose SPI hashes into the peer's segment (as the ha plugin's
# get_spi makes it). Every run reads each SA's segment from the gateway's
# telemetry and fails when it is not the one expected here. The loop sends
# packet i to peer i % P, its size the (i // P)-th of the mix, so both halves
# carry the same sizes. Three cases on the same files: the whole cluster on
# one node (`--cluster 2@GW_IP:all`), node 1 (`:1`: segment 2 filtered) and
# node 2 (`:2`: segment 1 filtered).

CL_SEGS = 2
CL_CASES = (("cluster 1 node (all)", "all"), ("cluster node 1 (seg 1)", "1"),
            ("cluster node 2 (seg 2)", "2"))
# and a node with no segment: every packet a filter drop, its rate the received packets
CL_NONE = ("cluster no segment (none)", "none")


def cl_jhash(a, b, nwords):
    """Linux jhash_1word(a, 0) (nwords 1, b 0) or jhash_2words(a, b, 0): ha_seg.h's."""
    m = 0xffffffff

    def rol(x, k):
        return ((x << k) | (x >> (32 - k))) & m
    iv = (0xdeadbeef + (nwords << 2)) & m
    w = [(a + iv) & m, (b + iv) & m, iv]             # a, b, c
    # lookup3's final(): w[x] ^= w[y]; w[x] -= rol(w[y], k), in this order
    for x, y, k in ((2, 1, 14), (0, 2, 11), (1, 0, 25), (2, 1, 16), (0, 2, 4), (1, 0, 14),
                    (2, 1, 24)):
        w[x] = ((w[x] ^ w[y]) - rol(w[y], k)) & m
    return w[2]


def cl_ip(s):
    return struct.unpack("!I", socket.inet_aton(s))[0]


def cl_seg(addr, spi=None, count=CL_SEGS):
    """Segment of a peer address (spi None) or of an SA (address, SPI), 1..count."""
    h = cl_jhash(cl_ip(addr), 0, 1) if not spi else cl_jhash(cl_ip(addr), spi, 2)
    return (h * count >> 32) + 1


def cl_hash_selftest():
    """strongSwan 5.9.8's values (test/gw/test_ha_seg.c checks the C side)."""
    assert cl_jhash(cl_ip("192.168.0.100"), 0, 1) == 0x829629eb
    assert cl_jhash(cl_ip("192.168.0.200"), 0, 1) == 0x40df4404
    assert cl_jhash(cl_ip("192.168.0.5"), 0xc1234567, 2) == 0x82504be1
    assert cl_seg("192.168.0.100") == 2 and cl_seg("192.168.0.200") == 1


def cl_peers(npeers):
    """[(peer address, segment, out SPI, in SPI)]: npeers / 2 per segment."""
    cl_hash_selftest()
    per, peers = {s: [] for s in range(1, CL_SEGS + 1)}, []
    for host in range(1, 255):
        addr = "172.16.2.%d" % host
        s = cl_seg(addr)
        if len(per[s]) < npeers // CL_SEGS:
            per[s].append(addr)
    for j in range(npeers // CL_SEGS):
        for s in sorted(per):
            addr, k = per[s][j], len(peers)
            spi_out = next(x for x in range(0x1000 + 0x100 * k, 0x1100 + 0x100 * k)
                           if cl_seg(addr, x) == s)
            spi_in = next(x for x in range(0x80000 + 0x100 * k, 0x80100 + 0x100 * k)
                          if cl_seg(GW_IP, x) == s)
            peers.append((addr, s, spi_out, spi_in))
    return peers


def cl_loop(npeers):
    """Packets in the loop: a multiple of npeers * 12 (every peer the whole IMIX), ~2300."""
    unit = npeers * 12
    return unit * max(1, (2304 + unit - 1) // unit)


def cl_pcaps(d, peers, traffics):
    """clclear_<t>.pcap (outbound input) and clesp_<t>.pcap (inbound) of the cluster."""
    made, n = {}, len(peers)
    for t in traffics:
        sizes = TRAFFIC[t]
        clear, esp, seq = [], [], [0] * n
        for i in range(cl_loop(n)):
            k, size = i % n, sizes[(i // n) % len(sizes)]
            ip = ax_clear_ip(k, size)
            seq[k] += 1
            clear.append(AX_MAC + ip)
            esp.append(AX_MAC + esp_tunnel_ip(ip, peers[k][3], seq[k], ax_key(k),
                                              i.to_bytes(8, "big"), peers[k][0], GW_IP))
        for kind, fr in (("clclear", clear), ("clesp", esp)):
            made["%s_%s" % (kind, t)] = os.path.join(d, "%s_%s.pcap" % (kind, t))
            write_raw_pcap(made["%s_%s" % (kind, t)], fr)
    return made


def cl_conf(peers):
    """Both directions: per peer an SP rule for its flow (ax_flow(k)) and a tunnel SA each way."""
    lines = []
    for k, (addr, _, spi_out, spi_in) in enumerate(peers):
        key = hexkey(ax_key(k))
        lines.append("sp ipv4 out esp protect %d pri 1 dst %s/32" % (spi_out, ax_flow(k)))
        lines.append("sp ipv4 in esp protect %d pri 1 dst %s/32" % (spi_in, ax_flow(k)))
        lines.append("sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s" % (spi_out, key, GW_IP, addr))
        lines.append("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                     "src %s dst %s" % (spi_in, key, addr, GW_IP))
    lines += ["rt ipv4 dst 172.16.2.0/24 port 1", "rt ipv4 dst 10.0.0.0/8 port 0",
              "neigh port 0 02:00:00:00:cc:00", "neigh port 1 02:00:00:00:cc:01"]
    return "\n".join(lines) + "\n"


def cl_check(peers, active):
    """
    A check for one_run: every SA's segment and state as the gateway shows them
    (/vecsec_gw/sa,DIR,SPI) against the hash here; an error string or None.
    """
    def check(tel):
        for addr, s, spi_out, spi_in in peers:
            for d, spi in (("out", spi_out), ("in", spi_in)):
                v = tel.get("/vecsec_gw/sa,%s,%d" % (d, spi)).get("/vecsec_gw/sa") or {}
                want = "active" if active == "all" or str(s) == active else "standby"
                if v.get("segment") != s or v.get("segment_state") != want:
                    return ("SA %s %#x of peer %s: the gateway says segment %s %s, the bench's "
                            "hash segment %d %s" % (d, spi, addr, v.get("segment"),
                                                    v.get("segment_state"), s, want))
        return None
    return check


# ---- one run -------------------------------------------------------------

def thread_cpu_ns(pid):
    """{thread id: ns on CPU so far}"""
    per = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                per[t] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return per


def proc_cpu_ns(pid):
    return sum(thread_cpu_ns(pid).values())


def perf_start(pid, path, secs):
    """perf record of pid over the window (--perf DIR), or None when perf cannot run."""
    try:
        return subprocess.Popen(["perf", "record", "-q", "-F", "4999", "-p", str(pid), "-o", path,
                                 "--", "sleep", "%.2f" % secs],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None


def one_run(cmd, prefix, out_port, log, warm, secs, perf_data=None, start_s=30, in_port=None,
            check=None, count="opackets"):
    """
    Start cmd; return (pkts/s wall, pkts/s on CPU, cpu share, [CPU share of each thread
    that ran more than 2 % of the window, largest first], seconds from start to the first
    packet out, packets received on in_port per CPU second or None) or an error string.
    start_s: how long it may take to start. check: a function of the telemetry
    connection, called once traffic flows, that returns an error string or None.
    count: the out_port's counter that is the rate ("ipackets" for a run that sends
    nothing: out_port then names the port it receives on).
    """
    for d in eal.run_dirs(prefix):
        shutil.rmtree(d, ignore_errors=True)
    lf = open(log, "w")
    p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, start_new_session=True)
    tel = None
    try:
        sock = None
        t_start = time.monotonic()
        deadline = t_start + start_s
        while time.monotonic() < deadline and p.poll() is None:
            for d in eal.run_dirs(prefix):
                if os.path.exists(os.path.join(d, "dpdk_telemetry.v2")):
                    sock = os.path.join(d, "dpdk_telemetry.v2")
            if sock:
                try:
                    tel = Telemetry(sock)
                    st = tel.get("/ethdev/stats,%d" % out_port)["/ethdev/stats"]
                    if st and st.get(count, 0) > 0:
                        break
                except (OSError, ValueError, KeyError, TypeError):
                    if tel:
                        tel.close()
                    tel = None
            time.sleep(0.1)
        else:
            return "did not start" if p.poll() is None else "exited with %d" % p.returncode
        if tel is None:
            return "no traffic out within %d s" % start_s
        started = time.monotonic() - t_start
        err = check(tel) if check else None
        if err:
            return err
        time.sleep(warm)

        def sample():
            st = tel.get("/ethdev/stats,%d" % out_port)["/ethdev/stats"]
            ri = tel.get("/ethdev/stats,%d" % in_port)["/ethdev/stats"]["ipackets"] \
                if in_port is not None else 0
            th = thread_cpu_ns(p.pid)
            return time.monotonic(), th, st[count], ri
        pr = perf_start(p.pid, perf_data, secs) if perf_data else None
        t0, th0, n0, i0 = sample()
        time.sleep(secs)
        t1, th1, n1, i1 = sample()
        c0, c1 = sum(th0.values()), sum(th1.values())
        shares = sorted(((th1[t] - th0.get(t, 0)) / 1e9 / (t1 - t0) for t in th1), reverse=True)
        shares = [x for x in shares if x > 0.02]
        if pr is not None:
            try:
                pr.wait(timeout=secs + 30)
            except subprocess.TimeoutExpired:
                pr.kill()
                pr.wait()
        if p.poll() is not None:
            return "exited with %d during the window" % p.returncode
        dn, dt, dc = n1 - n0, t1 - t0, (c1 - c0) / 1e9
        if dn <= 0 or dc <= 0:
            return "no packets in the window"
        return dn / dt, dn / dc, dc / dt, shares, started, \
            (i1 - i0) / dc if in_port is not None else None
    finally:
        if tel:
            tel.close()
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGINT)
            try:
                p.wait(timeout=60)      # 100,000 SAs take a while to free
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        lf.close()
        for d in eal.run_dirs(prefix):
            shutil.rmtree(d, ignore_errors=True)


def l3_mib():
    """The last-level cache's size in MiB (sysfs), or None."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = None
    try:
        for d in os.listdir(base):
            try:
                with open(os.path.join(base, d, "level")) as f:
                    level = int(f.read())
                with open(os.path.join(base, d, "size")) as f:
                    size = f.read().strip()
            except (OSError, ValueError):
                continue
            m = re.match(r"(\d+)([KMG]?)", size)
            if not m:
                continue
            mib = int(m.group(1)) / {"K": 1024, "M": 1, "G": 1 / 1024, "": 1 << 20}[m.group(2)]
            if best is None or level > best[0]:
                best = (level, mib)
    except OSError:
        return None
    return best[1] if best else None


# ---- cases ---------------------------------------------------------------

def tsc_hz():
    """The TSC's rate: the kernel's calibration when it printed it, else cpu MHz."""
    try:
        out = subprocess.run(["dmesg"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    hz = 0.0
    for line in out.splitlines():
        for key in ("tsc: Refined TSC clocksource calibration:", "tsc: Detected"):
            if key in line:
                try:
                    hz = float(line.split(key)[1].split("MHz")[0].strip(" :")) * 1e6
                except ValueError:
                    pass
    if hz:
        return hz, "kernel TSC calibration (dmesg)"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1]) * 1e6, "/proc/cpuinfo cpu MHz"
    return 0.0, "unknown"


def build_cases(a, pcaps, cfgs):
    """(label, app, pmd, mode, dir, traffic, sas, workers, make_cmd(prefix) -> argv, out_port)"""
    # --hugepages: the production setting (memory from the hugepages the machine
    # has reserved, no files: --in-memory) in place of --no-huge; never PCI
    safe = [x for x in eal.SAFE if x != "--no-huge"] + ["--in-memory"] if a.hugepages \
        else eal.SAFE
    eal_common = safe + ["-m", str(a.mem_mb), "--log-level", "*:warning",
                         "--force-max-simd-bitwidth=512"]
    cases = []

    def ports(direction, traffic, nsa, nq):
        if direction == "out":
            f = pcaps["clear_" + traffic]
        else:
            f = pcaps["esp%d_%s" % (1 if nsa == 1 else MANY, traffic)]
        pcap = "net_pcap_b0," + ",".join(["rx_pcap=" + f] * nq) + ",infinite_rx=1"
        null = "net_null_b0,no-rx=1"
        # port 0 protected (clear), port 1 unprotected (ESP)
        if direction == "out":
            return ["--vdev", pcap, "--vdev", null.replace("_b0", "_b1")], 1
        return ["--vdev", null, "--vdev", pcap.replace("_b0", "_b1")], 0

    def vecsec_gw(label, pmd, cpu, d, t, nsa=1, workers=1, gw=a.gw):
        """cpu: True for cpu-crypto SAs, "proto" for lookaside-protocol ones, "native"."""
        cores = ",".join(str(i) for i in range(workers))
        cdev = ["--vdev", pmd + "0"]
        pv, op = ports(d, t, nsa, workers)
        cfg = cfgs[(nsa, cpu, d)]

        def mk(prefix):
            return [gw, "-l", cores] + eal_common + ["--file-prefix", prefix] + cdev + pv + \
                ["--", "-f", cfg, "-u", "2", "-w", "0", "--prefer", pmd, "--quiet",
                 "--duration", "120"] + a.gw_args
        mode = "lookaside-protocol" if cpu == "proto" else "native" if cpu == "native" else \
            "cpu-crypto" if cpu else "lookaside"
        cases.append(dict(label=label, app="vecsec-gw", pmd=pmd, mode=mode, dir=d, traffic=t,
                          sas=nsa, workers=workers, mk=mk, out_port=op))

    def axis(d, t, n, dist, npkt, gw=a.gw, base=""):
        """A point of the SA-count axis: n SAs, the npkt-packet loop of (t, n, dist)."""
        f = pcaps["%s_%s_%d_%s_%d" % ("axclear" if d == "out" else "axesp", t, n, dist, npkt)]
        pcap = "net_pcap_b0,rx_pcap=%s,infinite_rx=1" % f
        null = "net_null_b0,no-rx=1"
        if d == "out":
            pv, op = ["--vdev", pcap, "--vdev", null.replace("_b0", "_b1")], 1
        else:
            pv, op = ["--vdev", null, "--vdev", pcap.replace("_b0", "_b1")], 0
        # DPDK memory: the loop's mbufs and the gateway's (2.6 KiB each), 8 KiB per SA, room
        mem = 512 + ((npkt + 16384) * 26) // 10240 + (n * 8) // 1024
        eal_ax = [x if x != str(a.mem_mb) else str(max(a.mem_mb, mem)) for x in eal_common]
        cfg = cfgs[("axis", n, d)]

        def mk(prefix):
            return [gw, "-l", "0"] + eal_ax + ["--file-prefix", prefix, "--vdev",
                                               "crypto_vecsec0"] + pv + \
                ["--", "-f", cfg, "-u", "2", "-w", "0", "--prefer", "crypto_vecsec", "--quiet",
                 "--duration", "300", "--mbufs", str(npkt + 16384)] + a.gw_args
        cases.append(dict(label="%saxis %d SAs %s %d" % (base, n, dist, npkt), app="vecsec-gw",
                          pmd="crypto_vecsec", mode=a.sa_type, dir=d, traffic=t, sas=n,
                          workers=1, dist=dist, loop=npkt, mk=mk, out_port=op))

    def cluster(d, t, label, active):
        """A node of the 2-segment cluster (CL_CASES): active 'all', '1' or '2'."""
        f = pcaps["%s_%s" % ("clclear" if d == "out" else "clesp", t)]
        pcap = "net_pcap_b0,rx_pcap=%s,infinite_rx=1" % f
        null = "net_null_b0,no-rx=1"
        if d == "out":
            pv, op, ip = ["--vdev", pcap, "--vdev", null.replace("_b0", "_b1")], 1, 0
        else:
            pv, op, ip = ["--vdev", null, "--vdev", pcap.replace("_b0", "_b1")], 0, 1
        if active == "none":
            op = ip             # nothing goes out: the rate is what it receives
        npkt = cl_loop(len(a.cl_peers))
        mem = 512 + ((npkt + 16384) * 26) // 10240
        eal_cl = [x if x != str(a.mem_mb) else str(max(a.mem_mb, mem)) for x in eal_common]

        def mk(prefix):
            return [a.gw, "-l", "0"] + eal_cl + ["--file-prefix", prefix, "--vdev",
                                                 "crypto_vecsec0"] + pv + \
                ["--", "-f", cfgs["cluster"], "-u", "2", "-w", "0", "--prefer", "crypto_vecsec",
                 "--quiet", "--duration", "120", "--mbufs", str(npkt + 16384),
                 "--cluster", "%d@%s:%s" % (CL_SEGS, GW_IP, active)] + a.gw_args
        cases.append(dict(label=label, app="vecsec-gw", pmd="crypto_vecsec", mode="lookaside",
                          dir=d, traffic=t, sas=len(a.cl_peers), workers=1, mk=mk, out_port=op,
                          in_port=ip, check=cl_check(a.cl_peers, active),
                          count="ipackets" if active == "none" else "opackets"))

    def secgw(label, pmd, cpu, d, t):
        if pmd == "crypto_vecsec":
            cdev = ["-d", a.pmd_so, "--vdev", "crypto_vecsec0"]
        else:
            cdev = ["--vdev", pmd + "0"]
        pv, op = ports(d, t, 1, 1)
        cfg = cfgs[(1, cpu, d)]

        def mk(prefix):
            return [a.secgw, "-l", "0"] + eal_common + ["--file-prefix", prefix] + cdev + pv + \
                ["--", "-l", "-P", "-p", "0x3", "-u", "0x2", "--config", "(0,0,0),(1,0,0)",
                 "-f", cfg]
        cases.append(dict(label=label, app="ipsec-secgw", pmd=pmd,
                          mode="cpu-crypto" if cpu else "lookaside", dir=d, traffic=t,
                          sas=1, workers=1, mk=mk, out_port=op))

    def floor(t):
        """The I/O floor: the same ports and files, vecsec-gw forwarding in clear (SP bypass)."""
        pv, op = ports("out", t, 1, 1)

        def mk(prefix):
            return [a.gw, "-l", "0"] + eal_common + ["--file-prefix", prefix] + pv + \
                ["--", "-f", cfgs["bypass"], "-u", "2", "--quiet", "--duration", "120"] + a.gw_args
        cases.append(dict(label="I/O floor (gw bypass)", app="vecsec-gw", pmd="",
                          mode="bypass", dir="out", traffic=t, sas=0, workers=1, mk=mk,
                          out_port=op))

    for d in ("out", "in"):
        for t in a.traffic:
            vecsec_gw("vecsec-gw vecsec", "crypto_vecsec", False, d, t)
            vecsec_gw("vecsec-gw vecsec cpu", "crypto_vecsec", True, d, t)
            vecsec_gw("vecsec-gw aesni_mb", "crypto_aesni_mb", False, d, t)
            if a.native:
                vecsec_gw("vecsec-gw native", "crypto_vecsec", "native", d, t)
                if a.gw_base:
                    # the base build's native SAs, right after (before/after in one run)
                    vecsec_gw("base native", "crypto_vecsec", "native", d, t, gw=a.gw_base)
            if a.lookaside_protocol:
                vecsec_gw("vecsec-gw vecsec proto", "crypto_vecsec", "proto", d, t)
                if a.gw_base:
                    vecsec_gw("base vecsec", "crypto_vecsec", False, d, t, gw=a.gw_base)
                    vecsec_gw("base vecsec proto", "crypto_vecsec", "proto", d, t,
                              gw=a.gw_base)
            if a.secgw:
                secgw("secgw aesni_mb", "crypto_aesni_mb", False, d, t)
                secgw("secgw aesni_mb cpu", "crypto_aesni_mb", True, d, t)
                secgw("secgw vecsec", "crypto_vecsec", False, d, t)
                secgw("secgw vecsec cpu", "crypto_vecsec", True, d, t)
        if d == "out":
            for t in a.traffic:
                floor(t)
        if a.many and "64" in a.traffic:
            vecsec_gw("vecsec-gw vecsec %d SAs" % MANY, "crypto_vecsec", False, d, "64",
                      nsa=MANY)
        if a.gw_base and "64" in a.traffic:
            # the same cases with another build (before/after in one run)
            if not a.lookaside_protocol:
                vecsec_gw("base vecsec", "crypto_vecsec", False, d, "64", gw=a.gw_base)
            if a.many:
                vecsec_gw("base vecsec %d SAs" % MANY, "crypto_vecsec", False, d, "64", nsa=MANY,
                          gw=a.gw_base)
            if a.workers2:
                vecsec_gw("base vecsec %d workers" % a.workers, "crypto_vecsec", False, d, "64",
                          workers=a.workers, gw=a.gw_base)
        if a.workers2 and "64" in a.traffic:
            vecsec_gw("vecsec-gw vecsec %d workers" % a.workers, "crypto_vecsec", False, d, "64",
                      workers=a.workers)
            if a.many:
                vecsec_gw("vecsec-gw vecsec %d workers %d SAs" % (a.workers, MANY), "crypto_vecsec",
                          False, d, "64", nsa=MANY, workers=a.workers)
    for d in ("out", "in"):
        for t in (a.traffic if a.cluster else []):
            # the three nodes of one (direction, size) one after the other
            for label, active in CL_CASES + (CL_NONE,):
                cluster(d, t, label, active)
    for d in ("out", "in"):
        for t in a.sa_traffic:
            for n, dist, npkt in (ax_points(a) if a.sa_axis else []):
                axis(d, t, n, dist, npkt)
                # with a base build: the same point right after, so both see the same machine
                if a.gw_base:
                    axis(d, t, n, dist, npkt, gw=a.gw_base, base="base ")
    if a.only:
        rx = re.compile(a.only)
        cases = [c for c in cases if rx.search("%s %s %s" % (c["label"], c["dir"], c["traffic"]))]
    return cases


def main():
    global MANY
    ap = argparse.ArgumentParser()
    ap.add_argument("--gw", required=True)
    ap.add_argument("--secgw", default="")
    ap.add_argument("--gw-base", default="",
                    help="another vecsec-gw binary: its 64 B cases run interleaved, labelled "
                         "'base ...'")
    ap.add_argument("--pmd-so", default="")
    ap.add_argument("--out", required=True, help="CSV path; the PNG goes next to it")
    ap.add_argument("--logs", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--secs", type=float, default=1.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--mem-mb", type=int, default=512)
    ap.add_argument("--memprobe", default="",
                    help="tools/memprobe binary: print the cost of a line from memory with the "
                         "SA-count axis")
    ap.add_argument("--hugepages", action="store_true",
                    help="EAL memory from reserved hugepages (--in-memory), not --no-huge")
    ap.add_argument("--tag", default=str(os.getpid()),
                    help="names /dev/shm/vecsec-bench-gw-TAG and EAL prefixes vecsec-bgw-TAG-*")
    ap.add_argument("--traffic", default="64,imix,1400")
    ap.add_argument("--no-many", dest="many", action="store_false")
    ap.add_argument("--sas", type=int, default=MANY,
                    help="SAs of the many-SA cases (2..1024; the traffic round-robins over "
                         "them, every burst spread over 32 of them)")
    ap.add_argument("--no-workers2", dest="workers2", action="store_false")
    ap.add_argument("--lookaside-protocol", action="store_true",
                    help="also crypto_vecsec's rte_security ESP sessions (lookaside-protocol "
                         "SAs), every direction and size")
    ap.add_argument("--native", action="store_true",
                    help="also native SAs (type native: the gateway's own ESP, libvecsec's "
                         "lanes engine, no cryptodev), every direction and size")
    ap.add_argument("--workers", type=int, default=2,
                    help="worker lcores of the multi-worker cases (one rx queue each)")
    ap.add_argument("--only", default="",
                    help="regex: run the cases whose 'label dir traffic' matches, e.g. "
                         "'vecsec-gw vecsec (1000 SAs )?(out|in) 64'")
    ap.add_argument("--sa-axis", default="1,1000,10000,100000",
                    help="SA counts of the SA-count axis ('' for none)")
    ap.add_argument("--sa-dist", default="uniform,zipf",
                    help="traffic spread over the SAs of the axis: uniform, zipf")
    ap.add_argument("--sa-traffic", default="64,imix", help="frame sizes of the axis")
    ap.add_argument("--sa-type", default="lookaside", choices=sorted(AX_TYPES),
                    help="the axis's SA type: lookaside (rte_ipsec + crypto ops), cpu-crypto "
                         "(rte_ipsec + CPU crypto), proto (crypto_vecsec's rte_security ESP "
                         "sessions: type lookaside-protocol-offload), native (type native)")
    ap.add_argument("--sa-pkts", type=int, default=0,
                    help="packets in each loop of the axis (a multiple of 12); 0: two per SA, "
                         "at least 12,288, and 1 SA measured with each loop size")
    ap.add_argument("--gw-args", default="",
                    help="more vecsec-gw options (after --) for every vecsec-gw case, "
                         "e.g. '--spd-cache 0'")
    ap.add_argument("--cluster", action="store_true",
                    help="also the active/active cluster: one node carrying both segments "
                         "against each node of a pair (the other segment filtered), every "
                         "direction and size")
    ap.add_argument("--cluster-peers", type=int, default=8,
                    help="peers of the cluster cases (even, 2..64), half in each segment")
    ap.add_argument("--perf", default="",
                    help="folder: perf record (4999 Hz) each run's window into "
                         "caseNN-runR.perf.data")
    a = ap.parse_args()
    if not 2 <= a.sas <= 1024:
        sys.exit("bench_gw: --sas takes 2..1024")
    MANY = a.sas
    if a.cluster and (a.cluster_peers < 2 or a.cluster_peers > 64 or a.cluster_peers % 2):
        sys.exit("bench_gw: --cluster-peers takes an even number 2..64")
    a.cl_peers = cl_peers(a.cluster_peers) if a.cluster else []
    a.traffic = [t for t in a.traffic.split(",") if t]
    a.gw_args = a.gw_args.split()
    a.sa_axis = [int(x) for x in a.sa_axis.split(",") if x and x != "0"]
    a.reach = {}
    a.sa_dist = [x for x in a.sa_dist.split(",") if x]
    a.sa_traffic = [t for t in a.sa_traffic.split(",") if t] if a.sa_axis else []
    for t in a.traffic + a.sa_traffic:
        if t not in TRAFFIC:
            sys.exit("bench_gw: unknown traffic %s (64, imix, 1400)" % t)
    if any(x not in ("uniform", "zipf") for x in a.sa_dist) or \
            any(n < 1 or n > 1 << 24 for n in a.sa_axis):
        sys.exit("bench_gw: --sa-dist takes uniform, zipf; --sa-axis counts from 1")
    a.workers2 = a.workers2 and os.cpu_count() >= 2 and a.workers >= 2
    if a.perf:
        os.makedirs(a.perf, exist_ok=True)
    os.makedirs(a.logs, exist_ok=True)
    shm = "/dev/shm/vecsec-bench-gw-%s" % a.tag
    os.makedirs(shm)
    failed = 0
    try:
        t0 = time.time()
        pcaps = gen_pcaps(shm, a.traffic, a.many and "64" in a.traffic)
        cfgs = {}
        for nsa in ([1, MANY] if a.many else [1]):
            for cpu in (False, True):
                for d in ("out", "in"):
                    path = os.path.join(shm, "gw-%s-%d%s.cfg" % (d, nsa, "-cpu" if cpu else ""))
                    cfgs[(nsa, cpu, d)] = write_config(path, gw_conf(nsa, cpu, d), 0o600)
        for d in ("out", "in"):
            # the lookaside SA made type lookaside-protocol-offload, and type native
            for k, typ in (("proto", " type lookaside-protocol-offload"),
                           ("native", " type native")):
                text = "".join(ln + (typ if ln.startswith("sa ") else "") + "\n"
                               for ln in gw_conf(1, False, d).splitlines())
                cfgs[(1, k, d)] = write_config(os.path.join(shm, "gw-%s-1-%s.cfg" % (d, k)),
                                               text, 0o600)
        if a.sa_axis:
            t1 = time.time()
            axp, a.reach = ax_pcaps(shm, a)
            pcaps.update(axp)
            # every loop also runs with 1 SA (its baseline), in the axis or not
            for n in sorted(set(a.sa_axis) | {1}):
                for d in ("out", "in"):
                    path = os.path.join(shm, "gw-axis-%s-%d.cfg" % (d, n))
                    cfgs[("axis", n, d)] = write_config(path, ax_conf(n, d, a.sa_type), 0o600)
            print("bench-gw: SA axis %s, %s, loops of %s packets: files made in %.1f s"
                  % (",".join(str(n) for n in a.sa_axis), "/".join(a.sa_dist),
                     ",".join(sorted({str(p[2]) for p in ax_points(a)}, key=int)),
                     time.time() - t1))
        a.mem_probe = None
        if a.sa_axis and a.memprobe:
            # the unit of the axis: a line from memory (tools/memprobe)
            try:
                pr = subprocess.run([a.memprobe, "--mib", "512"] +
                                    (["--huge"] if a.hugepages else []),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    universal_newlines=True, timeout=300)
                m = re.search(r"huge=(\d) latency_cyc=(\d+) line_cyc=([\d.]+)", pr.stdout)
            except (OSError, subprocess.TimeoutExpired) as e:
                pr, m = None, None
                print("bench-gw: memprobe did not run: %s" % e)
            if m:
                a.mem_probe = dict(huge=int(m.group(1)), latency=float(m.group(2)),
                                   line=float(m.group(3)))
                print("bench-gw: " + pr.stdout.strip().replace("\n", "; "))
            elif pr is not None:
                print("bench-gw: memprobe gave no answer: %s" % pr.stdout.strip())
        if a.cluster:
            pcaps.update(cl_pcaps(shm, a.cl_peers, a.traffic))
            cfgs["cluster"] = write_config(os.path.join(shm, "gw-cluster.cfg"),
                                           cl_conf(a.cl_peers), 0o600)
            print("bench-gw: cluster of %d segments at %s, peers (address segment out-SPI "
                  "in-SPI): %s" % (CL_SEGS, GW_IP, ", ".join(
                      "%s %d %#x %#x" % p for p in a.cl_peers)))
        cfgs["bypass"] = os.path.join(shm, "gw-bypass.cfg")
        with open(cfgs["bypass"], "w") as f:
            f.write("sp ipv4 out esp bypass pri 1 dst 10.1.0.0/16\n"
                    "rt ipv4 dst 10.1.0.0/16 port 1\nneigh port 1 02:00:00:00:cc:01\n")
        print("bench-gw: traffic files in %s (%.1f s to make)" % (shm, time.time() - t0))
        cases = build_cases(a, pcaps, cfgs)
        print("bench-gw: %d cases x %d runs, %.1f s warm-up + %.1f s window each"
              % (len(cases), a.runs, a.warmup, a.secs))
        res = {i: [] for i in range(len(cases))}
        runv = {}       # (case, run): its result, for the same-run ratios
        errs = {}
        for r in range(a.runs):
            for i, c in enumerate(cases):
                prefix = "vecsec-bgw-%s-%d" % (a.tag, i)
                log = os.path.join(a.logs, "case%02d-run%d.log" % (i, r))
                pd = os.path.join(a.perf, "case%02d-run%d.perf.data" % (i, r)) if a.perf else None
                cmd = c["mk"](prefix)
                if c["app"] == "vecsec-gw":
                    # sequence-number marks of its own, next to the traffic files (removed
                    # with them): cases never share marks, nothing under /var/lib
                    cmd += ["--seq-state", os.path.join(shm, "%s-run%d.seq-state" % (prefix, r))]
                v = one_run(cmd, prefix, c["out_port"], log, a.warmup, a.secs, pd,
                            start_s=30 + c["sas"] // 500, in_port=c.get("in_port"),
                            check=c.get("check"), count=c.get("count", "opackets"))
                if isinstance(v, str):
                    errs.setdefault(i, []).append("%s (see %s)" % (v, log))
                    print("  run %d %-28s %-4s %-5s FAILED: %s" % (r, c["label"], c["dir"],
                                                                 c["traffic"], v))
                else:
                    res[i].append(v)
                    runv[(i, r)] = v
                    print("  run %d %-28s %-4s %-5s %6.3f Mpps wall %6.3f Mpps on CPU "
                          "(%.0f%% CPU: %s)"
                          % (r, c["label"], c["dir"], c["traffic"], v[0] / 1e6, v[1] / 1e6,
                             100 * v[2], "+".join("%.0f" % (100 * x) for x in v[3])),
                          flush=True)
        hz, hz_src = tsc_hz()
        rows = []
        for i, c in enumerate(cases):
            v = res[i]
            row = {k: c[k] for k in ("label", "app", "pmd", "mode", "dir", "traffic", "sas",
                                     "workers")}
            row["dist"] = c.get("dist", "")
            row["loop"] = c.get("loop", "")
            row["runs"] = len(v)
            if v:
                w = statistics.median(x[0] for x in v)
                u = statistics.median(x[1] for x in v)
                row.update(mpps_wall="%.4f" % (w / 1e6), mpps_cpu="%.4f" % (u / 1e6),
                           cycles_pkt_wall="%.0f" % (hz / w) if hz else "",
                           cycles_pkt_cpu="%.0f" % (hz / u) if hz else "",
                           cpu_share="%.2f" % statistics.median(x[2] for x in v),
                           mpps_cpu_best="%.4f" % (max(x[1] for x in v) / 1e6),
                           thread_cpu="+".join(
                               "%.2f" % statistics.median(x[3][j] if j < len(x[3]) else 0
                                                          for x in v)
                               for j in range(c["workers"])),
                           start_s="%.1f" % statistics.median(x[4] for x in v),
                           mpps_in_cpu="%.4f" % (statistics.median(x[5] for x in v) / 1e6)
                           if v[0][5] is not None else "")
            else:
                failed += 1
                row.update(mpps_wall="", mpps_cpu="", cycles_pkt_wall="", cycles_pkt_cpu="",
                           cpu_share="", mpps_cpu_best="", thread_cpu="", start_s="",
                           mpps_in_cpu="")
            rows.append(row)
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            wr.writeheader()
            wr.writerows(rows)
        report(rows, cases, hz, hz_src, a)
        report_axis(rows, a)
        report_cluster(cases, runv, hz, a)
        plot(rows, a)
        plot_axis(rows, a)
        for i, e in errs.items():
            print("FAILED runs of %s %s %s: %s" % (cases[i]["label"], cases[i]["dir"],
                                                  cases[i]["traffic"], "; ".join(e)))
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    return 1 if failed else 0


def report(rows, cases, hz, hz_src, a):
    print()
    print("TSC %.3f GHz (%s); %d CPUs; medians of %d runs; Mpps = output packets per second"
          % (hz / 1e9, hz_src, os.cpu_count(), a.runs))
    print("%-28s %-4s %-5s %9s %9s %9s %5s %9s" % ("case", "dir", "size", "Mpps wall",
                                                    "Mpps CPU", "cyc/pkt", "CPU", "best CPU"))
    for r in rows:
        print("%-28s %-4s %-5s %9s %9s %9s %5s %9s" % (
            r["label"], r["dir"], r["traffic"], r["mpps_wall"] or "-", r["mpps_cpu"] or "-",
            r["cycles_pkt_cpu"] or "-", r["cpu_share"] or "-", r["mpps_cpu_best"] or "-"))
    print("(cyc/pkt: TSC cycles per packet on CPU; CPU: CPU seconds per second the process got;")
    print(" best CPU: the highest on-CPU Mpps of the runs, the one least disturbed by others)")
    idx = {(r["label"], r["dir"], r["traffic"]): r for r in rows}

    def ratio(x, y, key):
        try:
            return float(idx[x][key]) / float(idx[y][key])
        except (KeyError, ValueError, ZeroDivisionError):
            return None
    print()
    print("ratios on CPU (wall): vecsec-gw / stock ipsec-secgw + aesni_mb, same mode; "
          "targets >= 2x at 64 B and IMIX, >= 1.6x at 1400 B")
    for d in ("out", "in"):
        for t in a.traffic:
            parts = []
            for gwl, sl in (("vecsec-gw vecsec", "secgw aesni_mb"),
                            ("vecsec-gw vecsec cpu", "secgw aesni_mb cpu")):
                rc, rw = ratio((gwl, d, t), (sl, d, t), "mpps_cpu"), \
                    ratio((gwl, d, t), (sl, d, t), "mpps_wall")
                if rc is not None:
                    parts.append("%s/%s %.2fx (%.2fx)" % (gwl[10:], sl[6:], rc, rw or 0))
            if parts:
                print("  %-3s %-5s %s" % (d, t, "; ".join(parts)))
    many = " %d SAs" % MANY
    for d in ("out", "in"):
        for app in ("vecsec-gw", "base"):
            rc = ratio((app + " vecsec" + many, d, "64"), (app + " vecsec", d, "64"),
                       "mpps_cpu")
            rw = ratio((app + " vecsec" + many, d, "64"), (app + " vecsec", d, "64"),
                       "mpps_wall")
            rb = ratio((app + " vecsec" + many, d, "64"), (app + " vecsec", d, "64"),
                       "mpps_cpu_best")
            if rc is not None:
                print("  %s %d SAs / 1 SA, %-3s 64 B: %.2f on CPU, %.2f best on CPU (%.2f wall); "
                      "target >= 0.90" % (app, MANY, d, rc, rb or 0, rw or 0))
        for app, sas in (("vecsec-gw", ""), ("vecsec-gw", many), ("base", "")):
            nw = "%s vecsec %d workers%s" % (app, a.workers, sas)
            one = app + " vecsec" + sas
            rw = ratio((nw, d, "64"), (one, d, "64"), "mpps_wall")
            rc = ratio((nw, d, "64"), (one, d, "64"), "mpps_cpu")
            if rw is None or rc is None:
                continue
            # on CPU: packets per CPU second of the whole process; N workers that each
            # had a core of their own would reach N times their on-CPU rate
            print("  %s %d workers / 1%s, %-3s 64 B: %.2f wall with %s (%s) / %s CPUs; "
                  "per CPU second %.2f, so %.2fx if each worker had its own core; "
                  "target >= %.1f"
                  % (app, a.workers, sas, d, rw, idx[(nw, d, "64")]["cpu_share"] or "-",
                     idx[(nw, d, "64")]["thread_cpu"] or "-",
                     idx[(one, d, "64")]["cpu_share"] or "-", rc, a.workers * rc,
                     0.9 * a.workers))
    for d in ("out", "in"):
        for t in a.traffic:
            for app in ("vecsec-gw", "base"):
                rc = ratio((app + " vecsec proto", d, t), (app + " vecsec", d, t), "mpps_cpu")
                if rc is not None:
                    print("  %s lookaside-protocol / lookaside-none, %-3s %-5s: %.2f on CPU"
                          % (app, d, t, rc))
            rc = ratio(("vecsec-gw vecsec proto", d, t), ("base vecsec proto", d, t),
                       "mpps_cpu")
            if rc is not None:
                print("  lookaside-protocol this build / base, %-3s %-5s: %.3f on CPU "
                      "(%.3f best on CPU)" % (d, t, rc, ratio(
                          ("vecsec-gw vecsec proto", d, t), ("base vecsec proto", d, t),
                          "mpps_cpu_best") or 0))
    for d in ("out", "in"):
        for t in a.traffic:
            rc = ratio(("vecsec-gw native", d, t), ("base native", d, t), "mpps_cpu")
            if rc is not None:
                print("  native this build / base, %-3s %-5s: %.3f on CPU (%.3f best on CPU)"
                      % (d, t, rc, ratio(("vecsec-gw native", d, t), ("base native", d, t),
                                         "mpps_cpu_best") or 0))
    report_native(idx, ratio, a)
    print()
    print("reproducing command lines (FILES: the traffic and config files this script writes "
          "in /dev/shm and removes at the end; the other sizes and directions change only "
          "the rx_pcap file and which port is net_null):")
    seen = set()
    for c in cases:
        key = (c["label"], c["sas"], c["workers"])
        if key in seen:
            continue
        seen.add(key)
        print("  # %s (%s, %s)" % (c["label"], c["dir"], c["traffic"]))
        print("  " + " ".join(shlex.quote(x) for x in c["mk"]("bench-gw")))


def report_cluster(cases, runv, hz, a):
    """
    The active/active cluster: (b) + (c) over (a), per run (the three ran one after
    the other) and as the median of the runs; the cycles of a filter drop.
    """
    if not a.cluster:
        return
    idx = {(c["label"], c["dir"], c["traffic"]): i for i, c in enumerate(cases)}
    print()
    print("active/active cluster, %d peers in %d segments (vecsec-gw + crypto_vecsec "
          "lookaside, 1 worker): (a) %s, (b) %s, (c) %s; Mpps = packets carried per CPU "
          "second; cluster = (b) + (c): two nodes, each on a core of its own, every frame "
          "to both; ideal 2.00x minus the filter's drops" % (
              len(a.cl_peers), CL_SEGS, CL_CASES[0][0], CL_CASES[1][0], CL_CASES[2][0]))
    print("%-4s %-5s %4s %8s %8s %8s %8s %8s  %-17s %-17s %-12s %s" % (
        "dir", "size", "runs", "(a)", "(b)", "(c)", "(b)+(c)", "/ (a)", "cyc/rx a b c",
        "carried a b c", "drop cyc b c", "none cyc/rx"))
    for d in ("out", "in"):
        for t in a.traffic:
            ii = [idx.get((lab, d, t)) for lab, _ in CL_CASES]
            if None in ii:
                continue
            per = []            # per run: [(out/CPU s, in/CPU s)] of (a), (b), (c)
            for r in range(a.runs):
                v = [runv.get((i, r)) for i in ii]
                if None not in v and all(x[5] for x in v):
                    per.append([(x[1], x[5]) for x in v])
            if not per:
                print("%-4s %-5s    0 (no run with all three cases)" % (d, t))
                continue
            med = statistics.median
            rate = [med(p[j][0] for p in per) for j in range(3)]
            ratio = med((p[1][0] + p[2][0]) / p[0][0] for p in per)
            cyc_rx = [med(hz / p[j][1] for p in per) for j in range(3)]
            carried = [med(p[j][0] / p[j][1] for p in per) for j in range(3)]
            # (b) or (c): a received packet costs cyc_rx; the share f carried costs what a
            # packet of (a) does (all carried there), the rest a drop:
            # cyc_rx = f * cyc_a + (1 - f) * drop
            drops = []
            for j in (1, 2):
                xs = []
                for p in per:
                    f = p[j][0] / p[j][1]
                    if f < 0.99:
                        xs.append((hz / p[j][1] - f * hz / p[0][1]) / (1 - f))
                drops.append(med(xs) if xs else None)
            # the node with no segment: every received packet a filter drop
            i0 = idx.get((CL_NONE[0], d, t))
            nv = [runv[(i0, r)][1] for r in range(a.runs) if (i0, r) in runv]
            none = "%.0f" % med(hz / x for x in nv) if nv else "-"
            print("%-4s %-5s %4d %8.3f %8.3f %8.3f %8.3f %7.2fx  %5.0f %5.0f %5.0f  "
                  "%.2f %.2f %.2f   %-12s %s" % (
                      d, t, len(per), rate[0] / 1e6, rate[1] / 1e6, rate[2] / 1e6,
                      (rate[1] + rate[2]) / 1e6, ratio, cyc_rx[0], cyc_rx[1], cyc_rx[2],
                      carried[0], carried[1], carried[2],
                      " ".join("%.0f" % x if x is not None else "-" for x in drops), none))
    print("(/ (a): the median over runs of ((b) + (c)) / (a) in the same run; cyc/rx: TSC "
          "cycles on CPU per received packet; carried: packets out / packets in; drop cyc: "
          "cycles of one packet dropped as inactive_segment, from cyc/rx of (b) or (c) less "
          "its carried share at (a)'s cost; none cyc/rx: the same measured directly, "
          "a node with no segment dropping every packet: rx, classification, the filter, "
          "the free)")


def report_native(idx, ratio, a):
    """Native SAs (issue #28's targets): above the I/O floor against lookaside-protocol,
    and against the stock ipsec-secgw with crypto_aesni_mb (its better mode)."""
    if not a.native:
        return
    print()
    print("native SAs (type native): cycles per packet above the I/O floor, native / "
          "lookaside-protocol (target <= 0.5 at 64 B); on-CPU Mpps native / stock ipsec-secgw "
          "+ aesni_mb, its better of lookaside and cpu-crypto (targets >= 2.5x 64 B, 1.5x IMIX, "
          "1.25x 1400 B)")
    for d in ("out", "in"):
        for t in a.traffic:
            parts = []
            try:
                fl = float(idx[("I/O floor (gw bypass)", "out", t)]["cycles_pkt_cpu"])
                nat = float(idx[("vecsec-gw native", d, t)]["cycles_pkt_cpu"]) - fl
                pro = float(idx[("vecsec-gw vecsec proto", d, t)]["cycles_pkt_cpu"]) - fl
                parts.append("above floor %.0f vs %.0f cycles: %.2f" % (nat, pro, nat / pro))
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                pass
            best = [r for r in (ratio(("vecsec-gw native", d, t), (sl, d, t), "mpps_cpu")
                                for sl in ("secgw aesni_mb", "secgw aesni_mb cpu"))
                    if r is not None]
            if best:
                parts.append("/ secgw aesni_mb %.2fx" % min(best))
            rl = ratio(("vecsec-gw native", d, t), ("vecsec-gw vecsec", d, t), "mpps_cpu")
            if rl is not None:
                parts.append("/ vecsec-gw lookaside %.2fx" % rl)
            if parts:
                print("  %-3s %-5s %s" % (d, t, "; ".join(parts)))


def axis_rows(rows):
    """{(dir, traffic, sas, dist, loop): row} of the SA-count axis."""
    return {(r["dir"], r["traffic"], r["sas"], r["dist"], r["loop"]): r for r in rows
            if r["label"].startswith("axis")}


def axis_ratio(ax, d, t, n, dist, loop, key):
    """Rate of the point / rate of 1 SA with the same loop, or None."""
    r, base = ax.get((d, t, n, dist, loop)), ax.get((d, t, 1, "-", loop))
    try:
        return float(r[key]) / float(base[key])
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def report_axis(rows, a):
    ax = axis_rows(rows)
    if not ax:
        return
    print()
    print("SA-count axis: vecsec-gw + crypto_vecsec (%s), ChaCha20-Poly1305 tunnels, " % a.sa_type +
          "1 worker; ratio = Mpps of N SAs / Mpps of 1 SA over a loop of the same length, on "
          "CPU (wall); targets: 1,000 SAs >= 0.95, 100,000 SAs >= 0.85")
    mp = getattr(a, "mem_probe", None)
    if mp:
        print("this machine's memory (memprobe, %s pages): a random line costs %.1f cycles with "
              "32 in flight, %.0f cycles alone (latency); +cyc: cycles per packet over 1 SA, "
              "lines: +cyc in such lines" % ("2 MiB" if mp["huge"] else "4 KiB", mp["line"],
                                               mp["latency"]))
        l3 = l3_mib()
        if l3 is not None and l3 >= 256:
            # memprobe reads 512 MiB; the per-SA state of 100,000 SAs is a few hundred MiB
            print("(this CPU's last-level cache holds %.0f MiB: memprobe's 512 MiB and the "
                  "per-SA state of the larger points partly stay in it, so a \"line from "
                  "memory\" here is in part a cache hit)" % l3)
    print("%-4s %-5s %7s %-8s %7s %9s %9s %8s %7s %15s %8s %6s %5s" % (
        "dir", "size", "SAs", "traffic", "loop", "Mpps CPU", "Mpps wall", "cyc/pkt",
        "SAs hit", "ratio CPU(wall)", "start s", "+cyc", "lines"))
    for d in ("out", "in"):
        for t in a.sa_traffic:
            for n, dist, loop in ax_points(a):
                r = ax.get((d, t, n, dist, loop))
                if r is None:
                    continue
                rc = axis_ratio(ax, d, t, n, dist, loop, "mpps_cpu")
                rw = axis_ratio(ax, d, t, n, dist, loop, "mpps_wall")
                base = ax.get((d, t, 1, "-", loop))
                try:
                    extra = float(r["cycles_pkt_cpu"]) - float(base["cycles_pkt_cpu"])
                except (TypeError, ValueError):
                    extra = None
                print("%-4s %-5s %7d %-8s %7d %9s %9s %8s %6.0f%% %15s %8s %6s %5s" % (
                    d, t, n, dist, loop, r["mpps_cpu"] or "-", r["mpps_wall"] or "-",
                    r["cycles_pkt_cpu"] or "-", 100 * a.reach.get((n, dist, loop), 0),
                    "%.3f (%.3f)" % (rc, rw) if rc is not None and rw is not None else "-",
                    r["start_s"] or "-", "%.0f" % extra if extra is not None and n > 1 else "-",
                    "%.1f" % (extra / mp["line"]) if extra is not None and n > 1 and mp
                    else "-"))
    print("(loop: packets replayed, each SA's state as cold as in a real SA set of that size; "
          "SAs hit: the share of the N SAs the loop reaches; start s: from exec to the first "
          "packet out, loading the SAs included)")
    bx = {(r["dir"], r["traffic"], r["sas"], r["dist"], r["loop"]): r for r in rows
          if r["label"].startswith("base axis")}
    if bx:
        print("this build / base (BENCH_GW_BASE), each point run right after the other: "
              "cycles per packet on CPU, each build's ratio to its own 1 SA")
        for d in ("out", "in"):
            for t in a.sa_traffic:
                for n, dist, loop in ax_points(a):
                    r, b = ax.get((d, t, n, dist, loop)), bx.get((d, t, n, dist, loop))
                    if r is None or b is None or not r["cycles_pkt_cpu"] or \
                            not b["cycles_pkt_cpu"]:
                        continue
                    rb = axis_ratio(bx, d, t, n, dist, loop, "mpps_cpu")
                    rc = axis_ratio(ax, d, t, n, dist, loop, "mpps_cpu")
                    print("  %-3s %-5s %7d %-8s %7d  cycles %6s / %6s = %.3f   ratio %s / %s" % (
                        d, t, n, dist, loop, r["cycles_pkt_cpu"], b["cycles_pkt_cpu"],
                        float(r["cycles_pkt_cpu"]) / float(b["cycles_pkt_cpu"]),
                        "%.3f" % rc if rc is not None else "-",
                        "%.3f" % rb if rb is not None else "-"))


def plot_axis(rows, a):
    ax = axis_rows(rows)
    if not ax:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for axx, d in zip(axes, ("out", "in")):
        for t in a.sa_traffic:
            for dist in a.sa_dist:
                xs, ys, ws = [], [], []
                for n, pd, loop in ax_points(a):
                    if n == 1 or pd != dist:
                        continue
                    rc = axis_ratio(ax, d, t, n, dist, loop, "mpps_cpu")
                    rw = axis_ratio(ax, d, t, n, dist, loop, "mpps_wall")
                    if rc is not None and rw is not None:
                        xs.append(n)
                        ys.append(rc)
                        ws.append(rw)
                if xs:
                    line, = axx.plot([1] + xs, [1.0] + ys, "o-", label="%s, %s" % (
                        {"64": "64 B", "imix": "IMIX", "1400": "1400 B"}[t], dist))
                    axx.plot(xs, ws, "x:", color=line.get_color())
        axx.axhline(0.95, color="grey", lw=0.5)
        axx.axhline(0.85, color="grey", lw=0.5, ls="--")
        axx.set_xscale("log")
        axx.set_xlabel("SAs")
        axx.set_title("%s: N SAs / 1 SA (o on CPU, x wall)" %
                      ("outbound (encrypt)" if d == "out" else "inbound (decrypt)"))
        axx.grid(alpha=0.3)
    axes[0].set_ylabel("rate relative to 1 SA, same loop")
    if axes[1].get_legend_handles_labels()[0]:
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    png = os.path.splitext(a.out)[0] + "-sas.png"
    fig.savefig(png, dpi=100)
    print("bench-gw: wrote %s" % png)


def plot(rows, a):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench-gw: no matplotlib, no PNG")
        return
    labels = []
    for r in rows:
        if r["label"] not in labels and r["sas"] == 1 and r["workers"] == 1 and \
                not r["label"].startswith("axis"):
            labels.append(r["label"])
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), sharey=True)
    for ax, d in zip(axes, ("out", "in")):
        n = len(labels)
        wdt = 0.8 / max(n, 1)
        for j, lab in enumerate(labels):
            xs, ys, ws = [], [], []
            for k, t in enumerate(a.traffic):
                for r in rows:
                    if r["label"] == lab and r["dir"] == d and r["traffic"] == t and \
                            r["mpps_cpu"]:
                        xs.append(k + (j - (n - 1) / 2) * wdt)
                        ys.append(float(r["mpps_cpu"]))
                        ws.append(float(r["mpps_wall"]))
            ax.bar(xs, ys, wdt, label=lab)
            ax.plot(xs, ws, "k_", markersize=8)
        ax.set_xticks(range(len(a.traffic)))
        ax.set_xticklabels([{"64": "64 B", "imix": "IMIX", "1400": "1400 B"}[t]
                            for t in a.traffic])
        ax.set_title("%s: ChaCha20-Poly1305 tunnel, 1 SA, 1 lcore" %
                     ("outbound (encrypt)" if d == "out" else "inbound (decrypt)"))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("Mpps per CPU second (bars); wall (ticks)")
    if axes[1].get_legend_handles_labels()[0]:
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    png = os.path.splitext(a.out)[0] + ".png"
    fig.savefig(png, dpi=100)
    print("bench-gw: wrote %s and %s" % (a.out, png))


if __name__ == "__main__":
    sys.exit(main())
