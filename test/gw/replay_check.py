#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw anti-replay and ESN, packet by packet against an RFC 4303 model.

The model (class Rfc4303) is written from RFC 4303 3.4.3 and Appendix A
alone: a window of W numbers below the highest one seen, a set of the
numbers recorded, and the A.2.1 reconstruction of the high half of an
extended sequence number from (Tl, Th, W). A packet is delivered when it
is genuine, its number as the receiver rebuilds it is its true one (else
its ICV fails) and the window takes it; the window records only delivered
packets.

Inbound SAs of every type (lookaside-none, cpu-crypto,
lookaside-protocol-offload, native) and algorithm (ChaCha20-Poly1305 on
crypto_vecsec, AES-GCM on crypto_aesni_mb; with --chacha-pmd
ChaCha20-Poly1305 on ipsec-mb's crypto_chacha20_poly1305, lookaside-none), with and
without ESN, windows 32 .. 8128 (64 and 100 too), IPv4 tunnel and IPv6
transport, each get their own sequence: the issue's examples (100 101 100;
40 41 42 40 41 42; 31 31 32 32; ESN: highest seen 2^32 - 10, then 2^32 +
100 and 2^32 - 16 in one burst), the window's edges (top - W dropped, top
- W + 1 taken), duplicates next to each other (one burst) and far apart,
reordering inside and deeper than the window, forged packets (a flipped
ciphertext bit; some carry a number a genuine packet has later), jumps,
and runs across 2^32 and 2^63. The SAs' packets are interleaved in chunks
in one pcap (made with Python's `cryptography`, RFC 4106 / 7634 framing,
ESN AAD SPI || seq hi || seq lo), and the gateway reads it in rx bursts of
1, 2, 16 and 32 packets (--rx-burst); every run's clear output must be,
per SA and in order, exactly the model's delivered packets, and each SA's
replay + auth_failed drops exactly the rest.

--workers 2: two workers, the ESP port with two rx queues (two pcaps),
each SA's chunks alternating between them, so both workers handle every
SA at once; the order between them is not deterministic, so checked are:
nothing forged is delivered, no number twice, within each queue nothing
delivered at or below (number delivered before it in that queue) - W,
and every SA alive afterwards: a final run of fresh numbers (queue 0,
across a 2^32 boundary on ESN SAs) all delivered.

--exhaust: outbound sequence numbers running out (non-ESN from `seq
4294967290`, ESN from `esn 2^64 - 5`, on every SA type and both
cryptodevs): exactly the 5 numbers left are sent (their ICVs checked with
the full number), the rest dropped as expired, the SA hard-expired; and
--check refuses `seq` values that leave no number.

usage: replay_check.py GATEWAY [--bursts 1,2,16,32] [--workers N]
                       [--chacha-pmd] [--exhaust]
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import hexkey  # noqa: E402

TWO32 = 1 << 32
MAGIC = b"RPLY"
ETH_IN = bytes.fromhex("02000000bb0002000000aa000800")     # dst, src, IPv4
ETH_IN6 = bytes.fromhex("02000000bb0002000000aa0086dd")    # dst, src, IPv6

key = gwtest.keygen(29, 13, 3)


# ---- the RFC 4303 model -----------------------------------------------------

class Rfc4303:
    """
    Receiver state of one SA: T, the highest authenticated number, W, and
    the numbers recorded (RFC 4303 3.4.3); with ESN the high half is
    rebuilt as in A.2.1.
    """

    def __init__(self, w, esn, top):
        self.w, self.esn, self.top = w, esn, top
        self.seen = set()

    def seq_high(self, seql):
        """A.2.1: Seqh for a received low half Seql, None where it would not exist."""
        tl, th, w = self.top % TWO32, self.top // TWO32, self.w
        if tl >= w - 1:                         # case A
            seqh = th if seql >= tl - w + 1 else th + 1
        else:                                   # case B
            seqh = th - 1 if seql >= (tl - w + 1) % TWO32 else th
        return seqh if 0 <= seqh < TWO32 else None

    def fresh(self, s):
        """3.4.3: not 0, not left of the window, not already received."""
        if s == 0:
            return False
        if s > self.top:
            return True
        return s > self.top - self.w and s not in self.seen

    def receive(self, true_seq, forged):
        """A packet whose sender used true_seq: delivered? (records it if so)"""
        seql = true_seq % TWO32
        s = seql
        if self.esn:
            seqh = self.seq_high(seql)
            if seqh is None:
                return False
            s = seqh * TWO32 + seql
        # the ICV covers the high half (AAD): it verifies only with the true number
        if forged or s != true_seq or not self.fresh(s):
            return False
        self.seen.add(s)
        if s > self.top:
            self.top = s
            if len(self.seen) > 4 * self.w + 64:
                self.seen = {x for x in self.seen if x > self.top - self.w}
        return True


# ---- packets ----------------------------------------------------------------

def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(src, dst, proto, payload, ident=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident & 0xffff, 0, 64, proto, 0,
                    bytes(src), bytes(dst))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload


def ipv6(src, dst, nh, payload):
    return struct.pack("!IHBB16s16s", 6 << 28, len(payload), nh, 64, bytes(src), bytes(dst)) + payload


def udp6(src, dst, sport, dport, body):
    u = struct.pack("!HHHH", sport, dport, 8 + len(body), 0) + body
    pseudo = bytes(src) + bytes(dst) + struct.pack("!IxxxB", len(u), 17)
    c = csum(pseudo + u) or 0xffff
    return u[:6] + struct.pack("!H", c) + u[8:]


class Sa:
    """One inbound SA: its configuration, its keys and ESP framing, its model."""

    def __init__(self, idx, name, algo, typ, mode, esn, w, top):
        self.idx, self.name, self.algo, self.typ, self.mode = idx, name, algo, typ, mode
        self.esn, self.w, self.top0 = esn, w, top
        self.spi = 0x7000 + idx
        klen = {"chacha20-poly1305": 36, "aes-128-gcm": 20, "aes-256-gcm": 36}[algo]
        self.key = key(idx, klen)
        k, self.salt = self.key[:-4], self.key[-4:]
        self.aead = ChaCha20Poly1305(k) if algo.startswith("chacha") else AESGCM(k)
        n = idx + 1
        self.peer, self.gw = [172, 30, 1, n], [172, 30, 2, n]
        if mode == "transport":
            self.src6 = bytes.fromhex("fd09") + bytes(12) + struct.pack("!H", n)
            self.dst6 = bytes.fromhex("fd02") + struct.pack("!H", n) + bytes(10) + b"\0\x07"
            sp = "sp ipv6 in esp protect %d pri 1 dst fd02:%x::/32\n" % (self.spi, n)
        else:
            sp = "sp ipv4 in esp protect %d pri 1 dst 10.200.%d.0/24\n" % (self.spi, n)
        sa = "sa in %d aead_algo %s aead_key %s mode %s" % (self.spi, algo, hexkey(self.key), mode)
        if mode != "transport":
            sa += " src %s dst %s" % (".".join(map(str, self.peer)), ".".join(map(str, self.gw)))
        if esn or top:
            sa += " %s %d" % ("esn" if esn else "seq", top)
        sa += " replay_win %d" % w
        if typ != "lookaside-none":
            sa += " type " + typ
        self.conf = sp + sa + "\n"
        self.model = Rfc4303(w, esn, top)
        self.pkts = []          # (true seq, forged)

    def inner(self, pid, size):
        body = MAGIC + struct.pack("!HI", self.idx, pid) + bytes((pid + i) & 0xff
                                                                 for i in range(size))
        if self.mode == "transport":
            return udp6(self.src6, self.dst6, 1000 + self.idx, 2000, body), 17
        u = struct.pack("!HHHH", 1000 + self.idx, 2000, 8 + len(body), 0) + body
        return ipv4([192, 168, 7, 1], [10, 200, self.idx + 1, 7], 17, u, pid), 4

    def frame(self, pid, seq, forged):
        """Ethernet frame of ESP packet pid: number seq (64-bit), ICV broken if forged."""
        pt, nh = self.inner(pid, 20 + pid % 37)
        padlen = (-(len(pt) + 2)) % 4
        pt += bytes(range(1, padlen + 1)) + bytes([padlen, nh])
        iv = struct.pack("!Q", (seq * 1000003 + pid) % (1 << 64))
        spi = struct.pack("!I", self.spi)
        lo = struct.pack("!I", seq % TWO32)
        aad = spi + (struct.pack("!I", seq // TWO32) if self.esn else b"") + lo
        ct = bytearray(self.aead.encrypt(self.salt + iv, pt, aad))
        if forged:
            ct[pid % (len(ct) - 16)] ^= 0x20
        esp = spi + lo + iv + bytes(ct)
        if self.mode == "transport":
            return ETH_IN6 + ipv6(self.src6, self.dst6, 50, esp)
        return ETH_IN + ipv4(self.peer, self.gw, 50, esp)


def parse_clear(frame):
    """(sa index, packet id) of a frame the gateway sent to the clear port, or None."""
    et = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if et == 0x0800:
        udp = ip[(ip[0] & 0xf) * 4:]
    elif et == 0x86dd and ip[6] == 17:
        udp = ip[40:]
    else:
        return None
    body = udp[8:]
    if body[:4] != MAGIC:
        return None
    return struct.unpack("!HI", body[4:10])


# ---- sequences ----------------------------------------------------------------

def scenario(sa, rng, n):
    """
    Packets (true seq, forged) of one SA: fixed cases first, then n random
    steps of ascending numbers, duplicates, reordering, forgeries and jumps.
    """
    w, top = sa.w, sa.top0
    pk = []

    def add(s, forged=False):
        pk.append((s, forged))

    if sa.top0 == 0 and w >= 128:
        # the examples, one after the other on a fresh SA
        for s in (100, 101, 100, 40, 41, 42, 40, 41, 42, 31, 31, 32, 32):
            add(s)
        nxt = 102
    elif sa.esn and sa.top0 % TWO32 == TWO32 - 10:
        # the ESN case: highest seen 2^32 - 10, then P1 = 2^32 + 100 and
        # P2 = 2^32 - 16 (genuine, never seen) in one burst; P2 is too old after
        # P1 (W <= 100), and everything after P1 must still pass
        base = sa.top0 - (TWO32 - 10)
        add(base + TWO32 + 100)
        add(base + TWO32 - 16)
        for s in range(101, 140):
            add(base + TWO32 + s)
        nxt = base + TWO32 + 140
    else:
        nxt = top + 1
    # the window's edges: a gap of W + 4, then its top, top - W, top - W + 1 (twice)
    nxt += w + 4
    add(nxt)
    add(nxt - w)                # exactly W back: out
    add(nxt - w + 1)            # W - 1 back: in
    add(nxt - w + 1)
    add(nxt - w - 1)
    nxt += 1
    recent = []
    for _ in range(n):
        r = rng.random()
        if r < 0.50:
            s = nxt
            nxt += rng.choice((1, 1, 1, 1, 2, 3))
        elif r < 0.58 and recent:
            s = recent[-1]                              # next to its copy
        elif r < 0.66 and recent:
            s = rng.choice(recent)                      # copy from further back
        elif r < 0.76:
            s = nxt - rng.randint(1, 2 * w + 2)         # reordered around the edge
        elif r < 0.80:
            s = nxt - rng.randint(w, 8 * w + 100)       # deeper than the window
        elif r < 0.86:
            f = nxt + rng.randint(0, 40)                # forged, maybe a future number
            add(max(f, 1), True)
            continue
        elif r < 0.90:
            add(max(nxt - rng.randint(1, w), 1), True)  # forged inside the window
            continue
        elif r < 0.93:
            nxt += rng.randint(w, 3 * w)                # jump past the window
            continue
        else:
            burst = [nxt + i for i in range(rng.randint(2, 12))]
            rng.shuffle(burst)                          # a shuffled run
            nxt += len(burst)
            for s in burst:
                add(s)
                recent.append(s)
            continue
        if s < 1:
            continue
        add(s)
        recent.append(s)
        recent = recent[-40:]
    if not sa.esn:
        pk = [(s, f) for s, f in pk if s < TWO32]
    return pk, nxt


def sa_table(lkp_algo, types, aes):
    """The SAs of a run: (name, algo, type, mode, esn, W, top)."""
    t = []
    for typ in types:
        short = {"lookaside-none": "none", "cpu-crypto": "cpu",
                 "lookaside-protocol-offload": "lkp", "native": "nat"}[typ]
        c = lkp_algo
        t += [("%s-chacha-w1024" % short, c, typ, "ipv4-tunnel", False, 1024, 0),
              ("%s-chacha-esn-w64-p1p2" % short, c, typ, "ipv4-tunnel", True, 64, TWO32 - 10),
              ("%s-chacha-esn-v6trs-w1024" % short, c, typ, "transport", True, 1024, 0),
              ("%s-chacha-esn-w100-2^63" % short, c, typ, "ipv4-tunnel", True, 100,
               (1 << 63) - 400),
              ("%s-chacha-w32" % short, c, typ, "ipv4-tunnel", False, 32, 0),
              ("%s-chacha-esn-w8128" % short, c, typ, "ipv4-tunnel", True, 8128, TWO32 - 9000),
              ("%s-chacha-esn-w32" % short, c, typ, "ipv4-tunnel", True, 32, 3 * TWO32 - 300),
              ("%s-chacha-w4096" % short, c, typ, "transport", False, 4096, 0)]
        if aes and typ not in ("lookaside-protocol-offload", "native"):
            t += [("%s-gcm-esn-w64-p1p2" % short, "aes-128-gcm", typ, "ipv4-tunnel", True, 64,
                   5 * TWO32 - 10),
                  ("%s-gcm256-w1024" % short, "aes-256-gcm", typ, "ipv4-tunnel", False, 1024, 0),
                  ("%s-gcm-esn-w32" % short, "aes-128-gcm", typ, "transport", True, 32,
                   TWO32 - 200)]
    return [Sa(i, *spec) for i, spec in enumerate(t)]


def interleave(sas, rng, nq):
    """
    The SAs' packets in chunks of 1..40, round robin over the SAs; chunk k
    of an SA goes to queue k % nq. Returns per queue a list of (sa, pid).
    """
    queues = [[] for _ in range(nq)]
    pos = {s.idx: 0 for s in sas}
    chunk_no = {s.idx: 0 for s in sas}
    live = list(sas)
    while live:
        for s in list(live):
            k = rng.randint(1, 40)
            q = chunk_no[s.idx] % nq
            chunk_no[s.idx] += 1
            for pid in range(pos[s.idx], min(pos[s.idx] + k, len(s.pkts))):
                queues[q].append((s, pid))
            pos[s.idx] += k
            if pos[s.idx] >= len(s.pkts):
                live.remove(s)
    return queues


# ---- runs -------------------------------------------------------------------

def config(sas):
    return ("".join(s.conf for s in sas) +
            "rt ipv4 dst 10.200.0.0/16 port 0\nrt ipv6 dst fd02::/16 port 0\n" + gwtest.NEIGH)


def run(gwbin, tmp, tag, cfg, queues_frames, app, eal, lcores="0"):
    """One gateway run over the ESP queue pcaps; returns (clear frames, stats) or None."""
    j = os.path.join
    gwtest.write_pcap(j(tmp, "clear_in.pcap"))
    rx = ""
    for q, frames in enumerate(queues_frames):
        gwtest.write_pcap(j(tmp, "esp_in%d.pcap" % q), frames)
        rx += "rx_pcap=%s," % j(tmp, "esp_in%d.pcap" % q)
    ports = ["--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (j(tmp, "clear_in.pcap"),
                                                            j(tmp, "clear_out.pcap")),
             "--vdev", "net_pcap1,%stx_pcap=%s" % (rx, j(tmp, "esp_out.pcap"))]
    stats = j(tmp, "stats.json")
    prefix = gwtest.file_prefix("rpl" + tag)
    try:
        r = gwtest.run_gw(gwtest.gw_cmd(gwbin, prefix, ports, eal,
                                        gwtest.pcap_run(cfg, stats) + app, lcores), tail=1500)
    finally:
        gwtest.eal_cleanup(prefix)
    if r.returncode != 0:
        return None
    return list(gwtest.read_pcap(j(tmp, "clear_out.pcap"))), gwtest.load_stats(stats)


def check_cdevs(st, sas, chacha_dev):
    """Each SA ran on the cryptodev this test is about."""
    ok = True
    by_spi = {e["spi"]: e for e in st["sa"]}
    for s in sas:
        want = chacha_dev if s.algo.startswith("chacha") else "aesni_mb"
        if s.typ == "lookaside-protocol-offload":
            want = "crypto_vecsec"
        if s.typ == "native":
            want = "none"       # the gateway's own ESP: no cryptodev
        got = by_spi[s.spi]["cryptodev"]
        if want not in got:
            print("FAIL: %s runs on %s, not %s" % (s.name, got, want))
            ok = False
    return ok


def delivered_by_sa(frames, sas):
    got = {s.idx: [] for s in sas}
    ok = True
    for f in frames:
        r = parse_clear(f)
        if r is None or r[0] not in got:
            print("FAIL: unexpected frame on the clear port: %s" % f[:64].hex())
            ok = False
            continue
        got[r[0]].append(r[1])
    return got, ok


def one_worker(gwbin, tmp, sas, bursts, eal, app, chacha_dev):
    rng = random.Random(4303)
    for s in sas:
        s.pkts, _ = scenario(s, rng, 160)
    queues = interleave(sas, rng, 1)
    frames = [s.frame(pid, *s.pkts[pid]) for s, pid in queues[0]]
    want = {}
    for s in sas:
        want[s.idx] = [pid for pid, (seq, forged) in enumerate(s.pkts)
                       if s.model.receive(seq, forged)]
    total = sum(len(s.pkts) for s in sas)
    print("%d SAs, %d packets, %d to deliver" % (len(sas), total,
                                                sum(len(v) for v in want.values())))
    cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), config(sas))
    ok = True
    for b in bursts:
        r = run(gwbin, tmp, "b%d" % b, cfg, [frames], app + ["--rx-burst", str(b)], eal)
        if r is None:
            return False
        clear, st = r
        got, bok = delivered_by_sa(clear, sas)
        ok = bok and check_cdevs(st, sas, chacha_dev) and ok
        by_spi = {e["spi"]: e for e in st["sa"]}
        bad = 0
        for s in sas:
            g, w = got[s.idx], want[s.idx]
            e = by_spi[s.spi]
            lost = len(s.pkts) - len(w)
            drops = e["drops"]["replay"] + e["drops"]["auth_failed"]
            if g != w:
                bad += 1
                extra = sorted(set(g) - set(w))
                miss = sorted(set(w) - set(g))
                print("FAIL: burst %d, %s: %d delivered, the model %d; delivered but not in "
                      "the model: %s; missing: %s" % (
                          b, s.name, len(g), len(w),
                          ["#%d seq %#x%s" % (p, s.pkts[p][0], " forged" if s.pkts[p][1] else "")
                           for p in extra[:8]],
                          ["#%d seq %#x" % (p, s.pkts[p][0]) for p in miss[:8]]))
                if not extra and not miss:
                    print("      (same packets, other order)")
            if e["pkts"] != len(w) or drops != lost or sum(e["drops"].values()) != lost:
                bad += 1
                print("FAIL: burst %d, %s: counted %d packets, replay+auth %d, all drops %d; "
                      "want %d, %d" % (b, s.name, e["pkts"], drops, sum(e["drops"].values()),
                                       len(w), lost))
        if bad == 0:
            print("ok   rx burst %2d: every SA's output equals the RFC 4303 model, packet by "
                  "packet; counters exact" % b)
        ok = ok and bad == 0
    return ok


def two_workers(gwbin, tmp, sas, bursts, eal, app, chacha_dev):
    rng = random.Random(4304)
    tails = {}
    for s in sas:
        s.pkts, nxt = scenario(s, rng, 160)
        # the final run: fresh numbers, across a 2^32 boundary on ESN SAs
        start = nxt + s.w + 10
        boundary = (start // TWO32 + 1) * TWO32
        if s.esn and boundary - start < 1 << 30:
            start = boundary - 20     # a jump well inside what A.2 can follow
        tails[s.idx] = [(start + i, False) for i in range(60)]
    queues = interleave(sas, rng, 2)
    for s in sas:
        base = len(s.pkts)
        s.pkts += tails[s.idx]
        queues[0] += [(s, base + i) for i in range(len(tails[s.idx]))]
    frames = [[s.frame(pid, *s.pkts[pid]) for s, pid in q] for q in queues]
    order = [{} for _ in queues]    # per queue: (sa idx, pid) -> position
    for qi, q in enumerate(queues):
        for pos, (s, pid) in enumerate(q):
            order[qi][(s.idx, pid)] = pos
    cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), config(sas))
    ok = True
    for b in bursts:
        r = run(gwbin, tmp, "w2b%d" % b, cfg, frames, app + ["--rx-burst", str(b)], eal,
                lcores="0,1")
        if r is None:
            return False
        clear, st = r
        got, bok = delivered_by_sa(clear, sas)
        ok = bok and check_cdevs(st, sas, chacha_dev) and ok
        bad = 0
        for s in sas:
            g = got[s.idx]
            seqs = [s.pkts[p][0] for p in g]
            forged = [p for p in g if s.pkts[p][1]]
            if forged:
                bad += 1
                print("FAIL: burst %d, %s: forged packets delivered: %s" % (b, s.name, forged))
            dup = len(seqs) - len(set(seqs))
            if dup:
                bad += 1
                print("FAIL: burst %d, %s: %d numbers delivered twice" % (b, s.name, dup))
            # within a queue: nothing at or below (a number delivered before it there) - W
            for qi in range(len(queues)):
                mine = sorted((order[qi][(s.idx, p)], s.pkts[p][0]) for p in g
                              if (s.idx, p) in order[qi])
                hi = 0
                for _, sq in mine:
                    if hi and sq <= hi - s.w:
                        bad += 1
                        print("FAIL: burst %d, %s: queue %d delivered %#x after %#x (W %d)" % (
                            b, s.name, qi, sq, hi, s.w))
                        break
                    hi = max(hi, sq)
            tail = set(range(len(s.pkts) - len(tails[s.idx]), len(s.pkts)))
            if not tail <= set(g):
                bad += 1
                print("FAIL: burst %d, %s: %d of the %d fresh packets at the end delivered "
                      "(SA dead?)" % (b, s.name, len(tail & set(g)), len(tail)))
        if bad == 0:
            print("ok   two workers, rx burst %2d: no forgery, no number twice, nothing older "
                  "than the window per queue, every SA alive" % b)
        ok = ok and bad == 0
    return ok


# ---- outbound exhaustion ------------------------------------------------------

def exhaust(gwbin, tmp, eal):
    """Outbound numbers running out on every SA type; --check refusals."""
    ok = True
    esn_first = (1 << 64) - 5
    specs = []
    for typ in ("lookaside-none", "cpu-crypto", "lookaside-protocol-offload", "native"):
        specs.append(("chacha20-poly1305", typ, False, 4294967290))
        specs.append(("chacha20-poly1305", typ, True, esn_first))
        if typ not in ("lookaside-protocol-offload", "native"):
            specs.append(("aes-128-gcm", typ, True, esn_first))
            specs.append(("aes-128-gcm", typ, False, 4294967290))
    conf = ""
    sas = []
    for i, (algo, typ, esn, first) in enumerate(specs):
        n = i + 1
        k = key(100 + i, 36 if algo.startswith("chacha") else 20)
        spi = 0x9000 + i
        conf += "sp ipv4 out esp protect %d pri 1 dst 10.100.%d.0/24\n" % (spi, n)
        conf += ("sa out %d aead_algo %s aead_key %s mode ipv4-tunnel src 172.30.2.%d "
                 "dst 172.30.1.%d %s %d%s\n" % (spi, algo, hexkey(k), n, n,
                                                "esn" if esn else "seq", first,
                                                "" if typ == "lookaside-none" else
                                                " type " + typ))
        aead = ChaCha20Poly1305(k[:-4]) if algo.startswith("chacha") else AESGCM(k[:-4])
        sas.append((spi, n, algo, typ, esn, first, aead, k[-4:]))
    conf += "rt ipv4 dst 172.30.1.0/24 port 1\n" + gwtest.NEIGH
    cfg = gwtest.write_config(os.path.join(tmp, "out.cfg"), conf)
    per_sa = 12
    frames = []
    for k in range(per_sa):
        for spi, n, *_ in sas:
            u = struct.pack("!HHHH", 1000, 2000, 8 + 30, 0) + MAGIC + bytes(26)
            frames.append(ETH_IN + ipv4([192, 168, 7, 1], [10, 100, n, 9], 17, u, k))
    j = os.path.join
    gwtest.write_pcap(j(tmp, "clear_in.pcap"), frames)
    gwtest.write_pcap(j(tmp, "esp_in.pcap"))
    stats = j(tmp, "stats.json")
    prefix = gwtest.file_prefix("rplx")
    try:
        r = gwtest.run_gw(gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(tmp), eal,
                                        gwtest.pcap_run(cfg, stats) + ["--rx-burst", "7"]),
                          tail=1500)
    finally:
        gwtest.eal_cleanup(prefix)
    if r.returncode != 0:
        return False
    out = {spi: [] for spi, *_ in sas}
    for f in gwtest.read_pcap(j(tmp, "esp_out.pcap")):
        ip = f[14:]
        esp = ip[(ip[0] & 0xf) * 4:]
        spi, lo = struct.unpack("!II", esp[:8])
        if spi not in out:
            print("FAIL: unexpected ESP packet, SPI %#x" % spi)
            ok = False
            continue
        out[spi].append(esp)
    st = gwtest.load_stats(stats)
    by_spi = {e["spi"]: e for e in st["sa"]}
    for spi, n, algo, typ, esn, first, aead, salt in sas:
        name = "%s %s %s" % (typ, algo, "ESN" if esn else "32-bit")
        want = [first + i for i in range(5)]
        got = out[spi]
        sa_ok = len(got) == 5
        if not sa_ok:
            print("FAIL: %s: %d ESP packets out, want 5 (numbers %#x .. %#x)" % (
                name, len(got), want[0], want[-1]))
        for esp, seq in zip(got, want):
            lo = struct.unpack("!I", esp[4:8])[0]
            aad = esp[:4] + (struct.pack("!I", seq >> 32) if esn else b"") + esp[4:8]
            try:
                aead.decrypt(salt + esp[8:16], esp[16:], aad)
            except Exception:
                print("FAIL: %s: packet with low half %#x does not authenticate as %#x" % (
                    name, lo, seq))
                sa_ok = False
        e = by_spi[spi]
        if e["drops"]["expired"] != per_sa - 5 or e["pkts"] != 5 or e.get("expired") != "hard":
            print("FAIL: %s: %d packets, %d expired, expired %s; want 5, %d, hard" % (
                name, e["pkts"], e["drops"]["expired"], e.get("expired"), per_sa - 5))
            sa_ok = False
        if sa_ok:
            print("ok   %-42s sends exactly %#x .. %#x, then drops (expired) and hard-expires"
                  % (name, want[0], want[-1]))
        ok = ok and sa_ok
    # --check: numbers that leave no room are refused, the last usable ones taken
    base = "sa out 7 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel src 1.1.1.1 dst 2.2.2.2 " \
        % hexkey(key(1, 20))
    for line, good in (("seq 4294967294", True), ("seq 4294967295", False),
                       ("seq 4294967296", False), ("esn 18446744073709551615", True),
                       ("esn 18446744073709551616", False), ("replay_win 8128", True),
                       ("replay_win 8129", False)):
        path = gwtest.write_config(j(tmp, "chk.cfg"), base + line + "\n")
        r = subprocess.run([gwbin, "--check", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=30)
        if (r.returncode == 0) != good:
            print("FAIL: --check with `%s`: exit %d, want %s\n%s" % (
                line, r.returncode, "accepted" if good else "refused", r.stdout))
            ok = False
        else:
            print("ok   --check %s `%s`" % ("takes" if good else "refuses", line))
    for bad in ("0", "33", "x"):
        prefix = gwtest.file_prefix("rplr")
        try:
            r = subprocess.run(gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(tmp), eal,
                                             ["-f", cfg, "--rx-burst", bad]),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=60)
        finally:
            gwtest.eal_cleanup(prefix)
        if r.returncode == 0 or "--rx-burst" not in r.stdout:
            print("FAIL: --rx-burst %s accepted (exit %d)" % (bad, r.returncode))
            ok = False
    return ok


def main():
    gwbin = sys.argv[1]
    extra_app, extra_eal, own = gwtest.gw_args(
        sys.argv[2:], flags=("--chacha-pmd", "--exhaust"), values=("--bursts", "--workers"),
        app_flags=())
    bursts = [int(x) for x in own.get("--bursts", "1,2,16,32").split(",")]
    workers = int(own.get("--workers", "1"))
    chacha_dev = "crypto_vecsec"
    types = ["lookaside-none", "cpu-crypto", "lookaside-protocol-offload", "native"]
    if "--chacha-pmd" in own:
        # ipsec-mb's ChaCha20-Poly1305 PMD for the rte_ipsec SAs
        extra_eal += ["--vdev", "crypto_chacha20_poly1305"]
        extra_app += ["--prefer", "crypto_chacha20_poly1305"]
        chacha_dev = "chacha20_poly1305"
        # lookaside only: rte_ipsec CPU crypto on that PMD fails every ICV, on main
        # too (DPDK 22.11, not an anti-replay matter)
        types = ["lookaside-none"]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-replay-", dir=os.environ.get("TMPDIR"))
    try:
        if "--exhaust" in own:
            ok = exhaust(gwbin, tmp, extra_eal)
        else:
            sas = sa_table("chacha20-poly1305", types, "--chacha-pmd" not in own)
            if workers == 1:
                ok = one_worker(gwbin, tmp, sas, bursts, extra_eal, extra_app, chacha_dev)
            else:
                ok = two_workers(gwbin, tmp, sas, bursts, extra_eal, extra_app, chacha_dev)
    finally:
        gwtest.cleanup(tmp)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
