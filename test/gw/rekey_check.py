#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw rekey and lifetimes while traffic flows (net_pcap infinite_rx on
the protected port, 64 distinct clear packets of one size, in a loop).

rekey: the gateway starts with SA out 5 and its SP. Through the control
socket, make-before-break: SA out 6 is added, then `replace sp` turns the
SP from protect 5 into protect 6 in one SPD swap; inbound, SA in 6 is
installed while SA in 5 is still up, then SA in 5 goes; finally SA out 5
is deleted. The ESP output is a named pipe read and checked as it comes
(nothing is stored but 700 frames to decrypt; a slow reader only slows
the gateway, net_pcap blocks). Checked on the ESP output: the SPI changes from 5
to 6 once, never back; each SA's sequence numbers run 1, 2, ... without a
gap; the packets around the swap decrypt (old key, then new key) to the
clear loop with no packet missing; port rx == esp_out == ESP packets in
the pcap, and no drop of any kind.

lifetime: a subscriber (vecsec-ctl monitor) is connected first; SA out 5
comes with lifetime-soft-packets 600 lifetime-hard-packets 1000: exactly
1000 ESP packets come out (seq 1..1000), the rest count as `expired`, and
the subscriber sees the soft event before the hard one. Then SA out 7 with
lifetime-hard-bytes: exactly floor(limit / packet size) packets pass.
Inbound: 10 forged ESP packets then 100 genuine ones, hard limit 50: the
forged ones spend nothing, exactly the first 50 decrypt, 50 are expired.

lifetime-proto: the same lifetimes on lookaside-protocol SAs (crypto_vecsec's
rte_security sessions; the worker's own op path, no rte_ipsec).

lifetime-native: the same on native SAs (type native: the gateway's own ESP).

usage: rekey_check.py GATEWAY_BINARY CTL_BINARY [rekey|lifetime|lifetime-proto|lifetime-native]
"""
import collections
import os
import struct
import subprocess
import sys
import tempfile
import threading
import time

from scapy.all import IP, UDP, Ether, Raw, wrpcap, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey, eal_cleanup, read_pcap, telemetry, telemetry_sa  # noqa: E402

KEY5 = bytes(range(0x40, 0x40 + 36))
KEY6 = bytes(range(0x80, 0x80 + 36))
NPKT = 64



def untime(line):
    """An event line without its " time S.MMM" (protocol 1.6), which must be there and
    within a day of now; "no time" marks a line without one."""
    import re
    m = re.match(r"(.*) time (\d+)\.\d{3}$", line)
    if m is None or abs(int(m.group(2)) - time.time()) > 86400:
        return line + " (no time)"
    return m.group(1)

def esp_fields(frame):
    """(spi, seq) of Ether/IPv4/ESP."""
    return struct.unpack("!II", frame[14 + 20:14 + 28])


class Gw:
    """A gateway with a control socket, run until finish() sends SIGTERM."""

    def __init__(self, gw, ctl, tmp, name, cfg_text):
        self.ctl = ctl
        self.tmp = tmp
        self.sock = os.path.join(tmp, name + ".sock")
        self.prefix = gwtest.file_prefix(name)
        self.stats = os.path.join(tmp, name + "-stats.json")
        self.esp_out = os.path.join(tmp, name + "-esp_out.pcap")      # a file or a pipe
        cfg = gwtest.write_config(os.path.join(tmp, name + ".cfg"), cfg_text)
        ports = gwtest.pcap_ports(tmp, ("clear_in.pcap,infinite_rx=1", name + "-clear_out.pcap"),
                                  ("empty.pcap", self.esp_out))
        cmd = gwtest.gw_cmd(gw, self.prefix, ports, app=[
            "-f", cfg, "-u", "2", "--ctrl", self.sock, "--stats-file", self.stats, "--quiet"])
        self.g = gwtest.Gateway(cmd, name="gateway " + name)
        self.proc = self.g.proc

    def ready(self):
        """Its "ready" line came (else FAIL printed)."""
        return self.g.wait_ready()

    def wait(self, cond, what):
        """Wait for cond() while the gateway runs (else FAIL printed)."""
        return gwtest.wait_until(cond, what, gws=[self.g])

    def req(self, text):
        r = gwtest.ctl(self.ctl, self.sock, text)
        return r.returncode, r.stdout

    def finish(self):
        rc, out = self.g.stop()
        return rc, out, gwtest.load_stats(self.stats)

    def kill(self):
        self.g.kill()
        eal_cleanup(self.prefix)


SA_TYPE = ""     # lifetime-proto: " type lookaside-protocol-offload"


def sa_line(dirn, spi, key, extra=""):
    return ("sa %s %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
            "src 172.31.1.1 dst 172.31.2.1%s%s\n" % (dirn, spi, hexkey(key), extra, SA_TYPE))


RT = "rt ipv4 dst 172.31.0.0/16 port 1\nrt ipv4 dst 10.0.0.0/8 port 0\n"


class EspWatch:
    """
    Reads the gateway's ESP output as it is written (tx_pcap is a named pipe,
    so nothing is stored: a slow reader only slows the gateway, net_pcap's
    writes block) and checks it in one pass: the SPI goes 5...5 6...6, each
    SA's seq 1, 2, ...; keeps the first 100 frames and 300 each side of the
    switch for decryption afterwards.
    """

    def __init__(self, path):
        self.path = path
        self.errors = []
        self.head, self.before, self.after = [], collections.deque(maxlen=300), []
        self.count = {5: 0, 6: 0}
        self.sw = None
        self.nframes = 0
        self.done = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        cur = 5
        try:
            for fr in read_pcap(self.path):
                if self.errors:
                    continue            # drain, so that the gateway is never blocked
                spi, seq = esp_fields(fr)
                if spi == 6 and cur == 5:
                    cur = 6
                    self.sw = self.nframes
                if spi != cur or spi not in self.count:
                    self.errors.append("ESP packet %d has SPI %d after SPI %d" %
                                       (self.nframes, spi, cur))
                    continue
                self.count[spi] += 1
                if seq != self.count[spi]:
                    self.errors.append("SA %d packet %d has seq %d" % (spi, self.count[spi], seq))
                    continue
                if self.nframes < 100:
                    self.head.append(fr)
                if cur == 5:
                    self.before.append(fr)
                elif len(self.after) < 300:
                    self.after.append(fr)
                self.nframes += 1
        finally:
            self.done = True


def rekey(gwbin, ctl, tmp, pkts, fail):
    esp_fifo = os.path.join(tmp, "rekey-esp_out.pcap")
    os.mkfifo(esp_fifo, 0o600)
    watch = EspWatch(esp_fifo)
    g = Gw(gwbin, ctl, tmp, "rekey", RT + sa_line("out", 5, KEY5) +
           sa_line("in", 5, KEY5, " inner ipv4") +
           "sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16\n")
    try:
        # each step waits for ESP seen on the output pipe (or the watch's first error)
        if not g.ready() or not g.wait(lambda: watch.count[5] >= 1000 or watch.errors or
                                       watch.done, "1000 ESP packets of SA 5"):
            fail("no traffic through SA out 5")
            return
        # make before break: the new SAs first, then the policy switch in one step
        rc, out = g.req(sa_line("out", 6, KEY6) + sa_line("in", 6, KEY6, " inner ipv4"))
        if rc != 0:
            fail("adding SA out 6 / in 6: %s" % out)
        rc, out = g.req("list\n")
        if "sa in 5 " not in out or "sa in 6 " not in out or "sa out 6 " not in out:
            fail("new SAs not up next to the old ones: %s" % out)
        # the switch: one request, one SPD swap (protocol 1.1)
        rc, out = g.req("replace sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16 "
                        "with protect 6\n")
        if rc != 0:
            fail("SP switch: %s" % out)
        if not g.wait(lambda: watch.count[6] >= 300 or watch.errors or watch.done,
                      "300 ESP packets of SA 6"):
            fail("no traffic through SA out 6")
        rc, out = g.req("del sa in 5\ndel sa out 5\n")
        if rc != 0:
            fail("deleting the old SAs: %s" % out)
        rc, out = g.req("list\n")
        if " 5 " in out.replace("protect 5", "") or "protect 6" not in out:
            fail("after the rekey: %s" % out)
        mark = watch.count[6]
        if not g.wait(lambda: watch.count[6] >= mark + 300 or watch.errors or watch.done,
                      "300 more ESP packets of SA 6 after the old SAs went"):
            fail("traffic stopped after deleting the old SAs")
        rc, out, st = g.finish()
        if rc != 0:
            fail("gateway exited %d: %s" % (rc, out))
    finally:
        g.kill()
    watch.thread.join(timeout=60)
    if not watch.done:
        fail("the ESP output did not end")
        return
    for e in watch.errors:
        fail(e)
    if watch.errors:
        return
    head, before, after = watch.head, watch.before, watch.after
    sw, nframes = watch.sw, watch.nframes
    if sw is None or sw == 0:
        fail("no switch from SPI 5 to SPI 6 (%s)" % watch.count)
        return
    # decrypt around the swap (and the start): one unbroken walk through the clear loop
    sas = {5: SecurityAssociation(ESP, spi=5, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY5,
                                  tunnel_header=IP(src="172.31.1.1", dst="172.31.2.1")),
           6: SecurityAssociation(ESP, spi=6, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY6,
                                  tunnel_header=IP(src="172.31.1.1", dst="172.31.2.1"))}
    originals = {raw(p): i for i, p in enumerate(pkts)}
    checked = 0
    for seg in (head[:sw], list(before) + after):
        prev = None
        for fr in seg:
            spi = esp_fields(fr)[0]
            try:
                d = raw(sas[spi].decrypt(Ether(fr)[IP]))
            except Exception as e:      # authentication failure
                fail("an ESP packet of SPI %d does not decrypt: %s" % (spi, e))
                return
            idx = originals.get(d)
            if idx is None:
                fail("an ESP packet of SPI %d decrypts to no clear packet" % spi)
                return
            if prev is not None and idx != (prev + 1) % NPKT:
                fail("clear packet missing around ESP packet %d (SPI %d)" % (checked, spi))
                return
            prev = idx
            checked += 1
    rx = st["ports"]["0"]["rx"] if "ports" in st else None
    bad = {k: v for k, v in st["drops"].items() if v != 0}
    if bad:
        fail("drops during the rekey: %s" % bad)
    if st["esp_out"] != nframes:
        fail("esp_out %d, pcap has %d" % (st["esp_out"], nframes))
    if rx is not None and rx != st["esp_out"]:
        fail("port 0 rx %d != esp_out %d" % (rx, st["esp_out"]))
    print("ok   rekey: %d ESP packets, SPI 5 for %d then SPI 6 for %d, seq unbroken, "
          "%d decrypted around the swap in loop order, port rx %s, no drops" %
          (nframes, sw, nframes - sw, checked, rx))


def lifetime(gwbin, ctl, tmp, pkts, fail):
    plen = len(raw(pkts[0]))
    hard_bytes = 300 * plen + plen // 2         # 300 packets fit, the 301st does not
    g = Gw(gwbin, ctl, tmp, "life", RT)
    mon = None
    try:
        if not g.ready():
            fail("the gateway did not start")
            return
        mon = subprocess.Popen([ctl, "-s", g.sock, "monitor"], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True)
        first = mon.stdout.readline()
        if not first.startswith("OK"):
            fail("monitor: %r" % first)
        rc, out = g.req(sa_line("out", 5, KEY5, " lifetime-soft-packets 600 "
                                "lifetime-hard-packets 1000") +
                        "sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16\n")
        if rc != 0:
            fail("adding SA 5 with lifetimes: %s" % out)
        rc, out = g.req("sa out 0x5 aead_algo chacha20-poly1305 aead_key %s mode transport "
                        "lifetime-soft-packets 9 lifetime-hard-packets 9\n" % hexkey(KEY6))
        if rc == 0 or hexkey(KEY6) in out:
            fail("soft == hard accepted, or key echoed: %s" % out)
        # SA 5 sends until its hard limit
        if not g.wait(lambda: (telemetry_sa(g.prefix, 5) or {}).get("expired") == "hard",
                      "SA out 5's hard packet limit"):
            fail("SA out 5 did not reach its hard limit")
        # the hard limit flips when sequence number 1000 is taken; the packets
        # still in the crypto and tx bursts count a little later: wait for them
        g.wait(lambda: (telemetry_sa(g.prefix, 5) or {}).get("pkts") == 1000 and
               (telemetry_sa(g.prefix, 5) or {}).get("drops", {}).get("expired", 0) > 0,
               "SA out 5's 1000 packets and an expired drop in its telemetry")
        tel = telemetry(g.prefix, ["/vecsec_gw/sa,out,5"])
        if tel:
            one = tel[0]["/vecsec_gw/sa"]
            if one.get("pkts") != 1000 or one.get("drops", {}).get("expired", 0) == 0 or \
                    one.get("expired") != "hard" or one.get("lifetime", {}).get("hard_packets") != 1000:
                fail("telemetry of SA 5: %s" % one)
        rc, out = g.req("list\n")
        if "lifetime-soft-packets 600 lifetime-hard-packets 1000" not in out or \
                "soft-expired hard-expired" not in out:
            fail("list does not show SA 5's lifetimes and state: %s" % out)
        rc, out = g.req("del sa out 5\n" + sa_line(
            "out", 7, KEY6, " lifetime-soft-bytes %d lifetime-hard-bytes %d" %
            (100 * plen, hard_bytes)) + "sp ipv4 out esp protect 7 pri 10 dst 10.5.0.0/16\n")
        if rc != 0:
            fail("SA 7: %s" % out)
        if not g.wait(lambda: (telemetry_sa(g.prefix, 7) or {}).get("expired") == "hard",
                      "SA out 7's hard byte limit"):
            fail("SA out 7 did not reach its hard limit")
        rc, out, st = g.finish()
        if rc != 0:
            fail("gateway exited %d" % rc)
        mout, _ = mon.communicate(timeout=30)
    finally:
        if mon is not None and mon.poll() is None:
            mon.kill()
            mon.wait()
        g.kill()
    events = [untime(l) for l in (first + mout).split("\n") if l.startswith("expire")]
    want = ["expire soft out 5 packets 600", "expire hard out 5 packets 1000",
            "expire soft out 7 bytes %d" % (100 * plen), "expire hard out 7 bytes %d" % hard_bytes]
    if events != want:
        fail("events %s, want %s" % (events, want))
    n5, n7 = [], []
    for fr in read_pcap(g.esp_out):
        spi, seq = esp_fields(fr)
        (n5 if spi == 5 else n7).append(seq)
    if n5 != list(range(1, 1001)):
        fail("SA 5 sent %d packets (want exactly 1000, seq 1..1000)" % len(n5))
    if n7 != list(range(1, 301)):
        fail("SA 7 sent %d packets (want exactly 300 of %d bytes under %d)" %
             (len(n7), plen, hard_bytes))
    d = st["drops"]
    bad = {k: v for k, v in d.items() if k not in ("policy", "expired") and v != 0}
    if bad:
        fail("unexpected drops %s" % bad)
    rx = st["ports"]["0"]["rx"] if "ports" in st else None
    if rx is not None and rx != d["policy"] + d["expired"] + st["esp_out"]:
        fail("rx %d != policy %d + expired %d + esp_out %d" %
             (rx, d["policy"], d["expired"], st["esp_out"]))
    if st["esp_out"] != 1300 or d["expired"] == 0:
        fail("esp_out %d, expired %d" % (st["esp_out"], d["expired"]))
    print("ok   lifetime: SA 5 exactly 1000 packets, SA 7 exactly 300 (bytes limit), "
          "expired %d, events in order: %s" % (d["expired"], "; ".join(events)))


def lifetime_in(gwbin, ctl, tmp, pkts, fail):
    """Inbound: forged packets spend no lifetime; exactly the hard limit decrypts."""
    prefix = gwtest.file_prefix("lifein")
    sa = SecurityAssociation(ESP, spi=5, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY5,
                             tunnel_header=IP(src="172.31.2.1", dst="172.31.1.1"))
    esp_in = []
    for k in range(10):                 # forged: the ICV's last byte flipped
        b = bytearray(raw(sa.encrypt(pkts[k % NPKT], seq_num=k + 1)))
        b[-1] ^= 1
        esp_in.append(eth(IP(bytes(b))))
    for k in range(100):
        esp_in.append(eth(sa.encrypt(pkts[k % NPKT], seq_num=k + 1)))
    wrpcap(os.path.join(tmp, "lifein_esp.pcap"), esp_in)
    cfg = gwtest.write_config(os.path.join(tmp, "lifein.cfg"), RT + sa_line("in", 5, KEY5, " lifetime-soft-packets 20 lifetime-hard-packets 50")
                .replace("src 172.31.1.1 dst 172.31.2.1", "src 172.31.2.1 dst 172.31.1.1") +
                "sp ipv4 in esp protect 5 pri 10 dst 10.5.0.0/16\n")
    stats = os.path.join(tmp, "lifein-stats.json")
    cmd = gwtest.gw_cmd(gwbin, prefix, gwtest.pcap_ports(
        tmp, ("empty.pcap", "lifein_clear.pcap"), ("lifein_esp.pcap", "lifein_out.pcap")),
        app=gwtest.pcap_run(cfg, stats) + ["--ctrl", os.path.join(tmp, "lifein.sock")])
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                           universal_newlines=True)
    finally:
        eal_cleanup(prefix)
    if r.returncode != 0:
        fail("inbound lifetime gateway exited %d: %s" % (r.returncode, r.stdout))
        return
    events = [untime(l.split("vecsec-gw: ", 1)[1]) for l in r.stdout.split("\n")
              if l.startswith("vecsec-gw: expire")]
    if events != ["expire soft in 5 packets 20", "expire hard in 5 packets 50"]:
        fail("inbound events %s" % events)
    clear = [f[14:] for f in read_pcap(os.path.join(tmp, "lifein_clear.pcap"))]
    if clear != [raw(pkts[k % NPKT]) for k in range(50)]:
        fail("inbound: %d clear packets out, want the first 50 in order" % len(clear))
    st = gwtest.load_stats(stats)
    d = {k: v for k, v in st["drops"].items() if v != 0}
    if d != {"auth_failed": 10, "expired": 50}:
        fail("inbound drops %s, want auth_failed 10, expired 50" % d)
    else:
        print("ok   inbound lifetime: 10 forged packets spend nothing, exactly 50 of 100 "
              "decrypt, 50 expired, events: %s" % "; ".join(events))


def main():
    gwbin, ctl = sys.argv[1], sys.argv[2]
    # the rekey's ESP output is read through a pipe as it comes: nothing big is stored
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-rekey-")
    ok = True

    def fail(msg):
        nonlocal ok
        print("FAIL:", msg)
        ok = False

    try:
        pkts = [IP(src="192.168.9.%d" % (k + 1), dst="10.5.0.7", id=k) /
                UDP(sport=1000 + k, dport=53) / Raw(bytes((k + i) & 0xff for i in range(40)))
                for k in range(NPKT)]
        wrpcap(os.path.join(tmp, "clear_in.pcap"), [eth(p) for p in pkts])
        gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
        what = sys.argv[3] if len(sys.argv) > 3 else "all"
        global SA_TYPE
        if what == "lifetime-native":
            SA_TYPE = " type native"         # the gateway's own ESP (esp_native.c)
            what = "lifetime"
        if what == "lifetime-proto":
            SA_TYPE = " type lookaside-protocol-offload"
            what = "lifetime"
        if what in ("all", "rekey"):
            rekey(gwbin, ctl, tmp, pkts, fail)
        if what in ("all", "lifetime"):
            lifetime(gwbin, ctl, tmp, pkts, fail)
            lifetime_in(gwbin, ctl, tmp, pkts, fail)
    finally:
        gwtest.cleanup(tmp)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
