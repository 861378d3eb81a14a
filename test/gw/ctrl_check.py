#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw control socket while traffic flows: the protected port replays
clear packets forever (net_pcap infinite_rx), the gateway starts with routes
only, so everything is dropped by policy until vecsec-ctl adds an SA and an
SP; then ESP comes out (checked with scapy: it decrypts to the originals, in
sequence); replacing the SP with discard stops it at once, though the
worker's SPD flow cache holds the 4 replayed flows' old answer (`mem`
shows its hits); deleting the SP and SA stops it again. Also: bad requests get ERR
with a reason and never echo key bytes; the gateway exits cleanly.

With --lookaside-protocol the SA added at run time is `type
lookaside-protocol-offload` (crypto_vecsec's rte_security ESP session).

usage: ctrl_check.py GATEWAY_BINARY CTL_BINARY [--lookaside-protocol]
"""
import random
import re
import os
import signal
import struct
import sys
import tempfile

from scapy.all import IP, UDP, Ether, Raw, wrpcap, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth  # noqa: E402

KEY = bytes(range(0x40, 0x40 + 36))
HEXKEY = gwtest.hexkey(KEY)


def main():
    gw, ctl = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-ctrl-")
    sock = os.path.join(tmp, "gw.sock")
    ok = True
    g = None
    prefix = gwtest.file_prefix("ctrl")

    def fail(msg):
        nonlocal ok
        print("FAIL:", msg)
        ok = False

    def req(*words, stdin=None, want_ok=True):
        r = gwtest.ctl(ctl, sock, stdin, () if stdin is not None else words)
        shown = " ".join(words) if stdin is None else "<stdin>"
        if HEXKEY in r.stdout or "40:41:42" in r.stdout:
            fail("key bytes in an answer to %s" % shown)
        if (r.returncode == 0) != want_ok:
            fail("%s: rc %d: %s" % (shown, r.returncode, r.stdout.strip()))
        else:
            print("ok   %-60s -> %s" % (shown[:60], r.stdout.strip().split("\n")[-1][:70]))
        return r.stdout

    try:
        pkts = [IP(src="192.168.9.%d" % (k + 1), dst="10.5.0.7") / UDP(sport=1000 + k, dport=53) /
                Raw(bytes((k + i) & 0xff for i in range(40 + k))) for k in range(4)]
        wrpcap(os.path.join(tmp, "clear_in.pcap"), [eth(p) for p in pkts])
        gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"),
                                  "rt ipv4 dst 172.31.0.0/16 port 1\nrt ipv4 dst 10.0.0.0/8 port 0\n")
        stats = os.path.join(tmp, "stats.json")
        ports = gwtest.pcap_ports(tmp, ("clear_in.pcap,infinite_rx=1", "clear_out.pcap"),
                                  ("empty.pcap", "esp_out.pcap"))
        # runs until the SIGTERM at the end: every step waits for what it needs
        cmd = gwtest.gw_cmd(gw, prefix, ports, app=["-f", cfg, "-u", "2", "--ctrl", sock,
                                                    "--stats-file", stats, "--quiet"])
        g = gwtest.Gateway(cmd)
        proc = g.proc
        if not g.wait_ready():
            fail("the gateway did not start")
            return 1
        if os.stat(sock).st_mode & 0o077:
            fail("control socket is accessible to others: %o" % os.stat(sock).st_mode)
        if req("list").strip() != "OK":
            fail("list is not empty at start")
        # add while packets flow: SA first (as strongSwan does), then its policy
        sa = ("sa out 5 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
              "src 172.31.1.1 dst 172.31.2.1%s\n" % (HEXKEY, " type lookaside-protocol-offload"
                                                     if "--lookaside-protocol" in sys.argv[3:]
                                                     else ""))
        req(stdin=sa + "sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16\n")
        out = req("list")
        if "sa out 5 chacha20-poly1305 ipv4-tunnel" not in out or "protect 5" not in out:
            fail("list does not show the new SA and SP")
        # ESP of SA 5 flows (what the checks below count on)
        if not gwtest.wait_until(lambda: gwtest.tel_total(prefix, "esp_out") >= 8,
                                 "ESP out of SA 5", gws=[g]):
            fail("no ESP after adding SA 5")
        # errors: each gets ERR and a reason
        req("sa", "out", "5", "aead_algo", "chacha20-poly1305", "aead_key", HEXKEY, "mode",
            "transport", want_ok=False)                           # defined twice
        req("sp", "ipv4", "out", "esp", "protect", "99", want_ok=False)   # no such SA
        req("sa", "out", "6", "aead_algo", "chacha20-poly1305", "aead_key", "1:2:3",
            "mode", "transport", want_ok=False)                   # short key, not echoed
        req("rt", "ipv4", "dst", "1.0.0.0/8", "port", "9", want_ok=False)  # no port 9 (1.7)
        req("del", "sa", "in", "5", want_ok=False)
        req("del", "sp", "ipv4", "out", "esp", "bypass", want_ok=False)
        req("frobnicate", want_ok=False)
        req(HEXKEY.replace(":", ""), want_ok=False)               # unknown word: not echoed
        # replace sp (protocol 1.1): one rule's action swapped in one SPD swap
        ver = req("version").split("\n")[0].split()
        if len(ver) != 2 or ver[0] != "version" or ver[1].split(".")[0] != "1" or \
                int(ver[1].split(".")[1]) < 1:
            fail("version is not 1.x, x >= 1: %s" % ver)
        req("sp", "ipv4", "in", "esp", "bypass", "pri", "5", "dst", "10.99.0.0/16")
        byp = ["sp", "ipv4", "in", "esp", "bypass", "pri", "5", "dst", "10.99.0.0/16"]
        req("replace", *byp, want_ok=False)                               # no `with`
        req("replace", *byp, "with", "protect", "5", want_ok=False)       # no SA in 5
        req("replace", *byp, "with", "protect", HEXKEY, want_ok=False)    # not echoed
        req("replace", *byp, "with", "protect", "0", want_ok=False)       # SPI 0 reserved
        req("replace", *byp, "with", "protect", "-5", want_ok=False)
        req("replace", *byp, "with", "discard", "now", want_ok=False)     # trailing word
        req("replace", *byp, "with", "frob", want_ok=False)
        req("replace", *byp[:-1], "10.98.0.0/16", "with", "discard", want_ok=False)  # no rule
        req("replace", "sa", "out", "8", "aead_algo", "chacha20-poly1305", "aead_key",
            HEXKEY, "mode", "transport", "with", "discard", want_ok=False)  # an sa: not echoed
        req(stdin="replace sa out 8 aead_algo chacha20-poly1305 aead_key %s mode transport "
            "with protect 5\n" % HEXKEY, want_ok=False)
        req(stdin="replace sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16 with protect 5 "
            "aead_key %s\n" % HEXKEY, want_ok=False)
        req("replace", *byp, "with", "discard")
        out = req("list")
        if "sp ipv4 in esp discard pri 5 src 0.0.0.0/0 dst 10.99.0.0/16" not in out or \
                "bypass" in out:
            fail("replace did not turn the bypass rule into discard: %s" % out)
        req("del", "sp", "ipv4", "in", "esp", "discard", "pri", "5", "dst", "10.99.0.0/16")
        # random requests on one connection: one answer each, the gateway lives on
        rnd = random.Random(2)
        words = ["sa", "sp", "del", "in", "out", "5", "6", "99", "ipv4", "ipv6", "esp",
                 "protect", "bypass", "discard", "pri", "dst", "10.5.0.0/16", "mode",
                 "transport", "ipv4-tunnel", "aead_algo", "chacha20-poly1305", "aead_key",
                 "list", "stats", "inner", "src", "1.1.1.1", "x" * 200, "0x5", "-1", "",
                 "replace", "with", "version"]
        reqs = []
        for _ in range(200):
            line = " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 12))).strip()
            if line and not line.startswith("#") and not line.startswith("del sa out 5") \
                    and not line.startswith("del sp") and not line.startswith("sp ") \
                    and not line.startswith("sa "):
                reqs.append(line)
        out = req(stdin="\n".join(reqs) + "\n", want_ok=False)
        answers = [l for l in out.split("\n") if l.startswith("OK") or l.startswith("ERR")]
        if len(answers) != len(reqs) or proc.poll() is not None:
            fail("%d random requests, %d answers" % (len(reqs), len(answers)))
        else:
            print("ok   %d random requests, one answer each" % len(reqs))
        st = req("stats")
        if "SA out 5" not in st:
            fail("stats do not show SA out 5")
        # the same counters through DPDK telemetry
        tel = gwtest.telemetry(prefix, ["/vecsec_gw/stats", "/vecsec_gw/sa"])
        if tel is None:
            fail("no DPDK telemetry socket for %s" % prefix)
        else:
            stats_t, sa_list = tel
            if stats_t["/vecsec_gw/stats"]["esp_out"] == 0 or \
                    sa_list["/vecsec_gw/sa"].get("out") != [5]:
                fail("telemetry: %s %s" % (stats_t, sa_list))
            else:
                one = gwtest.telemetry(prefix, ["/vecsec_gw/sa,out,5"])[0]["/vecsec_gw/sa"]
                if one["spi"] != 5 or one["pkts"] == 0:
                    fail("telemetry SA: %s" % one)
                else:
                    print("ok   telemetry: esp_out %d, SA 5 pkts %d" %
                          (stats_t["/vecsec_gw/stats"]["esp_out"], one["pkts"]))
        proc.send_signal(signal.SIGUSR1)        # stats on stdout now
        if not g.wait_line("vecsec-gw: stats after"):
            fail("no stats on SIGUSR1")
        # outbound, under traffic: protect 5 -> discard in one request (policy drops)
        m = re.search(r"mem worker 0 spd-cache (\d+) hits (\d+) misses (\d+)", req("mem"))
        if m is None or int(m.group(1)) == 0 or int(m.group(2)) == 0:
            fail("mem: no SPD flow cache hits for the 4 replayed flows: %s" %
                 (m.group(0) if m else None))
        else:
            print("ok   SPD flow cache: %s" % m.group(0))
        pol0 = gwtest.tel_total(prefix, "policy")
        req("replace", "sp", "ipv4", "out", "esp", "protect", "5", "pri", "10", "dst",
            "10.5.0.0/16", "with", "discard")
        if "sp ipv4 out esp discard pri 10" not in req("list"):
            fail("outbound replace not listed")
        # the flows' cached answer (protect 5) belongs to the list replaced: once
        # policy drops show the new list in force, no more ESP may come out
        if gwtest.wait_until(lambda: gwtest.tel_total(prefix, "policy") > pol0, "policy drops",
                             gws=[g]):
            esp0, pol1 = gwtest.tel_total(prefix, "esp_out"), gwtest.tel_total(prefix, "policy")
            gwtest.wait_until(lambda: gwtest.tel_total(prefix, "policy") >= pol1 + 200,
                              "200 more policy drops", gws=[g])
            esp1 = gwtest.tel_total(prefix, "esp_out")
            if esp1 != esp0:
                fail("%d ESP packets of the replaced rule after it was replaced" %
                     (esp1 - esp0))
            else:
                print("ok   protect -> discard: no ESP once the new policy drops")
        req("del", "sp", "ipv4", "out", "esp", "discard", "pri", "10", "dst", "10.5.0.0/16")
        req("del", "sa", "out", "5")
        if req("list").strip() != "OK":
            fail("list is not empty after the deletes")
        # and again, so a reused slot is exercised
        req(stdin=sa.replace("out 5", "out 7") + "sp ipv4 out esp protect 7 dst 10.5.0.0/16\n")
        req("del", "sa", "out", "7")
        rc, out = g.stop()
        print(out)
        if out.count("vecsec-gw: stats after") < 2:
            fail("no stats on SIGUSR1")
        if proc.returncode != 0:
            fail("gateway exited with %d" % proc.returncode)
        if os.path.exists(sock):
            fail("control socket left behind")

        # what came out while SA 5 was up decrypts to the clear packets, in order
        sa5 = SecurityAssociation(ESP, spi=5, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY,
                                  tunnel_header=IP(src="172.31.1.1", dst="172.31.2.1"))
        n = 0
        first = 0
        by_spi = {5: 0, 7: 0}
        for frame in gwtest.read_pcap(os.path.join(tmp, "esp_out.pcap")):
            spi = struct.unpack("!I", frame[14 + 20:14 + 24])[0]  # Ether, IPv4, ESP
            by_spi[spi] = by_spi.get(spi, 0) + 1
            if spi != 5 or n >= 200:
                continue
            p = Ether(frame)[IP]
            if p[ESP].seq != n + 1:
                fail("SA 5 packet %d has seq %d" % (n, p[ESP].seq))
                n = 200
                continue
            d = sa5.decrypt(p)
            if n == 0:
                # the replay loop was anywhere in its 4 packets when SA 5 came up
                originals = [raw(q) for q in pkts]
                first = originals.index(raw(d)) if raw(d) in originals else 0
            if raw(d) != raw(pkts[(first + n) % 4]):
                fail("SA 5 packet %d decrypts to something else" % n)
                n = 200
                continue
            n += 1
        if n < 4:
            fail("only %d ESP packets of SA 5" % n)
        else:
            print("ok   %d ESP packets of SA 5 decrypt to the originals (%d of SA 5, %d of SA 7 "
                  "in all)" % (n, by_spi[5], by_spi[7]))
        s = gwtest.load_stats(stats)
        if s["drops"]["policy"] == 0:
            fail("no policy drops before/after the SA")
        bad = {k: v for k, v in s["drops"].items() if k != "policy" and v != 0}
        if bad:
            fail("unexpected drops %s" % bad)
        if s["esp_out"] != by_spi[5] + by_spi[7]:
            fail("esp_out %d, pcap has %d" % (s["esp_out"], by_spi[5] + by_spi[7]))
    finally:
        if g is not None:
            g.kill()
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
