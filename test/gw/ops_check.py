#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw operations: what an operator sees and does while it runs.

telemetry: one gateway, SAs out 5 (marked `telemetry`), out 6 and in 5;
clear traffic in a loop into SA out 5 (net_pcap infinite_rx), 50 ESP
packets for SA in 5 (scapy). Through DPDK's telemetry socket (a small
client of its own protocol): /ipsec/sa/list answers [5] (only the marked
SA), /ipsec/sa/stats and /ipsec/sa/details have SA 5; /vecsec_gw/sa lists
the SAs by direction and SPI, and `,out,5` / `,in,5` / `,5` give endpoints,
algorithm, cryptodev, sequence number (out) or highest seen and window
(in: 50, 64), counters and drops by reason; rates are above 0 while
traffic flows and fall to 0 when it stops. A SIGHUP reload of the same
file keeps every SA's state (window, sequence numbers, counters).
`vecsec-ctl reset sa in 5` zeroes that SA's counters but not its window;
`reset` all of them. vecsec-ctl: -p finds the default socket of a file
prefix (/run/vecsec-gw/PREFIX.sock, folder 0700); -j gives JSON for
stats, list, show, version, reset and {"ok": false, "error"} for a
refused request (exit 1); -i/-c repeat stats with a growing uptime. Only
the cryptodevs the SAs need are made (one crypto_vecsec here, one
"Creating cryptodev" line); an SA added later with AES-CBC/HMAC gets
crypto_aesni_mb made for it then. The gateway's own messages obey
--log-level (vecsec.gw:warning: none of its INFO lines). SIGTERM: exit
0, socket and EAL runtime folder gone. crypto_vecsec loaded twice (two
-d copies; as a build tree's next to an installed one) is reported, the
first copy serving.

reload: clear traffic in a loop into SA out 5, its ESP output read
through a named pipe as it comes (rekey_check.py's way: lossless, nothing
stored). While it flows, SIGHUP reloads: (1) a file that adds SA out 6
and its SP, removes SA out 7 and keeps SA out 5; (2) a file with a syntax
error, (3) one that changes SA out 5's key under the same SPI, (4) one
that changes a route: each refused, with the reason in /vecsec_gw/reload,
in `vecsec-ctl reload`'s ERR, and nothing changed (`list` the same). The
ESP output: SPI 5 only, sequence numbers 1, 2, ... without a gap from
start to SIGTERM (SA 5 never rebuilt), esp_out == frames read == port
rx, no drop. sd_notify (Type=notify): READY=1 at start, RELOADING=1 then
READY=1 around each reload, STOPPING=1 at the end, on a datagram socket
the test passes in $NOTIFY_SOCKET.

events: a reload that adds 2100 SAs at once: a `subscribe all` subscriber
gets 2048 `add sa` events, then `lost 53` (the queue's size), the log a
WARNING; a plain subscriber nothing.

drain: SIGTERM while EAL starts (the runtime folder just appeared): the
gateway finishes starting, stops, exits 0 and leaves no runtime folder
(before, SIGTERM then killed it). SIGTERM under traffic through a
cryptodev queue: exit 0, every packet received is sent or counted as a
drop (nothing left in flight), the tx pcap holds exactly the packets the
counters say were sent, socket and runtime folder removed.

telemetry-proto: lookaside-protocol SAs out 7 (marked `telemetry`) and
out 8: /ipsec/sa/list answers [7] and /ipsec/sa/stats counts SA 7's 64
packets (a listed SA goes through rte_ipsec); SA 8's packets take the
worker's own path (it attaches the rte_security session and checks the
outcome, never reading rte_ipsec's SA); their packets alternate, so every
burst takes both paths. Each SA's ESP output decrypts (scapy) to the
clear packets sent, in order, sequence numbers 1..64.

usage: ops_check.py GATEWAY_BINARY CTL_BINARY telemetry|telemetry-proto|reload|drain|events
"""
import glob
import json
import os
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

from scapy.all import IP, UDP, Raw, wrpcap
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey, until, read_pcap  # noqa: E402

KEY5 = bytes(range(0x10, 0x10 + 36))
KEY5I = bytes(range(0x50, 0x50 + 36))
KEY6 = bytes(range(0x90, 0x90 + 36))
KEY7 = bytes(range(0xc0, 0xc0 + 36))
K16 = bytes(range(0x20, 0x30))
K20 = bytes(range(0x30, 0x44))
NPKT = 64
RT = "rt ipv4 dst 172.31.0.0/16 port 1\nrt ipv4 dst 10.50.0.0/16 port 0\n"
SOCK_DIR = "/run/vecsec-gw" if os.geteuid() == 0 else None


def sa_line(dirn, spi, key, extra="", dst="172.31.2.1"):
    src, dst = ("172.31.2.1", "172.31.1.1") if dirn == "in" else ("172.31.1.1", dst)
    return ("sa %s %d aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel src %s dst %s%s\n"
            % (dirn, spi, hexkey(key), src, dst, extra))


def clear_pkts(net):
    return [IP(src="192.168.9.%d" % (k + 1), dst="%s.%d" % (net, k + 1), id=k) /
            UDP(sport=1000 + k, dport=53) / Raw(bytes((k + i) & 0xff for i in range(40)))
            for k in range(NPKT)]


class Checks:
    def __init__(self):
        self.ok = True

    def fail(self, msg):
        print("FAIL:", msg)
        self.ok = False

    def check(self, cond, good, bad):
        if cond:
            print("ok   " + good)
        else:
            self.fail(bad)
        return cond


class Monitor:
    """
    `vecsec-ctl -j monitor` (subscribe all) and a plain `subscribe` connection, as
    kernel-vecsec has: their lines as they come, read by threads.
    """

    def __init__(self, c, prefix, sock):
        self.t0 = time.time()
        self.lines = []
        self.plain = b""
        self.proc = subprocess.Popen([c, "-p", prefix, "-j", "monitor"],
                                     stdout=subprocess.PIPE, universal_newlines=True)
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(sock)
        self.s.sendall(b"subscribe\n")
        for fn in (self._read, self._read_plain):
            threading.Thread(target=fn, daemon=True).start()
        until(lambda: self.lines and self.plain.startswith(b"OK\n"), timeout=10)

    def _read(self):
        for ln in self.proc.stdout:
            self.lines.append(ln.strip())

    def _read_plain(self):
        while True:
            try:
                b = self.s.recv(4096)
            except OSError:
                return
            if not b:
                return
            self.plain += b

    def events(self):
        out = []
        for ln in self.lines[1:]:
            try:
                out.append(json.loads(ln))
            except ValueError:
                out.append({"unparsed": ln})
        return out

    def check(self, ck, want):
        def seen():
            ev = [{k: v for k, v in e.items() if k != "time_ms"} for e in self.events()]
            return ev if all(w in ev for w in want) else None
        got = until(seen, timeout=20)
        ev = self.events()
        now = time.time()
        ck.check(got is not None and self.lines[0] == '{"ok": true}' and
                 all(self.t0 - 1 <= e.get("time_ms", 0) / 1000 <= now + 1 for e in ev),
                 "monitor -j: %d events with their times: %s" % (
                     len(ev), ", ".join(e.get("event", "?") for e in ev)),
                 "monitor -j: %s, want %s among them, times between %.3f and %.3f" %
                 (self.lines, want, self.t0, now))
        # a plain subscriber (kernel-vecsec) gets the expire events only: none here
        ck.check(self.plain == b"OK\n", "plain subscribe: no events but expire (none here)",
                 "plain subscribe got %r" % self.plain[:300])

    def close(self):
        self.s.close()
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait(timeout=10)


def json_types(v):
    """The shape of a JSON value: its keys and value types, recursively (lists by element)."""
    if isinstance(v, dict):
        return {k: json_types(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_types(v[0])] if v else []
    return type(v).__name__


def no_bools(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, dict):
        return all(no_bools(x) for x in v.values())
    if isinstance(v, list):
        return all(no_bools(x) for x in v)
    return True


def schema_checks(ck, c, prefix, o9):
    """The integrity algorithm in every view of a CBC+HMAC SA; -j and telemetry one schema."""
    rc, out, err = ctl(c, prefix, "show", "sa", "out", "9")
    ck.check(rc == 0 and "aes-128-cbc integ sha1-hmac" in out,
             "show sa out 9: %s" % out.split("\n")[0], "show sa out 9: %r" % out)
    rc, out, err = ctl(c, prefix, "list")
    ck.check(rc == 0 and re.search(r"^sa out 9 aes-128-cbc .* integ sha1-hmac\b", out, re.M)
             and re.search(r"^sa out 5 chacha20-poly1305 .* integ aead\b", out, re.M),
             "list: sa out 9 aes-128-cbc ... integ sha1-hmac", "list: %r" % out)
    rc, out, err = ctl(c, prefix, "list", json_out=True)
    lst = json.loads(out) if rc == 0 else {}
    s9 = [s for s in lst.get("sa", []) if s["spi"] == 9]
    ck.check(s9 and s9[0]["integ"] == "sha1-hmac" and s9[0]["origin"] == "control",
             "-j list: SA 9 integ sha1-hmac, origin control", "-j list: %r" % out)
    rc, out, err = ctl(c, prefix, "show", "sa", "out", "9", json_out=True)
    j9 = json.loads(out)[0] if rc == 0 else {}
    # a control-socket SA has no line in a file: no "line" (it was 2^30 + n)
    ck.check(j9.get("integ") == "sha1-hmac" and j9.get("algo") == "aes-128-cbc" and
             j9.get("origin") == "control" and "line" not in j9 and
             o9 is not None and o9.get("integ") == "sha1-hmac" and "line" not in o9,
             "-j show sa out 9 and telemetry: integ sha1-hmac, origin control, no line",
             "-j show sa out 9: %r, telemetry %s" % (out, o9))
    # one schema: the same keys and types in -j and telemetry, no booleans in either
    t5 = tel(prefix, "/vecsec_gw/sa,out,5")
    rc, out, err = ctl(c, prefix, "show", "sa", "out", "5", json_out=True)
    j5 = json.loads(out)[0] if rc == 0 else {}
    ts = tel(prefix, "/vecsec_gw/stats") or {}
    rc, out, err = ctl(c, prefix, "stats", json_out=True)
    js = json.loads(out) if rc == 0 else {}
    jsa = js.pop("sa", None)
    ck.check(json_types(t5) == json_types(j5) and isinstance(j5.get("line"), int) and
             j5["line"] == t5["line"] and j5["line"] < 100,
             "SA out 5: -j and telemetry have the same keys and types (%d keys)" % len(j5),
             "SA out 5 schemas differ:\n  -j  %s\n  tel %s" % (json_types(j5), json_types(t5)))
    ck.check(json_types(ts) == json_types(js) and jsa is not None,
             "stats: -j (less its \"sa\" list) and telemetry have the same keys and types",
             "stats schemas differ:\n  -j  %s\n  tel %s" % (json_types(js), json_types(ts)))
    ck.check(no_bools(js) and no_bools(jsa) and no_bools(j5) and no_bools(ts) and
             all(not k.endswith("_s") or k.endswith("_per_s") for k in list(js) + list(j5)),
             "no booleans and no _s keys (durations in _ms) in either view",
             "a boolean or an _s key: %s %s" % (js, j5))
    w = js.get("workers", {})
    ck.check(list(w) == ["0"] and w["0"]["rx"] > 0 and w["0"]["polls"] > 0,
             "stats: workers %s" % w, "stats: workers %s" % w)


def read_text(path):
    with open(path, errors="replace") as f:
        return f.read()


def tel(prefix, cmd):
    """One DPDK telemetry command's answer (the value under the command's name)."""
    r = gwtest.telemetry(prefix, [cmd])
    return None if r is None else r[0].get(cmd.split(",")[0])


def sock_path(prefix):
    return os.path.join(SOCK_DIR, prefix + ".sock")


def ctl(c, prefix, *words, stdin=None, json_out=False):
    args = [c, "-p", prefix] + (["-j"] if json_out else []) + list(words)
    r = subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def eal_base(prefix, lcores="0"):
    """EAL options without any --log-level: DPDK's own defaults (INFO)."""
    return ["-l", lcores, "--no-pci", "--no-huge", "-m", "512", "--file-prefix", prefix]


def reap(proc, prefix):
    """A gateway still running is killed; its EAL runtime folder is removed."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    gwtest.eal_cleanup(prefix)


def runtime_dirs_gone(prefix):
    return not any(os.path.exists(d) for d in gwtest.eal_run_dirs(prefix))


# ---- telemetry, rates, reset, vecsec-ctl, cryptodevs, log levels -----------------------

def telemetry_case(gw, c, tmp, ck):
    prefix = gwtest.file_prefix("opstel")
    pk = clear_pkts("10.5.0")
    wrpcap(os.path.join(tmp, "clear.pcap"), [eth(p) for p in pk])
    sa_in = SecurityAssociation(ESP, spi=5, crypt_algo="CHACHA20-POLY1305", crypt_key=KEY5I,
                                tunnel_header=IP(src="172.31.2.1", dst="172.31.1.1"))
    inner = [IP(src="192.168.7.1", dst="10.50.0.%d" % (k + 1)) / UDP(sport=9, dport=9) /
             Raw(b"i" * 30) for k in range(50)]
    wrpcap(os.path.join(tmp, "esp.pcap"), [eth(sa_in.encrypt(p, seq_num=k + 1))
                                           for k, p in enumerate(inner)])
    cfg = gwtest.write_config(os.path.join(tmp, "tel.cfg"), RT +
                              sa_line("out", 5, KEY5, " telemetry") +
                              sa_line("out", 6, KEY6, dst="172.31.2.2") +
                              sa_line("in", 5, KEY5I, " replay_win 64") +
                              "sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16\n"
                              "sp ipv4 out esp protect 6 pri 1 dst 10.6.0.0/16\n"
                              "sp ipv4 in esp protect 5 pri 1 dst 10.50.0.0/16\n")
    os.chmod(cfg, 0o600)
    ports = ["--vdev", "net_pcap0,rx_pcap=%s,infinite_rx=1,tx_pcap=/dev/null" %
             os.path.join(tmp, "clear.pcap"),
             "--vdev", "net_pcap1,rx_pcap=%s,tx_pcap=/dev/null" % os.path.join(tmp, "esp.pcap")]
    log = open(os.path.join(tmp, "tel.log"), "w+")
    proc = subprocess.Popen([gw] + eal_base(prefix) + ports +
                            ["--", "-f", cfg, "-u", "2", "--rate-interval", "0.2"] +
                            gwtest.seq_state_args([]),
                            stdout=log, stderr=subprocess.STDOUT)
    sock = sock_path(prefix)
    try:
        # the socket file exists a moment before it accepts: wait for the ready line
        ready = until(lambda: "vecsec-gw: ready\n" in read_text(log.name),
                      timeout=gwtest.READY_TIMEOUT)
        if not ck.check(ready and os.path.exists(sock), "ready, default control socket " + sock,
                        "ready %s, control socket %s: %s" % (bool(ready), sock,
                                                             read_text(log.name)[-2000:])):
            return
        dmode = stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode)
        smode = stat.S_IMODE(os.stat(sock).st_mode)
        ck.check(dmode == 0o700 and smode == 0o600, "socket folder 0700, socket 0600",
                 "socket folder mode %o, socket %o" % (dmode, smode))
        mon = Monitor(c, prefix, sock)
        # 50 ESP packets in, then nothing more inbound
        one_in = until(lambda: (lambda d: d if d and d.get("pkts") == 50 else None)(
            tel(prefix, "/vecsec_gw/sa,in,5")))
        if not ck.check(one_in is not None, "SA in 5 took its 50 packets",
                        "SA in 5: %s" % tel(prefix, "/vecsec_gw/sa,in,5")):
            return
        # DPDK's own rte_ipsec telemetry: the SA marked `telemetry` only
        lst = tel(prefix, "/ipsec/sa/list")
        ck.check(lst == [5], "/ipsec/sa/list: %s (SA out 5, marked telemetry)" % lst,
                 "/ipsec/sa/list answers %s, want [5]" % lst)
        st = tel(prefix, "/ipsec/sa/stats,5")
        ck.check(st is not None and st.get("SA_SPI_5", {}).get("count", 0) > 0,
                 "/ipsec/sa/stats,5: %s" % st, "/ipsec/sa/stats,5: %s" % st)
        det = tel(prefix, "/ipsec/sa/details,5")
        ck.check(det is not None and det.get("Direction") == "Outbound" and
                 det.get("Mode") == "Tunnel", "/ipsec/sa/details,5: Outbound Tunnel, seq %s" %
                 (det or {}).get("sequence-number"), "/ipsec/sa/details,5: %s" % det)
        # ours, by direction and SPI
        lst = tel(prefix, "/vecsec_gw/sa")
        ck.check(lst is not None and lst.get("out") == [5, 6] and lst.get("in") == [5] and
                 lst.get("count_out") == 2 and lst.get("count_in") == 1,
                 "/vecsec_gw/sa: %s" % lst, "/vecsec_gw/sa: %s" % lst)
        o5 = tel(prefix, "/vecsec_gw/sa,out,5")
        want = {"spi": 5, "dir": "out", "mode": "ipv4-tunnel", "src": "172.31.1.1",
                "dst": "172.31.2.1", "algo": "chacha20-poly1305", "integ": "aead",
                "driver": "crypto_vecsec", "ipsec_telemetry": "on", "encap": "none",
                "seq_bits": 32, "expired": "none", "origin": "file"}
        bad = {k: (o5 or {}).get(k) for k in want if (o5 or {}).get(k) != want[k]}
        ck.check(o5 is not None and not bad and o5["seq"] >= o5["pkts"] > 0 and
                 o5["cryptodev"].startswith("crypto_vecsec") and
                 set(o5["drops"]) >= {"auth_failed", "replay", "policy", "no_route"} and
                 not any(o5["drops"].values()),
                 "/vecsec_gw/sa,out,5: %s %s->%s on %s, seq %d, pkts %d, drops by reason all 0"
                 % (o5["algo"], o5["src"], o5["dst"], o5["cryptodev"], o5["seq"], o5["pkts"])
                 if o5 else "", "/vecsec_gw/sa,out,5: %s (differs: %s)" % (o5, bad))
        i5 = tel(prefix, "/vecsec_gw/sa,in,5")
        ck.check(i5.get("seq_highest") == 50 and i5.get("window") == 64 and
                 i5.get("src") == "172.31.2.1" and "seq" not in i5,
                 "/vecsec_gw/sa,in,5: highest seen 50, window 64",
                 "/vecsec_gw/sa,in,5: %s" % i5)
        both = tel(prefix, "/vecsec_gw/sa,5")
        ck.check(both is not None and set(both) == {"in", "out"} and
                 both["out"]["dir"] == "out" and both["in"]["dir"] == "in",
                 "/vecsec_gw/sa,5: both directions", "/vecsec_gw/sa,5: %s" % both)
        ck.check(tel(prefix, "/vecsec_gw/sa,out,99") is None and
                 tel(prefix, "/vecsec_gw/sa,sideways,5") is None,
                 "/vecsec_gw/sa,out,99 and ,sideways,5: null", "unknown SA answered")
        # rates over the last interval: above 0 while traffic flows, 0 once it stops
        r_out = until(lambda: (tel(prefix, "/vecsec_gw/sa,out,5") or {}).get("pkts_per_s"))
        r_in = until(lambda: (lambda d: d is not None and d.get("pkts_per_s") == 0)(
            tel(prefix, "/vecsec_gw/sa,in,5")))
        ck.check(r_out and r_in, "rates: SA out 5 %s pkt/s, SA in 5 0 pkt/s after its "
                 "traffic" % r_out, "rates: out 5 %s, in 5 at 0: %s" % (r_out, r_in))
        # the gateway-wide rates have their own interval: wait for one that saw traffic
        def p0rate(d):
            return d["ports"]["0"]["rx_per_s"] if d and d.get("ports") else 0
        gs = until(lambda: (lambda d: d if p0rate(d) > 0 and
                            d.get("esp_out_per_s", 0) > 0 else None)(
            tel(prefix, "/vecsec_gw/stats"))) or tel(prefix, "/vecsec_gw/stats") or {}
        ck.check(p0rate(gs) > 0 and gs.get("esp_out_per_s", 0) > 0,
                 "/vecsec_gw/stats rates: port0 rx %d/s, esp_out %d/s" %
                 (p0rate(gs), gs.get("esp_out_per_s", 0)),
                 "/vecsec_gw/stats: %s" % gs)
        # a reload of the same file keeps every SA's state
        o5a = tel(prefix, "/vecsec_gw/sa,out,5")
        proc.send_signal(signal.SIGHUP)
        rl = until(lambda: (lambda d: d if d and d.get("reloads") == 1 else None)(
            tel(prefix, "/vecsec_gw/reload")))
        i5 = tel(prefix, "/vecsec_gw/sa,in,5")
        # the looping traffic goes on after the reload (on a loaded machine the
        # worker may not have run yet: wait for its next packets, not a time)
        o5b = until(lambda: (lambda d: d if d and d["seq"] > o5a["seq"] else None)(
            tel(prefix, "/vecsec_gw/sa,out,5"))) or tel(prefix, "/vecsec_gw/sa,out,5")
        ck.check(rl is not None and rl["last"] == "ok" and i5["seq_highest"] == 50 and
                 i5["pkts"] == 50 and o5b["seq"] > o5a["seq"] and o5b["pkts"] > o5a["pkts"],
                 "SIGHUP reload (%s): SA in 5 still at 50 (window, counters), SA out 5 "
                 "went on from seq %d to %d" % (rl and rl["message"], o5a["seq"], o5b["seq"]),
                 "after the reload: %s, in 5 %s, out 5 %s -> %s" % (rl, i5, o5a, o5b))
        # reset: one SA's counters, not its window; then all
        rc, out, err = ctl(c, prefix, "reset", "sa", "in", "5")
        i5 = tel(prefix, "/vecsec_gw/sa,in,5")
        o5 = tel(prefix, "/vecsec_gw/sa,out,5")
        ck.check(rc == 0 and i5["pkts"] == 0 and i5["bytes"] == 0 and
                 i5["seq_highest"] == 50 and o5["pkts"] > 0,
                 "reset sa in 5: its counters 0, highest seen still 50, SA out 5 untouched",
                 "reset sa in 5: rc %d %s%s, in 5 %s" % (rc, out, err, i5))
        rc, out, err = ctl(c, prefix, "reset", json_out=True)
        gs = tel(prefix, "/vecsec_gw/stats")
        ck.check(rc == 0 and json.loads(out).get("reset") == 3 and gs["esp_in"] == 0 and
                 gs["since_reset_ms"] < gs["uptime_ms"],
                 "reset (all, -j): %s; esp_in 0, since_reset %d ms of %d" %
                 (out.strip(), gs["since_reset_ms"], gs["uptime_ms"]),
                 "reset all: rc %d %s%s %s" % (rc, out, err, gs))
        rc, out, err = ctl(c, prefix, "reset", "77")
        ck.check(rc == 1 and "ERR no SA with SPI 77" in out, "reset 77: %s" % out.strip(),
                 "reset 77: rc %d %s" % (rc, out))
        # vecsec-ctl: JSON, and a real interval
        # the counters were just reset: wait (polling) until the looping traffic counts again
        def stats_js():
            r = ctl(c, prefix, "stats", json_out=True)
            j = json.loads(r[1]) if r[0] == 0 else {}
            return (r, j) if j.get("ports") and j["ports"]["0"]["rx"] > 0 else None
        (rc, out, err), js = until(stats_js) or (ctl(c, prefix, "stats", json_out=True), {})
        js = js or (json.loads(out) if rc == 0 else {})
        ck.check(rc == 0 and [s["spi"] for s in js.get("sa", [])] == [5, 6, 5] and
                 js["uptime_ms"] > 0 and js["ports"]["0"]["rx"] > 0,
                 "vecsec-ctl -j stats: JSON, 3 SAs, uptime %d ms" % js.get("uptime_ms", 0),
                 "vecsec-ctl -j stats: rc %d %r %s" % (rc, out[:300], err))
        rc, out, err = ctl(c, prefix, "list", json_out=True)
        js = json.loads(out) if rc == 0 else {}
        ck.check(rc == 0 and len(js.get("sa", [])) == 3 and len(js.get("sp", [])) == 3 and
                 js["sa"][0]["origin"] == "file",
                 "vecsec-ctl -j list: 3 SAs, 3 SP rules", "vecsec-ctl -j list: %r" % out[:300])
        rc, out, err = ctl(c, prefix, "show", "sa", "out", "5", json_out=True)
        js = json.loads(out) if rc == 0 else []
        ck.check(rc == 0 and len(js) == 1 and js[0]["spi"] == 5 and js[0]["seq"] > 0,
                 "vecsec-ctl -j show sa out 5", "vecsec-ctl -j show sa out 5: %r" % out[:300])
        rc, out, err = ctl(c, prefix, "show", "sa", "in", "5")
        ck.check(rc == 0 and "seq 50 (highest authenticated), window 64" in out and
                 "tunnel 172.31.2.1 -> 172.31.1.1" in out,
                 "vecsec-ctl show sa in 5: %s" % out.split("\n")[0],
                 "vecsec-ctl show sa in 5: %r" % out)
        rc, out, err = ctl(c, prefix, "version", json_out=True)
        ck.check(rc == 0 and json.loads(out) == {"version": "1.8"}, "vecsec-ctl -j version",
                 "vecsec-ctl -j version: %r" % out)
        rc, out, err = ctl(c, prefix, "del", "sa", "out", "99", json_out=True)
        ck.check(rc == 1 and json.loads(out) == {"ok": False, "error": "no SA out 99"},
                 "vecsec-ctl -j del sa out 99: %s" % out.strip(),
                 "vecsec-ctl -j del sa out 99: rc %d %r" % (rc, out))
        rc, out, err = ctl(c, prefix, "-i", "0.3", "-c", "3", "stats", json_out=True)
        ups = []
        try:
            dec = json.JSONDecoder()
            pos = 0
            while pos < len(out.strip()):
                obj, pos = dec.raw_decode(out, pos)
                ups.append(obj["uptime_ms"])
                while pos < len(out) and out[pos].isspace():
                    pos += 1
        except ValueError:
            pass
        ck.check(rc == 0 and len(ups) == 3 and ups[0] < ups[1] < ups[2],
                 "vecsec-ctl -i 0.3 -c 3 stats: uptime %s" % ups,
                 "vecsec-ctl -i -c stats: rc %d %r" % (rc, out[:200]))
        rc, out, err = ctl(c, prefix, "stats")
        ck.check(rc == 0 and "stats after 0.000 s" not in out and "stats after" in out,
                 "vecsec-ctl stats: %s" % out.split("\n")[0], "stats: %r" % out[:200])
        # an SA that crypto_vecsec cannot run: crypto_aesni_mb made for it, then
        rc, out, err = ctl(c, prefix, stdin="sa out 9 cipher_algo aes-128-cbc cipher_key %s "
                           "auth_algo sha1-hmac auth_key %s mode ipv4-tunnel src 172.31.1.1 "
                           "dst 172.31.2.9\n" % (hexkey(K16), hexkey(K20)), json_out=True)
        ck.check(rc == 0 and json.loads(out) == {"ok": True}, "vecsec-ctl -j (stdin) sa out 9: "
                 "%s" % out.strip(), "adding SA out 9: rc %d %r %s" % (rc, out, err))
        o9 = tel(prefix, "/vecsec_gw/sa,out,9")
        ck.check(o9 is not None and o9["driver"] == "crypto_aesni_mb",
                 "SA out 9 (AES-CBC) on %s, made when it came" % (o9 or {}).get("cryptodev"),
                 "SA out 9: %s" % o9)
        schema_checks(ck, c, prefix, o9)
        rc, out, err = ctl(c, prefix, "del", "sa", "out", "9")
        mon.check(ck, [{"event": "reload", "result": "ok", "added": 0, "removed": 0, "kept": 3},
                       {"event": "reset", "what": "sa", "dir": "in", "spi": 5},
                       {"event": "reset", "what": "all"},
                       {"event": "add", "dir": "out", "spi": 9, "by": "control"},
                       {"event": "del", "dir": "out", "spi": 9, "by": "control"}])
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
        log.seek(0)
        out = log.read()
        made = [ln for ln in out.splitlines() if "Creating cryptodev" in ln]
        ck.check(rc == 0 and len(made) == 2 and "crypto_vecsec" in made[0] and
                 "crypto_aesni_mb" in made[1],
                 "cryptodevs made: %s (one at start, one for SA out 9)" %
                 [m.split()[-1] for m in made], "exit %d, cryptodevs made: %s" % (rc, made))
        ck.check("vecsec-gw: control socket %s" % sock in out and
                 "vecsec-gw: cryptodev 0: crypto_vecsec" in out,
                 "INFO lines at the default log level", "no start-up lines:\n" + out)
        ck.check(not os.path.exists(sock) and runtime_dirs_gone(prefix),
                 "SIGTERM: exit 0, socket and EAL runtime folder removed",
                 "left behind: socket %s, runtime folder %s" % (
                     os.path.exists(sock), not runtime_dirs_gone(prefix)))
    finally:
        if "mon" in locals():
            mon.close()
        reap(proc, prefix)
        log.close()
    # the same start, its messages at warning and above only
    prefix = gwtest.file_prefix("opsquiet")
    r = subprocess.run([gw] + eal_base(prefix) + ["--log-level", "vecsec.gw:warning",
                       "--vdev", "net_null0", "--vdev", "net_null1", "--",
                       "-f", cfg, "-u", "2", "--duration", "0.3"] + gwtest.seq_state_args([]),
                       stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    gwtest.eal_cleanup(prefix)
    # the ready line is not a log message: printed whatever the level, for scripts
    ours = [ln for ln in r.stdout.splitlines() if ln.startswith("vecsec-gw:") and
            ln != "vecsec-gw: ready"]
    ck.check(r.returncode == 0 and not ours and "EAL:" in r.stdout and
             "vecsec-gw: ready" in r.stdout.splitlines(),
             "--log-level vecsec.gw:warning: no gateway line but the ready line (EAL's stay)",
             "--log-level vecsec.gw:warning: exit %d, %s" % (r.returncode, ours))
    # two copies of the PMD (EAL loads -d plugins only from folders others cannot write)
    pmd, copies = os.environ.get("VECSEC_GW_PMD"), os.environ.get("VECSEC_GW_PMD_COPIES")
    if not pmd or not copies:
        ck.fail("VECSEC_GW_PMD / VECSEC_GW_PMD_COPIES not set (meson sets them)")
        return
    os.makedirs(copies, mode=0o755, exist_ok=True)
    two = [os.path.join(copies, "librte_crypto_vecsec.so.%d" % k) for k in (1, 2)]
    for t in two:
        shutil.copy(pmd, t)
    prefix = gwtest.file_prefix("opsdup")
    r = subprocess.run([gw] + eal_base(prefix) + ["--log-level", "*:warning", "-d", two[0],
                       "-d", two[1], "--vdev", "net_null0,no-rx=1", "--vdev",
                       "net_null1,no-rx=1", "--", "-f", cfg, "-u", "2", "--duration", "0.3",
                       "--ctrl", "none"] + gwtest.seq_state_args([]), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    gwtest.eal_cleanup(prefix)
    shutil.rmtree(copies, ignore_errors=True)
    want = "crypto_vecsec is loaded 2 times: %s serves its devices, %s is registered in vain" \
        % (two[0], two[1])
    ck.check(r.returncode == 0 and want in r.stdout, "two -d copies of the PMD: reported",
             "two copies: exit %d, want '%s':\n%s" % (r.returncode, want, r.stdout))
    pmd_missing_check(ck, gw, copies, cfg)


def pmd_missing_check(ck, gw, copies, cfg):
    """
    A copy of the gateway outside the build tree behaves as installed: no -d of the
    build's PMD. Where DPDK's plugin folder has no crypto_vecsec (nothing installed on
    this machine), it says so at start and the SAs go to another cryptodev; where one is
    installed, it loads that one and says nothing.
    """
    eal_dir = os.environ.get("VECSEC_EAL_PMD_PATH", "")
    installed = bool(eal_dir and glob.glob(os.path.join(eal_dir, "librte_crypto_vecsec.so*")))
    os.makedirs(copies, mode=0o755, exist_ok=True)
    inst = os.path.join(copies, "vecsec-gw")
    shutil.copy(gw, inst)
    prefix = gwtest.file_prefix("opsnopmd")
    r = subprocess.run([inst] + eal_base(prefix) + ["--vdev", "net_null0,no-rx=1", "--vdev",
                       "net_null1,no-rx=1", "--", "-f", cfg, "-u", "2", "--duration", "0.3",
                       "--ctrl", "none"] + gwtest.seq_state_args([]), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    gwtest.eal_cleanup(prefix)
    shutil.rmtree(copies, ignore_errors=True)
    said = "vecsec-gw: crypto_vecsec is not loaded, though this vecsec-gw was built with it"
    if installed:
        ck.check(said not in r.stdout, "installed gateway, PMD in %s: loaded, no warning"
                 % eal_dir, "PMD installed, yet:\n%s" % r.stdout)
    else:
        ck.check(said in r.stdout and "no librte_crypto_vecsec.so* is there" in r.stdout,
                 "installed gateway without its PMD: says so at start",
                 "no PMD in %s: exit %d, want '%s':\n%s" % (eal_dir, r.returncode, said,
                                                             r.stdout))


# ---- reload under traffic ---------------------------------------------------------------

class EspSeq:
    """The ESP output pipe, read as it comes: every frame SPI 5, seq 1, 2, ..."""

    def __init__(self, path):
        self.path = path
        self.n = 0
        self.errors = []
        self.done = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            for fr in read_pcap(self.path):
                spi, seq = struct.unpack("!II", fr[14 + 20:14 + 28])
                if self.errors:
                    continue
                self.n += 1
                if spi != 5 or seq != self.n:
                    self.errors.append("ESP frame %d: SPI %d seq %d" % (self.n, spi, seq))
        finally:
            self.done = True


class Notify:
    """A datagram socket in $NOTIFY_SOCKET's place: the sd_notify states, in order."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.s.bind(path)
        self.s.settimeout(20)
        self.states = []

    def wait_for(self, state):
        while state not in self.states:
            try:
                self.states.append(self.s.recv(4096).decode())
            except socket.timeout:
                return False
        return True


def telemetry_proto_case(gw, c, tmp, ck):
    """
    Lookaside-protocol SAs (crypto_vecsec's rte_security ESP sessions): out 7
    marked `telemetry` goes through rte_ipsec, whose SA counts it for DPDK's
    /ipsec/sa/stats; out 8 is not listed, so the worker attaches its session
    and checks the outcome itself (rte_ipsec's SA is not read). Their
    packets alternate, so every burst takes both paths. Both carry their 64
    packets: each SA's ESP output decrypts to what went in, in order, with
    sequence numbers 1..64.
    """
    prefix = gwtest.file_prefix("opsproto")
    pk7, pk8 = clear_pkts("10.7.0"), clear_pkts("10.8.0")
    # interleaved: every burst holds packets of both paths
    wrpcap(os.path.join(tmp, "clear.pcap"), [eth(p) for pair in zip(pk7, pk8) for p in pair])
    proto = " type lookaside-protocol-offload"
    cfg = gwtest.write_config(os.path.join(tmp, "proto.cfg"), RT +
                              sa_line("out", 7, KEY7, proto + " telemetry") +
                              sa_line("out", 8, KEY6, proto, dst="172.31.2.2") +
                              "sp ipv4 out esp protect 7 pri 1 dst 10.7.0.0/16\n"
                              "sp ipv4 out esp protect 8 pri 1 dst 10.8.0.0/16\n")
    os.chmod(cfg, 0o600)
    esp_out = os.path.join(tmp, "esp.pcap")
    ports = ["--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" % os.path.join(tmp, "clear.pcap"),
             "--vdev", "net_pcap1,tx_pcap=%s" % esp_out]
    log = open(os.path.join(tmp, "proto.log"), "w+")
    proc = subprocess.Popen([gw] + eal_base(prefix) + ports +
                            ["--", "-f", cfg, "-u", "2", "--prefer", "crypto_vecsec"] +
                            gwtest.seq_state_args([]),
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        ready = until(lambda: "vecsec-gw: ready\n" in read_text(log.name),
                      timeout=gwtest.READY_TIMEOUT)
        if not ck.check(ready, "ready", "not ready: %s" % read_text(log.name)[-2000:]):
            return
        done = until(lambda: all((tel(prefix, "/vecsec_gw/sa,out,%d" % spi) or {}).get("pkts")
                                 == NPKT for spi in (7, 8)))
        o7, o8 = tel(prefix, "/vecsec_gw/sa,out,7"), tel(prefix, "/vecsec_gw/sa,out,8")
        ck.check(done, "SA out 7 and out 8 (lookaside-protocol) each took its %d packets" % NPKT,
                 "SA out 7: %s, out 8: %s" % (o7, o8))
        lst = tel(prefix, "/ipsec/sa/list")
        st = tel(prefix, "/ipsec/sa/stats,7")
        cnt = (st or {}).get("SA_SPI_7", {}).get("count")
        ck.check(lst == [7] and cnt == NPKT,
                 "/ipsec/sa/list %s; /ipsec/sa/stats,7 count %s: the listed SA went through "
                 "rte_ipsec" % (lst, cnt), "/ipsec/sa/list %s, /ipsec/sa/stats,7 %s" % (lst, st))
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
        ck.check(rc == 0, "SIGTERM: exit 0", "exit %d" % rc)
        frames = read_pcap(esp_out)
        got = {7: [], 8: []}
        bad = []
        sas = {spi: SecurityAssociation(ESP, spi=spi, crypt_algo="CHACHA20-POLY1305",
                                        crypt_key=key,
                                        tunnel_header=IP(src="172.31.1.1", dst=dst))
               for spi, key, dst in ((7, KEY7, "172.31.2.1"), (8, KEY6, "172.31.2.2"))}
        for fr in frames:
            ip = IP(fr[14:])
            spi = ip[ESP].spi if ESP in ip else None
            if spi not in sas:
                bad.append("not ESP of SA 7 or 8: %r" % ip.summary())
                continue
            seq = ip[ESP].seq
            try:
                inner = sas[spi].decrypt(ip)
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                bad.append("SA %d seq %d: %s" % (spi, seq, e))
                continue
            got[spi].append((seq, bytes(inner)))
        want = {7: [bytes(p) for p in pk7], 8: [bytes(p) for p in pk8]}
        for spi in (7, 8):
            seqs = [q for q, _ in got[spi]]
            ck.check(seqs == list(range(1, NPKT + 1)) and
                     [b for _, b in got[spi]] == want[spi],
                     "SA %d: %d ESP packets, sequence numbers 1..%d, each decrypts to its "
                     "clear packet" % (spi, len(seqs), NPKT),
                     "SA %d: sequence numbers %s, %d of %d inner packets as sent" % (
                         spi, seqs[:10], sum(1 for (_, b), w in zip(got[spi], want[spi])
                                             if b == w), NPKT))
        ck.check(not bad, "no other frames", "; ".join(bad[:5]))
    finally:
        reap(proc, prefix)
        log.close()


def reload_case(gw, c, tmp, ck):
    prefix = gwtest.file_prefix("opsreload")
    pk = clear_pkts("10.5.0")
    wrpcap(os.path.join(tmp, "clear.pcap"), [eth(p) for p in pk])
    gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
    base = sa_line("out", 5, KEY5) + "sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16\n"
    cfg_a = RT + base + sa_line("out", 7, KEY7, dst="172.31.2.7") + \
        "sp ipv4 out esp protect 7 pri 1 dst 10.7.0.0/16\n"
    cfg_b = RT + base + sa_line("out", 6, KEY6, dst="172.31.2.6") + \
        "sp ipv4 out esp protect 6 pri 2 dst 10.6.0.0/16\n"
    cfg = gwtest.write_config(os.path.join(tmp, "reload.cfg"), cfg_a)
    os.chmod(cfg, 0o600)
    fifo = os.path.join(tmp, "esp_out.pcap")
    os.mkfifo(fifo, 0o600)
    watch = EspSeq(fifo)
    ntf = Notify(os.path.join(tmp, "notify.sock"))
    stats = os.path.join(tmp, "reload-stats.json")
    ports = gwtest.pcap_ports(tmp, ("clear.pcap,infinite_rx=1", "/dev/null"), ("empty.pcap", fifo))
    env = dict(os.environ, NOTIFY_SOCKET=os.path.join(tmp, "notify.sock"))
    proc = subprocess.Popen(gwtest.gw_cmd(gw, prefix, ports, app=[
        "-f", cfg, "-u", "2", "--stats-file", stats, "--rate-interval", "0.2"]),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
    reloads = 0

    def reload_to(text, good):
        nonlocal reloads
        with open(cfg, "w") as f:
            f.write(text)
        before = tel(prefix, "/vecsec_gw/reload")
        ntf.states.clear()
        proc.send_signal(signal.SIGHUP)
        key = "reloads" if good else "failed"
        d = until(lambda: (lambda r: r if r and r[key] == before[key] + 1 else None)(
            tel(prefix, "/vecsec_gw/reload")))
        reloads += 1
        notified = ntf.wait_for("READY=1") and ntf.states[0] == "RELOADING=1"
        return d, notified

    try:
        if not ck.check(ntf.wait_for("READY=1"), "sd_notify READY=1 once forwarding",
                        "no READY=1: %s" % ntf.states):
            return
        until(lambda: (tel(prefix, "/vecsec_gw/sa,out,5") or {}).get("pkts", 0) > 1000)
        rc, list_a, _ = ctl(c, prefix, "list")
        d, n = reload_to(cfg_b, True)
        rc, list_b, _ = ctl(c, prefix, "list")
        ck.check(d is not None and d["last"] == "ok" and n and "sa out 6 " in list_b and
                 "sa out 7 " not in list_b and "protect 6" in list_b and "sa out 5 " in list_b,
                 "SIGHUP: %s; RELOADING=1 then READY=1" % (d or {}).get("message"),
                 "reload to B: %s, notify %s, list %s" % (d, ntf.states, list_b))
        refusals = [
            (cfg_b + "sa out 8 frobnicate\n", "reload.cfg:7: token 'frobnicate'"),
            # read while its writer was not done: the cut rule alone is a catch-all bypass
            (cfg_b + "sp ipv4 out esp bypass pri 100",
             "reload.cfg:7: the last line does not end with a newline"),
            (cfg_b.replace(hexkey(KEY5), hexkey(KEY6)), "SA out 5 (line 3): its keys changed"),
            # routes change by reload now; one to a port that does not exist does not
            (cfg_b.replace("port 0", "port 9"), "port 9 does not exist"),
        ]
        for text, why in refusals:
            d, n = reload_to(text, False)
            rc, lst, _ = ctl(c, prefix, "list")
            ck.check(d is not None and d["last"] == "failed" and why in d["message"] and n and
                     lst == list_b, "refused, nothing changed: %s" % (d or {}).get("message"),
                     "refused reload: %s (want '%s'), notify %s, list %s" %
                     (d, why, ntf.states, lst))
        rc, out, err = ctl(c, prefix, "reload")
        ck.check(rc == 1 and "ERR reload refused, nothing changed: route at line 2: port 9 does "
                 "not exist" in out, "vecsec-ctl reload: %s" % out.strip(), "vecsec-ctl reload: %r" % out)
        with open(cfg, "w") as f:
            f.write(cfg_b)
        rc, out, err = ctl(c, prefix, "reload")
        ck.check(rc == 0 and "reload: 0 SAs added, 0 removed, 2 unchanged" in out,
                 "vecsec-ctl reload: %s" % out.split("\n")[0], "vecsec-ctl reload: %r" % out)
        o5 = tel(prefix, "/vecsec_gw/sa,out,5")
        before = o5["pkts"]
        until(lambda: (tel(prefix, "/vecsec_gw/sa,out,5") or {}).get("pkts", 0) > before + 1000)
        ntf.states.clear()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        ck.check(proc.returncode == 0 and ntf.wait_for("STOPPING=1"), "SIGTERM: STOPPING=1, "
                 "exit 0", "exit %d, notify %s:\n%s" % (proc.returncode, ntf.states, out))
    finally:
        reap(proc, prefix)
    watch.thread.join(timeout=60)
    for e in watch.errors:
        ck.fail(e)
    st = gwtest.load_stats(stats)
    drops = {k: v for k, v in st["drops"].items() if v}
    # after the reset-free run the counters are since start: every packet in went out as ESP
    ck.check(watch.done and not watch.errors and not drops and
             st["esp_out"] == watch.n == st["ports"]["0"]["rx"],
             "%d reloads under traffic: %d ESP packets, SPI 5, seq 1..%d unbroken, port rx "
             "%d == esp_out, no drops" % (reloads, watch.n, watch.n, st["ports"]["0"]["rx"]),
             "ESP out: %d frames, esp_out %d, rx %d, drops %s, errors %s" %
             (watch.n, st["esp_out"], st["ports"]["0"]["rx"], drops, watch.errors[:3]))


# ---- drain --------------------------------------------------------------------------------

def drain_case(gw, c, tmp, ck):
    pk = clear_pkts("10.5.0")
    wrpcap(os.path.join(tmp, "clear.pcap"), [eth(p) for p in pk])
    gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
    cfg = gwtest.write_config(os.path.join(tmp, "drain.cfg"), RT + sa_line("out", 5, KEY5) +
                              "sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16\n")
    os.chmod(cfg, 0o600)
    # SIGTERM while EAL starts: the runtime folder is there, the gateway not up yet
    prefix = gwtest.file_prefix("opsdrain0")
    proc = subprocess.Popen(gwtest.gw_cmd(gw, prefix, gwtest.pcap_ports(
        tmp, ("clear.pcap", "/dev/null"), ("empty.pcap", "/dev/null")),
        app=["-f", cfg, "-u", "2"]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True)
    try:
        seen = until(lambda: any(os.path.exists(os.path.join(d, "config"))
                                 for d in gwtest.eal_run_dirs(prefix)), step=0.002)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
        ck.check(seen and proc.returncode == 0 and runtime_dirs_gone(prefix) and
                 not os.path.exists(sock_path(prefix)),
                 "SIGTERM during EAL start: exit 0, nothing left behind",
                 "SIGTERM during start: seen %s, exit %d, runtime folder left %s:\n%s" %
                 (seen, proc.returncode, not runtime_dirs_gone(prefix), out))
    finally:
        reap(proc, prefix)
    # SIGTERM under traffic: nothing left in the cryptodev, every packet accounted for
    prefix = gwtest.file_prefix("opsdrain")
    stats = os.path.join(tmp, "drain-stats.json")
    esp_out = os.path.join(tmp, "drain-esp.pcap")
    proc = subprocess.Popen(gwtest.gw_cmd(gw, prefix, gwtest.pcap_ports(
        tmp, ("clear.pcap,infinite_rx=1", "/dev/null"), ("empty.pcap", esp_out)),
        app=["-f", cfg, "-u", "2", "--stats-file", stats]),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    try:
        until(lambda: (tel(prefix, "/vecsec_gw/sa,out,5") or {}).get("pkts", 0) > 20000)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        left = not runtime_dirs_gone(prefix) or os.path.exists(sock_path(prefix))
        gwtest.eal_cleanup(prefix)      # also when the test broke off: never a folder left
    st = gwtest.load_stats(stats) if os.path.exists(stats) else None
    nfr = sum(1 for _ in read_pcap(esp_out)) if os.path.exists(esp_out) else -1
    if st is None:
        ck.fail("no stats file; exit %d:\n%s" % (proc.returncode, out))
        return
    rx, tx, drops = gwtest.port_totals(st)
    ck.check(proc.returncode == 0 and rx > 20000 and rx == tx + drops and tx == nfr and
             not left, "SIGTERM under traffic: exit 0, rx %d == tx %d + drops %d, the pcap "
             "holds all %d, socket and runtime folder removed" % (rx, tx, drops, nfr),
             "drain: exit %d, rx %d tx %d drops %d, pcap %d, left behind %s:\n%s" %
             (proc.returncode, rx, tx, drops, nfr, left, out))


# ---- events: more at once than the queue holds ---------------------------------------

def events_case(gw, c, tmp, ck):
    """
    A reload that adds 2100 SAs at once: a `subscribe all` subscriber gets the first
    2048 `add sa ... by reload` lines (the control plane's queue), then `lost 53` (the
    other 52 adds and the reload line), and the log a WARNING: a loss is said, never
    silent. A plain `subscribe` (kernel-vecsec's) gets none of it.
    """
    n_sa = 2100
    prefix = gwtest.file_prefix("opsev")
    cfg = os.path.join(tmp, "ev.cfg")
    gwtest.write_config(cfg, RT + sa_line("out", 5, KEY5))
    os.chmod(cfg, 0o600)
    g = gwtest.Gateway([gw] + eal_base(prefix) + ["--vdev", "net_null0,no-rx=1", "--vdev",
                       "net_null1,no-rx=1", "--", "-f", cfg, "-u", "2", "--max-sa",
                       str(n_sa + 10)] + gwtest.seq_state_args([]))
    subs = []
    try:
        if not g.wait_ready():
            ck.fail("events: the gateway did not start")
            return
        for req in (b"subscribe all\n", b"subscribe\n"):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock_path(prefix))
            s.sendall(req)
            subs.append([s, b""])
        for sub in subs:
            sub[1] = recv_until(sub[0], lambda b: b.startswith(b"OK\n"), 10)
        body = "".join("sa out %d aead_algo chacha20-poly1305 aead_key %s mode transport\n"
                       % (1000 + k, hexkey(KEY6)) for k in range(n_sa))
        gwtest.write_config(cfg, RT + sa_line("out", 5, KEY5) + body)
        rc, out, err = ctl(c, prefix, "reload")
        got = recv_until(subs[0][0], lambda b: b"\nlost " in b, 60)
        lines = got.decode(errors="replace").splitlines()
        adds = [ln for ln in lines if ln.startswith("add sa out ") and " by reload time " in ln]
        lost = [ln for ln in lines if ln.startswith("lost ")]
        ck.check(rc == 0 and len(adds) == 2048 and len(lost) == 1 and
                 lost[0].startswith("lost 53 time ") and
                 g.wait_line("vecsec-gw: events: 53 lost to a full queue", timeout=10),
                 "reload of %d SAs: `subscribe all` got 2048 add events, then `lost 53`; "
                 "a WARNING in the log" % n_sa,
                 "reload of %d SAs: rc %d %s, %d add lines, lost lines %s" %
                 (n_sa, rc, out.strip()[-200:], len(adds), lost))
        plain = recv_until(subs[1][0], lambda b: False, 0.5)
        ck.check(subs[1][1] == b"OK\n" and plain == b"", "plain subscribe: nothing of it",
                 "plain subscribe got %r then %r" % (subs[1][1], plain[:200]))
        rc, text = g.stop()
        ck.check(rc == 0, "events: exit 0", "events: exit %s" % rc)
    finally:
        for sub in subs:
            sub[0].close()
        g.kill()
        gwtest.eal_cleanup(prefix)


def recv_until(s, done, timeout):
    """What s sends until done(bytes so far) or timeout seconds (a deadline, polled)."""
    buf = b""
    end = time.monotonic() + timeout
    s.settimeout(0.2)
    while not done(buf) and time.monotonic() < end:
        try:
            b = s.recv(1 << 16)
        except socket.timeout:
            continue
        if not b:
            break
        buf += b
    return buf


def main():
    gw, c, what = sys.argv[1], sys.argv[2], sys.argv[3]
    if SOCK_DIR is None:
        print("FAIL: run as root: the default control socket lives in /run/vecsec-gw")
        return 1
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-ops-", dir=os.environ.get("VECSEC_TEST_TMP"))
    ck = Checks()
    try:
        {"telemetry": telemetry_case, "telemetry-proto": telemetry_proto_case,
         "reload": reload_case, "drain": drain_case, "events": events_case}[what](
            gw, c, tmp, ck)
    finally:
        gwtest.cleanup(tmp)
    return gwtest.finish(ck.ok)


if __name__ == "__main__":
    sys.exit(main())
