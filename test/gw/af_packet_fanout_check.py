# SPDX-License-Identifier: BSD-3-Clause
"""
gw-af-packet-fanout: an af_packet port that cannot start is named, with
the cause, not reported later as "port 1 does not exist".

DPDK 22.11's af_packet PMD joins the PACKET_FANOUT group
(getpid() ^ ifindex) & 0xffff. This check makes the collision two
gateways in one network namespace meet by chance happen on purpose: in a
namespace of its own it forks, the child (whose pid the gateway will
keep across exec) holds that group on another interface with an
inheritable AF_PACKET socket, then execs vecsec-gw on two veth ends. The
gateway must exit non-zero, before any packet, saying which --vdev failed,
the fanout group and what to do; and the same command without the
collision must start (the error is that port's, not the command line's).

    af_packet_fanout_check.py VECSEC_GW
"""
import ctypes
import os
import socket
import subprocess
import sys
import tempfile
import time

SOL_PACKET, PACKET_FANOUT, PACKET_FANOUT_HASH = 263, 18, 0
ETH_P_ALL = 0x0003
CLONE_NEWNET = 0x40000000


def sh(*cmd, ns=None):
    if ns:
        cmd = ("ip", "netns", "exec", ns) + cmd
    subprocess.run(cmd, check=True, timeout=30, stdout=subprocess.DEVNULL)


def main():
    gwbin = os.path.abspath(sys.argv[1])
    tag = "fo%d" % os.getpid()
    ns = "vecsec-" + tag
    a0, a1 = ("a" + tag)[:15], ("b" + tag)[:15]
    b0, b1 = ("c" + tag)[:15], ("d" + tag)[:15]
    work = tempfile.mkdtemp(prefix="vecsec-fanout-", dir=os.path.dirname(gwbin))
    cfg = os.path.join(work, "gw.cfg")
    with open(cfg, "w") as f:
        f.write("rt ipv4 dst 10.79.1.0/24 port 0\nrt ipv4 dst 10.79.2.0/24 port 1\n")
    fails = []
    try:
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", a0, "type", "veth", "peer", "name", a1, ns=ns)
        sh("ip", "link", "add", b0, "type", "veth", "peer", "name", b1, ns=ns)
        for i in (a0, a1, b0, b1):
            sh("ip", "link", "set", i, "up", ns=ns)

        def run(collide):
            cmd = ["ip", "netns", "exec", ns, gwbin, "-l", "0", "--no-pci", "--no-huge",
                   "-m", "256", "--no-shconf", "--no-telemetry", "--file-prefix", tag,
                   "--log-level", "*:warning",
                   "--vdev", "net_af_packet0,iface=%s" % a0,
                   "--vdev", "net_af_packet1,iface=%s" % b0,
                   "--", "-f", cfg, "-u", "0x2", "--ctrl", "none", "--idle-exit", "1"]
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(r)
                    os.dup2(w, 1)
                    os.dup2(w, 2)
                    if collide:
                        # `ip netns exec` keeps the pid through its exec; the
                        # ifindex is the one the gateway's port 1 will see
                        libc = ctypes.CDLL(None, use_errno=True)
                        fd = os.open("/run/netns/" + ns, os.O_RDONLY)
                        if libc.setns(fd, CLONE_NEWNET) != 0:
                            raise OSError(ctypes.get_errno(), "setns")
                        idx = socket.if_nametoindex(b0)
                        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                          socket.htons(ETH_P_ALL))
                        s.bind((a1, 0))
                        grp = (os.getpid() ^ idx) & 0xffff
                        s.setsockopt(SOL_PACKET, PACKET_FANOUT, grp | PACKET_FANOUT_HASH << 16)
                        s.set_inheritable(True)
                    os.execvp(cmd[0], cmd)
                except BaseException as e:  # never back into the parent's code
                    os.write(2, ("child: %r\n" % e).encode())
                os._exit(127)
            os.close(w)
            out = b""
            deadline = time.monotonic() + 60
            with os.fdopen(r, "rb") as f:
                out = f.read()
            while time.monotonic() < deadline:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")
                time.sleep(0.1)
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            return None, out.decode(errors="replace")

        rc, out = run(True)
        print("---- with the collision (rc %s) ----\n%s" % (rc, out))
        if rc in (0, None):
            fails.append("the gateway did not fail (rc %s)" % rc)
        for want in ("net_af_packet1", "PACKET_FANOUT", "fanout group", "network namespace",
                     "not started"):
            if want not in out:
                fails.append("no %r in the gateway's output" % want)
        if "does not exist" in out:
            fails.append("the late 'does not exist' message is still given")
        rc, out = run(False)
        print("---- without it (rc %s) ----\n%s" % (rc, out))
        if rc != 0:
            fails.append("the same command without the collision failed (rc %s)" % rc)
    finally:
        subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        subprocess.run(["rm", "-rf", work, "/run/dpdk/" + tag])
    for f in fails:
        print("gw-af-packet-fanout: FAIL: %s" % f)
    if not fails:
        print("gw-af-packet-fanout: ok (the failed port, its fanout group and the way out "
              "named)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
