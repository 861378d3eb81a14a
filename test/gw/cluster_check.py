#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw's cluster segment filter (--cluster, ha.h, ha_dp.h; docs/ha.md).

One gateway, 2 segments, cluster address 192.0.2.5, segment 1 active at
start. Both ports replay their pcap forever (net_pcap infinite_rx, replay
window off), each frame chosen by its segment (the hash is redone here in
Python and checked on strongSwan's values first):

  ESP port:  ESP of SA in A (192.0.2.5, SPI -> segment 1) and SA in B
             (segment 2), ESP in UDP 4500 of SA in E (segment 2); IKE (UDP 500) from a peer of segment 1 and one of
             segment 2, to the cluster address (no SP lets IKE in: the
             active peer's packets end as `policy` drops, the inactive
             one's as `inactive_segment`)
  clear port: traffic for SA out C (peer, SPI -> segment 1) and SA out D
             (segment 2), tunnels from the cluster address

Through the control socket, each step waiting for counters, never for time:
  1. segment 1 active: A and C carry packets, B and D none; D has used no
     sequence number; its packets are D's `inactive_segment` drops
  2. `segment +2`: B and D carry packets too, inactive_segment stops
  3. `segment -1`: A and C stop (300 more inactive drops, not one more of
     their packets), B and D go on
  4. `segment -2`: nothing passes; IKE from either peer no longer reaches
     the SPD (no more policy drops)
  5. an inbound SA installed without `spi alloc`, as kernel-vecsec does on
     the ha plugin's passive node (add_sa with update = FALSE): accepted,
     shown standby, and `spi alloc` never hands its SPI out
  6. an IKE daemon's hangup (kernel-vecsec's charon killed): a subscription
     of another process closing changes nothing; this process sets
     `segment +1` and subscribes, and its subscription closing drops
     segment 1 (`segment -1 by hangup`)
`segments` (text, JSON), the SAs' segment in telemetry, /vecsec_gw/segments,
bad requests refused, and `vecsec-ctl -j monitor` showing each change with
its time. No other drop reason; the gateway exits cleanly.

usage: cluster_check.py GATEWAY_BINARY CTL_BINARY
"""
import json
import os
import select
import socket
import shutil
import subprocess
import sys
import tempfile

from scapy.all import IP, UDP, Raw, wrpcap
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth  # noqa: E402

KEY = bytes(range(0x31, 0x31 + 36))
VIP = "192.0.2.5"
PEER_IN = "198.51.100.9"


def rol(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xffffffff


def jhash(a, b, words):
    """lookup3's final mix as Linux's jhash_1word/jhash_2words(.., 0) (4.1 and later)."""
    iv = (0xdeadbeef + (words << 2)) & 0xffffffff
    a, b, c = (a + iv) & 0xffffffff, (b + iv) & 0xffffffff, iv
    for x, y, z, k in (("c", "b", 0, 14), ("a", "c", 0, 11), ("b", "a", 0, 25),
                       ("c", "b", 0, 16), ("a", "c", 0, 4), ("b", "a", 0, 14),
                       ("c", "b", 0, 24)):
        v = {"a": a, "b": b, "c": c}
        r = ((v[x] ^ v[y]) - rol(v[y], k)) & 0xffffffff
        if x == "a":
            a = r
        elif x == "b":
            b = r
        else:
            c = r
    return c


def ip4(s):
    p = [int(x) for x in s.split(".")]
    return p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]


def seg(addr, spi=0, count=2):
    h = jhash(ip4(addr), spi, 2) if spi else jhash(ip4(addr), 0, 1)
    return (h * count >> 32) + 1


def pick_spi(addr, want, start):
    spi = start
    while seg(addr, spi) != want:
        spi += 1
    return spi


def pick_peer(want, net):
    for k in range(1, 255):
        if seg("%s.%d" % (net, k)) == want:
            return "%s.%d" % (net, k)
    raise RuntimeError("no peer")


def self_check():
    """The Python hash on strongSwan 5.9.8's values (test/gw/test_ha_seg.c checks the C one)."""
    return (jhash(ip4("192.168.0.100"), 0, 1) == 0x829629eb and seg("192.168.0.100") == 2 and
            jhash(ip4("192.168.0.200"), 0, 1) == 0x40df4404 and seg("192.168.0.200") == 1 and
            jhash(ip4("192.168.0.5"), 0xc1234567, 2) == 0x82504be1)


class Plan:
    def __init__(self):
        self.a = pick_spi(VIP, 1, 0x1000)
        self.b = pick_spi(VIP, 2, 0x2000)
        self.e = pick_spi(VIP, 2, 0x6000)       # ESP in UDP 4500
        self.peer_c = self.peer_d = "198.51.100.20"
        self.c = pick_spi(self.peer_c, 1, 0x3000)
        self.d = pick_spi(self.peer_d, 2, 0x4000)
        self.ike1 = pick_peer(1, "203.0.113")
        self.ike2 = pick_peer(2, "203.0.113")

    def config(self, path):
        lines = ["rt ipv4 dst 10.5.0.0/16 port 0", "rt ipv4 dst 198.51.100.0/24 port 1"]
        for spi, net, encap in ((self.a, "10.5.1.0/24", ""), (self.b, "10.5.2.0/24", ""),
                                (self.e, "10.5.3.0/24", " udp-encap")):
            lines.append("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                         "src %s dst %s%s" % (spi, gwtest.hexkey(KEY), PEER_IN, VIP, encap))
            lines.append("sp ipv4 in esp protect %d pri 10 dst %s" % (spi, net))
        for spi, net, peer in ((self.c, "10.6.1.0/24", self.peer_c),
                               (self.d, "10.6.2.0/24", self.peer_d)):
            lines.append("sa out %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                         "src %s dst %s" % (spi, gwtest.hexkey(KEY), VIP, peer))
            lines.append("sp ipv4 out esp protect %d pri 10 dst %s" % (spi, net))
        return gwtest.write_config(path, "\n".join(lines) + "\n")

    def pcaps(self, tmp):
        esp = []
        for spi, dst in ((self.a, "10.5.1.7"), (self.b, "10.5.2.7"), (self.e, "10.5.3.7")):
            nat = UDP(sport=4500, dport=4500) if spi == self.e else None
            sa = SecurityAssociation(ESP, spi=spi, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY,
                                     tunnel_header=IP(src=PEER_IN, dst=VIP), nat_t_header=nat)
            inner = IP(src="192.168.9.1", dst=dst) / UDP(sport=2000, dport=53) / Raw(b"x" * 40)
            esp.append(eth(sa.encrypt(inner, seq_num=1)))
        for peer in (self.ike1, self.ike2):
            esp.append(eth(IP(src=peer, dst=VIP) / UDP(sport=500, dport=500) / Raw(b"\0" * 36)))
        wrpcap(os.path.join(tmp, "esp_in.pcap"), esp)
        wrpcap(os.path.join(tmp, "clear_in.pcap"),
               [eth(IP(src="10.9.0.1", dst=d) / UDP(sport=3000, dport=53) / Raw(b"y" * 40))
                for d in ("10.6.1.7", "10.6.2.7")])


def run(gw, ctl, tmp, plan):
    sock = os.path.join(tmp, "gw.sock")
    prefix = gwtest.file_prefix("hacl")
    stats = os.path.join(tmp, "stats.json")
    ok = True
    g = mon = None

    def fail(msg):
        nonlocal ok
        print("FAIL: %s" % msg)
        ok = False

    def req(text, want_ok=True):
        r = gwtest.ctl(ctl, sock, text, ())
        if (r.returncode == 0) != want_ok:
            fail("%s: rc %d: %s" % (text.strip(), r.returncode, r.stdout.strip()))
        return r.stdout

    def total(key):
        return gwtest.tel_total(prefix, key)

    def sa(spi, dirn):
        return gwtest.telemetry_sa(prefix, spi, dirn) or {}

    def pkts(spi, dirn):
        return sa(spi, dirn).get("pkts", 0)

    def grows(get, by, what):
        start = get()
        if not gwtest.wait_until(lambda: get() >= start + by, what, gws=[g]):
            fail("%s: stayed at %d" % (what, get()))
        return get()

    def none_while(names, what):
        """Once inactive_segment shows the change: 300 more of it, and names unchanged."""
        grows(lambda: total("inactive_segment"), 1, "inactive_segment after " + what)
        before = {n: f() for n, f in names.items()}
        grows(lambda: total("inactive_segment"), 300, "300 more inactive_segment, " + what)
        after = {n: f() for n, f in names.items()}
        moved = {n: after[n] - before[n] for n in names if after[n] != before[n]}
        if moved:
            fail("%s: still moving %s" % (what, moved))
        else:
            print("ok   %s: 300 drops as inactive_segment, %s unchanged" %
                  (what, ", ".join(sorted(names))))

    A = lambda: pkts(plan.a, "in")      # noqa: E731
    B = lambda: pkts(plan.b, "in")      # noqa: E731
    C = lambda: pkts(plan.c, "out")     # noqa: E731
    D = lambda: pkts(plan.d, "out")     # noqa: E731
    E = lambda: pkts(plan.e, "in")      # noqa: E731
    try:
        cfg = plan.config(os.path.join(tmp, "gw.cfg"))
        ports = gwtest.pcap_ports(tmp, ("clear_in.pcap,infinite_rx=1", "clear_out.pcap"),
                                  ("esp_in.pcap,infinite_rx=1", "esp_out.pcap"))
        cmd = gwtest.gw_cmd(gw, prefix, ports, app=["-f", cfg, "-u", "2", "-w", "0", "--ctrl",
                                                    sock, "--stats-file", stats, "--quiet",
                                                    "--cluster", "2@%s:1" % VIP])
        g = gwtest.Gateway(cmd)
        if not g.wait_ready():
            fail("the gateway did not start")
            return False
        # 1. segment 1 active
        grows(A, 64, "SA in A (segment 1)")
        grows(C, 64, "SA out C (segment 1)")
        grows(lambda: total("inactive_segment"), 200, "inactive_segment")
        grows(lambda: total("policy"), 20, "IKE of the active segment's peer to the SPD")
        sd = sa(plan.d, "out")
        d_drops = sd.get("drops", {}).get("inactive_segment", 0)
        if B() != 0 or D() != 0 or E() != 0 or sd.get("seq", -1) != 0 or d_drops == 0:
            fail("segment 2 inactive, yet B %d D %d E %d, D seq %s, D inactive drops %d" %
                 (B(), D(), E(), sd.get("seq"), d_drops))
        else:
            print("ok   segment 1 active: A, C pass; B, D, E (ESP in UDP) none; D used no "
                  "sequence number (%d of its packets dropped)" % d_drops)
        st = (sa(plan.a, "in").get("segment"), sa(plan.a, "in").get("segment_state"),
              sa(plan.d, "out").get("segment"), sd.get("segment_state"))
        if st != (1, "active", 2, "standby"):
            fail("SA segments in telemetry: %s" % (st,))
        out = req("segments\n")
        if "segments count 2 active 1 mask 0x0001 changes 0 address %s" % VIP not in out:
            fail("segments: %r" % out)
        j = json.loads(req("json segments\n").splitlines()[0])
        if j != {"count": 2, "active": "1", "mask": 1, "changes": 0, "address": [VIP]}:
            fail("json segments: %r" % j)
        tel = gwtest.telemetry(prefix, ["/vecsec_gw/segments"])
        tel = tel[0].get("/vecsec_gw/segments") if tel else None
        if not tel or tel.get("active") != "1" or tel.get("count") != 2:
            fail("/vecsec_gw/segments: %s" % tel)
        for bad in ("segment +3\n", "segment 1\n", "segment -0\n", "segment +x\n"):
            req(bad, want_ok=False)
        mon = subprocess.Popen([ctl, "-s", sock, "-j", "monitor"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
        # 2. both active (the monitor subscribed first: its OK before the changes)
        if not select.select([mon.stdout], [], [], 20)[0] or \
                mon.stdout.readline().strip() != '{"ok": true}':
            fail("vecsec-ctl -j monitor did not subscribe")
        req("segment +2\n")
        grows(B, 64, "SA in B after segment +2")
        grows(D, 64, "SA out D after segment +2")
        grows(E, 64, "SA in E (ESP in UDP) after segment +2")
        i0 = total("inactive_segment")
        grows(A, 300, "300 more of SA in A")
        if total("inactive_segment") != i0:
            fail("segments 1 and 2 active, yet %d more inactive_segment drops" %
                 (total("inactive_segment") - i0))
        else:
            print("ok   segment +2: B and D pass, no inactive_segment drops")
        # 3. segment 1 inactive
        req("segment -1\n")
        none_while({"SA in A": A, "SA out C": C}, "segment -1")
        grows(B, 64, "SA in B with segment 2 alone")
        grows(D, 64, "SA out D with segment 2 alone")
        # 4. none active: IKE of either peer stopped before the SPD
        req("segment -2\n")
        none_while({"SA in B": B, "SA out D": D, "SA in E": E,
                    "policy drops (IKE)": lambda: total("policy")},
                   "segment -2")
        # 5. an HA passive node's inbound SA: kernel-vecsec sends `sa in` for an SPI
        # no `spi alloc` gave (add_sa with update = FALSE); accepted, and never handed
        # out by a later `spi alloc` (this node's own get_spi)
        ha_spi = pick_spi(VIP, 2, 0x5000)
        req("sa in %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel src %s dst %s "
            "owner charon\n" % (ha_spi, gwtest.hexkey(KEY), PEER_IN, VIP))
        full = req("spi alloc %d %d owner charon\n" % (ha_spi, ha_spi), want_ok=False)
        other = req("spi alloc %d %d owner charon\n" % (ha_spi, ha_spi + 1)).split()
        st = (sa(ha_spi, "in").get("segment"), sa(ha_spi, "in").get("segment_state"))
        if "no free SPI" not in full or other[:2] != ["spi", str(ha_spi + 1)] or \
                st != (2, "standby"):
            fail("HA-installed SA %d: spi alloc %r, then %r; segment %s" %
                 (ha_spi, full, other, st))
        else:
            print("ok   sa in %d without spi alloc (HA passive node): installed, segment 2 "
                  "standby, never handed out by spi alloc" % ha_spi)
        out = req("segments\n")
        if "active none mask 0x0000 changes 3" not in out:
            fail("segments after the changes: %r" % out)

        # 6. the segments' owner (the client of the last `segment +N`) hangs up
        def conn(text):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.settimeout(20)
            c.connect(sock)
            c.sendall(text.encode())
            got = b""
            while not got.endswith(b"OK\n"):
                more = c.recv(4096)
                if not more or b"ERR" in got + more:
                    fail("%s: %r" % (text.strip(), got + more))
                got += more
            return c

        def hung(want, what):
            if not gwtest.wait_until(lambda: want in req("segments\n"), what, gws=[g]):
                fail("%s: %r" % (what, req("segments\n")))
        conn("subscribe\n").close()    # not the owner: vecsec-ctl's `segment +2` was
        hung("active none mask 0x0000 changes 3", "a stranger's subscription closing")
        owner = conn("segment +1\n")
        sub = conn("subscribe\n")
        owner.close()                   # a request connection of the owner: nothing
        if "active 1 mask 0x0001 changes 4" not in req("segments\n"):
            fail("segment +1 from this process: %r" % req("segments\n"))
        sub.close()
        hung("active none mask 0x0000 changes 5", "segment 1 dropped once the subscription "
             "of the process that set it closed")
        print("ok   the subscription of the process that set segment 1 closed: segment 1 "
              "dropped (another process's closing changed nothing)")
        rc, gout = g.stop()
        g = None
        if rc != 0:
            fail("gateway exited with %d:\n%s" % (rc, gout))
        s = gwtest.load_stats(stats)
        bad = {k: v for k, v in s["drops"].items()
               if k not in ("inactive_segment", "policy") and v != 0}
        if bad:
            fail("unexpected drops %s" % bad)
        ev = []
        while len(ev) < 5 and select.select([mon.stdout], [], [], 10)[0]:
            line = mon.stdout.readline()
            if not line:
                break
            if line.startswith("{") and '"segment"' in line:
                ev.append(json.loads(line))
        got = [(e["change"], e["by"], e["active"], e["time_ms"] > 0) for e in ev]
        if got != [("+2", "control", "1,2", True), ("-1", "control", "2", True),
                   ("-2", "control", "none", True), ("+1", "control", "1", True),
                   ("-1", "hangup", "none", True)]:
            fail("monitor: %s" % ev)
        else:
            print("ok   monitor: segment +2, -1, -2, +1, -1 by hangup with their time")
    finally:
        if mon is not None:
            mon.kill()
            mon.wait()
        if g is not None:
            g.kill()
        gwtest.eal_cleanup(prefix)
    return ok


def main():
    gw, ctl = sys.argv[1], sys.argv[2]
    if not self_check():
        print("FAIL: the test's own hash differs from strongSwan's values")
        return 1
    plan = Plan()
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-hacl-")
    try:
        plan.pcaps(tmp)
        ok = run(gw, ctl, tmp, plan)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
