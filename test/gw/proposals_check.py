#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-ctl check-proposals: swanctl esp_proposals the gateway cannot serve.

A swanctl.conf with the issue's case (CCM first, GCM offered too), a
12-byte-ICV HMAC, a misspelt name and, through an `include` of conf.d/*.conf
with a section on one line, lists of only what kernel-vecsec maps (every
keyword of its table, PFS groups, esn): one warning per bad name with file,
line and what it is, exit 1; the good file alone: no warning, exit 0; a
missing file: exit 2.

usage: proposals_check.py CTL_BINARY
"""
import os
import subprocess
import sys
import tempfile

GOOD = ["aes128gcm16-aes256gcm16-modp3072-esn", "chacha20poly1305-x25519",
        "aria128gcm16-aria192gcm16-aria256gcm16", "aes128-aes192-aes256-sha1-sha256",
        "aes256ctr-sha384-sha512-aesxcbc-noesn", "aes128gcm-ecp256", "null-sha256", "default"]


def run(ctl, *files):
    r = subprocess.run([ctl, "check-proposals"] + list(files), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=30)
    return r.returncode, r.stdout


def main():
    ctl = sys.argv[1]
    ok = True
    with tempfile.TemporaryDirectory(prefix="vecsec-proposals-") as d:
        os.mkdir(os.path.join(d, "conf.d"))
        main_conf = os.path.join(d, "swanctl.conf")
        with open(main_conf, "w") as f:
            f.write("connections {\n  gw {\n    children {\n      net {\n"
                    "        esp_proposals = aes128ccm16-aes128gcm16, aes256gcm16  # CCM first\n"
                    "      }\n      net2 {\n"
                    "        esp_proposals = aes128-sha256_96\n      }\n"
                    "      net3 { esp_proposals = aes256gmc16 }\n"
                    "    }\n  }\n}\ninclude conf.d/*.conf\n")
        good = os.path.join(d, "conf.d", "good.conf")
        with open(good, "w") as f:
            f.write("connections { peer { children { c { esp_proposals = %s } } } }\n"
                    % ", ".join(GOOD))
        rc, out = run(ctl, main_conf)
        want = ["swanctl.conf:5: warning: esp_proposals 'aes128ccm16-aes128gcm16': "
                "aes128ccm16 (AES-CCM) is not served by vecsec-gw",
                "swanctl.conf:8: warning: esp_proposals 'aes128-sha256_96': sha256_96 "
                "(HMAC-SHA2-256 with a 12-byte ICV)",
                "swanctl.conf:10: warning: esp_proposals 'aes256gmc16': aes256gmc16 is no "
                "ESP algorithm vecsec-gw knows",
                "check-proposals: 3 algorithms vecsec-gw cannot serve in 4 lists"]
        missing = [w for w in want if w not in out]
        if rc != 1 or missing or out.count("warning:") != 3:
            print("FAIL: check-proposals swanctl.conf: exit %d, missing %s:\n%s" %
                  (rc, missing, out))
            ok = False
        else:
            print("ok   check-proposals: CCM, sha256_96 and a misspelt name warned (file, "
                  "line), the included lists served, exit 1")
        rc, out = run(ctl, good)
        if rc != 0 or "warning" in out or "1 esp_proposals list, every algorithm" not in out:
            print("FAIL: check-proposals good.conf: exit %d:\n%s" % (rc, out))
            ok = False
        else:
            print("ok   check-proposals: every keyword kernel-vecsec maps, PFS groups and "
                  "esn served, exit 0")
        rc, out = run(ctl, os.path.join(d, "none.conf"))
        if rc != 2 or "cannot read" not in out:
            print("FAIL: check-proposals of a missing file: exit %d %s" % (rc, out))
            ok = False
        else:
            print("ok   check-proposals of a missing file: exit 2")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
