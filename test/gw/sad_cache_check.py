#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw SAD cache (fcache.h) while the SAD changes under traffic.

The ESP port replays 4 ESP packets of SA in 5 forever (net_pcap
infinite_rx, replay window off: the same numbers come again and again), so
the worker's SAD cache holds their key after the first burst. Through the
control socket, each step waiting for what it needs, never for time:

  1. SA in 5 and its policy added: the packets come out in clear (esp_in
     grows), `mem` shows SAD cache hits;
  2. SA in 5 and its policy deleted: once no_sa drops show the SAD change
     in force, 300 more no_sa drops and not one more esp_in (the cached
     answer belonged to the SAD before the change);
  3. SA in 5 added again with another key (it may take the same table
     slot): auth_failed grows, esp_in does not;
  4. deleted, added with the right key: esp_in grows again.
Also with --sad-cache 0 (no cache: every packet through rte_ipsec_sad), the
same steps; `mem` then shows a cache of 0 bytes. No other drop reason
appears; the gateway exits cleanly.

usage: sad_cache_check.py GATEWAY_BINARY CTL_BINARY
"""
import os
import re
import sys
import tempfile

from scapy.all import IP, UDP, Raw, wrpcap
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth  # noqa: E402

KEY = bytes(range(0x50, 0x50 + 36))
BAD = bytes(range(0x90, 0x90 + 36))


def run(gw, ctl, tmp, cache):
    sock = os.path.join(tmp, "gw-%s.sock" % cache)
    prefix = gwtest.file_prefix("sadc")
    ok = True
    g = None

    def fail(msg):
        nonlocal ok
        print("FAIL (--sad-cache %s): %s" % (cache, msg))
        ok = False

    def req(stdin):
        r = gwtest.ctl(ctl, sock, stdin, ())
        if r.returncode != 0:
            fail("%s: rc %d: %s" % (stdin.strip(), r.returncode, r.stdout.strip()))
        return r.stdout

    def sa(key):
        return ("sa in 5 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                "src 172.31.2.1 dst 172.31.1.1\n" % gwtest.hexkey(key))

    sp = "sp ipv4 in esp protect 5 pri 10 dst 10.5.0.0/16\n"
    undo = "del sp ipv4 in esp protect 5 pri 10 dst 10.5.0.0/16\ndel sa in 5\n"

    def grows(key, by, what):
        """Wait until total `key` grew by `by` from now; its value then."""
        start = gwtest.tel_total(prefix, key)
        if not gwtest.wait_until(lambda: gwtest.tel_total(prefix, key) >= start + by, what,
                                 gws=[g]):
            fail("%s: %s stayed at %d" % (what, key, gwtest.tel_total(prefix, key)))
        return gwtest.tel_total(prefix, key)

    try:
        stats = os.path.join(tmp, "stats-%s.json" % cache)
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"),
                                  "rt ipv4 dst 10.5.0.0/16 port 0\n"
                                  "rt ipv4 dst 172.31.0.0/16 port 1\n")
        ports = gwtest.pcap_ports(tmp, ("empty.pcap", "clear_out-%s.pcap" % cache),
                                  ("esp_in.pcap,infinite_rx=1", "esp_out-%s.pcap" % cache))
        cmd = gwtest.gw_cmd(gw, prefix, ports, app=["-f", cfg, "-u", "2", "-w", "0", "--ctrl",
                                                    sock, "--stats-file", stats, "--quiet"] +
                            (["--sad-cache", cache] if cache != "default" else []))
        g = gwtest.Gateway(cmd)
        if not g.wait_ready():
            fail("the gateway did not start")
            return False
        # 1. in force: clear packets out, from the cache
        req(sa(KEY) + sp)
        grows("esp_in", 64, "esp_in with SA in 5")
        m = re.search(r"mem worker 0 spd-cache \d+ hits \d+ misses \d+ sad-cache (\d+) hits "
                      r"(\d+) misses (\d+)", req("mem\n"))
        if m is None:
            fail("mem shows no SAD cache line")
        elif cache == "0" and (int(m.group(1)), int(m.group(2))) != (0, 0):
            fail("--sad-cache 0, yet: %s" % m.group(0))
        elif cache != "0" and (int(m.group(1)) == 0 or int(m.group(2)) == 0):
            fail("no SAD cache hits for the replayed packets: %s" % m.group(0))
        else:
            print("ok   %s" % m.group(0))
        def none_while(drop, what):
            """Once `drop` shows the change in force: 300 more of it, not one esp_in."""
            grows(drop, 1, "%s after %s" % (drop, what))
            e0 = gwtest.tel_total(prefix, "esp_in")
            grows(drop, 300, "300 more %s" % drop)
            e1 = gwtest.tel_total(prefix, "esp_in")
            if e1 != e0:
                fail("%d packets decrypted after %s" % (e1 - e0, what))
            else:
                print("ok   %s: %s, no esp_in" % (what, drop))

        # 2. deleted: once no_sa shows it, no more clear packets
        req(undo)
        none_while("no_sa", "SA in 5 deleted")
        # 3. the same SPI, another key: authentication fails, nothing comes out
        req(sa(BAD) + sp)
        none_while("auth_failed", "SA in 5 added with another key")
        # 4. the right key again: packets come out again
        req(undo + sa(KEY) + sp)
        grows("esp_in", 64, "esp_in with SA in 5 again")
        print("ok   SA in 5 with its key again: esp_in grows")
        rc, out = g.stop()
        g = None
        if rc != 0:
            fail("gateway exited with %d:\n%s" % (rc, out))
        s = gwtest.load_stats(stats)
        bad = {k: v for k, v in s["drops"].items()
               if k not in ("no_sa", "auth_failed", "policy") and v != 0}
        if bad:
            fail("unexpected drops %s" % bad)
    finally:
        if g is not None:
            g.kill()
        gwtest.eal_cleanup(prefix)
    return ok


def main():
    gw, ctl = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-sadc-")
    try:
        return check(gw, ctl, tmp)
    finally:
        gwtest.cleanup(tmp)


def check(gw, ctl, tmp):
    inner = [IP(src="192.168.9.%d" % (k + 1), dst="10.5.0.%d" % (k + 7)) /
             UDP(sport=2000 + k, dport=53) / Raw(bytes((k + i) & 0xff for i in range(30 + k)))
             for k in range(4)]
    sa5 = SecurityAssociation(ESP, spi=5, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY,
                              tunnel_header=IP(src="172.31.2.1", dst="172.31.1.1"))
    wrpcap(os.path.join(tmp, "esp_in.pcap"),
           [eth(sa5.encrypt(p, seq_num=k + 1)) for k, p in enumerate(inner)])
    gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
    ok = True
    for cache in ("default", "0"):
        ok = run(gw, ctl, tmp, cache) and ok
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
