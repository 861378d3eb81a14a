#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw --seq-state: outbound SAs with keys from the configuration file
never send a sequence number (and so an IV) twice under the same key, even
across restarts.

restart: one configuration with three outbound SAs (AES-GCM through
rte_ipsec, ChaCha20-Poly1305 as a lookaside-protocol SA, AES-GCM with
`seq 5000`) runs twice over the same clear packets with the same state
file (--seq-reserve 1000): the second run's first ESP packet of each SA
has a sequence number above every number of the first run, none of its
ciphertexts equals one of the first run, and the AES-GCM ones decrypt
(scapy). The SA that was kept under `seq 5000` starts at max(5000, mark +
1). The file holds no key byte. `--seq-state none` warns and starts at the
configured number; a non-ESN SA whose stored mark leaves no number comes
up expired; a state path that cannot be written, and a file that is not a
state file, refuse the start naming the file and the option.

extend: --seq-reserve 64 under endless traffic (net_pcap infinite_rx, the
ESP output a named pipe read as it comes): the sequence numbers run 1, 2,
... far past 64 (the management thread extends the mark), each at most
the mark on disk. Then the writer cannot write (its temporary file's name
taken by a folder): packets past the durable mark are dropped and counted
as seq_unreserved, none is sent; once it can write again the numbers go on
from the mark without a gap or a repeat. A reload (SIGHUP) that adds an
outbound SA while the state cannot be written is refused; once it can, the
reload adds it with its mark on disk. A restart then starts above the last marks.

extend-2w: the same with two lcores, so the SA's numbers, reservations and
give-backs take the atomic paths (net_pcap's one rx queue feeds worker 0).

notes: SA 11 among 1000 idle outbound SAs, --seq-reserve 256; its clear
packets come through a named pipe, 96 at a time (then 31 that no rule
matches), each batch once the mark on disk is at least R/2 above the last
number sent (the gateway renewed it, noted by the worker; the tick does
not walk the idle SAs for it). SA 11 crosses its half many times and is
renewed each time: no packet dropped as seq_unreserved, its numbers 1, 2,
... without a gap, each at most the mark on disk; every idle SA's mark
stays the one written at start.

usage: seq_state_check.py GATEWAY_BINARY [restart|extend|extend-2w|notes]
"""
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading

from scapy.all import IP, UDP, Raw, wrpcap, raw
from scapy.layers.ipsec import ESP, SecurityAssociation

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey, eal_cleanup, read_pcap  # noqa: E402

KEY_GCM = bytes(range(0x10, 0x10 + 20))         # AES-128 key + salt
KEY_CHA = bytes(range(0x50, 0x50 + 36))         # ChaCha20 key + salt
KEY_SEQ = bytes(range(0x90, 0x90 + 20))
NPKT = 40
SA14 = ("sa out 14 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
        "src 172.31.1.1 dst 172.31.2.14\n"
        "sp ipv4 out esp protect 14 pri 10 dst 10.14.0.0/16\n" % hexkey(KEY_SEQ))
RT = ("rt ipv4 dst 172.31.0.0/16 port 1\nrt ipv4 dst 10.0.0.0/8 port 1\n"
      "rt ipv4 dst 192.168.0.0/16 port 0\n")


def config():
    return (RT +
            "sa out 11 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
            "src 172.31.1.1 dst 172.31.2.11\n" % hexkey(KEY_GCM) +
            "sa out 12 aead_algo chacha20-poly1305 aead_key %s mode ipv4-tunnel "
            "src 172.31.1.1 dst 172.31.2.12 type lookaside-protocol-offload\n" % hexkey(KEY_CHA) +
            "sa out 13 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
            "src 172.31.1.1 dst 172.31.2.13 seq 5000\n" % hexkey(KEY_SEQ) +
            "sp ipv4 out esp protect 11 pri 10 dst 10.11.0.0/16\n"
            "sp ipv4 out esp protect 12 pri 10 dst 10.12.0.0/16\n"
            "sp ipv4 out esp protect 13 pri 10 dst 10.13.0.0/16\n")


def clear_pkts(spis=(11, 12, 13), n=NPKT):
    return [IP(src="192.168.9.1", dst="10.%d.0.7" % spi, id=k) /
            UDP(sport=1000 + k, dport=53) / Raw(bytes((k + i) & 0xff for i in range(48)))
            for k in range(n) for spi in spis]


def esp_fields(frame):
    """(spi, seq, payload after the ESP header) of Ether/IPv4/ESP."""
    spi, seq = struct.unpack("!II", frame[14 + 20:14 + 28])
    return spi, seq, bytes(frame[14 + 28:])


def pcap_cmd(gwbin, prefix, tmp, name, cfg, state, extra=()):
    stats = os.path.join(tmp, name + "-stats.json")
    ports = gwtest.pcap_ports(tmp, ("clear_in.pcap", name + "-clear_out.pcap"),
                              ("empty.pcap", name + "-esp_out.pcap"))
    app = gwtest.pcap_run(cfg, stats) + ["--ctrl", "none", "--seq-state", state] + list(extra)
    return gwtest.gw_cmd(gwbin, prefix, ports, app=app), stats


def run(cmd, prefix):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=120, universal_newlines=True)
    finally:
        eal_cleanup(prefix)


def by_sa(path):
    """{spi: [(seq, payload)]} of an ESP output pcap, in order."""
    out = {}
    for fr in read_pcap(path):
        spi, seq, pl = esp_fields(fr)
        out.setdefault(spi, []).append((seq, pl))
    return out


def restart(gwbin, tmp, fail):
    cfg = gwtest.write_config(os.path.join(tmp, "seq.cfg"), config())
    state = os.path.join(tmp, "state", "seq-state")
    pkts = clear_pkts()
    wrpcap(os.path.join(tmp, "clear_in.pcap"), [eth(p) for p in pkts])
    runs = []
    for name in ("first", "second"):
        prefix = gwtest.file_prefix("seq-" + name)
        cmd, _ = pcap_cmd(gwbin, prefix, tmp, name, cfg, state, ["--seq-reserve", "1000"])
        r = run(cmd, prefix)
        if r.returncode != 0:
            fail("%s run exited %d: %s" % (name, r.returncode, r.stdout[-2000:]))
            return
        runs.append(by_sa(os.path.join(tmp, name + "-esp_out.pcap")))
    st = os.stat(os.path.join(tmp, "state"))
    if st.st_mode & 0o777 != 0o700 or os.stat(state).st_mode & 0o777 != 0o600:
        fail("state folder mode %o, file %o: want 700, 600" % (st.st_mode & 0o777,
                                                               os.stat(state).st_mode & 0o777))
    text = open(state).read()
    for key in (KEY_GCM, KEY_CHA, KEY_SEQ):
        for part in (key[:8].hex(), key[:8].hex().upper()):
            if part in text:
                fail("the state file holds key bytes: %s" % text)
    first_at = {11: 1, 12: 1, 13: 5000}
    fails = []

    def sa_fail(msg):
        fails.append(msg)
        fail(msg)

    for spi in (11, 12, 13):
        a, b = runs[0].get(spi, []), runs[1].get(spi, [])
        if len(a) != NPKT or len(b) != NPKT:
            sa_fail("SA %d: %d and %d ESP packets, want %d each" % (spi, len(a), len(b), NPKT))
            continue
        sa_, sb = [s for s, _ in a], [s for s, _ in b]
        if sa_ != list(range(first_at[spi], first_at[spi] + NPKT)):
            sa_fail("SA %d first run: seq %s..., want from %d" % (spi, sa_[:3], first_at[spi]))
        # the first run reserved [first, first + 999]: the second starts above it
        want = first_at[spi] + 1000
        if sb != list(range(want, want + NPKT)):
            sa_fail("SA %d second run: seq %s..., want from %d (above %d)" %
                    (spi, sb[:3], want, max(sa_)))
        elif min(sb) <= max(sa_):
            sa_fail("SA %d: second run's seq %d not above the first's %d" %
                    (spi, min(sb), max(sa_)))
        same = set(p for _, p in a) & set(p for _, p in b)
        if same:
            sa_fail("SA %d: %d ciphertexts sent in both runs" % (spi, len(same)))
    # the second run's ESP is valid: scapy decrypts it with the same keys
    for spi, key in ((11, KEY_GCM), (13, KEY_SEQ)):
        sa = SecurityAssociation(ESP, spi=spi, crypt_algo="AES-GCM", crypt_key=key,
                                 tunnel_header=IP(src="172.31.1.1", dst="172.31.2.%d" % spi))
        frames = [fr for fr in read_pcap(os.path.join(tmp, "second-esp_out.pcap"))
                  if esp_fields(fr)[0] == spi]
        want = [raw(p) for p in pkts if p[IP].dst == "10.%d.0.7" % spi]
        got = []
        for fr in frames:
            try:
                got.append(raw(sa.decrypt(IP(bytes(fr[14:])))))
            except Exception as e:      # noqa: BLE001 (what scapy raises varies)
                sa_fail("SA %d: ESP of the second run does not decrypt: %s" % (spi, e))
                break
        if got and got != want:
            sa_fail("SA %d: the second run's ESP decrypts to other packets" % spi)
    if not fails:
        print("ok   restart: the second run starts above the first's reservation "
              "(SA 11 at %d, SA 12 at %d, SA 13 at %d), no ciphertext repeats" %
              tuple(runs[1][s][0][0] for s in (11, 12, 13)))

    # --seq-state none: a warning, and the configured start (what the state prevents)
    prefix = gwtest.file_prefix("seq-none")
    cmd, _ = pcap_cmd(gwbin, prefix, tmp, "none", cfg, "none")
    r = run(cmd, prefix)
    warn = [l for l in r.stdout.split("\n") if "--seq-state none" in l]
    if r.returncode != 0 or len(warn) != 1 or "warning" not in warn[0]:
        fail("--seq-state none: exit %d, warning lines %s" % (r.returncode, warn))
    got = by_sa(os.path.join(tmp, "none-esp_out.pcap")).get(11, [])
    if not got or got[0][0] != 1:
        fail("--seq-state none: SA 11 starts at %s, want 1" % (got[0][0] if got else None))
    else:
        print("ok   --seq-state none: one warning line, SA 11 starts at 1 again")

    # a non-ESN SA whose mark leaves no number below 2^32 - 1: it comes up expired
    full = os.path.join(tmp, "full-state")
    with open(full, "w") as f:
        f.write("vecsec-gw-seq 1\nout 11 ipv4 172.31.2.11 4294967294\n")
    prefix = gwtest.file_prefix("seq-full")
    cmd, stats = pcap_cmd(gwbin, prefix, tmp, "full", cfg, full)
    r = run(cmd, prefix)
    got = by_sa(os.path.join(tmp, "full-esp_out.pcap"))
    drops = gwtest.load_stats(stats)["drops"] if r.returncode == 0 else {}
    if r.returncode != 0 or 11 in got or len(got.get(12, [])) != NPKT or \
            drops.get("expired") != NPKT or "none left, it expires" not in r.stdout:
        fail("SA 11 with its numbers used up: exit %d, ESP of SA 11: %d, drops %s, output %s"
             % (r.returncode, len(got.get(11, [])), drops, r.stdout[-1500:]))
    else:
        print("ok   SA 11 with every number up to 2^32 - 2 reserved before: a warning, its "
              "%d packets expired, none sent" % NPKT)

    # a state that cannot be written or read: no start, the file and the option named
    plain = os.path.join(tmp, "plain")
    open(plain, "w").close()
    bad = os.path.join(tmp, "bad-state")
    with open(bad, "w") as f:
        f.write("sa out 11 ipv4 172.31.2.11 5\n")
    for what, path in (("a folder that is a file", os.path.join(plain, "seq-state")),
                       ("not a state file", bad)):
        prefix = gwtest.file_prefix("seq-bad")
        cmd, _ = pcap_cmd(gwbin, prefix, tmp, "bad", cfg, path)
        r = run(cmd, prefix)
        if r.returncode == 0 or path not in r.stdout or "--seq-state" not in r.stdout or \
                "ready" in r.stdout:
            fail("state %s: exit %d, output %s" % (what, r.returncode, r.stdout[-1500:]))
        else:
            print("ok   state %s: refused: %s" % (what, [l for l in r.stdout.split("\n")
                                                     if path in l][0]))


class EspWatch:
    """The ESP output (a named pipe) read as it comes: SA 11's sequence numbers in order."""

    def __init__(self, path):
        self.path = path
        self.seqs = []
        self.lock = threading.Lock()
        self.done = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        try:
            for fr in read_pcap(self.path):
                spi, seq, _ = esp_fields(fr)
                if spi == 11:
                    with self.lock:
                        self.seqs.append(seq)
        finally:
            self.done = True

    def count(self):
        with self.lock:
            return len(self.seqs)

    def top(self):
        with self.lock:
            return self.seqs[-1] if self.seqs else 0


def file_mark(state, spi=11):
    for line in open(state):
        w = line.split()
        if len(w) == 5 and w[0] == "out" and w[1] == str(spi):
            return int(w[4])
    return None


def stopped(g, watch, prefix, what, fail):
    """SIGTERM, the ESP reader joined, EAL's files gone; False (and a FAIL) unless it exited 0."""
    rc, out = g.stop()
    watch.thread.join(timeout=30)
    eal_cleanup(prefix)
    if rc != 0:
        fail("%s: gateway exited %d: %s" % (what, rc, out[-2000:]))
    return rc == 0


def extend(gwbin, tmp, fail, lcores="0"):
    cfg = gwtest.write_config(os.path.join(tmp, "ext.cfg"), RT +
                              "sa out 11 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
                              "src 172.31.1.1 dst 172.31.2.11\n" % hexkey(KEY_GCM) +
                              "sp ipv4 out esp protect 11 pri 10 dst 10.11.0.0/16\n")
    wrpcap(os.path.join(tmp, "loop.pcap"), [eth(p) for p in clear_pkts((11,), 64)])
    state = os.path.join(tmp, "ext", "seq-state")
    fifo = os.path.join(tmp, "ext-esp_out.pcap")
    os.mkfifo(fifo, 0o600)
    prefix = gwtest.file_prefix("seq-ext")
    stats = os.path.join(tmp, "ext-stats.json")
    ports = gwtest.pcap_ports(tmp, ("loop.pcap,infinite_rx=1", "ext-clear_out.pcap"),
                              ("empty.pcap", fifo))
    cmd = gwtest.gw_cmd(gwbin, prefix, ports, app=[
        "-f", cfg, "-u", "2", "--ctrl", "none", "--stats-file", stats, "--quiet",
        "--seq-state", state, "--seq-reserve", "64"], lcores=lcores)
    watch = EspWatch(fifo)
    g = gwtest.Gateway(cmd, name="gateway extend")
    blocker = state + ".tmp"

    def wait(cond, what, timeout=gwtest.WAIT_TIMEOUT):
        """gwtest.wait_until(); its FAIL line fails the test (the caller returns)."""
        return gwtest.wait_until(cond, what, timeout=timeout, gws=[g])

    def unreserved():
        return gwtest.tel_total(prefix, "seq_unreserved")

    try:
        if not g.wait_ready() or not wait(lambda: watch.top() > 3000,
                                          "SA 11 past sequence number 3000"):
            fail("see above")
            return
        # the top first, then the file: a number sent by then was under a mark written
        # before it, and marks only rise (read the other way round, the gateway could write
        # a higher mark and send past the one just read in between)
        top = watch.top()
        mark = file_mark(state)
        if mark is None or mark < top:
            fail("mark on disk %s below the sequence number sent %d" % (mark, top))
        else:
            print("ok   --seq-reserve 64: sequence numbers past 3000 (mark on disk %d)" % mark)
        # the writer cannot write: its new file's name is a folder (root writes anywhere)
        while True:
            try:
                os.mkdir(blocker)
                break
            except FileExistsError:
                pass            # a write in flight: its file is there for a moment
        base = unreserved()
        if not wait(lambda: unreserved() >= base + 2000, "2000 packets seq_unreserved"):
            fail("see above")
            return
        mark = file_mark(state)
        sent = gwtest.tel_total(prefix, "esp_out")
        if not wait(lambda: watch.count() >= sent, "the ESP sent read from the pipe"):
            fail("see above")
            return
        if watch.top() > mark:
            fail("sequence number %d sent past the durable mark %d" % (watch.top(), mark))
        elif unreserved() < base + 2000:
            fail("seq_unreserved fell")
        else:
            print("ok   writer blocked: %d packets dropped as seq_unreserved, the last "
                  "sent %d <= mark %d" % (unreserved() - base, watch.top(), mark))
        # the management thread says so (within a tick of its first failed write)
        if not g.wait_line("cannot create") or "seq_unreserved" not in g.output():
            fail("no error line for the failed write")
        # a reload that adds an outbound SA now is refused: its numbers cannot be reserved
        gwtest.write_config(cfg, open(cfg).read() + SA14)
        g.signal(signal.SIGHUP)
        if not g.wait_line("reload failed", timeout=30):
            fail("see above")
            return
        line = [ln for ln in g.output().split("\n") if "reload failed" in ln][0]
        if "--seq-state" not in line:
            fail("reload with the state unwritable: %s" % line)
        else:
            print("ok   reload adding SA 14 with the state unwritable: refused: %s" % line)
        # it can write again: the numbers go on above the old mark
        os.rmdir(blocker)
        if not wait(lambda: watch.top() > mark + 200, "sequence numbers past %d" % mark):
            fail("see above")
            return
        if not g.wait_line("written again"):
            fail("no line when the state could be written again")
        # now the reload adds it, its mark on disk before it can send
        g.signal(signal.SIGHUP)
        # (64 numbers at least: the refused reload's reservation is skipped, never reused)
        if g.wait_line("reload: done") and (file_mark(state, 14) or 0) < 64:
            fail("SA 14 added by a reload: mark %s on disk, want 64 or more" %
                 file_mark(state, 14))
    finally:
        ok = stopped(g, watch, prefix, "extend", fail)
    if not ok:
        return
    seqs = watch.seqs
    if seqs != list(range(1, len(seqs) + 1)):
        bad = next(i for i, s in enumerate(seqs) if s != i + 1)
        fail("SA 11's sequence numbers not 1, 2, ...: at %d: %s" % (bad, seqs[bad - 2:bad + 3]))
    else:
        print("ok   %d ESP packets, sequence numbers 1..%d without a gap or a repeat" %
              (len(seqs), seqs[-1]))
    st = gwtest.load_stats(stats)
    if st["drops"].get("seq_unreserved", 0) < 2000 or st["esp_out"] != len(seqs):
        fail("stats: seq_unreserved %s, esp_out %s, ESP read %d" %
             (st["drops"].get("seq_unreserved"), st["esp_out"], len(seqs)))
    # a restart continues above the last mark (SA 14 above the reload's reservation)
    last, last14 = file_mark(state), file_mark(state, 14) or 0
    wrpcap(os.path.join(tmp, "clear_in.pcap"), [eth(p) for p in clear_pkts((11, 14), 5)])
    prefix = gwtest.file_prefix("seq-ext2")
    cmd, _ = pcap_cmd(gwbin, prefix, tmp, "ext2", cfg, state)
    r = run(cmd, prefix)
    out = by_sa(os.path.join(tmp, "ext2-esp_out.pcap"))
    got, got14 = [s for s, _ in out.get(11, [])], [s for s, _ in out.get(14, [])]
    if r.returncode != 0 or got != list(range(last + 1, last + 6)) or \
            got14 != list(range(last14 + 1, last14 + 6)):
        fail("restart after extend: exit %d, SA 11 seq %s, want from %d; SA 14 %s, want "
             "from %d" % (r.returncode, got, last + 1, got14, last14 + 1))
    else:
        print("ok   restart: SA 11 continues at %d, above the last mark %d; SA 14 (added by "
              "a reload) at %d" % (got[0], last, got14[0]))


NOTE_IDLE = 1000                # idle outbound SAs beside SA 11
NOTE_RESERVE = 256
# < R/2: a batch sent with R/2 left never reaches the cap
NOTE_BATCH = 96
# net_pcap's read of a pipe waits for a burst's last packet, holding the worker: each
# batch is followed by a burst less one of packets no rule matches (dropped, no number
# spent), so the batch's last burst is always complete whatever rx asked for
NOTE_FILL = 31
NOTE_BATCHES = 30


def notes(gwbin, tmp, fail):
    idle = "".join("sa out %d aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
                   "src 172.31.1.1 dst 172.31.3.%d\n" % (2000 + i, hexkey(KEY_SEQ), i % 250 + 1)
                   for i in range(NOTE_IDLE))
    cfg = gwtest.write_config(os.path.join(tmp, "notes.cfg"), RT +
                              "sa out 11 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
                              "src 172.31.1.1 dst 172.31.2.11\n" % hexkey(KEY_GCM) + idle +
                              "sp ipv4 out esp protect 11 pri 10 dst 10.11.0.0/16\n")
    state = os.path.join(tmp, "notes", "seq-state")
    fin = os.path.join(tmp, "notes-clear_in.pcap")
    fout = os.path.join(tmp, "notes-esp_out.pcap")
    os.mkfifo(fin, 0o600)
    os.mkfifo(fout, 0o600)
    prefix = gwtest.file_prefix("seq-notes")
    stats = os.path.join(tmp, "notes-stats.json")
    ports = gwtest.pcap_ports(tmp, (fin, "notes-clear_out.pcap"), ("empty.pcap", fout))
    cmd = gwtest.gw_cmd(gwbin, prefix, ports, app=[
        "-f", cfg, "-u", "2", "--ctrl", "none", "--stats-file", stats, "--quiet",
        "--seq-state", state, "--seq-reserve", str(NOTE_RESERVE)])
    watch = EspWatch(fout)
    g = gwtest.Gateway(cmd, name="gateway notes")
    pkts = [raw(eth(p)) for p in clear_pkts((11,), NOTE_BATCH)]
    pkts += [raw(eth(IP(src="192.168.9.1", dst="10.99.0.%d" % (k + 1)) / UDP(sport=7, dport=53)))
             for k in range(NOTE_FILL)]
    half = NOTE_RESERVE // 2
    fd = -1
    marks = []

    def wait(cond, what):
        return gwtest.wait_until(cond, what, gws=[g])

    def opened():
        # the writer end, once net_pcap has the pipe open for reading (ENXIO before)
        nonlocal fd
        try:
            fd = os.open(fin, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            return False
        os.set_blocking(fd, True)
        return True

    try:
        if not wait(opened, "net_pcap reading the clear-side pipe"):
            fail("see above")
            return
        # the pcap file header: net_pcap's open reads it before the port is up
        os.write(fd, struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        if not g.wait_ready():
            fail("see above")
            return
        for b in range(NOTE_BATCHES):
            # the gateway renews SA 11 once a batch leaves it within R/2 of its mark
            if not wait(lambda: (file_mark(state) or 0) - watch.top() >= half,
                        "mark on disk %d above the last number sent (batch %d)" % (half, b)):
                fail("see above")
                return
            marks.append(file_mark(state))
            # the tick raises the cap after the rename and the folder's fsync, under the
            # control-plane lock; a telemetry read takes that lock, so once it answers the
            # cap matches the mark on disk (a batch sent before could meet the old cap)
            unres = gwtest.tel_total(prefix, "seq_unreserved")
            if unres != 0:
                fail("%s packets dropped as seq_unreserved before batch %d" % (unres, b))
                return
            rec = b"".join(struct.pack("<IIII", 1, 0, len(p), len(p)) + p for p in pkts)
            os.write(fd, rec)
            if not wait(lambda: watch.count() >= (b + 1) * NOTE_BATCH,
                        "%d ESP packets of SA 11" % ((b + 1) * NOTE_BATCH)):
                fail("see above")
                return
            if watch.top() > file_mark(state):
                fail("sequence number %d sent past the mark on disk %d" %
                     (watch.top(), file_mark(state)))
                return
        unres = gwtest.tel_total(prefix, "seq_unreserved")
    finally:
        if fd >= 0:
            os.close(fd)        # net_pcap's rx sees the end of the file
        ok = stopped(g, watch, prefix, "notes", fail)
    if not ok:
        return
    seqs = watch.seqs
    renewals = len(set(marks)) - 1
    n = NOTE_BATCH * NOTE_BATCHES
    if seqs != list(range(1, n + 1)):
        fail("SA 11's sequence numbers not 1..%d: %d read, top %d" % (n, len(seqs), watch.top()))
    elif unres != 0:
        fail("%s packets dropped as seq_unreserved" % unres)
    elif renewals < n // NOTE_RESERVE - 1:
        fail("SA 11's mark renewed %d times for %d packets (--seq-reserve %d): marks %s" %
             (renewals, n, NOTE_RESERVE, marks))
    else:
        print("ok   SA 11 among %d idle SAs: %d packets, numbers 1..%d, mark renewed %d times "
              "(last %d), none seq_unreserved" % (NOTE_IDLE, n, n, renewals, marks[-1]))
    last = {}
    for line in open(state):
        w = line.split()
        if len(w) == 5 and w[0] == "out":
            last[int(w[1])] = int(w[4])
    moved = [spi for spi in range(2000, 2000 + NOTE_IDLE) if last.get(spi) != NOTE_RESERVE]
    if moved:
        fail("idle SAs rewritten: %d of them, SA %d mark %s" %
             (len(moved), moved[0], last.get(moved[0])))
    else:
        print("ok   the %d idle SAs keep their start mark %d" % (NOTE_IDLE, NOTE_RESERVE))


def main():
    gwbin = sys.argv[1]
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-seq-")
    ok = True

    def fail(msg):
        nonlocal ok
        print("FAIL:", msg)
        ok = False

    try:
        gwtest.write_pcap(os.path.join(tmp, "empty.pcap"))
        if what in ("all", "restart"):
            restart(gwbin, tmp, fail)
        if what in ("all", "extend"):
            extend(gwbin, tmp, fail)
        if what == "extend-2w":         # two lcores: the SA's counters are atomic
            extend(gwbin, tmp, fail, lcores="0,1")
        if what == "notes":
            notes(gwbin, tmp, fail)
    finally:
        gwtest.cleanup(tmp)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
