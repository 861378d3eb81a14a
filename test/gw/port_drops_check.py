#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The gateway counts what its ports drop before (rx) or after (tx) its
workers: rte_eth_stats' imissed, rx_nombuf, ierrors and oerrors per port,
in every view an operator has (the control socket's `stats` and `json
stats`, telemetry /vecsec_gw/stats, --stats-file at exit).

A gateway in a network namespace this test creates: port 0 a net_tap
interface whose MTU the kernel side raises to 9000, port 1 net_null. The
kernel sends frames larger than the gateway's rx mbufs on the tap: net_tap
reads them truncated and counts receive errors (ierrors). Checks: each
view shows port 0's drops, equal to ethdev's own /ethdev/stats,0; `reset`
takes them back to 0 and new ones count again, while ethdev's own counters
go on; the stats file written at exit has them.

usage: port_drops_check.py GATEWAY_BINARY CTL_BINARY
"""
import json
import os
import re
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402

BIG = 4
NAMES = ("imissed", "rx_nombuf", "ierrors", "oerrors")


def sh(ns, *cmd):
    subprocess.run(["ip", "netns", "exec", ns] + list(cmd), check=True, timeout=30,
                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def send_big(ns, n):
    """n UDP datagrams of 8000 bytes out of the tap (a static neighbour: no ARP)."""
    code = ("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for i in range(%d):\n    s.sendto(bytes(8000), ('10.91.0.2', 9))\n" % n)
    sh(ns, sys.executable, "-c", code)


def main():
    gwbin, ctlbin = sys.argv[1], sys.argv[2]
    tag = "pd%d" % (os.getpid() % 100000)
    ns, tap = "vecsec-" + tag, ("t" + tag)[:15]
    tmp = tempfile.mkdtemp(prefix="vecsec-gw-portdrops-")
    sock = os.path.join(tmp, "gw.sock")
    stats_file = os.path.join(tmp, "stats.json")
    # --stats-file is replaced whole (a temporary file renamed over it), never rewritten
    # in place: a second name of the old file keeps the old text
    with open(stats_file, "w") as f:
        f.write("old\n")
    os.link(stats_file, stats_file + ".old")
    prefix = gwtest.file_prefix("portdrops")
    ok = True
    gw = None

    def fail(msg):
        nonlocal ok
        print("FAIL: " + msg)
        ok = False

    def views(port):
        """{view: {counter: value}} of port, and ethdev's /ethdev/stats,port."""
        out = {}
        r = gwtest.ctl(ctlbin, sock, words=["stats"])
        m = re.search(r"port %d drops: imissed (\d+) rx_nombuf (\d+) ierrors (\d+) "
                      r"oerrors (\d+)" % port, r.stdout)
        out["stats"] = dict(zip(NAMES, map(int, m.groups()))) if m else r.stdout
        r = gwtest.ctl(ctlbin, sock, words=["-j", "stats"])
        try:
            p = json.loads(r.stdout)["ports"][str(port)]
            out["json stats"] = {k: p[k] for k in NAMES}
        except (ValueError, KeyError, IndexError):
            out["json stats"] = r.stdout
        tel = gwtest.telemetry(prefix, ["/vecsec_gw/stats", "/ethdev/stats,%d" % port])
        if tel is None:
            return out, None
        t = tel[0].get("/vecsec_gw/stats") or {}
        out["telemetry"] = {k: t.get("ports", {}).get(str(port), {}).get(k) for k in NAMES}
        e = tel[1].get("/ethdev/stats") or {}
        return out, {k: e.get(k) for k in NAMES}

    try:
        subprocess.run(["ip", "netns", "add", ns], check=True, timeout=30)
        sh(ns, "ip", "link", "set", "lo", "up")
        cmd = ["ip", "netns", "exec", ns, gwbin, "-l", "0", "--no-pci", "--no-huge", "-m", "512",
               "--file-prefix", prefix, "--log-level", "*:warning",
               "--vdev", "net_tap0,iface=%s" % tap, "--vdev", "net_null1,no-rx=1",
               "--", "-u", "2", "--ctrl", sock, "--stats-file", stats_file] + \
            gwtest.seq_state_args([])     # never the host's /var/lib/vecsec-gw
        gw = gwtest.Gateway(cmd)
        if not gw.wait_ready():
            ok = False
            return 1
        sh(ns, "ip", "link", "set", tap, "mtu", "9000", "up")
        sh(ns, "ip", "addr", "add", "10.91.0.1/24", "dev", tap)
        sh(ns, "ip", "neigh", "replace", "10.91.0.2", "lladdr", "02:00:00:00:00:02", "dev", tap)
        send_big(ns, BIG)

        def counted(n):
            v, e = views(0)
            return e is not None and e["ierrors"] is not None and e["ierrors"] >= n
        if not gwtest.wait_until(lambda: counted(BIG), "ethdev to count %d receive errors "
                                 "on the tap" % BIG, gws=[gw]):
            ok = False
            return 1
        v, e = views(0)
        for name, got in v.items():
            if got != e:
                fail("%s: port 0 drops %s, ethdev's /ethdev/stats,0 says %s" % (name, got, e))
        if ok:
            print("ok   port 0: %d frames bigger than its mbufs: ierrors %d in `stats`, "
                  "`json stats` and telemetry, as /ethdev/stats,0 says (%s)"
                  % (BIG, e["ierrors"], ", ".join("%s %d" % (k, e[k]) for k in NAMES)))
        r = gwtest.ctl(ctlbin, sock, words=["reset"])
        if r.returncode != 0:
            fail("reset: %s" % r.stdout)
        v, e0 = views(0)
        if any(x != dict.fromkeys(NAMES, 0) for x in v.values()):
            fail("after reset, port 0 drops: %s" % v)
        send_big(ns, 1)
        if not gwtest.wait_until(lambda: counted(e0["ierrors"] + 1), "one more receive error",
                                 gws=[gw]):
            ok = False
            return 1
        v, e1 = views(0)
        want = {k: e1[k] - e0[k] for k in NAMES}
        if any(x != want for x in v.values()):
            fail("after reset and one more: port 0 drops %s, want %s" % (v, want))
        else:
            print("ok   `reset`: port 0's drops from 0 again (ierrors %d), ethdev's own go on "
                  "(%d)" % (want["ierrors"], e1["ierrors"]))
        rc, text = gw.stop(timeout=60)
        gw = None
        if rc != 0:
            fail("gateway exited with %s: %s" % (rc, text[-2000:]))
        try:
            with open(stats_file) as f:
                p0 = json.load(f)["ports"]["0"]
            if p0["ierrors"] != want["ierrors"] or any(k not in p0 for k in NAMES):
                fail("--stats-file: port 0 %s, want ierrors %d" % (p0, want["ierrors"]))
            else:
                print("ok   --stats-file at exit: port 0 %s" % ", ".join(
                    "%s %d" % (k, p0[k]) for k in NAMES))
            with open(stats_file + ".old") as f:
                old = f.read()
            left = sorted(n for n in os.listdir(tmp) if n.startswith("stats.json."))
            mode = stat.S_IMODE(os.stat(stats_file).st_mode)
            um = os.umask(0)
            os.umask(um)
            # what a plain open() would have made, not mkstemp's 0600
            if old != "old\n" or left != ["stats.json.old"] or mode != 0o666 & ~um:
                fail("--stats-file written in place or left files: the old file's other "
                     "name holds %r, files %s, mode %o" % (old[:40], left, mode))
            else:
                print("ok   --stats-file replaced by rename (the old file untouched, no "
                      "temporary file left, mode %o)" % mode)
        except (OSError, ValueError, KeyError, IndexError) as ex:
            fail("--stats-file: %s" % ex)
    finally:
        if gw is not None:
            gw.kill()
            if not ok:
                print(gw.output()[-3000:])
        subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
