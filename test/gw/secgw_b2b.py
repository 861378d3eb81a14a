#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw back to back with DPDK's stock ipsec-secgw (built unmodified by
tools/external/build-secgw.sh), in a network namespace this test creates and
deletes. Each gateway has a clear and an ESP tap; a bridge joins the two
ESP taps (the gateways send ESP to MACs the bridge does not know, so it
floods them to the other tap: a tap's own MAC would stop at the bridge). Both read ipsec-secgw configurations (mirrored SAs, the same
command-line meaning of -u), ChaCha20-Poly1305 tunnel SAs:

  A: scapy -> secgw clear tap -> ipsec-secgw encrypts (SA 5) -> bridge ->
     vecsec-gw decrypts -> vecsec-gw clear tap -> scapy: the same packets
  B: scapy -> vecsec-gw clear tap -> vecsec-gw encrypts (SA 6) -> bridge ->
     ipsec-secgw decrypts -> secgw clear tap -> scapy: the same packets

usage: secgw_b2b.py GATEWAY_BINARY SECGW_BINARY [BUILD_SECGW_SH OUT_DIR]   (as root)
(with BUILD_SECGW_SH, ipsec-secgw is built first: the script is idempotent)
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

N = 20
KEY5 = ":".join("%02x" % (0x40 + i) for i in range(36))
KEY6 = ":".join("%02x" % (0x80 + i) for i in range(36))
MAC = {"sc": "02:00:00:00:01:10", "se": "02:00:00:00:01:11",
       "vc": "02:00:00:00:02:10", "ve": "02:00:00:00:02:11"}

SECGW_CFG = """\
sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16 sport 0:65535 dport 0:65535
sp ipv4 in esp protect 6 pri 1 dst 10.6.0.0/16 sport 0:65535 dport 0:65535
sa out 5 aead_algo chacha20-poly1305 aead_key %(k5)s mode ipv4-tunnel src 172.31.1.1 dst 172.31.2.1
sa in 6 aead_algo chacha20-poly1305 aead_key %(k6)s mode ipv4-tunnel src 172.31.2.1 dst 172.31.1.1
rt ipv4 dst 172.31.2.0/24 port 1
rt ipv4 dst 10.0.0.0/8 port 0
neigh port 0 02:00:00:00:01:20
neigh port 1 02:00:00:00:03:02
""" % dict(k5=KEY5, k6=KEY6)

VECSEC_CFG = """\
sp ipv4 in esp protect 5 pri 1 dst 10.5.0.0/16 sport 0:65535 dport 0:65535
sp ipv4 out esp protect 6 pri 1 dst 10.6.0.0/16 sport 0:65535 dport 0:65535
sa in 5 aead_algo chacha20-poly1305 aead_key %(k5)s mode ipv4-tunnel src 172.31.1.1 dst 172.31.2.1
sa out 6 aead_algo chacha20-poly1305 aead_key %(k6)s mode ipv4-tunnel src 172.31.2.1 dst 172.31.1.1
rt ipv4 dst 172.31.1.0/24 port 1
rt ipv4 dst 10.0.0.0/8 port 0
neigh port 0 02:00:00:00:02:20
neigh port 1 02:00:00:00:03:01
""" % dict(k5=KEY5, k6=KEY6)


def sh(*cmd, check=True):
    return subprocess.run(list(cmd), check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True).stdout


def links_ready(names, br):
    """Every tap is up with a carrier, and both ESP taps forward in the bridge."""
    links = {l["ifname"]: l for l in json.loads(sh("ip", "-j", "link", "show"))}
    ports = {l["ifname"]: l.get("state") for l in json.loads(sh("bridge", "-j", "link", "show"))
             if l.get("master") == br}
    return all(n in links and "UP" in links[n].get("flags", []) and
               "NO-CARRIER" not in links[n].get("flags", []) for n in names.values()) and \
        all(ports.get(names[k]) == "forwarding" for k in ("se", "ve"))


def inner(gw, secgw, tmp):
    """Runs inside the namespace."""
    from scapy.all import IP, UDP, Ether, Raw, AsyncSniffer, sendp, raw, conf
    conf.verb = 0
    ok = True
    pid = os.getpid()
    names = {k: "vs%s%d" % (k, pid % 100000) for k in MAC}
    br = "vsbr%d" % (pid % 100000)
    eal = ["--no-pci", "--no-huge", "-m", "512"]
    prefixes = ("vecsec-b2b-s-%d" % pid, "vecsec-b2b-v-%d" % pid)
    gwtest.write_config(os.path.join(tmp, "secgw.cfg"), SECGW_CFG)
    gwtest.write_config(os.path.join(tmp, "vecsec.cfg"), VECSEC_CFG)
    slog = open(os.path.join(tmp, "secgw.log"), "w")
    vlog = open(os.path.join(tmp, "vecsec.log"), "w")
    # each on its own lcore: two busy-polling gateways on one CPU starve each other;
    # ipsec-secgw says "entering main loop" at INFO level
    sp = subprocess.Popen(["stdbuf", "-oL", "-eL", secgw, "-l", "1"] + eal + [
        "--log-level", "lib.eal:warning",
        "--file-prefix", prefixes[0], "--vdev", "crypto_aesni_mb_b2b",
        "--vdev", "net_tap0,iface=%s,mac=%s" % (names["sc"], MAC["sc"]),
        "--vdev", "net_tap1,iface=%s,mac=%s" % (names["se"], MAC["se"]),
        "--", "-l", "-P", "-p", "0x3", "-u", "0x2", "--config", "(0,0,1),(1,0,1)",
        "-s", "8192", "-f", os.path.join(tmp, "secgw.cfg")], stdout=slog,
        stderr=subprocess.STDOUT)
    # --duration: only a backstop should this script die (the end is a SIGINT below)
    vp = subprocess.Popen(gwtest.gw_cmd(gw, prefixes[1], [
        "--vdev", "net_tap0,iface=%s,mac=%s" % (names["vc"], MAC["vc"]),
        "--vdev", "net_tap1,iface=%s,mac=%s" % (names["ve"], MAC["ve"])], app=[
        "-u", "2", "-f", os.path.join(tmp, "vecsec.cfg"), "--duration", "180",
        "--stats-file", os.path.join(tmp, "stats.json")]), stdout=vlog, stderr=subprocess.STDOUT)
    try:
        sh("ip", "link", "add", br, "type", "bridge")
        sh("ip", "link", "set", br, "up")
        up = set()
        # ready: ipsec-secgw's "entering main loop", vecsec-gw's "ready" line, the
        # four taps up with a carrier, the ESP taps forwarding in the bridge
        deadline = time.monotonic() + gwtest.READY_TIMEOUT
        started = False
        while time.monotonic() < deadline:
            # ipsec-secgw waits for link up: bring each tap up as it appears
            for k, n in names.items():
                if k not in up and sh("ip", "link", "set", n, "up", check=False) == "":
                    up.add(k)
                    if k in ("se", "ve"):
                        sh("ip", "link", "set", n, "master", br)
            s = open(os.path.join(tmp, "secgw.log")).read()
            v = open(os.path.join(tmp, "vecsec.log")).read()
            if "entering main loop" in s and gwtest.READY_LINE in v and len(up) == 4 and \
                    links_ready(names, br):
                started = True
                break
            if sp.poll() is not None or vp.poll() is not None:
                break
            time.sleep(0.05)
        if not started:
            print("FAIL: gateways did not start\n" + s[-2000:] + v[-2000:])
            return False

        def run(direction, src_if, dst_if, dst_net, gw_mac):
            pk = [IP(src="192.168.7.%d" % (k + 1), dst="%s.%d" % (dst_net, k + 1)) /
                  UDP(sport=1000 + k, dport=2000) /
                  Raw(bytes((k * 3 + i) & 0xff for i in range(20 + 37 * k)))
                  for k in range(N)]
            listening = threading.Event()
            seen = []
            sn = AsyncSniffer(iface=dst_if, filter="udp and dst net %s.0/24" % dst_net,
                              started_callback=listening.set, prn=seen.append)
            sn.start()
            # the capture socket is open before the first packet goes
            if not listening.wait(60):
                print("FAIL %s: the sniffer did not start" % direction)
                sn.stop()
                return False
            for p in pk:
                sendp(Ether(src="02:00:00:00:00:99", dst=gw_mac) / p, iface=src_if)
                time.sleep(0.01)        # pacing, not synchronisation
            # all N through (or nothing more for a long while: the check below fails)
            gwtest.wait_until(lambda: len(seen) >= N, "%d packets on %s" % (N, dst_if))
            got = sn.stop()
            want = [raw(p) for p in pk]
            have = [raw(f[IP]) for f in got if IP in f]
            # ipsec-secgw decrements nothing either: the packets must be equal
            if sorted(have) != sorted(want):
                print("FAIL %s: %d of %d packets came through intact (%d sniffed)" %
                      (direction, len(set(have) & set(want)), N, len(got)))
                print(sh("ip", "-s", "link"))
                return False
            print("ok   %s: %d packets intact" % (direction, N))
            return True

        ok &= run("A: ipsec-secgw encrypts, vecsec-gw decrypts", names["sc"], names["vc"],
                  "10.5.0", MAC["sc"])
        ok &= run("B: vecsec-gw encrypts, ipsec-secgw decrypts", names["vc"], names["sc"],
                  "10.6.0", MAC["vc"])
    finally:
        for p in (vp, sp):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in (vp, sp):
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for pre in prefixes:
            gwtest.eal_cleanup(pre)
    if vp.returncode != 0:
        print("FAIL: vecsec-gw exited with %d" % vp.returncode)
        ok = False
    print(open(os.path.join(tmp, "vecsec.log")).read()[-1500:])
    if not ok:
        print("ipsec-secgw log:\n" + open(os.path.join(tmp, "secgw.log")).read()[-3000:])
    return ok


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--inner":
        return 0 if inner(sys.argv[2], sys.argv[3], sys.argv[4]) else 1
    if os.getuid() != 0:
        print("FAIL: needs root (network namespace, taps)")
        return 1
    gw, secgw = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if len(sys.argv) == 5:
        r = subprocess.run([sys.argv[3], sys.argv[4]], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0:
            print("FAIL: building ipsec-secgw:\n" + r.stdout[-2000:])
            return 1
    if not os.access(secgw, os.X_OK):
        print("FAIL: no ipsec-secgw at %s" % secgw)
        return 1
    ns = "vecsec-b2b-%d" % os.getpid()
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-b2b-")
    rc = 1
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
           "net.ipv6.conf.default.disable_ipv6=1")
        sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        r = subprocess.run(["ip", "netns", "exec", ns, "/usr/bin/python3",
                            os.path.abspath(__file__), "--inner", gw, secgw, tmp], timeout=240)
        rc = r.returncode
    finally:
        sh("ip", "netns", "del", ns, check=False)
        gwtest.cleanup(tmp)
    gwtest.finish(rc == 0)
    return rc


if __name__ == "__main__":
    sys.exit(main())
