#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw input checks: what --check accepts starts, what it refuses start
refuses with the same message, and bad options are refused before EAL
starts.

Refused before EAL (no EAL line in the output, no EAL runtime folder),
each message naming the option: ESP rules without -u, -u 0, --prefer
crypto_bogus, --gen-pcap into a missing folder, --ctrl-group with --ctrl
none, --kernel-nh without --host-port, a bad --stats-interval, --spd-cache or
--cluster (count, addresses, start segments), SPI 0 in
the file (exit 1, the file's line).
-u naming a port that does not exist needs EAL's ports: refused right
after EAL, exit 2, the runtime folder removed.

--check / start agreement, on ipsec-secgw's ep0.cfg and ep1.cfg and a set
of configurations (tunnel and transport, AES-CBC/HMAC, ARIA-GCM on
crypto_vecsec, lookaside-protocol with and without udp-encap, an SA two
families send through, ignored keywords and flow rules): `--check FILE --
-u 2` and a start with the same file and options both succeed, or both
fail with the same message; the ignored keywords are reported once each
by both.

usage: input_check.py GATEWAY_BINARY
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import hexkey  # noqa: E402

K16 = hexkey(bytes(range(1, 17)))
K20 = hexkey(bytes(range(2, 22)))
K36 = hexkey(bytes(range(3, 39)))
RT = "rt ipv4 dst 172.30.0.0/16 port 1\nrt ipv4 dst 10.0.0.0/8 port 0\n"
TUN = "mode ipv4-tunnel src 172.30.1.1 dst 172.30.2.1"
CHACHA = "aead_algo chacha20-poly1305 aead_key " + K36

CONFIGS = [
    ("chacha-tunnel", RT + "sa out 5 %s %s\nsp ipv4 out esp protect 5 dst 10.5.0.0/16\n"
     % (CHACHA, TUN), True),
    ("cbc-transport", RT + "sa in 6 cipher_algo aes-128-cbc cipher_key %s auth_algo sha1-hmac "
     "auth_key %s mode transport\nsp ipv4 in esp protect 6 dst 10.6.0.0/16\n" % (K16, K20),
     True),
    ("aria-gcm", RT + "sa out 7 aead_algo aria-128-gcm aead_key %s %s\n" % (K20, TUN), True),
    ("lookaside-protocol", RT + "sa out 8 %s %s type lookaside-protocol-offload\n"
     % (CHACHA, TUN), True),
    ("lookaside-protocol-natt", RT + "sa out 9 %s %s type lookaside-protocol-offload "
     "udp-encap\n" % (CHACHA, TUN), False),
    ("two-families", RT + "sa out 10 %s mode transport\n"
     "sp ipv4 out esp protect 10 dst 10.10.0.0/16\nsp ipv6 out esp protect 10 dst fd10::/16\n"
     % CHACHA, False),
    ("ignored-keywords", RT + "sa out 11 %s %s port_id 0 mss 1400 reassembly_en\n"
     "sa in 12 %s %s flow-direction 0 1\nflow ipv4 dst 10.0.0.1/32 port 0 queue 0\n"
     % (CHACHA, TUN, CHACHA, TUN.replace("src 172.30.1.1 dst 172.30.2.1",
                                          "src 172.30.2.1 dst 172.30.1.1")), True),
]


class Checks:
    def __init__(self):
        self.ok = True

    def check(self, cond, good, bad):
        if cond:
            print("ok   " + good)
        else:
            print("FAIL: " + bad)
            self.ok = False


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                       universal_newlines=True)
    return r.returncode, r.stdout


def eal(prefix):
    return ["-l", "0", "--no-pci", "--no-huge", "-m", "512", "--file-prefix", prefix,
            "--log-level", "*:warning", "--log-level", "vecsec.gw:info"]


def start(gw, prefix, app, ports=2):
    """A start with `ports` net_null ports, app options after --; 0.2 s of running."""
    vdevs = []
    for p in range(ports):
        vdevs += ["--vdev", "net_null%d,no-rx=1" % p]
    try:
        return run([gw] + eal(prefix) + vdevs + ["--", "--ctrl", "none", "--duration", "0.2"]
                   + app + gwtest.seq_state_args(app))
    finally:
        gwtest.eal_cleanup(prefix)


def gw_lines(out):
    """The gateway's own refusal lines ("vecsec-gw: ..."), without warnings."""
    return [ln[len("vecsec-gw: "):] for ln in out.splitlines()
            if ln.startswith("vecsec-gw: ") and not ln.startswith("vecsec-gw: warning")]


def refusals(gw, tmp, ck):
    good = gwtest.write_config(os.path.join(tmp, "good.cfg"), CONFIGS[0][1])
    spi0 = gwtest.write_config(os.path.join(tmp, "spi0.cfg"), RT +
                               "sa out 0 %s %s\n" % (CHACHA, TUN))
    for p in (good, spi0):
        os.chmod(p, 0o600)
    cases = [
        ("no -u", ["-f", good], 2, "-u MASK missing: %s has 1 SA(s) and 1 protect rule(s)" % good),
        ("-u 0", ["-f", good, "-u", "0"], 2, "-u 0: names no port"),
        ("--prefer crypto_bogus", ["-f", good, "-u", "2", "--prefer", "crypto_bogus"], 2,
         "--prefer crypto_bogus: no such cryptodev driver"),
        ("--gen-pcap missing folder", ["--demo", "--gen-pcap", os.path.join(tmp, "nope")], 2,
         "--gen-pcap %s: no such folder" % os.path.join(tmp, "nope")),
        ("--ctrl-group without socket", ["-f", good, "-u", "2", "--ctrl", "none",
                                         "--ctrl-group", "root"], 2,
         "--ctrl-group with --ctrl none"),
        ("--kernel-nh without --host-port", ["-f", good, "-u", "2", "--kernel-nh"], 2,
         "--kernel-nh needs --host-port"),
        ("--stats-interval -1", ["-f", good, "-u", "2", "--stats-interval", "-1"], 2,
         "--stats-interval -1: seconds"),
        ("SPI 0", ["-f", spi0, "-u", "2"], 1, "spi0.cfg:3: token '0': SPI 0 is reserved"),
    ] + [("--spd-cache " + v, ["-f", good, "-u", "2", "--spd-cache", v], 2,
          "--spd-cache %s: 0..16777216" % v) for v in ("x", "-1", "16777217", "4k")] + \
        [("--cluster " + v, ["-f", good, "-u", "2", "--cluster", v], 2,
          "--cluster COUNT@ADDR[,ADDR...][:SEGMENTS]: COUNT 1..16")
         for v in ("17@192.0.2.5", "0@192.0.2.5", "2@", "2@192.0.2.5:3", "2@fd00::5",
                   "2@192.0.2.1,192.0.2.2,192.0.2.3,192.0.2.4,192.0.2.5")] + \
        [("--cluster-sync " + v, ["-f", good, "-u", "2", "--cluster", "2@192.0.2.5",
                                  "--cluster-sync", v], 2,
          "--cluster-sync %s: LOCAL_IP[:PORT],REMOTE_IP[:PORT]" % v)
         for v in ("10.0.0.1", "10.0.0.1,", "10.0.0.1:0,10.0.0.2", "10.0.0.1:65536,10.0.0.2",
                   "10.0.0.1,10.0.0.2,10.0.0.3", "10.0.0.1:x,10.0.0.2", "[fd00::1,[fd00::2]",
                   "fd00::1:4511x,fd00::2", "10.0.0.300,10.0.0.2", "10.0.0.1:-1,10.0.0.2")] + \
        [("--cluster-sync mixed", ["-f", good, "-u", "2", "--cluster", "2@192.0.2.5",
                                   "--cluster-sync", "10.0.0.1,[fd00::2]:4511"], 2,
          "--cluster-sync 10.0.0.1,[fd00::2]:4511: both ends of one family"),
         ("--cluster-sync without --cluster", ["-f", good, "-u", "2", "--cluster-sync",
                                               "[fd00::1]:4600,fd00::2"], 2,
          "--cluster-sync needs --cluster")] + \
        [("--cluster-sync-block " + v, ["-f", good, "-u", "2", "--cluster-sync-block", v], 2,
          "--cluster-sync-block %s: 256..1073741824" % v) for v in ("255", "x", "-1", "2147483648")]
    for name, app, want_rc, want in cases:
        prefix = gwtest.file_prefix("input")
        rc, out = start(gw, prefix, app)
        eal_ran = "EAL:" in out or any(os.path.exists(d) for d in gwtest.eal_run_dirs(prefix))
        ck.check(rc == want_rc and any(want in ln for ln in gw_lines(out)) and not eal_ran,
                 "%s: exit %d before EAL: %s" % (name, rc, want),
                 "%s: exit %d (want %d), EAL ran %s, want '%s' in:\n%s" %
                 (name, rc, want_rc, eal_ran, want, out))
    # -u naming a port that is not there: right after EAL found the ports
    prefix = gwtest.file_prefix("input")
    rc, out = start(gw, prefix, ["-f", good, "-u", "4"])
    want = "-u 0x4: port 2 does not exist (2 ports: 0..1)"
    ck.check(rc == 2 and want in out and not any(os.path.exists(d)
                                                 for d in gwtest.eal_run_dirs(prefix)),
             "-u 4 with 2 ports: exit 2, '%s', no EAL runtime folder left" % want,
             "-u 4: exit %d, want '%s':\n%s" % (rc, want, out))


def agreement(gw, tmp, ck):
    confs = list(CONFIGS)
    for name in ("ep0.cfg", "ep1.cfg"):
        path = os.path.join("/usr/share/dpdk/examples/ipsec-secgw", name)
        if not os.path.exists(path):
            ck.check(False, "", "%s missing (Debian package dpdk-dev installs it)" % path)
            continue
        confs.append((name, open(path).read(), False))
    for name, text, want_ok in confs:
        path = gwtest.write_config(os.path.join(tmp, name if name.endswith(".cfg") else
                                                name + ".cfg"), text)
        os.chmod(path, 0o600)
        crc, cout = run([gw, "--check", path, "--", "-u", "2"])
        src, sout = start(gw, gwtest.file_prefix("agree"), ["-f", path, "-u", "2"])
        cerr, serr = gw_lines(cout), gw_lines(sout)
        cwarn = sorted(ln for ln in cout.splitlines() if "ignored:" in ln)
        swarn = sorted(ln for ln in sout.splitlines() if "ignored:" in ln)
        same = (crc == 0) == (src == 0) and (crc == 0 or (cerr and cerr[0] in serr))
        ck.check(same and (crc == 0) == want_ok and cwarn == swarn and
                 len(set(cwarn)) == len(cwarn),
                 "%s: --check and start %s%s%s" % (
                     name, "both accept" if crc == 0 else "both refuse: ",
                     "" if crc == 0 else cerr[0], ", %d keyword warnings each, once" %
                     len(cwarn) if cwarn else ""),
                 "%s: --check exit %d %s / start exit %d %s (want %s); warnings %s / %s" %
                 (name, crc, cerr, src, serr, "accept" if want_ok else "refuse", cwarn, swarn))


def main():
    gw = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-input-")
    ck = Checks()
    try:
        refusals(gw, tmp, ck)
        agreement(gw, tmp, ck)
    finally:
        gwtest.cleanup(tmp)
    return gwtest.finish(ck.ok)


if __name__ == "__main__":
    sys.exit(main())
