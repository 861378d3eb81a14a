# SPDX-License-Identifier: BSD-3-Clause
"""
Harness of the strongSwan tests (test/swan/): network namespaces, vecsec-gw
with its exception path, charon instances, numbered UDP traffic.

    hA --veth-- gA [vecsec-gw + charon/kernel-vecsec] --veth(wire)-- gB [charon/kernel-libipsec] --veth-- hB

gA's gateway owns the veth ends la1 (LAN, port 0) and wa1 (wire, port 1)
through net_af_packet; its ports 2 and 3 are net_tap interfaces t0/t1, the
host's side of ports 0 and 1 (--host-port 0:2 --host-port 1:3), which
carry gA's own addresses: charon A's IKE goes through them unchanged. gB
is a plain Linux host whose charon does ESP in userspace (kernel-libipsec,
which forces UDP encapsulation). charon A's NAT-T socket is on 4501, so
the gateway's per-SA UDP ports and its registered NAT-T port are used.

On a loaded machine (other builds on every core, the sanitizer build) a
gateway's worker may not be scheduled for seconds. The harness makes that a
delay, not a loss: large af_packet rx rings (RING), charon B's UDP socket
and TUN queue enlarged (kernel-libipsec does ESP through them), receivers
that wait for late datagrams, a probe through each path before its first
traffic is counted (warm). A flow that still loses a packet says where:
the counters of every hop before and after (loss_report: interfaces,
neighbour tables, IP/UDP drops per namespace, the gateway's ports and
drops, its af_packet rings' drops, which no ethdev counter has).

Every name carries a prefix unique to the process; everything is removed
at exit, also after a failure or a signal. Addresses are made up and
private (10.77/16, fd77::/16). Processes are stopped by their own pids.
"""
import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CHARON = "/usr/lib/ipsec/charon"
PSK = "made-up-test-psk-for-vecsec-0123456789"


# Frames in each af_packet rx ring of a gateway's veth port (DPDK's default
# is 512). On a loaded machine, the sanitizer build above all, a gateway
# worker may not run for seconds (seen: 5 s, the ring full after 0.4 s of
# the tests' traffic); the kernel then drops what the ring has no room for,
# and af_packet counts it in no ethdev counter (ring_drops() reads it).
# 8192 frames hold a few seconds of every flow at once of the tests.
RING = 8192
SOL_PACKET, PACKET_STATISTICS = 263, 6
# the kernel's counters of packets it dropped on the way (hop_counters)
SNMP_DROPS = {"Ip": ("InHdrErrors", "InAddrErrors", "InDiscards", "OutDiscards",
                     "OutNoRoutes"),
              "Udp": ("InErrors", "RcvbufErrors", "NoPorts")}
SNMP6_DROPS = ("Ip6InHdrErrors", "Ip6InNoRoutes", "Ip6InAddrErrors", "Ip6InDiscards",
               "Ip6OutDiscards", "Ip6OutNoRoutes", "Udp6InErrors", "Udp6RcvbufErrors",
               "Udp6NoPorts")


def log(msg):
    print(msg, flush=True)


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)
    log("ok   " + msg)


def sanitizer_libs(so):
    """The ASan/UBSan runtimes the shared object so needs (none for a plain build)."""
    out = subprocess.run(["ldd", so], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         universal_newlines=True).stdout
    return [l.split()[2] for l in out.splitlines()
            if re.match(r"\s*lib(asan|ubsan)\.so", l) and len(l.split()) > 2]


def wait_for(pred, timeout, step=0.1, what="condition"):
    """Poll pred until it returns a true value (returned) or timeout (Fail)."""
    end = time.time() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.time() > end:
            raise Fail("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(step)


def wait_progress(value, done, stall, what, where=None, step=1.0):
    """
    Poll value() until done(v) holds (v returned). A slow machine only makes
    it take longer: it fails (Fail) only once value() stayed the same for
    stall seconds, saying where it stopped and since when, with where()'s
    text (the state of whatever should have moved it on).
    """
    t0 = time.time()
    last, since = None, t0
    while True:
        v = value()
        if done(v):
            return v
        now = time.time()
        if v != last:
            last, since = v, now
        elif now - since > stall:
            raise Fail("waiting for %s: stuck at %s for %.0f s (%.0f s in all)%s" % (
                what, v, now - since, now - t0, "\n" + where() if where else ""))
        time.sleep(step)


def sh(cmd, check_rc=True, timeout=60, ns=None, input=None):
    """Run cmd (a list) in namespace ns; returns stdout (stderr merged)."""
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=timeout, input=input)
    if check_rc and p.returncode != 0:
        raise Fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stdout.strip()[-2000:]))
    return p.stdout


class Env:
    """The namespaces, the gateway, the charons; torn down by close()."""

    def __init__(self, build, tag):
        self.build = build
        self.gwbin = os.path.join(build, "apps", "vecsec-gw", "vecsec-gw")
        self.ctlbin = os.path.join(build, "apps", "vecsec-ctl", "vecsec-ctl")
        self.plugin = os.path.join(build, "drivers", "strongswan",
                                   "libstrongswan-kernel-vecsec.so")
        for f in (self.gwbin, self.ctlbin, self.plugin, CHARON):
            if not os.path.exists(f):
                raise Fail("missing %s" % f)
        self.san_libs = sanitizer_libs(self.plugin)
        self.p = "%s%d" % (tag, os.getpid() % 100000)
        # the scratch folder lies in the build tree: charon's /run is bound on it
        self.d = tempfile.mkdtemp(prefix="swan-%s-" % self.p, dir=build)
        os.chmod(self.d, 0o700)
        self.ns = {k: self.p + k for k in ("hA", "gA", "gB", "hB")}
        self.sock = os.path.join(self.d, "gwA.sock")
        self.gws = {}
        self.procs = []
        self.made_ns = []
        self.gw = None
        self.closed = False
        atexit.register(self.close)
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, self._on_signal)

    def _on_signal(self, sig, frame):
        self.close()
        sys.exit(128 + sig)

    def ifn(self, name):
        return (self.p + name)[:15]

    # ---- topology ------------------------------------------------------

    def topology(self, peer="libipsec"):
        """
        The four namespaces. peer="vecsec": gB is a second vecsec-gw (its
        veth ends DPDK's, its addresses on its taps), not a Linux router.
        """
        ns = self.ns
        self.peer = peer
        for n in ns.values():
            sh(["ip", "netns", "add", n])
            self.made_ns.append(n)
            sh(["ip", "link", "set", "lo", "up"], ns=n)
        la0, la1, wa1, wb1, lb1, lb0 = (self.ifn(x) for x in
                                        ("la0", "la1", "wa1", "wb1", "lb1", "lb0"))
        self.la1, self.wa1, self.wb1, self.lb1 = la1, wa1, wb1, lb1
        sh(["ip", "link", "add", la0, "netns", ns["hA"], "type", "veth", "peer", "name", la1,
            "netns", ns["gA"]])
        sh(["ip", "link", "add", wa1, "netns", ns["gA"], "type", "veth", "peer", "name", wb1,
            "netns", ns["gB"]])
        sh(["ip", "link", "add", lb1, "netns", ns["gB"], "type", "veth", "peer", "name", lb0,
            "netns", ns["hB"]])
        # a gateway's veth ends belong to DPDK: no addresses, no IPv6 of the kernel's own
        dpdk = [(ns["gA"], la1), (ns["gA"], wa1)]
        if peer == "vecsec":
            dpdk += [(ns["gB"], wb1), (ns["gB"], lb1)]
        self.dpdk_ifs = dpdk
        for n, i in dpdk:
            sh(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % i], ns=n)
            sh(["ip", "link", "set", i, "up"], ns=n)
        # frames that reach DPDK through af_packet must carry real checksums
        for n, i in ((ns["hA"], la0), (ns["gB"], wb1), (ns["gB"], lb1), (ns["hB"], lb0),
                     (ns["gA"], la1), (ns["gA"], wa1)):
            sh(["ethtool", "-K", i, "tx", "off"], ns=n)
        self.mac_la0 = self._mac(ns["hA"], la0)
        self.mac_wa1 = self._mac(ns["gA"], wa1)
        self.mac_wb1 = self._mac(ns["gB"], wb1)
        self.mac_lb0 = self._mac(ns["hB"], lb0)
        addrs = [(ns["hA"], la0, ["10.77.1.1/24", "fd77:1::1/64"]),
                 (ns["hB"], lb0, ["10.77.2.1/24", "fd77:2::1/64"])]
        if peer != "vecsec":
            addrs += [(ns["gB"], wb1, ["10.77.0.2/24", "fd77::2/64"]),
                      (ns["gB"], lb1, ["10.77.2.254/24", "fd77:2::fe/64"])]
        for n, i, al in addrs:
            for a in al:
                sh(["ip", "addr", "add", a, "dev", i, "nodad"], ns=n)
            sh(["ip", "link", "set", i, "up"], ns=n)
        sh(["ip", "route", "add", "default", "via", "10.77.1.254"], ns=ns["hA"])
        sh(["ip", "-6", "route", "add", "default", "via", "fd77:1::fe"], ns=ns["hA"])
        sh(["ip", "route", "add", "default", "via", "10.77.2.254"], ns=ns["hB"])
        sh(["ip", "-6", "route", "add", "default", "via", "fd77:2::fe"], ns=ns["hB"])
        if peer != "vecsec":
            sh(["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"], ns=ns["gB"])
            sh(["sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1"], ns=ns["gB"])

    def topology_pair(self):
        """
        Two hosts on one link, no gateway: sA 10.78.0.1 --veth-- sB 10.78.0.2,
        with 10.78.1.1 and 10.78.2.1 on their lo (the protected subnets).
        """
        for k in ("sA", "sB"):
            n = self.p + k
            self.ns[k] = n
            sh(["ip", "netns", "add", n])
            self.made_ns.append(n)
            sh(["ip", "link", "set", "lo", "up"], ns=n)
        a, b = self.ifn("pa"), self.ifn("pb")
        sh(["ip", "link", "add", a, "netns", self.ns["sA"], "type", "veth", "peer", "name", b,
            "netns", self.ns["sB"]])
        for k, i, addr, net in (("sA", a, "10.78.0.1/24", "10.78.1.1/32"),
                                ("sB", b, "10.78.0.2/24", "10.78.2.1/32")):
            sh(["ip", "addr", "add", addr, "dev", i], ns=self.ns[k])
            sh(["ip", "addr", "add", net, "dev", "lo"], ns=self.ns[k])
            sh(["ip", "link", "set", i, "up"], ns=self.ns[k])

    def _mac(self, ns, ifname):
        out = sh(["ip", "-o", "link", "show", ifname], ns=ns)
        return re.search(r"link/ether ([0-9a-f:]{17})", out).group(1)

    def add_addr(self, ns_key, ifkey, addr):
        sh(["ip", "addr", "add", addr, "dev", self.ifn(ifkey), "nodad"], ns=self.ns[ns_key])

    # ---- the gateways -----------------------------------------------------

    # per side: namespace, LAN and wire veth ends, own addresses (wire, LAN), the
    # routes of its LAN and the wire, and its neighbours (LAN host, wire peer)
    SIDES = {
        "A": ("gA", "la1", "wa1", ("10.77.0.1/24", "fd77::1/64"),
              ("10.77.1.254/24", "fd77:1::fe/64"), ("10.77.1.0/24", "fd77:1::/64"),
              "mac_la0", "mac_wb1", "0"),
        "B": ("gB", "lb1", "wb1", ("10.77.0.2/24", "fd77::2/64"),
              ("10.77.2.254/24", "fd77:2::fe/64"), ("10.77.2.0/24", "fd77:2::/64"),
              "mac_lb0", "mac_wa1", "1"),
    }

    def sock_of(self, side):
        return os.path.join(self.d, "gw%s.sock" % side)

    def gw_config(self, extra_rt=(), side="A"):
        sd = self.SIDES[side]
        rt = ["rt ipv4 dst 10.77.0.0/24 port 1", "rt ipv6 dst fd77::/64 port 1",
              "rt ipv4 dst %s port 0" % sd[5][0], "rt ipv6 dst %s port 0" % sd[5][1]]
        rt += list(extra_rt)
        rt += ["neigh port 0 %s" % getattr(self, sd[6]), "neigh port 1 %s" % getattr(self, sd[7])]
        path = os.path.join(self.d, "gw%s.cfg" % side)
        with open(path, "w") as f:
            f.write("\n".join(rt) + "\n")
        return path

    def gw_start(self, extra_rt=(), wait_addrs=True, side="A", args=()):
        sd = self.SIDES[side]
        sock = self.sock_of(side)
        cfg = self.gw_config(extra_rt, side)
        t0, t1 = self.ifn("t0" + side), self.ifn("t1" + side)
        cmd = ["ip", "netns", "exec", self.ns[sd[0]], self.gwbin, "-l", sd[8], "--no-pci",
               "--no-huge", "-m", "512", "--no-shconf", "--no-telemetry",
               "--file-prefix", "gw%s%s" % (side, self.p), "--log-level", "*:warning",
               "--vdev", "net_af_packet0,iface=%s,framecnt=%d" % (self.ifn(sd[1]), RING),
               "--vdev", "net_af_packet1,iface=%s,framecnt=%d" % (self.ifn(sd[2]), RING),
               "--vdev", "net_tap0,iface=%s" % t0,
               "--vdev", "net_tap1,iface=%s" % t1,
               "--", "-f", cfg, "-u", "0x2", "--ctrl", sock,
               "--host-port", "0:2", "--host-port", "1:3",
               # its own marks, in the test's folder (charon's SAs are not kept anyway)
               "--seq-state", os.path.join(self.d, "gw%s.seq-state" % side)] + list(args)
        log_name = "gw.log" if side == "A" else "gw%s.log" % side
        glog = open(os.path.join(self.d, log_name), "a")
        glog.write("== start: %s\n" % " ".join(cmd))
        glog.flush()
        gw = subprocess.Popen(cmd, stdout=glog, stderr=subprocess.STDOUT)
        self.procs.append(gw)
        self.gws[side] = gw
        if side == "A":
            self.gw = gw

        def up():
            if gw.poll() is not None:
                raise Fail("vecsec-gw %s exited with %s: %s" % (side, gw.returncode,
                                                               self.tail(log_name)))
            return os.path.exists(sock) and self.ctl("hello", check_rc=False, side=side) \
                .startswith("version")
        wait_for(up, 60, what="vecsec-gw %s's control socket" % side)
        for i, al in ((t1, sd[3]), (t0, sd[4])):
            for a in al:
                sh(["ip", "addr", "add", a, "dev", i, "nodad"], ns=self.ns[sd[0]],
                   check_rc=False)
        if wait_addrs:
            want = [a.split("/")[0] for a in sd[3] + sd[4]]
            wait_for(lambda: all(a in self.ctl("host", side=side) for a in want),
                     10, what="gateway %s to learn its own addresses" % side)

    def gw_stop(self, sig=signal.SIGTERM, side="A"):
        gw = self.gws.get(side)
        if gw and gw.poll() is None:
            gw.send_signal(sig)
            try:
                gw.wait(30)
            except subprocess.TimeoutExpired:
                gw.kill()
                gw.wait()
        self.gws[side] = None
        if side == "A":
            self.gw = None

    def ctl(self, *words, check_rc=True, stdin=None, side="A"):
        p = subprocess.run([self.ctlbin, "-s", self.sock_of(side)] + list(words), input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=60)
        if check_rc and p.returncode != 0:
            raise Fail("vecsec-ctl %s: %s" % (" ".join(words), p.stdout.strip()))
        return p.stdout

    def gw_sas(self, owner="test", side="A"):
        """{(dir, spi)} of the gateway's SAs of owner."""
        out = self.ctl("list", side=side)
        return {(m.group(1), int(m.group(2))) for m in
                re.finditer(r"^sa (in|out) (\d+) .*owner %s" % owner, out, re.M)}

    def gw_sps(self, owner="test", side="A"):
        return [l for l in self.ctl("list", side=side).splitlines()
                if l.startswith("sp ") and ("owner %s" % owner) in l]

    # ---- charon ------------------------------------------------------------

    def charon_conf(self, name, plugin_conf, extra=""):
        d = os.path.join(self.d, name)
        os.makedirs(os.path.join(d, "run"), exist_ok=True)
        os.makedirs(os.path.join(d, "swanctl"), exist_ok=True)
        for sub in ("x509", "x509ca", "x509aa", "x509ocsp", "x509ac", "x509crl", "pubkey",
                    "private", "rsa", "ecdsa", "bliss", "pkcs8", "pkcs12"):
            os.makedirs(os.path.join(d, "swanctl", sub), exist_ok=True)
        conf = os.path.join(d, "strongswan.conf")
        with open(conf, "w") as f:
            f.write("""charon {
    load_modular = no
    dlopen_use_rtld_now = yes
    %(plugin_conf)s
    retransmit_timeout = 1.0
    retransmit_base = 1.4
    retransmit_tries = 4
    delete_rekeyed_delay = 2
    filelog {
        main {
            path = %(d)s/charon.log
            time_format = %%H:%%M:%%S
            append = yes
            default = 1
            knl = 2
            lib = 2
            flush_line = yes
        }
    }
    plugins {
        vici {
            socket = unix://%(d)s/charon.vici
        }
    }
%(extra)s
}
swanctl {
    socket = unix://%(d)s/charon.vici
}
""" % {"plugin_conf": plugin_conf, "d": d, "extra": extra})
        return d, conf

    def charon_start(self, name, ns_key, plugin_conf, extra="", preload=False, wait=True):
        d, conf = self.charon_conf(name, plugin_conf, extra)
        vici = os.path.join(d, "charon.vici")
        pidf = os.path.join(d, "run", "charon.pid")
        for f in (vici, pidf):
            if os.path.exists(f):
                os.unlink(f)
        env = "STRONGSWAN_CONF=%s" % conf
        if preload:
            # a sanitizer-built plugin (scripts/test.sh's build-asan) needs its
            # runtimes first in charon, which is not instrumented; LeakSanitizer
            # off there: what charon leaves at exit is strongSwan's
            env += " LD_PRELOAD=%s" % ":".join(self.san_libs + [self.plugin])
            if self.san_libs:
                env += " ASAN_OPTIONS=%s" % ":".join(
                    [o for o in [os.environ.get("ASAN_OPTIONS", "")] if o] + ["detect_leaks=0"])
        out = open(os.path.join(d, "charon.stdout"), "a")
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[ns_key], "sh", "-c",
                              "mount --bind %s/run /run && %s exec %s" % (d, env, CHARON)],
                             stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        setattr(self, "charon_" + name, p)
        if wait:
            def up():
                if p.poll() is not None:
                    raise Fail("charon %s exited with %s: %s" % (
                        name, p.returncode, self.tail(os.path.join(name, "charon.log"))))
                return os.path.exists(vici) and os.path.exists(pidf)
            wait_for(up, 30, what="charon %s" % name)
            if "libipsec" in plugin_conf:
                self.libipsec_buffers(p.pid, name, self.ns[ns_key])
        return p

    def libipsec_buffers(self, pid, name, ns):
        """
        kernel-libipsec does ESP in charon: every ESP packet goes through
        charon's UDP socket (rmem_default: some 200 packets; charon has no
        option for it, and net.core.rmem_* is not per namespace) and its TUN
        device. A gateway that was not scheduled for a moment sends what its
        rings held at once, more than that socket holds: RcvbufErrors. Give
        its UDP sockets 16 MiB (SO_RCVBUFFORCE on the socket itself) and the
        TUN a long queue.
        """
        n = [0]

        def big(so, row):
            so.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)      # SO_RCVBUFFORCE
            n[0] += 1
        wait_for(lambda: os.path.exists("/proc/%d/net/udp" % pid), 10, what="charon's /proc")
        self._sockets(pid, ["udp", "udp6"], big)
        if n[0] == 0:
            raise Fail("charon %s: no UDP socket to enlarge" % name)
        for l in sh(["ip", "-o", "link", "show", "type", "tun"], ns=ns, check_rc=False).splitlines():
            m = re.match(r"\d+: ([^:@]+)", l)
            if m:
                sh(["ip", "link", "set", m.group(1), "txqueuelen", "10000"], ns=ns)

    def charon_stop(self, name, sig=signal.SIGTERM):
        p = getattr(self, "charon_" + name, None)
        if p and p.poll() is None:
            p.send_signal(sig)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def swanctl(self, name, *args, check_rc=True, timeout=120):
        d = os.path.join(self.d, name)
        env = dict(os.environ, STRONGSWAN_CONF=os.path.join(d, "strongswan.conf"))
        p = subprocess.run(["swanctl"] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, env=env,
                           timeout=timeout)
        if check_rc and p.returncode != 0:
            raise Fail("swanctl %s (%s): exit %d: %s" % (" ".join(args), name, p.returncode,
                                                         p.stdout.strip()[-3000:]))
        return p.stdout

    def swanctl_load(self, name, text):
        d = os.path.join(self.d, name)
        path = os.path.join(d, "swanctl", "swanctl.conf")
        with open(path, "w") as f:
            f.write(text)
        return self.swanctl(name, "--load-all", "--file", path)

    def child_sas(self, name):
        """
        CHILD_SAs as swanctl --list-sas shows them: [{"name", "state", "spi_in",
        "spi_out", "bytes_in", "packets_in", "bytes_out", "packets_out", "proposal"}].
        """
        out = self.swanctl(name, "--list-sas")
        res, cur = [], None
        for line in out.splitlines():
            m = re.match(r"\s+(\S+): #(\d+), reqid (\d+), (\w+), (\S+), (\S+)", line)
            if m:
                cur = {"name": m.group(1), "id": int(m.group(2)), "state": m.group(4),
                       "mode": m.group(5), "proposal": m.group(6)}
                res.append(cur)
                continue
            m = re.match(r"\s+(in|out)\s+([0-9a-f]{8})(?: \(-\|0x[0-9a-f]+\))?,\s+(\d+) bytes,"
                         r"\s+(\d+) packets", line)
            if m and cur is not None:
                d = m.group(1)
                cur["spi_" + d] = int(m.group(2), 16)
                cur["bytes_" + d] = int(m.group(3))
                cur["packets_" + d] = int(m.group(4))
        return res

    def ike_state(self, name):
        """
        One line on charon name: running or not, its IKE_SAs (state, CHILD_SAs
        by state, CHILD_SA exchanges queued and under way), its log's size.
        """
        p = getattr(self, "charon_" + name, None)
        if p is None or p.poll() is not None:
            run = "not running (exit %s)" % (p.returncode if p else "-")
        else:
            run = "running"
        try:
            out = self.swanctl(name, "--list-sas", check_rc=False, timeout=30)
        except subprocess.TimeoutExpired:
            out = "(swanctl --list-sas timed out)"
        ikes = re.findall(r"^(\S+): #\d+, (\w+), IKEv2", out, re.M)
        states = {}
        for st in re.findall(r"^\s+\S+: #\d+, reqid \d+, (\w+),", out, re.M):
            states[st] = states.get(st, 0) + 1
        queued = sum(l.count("CHILD_CREATE") for l in out.splitlines()
                     if l.strip().startswith("queued:"))
        active = sum(l.count("CHILD_CREATE") for l in out.splitlines()
                     if l.strip().startswith("active:"))
        try:
            size = os.path.getsize(os.path.join(self.d, name, "charon.log"))
        except OSError:
            size = -1
        return "charon %s %s; IKE_SAs %s; CHILD_SAs %s; CHILD_CREATE queued %d, active %d; " \
            "charon.log %d bytes" % (name, run, ikes or "none", states or "none", queued,
                                     active, size)

    def charon_log(self, name):
        try:
            with open(os.path.join(self.d, name, "charon.log")) as f:
                return f.read()
        except OSError:
            return ""

    def tail(self, rel, n=40):
        try:
            with open(os.path.join(self.d, rel)) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return "(no %s)" % rel

    # ---- where packets go: counters on every hop ----------------------------

    def _sockets(self, pid, tables, fn):
        """
        fn(socket, row) for each socket of process pid listed in its
        namespace's /proc/net/<table>s (row: that line's fields), on a
        duplicate of its descriptor (pidfd_getfd: the socket itself).
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        rows = {}
        try:
            for t in tables:
                with open("/proc/%d/net/%s" % (pid, t)) as f:
                    lines = f.readlines()[1:]
                col = 8 if t == "packet" else 9     # the inode
                for l in lines:
                    x = l.split()
                    if len(x) > col:
                        rows[x[col]] = x
            pidfd = os.pidfd_open(pid)
        except OSError:
            return
        try:
            for fd in os.listdir("/proc/%d/fd" % pid):
                try:
                    m = re.match(r"socket:\[(\d+)\]", os.readlink("/proc/%d/fd/%s" % (pid, fd)))
                except OSError:
                    continue
                if not m or m.group(1) not in rows:
                    continue
                mine = libc.syscall(438, pidfd, int(fd), 0)    # pidfd_getfd
                if mine < 0:
                    continue
                so = socket.socket(fileno=mine)
                try:
                    fn(so, rows[m.group(1)])
                except OSError:
                    pass
                finally:
                    so.close()
        finally:
            os.close(pidfd)

    def ring_drops(self, side="A"):
        """
        {interface: frames dropped} of gateway side's af_packet rx rings since
        the start: PACKET_STATISTICS of its packet sockets, read through
        pidfd_getfd (the kernel resets them on each read: summed here).
        """
        gw = self.gws.get(side)
        acc = self.__dict__.setdefault("_ring_drops", {})
        if gw is None or gw.poll() is not None:
            return dict(acc)
        names = {}
        for l in sh(["ip", "-o", "link", "show"], ns=self.ns[self.SIDES[side][0]],
                    check_rc=False).splitlines():
            m = re.match(r"(\d+): ([^:@]+)", l)
            if m:
                names[m.group(1)] = m.group(2)

        def add(so, row):
            st = so.getsockopt(SOL_PACKET, PACKET_STATISTICS, 12)
            name = names.get(row[4], row[4])
            acc[name] = acc.get(name, 0) + int.from_bytes(st[4:8], "little")
        self._sockets(gw.pid, ["packet"], add)
        return dict(acc)

    def hop_counters(self):
        """
        Everything that counts a packet on its way, as {name: value}: each
        namespace's interfaces (ip -s link: packets, dropped), its UDP
        receive errors (/proc/net/snmp), the gateway's ports (rx, tx and
        what their driver dropped), its drops by reason, and its af_packet
        rings' drops.
        """
        c = {}
        for k, ns in self.ns.items():
            try:
                links = json.loads(sh(["ip", "-s", "-j", "link", "show"], ns=ns,
                                      check_rc=False) or "[]")
            except ValueError:
                links = []
            for l in links:
                st64 = l.get("stats64", {})
                for d in ("rx", "tx"):
                    for f in ("packets", "dropped", "errors"):
                        c["%s %s %s_%s" % (k, l["ifname"], d, f)] = st64.get(d, {}).get(f, 0)
            # packets queued for a neighbour that never answered (or answered late)
            for t in ("arp_cache", "ndisc_cache"):
                rows = sh(["cat", "/proc/net/stat/" + t], ns=ns, check_rc=False).split("\n")
                if len(rows) > 1 and "unresolved_discards" in rows[0]:
                    i = rows[0].split().index("unresolved_discards")
                    c["%s %s unresolved_discards" % (k, t)] = sum(
                        int(r.split()[i], 16) for r in rows[1:] if len(r.split()) > i)
            # IP and UDP drops, IPv4 (snmp: name lines and value lines) and IPv6
            # (snmp6); not where a gateway owns the veths: that kernel drops its
            # copy of each frame the gateway takes (no address there)
            if any(n == ns for n, _ in getattr(self, "dpdk_ifs", ())):
                continue
            snmp = sh(["cat", "/proc/net/snmp"], ns=ns, check_rc=False).splitlines()
            for i in range(0, len(snmp) - 1, 2):
                for n, v in zip(snmp[i].split()[1:], snmp[i + 1].split()[1:]):
                    if n in SNMP_DROPS.get(snmp[i].split(":")[0], ()):
                        c["%s %s %s" % (k, snmp[i].split(":")[0].lower(), n)] = int(v)
            for l in sh(["cat", "/proc/net/snmp6"], ns=ns, check_rc=False).splitlines():
                x = l.split()
                if len(x) == 2 and x[0] in SNMP6_DROPS:
                    c["%s %s" % (k, x[0])] = int(x[1])
        for side, gw in self.gws.items():
            if gw is None or gw.poll() is not None:
                continue
            try:
                j = json.loads(self.ctl("-j", "stats", check_rc=False, side=side))
            except ValueError:
                continue
            for p in j.get("ports", {}).values():
                for f in ("rx", "tx", "imissed", "rx_nombuf", "ierrors", "oerrors"):
                    c["gw%s port%d %s" % (side, p["port"], f)] = p.get(f, 0)
            for r, v in j.get("drops", {}).items():
                c["gw%s drop %s" % (side, r)] = v
            for ifn, v in self.ring_drops(side).items():
                c["gw%s af_packet ring %s dropped" % (side, ifn)] = v
        return c

    def loss_report(self, before, after):
        """The counters that moved between two hop_counters(): packets, then drops."""
        d = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
        drops = {k: v for k, v in d.items() if re.search(
            r"dropped|errors|Errors|drop |imissed|nombuf|NoPorts|NoRoutes|Discards|discards",
            k)}
        pk = {k: v for k, v in d.items() if k not in drops}
        return "counters during the traffic (hops in order hA, gA: gateway, gB, hB):\n  " + \
            "\n  ".join("%s +%d" % kv for kv in sorted(pk.items())) + \
            "\n  drops: " + (", ".join("%s +%d" % kv for kv in sorted(drops.items())) or
                              "none counted anywhere (a receiver that gave up too early?)")

    def stall_gateway(self, after, seconds, side="A"):
        """
        In a thread: after `after` s, stop gateway side (SIGSTOP) for `seconds`,
        as a loaded machine does to a worker it does not schedule; then SIGCONT.
        Returns the thread (join it).
        """
        import threading
        gw = self.gws[side]

        def run():
            time.sleep(after)
            try:
                os.kill(gw.pid, signal.SIGSTOP)
                time.sleep(seconds)
            finally:
                os.kill(gw.pid, signal.SIGCONT)
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t

    # ---- traffic -------------------------------------------------------------

    def warm(self, specs, timeout=30):
        """
        Before the first traffic of a path is counted: a probe datagram on
        each flow's path (its port + 100: the same SA, another socket), 20 a
        second until one arrived, so that what a first packet sets off
        (neighbour discovery, a peer finishing its SA and routes) is over.
        """
        recvs, sends = [], []
        for s, dst_ns, addr, port in (sp[:4] for sp in specs):
            r = subprocess.Popen(["ip", "netns", "exec", self.ns[dst_ns], sys.executable,
                                  os.path.join(HERE, "udpflow.py"), "probe",
                                  "::" if ":" in addr else "0.0.0.0", str(port + 100),
                                  str(timeout)], stdout=subprocess.PIPE,
                                 universal_newlines=True)
            self.procs.append(r)
            if not r.stdout.readline().startswith("ready"):
                raise Fail("udp probe receiver did not start")
            recvs.append(r)
        for spec in specs:
            s, dst_ns, addr, port = spec[:4]
            p = subprocess.Popen(["ip", "netns", "exec", self.ns[s], sys.executable,
                                  os.path.join(HERE, "udpflow.py"), "send", addr,
                                  str(port + 100), str(20 * timeout), "20", "64"] +
                                 list(spec[4:]), stdout=subprocess.DEVNULL)
            self.procs.append(p)
            sends.append(p)
        try:
            for spec, r in zip(specs, recvs):
                got = json.loads(r.communicate(timeout=timeout + 60)[0])["got"]
                if not got:
                    raise Fail("no probe came through on %s -> %s %s:%d in %d s" % (
                        spec[0], spec[1], spec[2], spec[3] + 100, timeout))
        finally:
            for p in sends:
                p.kill()
                p.wait()

    def flows(self, specs, rate=300, count=600, size=200, settle=3.0, warm=False,
              patience=None):
        """
        Numbered UDP both ways at once. specs: [(src ns key, dst ns key, dst addr,
        port)]. Each flow sends count datagrams at rate/s; returns
        [(spec, result)] with result {"got": n, "dup": n, "missing": n, "bad": n}.
        warm: probe each path first (warm()). patience: the receivers' (udpflow.py),
        for flows that are to lose packets.
        """
        if warm:
            self.warm(specs)
        return Traffic(self, specs, rate, count, size, settle, patience).wait()

    def traffic(self, specs, rate=300, size=200, settle=3.0, patience=None):
        """
        The same flows as flows(), but open-ended: each sends until the
        Traffic's stop(), which returns what flows() returns, each result
        with the flow's "count" (what its sender sent). For traffic whose
        length is set by events (a failover done, enough packets through a
        node) rather than by a guess.
        """
        return Traffic(self, specs, rate, 0, size, settle, patience)

    def check_traffic(self, specs, rate=300, count=300, what="traffic", **kw):
        """flows() and check_flows(): every datagram exactly once; returns the results."""
        res = self.flows(specs, rate=rate, count=count, **kw)
        self.check_flows(res, count, what)
        return res

    def check_flows(self, res, count, what):
        ok = True
        for spec, r in res:
            good = r["got"] == count and r["dup"] == 0 and r["bad"] == 0
            log("%s %s -> %s %s:%d: %d/%d received, %d duplicate, %d damaged%s" % (
                "ok  " if good else "FAIL", spec[0], spec[1], spec[2], spec[3], r["got"],
                count, r["dup"], r["bad"],
                "; longest silence %.1f s" % r["gap"] if r.get("gap", 0) >= 1 else ""))
            if r["missing"]:
                log("     first missing: %s" % r["missing"])
            ok = ok and good
        if not ok:
            # say where they were lost
            log(self.loss_report(getattr(self, "counters_before", {}),
                                 getattr(self, "counters_after", {})))
            raise Fail(what + ": packets lost, duplicated or damaged")

    # ---- teardown --------------------------------------------------------------

    def close(self):
        if self.closed:
            return
        self.closed = True
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    p.terminate()
                    p.wait(10)
                except Exception:
                    try:
                        p.kill()
                        p.wait(5)
                    except Exception:
                        pass
        for n in self.made_ns:
            subprocess.run(["ip", "netns", "del", n], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        # a gateway killed with SIGKILL (the failover tests kill them) leaves its EAL
        # runtime folder behind, where a clean exit removes it: the run's own prefixes
        for side in self.SIDES:
            for top in ("/run/dpdk", os.path.join(os.environ.get("XDG_RUNTIME_DIR") or
                                                  "/nonexistent", "dpdk")):
                shutil.rmtree(os.path.join(top, "gw%s%s" % (side, self.p)), ignore_errors=True)
        if os.environ.get("SWAN_KEEP"):
            log("kept %s" % self.d)
        else:
            shutil.rmtree(self.d, ignore_errors=True)

    def dump_logs(self):
        # charon.stdout: what charon says before its log is open, or when it dies
        for rel in ("gw.log", "gwB.log", "A/charon.log", "B/charon.log", "A/charon.stdout",
                    "B/charon.stdout"):
            path = os.path.join(self.d, rel)
            if not os.path.exists(path):
                continue
            log("---- %s (%d bytes, tail) ----\n%s" % (rel, os.path.getsize(path),
                                                      self.tail(rel, 60)))


class Traffic:
    """
    Numbered UDP flows (udpflow.py) under way: count datagrams each, or
    with count 0 until stop(). Env.flows() and Env.traffic() make them.
    """

    def __init__(self, env, specs, rate, count, size, settle, patience):
        self.env, self.specs, self.rate, self.count = env, list(specs), rate, count
        self.t0 = time.monotonic()
        env.counters_before = env.hop_counters()
        self.recvs = []
        for s, dst_ns, addr, port in (sp[:4] for sp in self.specs):
            r = subprocess.Popen(["ip", "netns", "exec", env.ns[dst_ns], sys.executable,
                                  os.path.join(HERE, "udpflow.py"), "recv",
                                  "::" if ":" in addr else "0.0.0.0", str(port), str(count),
                                  str(settle)] + ([str(patience)] if patience else []),
                                 stdin=subprocess.PIPE if count == 0 else None,
                                 stdout=subprocess.PIPE, universal_newlines=True)
            env.procs.append(r)
            line = r.stdout.readline()
            if not line.startswith("ready"):
                raise Fail("udp receiver did not start: %r" % line)
            self.recvs.append(r)
        self.sends = []
        for spec in self.specs:
            s, dst_ns, addr, port = spec[:4]
            p = subprocess.Popen(["ip", "netns", "exec", env.ns[s], sys.executable,
                                  os.path.join(HERE, "udpflow.py"), "send", addr, str(port),
                                  str(count), str(rate), str(size)] + list(spec[4:]),
                                 stdin=subprocess.PIPE if count == 0 else None,
                                 stdout=subprocess.PIPE, universal_newlines=True)
            env.procs.append(p)
            self.sends.append(p)

    def stop(self):
        """Every sender stops; each receiver learns how many its sender sent."""
        for p in self.sends:
            p.stdin.write("stop\n")
            p.stdin.flush()
        self.sent = []
        for p, r in zip(self.sends, self.recvs):
            so = p.stdout.readline()
            if not so.startswith("sent "):
                raise Fail("udp sender: %r" % so)
            self.sent.append(int(so.split()[1]))
            r.stdin.write("%d\n" % self.sent[-1])
            r.stdin.flush()
        return self.wait()

    def wait(self):
        res = []
        limit = (self.count or (time.monotonic() - self.t0) * self.rate) / self.rate + 200
        for k, (spec, p, r) in enumerate(zip(self.specs, self.sends, self.recvs)):
            so, _ = p.communicate(timeout=limit)
            ro, _ = r.communicate(timeout=limit)
            try:
                out = json.loads(ro)
            except ValueError:
                raise Fail("udp receiver for %s: %r / sender %r" % (spec, ro, so))
            out["count"] = self.count or self.sent[k]
            res.append((spec, out))
        self.env.counters_after = self.env.hop_counters()
        return res


def plugin_conf_vecsec(env, extra="", port_nat_t=4501, timeout=3000, side="A"):
    return """load = random nonce openssl chapoly aes sha1 sha2 hmac kdf pem pkcs1 x509 pubkey curve25519 kernel-vecsec! kernel-netlink socket-default vici
    port_nat_t = %d
    plugins {
        kernel-vecsec {
            socket = %s
            owner = test
            timeout = %d
        }
    }
    %s""" % (port_nat_t, env.sock_of(side), timeout, extra)


def plugin_conf_libipsec(port_nat_t=4500):
    # the tests make A give up many IKE_SAs after IKE_SA_INIT: no cookies, no blocking
    return """load = random nonce openssl chapoly aes ctr sha1 sha2 hmac kdf pem pkcs1 x509 pubkey curve25519 kernel-libipsec kernel-netlink socket-default vici
    port_nat_t = %d
    dos_protection = no""" % port_nat_t


def conn(name, local, remote, lid, rid, children, ike="aes256gcm16-prfsha256-x25519",
         extra=None):
    """swanctl connection text; children: {name: {key: value}}; extra: more keys."""
    ch = ""
    for cn, kv in children.items():
        ch += "            %s {\n%s            }\n" % (
            cn, "".join("                %s = %s\n" % (k, v) for k, v in kv.items()))
    return """    %(name)s {
        version = 2
        local_addrs = %(local)s
        remote_addrs = %(remote)s
        proposals = %(ike)s
        rekey_time = 0
%(extra)s        local {
            auth = psk
            id = %(lid)s
        }
        remote {
            auth = psk
            id = %(rid)s
        }
        children {
%(ch)s        }
    }
""" % {"name": name, "local": local, "remote": remote, "ike": ike, "lid": lid, "rid": rid,
       "ch": ch, "extra": "".join("        %s = %s\n" % kv for kv in (extra or {}).items())}


def swanctl_conf(conns):
    return "connections {\n%s}\nsecrets {\n    ike-ab {\n        id-a = a.test\n" \
           "        id-b = b.test\n        secret = \"%s\"\n    }\n}\n" % ("".join(conns), PSK)
