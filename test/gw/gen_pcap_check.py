#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The built-in generator's pcap output (--demo --gen-pcap DIR) is valid ESP:

1. vecsec-gw --demo --gen-pcap DIR writes clear.pcap (what the generator
   made), esp.pcap (what went over the ESP link) and demo.cfg; the demo's own
   checker must pass.
2. scapy (an independent ESP implementation) decrypts every ESP packet of
   esp.pcap with the SAs of demo.cfg to exactly the clear packet with the
   same number; bypass packets equal their clear packet.
3. esp.pcap replayed into a second gateway (-f demo.cfg, net_pcap ports)
   comes out as exactly the clear packets, every counter exact: so the
   files are what a decryption benchmark needs.

usage: gen_pcap_check.py GATEWAY_BINARY [--cpu-crypto]
"""
import os
import struct
import subprocess
import sys
import tempfile

from scapy.all import IP, IPv6, Ether, UDP, rdpcap, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402

PKTS = 1400     # 200 per flow: the ESN SA crosses 2^32 after 16
SIZE = 200


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd, timeout=120):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


def parse_sas(path):
    """out SAs of demo.cfg: spi -> (scapy SA list to try, tunnel?)"""
    sas = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) < 3 or t[0] != "sa" or t[1] != "out":
                continue
            spi = int(t[2])
            kw = dict(zip(t[3::2], t[4::2]))
            algo = "CHACHA20-POLY1305" if kw["aead_algo"] == "chacha20-poly1305" else "AES-GCM"
            key = bytes(int(x, 16) for x in kw["aead_key"].split(":"))
            hdr = None
            if kw["mode"] == "ipv4-tunnel":
                hdr = IP(src=kw["src"], dst=kw["dst"])
            elif kw["mode"] == "ipv6-tunnel":
                hdr = IPv6(src=kw["src"], dst=kw["dst"])
            esn = "esn" in kw
            # an ESN SA's high half is 0 or 1 here (it starts just below 2^32)
            tries = [SecurityAssociation(ESP, spi=spi, crypt_algo=algo, crypt_key=key,
                                         tunnel_header=hdr, esn_en=esn, esn=hi)
                     for hi in ((0, 1) if esn else (0,))]
            sas[spi] = (tries, hdr is not None)
    return sas


def number(l3):
    """the generator's packet number: the first 8 bytes of the UDP payload"""
    udp = l3[UDP]
    return struct.unpack("<Q", raw(udp.payload)[:8])[0]


def main():
    gw = sys.argv[1]
    extra = ["--cpu-crypto"] if "--cpu-crypto" in sys.argv[2:] else []
    tmp = tempfile.mkdtemp(prefix="vecsec-gen-")
    prefixes = ("vecsec-gen-%d" % os.getpid(), "vecsec-gen2-%d" % os.getpid())
    try:
        rc, out = run(gwtest.gw_cmd(gw, prefixes[0], ["--no-telemetry"], app=[
                                    "--demo", "--gen-pkts", str(PKTS), "--gen-size", str(SIZE),
                                    "--gen-pcap", tmp] + extra))
        if rc != 0 or "demo: PASS" not in out:
            print(out)
            fail("the generating demo run failed (rc %d)" % rc)
        for f in ("clear.pcap", "esp.pcap", "demo.cfg"):
            if not os.path.exists(os.path.join(tmp, f)):
                fail("--gen-pcap wrote no %s" % f)
        if os.stat(os.path.join(tmp, "demo.cfg")).st_mode & 0o077:
            fail("demo.cfg (keys) is readable by others")
        clear = rdpcap(os.path.join(tmp, "clear.pcap"))
        esp = rdpcap(os.path.join(tmp, "esp.pcap"))
        if len(clear) != PKTS or len(esp) != PKTS:
            fail("expected %d packets in each file, got %d clear, %d on the link" %
                 (PKTS, len(clear), len(esp)))
        by_num = {}
        for p in clear:
            if len(p) != SIZE:
                fail("clear packet of %d bytes, not %d" % (len(p), SIZE))
            by_num[number(p)] = p
        if sorted(by_num) != list(range(PKTS)):
            fail("clear.pcap does not hold packets 0..%d once each" % (PKTS - 1))

        # 2. scapy decrypts the link
        sas = parse_sas(os.path.join(tmp, "demo.cfg"))
        seen, per_spi, bypass = set(), {}, 0
        for p in esp:
            l3 = p[Ether].payload
            nh = l3.proto if isinstance(l3, IP) else l3.nh
            if nh != 50:
                # bypass: the clear packet itself
                n = number(l3)
                if raw(l3) != raw(by_num[n][Ether].payload):
                    fail("bypass packet %d differs from the clear one" % n)
                bypass += 1
                seen.add(n)
                continue
            spi = l3[ESP].spi
            if spi not in sas:
                fail("ESP packet with SPI %d, not in demo.cfg" % spi)
            tries, tunnel = sas[spi]
            dec = None
            for sa in tries:
                try:
                    dec = sa.decrypt(l3.__class__(raw(l3)))
                    break
                except Exception:
                    continue
            if dec is None:
                fail("scapy cannot decrypt an ESP packet of SPI %d (seq %d)" %
                     (spi, l3[ESP].seq))
            n = number(dec)
            want = by_num[n][Ether].payload
            if raw(dec) != raw(want):
                fail("SPI %d packet %d decrypts to something else" % (spi, n))
            if n in seen:
                fail("packet %d on the link twice" % n)
            seen.add(n)
            per_spi[spi] = per_spi.get(spi, 0) + 1
        if len(seen) != PKTS:
            fail("%d of %d packets found on the link" % (len(seen), PKTS))
        print("scapy: %d ESP packets decrypted to the clear ones (%s), %d bypass" %
              (PKTS - bypass, ", ".join("SPI %d: %d" % kv for kv in sorted(per_spi.items())),
               bypass))

        # 3. replay the link into a second gateway: decryption from a file
        gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
        stats = os.path.join(tmp, "stats.json")
        out_clear = os.path.join(tmp, "clear_out.pcap")
        rc, out = run(gwtest.gw_cmd(gw, prefixes[1], [
            "--no-telemetry", "--vdev", "net_null0,no-rx=1", "--vdev", "net_null1,no-rx=1",
            "--vdev", "net_pcap2,rx_pcap=%s,tx_pcap=%s" % (
                os.path.join(tmp, "esp.pcap"), os.path.join(tmp, "p2_out.pcap")),
            "--vdev", "net_pcap3,rx_pcap=%s,tx_pcap=%s" % (
                os.path.join(tmp, "empty.pcap"), out_clear)],
            app=["-f", os.path.join(tmp, "demo.cfg"), "-u", "0x6", "--idle-exit", "0.5",
                 "--stats-file", stats] + extra), timeout=120)
        if rc != 0:
            print(out)
            fail("the replaying gateway failed (rc %d)" % rc)
        back = rdpcap(out_clear)
        got = {}
        for p in back:
            n = number(p[Ether].payload)
            if raw(p[Ether].payload) != raw(by_num[n][Ether].payload):
                fail("replayed packet %d differs after decryption" % n)
            got[n] = got.get(n, 0) + 1
        if sorted(got) != list(range(PKTS)) or any(v != 1 for v in got.values()):
            fail("replay gave %d distinct packets of %d (%d total)" %
                 (len(got), PKTS, len(back)))
        st = gwtest.load_stats(stats)
        drops = sum(st["drops"].values()) if "drops" in st else None
        if drops != 0:
            fail("replay counted drops: %s" % st.get("drops"))
        print("replay: %d packets from esp.pcap decrypted by a second gateway, all intact, "
              "no drops" % len(back))
        print("PASS")
    finally:
        gwtest.cleanup(tmp, *prefixes)


if __name__ == "__main__":
    main()
