#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw's control socket against careless and hostile clients (the
gateway runs with traffic flowing: net_pcap infinite_rx on the protected
port, routes only at start):

hangup    a client sends 2000 `stats` and hangs up without reading: the
          gateway lives (no SIGPIPE) and answers the next client.
framing   a request that is not exactly one well-formed line is refused
          whole, one ERR each, nothing applied: NUL (the bypass example:
          `sp ipv4 out esp bypass pri 100\\0 dst 10.99.0.0/16`), an
          over-long line with a NUL whose 4096th byte starts a bypass rule,
          control characters (CR, VT, ESC), bytes above 0x7e, '#' and '\\'
          (comment and continuation), a last line without newline; `list`
          then shows no bypass rule; valid requests on the same connection
          still get their answers.
keys      malformed key-bearing requests (key keyword missing, misspelt,
          misplaced; keys as SPI, address, command): no ERR answer holds
          4 or more consecutive key bytes (hex, with or without ':').
ctl       vecsec-ctl refuses key material on its command line (and sends
          nothing), refuses stdin lines with a NUL, takes requests from
          -f FILE; `subscribe x` is refused.
idle      an idle client, one with half a request, and one that sent 2000
          requests and reads none of the answers stay connected while
          another client adds an SA with lifetimes and its SP, and a
          `vecsec-ctl monitor` subscriber gets both expire events; then
          SIGTERM: the gateway exits 0 within 20 s, removes its socket
          and its EAL runtime folder.
dump      DPDK's memory (where the sessions keep the keys) is marked
          MADV_DONTDUMP (/proc/PID/smaps: "dd"), 512 MB and more.
peer      second gateway, --ctrl-group nogroup: the socket is 0660 group
          nogroup; uid 65534 with group nogroup (primary, or supplementary
          through SO_PEERGROUPS) is served; after `chmod 666` of the socket
          (the mode alone is no fence), uid 65534 without the group is
          refused by SO_PEERCRED.
plant     vecsec-ctl run by a fresh user without XDG_RUNTIME_DIR, whose default
          folder /tmp/vecsec-gw-UID another user (daemon) made first and
          listens in: refused, nothing sent (the folder is daemon's); with
          the folder the user's own but the listener daemon's: refused by
          SO_PEERCRED, nothing sent.
reap      third gateway, --ctrl-idle 1 --spi-timeout 3: a subscriber and 15
          idle clients fill every slot; the idle ones are closed, a new
          client is served, the subscriber stays; 8 subscribers that hang up
          leave room for 8 more; an `spi alloc` reservation comes free after
          3 s, one whose SA was added does not; 40 `flush owner` of unknown
          names register none (a new owner still fits); owner names carried
          only by reservations come free once those expired (a name an SA
          carries stays).

Every wait has a deadline and ends as soon as its condition holds (the
socket accepting, an answer line, an event, the exit); none is a fixed
sleep.

usage: ctrl_hard_check.py GATEWAY_BINARY CTL_BINARY [CHECK ...]
       (CHECK: dump hangup framing keys ctl idle peer plant reap; default all)
"""
import os
import re
import pwd
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from scapy.all import IP, UDP, Raw, wrpcap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth  # noqa: E402

KEY = bytes((0xc5 + 7 * i) & 0xff for i in range(36))
HEXKEY = gwtest.hexkey(KEY)
ROUTES = "rt ipv4 dst 172.31.0.0/16 port 1\nrt ipv4 dst 10.0.0.0/8 port 0\n"
# the answer to `version` (ctrl_ike.h: GW_CTRL_VERSION; 1.2 added the IKE daemon requests,
# 1.3 show sa, reset, reload and json, 1.4 mem, 1.5 port del and owners, 1.6 subscribe all,
# 1.7 rt, neigh, del rt, del neigh, show rt, 1.8 segments, segment +N|-N)
VERSION = "version 1.8"
SA5 = ("sa out 5 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel src 172.31.1.1 "
       "dst 172.31.2.1 lifetime-soft-packets 100 lifetime-hard-packets 200\n" % HEXKEY)
SP5 = "sp ipv4 out esp protect 5 pri 10 dst 10.5.0.0/16\n"
NOBODY, NOGROUP, DAEMON = 65534, 65534, 1

ok = True



def fail(msg):
    global ok
    print("FAIL:", msg)
    ok = False


def good(msg):
    print("ok   " + msg)


def key_fragments():
    """Every run of 4 consecutive key bytes, as hex with and without ':' (both cases)."""
    frags = set()
    for i in range(len(KEY) - 3):
        b = KEY[i:i + 4]
        for f in (gwtest.hexkey(b), b.hex()):
            frags.add(f)
            frags.add(f.upper())
    return frags


KEY_FRAGS = key_fragments()


def leaks(text):
    return [f for f in KEY_FRAGS if f in text]


class Conn:
    """A raw client connection; lines() reads answer lines up to a deadline."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def send(self, data):
        self.s.sendall(data)

    def line(self, timeout=10.0):
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.s], [], [], left)[0]:
                return None
            try:
                chunk = self.s.recv(65536)
            except OSError:
                return None
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("ascii", "replace")

    def answer(self, timeout=10.0):
        """Lines up to and including the OK/ERR line; None on timeout or hangup."""
        out = []
        while True:
            line = self.line(timeout)
            if line is None:
                return None
            out.append(line)
            if line.startswith("OK") or line.startswith("ERR"):
                return out

    def close(self):
        self.s.close()


def wait_listening(path, proc, timeout=60.0):
    """Readiness: the control socket accepts and answers `version`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            c = Conn(path)
        except OSError:
            time.sleep(0.05)
            continue
        c.send(b"version\n")
        a = c.answer()
        c.close()
        return a is not None and a[-1] == "OK"
    return False


def start_gw(gw, tmp, name, app):
    prefix = gwtest.file_prefix(name)
    sock = os.path.join(tmp, name + ".sock")
    cfg = gwtest.write_config(os.path.join(tmp, name + ".cfg"), ROUTES)
    ports = gwtest.pcap_ports(tmp, ("clear_in.pcap,infinite_rx=1", name + "_clear_out.pcap"),
                              ("empty.pcap", name + "_esp_out.pcap"))
    cmd = gwtest.gw_cmd(gw, prefix, ports, app=["-f", cfg, "-u", "2", "--ctrl", sock,
                                                "--quiet"] + app)
    log = open(os.path.join(tmp, name + ".log"), "w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    if not wait_listening(sock, proc):
        fail("%s: the control socket does not answer (gateway rc %s)" % (name, proc.poll()))
        return None, sock, prefix
    return proc, sock, prefix


def ctl(ctlbin, sock, words=(), text=None, timeout=20, pre=()):
    try:
        return subprocess.run(list(pre) + [ctlbin, "-s", sock] + list(words), input=text,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def show(r):
    """A vecsec-ctl run for a FAIL line."""
    if r is None:
        return "no answer in time"
    return "rc %d, stdout %r, stderr %r" % (r.returncode, r.stdout, r.stderr)


def spd(sock):
    c = Conn(sock)
    c.send(b"list\n")
    a = c.answer()
    c.close()
    return a or ["<no answer>"]


def check_hangup(proc, sock):
    c = Conn(sock)
    c.send(b"stats\n" * 2000)
    c.close()
    c = Conn(sock)
    c.send(b"stats\nversion\n")
    a1, a2 = c.answer(), c.answer()
    c.close()
    if proc.poll() is not None or a1 is None or a2 != [VERSION, "OK"]:
        fail("hangup: after a client hung up before its answers: gateway rc %s, answers %s %s"
             % (proc.poll(), a1 and a1[-1], a2))
    else:
        good("hangup: 2000 requests then hang up: the gateway lives, the next client served")


FRAMING = [
    (b"sp ipv4 out esp bypass pri 100\x00 dst 10.99.0.0/16\n", "NUL"),
    (b"version\x00" + b"A" * (4095 - 8) + b"sp ipv4 out esp bypass pri 101 dst 10.98.0.0/16\n",
     "over-long line with a NUL, a rule at byte 4096"),
    (b"sp ipv4 out esp bypass pri 102 dst 10.97.0.0/16" + b" " * 5000 + b"\n", "over-long"),
    (b"list\x0b\n", "VT"),
    (b"version\r\n", "CR"),
    (b"\x1b[2Jlist\n", "ESC"),
    (b"list \xff\n", "0xff"),
    (b"version\xc2\xa0\n", "UTF-8 NBSP"),
    (b"sp ipv4 out esp bypass pri 104 # dst 10.95.0.0/16\n", "'#'"),
    (b"sp ipv4 out esp bypass pri 105 \\\n", "'\\'"),
    (b"sp ipv4 out esp bypass pri 106\tdst 10.94.0.0/16\x7f\n", "DEL"),
]


def check_framing(sock):
    c = Conn(sock)
    for data, what in FRAMING:
        c.send(data)
        a = c.answer()
        if a is None or len(a) != 1 or not a[0].startswith("ERR request refused whole"):
            fail("framing: %s: answer %s" % (what, a))
        else:
            good("framing: %-50s -> %s" % (what, a[0][:60]))
        c.send(b"version\n")               # the connection still works, in step
        if c.answer() != [VERSION, "OK"]:
            fail("framing: after %s, `version` is not answered in step" % what)
    c.close()
    # the last line of a connection without its newline
    c = Conn(sock)
    c.send(b"version\nsp ipv4 out esp bypass pri 107 dst 10.93.0.0/16")
    c.s.shutdown(socket.SHUT_WR)
    a1, a2 = c.answer(), c.answer()
    c.close()
    if a1 != [VERSION, "OK"] or a2 is None or \
            not a2[0].startswith("ERR request refused whole: no newline"):
        fail("framing: no newline at the end: %s %s" % (a1, a2))
    else:
        good("framing: last line without newline          -> %s" % a2[0][:60])
    lst = spd(sock)
    if any("bypass" in l for l in lst):
        fail("framing: a refused request was applied: %s" % lst)
    else:
        good("framing: the SPD has no bypass rule after all that")


KEYREQ = [
    "sa out 6 aead_algo chacha20-poly1305 {k} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 mode transport {k}",
    "sa out 6 aead_algo chacha20-poly1305 aead_kye {k} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key mode {k} transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {n} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k}:ff mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {u}:AB mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key 0x{n} mode transport",
    "sa out 6 cipher_algo aes-128-cbc {k16} auth_algo null mode transport",
    "sa out 6 cipher_algo aes-128-cbc cipher_key {k16} auth_algo sha1-hmac {k20} mode transport",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode ipv4-tunnel src {k} dst 1.1.1.1",
    "sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode ipv6-tunnel src {k16} dst ::1",
    "sa out {n} aead_algo chacha20-poly1305 aead_key {k} mode transport",
    "sa {k} 6",
    "sp ipv4 out esp protect {k}",
    "sp ipv4 out esp protect {n}",
    "sp ipv4 out esp bypass dst {k}",
    "sp ipv4 out esp bypass pri {n}",
    "sp ipv4 out esp bypass sport {k16}",
    "del sp sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode transport",
    "del sp ipv4 out esp bypass dst {k}",
    "del sa out {n}",
    "del {k}",
    "replace sp ipv4 out esp bypass dst {k} with discard",
    "replace sp ipv4 out esp bypass with protect {n}",
    "replace sa out 6 aead_algo chacha20-poly1305 aead_key {k} mode transport with discard",
    "{k}",
    "{n}",
    "{u}",
    "list {k}",
    "subscribe {n}",
]


def key_requests():
    sub = dict(k=HEXKEY, n=KEY.hex(), u=HEXKEY.upper(), k16=gwtest.hexkey(KEY[:16]),
               k20=gwtest.hexkey(KEY[:20]))
    return [r.format(**sub) for r in KEYREQ]


def check_keys(sock):
    """Each request must fail where the key is (so none may succeed: SA 6 stays new)."""
    c = Conn(sock)
    n = 0
    for r in key_requests():
        c.send(r.encode() + b"\n")
        a = c.answer()
        if a is None or not a[-1].startswith("ERR"):
            fail("keys: %s...: answer %s" % (r[:40], a and a[-1][:80]))
            continue
        bad = leaks("\n".join(a))
        if bad:
            fail("keys: key bytes %s in the answer to %s...: %s" % (bad[0], r[:40], a[-1]))
            continue
        n += 1
    c.close()
    if n == len(KEYREQ):
        good("keys: %d malformed key-bearing requests, ERR each, no key bytes in any" % n)


def check_ctl(ctlbin, sock, tmp):
    # keys on the command line: refused, nothing sent
    for words in (("sa", "out", "7", "aead_algo", "chacha20-poly1305", "aead_key", HEXKEY,
                   "mode", "transport"),
                  ("sa", "out", "7", "aead_algo", "chacha20-poly1305", KEY.hex(), "mode",
                   "transport")):
        r = ctl(ctlbin, sock, words)
        if r is None or r.returncode != 1 or "-f FILE" not in r.stderr or \
                "standard input" not in r.stderr or leaks(r.stdout + r.stderr):
            fail("ctl: key on the command line: %s" % show(r))
        else:
            good("ctl: refuses key material in argv: %s" % r.stderr.split("\n")[0][:70])
    if any("sa out 7" in l for l in spd(sock)):
        fail("ctl: the SA of a refused command line was added")
    # a NUL on stdin: that line is refused, not cut
    r = ctl(ctlbin, sock, text="sp ipv4 out esp bypass pri 100\0 dst 10.99.0.0/16\nversion\n")
    if r is None or r.returncode != 1 or "NUL" not in r.stderr or VERSION not in r.stdout:
        fail("ctl: NUL on stdin: %s" % show(r))
    elif any("bypass" in l for l in spd(sock)):
        fail("ctl: the line with a NUL was applied (cut at the NUL)")
    else:
        good("ctl: a stdin line with a NUL is refused whole, the next one sent")
    # -f FILE
    path = os.path.join(tmp, "req.txt")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.write(fd, ("# a comment\n\nsa out 8 aead_algo chacha20-poly1305 aead_key %s "
                  "mode transport inner ipv4\r\ndel sa out 8" % HEXKEY).encode())
    os.close(fd)
    r = ctl(ctlbin, sock, ("-f", path))
    if r is None or r.returncode != 0 or r.stdout.count("OK") != 2 or r.stderr:
        fail("ctl: -f FILE: %s" % show(r))
    else:
        good("ctl: -f FILE (comment, blank, CRLF, no final newline): both requests OK")
    # subscribe takes no words
    r = ctl(ctlbin, sock, ("subscribe", "x"), timeout=10)
    if r is None or r.returncode != 1 or "ERR usage: subscribe" not in r.stdout:
        fail("ctl: subscribe x: %s" % show(r))
    else:
        good("ctl: `subscribe x` -> %s" % r.stdout.strip())


class Lines:
    """Lines of a pipe as they come, each awaited up to a deadline."""

    def __init__(self, f):
        self.fd = f.fileno()
        self.buf = b""

    def get(self, deadline):
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()


def check_idle_and_term(ctlbin, proc, sock, prefix):
    idle = Conn(sock)                          # never sends a byte
    half = Conn(sock)
    half.send(b"sp ipv4 out esp")              # half a request, no newline
    stalled = Conn(sock)
    stalled.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.send(b"stats\n" * 2000)            # and never reads an answer
    mon = subprocess.Popen([ctlbin, "-s", sock, "monitor"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    lines = Lines(mon.stdout)
    try:
        t_sub = time.time()
        first = lines.get(time.monotonic() + 10)
        if first != "OK":
            fail("idle: monitor did not subscribe: %r" % first)
            return
        r = ctl(ctlbin, sock, text=SA5 + SP5, timeout=10)
        if r is None or r.returncode != 0:
            fail("idle: adding SA 5 and its SP beside idle clients: %s" %
                 ("no answer in 10 s" if r is None else (r.returncode, r.stdout)))
            return
        good("idle: SA 5 and its SP added while three clients idle or stall")
        # `monitor` subscribes to every event (1.6): the SA's arrival, then its expires;
        # each line ends with its Unix time, " time S.MMM"
        want = ["add sa out 5 by control", "expire soft out 5 packets 100",
                "expire hard out 5 packets 200"]
        got, times = [], []
        deadline = time.monotonic() + 20
        while len(got) < 3:
            line = lines.get(deadline)
            if line is None:
                break
            m = re.match(r"(.*) time (\d+)\.(\d{3})$", line)
            got.append(m.group(1) if m else line)
            times.append(int(m.group(2)) + int(m.group(3)) / 1000 if m else 0)
        if got != want or not all(t_sub - 1 <= t <= time.time() + 1 for t in times) or \
                times != sorted(times):
            fail("idle: monitor events %s at %s, want %s between %.3f and now" %
                 (got, times, want, t_sub))
        else:
            good("idle: the monitor got %s, each with its time" % " and ".join(got))
        r = ctl(ctlbin, sock, ("version",), timeout=10)
        if r is None or r.stdout != VERSION + "\nOK\n":
            fail("idle: another client is not served: %s" % show(r))
        else:
            good("idle: another client served at once")
        # SIGTERM with all of them still connected
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            fail("idle: the gateway did not exit within 20 s of SIGTERM")
            return
        took = time.monotonic() - t0
        left = [d for d in gwtest.eal_run_dirs(prefix) if os.path.exists(d)]
        if rc != 0 or os.path.exists(sock) or left:
            fail("idle: after SIGTERM: rc %d, control socket left %s, EAL folder left %s" %
                 (rc, os.path.exists(sock), left))
        else:
            good("idle: SIGTERM -> exit 0 in %.1f s, no control socket, no EAL folder left" %
                 took)
        rest = mon.communicate(timeout=10)[0]
        if mon.returncode != 0:
            fail("idle: monitor exited %d: %s" % (mon.returncode, rest))
    finally:
        for c in (idle, half, stalled):
            c.close()
        if mon.poll() is None:
            mon.kill()
            mon.wait()


def smaps_dontdump(pid):
    """(bytes in mappings marked do-not-dump, DPDK's no-huge memory mappings not marked)."""
    dd, missing, cur = 0, [], None
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and ":" in head[3]:
                lo, hi = (int(x, 16) for x in head[0].split("-"))
                cur = (hi - lo, line.strip())
            elif head[0] == "VmFlags:" and cur is not None:
                if "dd" in head[1:]:
                    dd += cur[0]
                elif "memfd:nohuge" in cur[1]:
                    missing.append(cur[1])
    return dd, missing


def check_dump(proc):
    """Keys out of core dumps: DPDK's memory (sessions, 512 MB with -m 512) is MADV_DONTDUMP."""
    dd, missing = smaps_dontdump(proc.pid)
    if dd < 512 << 20 or missing:
        fail("dump: %d MiB marked do-not-dump, DPDK memory not marked: %s" % (dd >> 20, missing))
    else:
        good("dump: %d MiB of the gateway's memory (DPDK's, key tables) left out of core "
             "dumps" % (dd >> 20))


def as_user(uid, gid, groups=None):
    pre = ["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid]
    pre += ["--groups=%s" % ",".join(map(str, groups))] if groups else ["--clear-groups"]
    return pre + ["--"]


def check_peer(gw, ctlbin, tmp):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        fail("peer: needs root and setpriv (util-linux) to run clients as uid %d" % NOBODY)
        return
    ctl2 = os.path.join(tmp, "vecsec-ctl")     # where uid 65534 may run it
    shutil.copy(ctlbin, ctl2)
    os.chmod(ctl2, 0o755)
    proc, sock, prefix = start_gw(gw, tmp, "peer", ["--ctrl-group", "nogroup"])
    if proc is None:
        return
    try:
        st = os.stat(sock)
        if st.st_mode & 0o777 != 0o660 or st.st_gid != NOGROUP:
            fail("peer: socket mode %o group %d, want 660 group %d" %
                 (st.st_mode & 0o777, st.st_gid, NOGROUP))
        else:
            good("peer: --ctrl-group nogroup: socket mode 660, group nogroup")
        for what, pre in (("primary group nogroup", as_user(NOBODY, NOGROUP)),
                          ("supplementary group nogroup", as_user(NOBODY, DAEMON, [NOGROUP]))):
            r = ctl(ctl2, sock, ("version",), pre=pre, timeout=10)
            if r is None or r.stdout != VERSION + "\nOK\n":
                fail("peer: uid %d, %s: not served: %s" % (NOBODY, what, show(r)))
            else:
                good("peer: uid %d, %s: served" % (NOBODY, what))
        # the mode is no fence any more: the credentials still are
        os.chmod(sock, 0o666)
        r = ctl(ctl2, sock, ("version",), pre=as_user(NOBODY, DAEMON), timeout=10)
        if r is None or r.returncode == 0 or "ERR permission denied" not in r.stdout:
            fail("peer: socket 0666, uid %d gid %d without the group: %s" %
                 (NOBODY, DAEMON, show(r)))
        else:
            good("peer: socket 0666, uid %d without the group: %s" % (NOBODY, r.stdout.strip()))
        r = ctl(ctlbin, sock, ("version",), timeout=10)
        if r is None or r.stdout != VERSION + "\nOK\n":
            fail("peer: root is not served: %s" % show(r))
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=20) != 0:
            fail("peer: gateway exited %d" % proc.returncode)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        gwtest.eal_cleanup(prefix)


class Planted:
    """A listener another user (uid) made at path: counts the bytes any client sends."""

    def __init__(self, path, uid):
        self.ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.ls.bind(path)
        os.chmod(path, 0o777)
        os.seteuid(uid)                        # SO_PEERCRED: who called listen()
        try:
            self.ls.listen(16)
        finally:
            os.seteuid(0)
        self.ls.setblocking(False)

    def bytes_sent(self):
        """What the clients that connected so far sent (they have exited: no waiting)."""
        n = 0
        while True:
            try:
                c, _ = self.ls.accept()
            except BlockingIOError:
                return n
            c.settimeout(5)
            while True:
                b = c.recv(65536)
                if not b:
                    break
                n += len(b)
            c.close()

    def close(self):
        self.ls.close()


def check_plant(ctlbin, tmp):
    """The default folder of a user without XDG_RUNTIME_DIR, planted by another user."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None or shutil.which("useradd") is None:
        fail("plant: needs root, setpriv and useradd")
        return
    name = "vsctl%d" % (os.getpid() % 100000000)
    r = subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", name], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if r.returncode != 0:
        fail("plant: useradd %s: %s" % (name, r.stdout.strip()))
        return
    lst = None
    folder = None
    try:
        uid = pwd.getpwnam(name).pw_uid
        ctl2 = os.path.join(tmp, "vecsec-ctl-plant")
        shutil.copy(ctlbin, ctl2)
        os.chmod(ctl2, 0o755)
        folder = "/tmp/vecsec-gw-%d" % uid      # ctrl_path.h: no XDG_RUNTIME_DIR, not root
        shutil.rmtree(folder, ignore_errors=True)
        os.mkdir(folder, 0o755)
        os.chown(folder, DAEMON, DAEMON)
        lst = Planted(os.path.join(folder, "ctrl.sock"), DAEMON)
        run = as_user(uid, NOGROUP) + ["env", "-u", "XDG_RUNTIME_DIR", "-u",
                                       "VECSEC_GW_SOCKET", ctl2, "version"]
        for what, mode, owner, want in (
                ("the folder is daemon's", 0o755, DAEMON, "belongs to uid %d" % DAEMON),
                ("the folder is the user's, the listener daemon's", 0o700, uid,
                 "runs as uid %d, not as root or uid %d" % (DAEMON, uid))):
            os.chown(folder, owner, owner)
            os.chmod(folder, mode)
            try:
                r = subprocess.run(run, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   universal_newlines=True, timeout=5)
            except subprocess.TimeoutExpired:
                r = None                       # it sent, and waits for an answer
            sent = lst.bytes_sent()
            if r is None or r.returncode != 2 or "refused, nothing sent" not in r.stderr or \
                    want not in r.stderr or sent != 0:
                fail("plant: %s: %s, %d bytes sent to the planted socket" % (what, show(r),
                                                                              sent))
            else:
                good("plant: %s: %s" % (what, r.stderr.strip()[:110]))
    finally:
        if lst is not None:
            lst.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["userdel", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def one(sock, line, timeout=10.0):
    """One request on a connection of its own (an idle one would be closed): its answer."""
    c = Conn(sock)
    try:
        c.send(line.encode() + b"\n")
        return c.answer(timeout)
    except OSError:                            # refused and closed before it was sent
        return None
    finally:
        c.close()


def until(fn, timeout=20.0):
    """fn() until it returns something true, or the deadline; its last value."""
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v or time.monotonic() > end:
            return v
        time.sleep(0.05)


def subscriber(sock):
    """A connection subscribed to the events, or None if refused."""
    c = Conn(sock)
    try:
        c.send(b"subscribe\n")
        if c.answer() == ["OK"]:
            return c
    except OSError:
        pass
    c.close()
    return None


def closed(c, timeout):
    """Did the gateway close c (EOF within timeout)?"""
    if not select.select([c.s], [], [], timeout)[0]:
        return False
    try:
        return c.s.recv(4096) == b""
    except OSError:
        return True


def check_reap(gw, tmp):
    proc, sock, prefix = start_gw(gw, tmp, "reap", ["--ctrl-idle", "1", "--spi-timeout", "3"])
    if proc is None:
        return
    conns = []
    try:
        # every slot: one subscriber, 15 clients that never send a byte
        sub = Conn(sock)
        conns.append(sub)
        sub.send(b"subscribe\n")
        if sub.answer() != ["OK"]:
            fail("reap: the first subscriber is refused")
            return
        conns += [Conn(sock) for _ in range(15)]
        a = until(lambda: (lambda x: x if x == [VERSION, "OK"] else None)(one(sock, "version")))
        if a != [VERSION, "OK"]:
            fail("reap: no slot comes free from 15 idle clients: %s" % a)
        elif not all(closed(c, 5) for c in conns[1:]):
            fail("reap: a client served, but not every idle one was closed")
        elif closed(sub, 0):
            fail("reap: the subscriber was closed with the idle clients")
        else:
            good("reap: 15 idle clients closed after --ctrl-idle 1, the next one served, "
                 "the subscriber kept")
        for c in conns:                        # (left open when they were not closed)
            c.close()
        # subscribers that hang up free their slots (freed as the gateway sees the
        # hangups: a refused one is asked again until then)
        refused = None
        for rnd in range(2):
            subs = []
            for _ in range(8):
                c = until(lambda: subscriber(sock)) if refused is None else None
                if c is None:
                    refused = refused or "round %d, subscriber %d" % (rnd, len(subs) + 1)
                    break
                subs.append(c)
            for c in subs:
                c.close()
        if refused:
            fail("reap: %s refused (slots of subscribers that hung up not freed?)" % refused)
        else:
            good("reap: 8 subscribers hung up, 8 more subscribed")
        # SPI reservations expire; one an SA took stays taken (by the SA)
        a1, a2 = one(sock, "spi alloc 100 100"), one(sock, "spi alloc 200 200")
        sa = one(sock, "sa in 200 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
                 "src 172.31.2.1 dst 172.31.1.1 inner ipv4 owner keep" % HEXKEY)
        a3 = one(sock, "spi alloc 100 100")
        if a1 != ["spi 100", "OK"] or a2 != ["spi 200", "OK"] or sa != ["OK"] or \
                a3 is None or not a3[-1].startswith("ERR no free SPI"):
            fail("reap: reservations: %s %s, sa %s, again %s" % (a1, a2, sa, a3))
        else:
            t0 = time.monotonic()
            a = until(lambda: (lambda x: x if x == ["spi 100", "OK"] else None)(
                one(sock, "spi alloc 100 100")))
            took = time.monotonic() - t0
            b = one(sock, "spi alloc 200 200")
            if a != ["spi 100", "OK"]:
                fail("reap: the reservation of SPI 100 never expires")
            elif b is None or not b[-1].startswith("ERR no free SPI"):
                fail("reap: SPI 200 of an SA given out again: %s" % b)
            else:
                good("reap: SPI 100's reservation forgotten after %.1f s more (--spi-timeout "
                     "3), SPI 200 kept by its SA" % took)
        # flush of names nothing carries registers none
        bad = [n for n in range(40) if one(sock, "flush owner gone%d" % n) !=
               ["flushed 0 SA, 0 SP, 0 SPI", "OK"]]
        a = one(sock, "spi alloc 300 300 owner fresh")
        f = one(sock, "flush owner fresh")
        if bad or a != ["spi 300", "OK"] or f != ["flushed 0 SA, 0 SP, 1 SPI", "OK"]:
            fail("reap: flush of unknown owners: %d not 'flushed 0', then owner fresh: %s, "
                 "flush: %s" % (len(bad), a, f))
        else:
            good("reap: 40 flushes of unknown owners registered none; owner 'fresh' fits")
        # owner names that only reservations carried come free once those expire (the
        # name SA 200 carries stays)
        names = 0
        while names < 40 and one(sock, "spi alloc %d %d owner o%d" % (
                1000 + names, 1000 + names, names)) == ["spi %d" % (1000 + names), "OK"]:
            names += 1
        full = one(sock, "spi alloc 600 600 owner late")
        a = until(lambda: (lambda x: x if x == ["spi 600", "OK"] else None)(
            one(sock, "spi alloc 600 600 owner late")))
        f = one(sock, "flush owner keep")
        if names == 40 or full is None or "too many owners" not in full[-1] or \
                a != ["spi 600", "OK"] or f != ["flushed 1 SA, 0 SP, 0 SPI", "OK"]:
            fail("reap: owner names: %d registered, then %s; after the reservations "
                 "expired: %s; flush owner keep: %s" % (names, full, a, f))
        else:
            good("reap: %d owner names on reservations filled the table; once those "
                 "expired a new name fits, SA 200's owner 'keep' stayed" % names)
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=20) != 0:
            fail("reap: gateway exited %d" % proc.returncode)
        text = open(os.path.join(tmp, "reap.log")).read()
        if "a client closed: idle for 1 s (--ctrl-idle)" not in text:
            fail("reap: the log does not say that idle clients were closed")
    finally:
        for c in conns:
            c.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        gwtest.eal_cleanup(prefix)


def main():
    gw, ctlbin, only = sys.argv[1], sys.argv[2], sys.argv[3:]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-ctrlhard-")
    os.chmod(tmp, 0o711)                       # uid 65534 reaches the socket and vecsec-ctl
    proc, prefix = None, None
    try:
        pkts = [IP(src="192.168.9.1", dst="10.5.0.7") / UDP(sport=1000, dport=53) /
                Raw(bytes(range(40)))]
        wrpcap(os.path.join(tmp, "clear_in.pcap"), [eth(p) for p in pkts])
        gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
        checks = [
            ("dump", lambda: check_dump(proc)),
            ("hangup", lambda: check_hangup(proc, sock)),
            ("framing", lambda: check_framing(sock)),
            ("keys", lambda: check_keys(sock)),
            ("ctl", lambda: check_ctl(ctlbin, sock, tmp)),
            ("hangup", lambda: check_hangup(proc, sock)),
            ("idle", lambda: check_idle_and_term(ctlbin, proc, sock, prefix)),
        ]
        proc, sock, prefix = start_gw(gw, tmp, "gw", [])
        for name, fn in checks:
            if proc is None or (only and name not in only):
                continue
            try:
                fn()
            except OSError as e:            # the gateway is gone
                fail("%s: %s (gateway rc %s)" % (name, e, proc.poll()))
        if not only or "peer" in only:
            check_peer(gw, ctlbin, tmp)
        if not only or "plant" in only:
            check_plant(ctlbin, tmp)
        if not only or "reap" in only:
            check_reap(gw, tmp)
        for name in ("gw", "peer", "reap"):
            log = os.path.join(tmp, name + ".log")
            if os.path.exists(log):
                text = open(log).read()
                print("--- %s output:\n%s" % (name, text[-1500:]))
                if leaks(text):
                    fail("%s: key bytes in the gateway's output" % name)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        gwtest.cleanup(tmp, *([prefix] if prefix else []))
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
