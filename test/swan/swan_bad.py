# SPDX-License-Identifier: BSD-3-Clause
"""
kernel-vecsec against a missing, misbehaving or refusing gateway. Two
hosts on one link (sA: charon with kernel-vecsec, sB: charon with
kernel-libipsec); no DPDK: the "gateway" is this script, a fake serving
vecsec-gw's control protocol on the plugin's socket.

  1. no gateway: charon A starts, logs that vecsec-gw is not reachable,
     keeps running; the CHILD_SA fails with a log line saying why
  2. malformed answers to `spi alloc` (binary bytes, no OK/ERR line, a
     non-number, an answer over the size limit, no answer within the
     timeout, the connection closed): each logged as such, the CHILD_SA
     fails, charon keeps running; malformed event lines are ignored
  3. unsupported ESP proposals (AES-GCM with an 8-byte ICV, 3DES): refused
     at add_sa with a log line naming the algorithm
  4. the plugin's requests for ChaCha20-Poly1305, AES-128-GCM and AES-CBC
     with HMAC-SHA1/SHA2:
     the gateway's algorithm words and key lengths (checked here without
     printing the keys), then the in/out rules; a gateway that refuses the
     SA ("ERR ... no started cryptodev supports it") fails the CHILD_SA
     with that reason in charon's log
  5. a listener that another user (uid 1) made at the gateway's socket: the
     plugin refuses it after connect (SO_PEERCRED: not root), logs so, and
     sends it nothing; the CHILD_SA fails

    swan_bad.py BUILD_DIR
"""
import os
import re
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402


class FakeGw:
    """vecsec-gw's control socket, with a switchable answer to `spi alloc` and `sa`."""

    def __init__(self, path, uid=0):
        self.path = path
        self.mode = "ok"
        self.sa_mode = "ok"
        self.version = "1.5"
        self.requests = []
        self.got = 0                # request bytes received
        self.subs = []
        self.next_spi = 0xc0000100
        self.stop = False
        if os.path.exists(path):
            os.unlink(path)
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        os.chmod(path, 0o600 if uid == 0 else 0o666)
        os.seteuid(uid)             # the peer credentials a client sees: listen()'s
        try:
            self.ls.listen(16)
        finally:
            os.seteuid(0)
        self.ls.settimeout(0.2)
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def close(self):
        self.stop = True
        self.t.join()
        self.ls.close()
        for c in self.subs:
            c.close()

    def run(self):
        while not self.stop:
            try:
                c, _ = self.ls.accept()
            except socket.timeout:
                continue
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        data = b""
        c.settimeout(5)
        try:
            while b"\n" not in data:
                b = c.recv(4096)
                if not b:
                    break
                data += b
                self.got += len(b)
        except socket.timeout:
            pass
        line = data.split(b"\n")[0].decode(errors="replace")
        self.requests.append(line)
        w = line.split()
        if not w:
            c.close()
            return
        if w[0] == "hello":
            c.sendall(b"version %s\nboot 0123456789abcdef\nhost off\nOK\n"
                      % self.version.encode())
        elif w[0] == "subscribe":
            c.sendall(b"OK\n")
            self.subs.append(c)
            return
        elif w[:2] == ["spi", "alloc"]:
            m = self.mode
            if m == "ok":
                self.next_spi += 1
                c.sendall(b"spi %d\nOK\n" % self.next_spi)
            elif m == "binary":
                c.sendall(b"spi \x00\xff\xfe\nOK\n")
            elif m == "nofinal":
                c.sendall(b"spi 3221225729\n")
            elif m == "nan":
                c.sendall(b"spi twelve\nOK\n")
            elif m == "huge":
                try:
                    c.sendall(b"A" * 70000 + b"\nOK\n")
                except OSError:
                    pass
            elif m == "silent":
                time.sleep(2.5)
            elif m == "close":
                pass
        elif w[0] == "sa":
            if self.sa_mode == "refuse":
                c.sendall(b"ERR SA in 1: no started cryptodev supports it\n")
            else:
                c.sendall(b"OK\n")
        elif w[:2] == ["query", "sa"]:
            c.sendall(b"sa %s %s packets 0 bytes 0 last-use 0 soft-expired 0 hard-expired 0\n"
                      b"OK\n" % (w[2].encode(), w[3].encode()))
        elif w[:2] == ["del", "sa"] or w[0] in ("sp", "replace", "del", "flush", "bypass",
                                                  "natt"):
            c.sendall(b"OK\n")
        else:
            c.sendall(b"ERR unknown command\n")
        try:
            c.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        c.close()

    def event(self, raw):
        for c in self.subs:
            try:
                c.sendall(raw)
            except OSError:
                pass


def conf(me, peer, lts, rts, esp, lid, rid):
    return st.swanctl_conf([st.conn("c", me, peer, lid, rid, {
        "net": {"mode": "tunnel", "local_ts": lts, "remote_ts": rts, "esp_proposals": esp,
                "start_action": "none"}})])


def main():
    env = st.Env(sys.argv[1], "sb")
    fake = None
    try:
        env.topology_pair()
        env.charon_start("B", "sB", st.plugin_conf_libipsec())

        def load(esp):
            env.swanctl_load("B", conf("10.78.0.2", "10.78.0.1", "10.78.2.0/24", "10.78.1.0/24",
                                       esp, "b.test", "a.test"))
            env.swanctl_load("A", conf("10.78.0.1", "10.78.0.2", "10.78.1.0/24", "10.78.2.0/24",
                                       esp, "a.test", "b.test"))

        def initiate_fails(what):
            out = env.swanctl("A", "--initiate", "--child", "net", "--timeout", "20",
                              check_rc=False)
            check("initiate failed" in out or "establishing CHILD_SA 'net' failed" in out
                  or "establishing CHILD_SA" in out and "failed" in out,
                  "%s: the CHILD_SA fails" % what)
            check(env.charon_A.poll() is None, "%s: charon A keeps running" % what)
            env.swanctl("A", "--terminate", "--ike", "c", check_rc=False)

        # 1. no gateway
        env.charon_start("A", "sA", st.plugin_conf_vecsec(env, timeout=1000), preload=True)
        la = env.charon_log("A")
        check("kernel-vecsec: cannot reach vecsec-gw at %s" % env.sock in la and
              "is the gateway running with --ctrl" in la,
              "no gateway: charon logs that vecsec-gw cannot be reached at its socket")
        load("chacha20poly1305")
        initiate_fails("no gateway")
        check("allocating an SPI failed: vecsec-gw is not connected" in env.charon_log("A"),
              "no gateway: charon's log says why the CHILD_SA failed")

        # 2. a fake gateway with malformed answers
        fake = FakeGw(env.sock)
        st.wait_for(lambda: "connected to vecsec-gw" in env.charon_log("A"), 10,
                    what="the plugin to find the (fake) gateway")
        for mode, logline in (("binary", "malformed answer to 'spi' from vecsec-gw: byte 0x00"),
                              ("nofinal", "its last line is neither OK nor ERR"),
                              ("nan", "malformed answer to 'spi alloc'"),
                              ("huge", "longer than 65536 bytes"),
                              ("silent", "no answer to 'spi' from vecsec-gw"),
                              ("close", "empty (did the gateway close the connection?)")):
            fake.mode = mode
            before = len(env.charon_log("A"))
            initiate_fails("malformed answer (%s)" % mode)
            check(logline in env.charon_log("A")[before:],
                  "malformed answer (%s): logged as '%s'" % (mode, logline))
        fake.mode = "ok"
        before = len(env.charon_log("A"))
        fake.event(b"expire soft sideways 12 packets 1\n")
        fake.event(b"expire hard in 999999 packets 1\n")      # an SA the plugin never had
        st.wait_for(lambda: "unknown event from vecsec-gw ignored" in
                    env.charon_log("A")[before:], 10, what="the bad event to be logged")
        fake.event(b"x" * 5000)
        st.wait_for(lambda: "malformed event stream" in env.charon_log("A")[before:], 10,
                    what="the over-long event line to be logged")
        st.wait_for(lambda: len(fake.subs) >= 2, 10, what="the plugin to subscribe again")
        check(env.charon_A.poll() is None, "bad events: ignored, subscription renewed, charon runs")

        # 3. unsupported ESP proposals: refused at add_sa, the log names them
        for esp, name in (("aes128gcm8", "AES_GCM_8"), ("3des-sha1", "3DES_CBC")):
            load(esp)
            before = len(env.charon_log("A"))
            initiate_fails("ESP %s" % esp)
            check(re.search(r"ESP encryption %s with a \d+-byte key is not offered by vecsec-gw"
                            % name, env.charon_log("A")[before:]),
                  "ESP %s: refused at add_sa, the log names %s" % (esp, name))

        # 4. what the plugin asks the gateway for, per algorithm
        for esp, words, enc_len, int_len in (
                ("chacha20poly1305", "aead_algo chacha20-poly1305 aead_key", 36, 0),
                ("aes128-sha256", "cipher_algo aes-128-cbc cipher_key", 16, 32),
                ("aes256-sha512", "cipher_algo aes-256-cbc cipher_key", 32, 64),
                ("aes192-sha1", "cipher_algo aes-192-cbc cipher_key", 24, 20),
                ("aes128gcm16", "aead_algo aes-128-gcm aead_key", 20, 0)):
            load(esp)
            del fake.requests[:]
            env.swanctl("A", "--initiate", "--child", "net", "--timeout", "20")
            sas = [r for r in fake.requests if r.startswith("sa ")]
            check(len(sas) == 2, "%s: two SAs requested" % esp)
            for r in sas:
                m = re.search(r"(\S+_algo \S+ \S+_key) ([0-9a-f:]+)", r)
                key_len = len(m.group(2).split(":")) if m else -1
                am = re.search(r"auth_algo (\S+) auth_key ([0-9a-f:]+)", r)
                check(m and m.group(1) == words and key_len == enc_len and
                      (int_len == 0 or (am and len(am.group(2).split(":")) == int_len)) and
                      re.search(r" mode ipv4-tunnel src 10\.78\.0\.%s dst 10\.78\.0\.%s "
                                r"udp-ports %s replay_win 32 .*inner ipv4 owner test$" % (
                                    ("2", "1", "4500:4501") if r.startswith("sa in") else
                                    ("1", "2", "4501:4500")), r) and " esn " not in r,
                      "%s: %s SA request: '%s', %d key bytes%s, tunnel, NAT-T ports, "
                      "window, owner" % (esp, r.split()[1], words, enc_len,
                                         ", %d auth key bytes" % int_len if int_len else ""))
            sps = [r for r in fake.requests if r.startswith("sp ")]
            check(len(sps) == 2 and any(re.match(r"sp ipv4 in esp protect \d+ pri \d+ src "
                                                 r"10\.78\.2\.0/24 dst 10\.78\.1\.0/24", r)
                                        for r in sps) and
                  any(re.match(r"sp ipv4 out esp protect \d+ pri \d+ src 10\.78\.1\.0/24 dst "
                               r"10\.78\.2\.0/24", r) for r in sps),
                  "%s: one in and one out rule (fwd stays in the plugin)" % esp)
            env.swanctl("A", "--terminate", "--ike", "c")
        fake.sa_mode = "refuse"
        load("chacha20poly1305")
        before = len(env.charon_log("A"))
        initiate_fails("gateway refuses the SA")
        check("vecsec-gw refused inbound SA" in env.charon_log("A")[before:] and
              "no started cryptodev supports it" in env.charon_log("A")[before:],
              "gateway refuses the SA: charon's log gives the gateway's reason")

        # 5a. a gateway that answers an older protocol than the plugin's requests
        # need: not used, and the log says which version is needed; with 1.5
        # again the subscription comes back
        fake.version = "1.2"
        before = len(env.charon_log("A"))
        subs, fake.subs = fake.subs, []
        for c in subs:
            c.close()
        st.wait_for(lambda: "no protocol 1.5 or later 1.x answer to hello" in
                    env.charon_log("A")[before:], 10,
                    what="the plugin to refuse a gateway answering protocol 1.2")
        check("re-established" not in env.charon_log("A")[before:],
              "a gateway answering 1.2: not used, logged as needing 1.5 or later 1.x")
        fake.version = "1.7"
        st.wait_for(lambda: "event subscription at %s re-established" % env.sock in
                    env.charon_log("A")[before:], 10,
                    what="the plugin to use a gateway answering a later 1.x")

        # 5. another user's listener at the socket's path: refused, sent nothing
        fake.close()
        before = len(env.charon_log("A"))
        fake = FakeGw(env.sock, uid=1)
        st.wait_for(lambda: "refused the listener at %s" % env.sock in
                    env.charon_log("A")[before:], 10,
                    what="the plugin to refuse a listener of uid 1")
        initiate_fails("a listener of uid 1")
        la = env.charon_log("A")[before:]
        check("uid 1 is not root or charon's uid 0" in la and fake.got == 0 and
              "connected to vecsec-gw" not in la,
              "a listener of uid 1: refused after connect (SO_PEERCRED), logged, %d bytes "
              "sent to it" % fake.got)
        log("PASS")
        return 0
    except st.Fail as e:
        log("FAIL: %s" % e)
        for rel in ("A/charon.log", "B/charon.log"):
            log("---- %s (tail) ----\n%s" % (rel, env.tail(rel, 80)))
        return 1
    finally:
        if fake:
            fake.close()
        env.close()


if __name__ == "__main__":
    sys.exit(main())
