# SPDX-License-Identifier: BSD-3-Clause
"""
Shared harness of the vecsec-gw test scripts in test/gw/.

The scripts run the gateway over net_pcap files (port 0 protected/clear,
port 1 unprotected/ESP), then check what it wrote and its --stats-file
JSON. What every one of them did the same way lives here: test keys,
pcap files, the EAL command line, running the gateway, grouping its
output per SA and comparing it with the originals, counter checks, and
the final PASS/FAIL and cleanup.

Every check function prints "FAIL: ..." for each mismatch (or an "ok   ..."
line when given one) and returns True when all matched, so a script keeps
its own `ok = check(...) and ok` flow. scapy is imported only by the
functions that need it.

What the benchmark needs too (EAL options and runtime folders, keys,
configuration and pcap files, telemetry) is the gwrun package's
(tools/gwrun/), imported here under the names the scripts use.

A script imports it from its own folder:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gwtest
"""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools"))
from gwrun.eal import eal_args as gwrun_eal_args, file_prefix  # noqa: E402,F401
from gwrun.eal import run_dirs as eal_run_dirs, cleanup as eal_cleanup  # noqa: E402,F401
from gwrun.files import PCAP_HEADER, keygen, hexkey  # noqa: E402,F401
from gwrun.files import write_config, write_pcap, read_pcap  # noqa: E402,F401
from gwrun.telemetry import query as telemetry  # noqa: E402,F401



def eal_args(prefix, lcores="0"):
    """
    gwrun's EAL options (DPDK's messages from warnings up) with the gateway's
    own (log type vecsec.gw) from INFO: the scripts read its start-up lines.
    """
    return gwrun_eal_args(prefix, lcores) + ["--log-level", "vecsec.gw:info"]


# ---- command line ----------------------------------------------------------

def gw_args(args, flags=(), values=(), app_flags=("--cpu-crypto", "--native"),
            eal_opts=("--vdev", "-d")):
    """
    Split a test script's arguments: app_flags go to the gateway after
    `--`, eal_opts take a value and go to EAL, flags and values (options
    that take one) are the script's own. Anything else exits. Returns
    (extra_app, extra_eal, own) where own maps each flag seen to True and
    each value option to its value. A flag may be in both flags and
    app_flags.
    """
    extra_app, extra_eal, own = [], [], {}
    args = list(args)
    while args:
        a = args.pop(0)
        known = False
        if a in app_flags:
            extra_app.append(a)
            known = True
        if a in flags:
            own[a] = True
            known = True
        if a in eal_opts:
            extra_eal += [a, args.pop(0)]
        elif a in values:
            own[a] = args.pop(0)
        elif not known:
            sys.exit("unknown argument " + a)
    return extra_app, extra_eal, own


def pcap_ports(tmp, clear=("clear_in.pcap", "clear_out.pcap"),
               esp=("esp_in.pcap", "esp_out.pcap")):
    """
    --vdev options of port 0 (clear: rx, tx file) and port 1 (ESP), file
    names in folder tmp (an absolute one, a named pipe say, stays as it is).
    An rx name may carry more net_pcap options: "in.pcap,infinite_rx=1".
    Only ever appended to eal_args(), which carries --no-pci and --no-huge.
    """
    j = os.path.join
    return ["--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (j(tmp, clear[0]), j(tmp, clear[1])),
            "--vdev", "net_pcap1,rx_pcap=%s,tx_pcap=%s" % (j(tmp, esp[0]), j(tmp, esp[1]))]


_seq_dir = None
_seq_n = 0


def seq_state_file():
    """
    A sequence-number state file (--seq-state) no other gateway start uses:
    in a folder of this process's own, removed when it exits. Every start
    then sends from its SAs' configured first numbers, as a test expects,
    and tests side by side or one after another never share marks.
    """
    global _seq_dir, _seq_n
    if _seq_dir is None:
        import atexit
        import tempfile
        _seq_dir = tempfile.mkdtemp(prefix="vecsec-gw-seq-state-")
        atexit.register(shutil.rmtree, _seq_dir, True)
    _seq_n += 1
    return os.path.join(_seq_dir, "seq-state-%d" % _seq_n)


def seq_state_args(app):
    """["--seq-state", a file of its own] unless app gives one (or runs --demo)."""
    if "--seq-state" in app or "--demo" in app:
        return []
    return ["--seq-state", seq_state_file()]


def gw_cmd(gwbin, prefix, ports, eal=(), app=(), lcores="0"):
    """
    The gateway's argv: EAL options, the ports, extra EAL options, `--`, app
    options, and a state file of its own (seq_state_args()).
    """
    return [gwbin] + eal_args(prefix, lcores) + list(ports) + list(eal) + ["--"] + list(app) + \
        seq_state_args(list(app))


def pcap_run(cfg, stats, idle="0.5"):
    """App options of a run over pcap files: config, 2 s stats, exit when idle, stats JSON."""
    return ["-f", cfg, "-u", "2", "--idle-exit", idle, "--stats-file", stats, "--quiet"]


def run_gw(cmd, timeout=120, tail=None, note=""):
    """
    Run the gateway to its end and print its output (the last `tail`
    characters when given). A non-zero exit prints "FAIL: gateway exited
    with N" + note. Returns the CompletedProcess.
    """
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                       universal_newlines=True)
    print(r.stdout if tail is None else r.stdout[-tail:])
    if r.returncode != 0:
        print("FAIL: gateway exited with %d%s" % (r.returncode, note))
    return r


# ---- test SAs: addresses and configuration ---------------------------------

# the next hops of port 0 (clear) and port 1 (ESP)
NEIGH = "neigh port 0 02:00:00:00:00:01\nneigh port 1 02:00:00:00:00:02\n"


class AddressPlan:
    """
    Addresses of a script's test SA pairs. SA index idx (n = idx + 1) gets:
    tunnel ends peer/gw "<peer4>.n"/"<gw4>.n" (IPv4 outer header) or
    "<peer6>::n"/"<gw6>::n" (mode ipv6-tunnel, or always when peer4 is
    None); a protected network per direction, 10.<net4>.n.0/24 or
    fd0<net6>:n::/48 (net4, net6: (outbound, inbound)); inner packets from
    192.168.n.1 or fd09::n to host 7 of that network.
    """

    def __init__(self, peer4, gw4, peer6, gw6, net4=(100, 200), net6=(1, 2)):
        self.peer4, self.gw4, self.peer6, self.gw6 = peer4, gw4, peer6, gw6
        self.net4, self.net6 = net4, net6

    def apply(self, sa, idx):
        """Set sa.peer, sa.gw, sa.net, sa.src, sa.dst from sa.inbound, sa.mode and sa.fam."""
        n = idx + 1
        d = 1 if sa.inbound else 0
        if self.peer4 is None or sa.mode == "ipv6-tunnel":
            sa.peer, sa.gw = "%s::%d" % (self.peer6, n), "%s::%d" % (self.gw6, n)
        else:
            sa.peer, sa.gw = "%s.%d" % (self.peer4, n), "%s.%d" % (self.gw4, n)
        if sa.fam == 4:
            sa.net = "10.%d.%d.0/24" % (self.net4[d], n)
            sa.src, sa.dst = "192.168.%d.1" % n, "10.%d.%d.7" % (self.net4[d], n)
        else:
            sa.net = "fd0%d:%x::/48" % (self.net6[d], n)
            sa.src, sa.dst = "fd09::%d" % n, "fd0%d:%x::7" % (self.net6[d], n)


    def routes(self):
        """
        rt rules of a pcap run: ESP to the peers and traffic to the outbound
        networks leave on port 1, the inbound networks' on port 0.
        """
        return ("rt ipv4 dst %s.0/24 port 1\nrt ipv6 dst %s::/32 port 1\n"
                "rt ipv4 dst 10.%d.0.0/16 port 1\nrt ipv6 dst fd0%d::/16 port 1\n"
                "rt ipv4 dst 10.%d.0.0/16 port 0\nrt ipv6 dst fd0%d::/16 port 0\n"
                % (self.peer4, self.peer6, self.net4[0], self.net6[0], self.net4[1],
                   self.net6[1]))


def direction(sa):
    """"in" or "out", as the configuration says it."""
    return "in" if sa.inbound else "out"


def tunnel_ends(sa):
    """(src, dst) of the outer header: peer -> gateway inbound, gateway -> peer outbound."""
    return (sa.peer, sa.gw) if sa.inbound else (sa.gw, sa.peer)


def sp_line(sa):
    """The SP that sends sa's protected network through sa."""
    return "sp %s %s esp protect %d pri 1 dst %s\n" % ("ipv4" if sa.fam == 4 else "ipv6",
                                                       direction(sa), sa.spi, sa.net)


def udp_packet(sa, k, size, body_mul, sport, dport):
    """
    Clear packet k of SA sa: sa.src -> sa.dst, UDP sport -> dport, `size`
    body bytes (k * body_mul + i + sa.spi); every third IPv4 packet carries
    header options (NOP NOP NOP EOL).
    """
    from scapy.all import IP, IPv6, UDP, Raw, IPOption
    body = bytes(((k * body_mul + i + sa.spi) & 0xff) for i in range(size))
    if sa.fam == 4:
        ip = IP(src=sa.src, dst=sa.dst,
                options=[IPOption(b"\x01\x01\x01\x00")] if k % 3 == 2 else [])
    else:
        ip = IPv6(src=sa.src, dst=sa.dst)
    return ip / UDP(sport=sport, dport=dport) / Raw(body)


def sa_pairs(cls, specs):
    """(outbound, inbound) SAs cls(idx, spec, inbound) of each spec."""
    return ([cls(i, s, False) for i, s in enumerate(specs)],
            [cls(i, s, True) for i, s in enumerate(specs)])


def clear_traffic(outs, n, size):
    """
    n clear packets per outbound SA, interleaved (packet k of each SA in
    turn), s.clear(k, size(k)). Returns (frames for clear_in.pcap,
    originals per SPI).
    """
    frames, orig = [], {s.spi: [] for s in outs}
    for k in range(n):
        for s in outs:
            p = s.clear(k, size(k))
            orig[s.spi].append(p)
            frames.append(eth(p))
    return frames, orig


def esp_traffic(ins, n, size):
    """
    n ESP packets per inbound SA, interleaved: s.encrypt(s.clear(k,
    size(k)), k). Returns (frames for esp_in.pcap, the clear packets' bytes
    per SPI: what the gateway must put out).
    """
    from scapy.all import raw
    frames, want = [], {s.spi: [] for s in ins}
    for k in range(n):
        for s in ins:
            p = s.clear(k, size(k))
            want[s.spi].append(raw(p))
            frames.append(eth(s.encrypt(p, k)))
    return frames, want


def run_pcap_gw(gwbin, prefix, tmp, cfg, clear_in, esp_in, eal=(), app=(), lcores="0",
                idle="0.5", quiet=True, wrap=(), timeout=120):
    """
    The usual run: clear_in and esp_in (scapy frames) become the input
    pcaps of port 0 and port 1 in tmp, the gateway runs over them with
    config cfg until idle, its stats in tmp/stats.json. wrap goes before
    the binary (a `timeout` command). Returns the stats file's path, or
    None when the gateway failed (FAIL printed).
    """
    from scapy.all import wrpcap
    wrpcap(os.path.join(tmp, "clear_in.pcap"), clear_in)
    wrpcap(os.path.join(tmp, "esp_in.pcap"), esp_in)
    stats = os.path.join(tmp, "stats.json")
    run = pcap_run(cfg, stats, idle)
    if not quiet:
        run.remove("--quiet")
    cmd = list(wrap) + gw_cmd(gwbin, prefix, pcap_ports(tmp), eal, run + list(app), lcores)
    if run_gw(cmd, timeout).returncode != 0:
        return None
    return stats


# ---- files and cleanup -----------------------------------------------------

def cleanup(tmp, *prefixes):
    """Remove the test's temporary folder and the EAL folders of its prefixes."""
    shutil.rmtree(tmp, ignore_errors=True)
    for p in prefixes:
        eal_cleanup(p)


def finish(ok):
    """Print the verdict line; returns the exit status."""
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


# ---- a running gateway: readiness, control socket, telemetry -------------

# How long a started gateway may take to say "vecsec-gw: ready", and any one
# wait_until() condition: generous, for a loaded machine (a shared CI runner,
# a sanitizer build); a test that passes never waits that long.
READY_TIMEOUT = float(os.environ.get("GW_READY_TIMEOUT", "120"))
WAIT_TIMEOUT = float(os.environ.get("GW_WAIT_TIMEOUT", "120"))
READY_LINE = "vecsec-gw: ready"


class Gateway:
    """
    A gateway running in the background. A thread reads its stdout+stderr
    line by line as it comes (so a full pipe never blocks it) and keeps it;
    wait_ready() waits for the line "vecsec-gw: ready", which the gateway
    prints once its ports, SAs, control socket and workers are up: only
    then may a test talk to it or expect traffic. stop() ends it with
    SIGTERM, as an operator would; kill() in a `finally` makes sure it is
    gone.
    """

    def __init__(self, cmd, name="gateway", **popen):
        self.name = name
        self.lines = []
        self.cond = threading.Condition()
        self.eof = False
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     universal_newlines=True, errors="replace", **popen)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def output(self):
        """Everything it printed so far."""
        with self.cond:
            return "".join(self.lines)

    def count(self, text):
        """How many of its lines so far contain text."""
        with self.cond:
            return sum(text in l for l in self.lines)

    def wait_line(self, text, n=1, timeout=WAIT_TIMEOUT):
        """
        Wait until n of its lines contain text; True if they do, else a
        FAIL line (it exited, or timeout seconds passed) and False.
        """
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                if sum(text in l for l in self.lines) >= n:
                    return True
                left = deadline - time.monotonic()
                if self.eof or left <= 0:
                    break
                self.cond.wait(min(left, 1.0))
        out = self.output()
        if self.eof:
            self.proc.wait()
            why = "exited with %s" % self.proc.returncode
        else:
            why = "still running after %.0f s" % timeout
        print("FAIL: %s: no %r line (%s); its output:\n%s" % (self.name, text, why,
                                                              out[-3000:]))
        return False

    def wait_ready(self, timeout=READY_TIMEOUT):
        """Wait for "vecsec-gw: ready" (see wait_line)."""
        return self.wait_line(READY_LINE, timeout=timeout)

    def running(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.running():
            self.proc.send_signal(sig)

    def wait(self, timeout=60):
        """Wait for its exit (and its last line); returns (returncode, output)."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            print("FAIL: %s did not exit within %d s" % (self.name, timeout))
            self.kill()
        self.reader.join(timeout=10)
        return self.proc.returncode, self.output()

    def stop(self, timeout=60):
        """SIGTERM, then wait() for the exit: (returncode, output)."""
        self.signal(signal.SIGTERM)
        return self.wait(timeout)

    def kill(self):
        if self.running():
            self.proc.kill()
        self.proc.wait()


def until(fn, timeout=20.0, step=0.05):
    """fn() until it is true (its value), or None after timeout: polls, never a fixed sleep."""
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > end:
            return None
        time.sleep(step)


def wait_until(cond, what, timeout=WAIT_TIMEOUT, gws=(), step=0.02):
    """
    Poll cond() until it is true: True, or a FAIL line naming `what` and
    False when timeout seconds pass or one of the Gateway objects gws exits.
    """
    deadline = time.monotonic() + timeout
    while not cond():
        dead = [g for g in gws if not g.running()]
        if dead:
            print("FAIL: waiting for %s: %s exited with %s" % (what, dead[0].name,
                                                              dead[0].proc.returncode))
            return False
        if time.monotonic() > deadline:
            print("FAIL: waiting for %s: nothing after %.0f s" % (what, timeout))
            return False
        time.sleep(step)
    return True


def wait_path(path, tries=2400, step=0.05):
    """
    Wait until path exists and, when it is a socket (the gateway's control
    socket), accepts a connection: the file appears at bind(), a moment
    before listen(). True if it does within tries * step seconds. Prefer
    Gateway.wait_ready(), which also covers everything else.
    """
    for _ in range(tries):
        if os.path.exists(path):
            if not stat.S_ISSOCK(os.stat(path).st_mode):
                return True
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                return True
            except OSError:
                pass
            finally:
                s.close()
        time.sleep(step)
    return False


def ctl(ctlbin, sock, text=None, words=(), timeout=30):
    """
    One vecsec-ctl request to the gateway at sock: text on stdin, or words
    as arguments. Returns the CompletedProcess (stdout with stderr).
    """
    return subprocess.run([ctlbin, "-s", sock] + list(words), input=text,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=timeout)


def tel_total(prefix, key):
    """A total of the gateway's /vecsec_gw/stats (0 when telemetry does not answer)."""
    tel = telemetry(prefix, ["/vecsec_gw/stats"])
    st = (tel[0].get("/vecsec_gw/stats") or {}) if tel else {}
    # a drop reason is under "drops", a total at the top (docs/operations.md, "One schema")
    return st.get(key, st.get("drops", {}).get(key, 0))


def tel_port(prefix, port, key):
    """A counter of port `port` in /vecsec_gw/stats's "ports" (0 when telemetry does not answer)."""
    tel = telemetry(prefix, ["/vecsec_gw/stats"])
    st = (tel[0].get("/vecsec_gw/stats") or {}) if tel else {}
    return st.get("ports", {}).get(str(port), {}).get(key, 0)


def telemetry_sa(prefix, spi, dirn="out"):
    """Telemetry object of the active SA dirn SPI (a dict), or None when there is none."""
    tel = telemetry(prefix, ["/vecsec_gw/sa,%s,%d" % (dirn, spi)])
    return (tel[0].get("/vecsec_gw/sa") or None) if tel else None


def eth(p):
    """p in an Ethernet frame, as the test's peer sends it."""
    from scapy.all import Ether
    return Ether(src="02:00:00:00:00:aa", dst="02:00:00:00:00:bb") / p


def norm(p, tcp=False):
    """
    Bytes of an IP packet with checksums and lengths recomputed by scapy
    (IP, UDP and, with tcp, TCP's checksum), to compare packets that went
    through a NAT or a decrypt.
    """
    from scapy.all import IP, IPv6, UDP, TCP, raw
    p = p.copy()
    for layer in (IP, UDP, TCP) if tcp else (IP, UDP):
        if layer in p:
            if hasattr(p[layer], "chksum"):
                del p[layer].chksum
            if layer is not TCP and hasattr(p[layer], "len"):
                del p[layer].len
    if IPv6 in p:
        del p[IPv6].plen
    return raw(p.__class__(raw(p)))


# ---- the gateway's output per SA -------------------------------------------

class EspOut:
    """
    The gateway's ESP packets per outbound SA, counted in arrival order:
    take() gives each packet its SA and index k (0, 1, ... within the SA).
    """

    def __init__(self, outs):
        self.outs = list(outs)
        self.by_spi = {s.spi: s for s in self.outs}
        self.seen = {s.spi: 0 for s in self.outs}
        self.ok = True

    def take(self, spi, what):
        """(SA, k) of a packet with this SPI, or (None, None) with a FAIL line if no SA has it."""
        if spi not in self.by_spi:
            print("FAIL: unexpected packet on the ESP port:", what)
            self.ok = False
            return None, None
        k = self.seen[spi]
        self.seen[spi] += 1
        return self.by_spi[spi], k

    def each(self, path, spi_of=None):
        """
        (p, s, k) for every frame of the pcap file at path whose SPI belongs
        to an SA: p the IP packet (scapy), s its SA, k its index. spi_of(p)
        finds the SPI (scapy's ESP layer by default; None: not ESP).
        """
        from scapy.all import rdpcap
        from scapy.layers.ipsec import ESP
        for f in rdpcap(path):
            p = f.payload
            if spi_of is not None:
                spi = spi_of(p)
            else:
                spi = p[ESP].spi if ESP in p else None
            s, k = self.take(spi, f.summary())
            if s is not None:
                yield p, s, k

    def check_counts(self, n, ok_line):
        """
        Every SA sent exactly n packets; ok_line % (name, n) is printed for
        those that did. Returns True when all did and take() saw no stranger.
        """
        for s in self.outs:
            if self.seen[s.spi] != n:
                print("FAIL: %s: %d ESP packets out, want %d" % (s.name, self.seen[s.spi], n))
                self.ok = False
            else:
                print(ok_line % (s.name, n))
        return self.ok


def check_decrypt(name, k, decrypt, want, errors=(Exception,), show=True):
    """
    Packet k of SA `name`: decrypt() (which raises one of errors on a bad
    ICV or framing) must give `want`, compared after norm(). Returns True
    when it does.
    """
    try:
        d = decrypt()
    except errors as ex:
        print("FAIL: %s: packet %d does not decrypt: %s" % (name, k, ex))
        return False
    if norm(d) != norm(want):
        print("FAIL: %s: packet %d decrypts to something else" % (name, k))
        if show:
            d.show()
        return False
    return True


def clear_by_sa(frames, ins):
    """
    Group the clear port's frames by inbound SA (the SA whose inner dst
    the packet has), as raw IP bytes in order. Returns (got, ok): got maps
    SPI to a list; a frame no SA claims is a FAIL.
    """
    from scapy.all import raw
    ok = True
    got = {s.spi: [] for s in ins}
    by_dst = {s.dst: s for s in ins}
    for f in frames:
        p = f.payload
        if p.dst not in by_dst:
            print("FAIL: unexpected packet on the clear port:", f.summary())
            ok = False
            continue
        got[by_dst[p.dst].spi].append(raw(p))
    return got, ok


def check_inbound(ins, got, want, ok_line):
    """
    For each inbound SA s the gateway's clear packets got[s.spi] must be
    want[s.spi] byte for byte, in order. Prints ok_line(s) for those that
    are, the first differing packet of those that are not.
    """
    ok = True
    for s in ins:
        g, w = got[s.spi], want[s.spi]
        if g != w:
            print("FAIL: inbound %s: %d packets out, %d expected, or different bytes"
                  % (s.name, len(g), len(w)))
            for i, (a, b) in enumerate(zip(g, w)):
                if a != b:
                    print("  first difference at packet %d:\n  got  %s\n  want %s"
                          % (i, a.hex(), b.hex()))
                    break
            ok = False
        else:
            print(ok_line(s))
    return ok


def check_clear_port(path, ins, want, ok_line):
    """clear_by_sa() of the pcap file at path, then check_inbound(); True if both pass."""
    from scapy.all import rdpcap
    got, ok = clear_by_sa(rdpcap(path), ins)
    return check_inbound(ins, got, want, ok_line) and ok


# ---- counters (--stats-file) -----------------------------------------------

def load_stats(path):
    """The gateway's --stats-file JSON."""
    with open(path) as f:
        return json.load(f)


def check_drops(st, exp):
    """Every global drop counter equals exp[reason] (0 when absent)."""
    ok = True
    for reason, n in st["drops"].items():
        if n != exp.get(reason, 0):
            print("FAIL: drop counter %s = %d, want %d" % (reason, n, exp.get(reason, 0)))
            ok = False
    return ok


def check_sa_pkts(st, want):
    """Every SA's packet counter equals want(entry) (entry: the SA's JSON object)."""
    ok = True
    for e in st["sa"]:
        w = want(e)
        if e["pkts"] != w:
            print("FAIL: SA %s %#x: %d packets, want %d" % (e["dir"], e["spi"], e["pkts"], w))
            ok = False
    return ok


def check_sa_drops(st, want, reasons=None):
    """
    Per-SA drop counters: for every SA and reason (all of the SA's, or
    those given) the counter equals want(entry, reason); None skips it.
    """
    ok = True
    for e in st["sa"]:
        for reason in reasons if reasons is not None else e["drops"]:
            w = want(e, reason)
            if w is not None and e["drops"][reason] != w:
                print("FAIL: SA %s %#x: %s %d, want %d" % (e["dir"], e["spi"], reason,
                                                          e["drops"][reason], w))
                ok = False
    return ok


def check_esp_totals(st, esp_out, esp_in):
    """The gateway's esp_out and esp_in totals."""
    if st["esp_out"] != esp_out or st["esp_in"] != esp_in:
        print("FAIL: esp_out %d esp_in %d, want %d %d" % (st["esp_out"], st["esp_in"], esp_out,
                                                          esp_in))
        return False
    return True


def port_totals(st):
    """(rx, tx, drops): frames in and out over all ports, and all drops."""
    return (sum(p["rx"] for p in st["ports"].values()), sum(p["tx"] for p in st["ports"].values()),
            sum(st["drops"].values()))


def frames_moved(st):
    """
    rx with fragments accounted: fragments taken into reassembled datagrams
    count as their datagram, datagrams fragmented on tx as their pieces;
    must equal tx + drops when no frame was lost or counted twice.
    """
    return (port_totals(st)[0] - st.get("reasm_frags", 0) + st.get("reassembled", 0) +
            st.get("frags_out", 0) - st.get("fragmented", 0))
