#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
--kernel-nh: the gateway's routes and next hops from the host's kernel
(the linux-cp model), in swantest's namespaces without charon:

    hA 10.77.1.1 --veth-- gA [vecsec-gw, taps t0A 10.77.1.254, t1A 10.77.0.1]
                                  --veth-- gB 10.77.0.2 (Linux, 10.77.9.1 on lo)

gA's configuration has no `rt` and no `neigh` line, only bypass rules:

  1. hA pings gB (IPv4 and IPv6) through the gateway: the routes are the
     kernel's connected routes on the taps, the MACs the kernel's
     neighbours (ARP and neighbour discovery done by gA's kernel through
     the taps, asked for by the gateway: the first packets count as
     `no_neigh` drops)
  2. hA's MAC changes (arp_notify: its kernel announces the new one); gA's
     kernel takes the announcement, the gateway follows it: pings come
     back to the new MAC. `ip neigh replace` with a wrong MAC stops the
     replies, with the right one brings them back; `ip neigh del`: the
     address is resolved again
  3. 10.77.9.1 behind gB: no route (the pings are `no_route` drops) until
     `ip route add 10.77.9.0/24 via 10.77.0.2` in gA; then they pass, the
     gateway not restarted; `ip route del` takes it away again
  4. a reload adds a `neigh` line for port 1, which wins over the kernel's
     neighbour, then an `rt` line, which wins over a kernel route (its
     next hop is the destination itself, which gA's kernel is then asked
     to resolve: the kernel's route would have 10.77.0.2); a reload that
     takes them away again gives the kernel's back, no restart
  5. the control socket: `rt`, `neigh`, `del rt`, `del neigh` take effect
     at once, `show rt` lists the rules and the kernel's routes and
     neighbours, a reload keeps the controller's route

    kernel_nh.py BUILD_DIR
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402

BYPASS = """sp ipv4 out esp bypass pri 1 dst 0.0.0.0/0
sp ipv4 in esp bypass pri 1 dst 0.0.0.0/0
sp ipv6 out esp bypass pri 1 dst ::/0
sp ipv6 in esp bypass pri 1 dst ::/0
"""


class Env(st.Env):
    extra_conf = ""

    def gw_config(self, extra_rt=(), side="A"):
        path = os.path.join(self.d, "gw%s.cfg" % side)
        with open(path, "w") as f:
            f.write(BYPASS + self.extra_conf)
        return path


def ping(env, dst, count=1, wait=1):
    r = subprocess.run(["ip", "netns", "exec", env.ns["hA"], "ping", "-n", "-q", "-c",
                        str(count), "-W", str(wait), dst], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return r.returncode == 0


def ping_until(env, dst, timeout, what):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if ping(env, dst):
            log("%s: %s answers after %.1f s" % (what, dst, time.monotonic() - t0))
            return
    raise st.Fail("%s: no answer from %s in %d s; gateway drops %s; gA's neighbours:\n%s" % (
        what, dst, timeout, env.ctl("stats"), st.sh(["ip", "neigh"], ns=env.ns["gA"]) +
        st.sh(["ip", "route"], ns=env.ns["gA"]) + st.sh(["ip", "neigh"], ns=env.ns["hA"])))


def drops(env):
    out = env.ctl("stats")
    return {k: int(v) for k, v in re.findall(r"\b(no_neigh|no_route)[ =:]+(\d+)", out)}


def nb_9(env):
    return "10.77.9.1" in st.sh(["ip", "neigh", "show", "dev", env.ifn("t1A")],
                                ns=env.ns["gA"])


def static_route_used(env, what):
    st.sh(["ip", "neigh", "flush", "dev", env.ifn("t1A")], ns=env.ns["gA"])
    ping_until(env, "10.77.9.1", 10, what)
    check(nb_9(env), "%s: the next hop is 10.77.9.1 itself (a neighbour in gA's kernel "
          "now): the static route, not the kernel's via 10.77.0.2" % what)


def kernel_route_used(env, what):
    st.sh(["ip", "neigh", "flush", "dev", env.ifn("t1A")], ns=env.ns["gA"])
    ping_until(env, "10.77.9.1", 10, what)
    check(not nb_9(env), "%s: the next hop is 10.77.0.2, the kernel's route's gateway "
          "(no neighbour 10.77.9.1)" % what)


def write_conf(env, extra):
    env.extra_conf = extra
    env.gw_config()


def port_tx(env, port):
    m = re.search(r"port %d \([^)]*\): rx \d+ tx (\d+)" % port, env.ctl("stats"))
    return int(m.group(1))


def main():
    env = Env(sys.argv[1], "kn")
    try:
        env.topology()
        ns = env.ns
        sh = st.sh
        sh(["ip", "route", "add", "10.77.1.0/24", "via", "10.77.0.1"], ns=ns["gB"])
        sh(["ip", "-6", "route", "add", "fd77:1::/64", "via", "fd77::1"], ns=ns["gB"])
        sh(["ip", "addr", "add", "10.77.9.1/32", "dev", "lo"], ns=ns["gB"])
        env.gw_start(args=["--kernel-nh"])

        # 1. the kernel's connected routes and neighbours, nothing configured
        ping_until(env, "10.77.0.2", 20, "IPv4 through the gateway, kernel neighbours")
        ping_until(env, "fd77::2", 20, "IPv6 through the gateway, kernel neighbours")
        d = drops(env)
        log("drops after the first pings: %s" % d)
        check(d.get("no_neigh", 0) > 0,
              "the first packets waited for the kernel's neighbours (no_neigh %s)" %
              d.get("no_neigh"))
        check(ping(env, "10.77.0.2", count=5, wait=2),
              "5 pings in a row once the neighbours are known")

        # 2. hA's MAC changes; its kernel announces it (arp_notify)
        la0 = env.ifn("la0")
        sh(["sysctl", "-q", "-w", "net.ipv4.conf.%s.arp_notify=1" % la0], ns=ns["hA"])
        new_mac = "02:77:00:00:01:01"
        sh(["ip", "link", "set", la0, "address", new_mac], ns=ns["hA"])
        st.wait_for(lambda: new_mac in sh(["ip", "neigh", "show", "10.77.1.1"], ns=ns["gA"]),
                    10, what="gA's kernel to take hA's new MAC")
        ping_until(env, "10.77.0.2", 10, "IPv4 after hA's MAC changed")
        check(ping(env, "10.77.0.2", count=5, wait=2),
              "5 pings in a row to hA's new MAC %s" % new_mac)

        # ... and an `ip neigh` change: a wrong MAC stops the replies, the
        # right one brings them back, a deleted entry is resolved again
        t0 = env.ifn("t0A")
        sh(["ip", "neigh", "replace", "10.77.1.1", "lladdr", "02:77:00:00:00:42", "dev", t0,
            "nud", "permanent"], ns=ns["gA"])
        st.wait_for(lambda: not ping(env, "10.77.0.2"), 10,
                    what="replies to go to the wrong MAC of ip neigh replace")
        log("ip neigh replace with a wrong MAC: the replies stop")
        sh(["ip", "neigh", "replace", "10.77.1.1", "lladdr", new_mac, "dev", t0, "nud",
            "permanent"], ns=ns["gA"])
        ping_until(env, "10.77.0.2", 10, "ip neigh replace with the right MAC")
        sh(["ip", "neigh", "del", "10.77.1.1", "dev", t0], ns=ns["gA"])
        ping_until(env, "10.77.0.2", 10, "ip neigh del: resolved again")

        # 3. a route the kernel gets at run time
        before = drops(env).get("no_route", 0)
        check(not ping(env, "10.77.9.1", count=2),
              "10.77.9.1 unreachable while gA's kernel has no route to it")
        check(drops(env).get("no_route", 0) > before,
              "the gateway counted those pings as no_route (%d -> %d)" %
              (before, drops(env).get("no_route", 0)))
        sh(["ip", "route", "add", "10.77.9.0/24", "via", "10.77.0.2"], ns=ns["gA"])
        ping_until(env, "10.77.9.1", 10, "after ip route add, no restart")
        sh(["ip", "route", "del", "10.77.9.0/24", "via", "10.77.0.2"], ns=ns["gA"])
        st.wait_for(lambda: not ping(env, "10.77.9.1"), 10,
                    what="the route to go with ip route del")
        log("ip route del: 10.77.9.1 unreachable again")

        # 4. precedence, and rt/neigh lines changed by a reload. A neigh line
        # wins over the kernel's neighbour: packets to gB go to its MAC.
        sh(["ip", "route", "add", "10.77.9.0/24", "via", "10.77.0.2"], ns=ns["gA"])
        ping_until(env, "10.77.9.1", 10, "the kernel's route again")
        write_conf(env, "neigh port 1 02:77:00:00:00:99\n")
        out = env.ctl("reload")
        check(out.startswith("reload:") and "ERR" not in out, "reload with a neigh line: %s"
              % out.strip().splitlines()[0])
        tx0 = port_tx(env, 1)
        nn0 = drops(env).get("no_neigh", 0)
        check(not ping(env, "10.77.0.2", count=3),
              "with `neigh port 1 02:77:00:00:00:99` packets to gB go to that MAC, not "
              "gB's")
        check(port_tx(env, 1) >= tx0 + 3 and drops(env).get("no_neigh", 0) == nn0,
              "they left on port 1 (tx %d -> %d), none waited for a neighbour" %
              (tx0, port_tx(env, 1)))
        # An rt line wins over the kernel's route: `rt ... port 1` has no
        # gateway, so its next hop is the destination itself, which gA's
        # kernel is then asked to resolve (gB answers ARP for its lo
        # address); through the kernel's route it would be 10.77.0.2.
        write_conf(env, "rt ipv4 dst 10.77.9.0/24 port 1\n")
        env.ctl("reload")
        static_route_used(env, "an rt line by reload")
        write_conf(env, "")
        out = env.ctl("reload")
        log("reload without them: %s" % out.strip().splitlines()[0])
        ping_until(env, "10.77.0.2", 10, "neigh line reloaded away: the kernel's neighbour")
        kernel_route_used(env, "rt line reloaded away")

        # 5. the same through the control socket (protocol 1.7): rt, neigh,
        # del rt, del neigh, show rt; a reload keeps the controller's rules
        env.ctl("rt", "ipv4", "dst", "10.77.9.0/24", "port", "1")
        static_route_used(env, "rt on the socket")
        show = env.ctl("show", "rt")
        log("show rt:\n" + show.rstrip())
        check("rt ipv4 dst 10.77.9.0/24 port 1 # control" in show and
              "kernel rt ipv4 dst 10.77.9.0/24 port 1 via 10.77.0.2" in show and
              re.search(r"kernel neigh port 1 10\.77\.9\.1 [0-9a-f:]{17}", show) is not None and
              "kernel rt ipv4 dst 10.77.1.0/24 port 0 metric 0" in show and
              show.count("kernel rt ipv6 dst fe80::/64 port") == 2,
              "show rt: the controller's route, the kernel's routes (fe80::/64 on both taps) "
              "and neighbours")
        out = env.ctl("reload")
        check("# control" in env.ctl("show", "rt"),
              "a reload keeps the controller's route: %s" % out.strip().splitlines()[0])
        static_route_used(env, "the controller's route after a reload")
        env.ctl("del", "rt", "ipv4", "dst", "10.77.9.0/24")
        kernel_route_used(env, "del rt on the socket")
        env.ctl("neigh", "port", "1", "02:77:00:00:00:98")
        check(not ping(env, "10.77.0.2", count=2),
              "`neigh port 1 02:77:00:00:00:98` on the socket: packets to gB go there")
        env.ctl("del", "neigh", "port", "1")
        ping_until(env, "10.77.0.2", 10, "del neigh on the socket: the kernel's neighbour")
        r = subprocess.run([env.ctlbin, "-s", env.sock_of("A"), "del", "rt", "ipv4", "dst",
                            "10.77.99.0/24"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        check(r.returncode != 0 and "no such route" in r.stdout,
              "del rt of a route that is not there: %s" % r.stdout.strip())
        check(env.gw.poll() is None, "the same gateway process throughout")
    except st.Fail as e:
        print("kernel-nh: FAIL: %s" % e)
        env.dump_logs()
        return 1
    finally:
        env.close()
    print("kernel-nh: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
