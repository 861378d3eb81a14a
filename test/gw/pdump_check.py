#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw and dpdk-dumpcap (Debian's dpdk package) on a machine where DPDK
runs without hugepages (--no-huge: the rule for tests here).

The gateway calls rte_pdump_init() at start: its memzone "rte_pdump_stats"
is there (DPDK telemetry /eal/memzone_info), and the start-up line says
why dpdk-dumpcap cannot attach in this mode. dpdk-dumpcap run against it
(--file-prefix, port 0) fails as the gateway said: EAL's secondary finds no
hugepage information (a --no-huge primary writes none; its memory is a
memfd only it holds), writes no capture file, and the gateway forwards on
(SA out 5's counter still grows). With --no-pdump the memzone is absent.
A capture itself needs a gateway on hugepages; docs/operations.md,
"Capturing packets", gives the command.

usage: pdump_check.py GATEWAY_BINARY
"""
import os
import shutil
import subprocess
import sys
import tempfile

from scapy.all import IP, UDP, Raw, wrpcap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey  # noqa: E402

KEY = bytes(range(0x30, 0x30 + 36))


def memzones(prefix):
    """Names of the gateway's memzones, through DPDK telemetry."""
    ids = gwtest.telemetry(prefix, ["/eal/memzone_list"])
    if ids is None:
        return None
    ids = ids[0].get("/eal/memzone_list") or []
    infos = gwtest.telemetry(prefix, ["/eal/memzone_info,%d" % i for i in ids]) or []
    return [(x.get("/eal/memzone_info") or {}).get("Name") for x in infos]


def start(gw, tmp, prefix, extra):
    ports = ["--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null" %
             os.path.join(tmp, "clear.pcap"), "--vdev", "net_null1,no-rx=1"]
    # gw_cmd(): EAL gets --no-pci --no-huge -m first (gwrun.eal.SAFE), then these --vdev ports
    g = gwtest.Gateway(gwtest.gw_cmd(gw, prefix, ports, app=[
        "-f", os.path.join(tmp, "gw.cfg"), "-u", "2", "--ctrl", "none"] + extra))
    return g if g.wait_ready() else None


def main():
    gw = sys.argv[1]
    dumpcap = shutil.which("dpdk-dumpcap")
    ok = True

    def check(cond, good, bad):
        nonlocal ok
        print(("ok   " + good) if cond else ("FAIL: " + bad))
        ok = ok and bool(cond)
        return cond

    if dumpcap is None:
        print("FAIL: no dpdk-dumpcap (Debian's dpdk package; scripts/setup.sh installs it)")
        return 1
    tmp = tempfile.mkdtemp(prefix="vecsec-pdump-")
    prefixes = [gwtest.file_prefix("pdump"), gwtest.file_prefix("nopdump")]
    g = None
    try:
        wrpcap(os.path.join(tmp, "clear.pcap"), [eth(
            IP(src="192.168.9.1", dst="10.5.0.%d" % (k + 1)) / UDP(sport=7, dport=7) /
            Raw(b"p" * 40)) for k in range(16)])
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"),
                                  "rt ipv4 dst 172.31.0.0/16 port 1\n"
                                  "sa out 5 aead_algo chacha20-poly1305 aead_key %s "
                                  "mode ipv4-tunnel src 172.31.1.1 dst 172.31.2.1\n"
                                  "sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16\n"
                                  % hexkey(KEY))
        os.chmod(cfg, 0o600)
        g = start(gw, tmp, prefixes[0], [])
        if g is None:
            ok = False
            return 1
        mz = memzones(prefixes[0])
        check(mz is not None and "rte_pdump_stats" in mz and
              g.count("dpdk-dumpcap cannot attach") == 1,
              "rte_pdump_init() at start: memzone rte_pdump_stats; the start-up line says "
              "dpdk-dumpcap cannot attach without hugepages",
              "memzones %s; output:\n%s" % (mz, g.output()[-2000:]))
        before = (gwtest.telemetry_sa(prefixes[0], 5) or {}).get("pkts", 0)
        cap = os.path.join(tmp, "cap.pcapng")
        # dumpcap takes no EAL options but the prefix; as a secondary of a
        # --no-huge primary its EAL stops at the hugepage information, before
        # any bus is scanned
        r = subprocess.run([dumpcap, "--file-prefix=" + prefixes[0], "-i", "0", "-c", "4",
                            "-w", cap], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=60)
        check(r.returncode != 0 and "Cannot get hugepage information" in r.stdout and
              not os.path.exists(cap),
              "dpdk-dumpcap against a --no-huge gateway: refused by EAL (no hugepage "
              "information), no capture file",
              "dpdk-dumpcap: exit %d, file %s:\n%s" % (r.returncode, os.path.exists(cap),
                                                       r.stdout[-2000:]))
        grew = gwtest.wait_until(lambda: (gwtest.telemetry_sa(prefixes[0], 5) or {}).get(
            "pkts", 0) > before, "SA out 5 to count more packets", gws=[g])
        check(grew and g.running(), "the gateway forwards on after dpdk-dumpcap's attempt",
              "the gateway after dpdk-dumpcap: running %s" % g.running())
        rc, out = g.stop()
        g = None
        check(rc == 0, "SIGTERM: exit 0", "exit %s:\n%s" % (rc, out[-2000:]))
        g = start(gw, tmp, prefixes[1], ["--no-pdump"])
        if g is None:
            ok = False
            return 1
        mz = memzones(prefixes[1])
        check(mz is not None and "rte_pdump_stats" not in mz and
              g.count("dpdk-dumpcap") == 0,
              "--no-pdump: no rte_pdump memzone, no capture line",
              "--no-pdump: memzones %s" % mz)
        rc, out = g.stop()
        g = None
        check(rc == 0, "--no-pdump: exit 0", "--no-pdump: exit %s" % rc)
    finally:
        if g is not None:
            g.kill()
            if not ok:
                print(g.output()[-3000:])
        gwtest.cleanup(tmp, *prefixes)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
