#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw IP fragments against scapy (scapy.layers.ipsec, ChaCha20-Poly1305),
no network needed: the gateway's two ports are net_pcap devices.

  port 0 protected (clear):  rx clear_in.pcap  -> tx clear_out.pcap
  port 1 unprotected (ESP): rx esp_in.pcap    -> tx esp_out.pcap

Inbound: scapy encrypts, then fragments the ESP packets (IPv4 fragment(),
IPv6 fragment6(); tunnel, NAT-T) in order, reversed, with a duplicate, with
an overlap, with a piece missing, with too many pieces, plus bogus
fragments. The gateway reassembles, decrypts, and fragments again what is
larger than the clear port's MTU: scapy's defragment gives back exactly the
originals; the broken datagrams are dropped, each fragment counted once
under `frag`.

Outbound: clear datagrams arrive fragmented (the SP rule names a port, so
the gateway must reassemble to classify), and clear packets that fit the
MTU but not once encrypted. The gateway encrypts and fragments the ESP
packets (IPv4 post-fragmentation, IPv6 Fragment header); scapy's defragment
+ decrypt gives back the originals. IPv4 with DF that outgrows the MTU stays
too_big.

Every counter is checked, and rx + fragments made - fragments taken ==
tx + drops (every frame accounted once); no mbuf may be left out of its
pool at exit. Then: a datagram with a piece missing, counted as `frag`
mid-run (SIGUSR1) with --frag-ttl 200 ms, only at exit with the default
10 s; option errors; two storms of random, colliding, duplicated and
overlapping IPv4/IPv6 fragments with real datagrams' pieces mixed in
(--reassemble 16: the table fills): clean exit, no leak, exact accounting.

usage: interop_frag.py GATEWAY_BINARY [--cpu-crypto] [--vdev CRYPTO_VDEV]
"""
import os
import signal
import subprocess
import sys
import tempfile

from scapy.all import (IP, IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, UDP, Raw, rdpcap, wrpcap, raw,
                       fragment, fragment6, defragment, defragment6)
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import eth, hexkey, norm, eal_cleanup  # noqa: E402

TTL_NS = 200000000      # --frag-ttl: 200 ms, well inside --idle-exit


def key(tag):
    """A 36-byte ChaCha20-Poly1305 key (with salt), as interop_scapy.py makes them."""
    return gwtest.keygen(37, 11, 5)(tag, 36)


def body(tag, size):
    return bytes(((tag * 13 + i * 7) ^ (i >> 8)) & 0xff for i in range(size))


class Sa:
    """One tunnel (or transport) SA, ChaCha20-Poly1305, as the gateway and scapy see it."""

    def __init__(self, d, spi, mode, fam, net, peer=None, gwa=None, natt=False, sport=None):
        self.d, self.spi, self.mode, self.fam, self.net = d, spi, mode, fam, net
        self.key = key(spi & 0xff)
        self.natt = natt
        ipv = "ipv4" if fam == 4 else "ipv6"
        ports = " dport %d:%d" % (sport, sport) if sport is not None else ""
        self.conf = "sp %s %s esp protect %d pri 1 dst %s proto 17:17%s\n" % (ipv, d, spi, net, ports)
        self.conf += "sa %s %d aead_algo chacha20-poly1305 aead_key %s mode %s" % (
            d, spi, hexkey(self.key), mode)
        hdr = None
        if mode != "transport":
            s, t = (peer, gwa) if d == "in" else (gwa, peer)
            self.conf += " src %s dst %s" % (s, t)
            hdr = IPv6(src=s, dst=t) if mode == "ipv6-tunnel" else IP(src=s, dst=t)
        if natt:
            self.conf += " udp-encap"
        self.conf += "\n"
        self.sa = SecurityAssociation(ESP, spi=spi, crypt_algo="CHACHA20-POLY1305",
                                      crypt_key=self.key, tunnel_header=hdr,
                                      nat_t_header=UDP(sport=4500, dport=4500) if natt else None)


def frags4(p, size=1480):
    return [IP(raw(f)) for f in fragment(p, fragsize=size)]


def frags6(p, fid, mtu=1280):
    """IPv6 fragments of p (a Fragment header with id fid is inserted)."""
    q = p.copy()
    q = IPv6(raw(q[IPv6].__class__(src=q.src, dst=q.dst, nh=44) / IPv6ExtHdrFragment(
        id=fid, nh=q.nh) / q[IPv6].payload))
    return [IPv6(raw(f)) for f in fragment6(q, mtu)]


def defrag6(pkts):
    """Group IPv6 fragments by (src, dst, id), scapy's defragment6 on each group."""
    groups, out = {}, []
    for p in pkts:
        if IPv6ExtHdrFragment in p:
            groups.setdefault((p.src, p.dst, p[IPv6ExtHdrFragment].id), []).append(p)
        else:
            out.append(p)
    for g in groups.values():
        out.append(IPv6(raw(defragment6(g))))
    return out, len(groups)


def split_within_mtu(path, what):
    """
    The IPv4 and IPv6 packets of a pcap file the gateway wrote, and False
    (with a FAIL line) if a frame is larger than the MTU (1500).
    """
    frames = rdpcap(path)
    big = [f for f in frames if len(f) - 14 > 1500]
    if big:
        print("FAIL: %d %s frames larger than the MTU" % (len(big), what))
    return ([IP(raw(f.payload)) for f in frames if IP in f],
            [IPv6(raw(f.payload)) for f in frames if IPv6 in f], not big)


def ttl_phase(gwbin, extra_eal, extra_app, tmp, ttl_ns):
    """
    A datagram with a piece missing, the gateway left running: the counters
    printed on SIGUSR1 mid-run show its 2 fragments as frag drops only if
    --frag-ttl expired them (not the flush at exit). Mid-run is after both
    fragments were received (telemetry) and, with a --frag-ttl, after the
    drops show in telemetry (the test fails if they never do while it
    runs); without, at once (the default 10 s is far off). SIGTERM ends the
    run. Returns (mid-run, at exit).
    """
    p = IP(src="172.31.1.9", dst="172.31.2.9", id=0x77, proto=50) / Raw(body(7, 3000))
    f = frags4(p)
    wrpcap(os.path.join(tmp, "ttl_esp.pcap"), [eth(f[0]), eth(f[2])])
    wrpcap(os.path.join(tmp, "ttl_clear.pcap"), [eth(IP(dst="10.9.9.9") / UDP())])
    with open(os.path.join(tmp, "ttl.cfg"), "w") as fh:
        fh.write("rt ipv4 dst 10.0.0.0/8 port 0\n")
    prefix = gwtest.file_prefix("fragttl")
    cmd = gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(tmp, ("ttl_clear.pcap", "ttl_co.pcap"),
                                                         ("ttl_esp.pcap", "ttl_eo.pcap")),
                        extra_eal, ["-f", os.path.join(tmp, "ttl.cfg"), "-u", "2", "--quiet"] +
                        (["--frag-ttl", str(ttl_ns)] if ttl_ns else []) + extra_app)

    def tel(key):
        return gwtest.tel_total(prefix, key)

    g = gwtest.Gateway(cmd, name="gateway (--frag-ttl %s)" % (ttl_ns or "default"))
    try:
        if not g.wait_ready() or \
                not gwtest.wait_until(lambda: gwtest.tel_port(prefix, 1, "rx") >= 2, "the 2 fragments", gws=[g]) \
                or (ttl_ns and not gwtest.wait_until(lambda: tel("frag") >= 2,
                                                     "--frag-ttl to expire them", gws=[g])):
            return None
        g.signal(signal.SIGUSR1)
        if not g.wait_line("vecsec-gw: stats after"):
            return None
        rc, out = g.stop()
    finally:
        g.kill()
        eal_cleanup(prefix)
    n = [int(l.split(" frag ")[1].split()[0]) for l in out.splitlines()
         if "drops:" in l and " frag " in l]
    if rc != 0 or len(n) != 2:
        print(out)
        return None
    return n[0], n[1]


def storm(gwbin, extra_eal, extra_app, tmp, seed, count):
    """
    Random IPv4/IPv6 fragments of a few datagram keys (so they collide):
    random offsets, lengths, MF, duplicates, overlaps, with pieces of one
    real ESP datagram mixed in. The gateway must exit cleanly, return every
    mbuf, and account every frame once.
    """
    import random
    rnd = random.Random(seed)
    frames = []
    for i in range(count):
        size = rnd.choice([rnd.randint(1, 24), rnd.randint(1, 1480), 8 * rnd.randint(1, 185)])
        ofs = rnd.choice([0, 1, 185, 370, rnd.randint(0, 8191), rnd.randint(0, 16)])
        mf = rnd.random() < 0.6
        pl = bytes(rnd.getrandbits(8) for _ in range(min(size, 64))) * (size // 64 + 1)
        if rnd.random() < 0.6:
            p = IP(src="172.31.1.1", dst="172.31.2.1", id=rnd.randint(1, 6), proto=50,
                   flags="MF" if mf else 0, frag=ofs) / Raw(pl[:size])
        else:
            p = IPv6(src="fd00:aa::1", dst="fd00:bb::1") / IPv6ExtHdrFragment(
                id=rnd.randint(1, 6), offset=ofs, m=int(mf), nh=50) / Raw(pl[:size])
        frames.append(eth(p))
        if rnd.random() < 0.1:
            frames.append(frames[rnd.randrange(len(frames))])      # a duplicate, anywhere
    # whole datagrams (unknown SPI: no_sa once reassembled), their pieces spread in the storm
    for k in range(30):
        size = rnd.randint(100, 9000)
        if k % 2:
            p = IP(src="172.31.1.1", dst="172.31.2.1", id=100 + k) / ESP(spi=0x999, seq=k + 1,
                                                                          data=b"z" * size)
            fr = frags4(p, 8 * rnd.randint(60, 185))
        else:
            p = IPv6(src="fd00:aa::1", dst="fd00:bb::1") / ESP(spi=0x999, seq=k + 1,
                                                               data=b"z" * size)
            fr = frags6(p, 100 + k, rnd.randint(1280, 1500))
        for x in fr:
            frames.insert(rnd.randrange(len(frames) + 1), eth(x))
    wrpcap(os.path.join(tmp, "storm_esp.pcap"), frames)
    wrpcap(os.path.join(tmp, "storm_clear.pcap"), frames[: count // 4])
    with open(os.path.join(tmp, "storm.cfg"), "w") as fh:
        fh.write("rt ipv4 dst 10.0.0.0/8 port 0\n")
    prefix = gwtest.file_prefix("fragstorm")
    stats = os.path.join(tmp, "storm.json")
    cmd = gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(tmp, ("storm_clear.pcap", "st_co.pcap"),
                                                         ("storm_esp.pcap", "st_eo.pcap")),
                        extra_eal, gwtest.pcap_run(os.path.join(tmp, "storm.cfg"), stats) +
                        ["--frag-ttl", "50000000", "--reassemble", "16"] + extra_app)
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                           universal_newlines=True)
    finally:
        eal_cleanup(prefix)
    if r.returncode != 0 or "still in use" in r.stdout:
        print(r.stdout)
        return "exit %d%s" % (r.returncode, ", mbufs leaked" if "still in use" in r.stdout else "")
    st = gwtest.load_stats(stats)
    rx, tx, drops = gwtest.port_totals(st)
    lhs = gwtest.frames_moved(st)
    if rx != len(frames) + count // 4 or lhs != tx + drops:
        return "rx %d (%d frames) tx %d drops %d reassembled %d/%d" % (
            rx, len(frames) + count // 4, tx, drops, st["reassembled"], st["reasm_frags"])
    print("ok   fragment storm seed %d: %d random fragments (%d reassembled into %d), "
          "frag drops %d, no mbuf leaked, every frame accounted once"
          % (seed, rx, st["reasm_frags"], st["reassembled"], st["drops"]["frag"]))
    return None


def main():
    gwbin = sys.argv[1]
    extra_app, extra_eal, _ = gwtest.gw_args(sys.argv[2:])

    # inbound SAs (ESP -> clear port 0), outbound SAs (clear -> ESP port 1)
    in4 = Sa("in", 0x201, "ipv4-tunnel", 4, "10.200.1.0/24", "172.31.1.1", "172.31.2.1")
    in6 = Sa("in", 0x202, "ipv6-tunnel", 6, "fd02:1::/48", "fd00:aa::1", "fd00:bb::1")
    innt = Sa("in", 0x203, "ipv4-tunnel", 4, "10.200.3.0/24", "172.31.1.3", "172.31.2.3",
              natt=True)
    out4 = Sa("out", 0x301, "ipv4-tunnel", 4, "10.100.1.0/24", "172.31.1.1", "172.31.2.1",
              sport=2000)
    out6 = Sa("out", 0x302, "ipv6-tunnel", 6, "fd01:1::/48", "fd00:aa::1", "fd00:bb::1",
              sport=2000)
    outtr = Sa("out", 0x303, "transport", 4, "10.100.3.0/24")
    sas = [in4, in6, innt, out4, out6, outtr]
    conf = "".join(s.conf for s in sas)
    conf += "rt ipv4 dst 172.31.1.0/24 port 1\nrt ipv6 dst fd00:aa::/32 port 1\n"
    conf += "rt ipv4 dst 10.100.0.0/16 port 1\n"
    conf += "rt ipv4 dst 10.200.0.0/16 port 0\nrt ipv6 dst fd02::/16 port 0\n"
    conf += "neigh port 0 02:00:00:00:00:01\nneigh port 1 02:00:00:00:00:02\n"

    ids = iter(range(0x4000, 0x8000))
    exp = {"frag": 0, "too_big": 0}
    esp_in, in_want = [], []     # frames; clear packets the gateway must deliver (in any order)
    in_pkts = {s.spi: 0 for s in sas}

    def inner4(tag, size, dst, df=False):
        return IP(src="192.168.1.%d" % (tag % 250 + 1), dst=dst, id=next(ids),
                  flags="DF" if df else 0) / UDP(sport=1000 + tag, dport=2000) / Raw(body(tag, size))

    def enc4(s, p):
        e = s.sa.encrypt(p)
        e = IP(raw(e))
        e.id = next(ids)        # every datagram its own ID: fragments of two never mix
        del e.chksum
        return IP(raw(e))

    cases = []  # (name, frames, delivered clear packets, expected frag drops)

    # IPv4 tunnel: in order, reversed, a duplicate, larger than one mbuf (chained), bigger
    # than the clear port's MTU after decryption (fragmented again), DF on such a one
    def c4(name, size, order, extra_drop=0, deliver=True, df=False, fsize=1480, sa=in4):
        p = inner4(len(cases), size, "10.200.%d.7" % (3 if sa.natt else 1), df)
        fr = frags4(enc4(sa, p), fsize)
        fr = order(fr)
        cases.append((name, fr, [p] if deliver else [], extra_drop))
        if deliver:
            in_pkts[sa.spi] += 1
        return p

    c4("v4 in order", 2000, lambda f: f)
    c4("v4 reversed", 2500, lambda f: f[::-1])
    c4("v4 shuffled 3", 4000, lambda f: [f[1], f[2], f[0]])
    c4("v4 duplicated piece", 3000, lambda f: [f[0], f[1], f[1], f[2]], extra_drop=1)
    c4("v4 8000 B (chain, clear side refragmented)", 8000, lambda f: f)
    c4("v4 tiny pieces (8 fragments)", 700, lambda f: f, fsize=96)
    c4("v4 NAT-T", 3000, lambda f: f[::-1], sa=innt)
    # decrypted packet with DF larger than the clear port's MTU: too_big
    c4("v4 DF inner 3000 B -> too_big", 3000, lambda f: f, deliver=False, df=True)
    exp["too_big"] += 1

    # broken datagrams: dropped, every fragment counted under frag
    p = inner4(91, 3000, "10.200.1.7")
    f = frags4(enc4(in4, p))
    ov = f[1].copy()
    ov.frag -= 1                                   # starts 8 bytes early: overlaps piece 0
    ov = IP(raw(ov)[:20] + raw(f[0])[-8:] + raw(f[1])[20:])
    ov.len = None
    ov.chksum = None
    cases.append(("v4 overlapping", [f[0], IP(raw(ov)), f[2]], [], 3))
    p = inner4(92, 3000, "10.200.1.7")
    f = frags4(enc4(in4, p))
    cases.append(("v4 missing piece (timeout)", [f[0], f[2]], [], 2))
    p = inner4(93, 12000, "10.200.1.7")
    f = frags4(enc4(in4, p))
    cases.append(("v4 9 fragments (library limit 8)", f, [], len(f)))
    # a first piece of 8 bytes in front of a datagram too big for one mbuf: the headers
    # the gateway reads in place are not in the first mbuf -> dropped
    p = inner4(96, 2900, "10.200.1.7")
    e = enc4(in4, p)
    f = frags4(e, 1480)
    head = IP(raw(e))
    head.flags = "MF"
    head = IP(raw(head)[:head.ihl * 4] + raw(e)[head.ihl * 4:head.ihl * 4 + 8])
    head.len = None
    head.chksum = None
    tail = IP(raw(f[0]))
    tail.frag = 1
    tail = IP(raw(tail)[:20] + raw(f[0])[28:])
    tail.len = None
    tail.chksum = None
    fr = [IP(raw(head)), IP(raw(tail))] + f[1:]
    cases.append(("v4 8-byte first piece, 2.9 KB datagram", fr, [], len(fr)))
    bogus = IP(src=in4.sa.tunnel_header.src, dst=in4.sa.tunnel_header.dst, id=next(ids),
               flags="MF", proto=50) / Raw(b"\x00" * 13)      # MF, not a multiple of 8
    bogus2 = IP(src=in4.sa.tunnel_header.src, dst=in4.sa.tunnel_header.dst, id=next(ids),
                frag=8180, proto=50) / Raw(b"\x00" * 1000)    # past 64 KiB
    cases.append(("v4 bogus fragments", [IP(raw(bogus)), IP(raw(bogus2))], [], 2))

    # IPv6 tunnel
    def inner6(tag, size, df=False):
        return IPv6(src="fd09::%d" % tag, dst="fd02:1::7") / UDP(sport=1000 + tag, dport=2000) / \
            Raw(body(tag, size))

    def c6(name, size, order, extra_drop=0, deliver=True):
        p = inner6(len(cases), size)
        fr = order(frags6(IPv6(raw(in6.sa.encrypt(p))), next(ids)))
        cases.append((name, fr, [p] if deliver else [], extra_drop))
        if deliver:
            in_pkts[in6.spi] += 1

    c6("v6 in order", 2000, lambda f: f)
    c6("v6 reversed", 3000, lambda f: f[::-1])
    c6("v6 duplicated piece", 3000, lambda f: [f[0], f[1], f[1], f[2]], extra_drop=1)
    c6("v6 6000 B (chain, clear side refragmented)", 6000, lambda f: f)

    def hbh(f):
        """Hop-by-Hop before each Fragment header (unfragmentable part, RFC 8200 4.5)"""
        return [IPv6(raw(IPv6(src=x.src, dst=x.dst, nh=0) / IPv6ExtHdrHopByHop(nh=44) /
                         raw(x[IPv6ExtHdrFragment]))) for x in f]

    c6("v6 Hop-by-Hop before the Fragment header", 2500, lambda f: hbh(f)[::-1])
    p = inner6(94, 3000)
    f = frags6(IPv6(raw(in6.sa.encrypt(p))), next(ids))
    ov = raw(f[1])
    fh = IPv6(ov)[IPv6ExtHdrFragment]
    ovp = IPv6(ov)
    ovp[IPv6ExtHdrFragment].offset = fh.offset - 1
    ovp = IPv6(raw(ovp)[:48] + raw(f[0])[-8:] + raw(f[1])[48:])
    ovp.plen = None
    cases.append(("v6 overlapping (RFC 5722)", [f[0], IPv6(raw(ovp)), f[2]], [], 3))
    p = inner6(95, 3000)
    f = frags6(IPv6(raw(in6.sa.encrypt(p))), next(ids))
    cases.append(("v6 missing piece (timeout)", [f[1], f[2]], [], 2))

    for (name, fr, want, drops) in cases:
        esp_in += [eth(x) for x in fr]
        in_want += want
        exp["frag"] += drops

    # outbound: clear datagrams fragmented on the protected side, and whole packets that
    # outgrow the MTU once encrypted
    clear_in, out_want = [], []
    n_clear_frag = 0
    for k, size in enumerate([1400, 1472, 3000, 6000]):
        p = IP(src="192.168.9.%d" % (k + 1), dst="10.100.1.7", id=next(ids)) / \
            UDP(sport=3000 + k, dport=2000) / Raw(body(100 + k, size))
        out_want.append((out4, p))
        clear_in += [eth(x) for x in (frags4(p) if size > 1472 else [p])]
        n_clear_frag += size > 1472
    for k, size in enumerate([1200, 3000]):
        p = IPv6(src="fd09::%d" % (k + 1), dst="fd01:1::7") / \
            UDP(sport=3000 + k, dport=2000) / Raw(body(110 + k, size))
        out_want.append((out6, p))
        clear_in += [eth(x) for x in (frags6(p, next(ids), 1500) if size > 1400 else [p])]
        n_clear_frag += size > 1400
    # transport, no DF: the source's datagram is fragmented with its own ID
    p = IP(src="192.168.9.50", dst="10.100.3.7", id=next(ids)) / UDP(sport=3050, dport=2000) / \
        Raw(body(120, 1470))
    out_want.append((outtr, p))
    clear_in.append(eth(p))
    # transport, DF: cannot be fragmented -> too_big
    p = IP(src="192.168.9.51", dst="10.100.3.7", id=next(ids), flags="DF") / \
        UDP(sport=3051, dport=2000) / Raw(body(121, 1470))
    clear_in.append(eth(p))
    exp["too_big"] += 1
    out_pkts = {s.spi: sum(1 for (t, _) in out_want if t is s) for s in (out4, out6, outtr)}
    out_pkts[outtr.spi] += 1    # the DF one is encrypted, then too_big on tx

    prefix = gwtest.file_prefix("frag")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-frag-")
    ok = True
    try:
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)
        wrpcap(os.path.join(tmp, "clear_in.pcap"), clear_in)
        wrpcap(os.path.join(tmp, "esp_in.pcap"), esp_in)
        stats = os.path.join(tmp, "stats.json")
        cmd = gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(tmp), extra_eal,
                            gwtest.pcap_run(cfg, stats, idle="0.6") +
                            ["--frag-ttl", str(TTL_NS), "--mtu", "1500"] + extra_app)
        print(" ".join(cmd))
        r = gwtest.run_gw(cmd)
        if r.returncode != 0:
            return 1
        if "still in use" in r.stdout:
            print("FAIL: mbufs leaked")
            ok = False

        # inbound: the clear port's frames, each within the MTU, defragmented by scapy
        v4, v6, ok1 = split_within_mtu(os.path.join(tmp, "clear_out.pcap"), "clear")
        ok = ok1 and ok
        nfrag4 = sum(1 for p in v4 if p.flags.MF or p.frag)
        got = [norm(p) for p in defragment(v4)]
        g6, nfrag6 = defrag6(v6)
        got += [norm(p) for p in g6]
        want = [norm(p) for p in in_want]
        if sorted(got) != sorted(want):
            print("FAIL: inbound: %d packets out, %d expected, or different bytes"
                  % (len(got), len(want)))
            missing = [i for i, w in enumerate(want) if w not in got]
            print("  not delivered: %s" % [in_want[i].summary() + " len %d" % len(want[i])
                                         for i in missing])
            ok = False
        else:
            print("ok   inbound: %d fragmented ESP datagrams (%d cases) decrypt to the originals,"
                  " %d IPv4 + %d IPv6 clear fragments out" % (len(want), len(cases), nfrag4,
                                                             nfrag6))
            for (name, fr, w, d) in cases:
                print("       %-45s %2d fragments  %s" % (name, len(fr), "delivered" if w else
                                                          "dropped (%d frag)" % d if d else
                                                          "too_big"))

        # outbound: defragment what the gateway sent, then decrypt
        v4, v6, ok1 = split_within_mtu(os.path.join(tmp, "esp_out.pcap"), "ESP")
        ok = ok1 and ok
        ids4 = {}
        for p in v4:
            if p.flags.MF or p.frag:
                ids4.setdefault((p.src, p.dst, p.id), 0)
                ids4[(p.src, p.dst, p.id)] += 1
        esp = [IP(raw(p)) for p in defragment(v4)]
        g6, n6 = defrag6(v6)
        esp += g6
        by_spi = {s.spi: s for s in (out4, out6, outtr)}
        got = []
        for p in esp:
            if ESP not in p or p[ESP].spi not in by_spi:
                print("FAIL: unexpected packet on the ESP port:", p.summary())
                ok = False
                continue
            s = by_spi[p[ESP].spi]
            try:
                d = s.sa.decrypt(p)
            except Exception as ex:
                print("FAIL: %s: does not decrypt: %s" % (p.summary(), ex))
                ok = False
                continue
            got.append((s.spi, norm(d)))
        want = [(s.spi, norm(p)) for (s, p) in out_want]
        if sorted(got) != sorted(want):
            print("FAIL: outbound: %d packets decrypt, %d expected, or different bytes"
                  % (len(got), len(want)))
            ok = False
        else:
            print("ok   outbound: %d packets (%d arrived fragmented) encrypted, %d IPv4 ESP "
                  "datagrams fragmented (own IDs: %d distinct), %d IPv6; scapy defragment + "
                  "decrypt = originals" % (len(want), n_clear_frag, len(ids4), len(set(ids4)), n6))

        # counters
        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, exp) and ok
        n_in = sum(len(w) for (_, _, w, _) in cases) + 1    # + the DF one, then too_big
        if st["esp_in"] != n_in:
            print("FAIL: esp_in %d, want %d" % (st["esp_in"], n_in))
            ok = False
        # the DF packet of in4 decrypts, then is too_big on the clear port
        ok = gwtest.check_sa_pkts(st, lambda e: (in_pkts if e["dir"] == "in" else out_pkts).get(
            e["spi"], 0) + (1 if e["spi"] == in4.spi else 0)) and ok
        rx, tx, drops = gwtest.port_totals(st)
        lhs = gwtest.frames_moved(st)
        if lhs != tx + drops or rx != len(esp_in) + len(clear_in):
            print("FAIL: accounting: rx %d - reasm_frags %d + reassembled %d + frags_out %d - "
                  "fragmented %d = %d, tx %d + drops %d = %d" % (
                      rx, st["reasm_frags"], st["reassembled"], st["frags_out"],
                      st["fragmented"], lhs, tx, drops, tx + drops))
            ok = False
        if ok:
            print("ok   counters: reassembled %d from %d fragments, fragmented %d into %d, "
                  "drops frag %d too_big %d; every frame accounted once"
                  % (st["reassembled"], st["reasm_frags"], st["fragmented"], st["frags_out"],
                     st["drops"]["frag"], st["drops"]["too_big"]))

        # timeouts while running: --frag-ttl 200 ms expires the piece-less datagram mid-run;
        # with the default 10 s it is still waiting mid-run and dropped (counted) at exit
        for ttl, want in ((TTL_NS, (2, 2)), (0, (0, 2))):
            r = ttl_phase(gwbin, extra_eal, extra_app, tmp, ttl)
            if r != want:
                print("FAIL: missing piece, --frag-ttl %s: frag drops (mid-run, exit) %s, want %s"
                      % (ttl or "default", r, want))
                ok = False
            else:
                print("ok   missing piece, --frag-ttl %s: frag drops mid-run %d, at exit %d"
                      % (ttl or "default (10 s)", r[0], r[1]))
        # option errors: exit 2 before EAL starts, naming the option
        for o in (["--mtu", "10"], ["--mtu", "99:1400"], ["--reassemble", "70000"],
                  ["--frag-ttl", "0"]):
            r = subprocess.run([gwbin, "--", "-f", cfg] + o, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=30, universal_newlines=True)
            if r.returncode != 2 or o[0] not in r.stdout:
                print("FAIL: %s: exit %d, %s" % (" ".join(o), r.returncode, r.stdout.strip()))
                ok = False
        for seed in (1, 2):
            why = storm(gwbin, extra_eal, extra_app, tmp, seed, 1500)
            if why is not None:
                print("FAIL: fragment storm seed %d: %s" % (seed, why))
                ok = False
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
