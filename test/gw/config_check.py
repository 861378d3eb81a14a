#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw configuration parser tests, through `vecsec-gw --check FILE` (no
EAL): a configuration that uses every keyword parses, and says once for
each ipsec-secgw keyword that has no effect here that it is ignored, and
why; every malformed rule exits non-zero with "FILE:LINE: token 'TOKEN':
..." naming the right line and token; ipsec-secgw's own sample
configurations ep0.cfg and ep1.cfg are refused as start refuses them (an
SA both IPv4 and IPv6 rules send through: rte_ipsec fixes the family per
SA, as ipsec-secgw -l refuses it too).

usage: config_check.py GATEWAY_BINARY
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

K16 = ":".join(["a1"] * 16)
K20 = ":".join(["b2"] * 20)
K32 = ":".join(["c3"] * 32)
K36 = ":".join(["d4"] * 36)

GOOD = """\
# every keyword vecsec-gw takes from ipsec-secgw, and a few of its own
sp ipv4 out esp protect 5 pri 1 dst 192.168.105.0/24 sport 0:65535 dport 0:65535
sp ipv4 out esp protect 6 pri 2 src 10.0.0.0/8 dst 192.168.106.0/24 proto 17:17
sp ipv4 out esp bypass pri 1 dst 192.168.240.0/24
sp ipv4 out esp discard dst 192.168.250.0/24
sp ipv4 in esp protect 105 pri 1 dst 192.168.115.0/24 sport 0:65535 dport 0:65535
sp ipv6 out esp protect 25 pri 1 dst 0000:0000:0000:0000:aaaa:aaaa:0000:0000/96 \\
sport 0:65535 dport 0:65535
sp ipv6 in esp protect 125 pri 1 dst ffff:0000:0000:0000:aaaa:aaaa:0000:0000/96
sa out 5 aead_algo chacha20-poly1305 aead_key d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:\\
d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4:d4 \\
mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5 esn 4294967000 replay_win 64
sa out 6 cipher_algo aes-128-cbc cipher_key %(K16)s auth_algo sha1-hmac auth_key %(K20)s \\
mode transport type no-offload telemetry lifetime-soft-packets 100 lifetime-hard-packets 200 \\
lifetime-soft-bytes 1000 lifetime-hard-bytes 99999999999
sa in 105 aead_algo aes-128-gcm aead_key %(K20)s mode ipv4-tunnel src 172.16.2.5 \\
dst 172.16.1.5 type cpu-crypto flow-direction 0 1
sa out 25 aead_algo aes-256-gcm aead_key %(K36)s mode ipv6-tunnel \\
src 1111:1111:1111:1111:1111:1111:1111:5555 dst 2222:2222:2222:2222:2222:2222:2222:5555
sa in 125 cipher_algo null auth_algo null mode transport type lookaside-none \
flow-direction 0 2
sa out 7 cipher_algo aes-256-cbc cipher_key %(K32)s auth_algo sha256-hmac auth_key %(K32)s \\
mode transport reassembly_en mss 1400 port_id 0
rt ipv4 dst 172.16.2.5/32 port 0
rt ipv4 src 0.0.0.0/0 dst 192.168.115.0/24 port 2
rt ipv6 dst 2222:2222:2222:2222:2222:2222:2222:5555/116 port 0
neigh port 0 DE:AD:BE:EF:01:02
neigh port 2 02:00:00:00:00:02   # comment after a rule
flow ipv4 dst 172.16.1.5/32 port 0 queue 0
flow ipv4 dst 172.16.1.6/32 port 0 queue 1
""" % dict(K16=K16, K20=K20, K32=K32, K36=K36)


def first_line(word):
    """1-based line of GOOD where a token `word` first appears."""
    return 1 + next(i for i, ln in enumerate(GOOD.splitlines()) if word in ln.split())


# what GOOD must say, once each: keyword, its first line, why
IGNORED = [("port_id", first_line("port_id"), "inline-offload"),
           ("mss", first_line("mss"), "TSO"),
           ("flow-direction", first_line("flow-direction"), "rte_flow"),
           ("reassembly_en", first_line("reassembly_en"), "in software"),
           ("2 'flow' rules", first_line("flow"), "rte_flow")]

GCM = "aead_algo aes-128-gcm aead_key " + K20

# (rule text, index of the offending line in it (1-based), token, words expected in the message)
BAD = [
    ("sa sideways 1 %s mode transport" % GCM, 1, "sideways", "in' or 'out"),
    ("sa out 0 %s mode transport" % GCM, 1, "0", "SPI 0 is reserved"),
    ("sa in 3 %s mode transport fallback lookaside-none" % GCM, 1, "fallback",
     "inline-crypto-offload SAs only"),
    ("sa out 4294967296 %s mode transport" % GCM, 1, "4294967296", "SPI"),
    ("sa out -1 %s mode transport" % GCM, 1, "-1", "SPI"),
    ("sa out 5 cipher_algo aes-128-cbc cipher_key 0:0 auth_algo null mode transport",
     1, "<hidden key>", "needs 16 key bytes"),
    ("sa in 7 aead_algo chacha20-poly1305 aead_key %s mode transport" % K32, 1, "<hidden key>",
     "needs 36 key bytes"),
    ("sa out 8 aead_algo aes-512-gcm aead_key %s mode transport" % K20, 1, "aes-512-gcm",
     "unknown AEAD"),
    ("sa out 8 aead_algo aes-128-gcm aead_key 0g:11 mode transport", 1, "<hidden key>", "hex bytes"),
    ("sa out 9 %s mode ipv4-tunnel src 1.2.3.4" % GCM, 1, "1.2.3.4", "both src and dst"),
    ("sa out 10 %s mode transport src 1.1.1.1 dst 2.2.2.2" % GCM, 1, "src",
     "not allowed in transport"),
    ("sa out 11 %s mode ipv6-tunnel src 1.2.3.4 dst ::1" % GCM, 1, "1.2.3.4", "not an IPv6"),
    ("sa out 12 %s mode ipv4-tunnel src 1.2.3.4 dst 300.1.1.1" % GCM, 1, "300.1.1.1",
     "not an IPv4"),
    ("sa out 13 %s mode transport type inline-crypto-offload" % GCM, 1,
     "inline-crypto-offload", "not supported"),
    ("sa out 14 %s mode transport bogus" % GCM, 1, "bogus", "unknown SA option"),
    ("sa out 15 %s" % GCM, 1, None, "no 'mode'"),
    ("sa out 16 cipher_key %s mode transport" % K16, 1, "cipher_key", "must follow cipher_algo"),
    ("sa out 17 %s cipher_algo null auth_algo null mode transport" % GCM, 1, None,
     "excludes"),
    ("sa out 18 %s mode sideways" % GCM, 1, "sideways", "mode must be"),
    ("sa out 19 %s mode transport esn" % GCM, 1, "esn", "expects the initial ESN"),
    ("sa out 20 %s mode transport mode transport" % GCM, 1, "mode", "given twice"),
    ("sa out 21 aead_algo aes-128-gcm \\\n  aead_key 12:zz \\\n  mode transport", 2, "<hidden key>",
     "hex bytes"),
    ("sa out 22 %s mode transport\nsa out 22 %s mode transport" % (GCM, GCM), 2, "22",
     "defined twice"),
    ("sa out 23 cipher_algo aes-128-cbc cipher_key %s mode transport" % K16, 1, None,
     "needs aead_algo, or cipher_algo and auth_algo"),
    ("sa out 24 %s mode transport lifetime-hard-packets 0" % GCM, 1, "0", "number from 1"),
    ("sa out 25 %s mode transport lifetime-soft-bytes" % GCM, 1, "lifetime-soft-bytes",
     "expects a limit"),
    ("sa out 26 %s mode transport lifetime-hard-fortnights 3" % GCM, 1,
     "lifetime-hard-fortnights", "unknown SA option"),
    ("sa out 27 %s mode transport lifetime-soft-packets 10 lifetime-hard-packets 10" % GCM, 1,
     None, "soft lifetime must be below"),
    ("sa out 28 %s mode transport lifetime-hard-bytes 5 lifetime-soft-bytes 9" % GCM, 1,
     None, "soft lifetime must be below"),
    ("sp ipv5 out esp bypass", 1, "ipv5", "ipv4' or 'ipv6"),
    ("sp ipv4 out ah bypass", 1, "ah", "expects 'esp'"),
    ("sp ipv4 up esp bypass", 1, "up", "in' or 'out"),
    ("sp ipv4 out esp bypass dst 10.0.0.0/33", 1, "10.0.0.0/33", "address/prefix"),
    ("sp ipv6 out esp bypass dst 10.0.0.0/8", 1, "10.0.0.0/8", "IPv6"),
    ("sp ipv4 out esp bypass sport 10:5", 1, "10:5", "X <= Y"),
    ("sp ipv4 out esp bypass dport 1:70000", 1, "1:70000", "65535"),
    ("sp ipv4 out esp bypass proto 17", 1, "17", "range"),
    ("sp ipv4 out esp pri 1", 1, None, "protect <spi>, bypass or discard"),
    ("sp ipv4 out esp bypass discard", 1, "discard", "given twice"),
    ("sp ipv4 out esp protect", 1, "protect", "expects an SA id"),
    ("sp ipv4 out esp protect 77 dst 10.0.0.0/8", 1, "77", "no SA out 77"),
    ("sp ipv4 out esp bypass pri high", 1, "high", "priority"),
    ("rt ipv4 dst 10.0.0.0/8 port 99", 1, "99", "port must be"),
    ("rt ipv6 dst 10.0.0.0/8 port 0", 1, "10.0.0.0/8", "IPv6"),
    ("rt ipv4 via 10.0.0.1", 1, "via", "unknown route option"),
    # hex with ':' could be key bytes: errors never quote it (parser.c, gw_token_quote)
    ("neigh port 0 zz:00:00:00:00:00", 1, "<hidden>", "MAC"),
    ("neigh port 0 00:00:00:00:00", 1, "<hidden>", "MAC"),
    ("neigh 0 00:00:00:00:00:01", 1, "0", "neigh port"),
    ("neigh port 0 02:00:00:00:00:01 extra", 1, "extra", "unexpected"),
    ("frobnicate 1", 1, "frobnicate", "unknown rule"),
]


def run(gw, path):
    r = subprocess.run([gw, "--check", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30, universal_newlines=True)
    return r.returncode, r.stdout + r.stderr


def main():
    gw = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-config-")
    fails = 0
    count = 0
    try:
        # good: every keyword; the ignored ones said once each, with their first line
        count += 1
        path = gwtest.write_config(os.path.join(tmp, "all-keywords.cfg"), GOOD)
        rc, out = run(gw, path)
        if rc != 0 or ": OK:" not in out:
            print("FAIL: all-keywords.cfg does not parse (rc %d): %s" % (rc, out.strip()))
            fails += 1
        else:
            print("ok   %s" % out.strip().replace(tmp + "/", "").split("\n")[-1])
        for kw, line, why in IGNORED:
            count += 1
            want = "%s:%d: %s%s ignored: " % (path, line, "" if kw.startswith("2") else "'",
                                             kw + ("" if kw.startswith("2") else "'"))
            hits = [ln for ln in out.splitlines() if "ignored" in ln and kw in ln]
            if len(hits) != 1 or want not in hits[0] or why not in hits[0]:
                print("FAIL: %s: want one warning '%s...%s', got %s" % (kw, want, why, hits))
                fails += 1
            else:
                print("ok   warned once: %s" % hits[0].replace(tmp + "/", ""))
        # ipsec-secgw's samples as installed: refused as start refuses them
        samples = "/usr/share/dpdk/examples/ipsec-secgw"
        for name, spi, line in (("ep0.cfg", 5, 69), ("ep1.cfg", 5, 66)):
            count += 1
            path = os.path.join(samples, name)
            if not os.path.exists(path):
                print("FAIL: %s missing (Debian package dpdk-dev installs it)" % path)
                fails += 1
                continue
            path = gwtest.write_config(os.path.join(tmp, name), open(path).read())
            rc, out = run(gw, path)
            want = "%s: SA %d (line %d): SP rules send both IPv4 and IPv6 through it" % (
                path, spi, line)
            if rc != 1 or want not in out:
                print("FAIL: %s: want exit 1 and '%s', got %d: %s" % (name, want, rc, out))
                fails += 1
            else:
                print("ok   %s refused: %s" % (name, want.replace(tmp + "/", "")))

        for i, (rule, line, token, words) in enumerate(BAD):
            count += 1
            name = "bad%02d.cfg" % i
            path = gwtest.write_config(os.path.join(tmp, name),
                                       "# two lines of comment\n\n" + rule + "\n")
            rc, out = run(gw, path)
            want = "%s:%d: " % (path, line + 2)
            want += ("token '%s': " % token) if token is not None else "at end of rule: "
            leaked = [k for k in (K16, K20, K32, K36, "0g:11", "12:zz") if k in out]
            if rc == 0 or want not in out or words not in out or leaked:
                print("FAIL: %s (rc %d)\n  rule: %s\n  want: %s ... %s\n  got:  %s" %
                      (name, rc, rule, want, words, out.strip()))
                fails += 1
            else:
                print("ok   %s -> %s" % (rule.split("\n")[line - 1][:50],
                                         out.strip().replace(tmp + "/", "")[:110]))

        # seeded random rules from the grammar's own words, numbers, addresses,
        # keys and junk: every one must end in OK or a message, never a crash
        rnd = random.Random(1)
        words = ["sa", "sp", "rt", "neigh", "flow", "in", "out", "ipv4", "ipv6", "esp",
                 "protect", "bypass", "discard", "pri", "src", "dst", "proto", "sport",
                 "dport", "port", "cipher_algo", "cipher_key", "auth_algo", "auth_key",
                 "aead_algo", "aead_key", "mode", "ipv4-tunnel", "ipv6-tunnel", "transport",
                 "type", "no-offload", "cpu-crypto", "esn", "udp-encap", "inner", "replay_win", "lifetime-soft-bytes",
                 "lifetime-hard-packets",
                 "flow-direction", "telemetry", "chacha20-poly1305", "aes-128-gcm",
                 "aes-128-cbc", "sha1-hmac", "null", "5", "0", "4294967295", "99999999999",
                 "-3", "0x10", "1:2", "65535:0", "10.0.0.0/8", "10.1.2.3", "::1", "fd00::/200",
                 "1.2.3.4/33", K16, K20, K36, "zz:zz", ":", "", "\\", "#", "\x01",
                 "02:00:00:00:00:01", "a" * 300]
        crashes = 0
        for i in range(300):
            lines = []
            for _ in range(rnd.randint(1, 6)):
                lines.append(" ".join(rnd.choice(words) for _ in range(rnd.randint(0, 24))))
            path = gwtest.write_config(os.path.join(tmp, "fuzz.cfg"), "\n".join(lines) +
                                       ("\n" if rnd.random() < 0.8 else ""))
            rc, out = run(gw, path)
            if rc not in (0, 1) or "Sanitizer" in out or \
                    (rc == 1 and "token" not in out and "rule" not in out and
                     "does not end with a newline" not in out):
                crashes += 1
                if crashes < 4:
                    print("FAIL: random config %d: rc %d: %s\n%s" % (i, rc,
                          out[-500:], "\n".join(lines)[:500]))
        count += 1
        if crashes:
            fails += 1
        else:
            print("ok   300 random configurations: each accepted or refused with a message")

        # a file cut short (its writer not done): refused whole, with the file and the
        # line, even where the cut rule parses (here a catch-all bypass); whole, it passes
        for text, line in (("sp ipv4 out esp bypass pri 100", 1),
                           ("# routes\nrt ipv4 dst 10.0.0.0/8 port 0\n"
                            "sp ipv4 out esp bypass pri 100", 3),
                           ("sp ipv4 out esp bypass pri 100 dst 10.9.0.0/16\n\n# end", 3)):
            count += 2
            path = gwtest.write_config(os.path.join(tmp, "cut.cfg"), text)
            rc, out = run(gw, path)
            want = "%s:%d: the last line does not end with a newline" % (path, line)
            if rc != 1 or want not in out or "rename" not in out:
                print("FAIL: a file cut short (%r): want exit 1 and '%s', got %d: %s" %
                      (text[-30:], want, rc, out.strip()))
                fails += 1
            else:
                print("ok   cut short, refused: %s" % out.strip().replace(tmp + "/", ""))
            gwtest.write_config(path, text + "\n")
            rc, out = run(gw, path)
            if rc != 0 or ": OK:" not in out:
                print("FAIL: the same file whole: rc %d: %s" % (rc, out.strip()))
                fails += 1

        # missing file and empty file (no rules, whole: accepted)
        count += 2
        rc, out = run(gw, os.path.join(tmp, "nonexistent.cfg"))
        if rc == 0 or "cannot open" not in out:
            print("FAIL: a missing file gives rc %d: %s" % (rc, out))
            fails += 1
        empty = gwtest.write_config(os.path.join(tmp, "empty.cfg"), "")
        rc, out = run(gw, empty)
        if rc != 0:
            print("FAIL: an empty file gives rc %d: %s" % (rc, out))
            fails += 1
    finally:
        gwtest.cleanup(tmp)
    print("%d of %d configuration checks passed" % (count - fails, count))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
