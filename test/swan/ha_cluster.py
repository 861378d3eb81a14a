# SPDX-License-Identifier: BSD-3-Clause
"""
Two vecsec-gw nodes as one gateway under strongSwan's ha plugin (issue #30,
docs/ha.md), in network namespaces:

    P peer            S switch                      gA  vecsec-gw --cluster + charon (ha, kernel-vecsec)
    charon/libipsec --[bro]-- ao (port 1)  ... ai (port 0) --[bri]-- L  inside host
    10.80.0.10                bo (port 1)  ... bi (port 0)               10.80.2.1
                                          gB  the same; ay <-sync veth-> by

The cluster addresses 10.80.0.5 (outside, the peer's IKE and ESP) and
10.80.2.254 (inside, L's gateway) are on both nodes' taps. The peer and L
reach them through a static neighbour entry with a multicast MAC, which
the bridges (no multicast snooping) flood to both nodes, as ClusterIP's
cluster MAC did; every unicast MAC is a static entry in the bridges, so a
node never receives the frames of the other (the gateway does not filter
on the destination MAC: a flooding bridge would hand each node the other
node's output). The ha plugin's sync link is a veth between gA and gB.

kernel-vecsec tells its gateway the segments the plugin activates
(its log line, docs/ha.md); the gateways' segment filter does the rest.

Active/passive (segment_count 1), each step waiting for events:
  1. both nodes up, heartbeats: one node has segment 1 in charon and
     gateway, the other none; the peer's IKE_SA is ESTABLISHED on the
     active node and PASSIVE on the other, whose gateway has the CHILD_SA
     too (installed by HA, add_sa with update = FALSE), standby
  2. numbered UDP both ways, every datagram once
  3. failover 1: kill -9 the active node's gateway and charon under
     traffic; the survivor takes segment 1 (charon and gateway); peer ->
     inside resumes within heartbeat_timeout + 2 s, every datagram at most
     once, the peer sent no new IKE_SA_INIT; DPD on the survivor asks
     kernel-vecsec for the use times of the HA-installed CHILD_SA (query_
     policy): no DPD request while traffic flows, one once it stops; ESP
     on the wire: no (SPI, sequence number) sent twice
  4. the killed node returns (gateway and charon): the survivor's resync
     rekeys the CHILD_SA, the returned node installs the new one, both
     gateways hold exactly their charon's CHILD_SAs (no stale SA)
  5. the standby node's gateway restarted (with segment 1 active: kernel-
     vecsec sets charon's set, none), then its charon, then the active
     node's charon (a graceful handover: the plugin drops its segments at
     shutdown): after each, both gateways hold exactly their charon's
     CHILD_SAs and the rules protecting with them (a restarted standby
     gateway gets the standby SAs back from kernel-vecsec; charon ignores
     the expiry of a passive CHILD_SA)
  6. failover 2: kill -9 only the active node's charon under traffic: its
     gateway drops the segment when charon's subscription closes (`segment
     -1 by hangup`), the other node takes over after heartbeat_timeout;
     the same traffic checks; charon restarted: passive
  7. failover 3: kill -9 only the active node's gateway under traffic:
     kernel-vecsec hands segment 1 to the other node through the ha
     plugin's FIFO (-1, the plugin's segment drop), the other node takes
     it at once; the same traffic checks; the gateway restarted: charon's
     set (none), standby SAs back, both nodes consistent. Before it, both
     gateways killed, the standby's first: the active node's charon keeps
     segment 1 (no handoff to a node whose gateway is gone); the standby's
     gateway returns with nothing, the active one with segment 1 and new
     CHILD_SAs
  8. failover 4, to the node whose gateway was just restarted (its SAs
     installed again by kernel-vecsec, its sync state pushed by the other
     gateway): traffic both ways through the active node, captured; the
     active node killed; that ESP replayed into the new active node before
     any new traffic: every packet dropped and counted; then traffic both
     ways resumes, at most once (inbound: at most the sync's loss bound),
     and no (SPI, sequence number) twice on the wire before and after
Each traffic phase of a failover lasts until the new node has carried
some of it both ways (swantest's Env.traffic: the senders run until
stopped), not a fixed time.

Active/active (ha_cluster.py BUILD_DIR active-active): segment_count 2,
four peer addresses, two in each segment by the plugin's hash; each node
has one segment and carries only its segments' SAs; the node with more
inbound SAs killed under traffic (the peers' traffic resumes, at most
once, no IKE_SA_INIT); its return, the survivor's resync, the segment
moved back through the returned node's FIFO (+N), each node again
carrying its own.

Needs the gateway's --cluster-sync (sequence numbers and replay windows
across a takeover): without it, the checks of the new node's outbound
sequence numbers and of the replay are reported as NOT CHECKED.

    ha_cluster.py BUILD_DIR [active-active]
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log, sh, wait_for  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VIP, VIP_IN, LAN = "10.80.0.5", "10.80.2.254", "10.80.2.1"
MC_OUT, MC_IN = "01:00:5e:50:00:05", "01:00:5e:50:02:fe"
PEER, PEER_NET = "10.80.0.10", "10.80.9.10"
SYNC = {"A": "10.80.8.1", "B": "10.80.8.2"}
SPIS = {"A": (0xc0000000, 0xc7ffffff), "B": (0xc8000000, 0xcfffffff)}
HB_DELAY, HB_TIMEOUT = 1000, 2100       # ms, the plugin's defaults
DPD = 2                                 # s, the nodes' dpd_delay
RATE = 200                              # datagrams per second per flow, failover traffic
SETTLE = 1.5                            # s the receivers wait for late duplicates at the end


def rol(x, k):
    return ((x << k) | (x >> (32 - k))) & 0xffffffff


def jhash(a, b, words):
    """lookup3's final mix as Linux's jhash_1word/jhash_2words(.., 0): the ha plugin's hash."""
    m = 0xffffffff
    iv = (0xdeadbeef + (words << 2)) & m
    a, b, c = (a + iv) & m, (b + iv) & m, iv
    for x, y, k in (("c", "b", 14), ("a", "c", 11), ("b", "a", 25), ("c", "b", 16),
                    ("a", "c", 4), ("b", "a", 14), ("c", "b", 24)):
        v = {"a": a, "b": b, "c": c}
        v[x] = ((v[x] ^ v[y]) - rol(v[y], k)) & m
        a, b, c = v["a"], v["b"], v["c"]
    return c


def ip4(addr):
    return int.from_bytes(bytes(int(x) for x in addr.split(".")), "big")


def seg(addr, spi=0, count=2):
    h = jhash(ip4(addr), spi, 2) if spi else jhash(ip4(addr), 0, 1)
    return (h * count >> 32) + 1


T0 = time.monotonic()


def step(msg):
    log("\n==== [%.0f s] %s" % (time.monotonic() - T0, msg))


class Cluster(st.Env):
    # per side: namespace key (swantest's ring_drops reads [0])
    SIDES = {"A": ("gA",), "B": ("gB",)}

    def __init__(self, build, count=1, peers=(PEER,)):
        super().__init__(build, "ha")
        self.ns = {k: self.p + k for k in ("P", "S", "gA", "gB", "L")}
        self.sync_opt = b"--cluster-sync" in open(self.gwbin, "rb").read()
        self.count = count
        self.peers = list(peers)

    def topology(self):
        ns = self.ns
        for n in ns.values():
            sh(["ip", "netns", "add", n])
            self.made_ns.append(n)
            sh(["ip", "link", "set", "lo", "up"], ns=n)
        i = self.ifn
        pairs = [("P", "po", "S", "sp"), ("gA", "ao", "S", "sao"), ("gB", "bo", "S", "sbo"),
                 ("gA", "ai", "S", "sai"), ("gB", "bi", "S", "sbi"), ("L", "lo0", "S", "sl"),
                 ("gA", "ay", "gB", "by")]
        for a, x, b, y in pairs:
            sh(["ip", "link", "add", i(x), "netns", ns[a], "type", "veth", "peer", "name",
                i(y), "netns", ns[b]])
            for n, f in ((a, x), (b, y)):
                # frames into DPDK's af_packet must carry real checksums
                sh(["ethtool", "-K", i(f), "tx", "off"], ns=ns[n])
        self.dpdk_ifs = [(ns["gA"], i("ao")), (ns["gA"], i("ai")), (ns["gB"], i("bo")),
                         (ns["gB"], i("bi"))]
        for n, f in self.dpdk_ifs:
            sh(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % f], ns=n)
            sh(["ip", "link", "set", f, "up"], ns=n)
            # the node's kernel must not take its own copy of what arrives there (frames
            # to the cluster MAC would reach charon past the gateway's segment filter):
            # a blackhole rule for them before the local table (af_packet saw them first)
            sh(["ip", "rule", "add", "pref", "10", "iif", f, "blackhole"], ns=n)
        for n in (ns["gA"], ns["gB"]):
            sh(["ip", "rule", "add", "pref", "100", "lookup", "local"], ns=n)
            sh(["ip", "rule", "del", "pref", "0"], ns=n)
        self.mac = {k: self._mac(ns[n], i(k)) for n, k in
                    (("P", "po"), ("L", "lo0"), ("gA", "ao"), ("gA", "ai"), ("gB", "bo"),
                     ("gB", "bi"))}
        for br, ports in (("bro", ("sp", "sao", "sbo")), ("bri", ("sl", "sai", "sbi"))):
            sh(["ip", "link", "add", i(br), "type", "bridge", "mcast_snooping", "0"], ns=ns["S"])
            for p in ports:
                sh(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % i(p)], ns=ns["S"])
                sh(["ip", "link", "set", i(p), "master", i(br), "up"], ns=ns["S"])
            sh(["ip", "link", "set", i(br), "up"], ns=ns["S"])
        # each unicast MAC where it lives: the bridges never flood one node's frames to the other
        for mac, port in ((self.mac["po"], "sp"), (self.mac["lo0"], "sl"),
                          (self.mac["ao"], "sao"), (self.mac["bo"], "sbo"),
                          (self.mac["ai"], "sai"), (self.mac["bi"], "sbi")):
            sh(["bridge", "fdb", "replace", mac, "dev", i(port), "master", "static"], ns=ns["S"])
        for k, a in enumerate(self.peers):
            sh(["ip", "addr", "add", a + ("/24" if k == 0 else "/32"), "dev", i("po")],
               ns=ns["P"])
            sh(["ip", "addr", "add", inner(a) + "/32", "dev", "lo"], ns=ns["P"])
        sh(["ip", "link", "set", i("po"), "up"], ns=ns["P"])
        sh(["ip", "neigh", "replace", VIP, "lladdr", MC_OUT, "dev", i("po"), "nud", "permanent"],
           ns=ns["P"])
        sh(["ip", "addr", "add", LAN + "/24", "dev", i("lo0")], ns=ns["L"])
        sh(["ip", "link", "set", i("lo0"), "up"], ns=ns["L"])
        sh(["ip", "neigh", "replace", VIP_IN, "lladdr", MC_IN, "dev", i("lo0"), "nud",
            "permanent"], ns=ns["L"])
        sh(["ip", "route", "add", "default", "via", VIP_IN], ns=ns["L"])
        for side, f in (("A", "ay"), ("B", "by")):
            sh(["ip", "addr", "add", SYNC[side] + "/24", "dev", i(f)], ns=ns["g" + side])
            sh(["ip", "link", "set", i(f), "up"], ns=ns["g" + side])

    # ---- the nodes --------------------------------------------------------

    def gw_start(self, side, segs=None):
        n = self.ns["g" + side]
        lo, wi = ("ai", "ao") if side == "A" else ("bi", "bo")
        sock = self.sock_of(side)
        if os.path.exists(sock):
            os.unlink(sock)
        cfg = os.path.join(self.d, "gw%s.cfg" % side)
        with open(cfg, "w") as f:
            f.write("rt ipv4 dst 10.80.0.0/24 port 1\nrt ipv4 dst 10.80.2.0/24 port 0\n"
                    "neigh port 0 %s\nneigh port 1 %s\n" % (self.mac["lo0"], self.mac["po"]))
        t0, t1 = self.ifn("t0" + side), self.ifn("t1" + side)
        cmd = ["ip", "netns", "exec", n, self.gwbin, "-l", "0" if side == "A" else "1",
               "--no-pci", "--no-huge", "-m", "512", "--no-shconf", "--no-telemetry",
               "--file-prefix", "gw%s%s" % (side, self.p), "--log-level", "*:warning",
               "--vdev", "net_af_packet0,iface=%s,framecnt=%d" % (self.ifn(lo), st.RING),
               "--vdev", "net_af_packet1,iface=%s,framecnt=%d" % (self.ifn(wi), st.RING),
               "--vdev", "net_tap0,iface=%s" % t0, "--vdev", "net_tap1,iface=%s" % t1,
               "--", "-f", cfg, "-u", "0x2", "--ctrl", sock,
               "--host-port", "0:2", "--host-port", "1:3",
               "--seq-state", os.path.join(self.d, "gw%s.seq-state" % side),
               "--cluster", "%d@%s%s" % (self.count, VIP, ":" + segs if segs else "")]
        if self.sync_opt:
            other = "B" if side == "A" else "A"
            cmd += ["--cluster-sync", "%s,%s" % (SYNC[side], SYNC[other])]
        glog = open(os.path.join(self.d, "gw%s.log" % side), "a")
        glog.write("== start: %s\n" % " ".join(cmd))
        glog.flush()
        gw = subprocess.Popen(cmd, stdout=glog, stderr=subprocess.STDOUT)
        self.procs.append(gw)
        self.gws[side] = gw

        def up():
            if gw.poll() is not None:
                raise st.Fail("vecsec-gw %s exited with %s: %s" % (
                    side, gw.returncode, self.tail("gw%s.log" % side)))
            return os.path.exists(sock) and self.ctl("hello", check_rc=False, side=side) \
                .startswith("version")
        wait_for(up, 60, what="vecsec-gw %s's control socket" % side)
        for tap, addr in ((t1, VIP + "/24"), (t0, VIP_IN + "/24")):
            sh(["ip", "addr", "add", addr, "dev", tap, "nodad"], ns=n, check_rc=False)
        for a in self.peers:
            sh(["ip", "neigh", "replace", a, "lladdr", self.mac["po"], "dev", t1, "nud",
                "permanent"], ns=n)
        sh(["ip", "neigh", "replace", LAN, "lladdr", self.mac["lo0"], "dev", t0, "nud",
            "permanent"], ns=n)
        wait_for(lambda: VIP in self.ctl("host", side=side), 20,
                 what="gateway %s to learn the cluster address" % side)

    def charon_conf(self, name, plugin_conf, extra=""):
        d, conf = super().charon_conf(name, plugin_conf, extra)
        # milliseconds in the log: the failover's steps are timed from it
        with open(conf) as f:
            text = f.read()
        with open(conf, "w") as f:
            f.write(text.replace("time_format = %H:%M:%S\n",
                                 "time_format = %H:%M:%S\n            time_add_ms = yes\n"))
        return d, conf

    def node_conf(self, side, spi_range=True):
        other = "B" if side == "A" else "A"
        spi = "spi_min = 0x%08x\n    spi_max = 0x%08x" % SPIS[side] if spi_range else ""
        return """load = random nonce openssl chapoly aes sha1 sha2 hmac kdf pem pkcs1 x509 pubkey curve25519 kernel-vecsec! kernel-netlink socket-default vici ha
    port_nat_t = 4500
    %s
    plugins {
        kernel-vecsec {
            socket = %s
            owner = test
            timeout = 3000
        }
        ha {
            local = %s
            remote = %s
            segment_count = %d
            heartbeat_delay = %d
            heartbeat_timeout = %d
        }
    }""" % (spi, self.sock_of(side), SYNC[side], SYNC[other], self.count, HB_DELAY, HB_TIMEOUT)

    def node_start(self, side, spi_range=True):
        self.charon_start(side, "g" + side, self.node_conf(side, spi_range), preload=True)
        self.swanctl_load(side, """connections {
    ha {
        version = 2
        local_addrs = %s
        remote_addrs = 10.80.0.0/24
        proposals = aes256gcm16-prfsha256-x25519
        rekey_time = 0
        dpd_delay = %ds
        local {
            auth = psk
            id = gw.test
        }
        remote {
            auth = psk
        }
        children {
            net {
                local_ts = 10.80.2.0/24
                remote_ts = 10.80.9.0/24
                esp_proposals = aes256gcm16
                start_action = none
            }
        }
    }
}
secrets {
    ike-all {
        secret = "%s"
    }
}
""" % (VIP, DPD, st.PSK))

    def kill_node(self, side):
        for p in (self.gws.get(side), getattr(self, "charon_" + side, None)):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGKILL)
        for p in (self.gws.get(side), getattr(self, "charon_" + side, None)):
            if p is not None:
                p.wait(30)
        self.gws[side] = None

    def segments(self, side):
        m = re.search(r"active (\S+) mask", self.ctl("segments", side=side))
        return m.group(1) if m else "?"

    def charon_segments(self, side):
        """The plugin's set as its last 'HA segment' log line says, 'none' before any."""
        m = re.findall(r"HA segment \d+ \w+, now active: (\S+)", self.charon_log(side))
        return m[-1] if m else "none"

    def ike_states(self, name):
        out = self.swanctl(name, "--list-sas")
        return re.findall(r"^\S+: #\d+, (\w+), IKEv2", out, re.M)

    def ike_of(self, name, peer):
        """States of charon name's IKE_SAs with peer."""
        out = self.swanctl(name, "--list-sas")
        blocks = re.split(r"^(?=\S)", out, flags=re.M)
        return [re.match(r"\S+: #\d+, (\w+)", b).group(1) for b in blocks
                if re.match(r"\S+: #\d+, \w+, IKEv2", b) and
                re.search(r"remote .*@ %s\[" % re.escape(peer), b)]

    def gw_spis(self, side):
        """{(dir, spi)} of charon's SAs in gateway side."""
        return self.gw_sas(side=side)

    def charon_spis(self, name):
        res = set()
        for c in self.child_sas(name):
            if c["state"] == "INSTALLED":
                res |= {("in", c["spi_in"]), ("out", c["spi_out"])}
        return res

    def sa_show(self, side, d, spi):
        j = json.loads(self.ctl("-j", "show", "sa", d, str(spi), side=side))
        j = j[0] if isinstance(j, list) else j
        j["packets"] = j.get("pkts", 0)
        return j

    def sas(self):
        return {("in", self.spi_in), ("out", self.spi_out)}

    def drops(self, side, reason):
        j = json.loads(self.ctl("-j", "stats", side=side))
        return j.get("drops", {}).get(reason, 0)

    def dump_logs(self):
        # each live gateway's view: segments and sync, drops by reason, its SAs
        for side in ("A", "B"):
            gw = self.gws.get(side)
            if gw is None or gw.poll() is not None:
                continue
            for words in (("segments",), ("-j", "stats"), ("-j", "show", "sa")):
                log("---- gateway %s: %s ----\n%s" % (side, " ".join(words), self.ctl(
                    *words, check_rc=False, side=side)))
        for rel in ("gwA.log", "gwB.log", "A/charon.log", "B/charon.log", "P/charon.log",
                    "A/charon.stdout", "B/charon.stdout"):
            path = os.path.join(self.d, rel)
            if os.path.exists(path):
                log("---- %s (%d bytes, tail) ----\n%s" % (rel, os.path.getsize(path),
                                                          self.tail(rel, 80)))


def inner(peer):
    """The peer address's protected /32."""
    return "10.80.9." + peer.split(".")[3]


def peer_conf(peers=(PEER,)):
    return "connections {\n%s}\nsecrets {\n    ike-all {\n        secret = \"%s\"\n" \
        "    }\n}\n" % ("".join(peer_conn(a) for a in peers), st.PSK)


def peer_conn(peer):
    n = peer.split(".")[3]
    return """    c%s {
        version = 2
        local_addrs = %s
        remote_addrs = %s
        proposals = aes256gcm16-prfsha256-x25519
        rekey_time = 0
        local {
            auth = psk
            id = p%s.test
        }
        remote {
            auth = psk
            id = gw.test
        }
        children {
            net%s {
                local_ts = %s/32
                remote_ts = 10.80.2.0/24
                esp_proposals = aes256gcm16
                start_action = none
            }
        }
    }
""" % (n, peer, VIP, n, n, inner(peer))


def log_times(text, what, near):
    """Wall-clock times of charon log lines (HH:MM:SS.mmm) containing what, on near's day."""
    res = []
    lt = time.localtime(near)
    for m in re.finditer(r"^(\d\d):(\d\d):(\d\d)\.(\d{3}) .*%s" % re.escape(what), text,
                         re.M):
        t = time.mktime(lt[:3] + (int(m.group(1)), int(m.group(2)), int(m.group(3))) +
                        lt[6:]) + int(m.group(4)) / 1000.0
        res.append(t)
    return res


def read_capture(path):
    rows = []
    try:
        with open(path) as f:
            for l in f:
                x = l.split()
                if len(x) == 7:
                    rows.append((float(x[0]), x[1], x[2], x[3], int(x[4]), int(x[5]), x[6]))
    except OSError:
        pass
    return rows


def repeats(rows, direction):
    seen, rep = set(), []
    for r in rows:
        if r[1] != direction:
            continue
        k = (r[4], r[5])
        if k in seen:
            rep.append(k)
        seen.add(k)
    return rep


class Sniffer:
    def __init__(self, env, path):
        self.path = path
        self.p = subprocess.Popen(["ip", "netns", "exec", env.ns["S"], sys.executable,
                                   os.path.join(HERE, "ha_sniff.py"), "capture", env.ifn("sp"),
                                   path], stdout=subprocess.PIPE, universal_newlines=True)
        env.procs.append(self.p)
        if not self.p.stdout.readline().startswith("ready"):
            raise st.Fail("ESP capture did not start")

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(30)
        return read_capture(self.path)


def failover(env, active, label, kill="node", dpd=False):
    """
    Traffic both ways, the active node killed under it; returns the
    measurements. kill: "node" (gateway and charon), "charon" (its gateway
    lives on: it drops the segments when charon's subscription closes),
    "gateway" (its charon lives on: kernel-vecsec hands the segments to the
    other node through the plugin's FIFO). The traffic runs until the new
    node has carried some of it both ways (events, not a fixed length);
    dpd: also 2 * dpd_delay of it after the takeover, and the DPD check.
    """
    standby = "B" if active == "A" else "A"
    flows = [("P", "L", LAN, 5301, PEER_NET), ("L", "P", PEER_NET, 5302)]
    cap = Sniffer(env, os.path.join(env.d, "esp-%s.txt" % label))
    base = env.sa_show(active, "in", env.spi_in)["packets"]
    plog = env.charon_log("P")
    inits = plog.count("IKE_SA_INIT")
    # (the receivers give up 8 s after their last datagram: longer than any failover)
    tr = env.traffic(flows, rate=RATE, settle=SETTLE, patience=8)
    # under traffic: some of it through the active node
    st.wait_for(lambda: env.sa_show(active, "in", env.spi_in)["packets"] >= base + RATE // 2,
                60, step=0.05, what="traffic through node %s before the failover" % active)
    slog_before = len(env.charon_log(standby))
    t_kill = time.monotonic()
    w_kill = time.time()
    alog_before = len(env.charon_log(active))
    # the survivor's sign of the takeover: the heartbeat missed, or the other node's drop
    sign = "HA segment 1 activated" if kill == "gateway" else \
        "no heartbeat received, taking all segments"
    if kill == "node":
        env.kill_node(active)
    elif kill == "charon":
        p = getattr(env, "charon_" + active)
        p.send_signal(signal.SIGKILL)
        p.wait(30)
    else:
        env.gws[active].send_signal(signal.SIGKILL)
        env.gws[active].wait(30)
        env.gws[active] = None
    log("killed %s %s (SIGKILL)" % (
        "node" if kill == "node" else "the " + kill + " of node", active))
    wait_for(lambda: sign in env.charon_log(standby)[slog_before:], 30,
             what="node %s: %s" % (standby, sign))
    wait_for(lambda: env.segments(standby) == "1", 10,
             what="gateway %s to get segment 1 from its charon" % standby)
    t_seg = time.monotonic()
    slog_takeover = len(env.charon_log(standby))
    # the new node carries the traffic both ways (half a second of it each way)
    got0 = {d: env.sa_show(standby, d, x)["packets"] for d, x in (("in", env.spi_in),
                                                                   ("out", env.spi_out))}
    wait_for(lambda: all(env.sa_show(standby, d, x)["packets"] >= got0[d] + RATE // 2
                         for d, x in (("in", env.spi_in), ("out", env.spi_out))), 30,
             step=0.05, what="traffic both ways through node %s after the takeover" % standby)
    if dpd:
        # long enough after the takeover for a DPD to be due if the use times were wrong
        wait_for(lambda: time.monotonic() - t_seg >= 2 * DPD + 0.3, 2 * DPD + 5, step=0.05,
                 what="%d s of traffic after the takeover" % (2 * DPD))
    res = tr.stop()
    r = dict((spec[0], rr) for spec, rr in res)
    slog_end = len(env.charon_log(standby))
    rows = cap.stop()
    # the survivor's detection, from its log (wall clock, ms)
    det = log_times(env.charon_log(standby)[slog_before:], sign, w_kill)
    t_detect = t_kill + (det[0] - w_kill) if det else None
    pl = r["P"]
    count = pl["count"]
    log("peer -> inside: %d/%d received, %d duplicate, longest silence %.2f s, last %d" % (
        pl["got"], count, pl["dup"], pl["gap"], pl["top"]))
    check(pl["dup"] == 0 and pl["bad"] == 0, "%s: peer -> inside: every datagram at most "
          "once (%d duplicates, %d damaged)" % (label, pl["dup"], pl["bad"]))
    check(pl["top"] == count - 1 and pl["gap_end"] is not None and
          pl["gap_end"] > t_kill, "%s: peer -> inside resumed through node %s (the last "
          "datagram arrived; the longest silence ended after the kill)" % (label, standby))
    fo = pl["gap_end"] - t_kill
    check(fo <= HB_TIMEOUT / 1000.0 + 2.0, "%s: traffic resumed %.2f s after the kill "
          "(heartbeat_timeout %.1f s + 2 s)" % (label, fo, HB_TIMEOUT / 1000.0))
    meas = {"kill_to_first": fo, "lost": count - pl["got"], "rate": RATE,
            "detect_to_first": pl["gap_end"] - t_detect if t_detect else None,
            "detect_to_segment": t_seg - t_detect if t_detect else None}
    check(env.charon_log("P").count("IKE_SA_INIT") == inits,
          "%s: the peer sent no IKE_SA_INIT (its IKE_SA survived the failover)" % label)
    check(repeats(rows, "in") == [], "%s: the peer's ESP: no (SPI, sequence number) twice "
          "on the wire (%d packets)" % (label, sum(1 for x in rows if x[1] == "in")))
    lp = r["L"]
    rep = repeats(rows, "out")
    if env.sync_opt:
        check(lp["dup"] == 0 and lp["bad"] == 0 and lp["top"] == lp["count"] - 1,
              "%s: inside -> peer: every datagram at most once, resumed (%d/%d)" % (
                  label, lp["got"], lp["count"]))
        check(rep == [], "%s: the cluster's ESP: no (SPI, sequence number) twice on the "
              "wire (%d packets)" % (label, sum(1 for x in rows if x[1] == "out")))
    else:
        log("NOT CHECKED (this vecsec-gw has no --cluster-sync): inside -> peer after the "
            "takeover: %d/%d received, %d duplicate, last %d; (SPI, sequence number) pairs "
            "the cluster sent twice: %d (the new node starts its copy of the SA at 1)" % (
                lp["got"], lp["count"], lp["dup"], lp["top"], len(rep)))
        check(lp["dup"] == 0, "%s: inside -> peer: no datagram twice" % label)
    # the killed node's surviving half carries nothing
    if kill == "charon":
        wait_for(lambda: env.segments(active) == "none", 10,
                 what="gateway %s to drop segment 1 with its charon gone" % active)
        check(True, "%s: gateway %s (its charon killed) carries no segment" % (label, active))
    elif kill == "gateway":
        # (on a loaded machine the ha plugin may miss a heartbeat afterwards and take
        # all segments again: kernel-vecsec hands them back while its gateway is gone)
        wait_for(lambda: env.charon_segments(active) == "none", 10,
                 what="charon %s (its gateway gone) to have no segment" % active)
        alog = env.charon_log(active)[alog_before:]
        check("handed segment 1 to the other node" in alog,
              "%s: charon %s (its gateway killed) handed segment 1 to node %s through the "
              "ha plugin's FIFO and has none" % (label, active, standby))
        # what a missed heartbeat does (the plugin takes all segments, the other node
        # drops them), forced through the FIFO: with its gateway still gone, kernel-vecsec
        # hands the segment back at once
        with open(os.path.join(env.d, active, "run", "charon.ha"), "w") as f:
            f.write("+1")
        wait_for(lambda: env.charon_log(active)[alog_before:].count(
            "handed segment 1 to the other node") >= 2 and
            env.charon_segments(active) == "none" and env.segments(standby) == "1", 20,
            what="charon %s, its gateway gone, to hand back segment 1 that its FIFO "
            "activated" % active)
        check(True, "%s: segment 1 activated again on node %s (its gateway gone): "
              "kernel-vecsec handed it back to node %s" % (label, active, standby))
        if env.sync_opt:
            # and told the other gateway at once, so that it holds nothing back for the
            # dead partner's acks (a second otherwise)
            check("told the other node's gateway" in alog and "its node says the gateway is "
                  "gone" in env.tail("gw%s.log" % standby, 400),
                  "%s: kernel-vecsec %s told gateway %s over the sync link that gateway %s "
                  "is gone; gateway %s took it as down at once" % (
                      label, active, standby, active, standby))
    if not dpd:
        return meas, rows
    # query_policy: DPD on the survivor asks kernel-vecsec for the CHILD_SA's last use;
    # while datagrams still come in, no DPD check may find the SA idle
    w_last = w_kill + (pl["last"] - t_kill)
    dpds = log_times(env.charon_log(standby)[slog_takeover:slog_end], "sending DPD request",
                     w_kill)
    check(pl["last"] - t_seg >= 2 * DPD and not [x for x in dpds if x < w_last],
          "%s: node %s sent no DPD while traffic came in (%.1f s after the takeover, "
          "dpd_delay %d s): kernel-vecsec's query_policy gives the gateway's use times of "
          "the HA-installed CHILD_SA (DPDs %s s after the last datagram)" % (
              label, standby, pl["last"] - t_seg, DPD,
              ", ".join("%.1f" % (x - w_last) for x in dpds) or "none"))
    wait_for(lambda: [x for x in log_times(env.charon_log(standby)[slog_takeover:],
                                           "sending DPD request", w_kill) if x >= w_last],
             DPD * 3 + 30, what="node %s's DPD once the traffic stopped" % standby)
    check(True, "%s: node %s sent a DPD once the traffic had stopped (so the check above "
          "could fail)" % (label, standby))
    return meas, rows


def resync_settled(env, skip=None):
    """
    Each node asks the other for a resync 1 s after its start, without
    retransmission; an IKE_SA set up before the answer came back comes back
    to its own node as a second, passive copy. True once every request that
    can have been received (the other node's ha socket was up: it had logged
    its heartbeat's start before the request) is answered.
    """
    skip = skip or {}
    logs = {x: env.charon_log(x)[skip.get(x, 0):] for x in "AB"}
    now = time.time()
    for x, y in (("A", "B"), ("B", "A")):
        req = log_times(logs[x], "requesting HA resynchronization", now)
        if not req:
            return False
        up = log_times(logs[y], "starting HA heartbeat", now)
        if up and up[0] < req[0] and "resyncing HA segment" not in logs[y]:
            return False
    return True


def consistent(env, what, same=None, changed=None):
    """
    Wait until both gateways hold exactly their charon's CHILD_SAs, the same
    on both nodes and the peer's one CHILD_SA (no stale SA anywhere); same:
    those SAs must be these, changed: must not be these. Returns them.
    """
    def state():
        p = [c for c in env.child_sas("P") if c["state"] == "INSTALLED"]
        want = None
        if len(p) == len(env.peers):
            want = set()
            for c in p:
                want |= {("in", c["spi_out"]), ("out", c["spi_in"])}
        sets = {"gw" + s: env.gw_spis(s) for s in ("A", "B")}
        sets.update({"charon" + s: env.charon_spis(s) for s in ("A", "B")})
        # and the rules that protect with them: each gateway one in and one out
        # per CHILD_SA, the same on both nodes
        if want:
            for s in ("A", "B"):
                sps = env.gw_sps(side=s)
                sets["gw%s-rules" % s] = {(m.group(1), int(m.group(2))) for m in (
                    re.search(r"^sp ipv4 (in|out) esp protect (\d+)", l) for l in sps) if m}
                if len(sps) != len(want):
                    sets["gw%s-rules" % s].add(("count", len(sps)))
        return want, sets

    def ok():
        want, sets = state()
        return want and all(v == want for v in sets.values()) and \
            (same is None or want == same) and (changed is None or not (want & changed))
    try:
        wait_for(ok, 60, step=0.5, what="consistent SAs %s" % what)
    except st.Fail:
        want, sets = state()
        raise st.Fail("SAs %s: the peer's %s, %s" % (what, sorted(want or []), ", ".join(
            "%s %s" % (k, sorted(v)) for k, v in sorted(sets.items()))))
    want, _ = state()
    check(True, "%s: both gateways hold exactly their charon's CHILD_SAs, the peer's (%s)%s" %
          (what, " ".join("%s 0x%08x" % x for x in sorted(want)),
           "; unchanged" if same else "; rekeyed" if changed else ""))
    if len(want) == 2:
        env.spi_in = [x for d, x in want if d == "in"][0]
        env.spi_out = [x for d, x in want if d == "out"][0]
    return want


def node_return(env, side, survivor, old):
    """The killed node comes back: passive, and the survivor's resync rekeys."""
    env.gw_start(side)
    env.node_start(side)
    every = ",".join(str(n) for n in range(1, env.count + 1))
    wait_for(lambda: env.segments(side) == "none" and env.segments(survivor) == every,
             20, what="the returned node to stay passive")
    consistent(env, "after node %s's return (the survivor's resync)" % side, changed=old)


def replay_check(env, active, standby):
    """
    Traffic both ways through active (captured), then active killed; before
    any new traffic, the captured ESP goes again into standby, which took
    over. Then traffic both ways through standby: it resumes, every datagram
    at most once, no (SPI, sequence number) twice on the wire in either
    direction, before or after the failover.
    """
    flows = [("P", "L", LAN, 5501, PEER_NET), ("L", "P", PEER_NET, 5502)]
    cap = Sniffer(env, os.path.join(env.d, "esp-replay.txt"))
    env.check_traffic(flows, rate=300, count=300, settle=SETTLE,
                      what="traffic through node %s before the replay" % active)
    before = cap.stop()
    rows = [r for r in before if r[1] == "in" and r[4] == env.spi_in]
    check(len(rows) >= 300, "%d ESP packets of SA 0x%08x captured" % (len(rows), env.spi_in))
    slog = len(env.charon_log(standby))
    bound = in_headroom(env, active, spi=env.spi_in) if env.sync_opt else 0
    env.kill_node(active)
    wait_for(lambda: "taking all segments" in env.charon_log(standby)[slog:] and
             env.segments(standby) == "1", 30, what="node %s to take over" % standby)
    path = os.path.join(env.d, "esp-replay-in.txt")
    with open(path, "w") as f:
        for r in rows:
            f.write("%.6f %s %s %s %d %d %s\n" % r)
    replay0 = env.drops(standby, "replay")
    sa0 = env.sa_show(standby, "in", env.spi_in)["packets"]
    # the inside host listens on the flow's port (udpagent.py: polled, no timeout)
    agent = subprocess.Popen(["ip", "netns", "exec", env.ns["L"], sys.executable,
                              os.path.join(HERE, "udpagent.py")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, universal_newlines=True)
    env.procs.append(agent)

    def ask(req):
        agent.stdin.write(json.dumps(req) + "\n")
        agent.stdin.flush()
        return json.loads(agent.stdout.readline())
    sid = ask({"op": "open", "addr": "0.0.0.0", "port": 5501})["id"]
    sh([sys.executable, os.path.join(HERE, "ha_sniff.py"), "replay", env.ifn("po"), path],
       ns=env.ns["P"])
    # every replayed packet ends somewhere: dropped as a replay, or let through, and
    # what was let through reaches the inside host
    st.wait_progress(lambda: (env.drops(standby, "replay") - replay0) +
                     (env.sa_show(standby, "in", env.spi_in)["packets"] - sa0),
                     lambda v: v >= len(rows), 10, "the replayed packets at gateway %s" %
                     standby)
    passed = env.sa_show(standby, "in", env.spi_in)["packets"] - sa0
    st.wait_progress(lambda: len(ask({"op": "got", "id": sid})["got"]),
                     lambda v: v >= passed, 10, "the %d replayed packets gateway %s let "
                     "through at the inside host" % (passed, standby))
    got = len(ask({"op": "got", "id": sid})["got"])
    agent.stdin.close()
    agent.wait(10)
    dropped = env.drops(standby, "replay") - replay0
    if env.sync_opt:
        check(dropped == len(rows) and got == 0, "all %d replayed packets dropped as replays "
              "by node %s (the inside host got %d)" % (len(rows), standby, got))
    else:
        log("NOT CHECKED (this vecsec-gw has no --cluster-sync): of %d replayed packets node "
            "%s dropped %d as replays, the inside host received %d again" % (
                len(rows), standby, dropped, got))
    cap = Sniffer(env, os.path.join(env.d, "esp-after-replay.txt"))
    res = env.flows(flows, rate=300, count=300, patience=8, settle=SETTLE)
    after = cap.stop()
    if not env.sync_opt:
        env.check_flows(res, 300, "traffic through node %s after the replay" % standby)
        return
    # the sync's inbound loss bound: the new node refuses the numbers up to the old
    # node's advertised limit (its top + B_in, B_in at least 64): the peer's first new
    # packets below it are lost (docs/ha.md)
    r = dict((spec[0], rr) for spec, rr in res)
    p, o = r["P"], r["L"]
    if p["got"] < 300 - bound or o["got"] < 300:
        log("drops at node %s: %s; its SAs: %s" % (
            standby, env.ctl("-j", "stats", side=standby),
            env.ctl("-j", "show", "sa", side=standby)))
    check(p["dup"] == 0 and p["bad"] == 0 and p["top"] == 299 and p["got"] >= 300 - bound,
          "traffic peer -> inside through node %s after the replay: %d/300, the first %d "
          "below the old node's advertised limit (at most %d: that limit minus its top)" % (
              standby, p["got"], 300 - p["got"], bound))
    check(o["dup"] == 0 and o["bad"] == 0 and o["got"] == 300,
          "traffic inside -> peer through node %s after the replay: %d/300" % (
              standby, o["got"]))
    both = before + after
    check(repeats(both, "in") == [] and repeats(both, "out") == [],
          "no (SPI, sequence number) twice on the wire across the failover (%d packets in, "
          "%d out)" % (sum(1 for x in both if x[1] == "in"),
                       sum(1 for x in both if x[1] == "out")))


def both_gateways_dead(env, active, standby):
    """
    The standby gateway dies, then the active one: kernel-vecsec on the
    active node keeps its segments (the other node's gateway is down, a
    handoff would put them where nothing carries them). The standby's
    gateway returns first and gets nothing; the active one returns and
    carries them again, with new CHILD_SAs.
    """
    before = env.sas()
    alog = len(env.charon_log(active))
    slog = len(env.charon_log(standby))
    env.gws[standby].send_signal(signal.SIGKILL)
    env.gws[standby].wait(30)
    env.gws[standby] = None
    wait_for(lambda: "the other node's gateway is down" in env.charon_log(active)[alog:], 20,
             what="kernel-vecsec %s to learn that gateway %s is down" % (active, standby))
    env.gws[active].send_signal(signal.SIGKILL)
    env.gws[active].wait(30)
    env.gws[active] = None
    wait_for(lambda: "keeping them here" in env.charon_log(active)[alog:], 20,
             what="kernel-vecsec %s's decision with both gateways gone" % active)
    check(env.charon_segments(active) == "1" and "HA segment 1 activated" not in
          env.charon_log(standby)[slog:], "both gateways gone: charon %s kept segment 1 "
          "(not handed to node %s, whose gateway is gone too)" % (active, standby))
    # (both back soon: charon's DPD on the active node fails while its gateway, and with
    # it the cluster address, is gone, and would end the IKE_SA after some seconds)
    env.gw_start(standby)
    env.gw_start(active)
    wait_for(lambda: env.segments(active) == "1" and env.charon_segments(active) == "1", 20,
             what="gateway %s back with segment 1" % active)
    check(env.segments(standby) == "none" and "HA segment 1 activated" not in
          env.charon_log(standby)[slog:], "gateway %s returned first and carries nothing; "
          "gateway %s returned and carries segment 1 again" % (standby, active))
    consistent(env, "after both gateways' return", changed=before)


def carried(env, sides=("A", "B")):
    """{side: {(dir, spi): (segment, state, packets)}} of both gateways (or those of sides)."""
    res = {}
    for side in sides:
        j = json.loads(env.ctl("-j", "show", "sa", side=side))
        res[side] = {(x["dir"], x["spi"]): (x.get("segment"), x.get("segment_state"),
                                            x.get("pkts", 0)) for x in j}
    return res


def aa_specs(env, ports):
    specs = []
    for k, a in enumerate(env.peers):
        specs += [("P", "L", LAN, ports + 2 * k, inner(a)),
                  ("L", "P", inner(a), ports + 2 * k + 1)]
    return specs


def aa_flows(env, rate, count, ports, patience=None):
    return env.flows(aa_specs(env, ports), rate=rate, count=count, patience=patience,
                     settle=SETTLE)


def aa_traffic(env, rate, ports, patience=None):
    return env.traffic(aa_specs(env, ports), rate=rate, patience=patience, settle=SETTLE)


def check_own(env, before, what):
    """Each node's gateway carried the packets of its active segments' SAs only."""
    now = carried(env)
    for side in ("A", "B"):
        act = env.segments(side)
        for k, (segn, state, pk) in now[side].items():
            d = pk - before[side].get(k, (0, 0, 0))[2]
            if state == "standby" and d:
                raise st.Fail("%s: gateway %s carried %d packets of SA %s %d, of segment %s "
                              "not active there (%s)" % (what, side, d, k[0], k[1], segn, act))
    moved = {side: sum(v[2] - before[side].get(k, (0, 0, 0))[2] for k, v in now[side].items()
                       if v[1] == "active") for side in ("A", "B")}
    check(all(moved.values()), "%s: each node carried its own segments' SAs (A %s: %d "
          "packets, B %s: %d), none of the other's" % (what, env.segments("A"), moved["A"],
                                                       env.segments("B"), moved["B"]))
    return now


def main_aa(env):
    """
    Active/active: segment_count 2, four peers split between the segments by
    the plugin's hash, both nodes active; failover of one, return, rebalance.
    """
    check(seg("192.168.0.100") == 2 and seg("192.168.0.200") == 1 and
          jhash(ip4("192.168.0.5"), 0xc1234567, 2) == 0x82504be1,
          "the test's hash gives strongSwan's values")
    env.topology()
    for s in ("A", "B"):
        env.gw_start(s)
    step("two nodes, two segments: active/active, peers %s (segments %s)" % (
        ", ".join(env.peers), ", ".join(str(seg(a)) for a in env.peers)))
    for s in ("A", "B"):
        env.node_start(s)
    wait_for(lambda: sorted([env.segments("A"), env.segments("B")]) == ["1", "2"] and
             env.segments("A") == env.charon_segments("A") and
             env.segments("B") == env.charon_segments("B"), 30, step=0.2,
             what="each node with one segment, in charon and gateway alike")
    owner = {env.segments(s): s for s in ("A", "B")}
    check(True, "segment 1 on node %s, segment 2 on node %s (the plugin's parity rule)" % (
        owner["1"], owner["2"]))
    wait_for(lambda: resync_settled(env), 20,
             what="both nodes to have answered the other's resync request")
    env.charon_start("P", "P", st.plugin_conf_libipsec())
    env.swanctl_load("P", peer_conf(env.peers))
    for a in env.peers:
        env.swanctl("P", "--initiate", "--child", "net" + a.split(".")[3])
    consistent(env, "with four peers")
    for a in env.peers:
        who = owner[str(seg(a))]
        other = "B" if who == "A" else "A"
        wait_for(lambda: env.ike_of(other, a) == ["PASSIVE"], 20,
                 what="node %s's passive copy of %s's IKE_SA" % (other, a))
        check(env.ike_of(who, a) == ["ESTABLISHED"], "peer %s (segment %d): IKE_SA "
              "ESTABLISHED on node %s, PASSIVE on node %s" % (a, seg(a), who, other))

    step("traffic of four peers through both nodes")
    # ESP on the wire from the first datagram: a sequence number sent again after the
    # failover may repeat one of this traffic
    cap = Sniffer(env, os.path.join(env.d, "esp-aa.txt"))
    before = carried(env)
    env.check_flows(aa_flows(env, 100, 200, 5600), 200, "four peers through two nodes")
    check_own(env, before, "active/active")

    # the node with more inbound SAs goes: its peers' traffic must come back
    now = carried(env)
    ins = {side: sum(1 for k, v in now[side].items() if k[0] == "in" and v[1] == "active")
           for side in ("A", "B")}
    dead = "A" if ins["A"] >= ins["B"] else "B"
    surv = "B" if dead == "A" else "A"
    dseg = env.segments(dead)
    step("failover: node %s (segment %s, %d of the 4 inbound SAs) killed under traffic" % (
        dead, dseg, ins[dead]))
    inits = env.charon_log("P").count("IKE_SA_INIT")
    before = carried(env)
    tr = aa_traffic(env, 100, 5700, patience=8)
    wait_for(lambda: sum(v[2] for v in carried(env)[dead].values()) >
             sum(v[2] for v in before[dead].values()) + 100 * (ins[dead] + 1), 60, step=0.1,
             what="traffic through node %s" % dead)
    t_kill = time.monotonic()
    env.kill_node(dead)
    wait_for(lambda: env.segments(surv) == "1,2", 30, what="node %s to take both segments" %
             surv)
    # the taken SAs carry the traffic on: half a second of it each
    took = {k: v[2] for k, v in carried(env, surv)[surv].items() if str(v[0]) == dseg}
    wait_for(lambda: all(carried(env, surv)[surv][k][2] >= n + 50 for k, n in took.items()),
             30,
             step=0.1, what="node %s to carry segment %s's SAs both ways" % (surv, dseg))
    res = {"r": tr.stop()}
    rows = cap.stop()
    worst = 0.0
    for spec, r in res["r"]:
        count = r["count"]
        if spec[0] == "P":
            check(r["dup"] == 0 and r["bad"] == 0 and r["top"] == count - 1,
                  "peer %s -> inside: at most once, resumed (%d/%d, longest silence %.2f s)" %
                  (spec[4], r["got"], count, r["gap"]))
            worst = max(worst, r["gap"])
        elif env.sync_opt:
            check(r["dup"] == 0 and r["top"] == count - 1, "inside -> peer %s: at most once, "
                  "resumed (%d/%d)" % (spec[2], r["got"], count))
        else:
            check(r["dup"] == 0, "inside -> peer %s: no datagram twice (%d/%d; resumption "
                  "NOT CHECKED without --cluster-sync)" % (spec[2], r["got"], count))
    check(worst <= HB_TIMEOUT / 1000.0 + 2.0, "the peers' traffic: its longest silence "
          "%.2f s (heartbeat_timeout %.1f s + 2 s)" % (worst, HB_TIMEOUT / 1000.0))
    check(env.charon_log("P").count("IKE_SA_INIT") == inits, "no IKE_SA_INIT from the peers")
    check(repeats(rows, "in") == [], "the peers' ESP: no (SPI, sequence number) twice")
    rep = repeats(rows, "out")
    if env.sync_opt:
        check(rep == [], "the cluster's ESP: no (SPI, sequence number) twice")
    else:
        log("NOT CHECKED (no --cluster-sync): (SPI, sequence number) pairs the cluster sent "
            "twice: %d" % len(rep))
    aa_replay(env, dead, surv, dseg, before, rows, t_kill)

    sseg = "1" if dseg == "2" else "2"
    step("node %s returns, then takes segment %s back (its FIFO: +%s)" % (dead, dseg, dseg))
    node_return(env, dead, surv, None)
    bound = in_headroom(env, surv, seg=dseg) if env.sync_opt else 0
    with open(os.path.join(env.d, dead, "run", "charon.ha"), "w") as f:
        f.write("+" + dseg)
    wait_for(lambda: env.segments(dead) == dseg and env.segments(surv) == sseg and
             env.charon_segments(dead) == dseg and env.charon_segments(surv) == sseg, 20,
             what="segment %s back on node %s (charon and gateway), node %s keeping %s" % (
                 dseg, dead, surv, sseg))
    check(True, "rebalanced: segment %s on node %s, segment %s on node %s" % (
        dseg, dead, sseg, surv))
    consistent(env, "after the rebalance")
    before = carried(env)
    res = aa_flows(env, 100, 200, 5800, patience=8 if env.sync_opt else None)
    if env.sync_opt:
        # the moved segment's inbound SAs: the sync's loss bound (the node taking it
        # refuses the numbers up to the other node's advertised limit: its top + B_in,
        # read before the move)
        for spec, r in res:
            lost = 200 - r["got"]
            check(r["dup"] == 0 and r["bad"] == 0 and r["top"] == 199 and
                  (lost == 0 or spec[0] == "P" and lost <= bound),
                  "after the rebalance: %s -> %s %s: %d/200, at most once%s" % (
                      spec[0], spec[1], spec[2], r["got"], "; the first %d below the old "
                      "node's advertised limit (at most %d: that limit minus its top)" % (
                          lost, bound) if lost else ""))
    else:
        env.check_flows(res, 200, "four peers after the rebalance")
    check_own(env, before, "after the rebalance")


def in_headroom(env, side, seg=None, spi=None):
    """
    The sync's inbound loss bound of side's inbound SAs (of segment seg, or
    SA spi): the limit it advertised minus its window's top, the most the
    peer's next numbers a node taking them over refuses (docs/ha.md: B_in,
    at least 64, more after the SA's rate grew).
    """
    res = 0
    for x in json.loads(env.ctl("-j", "show", "sa", side=side)):
        if x["dir"] == "in" and (spi is None or x["spi"] == spi) and \
                (seg is None or str(x.get("segment")) == seg):
            res = max(res, x.get("sync_limit", 0) - x.get("seq_highest", 0))
    return res


def aa_replay(env, dead, surv, dseg, before, rows, t_kill):
    """
    The peers' ESP of the dead node's segment, captured before the kill, sent
    again into the survivor, which took the segment over: every packet
    dropped as a replay, none let through (with --cluster-sync: the window's
    floor at what the dead node may have accepted).
    """
    spis = {spi for (d, spi), v in before[dead].items() if d == "in" and str(v[0]) == dseg}
    old = [r for r in rows if r[1] == "in" and r[4] in spis and r[0] < t_kill]
    check(len(old) >= 100, "%d ESP packets of node %s's segment %s (SAs %s) captured before "
          "the kill" % (len(old), dead, dseg, ", ".join("0x%08x" % x for x in sorted(spis))))
    path = os.path.join(env.d, "esp-aa-replay.txt")
    with open(path, "w") as f:
        for r in old:
            f.write("%.6f %s %s %s %d %d %s\n" % r)

    def passed():
        now = carried(env, (surv,))[surv]
        return sum(now[("in", x)][2] for x in spis)
    replay0, pk0 = env.drops(surv, "replay"), passed()
    sh([sys.executable, os.path.join(HERE, "ha_sniff.py"), "replay", env.ifn("po"), path],
       ns=env.ns["P"])
    st.wait_progress(lambda: (env.drops(surv, "replay") - replay0) + (passed() - pk0),
                     lambda v: v >= len(old), 10, "the replayed packets at gateway %s" % surv)
    dropped, let = env.drops(surv, "replay") - replay0, passed() - pk0
    if env.sync_opt:
        check(dropped == len(old) and let == 0, "all %d replayed packets of segment %s "
              "dropped as replays by node %s (%d let through)" % (len(old), dseg, surv, let))
    else:
        log("NOT CHECKED (no --cluster-sync): of %d replayed packets node %s dropped %d as "
            "replays and let %d through" % (len(old), surv, dropped, let))


def run(env, body):
    """
    body(env) under the test's verdict: PASS, or FAIL with the nodes' logs;
    torn down either way.
    """
    try:
        if not env.sync_opt:
            log("NOTE: vecsec-gw has no --cluster-sync: the checks that need it are "
                "reported as NOT CHECKED")
        body(env)
        log("PASS [%.0f s]" % (time.monotonic() - T0))
        return 0
    except st.Fail as e:
        log("FAIL: %s" % e)
        env.dump_logs()
        return 1
    finally:
        env.close()
        log("[%.0f s] torn down" % (time.monotonic() - T0))


def main_ap(env):
    """Active/passive: one segment, the failovers, restarts and checks above."""

    env.topology()
    for s in ("A", "B"):
        env.gw_start(s)
    step("kernel-vecsec's warning: the ha plugin with the default SPI range")
    env.ctl("segment", "+1", side="A")
    env.node_start("A", spi_range=False)
    wait_for(lambda: "kernel-vecsec: HA segments active in vecsec-gw: none" in
             env.charon_log("A"), 20, what="kernel-vecsec A's first segment sync")
    check("the ha plugin is configured and charon.spi_min/spi_max are the defaults" in
          env.charon_log("A"), "charon A with the ha plugin and the default SPI range: "
          "kernel-vecsec warns at start")
    check(env.segments("A") == "none", "kernel-vecsec set gateway A's segments to the "
          "plugin's at start (none; segment 1 was active)")
    env.charon_stop("A")
    skip = len(env.charon_log("A"))

    step("two nodes, one segment: active/passive")
    for s in ("A", "B"):
        env.node_start(s)
    check("the ha plugin is configured and" not in env.charon_log("A")[skip:] and
          "the ha plugin is configured and" not in env.charon_log("B"),
          "no SPI range warning with per-node ranges")

    def one_active():
        seg = {s: env.segments(s) for s in ("A", "B")}
        cs = {s: env.charon_segments(s) for s in ("A", "B")}
        return seg == cs and sorted(seg.values()) == ["1", "none"] and seg
    segs = wait_for(one_active, 30, step=0.2, what="one node with segment 1, in charon "
                   "and gateway alike")
    active = "A" if segs["A"] == "1" else "B"
    standby = "B" if active == "A" else "A"
    check(True, "node %s has segment 1 (charon and gateway), node %s none" % (
        active, standby))
    check("kernel-vecsec: HA segments active in vecsec-gw: 1" in env.charon_log(active),
          "node %s's kernel-vecsec followed the plugin's log line" % active)

    # each node asks the other for a resync 1 s after its start; an IKE_SA set up
    # before both have answered comes back to its own node as a second, passive copy
    wait_for(lambda: resync_settled(env, {"A": skip}), 20,
             what="both nodes to have answered the other's resync request")
    env.charon_start("P", "P", st.plugin_conf_libipsec())
    env.swanctl_load("P", peer_conf())
    env.swanctl("P", "--initiate", "--child", "net10")
    c = [x for x in env.child_sas("P") if x["state"] == "INSTALLED"]
    check(len(c) == 1, "the peer's CHILD_SA is up")
    env.spi_in = c[0]["spi_out"]        # the cluster's inbound SA
    env.spi_out = c[0]["spi_in"]
    wait_for(lambda: env.ike_states(standby) == ["PASSIVE"], 20,
             what="node %s to hold the IKE_SA as PASSIVE" % standby)
    check(env.ike_states(active) == ["ESTABLISHED"], "IKE_SA ESTABLISHED on node %s, "
          "PASSIVE on node %s" % (active, standby))
    want = {("in", env.spi_in), ("out", env.spi_out)}
    wait_for(lambda: env.gw_spis(standby) == want, 20,
             what="gateway %s to hold the CHILD_SA too" % standby)
    check(env.gw_spis(active) == want and SPIS[active][0] <= env.spi_in <=
          SPIS[active][1], "both gateways hold SAs in 0x%08x / out 0x%08x (from node "
          "%s's SPI range)" % (env.spi_in, env.spi_out, active))
    check("installed HA CHILD_SA" in env.charon_log(standby),
          "node %s: charon installed the HA CHILD_SA through kernel-vecsec "
          "(add_sa without get_spi)" % standby)
    sa = env.sa_show(standby, "in", env.spi_in)
    check(sa.get("segment_state") == "standby", "gateway %s shows it standby" % standby)

    step("traffic through node %s" % active)
    env.check_traffic([("P", "L", LAN, 5201, PEER_NET), ("L", "P", PEER_NET, 5202)],
                      rate=300, count=300, warm=True, settle=SETTLE,
                      what="traffic through the active node")
    check(env.sa_show(standby, "in", env.spi_in)["packets"] == 0,
          "node %s's gateway carried none of it" % standby)

    step("failover 1: node %s killed" % active)
    m1, _ = failover(env, active, "failover 1", dpd=True)
    survivor, other = standby, active

    step("node %s returns" % other)
    node_return(env, other, survivor, want)

    step("standby gateway restart (node %s)" % other)
    before = env.sas()
    env.gw_stop(side=other)
    # started with segment 1 active (as if misconfigured): kernel-vecsec sets charon's
    env.gw_start(other, segs="1")
    wait_for(lambda: env.segments(other) == "none", 20,
             what="kernel-vecsec to set restarted gateway %s's segments" % other)
    check(True, "restarted gateway %s (started with segment 1 active) got charon's set "
          "from kernel-vecsec on reconnection: none" % other)
    consistent(env, "after gateway %s's restart" % other, same=before)

    step("charon restart on the standby node (%s)" % other)
    env.charon_stop(other)
    check(env.segments(other) == "none", "gateway %s carries no segment after its "
          "charon stopped" % other)
    env.node_start(other)
    consistent(env, "after charon %s's restart" % other, changed=before)

    step("charon restart on the active node (%s): a graceful handover" % survivor)
    before = env.sas()
    slog = len(env.charon_log(other))
    env.charon_stop(survivor)
    wait_for(lambda: env.segments(other) == "1" and env.segments(survivor) == "none",
             20, what="node %s to take segment 1 from the stopping node" % other)
    check("HA segment 1 activated" in env.charon_log(other)[slog:],
          "charon %s dropped its segments at shutdown, node %s took them (charon and "
          "gateway), gateway %s carries none" % (survivor, other, survivor))
    env.node_start(survivor)
    wait_for(lambda: env.segments(survivor) == "none" and env.segments(other) == "1", 20,
             what="the restarted node to stay passive")
    consistent(env, "after charon %s's restart" % survivor, changed=before)
    survivor, other = other, survivor

    # (the traffic through the active node before each failover below shows that the
    # restarts left a working path)
    step("failover 2: the charon of node %s killed, its gateway alive" % survivor)
    before = env.sas()
    m2, _ = failover(env, survivor, "failover 2", kill="charon")
    env.node_start(survivor)
    wait_for(lambda: env.segments(survivor) == "none" and env.segments(other) == "1", 20,
             what="node %s's new charon to stay passive" % survivor)
    consistent(env, "after charon %s's return" % survivor, changed=before)
    survivor, other = other, survivor

    step("both gateways killed: node %s's (standby), then node %s's (active)" % (
        other, survivor))
    both_gateways_dead(env, survivor, other)

    step("failover 3: the gateway of node %s killed, its charon alive" % survivor)
    before = env.sas()
    m3, _ = failover(env, survivor, "failover 3", kill="gateway")
    env.gw_start(survivor)
    wait_for(lambda: env.segments(survivor) == "none" and env.segments(other) == "1" and
             env.charon_segments(survivor) == "none", 20,
             what="node %s's new gateway to stay passive" % survivor)
    consistent(env, "after gateway %s's return" % survivor, same=before)
    survivor, other = other, survivor

    # node `other` runs a restarted gateway whose SAs kernel-vecsec installed again
    # as standby SAs: it must carry the tunnel in both directions when it takes over
    step("failover 4: node %s killed, node %s (its gateway restarted, standby SAs "
         "installed again) takes over; its ESP replayed into node %s" % (
             survivor, other, other))
    replay_check(env, survivor, other)

    log("\nmeasurements (rate %d/s per flow, heartbeat delay %d ms, timeout %d ms):" % (
        RATE, HB_DELAY, HB_TIMEOUT))
    for n, m in (("failover 1", m1), ("failover 2 (charon only)", m2),
                 ("failover 3 (gateway only)", m3)):
        log("  %s: kill -> first datagram through the new node %.2f s; detection -> "
            "first %s s; detection -> gateway segment (as polled) %s s; peer -> inside lost %d" % (
                n, m["kill_to_first"], "%.3f" % m["detect_to_first"]
                if m["detect_to_first"] is not None else "?",
                "%.2f" % m["detect_to_segment"] if m["detect_to_segment"] is not None
                else "?", m["lost"]))


def main():
    if len(sys.argv) > 2 and sys.argv[2] == "active-active":
        pick = {1: [], 2: []}
        for n in range(10, 60):
            a = "10.80.0.%d" % n
            if len(pick[seg(a)]) < 2:
                pick[seg(a)].append(a)
        return run(Cluster(sys.argv[1], 2, pick[2][:1] + pick[1][:1] + pick[2][1:] +
                           pick[1][1:]), main_aa)
    return run(Cluster(sys.argv[1]), main_ap)


if __name__ == "__main__":
    sys.exit(main())
