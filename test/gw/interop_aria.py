#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw ARIA SAs (aria-{128,192,256}-gcm, aria-*-ctr) against an
independent ESP ARIA written here: OpenSSL's libcrypto through ctypes
(EVP_aria_*_gcm, EVP_aria_*_ctr) for the cipher, scapy for IP framing. ESP
ARIA-GCM has the layout of RFC 4106 (nonce = 4-byte salt || 8-byte IV, AAD
= SPI || SQN, 16-byte ICV), ARIA-CTR that of RFC 3686 (counter block =
4-byte nonce || IV || be32(1), no ICV with auth_algo null).

The gateway runs over net_pcap files as in interop_scapy.py:
  port 0 protected (clear):  rx clear_in.pcap  -> tx clear_out.pcap
  port 1 unprotected (ESP): rx esp_in.pcap    -> tx esp_out.pcap
Outbound, this script decrypts the gateway's ESP and compares with the
originals; inbound, the gateway decrypts this script's ESP and its clear
output must equal the originals byte for byte. IPv4 and IPv6, tunnel and
transport, ESN on and off (crossing 2^32), all GCM key sizes, every CTR key
size; a tampered ICV counts auth_failed, a replay counts replay; every
counter must be exact. Without --cpu-crypto two SAs still say `type
cpu-crypto`, so both kinds of session run in one gateway. Then the parser:
ARIA-CTR with an auth algorithm and a wrong ARIA key length are refused with
FILE:LINE: token '...'; the control socket adds ARIA SAs (on crypto_vecsec)
and refuses them, naming crypto_vecsec, when only crypto_aesni_mb is there.

With -e the gateway runs with ESN on every SA (then GCM's AAD is 12 bytes
on all of them).

With --lookaside-protocol the ARIA-GCM SAs are `type
lookaside-protocol-offload` (crypto_vecsec's rte_security ESP sessions
with the real ARIA xform, no AES stand-in); ARIA-CTR stays lookaside-none.

usage: interop_aria.py GATEWAY_BINARY CTL_BINARY [--cpu-crypto] [-e] [--lookaside-protocol]
                         [--native]
"""
import ctypes
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from scapy.all import IP, IPv6, Raw, raw

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# every EAL start goes through gwtest.eal_args(): --no-pci --no-huge -m 512
import gwtest  # noqa: E402
from gwtest import eth, hexkey, eal_cleanup  # noqa: E402

N = 10              # valid packets per SA and direction
ESN0 = 0xfffffffb   # ESN SAs start here: the 32-bit boundary is crossed in the run
ALL_ESN = False     # -e: ESN on every SA (those without `esn N` start at 0)

# ---- ARIA through OpenSSL ------------------------------------------------

_lc = ctypes.CDLL("libcrypto.so.3")
_vp = ctypes.c_void_p
_lc.EVP_CIPHER_CTX_new.restype = _vp
_lc.EVP_CIPHER_CTX_free.argtypes = [_vp]
_lc.EVP_CipherInit_ex.argtypes = [_vp, _vp, _vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
_lc.EVP_CipherUpdate.argtypes = [_vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                 ctypes.c_char_p, ctypes.c_int]
_lc.EVP_CipherFinal_ex.argtypes = [_vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
_lc.EVP_CIPHER_CTX_ctrl.argtypes = [_vp, ctypes.c_int, ctypes.c_int, _vp]
for _n in (128, 192, 256):
    for _m in ("gcm", "ctr"):
        getattr(_lc, "EVP_aria_%d_%s" % (_n, _m)).restype = _vp
EVP_CTRL_GCM_SET_IVLEN, EVP_CTRL_GCM_GET_TAG, EVP_CTRL_GCM_SET_TAG = 0x9, 0x10, 0x11


class AuthError(Exception):
    pass


def _evp(mode, key, iv, data, enc, aad=b"", tag=None):
    """ARIA-GCM or ARIA-CTR, one shot: returns (output, tag or None)."""
    cipher = getattr(_lc, "EVP_aria_%d_%s" % (len(key) * 8, mode))()
    ctx = _lc.EVP_CIPHER_CTX_new()
    try:
        outl = ctypes.c_int(0)
        assert _lc.EVP_CipherInit_ex(ctx, cipher, None, None, None, enc) == 1
        if mode == "gcm":
            assert _lc.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, len(iv), None) == 1
        assert _lc.EVP_CipherInit_ex(ctx, None, None, key, iv, enc) == 1
        if aad:
            assert _lc.EVP_CipherUpdate(ctx, None, ctypes.byref(outl), aad, len(aad)) == 1
        out = ctypes.create_string_buffer(len(data) + 16)
        assert _lc.EVP_CipherUpdate(ctx, out, ctypes.byref(outl), data, len(data)) == 1
        n = outl.value
        if tag is not None:
            tb = ctypes.create_string_buffer(tag, len(tag))
            assert _lc.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, len(tag), tb) == 1
        fin = ctypes.create_string_buffer(16)
        if _lc.EVP_CipherFinal_ex(ctx, fin, ctypes.byref(outl)) != 1:
            raise AuthError("ICV mismatch")
        res = out.raw[:n] + fin.raw[:outl.value]
        t = None
        if mode == "gcm" and enc:
            tb = ctypes.create_string_buffer(16)
            assert _lc.EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tb) == 1
            t = tb.raw
        return res, t
    finally:
        _lc.EVP_CIPHER_CTX_free(ctx)


def selftest():
    """RFC 5794 A.1 (ARIA-128 block) through CTR: the keystream of block P is E(P)."""
    k = bytes(range(16))
    p = bytes.fromhex("00112233445566778899aabbccddeeff")
    c, _ = _evp("ctr", k, p, bytes(16), 1)
    assert c == bytes.fromhex("d718fbd6ab644c739da95f3be6451778"), c.hex()
    k = bytes(range(32))
    c, _ = _evp("ctr", k, p, bytes(16), 1)
    assert c == bytes.fromhex("f92bd7c79fb72e2f2b8f80c1972d24fc"), c.hex()


# ---- ESP -----------------------------------------------------------------

key = gwtest.keygen(29, 13, 3)
PLAN = gwtest.AddressPlan("172.30.1", "172.30.2", "fd00:ca", "fd00:cb", (110, 210), (3, 4))


# name, spi, gateway keyword, key bytes incl. salt/nonce, mode, inner family, esn, type cpu-crypto
SAS = [
    ("v4tun-gcm128", 0x201, "aria-128-gcm", 20, "ipv4-tunnel", 4, False, False),
    ("v6tun-gcm192", 0x202, "aria-192-gcm", 28, "ipv6-tunnel", 6, False, False),
    ("v4trs-gcm256", 0x203, "aria-256-gcm", 36, "transport", 4, False, True),
    ("v6trs-gcm128-esn", 0x204, "aria-128-gcm", 20, "transport", 6, True, False),
    ("v4tun-gcm256-esn", 0x205, "aria-256-gcm", 36, "ipv4-tunnel", 4, True, False),
    ("v6in4-gcm192", 0x206, "aria-192-gcm", 28, "ipv4-tunnel", 6, False, False),
    ("v4tun-ctr128", 0x207, "aria-128-ctr", 20, "ipv4-tunnel", 4, False, False),
    ("v6trs-ctr256-esn", 0x208, "aria-256-ctr", 36, "transport", 6, True, True),
    ("v4trs-ctr192", 0x209, "aria-192-ctr", 28, "transport", 4, False, False),
]


class Sa:
    def __init__(self, idx, spec, inbound):
        (self.name, spi, self.algo, klen, self.mode, self.fam, self.esn_n, self.cpu) = spec
        self.esn = self.esn_n or ALL_ESN
        self.gcm = self.algo.endswith("gcm")
        self.inbound = inbound
        self.spi = spi + (0x1000 if inbound else 0)
        kb = key(self.spi & 0xff ^ (0x3c if inbound else 0), klen)
        self.key, self.salt = kb[:-4], kb[-4:]
        self.tunnel = self.mode != "transport"
        PLAN.apply(self, idx)
        d = gwtest.direction(self)
        if self.gcm:
            sa = "sa %s %d aead_algo %s aead_key %s" % (d, self.spi, self.algo, hexkey(kb))
        else:
            sa = "sa %s %d cipher_algo %s cipher_key %s auth_algo null" % (
                d, self.spi, self.algo, hexkey(kb))
        sa += " mode %s" % self.mode
        if self.tunnel:
            sa += " src %s dst %s" % gwtest.tunnel_ends(self)
        if self.esn_n:
            sa += " esn %d" % ESN0
        if LKP and self.gcm:
            sa += " type lookaside-protocol-offload"
        elif self.cpu:
            sa += " type cpu-crypto"
        self.conf = gwtest.sp_line(self) + sa + "\n"

    def clear(self, k, size=80):
        return gwtest.udp_packet(self, k, size, 5, 3000 + k, 4000)

    def seq(self, k):
        """64-bit sequence number of packet k (as in interop_scapy.py)."""
        if not self.esn_n:
            return k + 1
        return ESN0 + k + (1 if self.inbound else 0)

    def _aad(self, sq):
        if self.esn:
            return struct.pack("!III", self.spi, sq >> 32, sq & 0xffffffff)
        return struct.pack("!II", self.spi, sq & 0xffffffff)

    def seal(self, sq, iv, plain):
        """ESP payload after SPI || SEQ: IV || ciphertext || ICV."""
        if self.gcm:
            ct, tag = _evp("gcm", self.key, self.salt + iv, plain, 1, aad=self._aad(sq))
            return iv + ct + tag
        ct, _ = _evp("ctr", self.key, self.salt + iv + b"\x00\x00\x00\x01", plain, 1)
        return iv + ct

    def open(self, sq, body):
        iv = body[:8]
        if self.gcm:
            ct, tag = body[8:-16], body[-16:]
            pt, _ = _evp("gcm", self.key, self.salt + iv, ct, 0, aad=self._aad(sq), tag=tag)
            return pt
        pt, _ = _evp("ctr", self.key, self.salt + iv + b"\x00\x00\x00\x01", body[8:], 0)
        return pt

    def encrypt(self, p, k, tamper=False):
        """The ESP packet of clear packet p with the sequence number of packet k."""
        sq = self.seq(k)
        if self.tunnel:
            inner, nh = raw(p), 4 if self.fam == 4 else 41
        else:
            inner, nh = raw(p.payload), 17
        pad = (-(len(inner) + 2)) % 4
        plain = inner + bytes(range(1, pad + 1)) + bytes([pad, nh])
        iv = struct.pack("!Q", (sq * 0x9e3779b97f4a7c15 + self.spi) & (2**64 - 1))
        body = bytearray(self.seal(sq, iv, plain))
        if tamper:
            body[-1] ^= 0x80
        esp = struct.pack("!II", self.spi, sq & 0xffffffff) + bytes(body)
        if self.tunnel:
            if self.mode == "ipv6-tunnel":
                return IPv6(raw(IPv6(src=self.peer, dst=self.gw, nh=50) / Raw(esp)))
            return IP(raw(IP(src=self.peer, dst=self.gw, proto=50) / Raw(esp)))
        h = p.copy()
        h.remove_payload()
        if self.fam == 4:
            h.proto = 50
            del h.len, h.chksum
            return IP(raw(h / Raw(esp)))
        h.nh = 50
        del h.plen
        return IPv6(raw(h / Raw(esp)))

    def decrypt(self, p, k):
        """The clear packet in ESP packet p (a scapy IP/IPv6), checking SPI and SEQ."""
        v6 = IPv6 in p and p.version == 6
        esp = raw(p[IPv6].payload) if v6 else raw(p[IP].payload)
        if (p.nh if v6 else p.proto) != 50:
            raise ValueError("not ESP")
        spi, seq = struct.unpack("!II", esp[:8])
        sq = self.seq(k)
        if spi != self.spi or seq != sq & 0xffffffff:
            raise ValueError("SPI %#x SEQ %d, want %#x %d" % (spi, seq, self.spi, sq))
        plain = self.open(sq, esp[8:])
        pad, nh = plain[-2], plain[-1]
        if plain[-2 - pad:-2] != bytes(range(1, pad + 1)):
            raise ValueError("bad padding")
        inner = plain[:-2 - pad]
        if self.tunnel:
            return IPv6(inner) if nh == 41 else IP(inner)
        h = p.copy()
        h.remove_payload()
        if v6:
            h.nh = nh
            del h.plen
            return IPv6(raw(h / Raw(inner)))
        h.proto = nh
        del h.len, h.chksum
        return IP(raw(h / Raw(inner)))


def esp_spi(p):
    """SPI of the ESP header right after the IP header of p (no UDP, no extensions)."""
    return struct.unpack("!I", raw(p)[(40 if p.version == 6 else p.ihl * 4):][:4])[0]


def parser_checks(gw, tmp):
    """Refused ARIA rules name the file, the line and the token."""
    ok = True
    k20 = hexkey(key(1, 20))
    cases = [
        ("sa out 1 cipher_algo aria-128-ctr cipher_key %s auth_algo sha256-hmac auth_key %s "
         "mode transport" % (k20, hexkey(key(2, 32))), 1, "sha256-hmac", "auth_algo null"),
        ("sa out 1 cipher_algo aria-256-ctr cipher_key %s \\\n auth_algo aes-xcbc-mac-96 "
         "auth_key %s mode transport" % (hexkey(key(1, 36)), hexkey(key(2, 16))), 2,
         "aes-xcbc-mac-96", "auth_algo null"),
        ("sa in 2 aead_algo aria-192-gcm aead_key %s mode transport" % k20, 1,
         "<hidden key>", "28 key bytes"),
        ("sa in 2 aead_algo aria-512-gcm aead_key %s mode transport" % k20, 1,
         "aria-512-gcm", "unknown AEAD"),
    ]
    for i, (text, line, tok, why) in enumerate(cases):
        path = os.path.join(tmp, "bad%d.cfg" % i)
        with open(path, "w") as f:
            f.write(text + "\n")
        r = subprocess.run([gw, "--check", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=30, universal_newlines=True)
        want = "%s:%d: token '%s'" % (path, line, tok)
        if r.returncode == 0 or want not in r.stdout or why not in r.stdout:
            print("FAIL: parser case %d: rc %d, want %r and %r in:\n%s" % (i, r.returncode, want,
                                                                         why, r.stdout))
            ok = False
        elif k20 in r.stdout:
            print("FAIL: parser case %d echoes key bytes" % i)
            ok = False
    good = os.path.join(tmp, "good.cfg")
    with open(good, "w") as f:
        f.write("".join(Sa(i, s, d).conf for i, s in enumerate(SAS) for d in (False, True)))
    r = subprocess.run([gw, "--check", good], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=30, universal_newlines=True)
    if r.returncode != 0:
        print("FAIL: the ARIA configuration does not parse:\n" + r.stdout)
        ok = False
    if ok:
        print("ok   parser: %d refused ARIA rules name file:line:token, %d ARIA SAs parse"
              % (len(cases), 2 * len(SAS)))
    return ok


def ctrl_checks(gw, ctl, tmp, extra_app):
    """
    ARIA SAs through the control socket's `sa` add (the same parser): they
    land on crypto_vecsec (made for them); ARIA-CTR with an auth algorithm
    gets ERR; on a gateway that has no crypto_vecsec (a copy of the binary
    outside the build tree, and no PMD in DPDK's plugin folder) an ARIA SA
    gets ERR naming crypto_vecsec, while an AES-GCM SA is accepted.
    """
    ok = True
    k36, k20 = key(7, 36), key(8, 20)
    gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
    # crypto_vecsec is a plugin: the build tree's binary has EAL load the build's; a copy
    # elsewhere gets only what DPDK's plugin folder holds, or the PMD installed under
    # the build's prefix (which an installed gateway loads itself; none unless installed)
    gw_copy = os.path.join(tmp, "vecsec-gw-copy")
    shutil.copy(gw, gw_copy)
    installed = glob.glob("/usr/lib/*/dpdk/pmds-*/librte_crypto_vecsec.so*") + \
        glob.glob("/usr/local/lib/*/dpdk/pmds-*/librte_crypto_vecsec.so*")
    for run, vdev in (("vecsec", []), ("aesni_mb", ["--vdev", "crypto_aesni_mb_aria0"])):
        sock = os.path.join(tmp, "gw-%s.sock" % run)
        prefix = gwtest.file_prefix("aria-ctrl")
        # runs until the SIGTERM after the last request
        cmd = gwtest.gw_cmd(
            gw if run == "vecsec" else gw_copy, prefix,
            vdev + gwtest.pcap_ports(tmp, ("empty.pcap", "c.pcap"),
                                     ("empty.pcap", "e.pcap")),
            app=["-u", "2", "--ctrl", sock, "--quiet"] + extra_app)
        g = gwtest.Gateway(cmd, name="%s gateway" % run)

        def req(text):
            r = subprocess.run([ctl, "-s", sock], input=text, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True, timeout=30)
            return r.returncode, r.stdout.strip()

        try:
            if not g.wait_ready():
                ok = False
                continue
            gcm = ("sa out 9 aead_algo aria-256-gcm aead_key %s mode transport inner ipv4\n"
                   % hexkey(k36))
            ctr = ("sa in 9 cipher_algo aria-128-ctr cipher_key %s auth_algo null mode "
                   "ipv4-tunnel src 172.30.9.1 dst 172.30.9.2\n" % hexkey(k20))
            bad = ("sa out 10 cipher_algo aria-128-ctr cipher_key %s auth_algo sha1-hmac "
                   "auth_key %s mode transport\n" % (hexkey(k20), hexkey(key(9, 20))))
            answers = [req(gcm), req(ctr), req(bad), req("list\n")]
            for rc, out in answers:
                if hexkey(k36)[:20] in out or hexkey(k20)[:20] in out:
                    print("FAIL: %s: key bytes in an answer" % run)
                    ok = False
            (g_rc, g_out), (c_rc, c_out), (b_rc, b_out), (_, lst) = answers
            if b_rc == 0 or "auth_algo null" not in b_out or "'sha1-hmac'" not in b_out:
                print("FAIL: %s: ARIA-CTR with sha1-hmac: %d %s" % (run, b_rc, b_out))
                ok = False
            if run == "vecsec":
                if g_rc != 0 or c_rc != 0 or \
                        "sa out 9 aria-256-gcm transport inner ipv4 cryptodev crypto_vecsec" \
                        not in lst or "sa in 9 aria-128-ctr ipv4-tunnel" not in lst:
                    print("FAIL: ARIA SAs through the control socket: %s / %s / %s"
                          % (g_out, c_out, lst))
                    ok = False
                else:
                    print("ok   control socket: ARIA-GCM and ARIA-CTR SAs added, on "
                          "crypto_vecsec; ARIA-CTR + sha1-hmac refused")
                # mem counts the key schedules crypto_vecsec keeps in DPDK's heap:
                # vecsec_aead_key_size() of ARIA-GCM (896) and ARIA-CTR (640)
                heap = re.search(r"session-heap (\d+)", req("mem\n")[1])
                if heap is None or int(heap.group(1)) != 896 + 640:
                    print("FAIL: mem: session-heap %s, want %d (ARIA-GCM 896 + ARIA-CTR 640)"
                          % (heap and heap.group(1), 896 + 640))
                    ok = False
                else:
                    print("ok   mem counts the ARIA key schedules in DPDK's heap: %s bytes"
                          % heap.group(1))
                if req("del sa out 9\n")[0] != 0 or req("del sa in 9\n")[0] != 0:
                    print("FAIL: cannot delete the ARIA SAs")
                    ok = False
                heap = re.search(r"session-heap (\d+)", req("mem\n")[1])
                if heap is None or int(heap.group(1)) != 0:
                    print("FAIL: mem after deleting the ARIA SAs: session-heap %s, want 0"
                          % (heap and heap.group(1)))
                    ok = False
            else:
                aes = gcm.replace("aria-256-gcm", "aes-256-gcm").replace("out 9", "out 11")
                a_rc, a_out = req(aes)
                if installed:           # the plugin folder has crypto_vecsec: made for ARIA
                    lst = req("list\n")[1]
                    if g_rc != 0 or "sa out 9 aria-256-gcm" not in lst or \
                            "cryptodev crypto_vecsec" not in lst or a_rc != 0:
                        print("FAIL: with %s installed: ARIA %d %s, AES-GCM %d %s; %s"
                              % (installed[0], g_rc, g_out, a_rc, a_out, lst))
                        ok = False
                    else:
                        print("ok   control socket, crypto_aesni_mb given: ARIA SA on "
                              "crypto_vecsec from DPDK's plugin folder (%s)" % installed[0])
                elif g_rc == 0 or "ARIA needs crypto_vecsec" not in g_out or c_rc == 0 or \
                        a_rc != 0:
                    print("FAIL: crypto_aesni_mb only: ARIA %d %s / %d %s, AES-GCM %d %s"
                          % (g_rc, g_out, c_rc, c_out, a_rc, a_out))
                    ok = False
                else:
                    print("ok   control socket, crypto_aesni_mb only: ARIA SAs refused (%s), "
                          "AES-GCM accepted" % g_out.split("\n")[-1])
            rc, out = g.stop()
            if rc != 0:
                print("FAIL: %s: gateway exited with %s\n%s" % (run, rc, out))
                ok = False
        finally:
            g.kill()
            eal_cleanup(prefix)
    return ok


LKP = False     # --lookaside-protocol


def main():
    global ALL_ESN, LKP
    gwbin, ctlbin = sys.argv[1], sys.argv[2]
    extra_app, _, own = gwtest.gw_args(sys.argv[3:], flags=("-e", "--lookaside-protocol"),
                                       app_flags=("--cpu-crypto", "-e", "--native"), eal_opts=())
    ALL_ESN = "-e" in own
    LKP = "--lookaside-protocol" in own
    selftest()

    prefix = gwtest.file_prefix("aria")
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-aria-")
    ok = True
    try:
        ok = parser_checks(gwbin, tmp)
        # the control socket's cryptodev choice (native SAs need none: left out)
        ok = ctrl_checks(gwbin, ctlbin, tmp, [a for a in extra_app if a != "--native"]) and ok
        outs, ins = gwtest.sa_pairs(Sa, SAS)
        conf = "".join(s.conf for s in outs + ins)
        conf += PLAN.routes() + gwtest.NEIGH
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"), conf)

        clear_in, out_orig = gwtest.clear_traffic(outs, N, lambda k: 20 + 37 * k)
        esp_in, in_want = gwtest.esp_traffic(ins, N, lambda k: 25 + 41 * k)
        # bad packets: a tampered ICV on each GCM SA of the first two, a replay on
        # a GCM SA and on a CTR SA
        g0, g1, c0 = ins[0], ins[1], ins[6]
        esp_in.append(eth(g0.encrypt(g0.clear(N, 64), N, tamper=True)))    # -> auth_failed
        esp_in.append(eth(g1.encrypt(g1.clear(N, 64), N, tamper=True)))    # -> auth_failed
        esp_in.append(eth(g0.encrypt(g0.clear(0, 25), 0)))                 # seq 1 again: replay
        esp_in.append(eth(c0.encrypt(c0.clear(3, 25 + 41 * 3), 3)))        # replay
        exp_drops = {"auth_failed": 2, "replay": 2}
        exp_sa = {(g0.spi, "auth_failed"): 1, (g1.spi, "auth_failed"): 1,
                  (g0.spi, "replay"): 1, (c0.spi, "replay"): 1}

        stats = gwtest.run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, app=extra_app,
                                   quiet=False, wrap=("timeout", "150"), timeout=160)
        if stats is None:
            return 1

        esp_out = gwtest.EspOut(outs)
        for p, s, k in esp_out.each(os.path.join(tmp, "esp_out.pcap"), esp_spi):
            if s.tunnel and (p.src != s.gw or p.dst != s.peer):
                print("FAIL: %s: outer header %s -> %s" % (s.name, p.src, p.dst))
                ok = False
            ok = gwtest.check_decrypt(s.name, k, lambda: s.decrypt(p, k), out_orig[s.spi][k],
                                      (AuthError, ValueError)) and ok
        ok = esp_out.check_counts(N, "ok   outbound %-17s %d packets decrypt with OpenSSL ARIA "
                                  "to the originals") and ok

        ok = gwtest.check_clear_port(os.path.join(tmp, "clear_out.pcap"), ins, in_want,
                                     lambda s: "ok   inbound  %-17s %d OpenSSL ARIA packets "
                                     "decrypt to the originals" % (s.name, N)) and ok

        st = gwtest.load_stats(stats)
        ok = gwtest.check_drops(st, exp_drops) and ok
        for e in st["sa"]:
            # only crypto_vecsec has ARIA: the capability check must have picked it;
            # with --native the ARIA-GCM SAs have no cryptodev (the gateway's own ESP)
            native = "--native" in extra_app and e["algo"].endswith("-gcm")
            if not (e["cryptodev"] == "none" if native else
                    e["cryptodev"].startswith("crypto_vecsec")):
                print("FAIL: SA %s %#x on %s" % (e["dir"], e["spi"], e["cryptodev"]))
                ok = False
        ok = gwtest.check_sa_pkts(st, lambda e: N) and ok
        ok = gwtest.check_sa_drops(st, lambda e, r: exp_sa.get((e["spi"], r), 0)
                                   if e["dir"] == "in" else 0) and ok
        ok = gwtest.check_esp_totals(st, N * len(SAS), N * len(SAS)) and ok
        if ok:
            print("ok   drops: auth_failed 2 (tampered ICV), replay 2, per SA exact")
    finally:
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
