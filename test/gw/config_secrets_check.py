#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw configuration files and secrets, through `vecsec-gw --check FILE`
and `vecsec-gw [EAL options] -- -f FILE` (both stop before EAL starts when
they refuse a file):

keys    malformed key-bearing rules (key keyword missing, misspelt,
        misplaced, a key split by a bad line continuation, keys where an
        SPI, address, range, MAC or rule name belongs): each is refused
        with a message naming file, line and token, and no output holds 4
        or more consecutive key bytes (hex, with or without ':', any case).
modes   a file with keys and mode 0600: accepted, no warning; 0640/0644:
        accepted with a warning (group or others can read the keys); 0664,
        0666, 0646 (group or others can write: keys and policies could be
        anyone's): refused, also without keys, by --check and by the
        gateway, and accepted with a warning given
        --allow-unprotected-keys; a file owned by another user: refused.

usage: config_secrets_check.py GATEWAY_BINARY
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

KEY = bytes((0x3b + 11 * i) & 0xff for i in range(36))
HEXKEY = gwtest.hexkey(KEY)
GOOD_SA = ("sa out 5 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
           "src 172.31.1.1 dst 172.31.2.1\n" % HEXKEY)
ROUTES = "rt ipv4 dst 172.31.0.0/16 port 1\n"

BAD = [
    "sa out 6 aead_algo chacha20-poly1305 {k} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 mode transport {k}",
    "sa out 6 aead_algo chacha20-poly1305 aead_kye {k} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key mode {k} transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {n} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {u}:AB mode transport",
    "sa out 6 cipher_algo aes-128-cbc cipher_key {k16} auth_algo sha1-hmac {k20} mode transport",
    "sa out 6 cipher_algo aes-128-cbc {k16} auth_algo null mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode ipv6-tunnel src {k16} dst ::1",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode ipv4-tunnel src {k} dst 1.1.1.1",
    "sa out {n} aead_algo chacha20-poly1305 aead_key {k} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k1} \\\n    {k2} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k1}\n{k2} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode transport esn {n}",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode transport replay_win {k16}",
    "sp ipv4 out esp protect {k}",
    "sp ipv4 out esp bypass dst {k}",
    "sp ipv4 out esp bypass sport {k16}",
    "sp ipv4 out esp bypass pri {n}",
    "rt ipv4 dst {k} port 0",
    "neigh port 0 {k}",
    "{k}",
    "{n}",
]


def bad_rules():
    half = len(HEXKEY) // 2 + 1                 # split after a ':'
    sub = dict(k=HEXKEY, n=KEY.hex(), u=HEXKEY.upper(), k16=gwtest.hexkey(KEY[:16]),
               k20=gwtest.hexkey(KEY[:20]), k1=HEXKEY[:half], k2=HEXKEY[half:])
    return [r.format(**sub) for r in BAD]


def key_fragments():
    frags = set()
    for i in range(len(KEY) - 3):
        b = KEY[i:i + 4]
        for f in (gwtest.hexkey(b), b.hex()):
            frags.add(f)
            frags.add(f.upper())
    return frags


FRAGS = key_fragments()


def write(path, text, mode):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, text.encode())
    os.close(fd)
    os.chmod(path, mode)
    return path


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                       universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def main():
    gw = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-secrets-")
    prefix = gwtest.file_prefix("secrets")
    fails = 0
    count = 0

    def check(cond, msg):
        nonlocal fails, count
        count += 1
        if cond:
            print("ok   " + msg)
        else:
            print("FAIL: " + msg)
            fails += 1

    def gw_run(path, extra=()):
        # refused files stop before EAL; an accepted one would run: --check-like exit
        return run(gwtest.gw_cmd(gw, prefix, (), app=["-f", path] + list(extra) +
                                 ["--duration", "0.01", "--quiet"]))

    try:
        # ---- no key bytes in any error output
        for i, rule in enumerate(bad_rules()):
            path = write(os.path.join(tmp, "bad%02d.cfg" % i), ROUTES + rule + "\n", 0o600)
            for how, (rc, out, err) in (("--check", run([gw, "--check", path])),
                                        ("-f", gw_run(path))):
                text = out + err
                leaked = [f for f in FRAGS if f in text]
                check(rc == 1 and "token" in text and not leaked,
                      "%-7s %-58s -> rc %d %s" % (how, rule.replace("\n", "|")[:58], rc,
                                                  ("LEAKS %s" % leaked[0]) if leaked else
                                                  text.strip().split(": ", 2)[-1][:60]))
        # ---- file modes
        for keys in (True, False):
            text = ROUTES + (GOOD_SA if keys else "")
            what = "with keys" if keys else "without keys"
            for mode in (0o600, 0o640, 0o644, 0o664, 0o666, 0o646):
                path = write(os.path.join(tmp, "m%o%s.cfg" % (mode, "k" if keys else "")),
                             text, mode)
                rc, out, err = run([gw, "--check", path])
                writable = mode & 0o022
                readable = keys and mode & 0o044
                if writable:
                    check(rc == 1 and "writable by group or others" in err and
                          "--allow-unprotected-keys" in err,
                          "--check %s, mode %o: refused: %s" % (what, mode, err.strip()[-70:]))
                    rc, out, err = run([gw, "--check", path, "--allow-unprotected-keys"])
                    check(rc == 0 and "warning:" in err and "writable" in err,
                          "--check %s, mode %o, --allow-unprotected-keys: accepted, warned"
                          % (what, mode))
                    rc, out, err = gw_run(path)
                    check(rc == 1 and "writable by group or others" in err,
                          "-f %s, mode %o: the gateway refuses it" % (what, mode))
                elif readable:
                    check(rc == 0 and "warning:" in err and "readable by group or others" in err,
                          "--check %s, mode %o: accepted, warned: %s" %
                          (what, mode, err.strip()[-60:]))
                else:
                    check(rc == 0 and err == "", "--check %s, mode %o: accepted, no warning"
                          % (what, mode))
        if os.geteuid() != 0:
            check(False, "a file of another user: needs root to chown it (run as root)")
        else:
            path = write(os.path.join(tmp, "other.cfg"), ROUTES + GOOD_SA, 0o600)
            os.chown(path, 65534, 65534)
            rc, out, err = run([gw, "--check", path])
            check(rc == 1 and "owned by uid 65534" in err,
                  "--check, a 0600 file owned by uid 65534: refused: %s" % err.strip()[-60:])
    finally:
        gwtest.cleanup(tmp, prefix)
    print("%d of %d checks passed" % (count - fails, count))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
