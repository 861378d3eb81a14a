#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""
The gateway's exception path and its SPD (issue 25, items 1, 2 and 4), in
swantest's namespaces without charon: gA's host (its taps t0A/t1A, LAN
10.77.1.254, wire 10.77.0.1) and gB, a Linux router on the wire
(10.77.0.2, LAN 10.77.2.254). A UDP agent in each namespace (udpagent.py)
sends and receives; each step sends what must not pass first and then a
datagram that must, on the same path, and waits for that one: what was
sent before it had its chance.

  1. clear traffic for the gateway's own addresses from the unprotected
     port meets the inbound SPD: protect (transport rule 10.77.0.2 ->
     10.77.0.1, and fd77::2 -> fd77::1; a tunnel rule 10.77.2.0/24 ->
     10.77.1.0/24 and a spoofed packet to the LAN address sent on the
     wire) and discard drop it,
     counted as policy drops; bypass and no rule let it in; IKE (UDP 500,
     UDP 4500 with a zero non-ESP marker) passes whatever the rules.
  2. the host's UDP skips the outbound SPD only as charon's IKE: from a
     `bypass udp` port, from the host's address on that tap, to an IKE
     port, with an IKE message; the rest meets a discard rule. `bypass
     udp PORT del` and `flush owner` take ports out; a port registered
     without an owner stays.
  3. --host-default discard: with no rule, the host's traffic across the
     wire and clear traffic for it are dropped; IKE passes, and IPv6
     neighbour discovery works both ways.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402

KEY = ":".join("%02x" % (i * 7 + 3) for i in range(20))


def ike(length=36, marker=False):
    """An IKEv2 message header (IKE_SA_INIT) and length - 28 payload bytes."""
    body = bytes(range(1, 9)) + bytes(8) + bytes([33, 0x20, 34, 8]) + bytes(4) + \
        length.to_bytes(4, "big") + bytes(length - 28)
    return ((bytes(4) if marker else b"") + body).hex()


class Agent:
    def __init__(self, env, ns_key):
        self.p = subprocess.Popen(["ip", "netns", "exec", env.ns[ns_key], sys.executable,
                                   os.path.join(st.HERE, "udpagent.py")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  universal_newlines=True)
        env.procs.append(self.p)
        self.ns = ns_key

    def req(self, **kw):
        self.p.stdin.write(json.dumps(kw) + "\n")
        self.p.stdin.flush()
        ans = json.loads(self.p.stdout.readline())
        if "error" in ans:
            raise st.Fail("agent in %s: %s: %s" % (self.ns, kw, ans["error"]))
        return ans

    def open(self, addr, port):
        return self.req(op="open", addr=addr, port=port)["id"]

    def send(self, sock, dst, dport, hexdata):
        self.req(op="send", id=sock, dst=dst, dport=dport, hex=hexdata)

    def got(self, sock):
        return self.req(op="got", id=sock)["got"]


def counters(env):
    out = env.ctl("stats")
    pol = re.search(r"drops:.*\bpolicy (\d+)", out)
    host = re.search(r"host: to the host (\d+) from the host (\d+)", out)
    return (int(pol.group(1)) if pol else 0, int(host.group(1)) if host else 0,
            int(host.group(2)) if host else 0)


def wait_got(agent, sock, n, what):
    """Wait until socket sock has n datagrams; returns them."""
    return st.wait_for(lambda: (lambda g: g if len(g) >= n else None)(agent.got(sock)), 20,
                       what=what)


def step(env, rx, rsock, sends, marker, want_drops, what, watch=()):
    """
    sends: [(agent, sock, dst, dport, hex)] that must not arrive (at rsock
    or at any (agent, sock) of watch), then marker (the same form) that
    must arrive at rsock; want_drops more policy drops.
    """
    before = counters(env)
    seen = len(rx.got(rsock))
    quiet = [len(a.got(s)) for a, s in watch]
    for a, s, dst, dport, h in sends:
        a.send(s, dst, dport, h)
    a, s, dst, dport, h = marker
    a.send(s, dst, dport, h)
    got = wait_got(rx, rsock, seen + 1, "the datagram that may pass, in: " + what)
    after = st.wait_for(lambda: (lambda c: c if c[0] >= before[0] + want_drops else None)(
        counters(env)), 10, what="%d policy drops (%s)" % (want_drops, what))
    new = got[seen:]
    still = [len(a.got(s)) for a, s in watch]
    check(len(new) == 1 and new[0][2] == h and after[0] - before[0] == want_drops and
          still == quiet,
          "%s: %d policy drops, only the datagram that may pass arrived (%s; elsewhere %s)" %
          (what, after[0] - before[0], [g[:2] for g in new],
           [n - q for n, q in zip(still, quiet)]))
    return after


def bypass_ports(env):
    out = env.ctl("host")
    return {k: [int(x) for x in re.search(r"^host %s udp(.*)$" % k, out, re.M).group(1).split()]
            for k in ("bypass", "natt")}


def main():
    if os.geteuid() != 0:
        log("FAIL: needs root (network namespaces)")
        return 1
    build = sys.argv[1]
    env = st.Env(build, "hs")
    ok = False
    try:
        env.topology()
        ns = env.ns
        # gB reaches gA's LAN address through the wire; gA's host gB's LAN
        st.sh(["ip", "route", "add", "10.77.1.0/24", "via", "10.77.0.1"], ns=ns["gB"])
        # gA's kernel must see the wire's packets only through the gateway's tap,
        # not as well on the veth end DPDK reads (strict reverse path: no route there)
        for i in (env.la1, env.wa1):
            st.sh(["sysctl", "-q", "-w", "net.ipv4.conf.%s.rp_filter=1" % i], ns=ns["gA"])
        env.gw_start()
        st.sh(["ip", "route", "add", "10.77.2.0/24", "via", "10.77.0.2"], ns=ns["gA"])
        host, peer = Agent(env, "gA"), Agent(env, "gB")
        h_any = host.open("0.0.0.0", 5555)     # the host's service
        h_ike = host.open("0.0.0.0", 500)
        h_natt = host.open("0.0.0.0", 4500)     # charon's IKE socket, also for 2.
        p_wire = peer.open("10.77.0.2", 6000)
        p_lan = peer.open("10.77.2.254", 6001)
        p_ike = peer.open("0.0.0.0", 500)
        p_natt = peer.open("0.0.0.0", 4500)
        p_any = peer.open("0.0.0.0", 9999)

        # ---- 1. the inbound SPD for the host's clear traffic -----------------
        peer.send(p_wire, "10.77.0.1", 5555, "01")
        wait_got(host, h_any, 1, "clear UDP to the host with no rule")
        log("ok   no rule: clear UDP from the wire reaches the host")
        env.ctl(stdin="sa in 7 aead_algo aes-128-gcm aead_key %s mode transport\n" % KEY)
        env.ctl("sp", "ipv4", "in", "esp", "protect", "7", "pri", "10", "src", "10.77.0.2/32",
                "dst", "10.77.0.1/32")
        step(env, host, h_ike, [(peer, p_wire, "10.77.0.1", 5555, "%02x" % i)
                                for i in range(5)],
             (peer, p_ike, "10.77.0.1", 500, ike()), 5,
             "a protect rule 10.77.0.2 -> 10.77.0.1, clear UDP from 10.77.0.2 (5 sent); "
             "IKE to 500 passes", watch=[(host, h_any)])
        step(env, host, h_natt, [(peer, p_wire, "10.77.0.1", 5555, "aa")],
             (peer, p_natt, "10.77.0.1", 4500, ike(marker=True)), 1,
             "the same rule: IKE to 4500 with a zero non-ESP marker reaches the host",
             watch=[(host, h_any)])
        env.ctl(stdin="sa in 8 aead_algo aes-128-gcm aead_key %s mode ipv4-tunnel "
                "src 10.77.0.2 dst 10.77.0.1\n" % KEY)
        env.ctl("sp", "ipv4", "in", "esp", "protect", "8", "pri", "20", "src", "10.77.2.0/24",
                "dst", "10.77.1.0/24")
        step(env, host, h_ike, [(peer, p_lan, "10.77.1.254", 5555, "bb"),
                                (peer, p_lan, "10.77.1.254", 5555, "bc")],
             (peer, p_ike, "10.77.1.254", 500, ike(40)), 2,
             "a tunnel rule 10.77.2.0/24 -> 10.77.1.0/24: clear from 10.77.2.254 to the "
             "LAN address 10.77.1.254, sent on the wire", watch=[(host, h_any)])
        # the same over IPv6 (the burst's other lookup; ND to the host passes)
        h6 = host.open("::", 5560)
        h6_ike = host.open("::", 500)
        p6 = peer.open("fd77::2", 6060)
        peer.send(p6, "fd77::1", 5560, "f0")
        wait_got(host, h6, 1, "clear IPv6 UDP to the host with no rule")
        env.ctl(stdin="sa in 9 aead_algo aes-128-gcm aead_key %s mode transport "
                "inner ipv6\n" % KEY)
        env.ctl("sp", "ipv6", "in", "esp", "protect", "9", "pri", "10", "src", "fd77::2/128",
                "dst", "fd77::1/128")
        step(env, host, h6_ike, [(peer, p6, "fd77::1", 5560, "%02x" % i) for i in range(3)],
             (peer, p6, "fd77::1", 500, ike()), 3,
             "a protect rule fd77::2 -> fd77::1: clear UDP from fd77::2 (3 sent); IKE to "
             "500 passes", watch=[(host, h6)])
        env.ctl("del", "sp", "ipv6", "in", "esp", "protect", "9", "pri", "10", "src",
                "fd77::2/128", "dst", "fd77::1/128")
        env.ctl("sp", "ipv4", "in", "esp", "discard", "pri", "50", "src", "10.77.0.2/32",
                "dst", "10.77.0.1/32", "proto", "17:17", "dport", "5555:5555")
        env.ctl("sp", "ipv4", "in", "esp", "bypass", "pri", "60", "src", "10.77.0.2/32",
                "dst", "10.77.0.1/32", "proto", "17:17", "sport", "6000:6000", "dport",
                "5555:5555")
        step(env, host, h_any, [(peer, p_natt, "10.77.0.1", 5555, "cc")],
             (peer, p_wire, "10.77.0.1", 5555, "cd"), 1,
             "a discard rule drops clear UDP for the host, a bypass rule lets it in")

        # ---- 2. only charon's IKE skips the outbound SPD ----------------------
        env.ctl("sp", "ipv4", "out", "esp", "discard", "pri", "10", "src", "10.77.0.0/16",
                "dst", "10.77.0.2/32")
        env.ctl("bypass", "udp", "4500", "owner", "test")
        h_lanaddr = host.open("10.77.1.254", 4500)      # not the wire tap's address
        h_other = host.open("10.77.0.1", 4600)          # not a registered port (yet)
        step(env, peer, p_natt,
             [(host, h_natt, "10.77.0.2", 9999, ike(marker=True)),
              (host, h_natt, "10.77.0.2", 4500, b"secret in clear!".hex()),
              (host, h_natt, "10.77.0.2", 4500, "00000000" + b"no IKE message here".hex()),
              (host, h_lanaddr, "10.77.0.2", 4500, ike(marker=True)),
              (host, h_other, "10.77.0.2", 4500, ike(marker=True))],
             (host, h_natt, "10.77.0.2", 4500, ike(marker=True)), 5,
             "bypass udp 4500 and a discard rule: only IKE from the host's wire address "
             "leaves (wrong port, payload, source address, source port: dropped)",
             watch=[(peer, p_any)])
        step(env, peer, p_ike, [], (host, h_natt, "10.77.0.2", 500, ike(44)), 0,
             "an IKE message from the bypass port to port 500 leaves")
        # a port registered without an owner (an older plugin) stays until deleted
        env.ctl("bypass", "udp", "4600")
        env.ctl("bypass", "udp", "4500", "del")
        check(bypass_ports(env)["bypass"] == [4600], "bypass udp 4500 del: 4500 is gone")
        step(env, peer, p_natt, [(host, h_natt, "10.77.0.2", 4500, ike(marker=True))],
             (host, h_other, "10.77.0.2", 4500, ike(marker=True)), 1,
             "after `bypass udp 4500 del`, IKE from 4500 meets the discard rule")
        env.ctl("bypass", "udp", "4500", "owner", "test")
        env.ctl("natt", "udp", "4502", "owner", "test")
        env.ctl("natt", "udp", "4503")
        check(bypass_ports(env) == {"bypass": [4500, 4600], "natt": [4500, 4502, 4503]},
              "ports registered again: %s" % bypass_ports(env))
        step(env, peer, p_natt, [], (host, h_natt, "10.77.0.2", 4500, ike(marker=True)), 0,
             "bypass udp 4500 owner test: IKE from 4500 leaves again")
        env.ctl("flush", "owner", "test")
        check(bypass_ports(env) == {"bypass": [4600], "natt": [4500, 4503]},
              "flush owner test removed its ports, kept the others: %s" % bypass_ports(env))
        step(env, peer, p_natt, [(host, h_natt, "10.77.0.2", 4500, ike(marker=True))],
             (host, h_other, "10.77.0.2", 4500, ike(marker=True)), 1,
             "after `flush owner test`, IKE from 4500 meets the discard rule")
        env.ctl("natt", "udp", "4503", "del")
        bad = env.ctl("natt", "udp", "4500", "del", check_rc=False)
        check(bypass_ports(env)["natt"] == [4500] and "built in" in bad,
              "natt udp 4503 del removes it; the built-in 4500 stays (%s)" % bad.strip())

        # ---- 3. --host-default discard -------------------------------------------
        env.gw_stop()
        env.gw_start(args=["--host-default", "discard"])
        st.sh(["ip", "route", "replace", "10.77.2.0/24", "via", "10.77.0.2"], ns=ns["gA"])
        check("host default discard" in env.ctl("host"), "`host` says: host default discard")
        env.ctl("bypass", "udp", "4500", "owner", "test")
        step(env, peer, p_natt, [(host, h_any, "10.77.0.2", 9999, "dd")],
             (host, h_natt, "10.77.0.2", 4500, ike(marker=True)), 1,
             "--host-default discard, no rule: the host's UDP is dropped, its IKE leaves",
             watch=[(peer, p_any)])
        step(env, host, h_ike, [(peer, p_wire, "10.77.0.1", 5555, "de")],
             (peer, p_ike, "10.77.0.1", 500, ike()), 1,
             "--host-default discard, no rule: clear UDP for the host is dropped, IKE "
             "reaches it", watch=[(host, h_any)])
        # IPv6: UDP passes by rules; the neighbour discovery it needs by no rule at all
        env.ctl("sp", "ipv6", "in", "esp", "bypass", "pri", "1", "src", "fd77::2/128", "dst",
                "fd77::1/128", "proto", "17:17")
        env.ctl("sp", "ipv6", "out", "esp", "bypass", "pri", "1", "src", "fd77::1/128", "dst",
                "fd77::2/128", "proto", "17:17")
        for n, i in ((ns["gA"], env.ifn("t1A")), (ns["gB"], env.wb1)):
            st.sh(["ip", "-6", "neigh", "flush", "dev", i], ns=n)
        seen6, seen6p = len(host.got(h6)), len(peer.got(p6))
        peer.send(p6, "fd77::1", 5560, "e0")
        wait_got(host, h6, seen6 + 1, "IPv6 UDP to the host (gB resolves fd77::1 by ND)")
        host.send(h6, "fd77::2", 6060, "e1")
        wait_got(peer, p6, seen6p + 1, "IPv6 UDP from the host (its ND through the gateway)")
        log("ok   --host-default discard: IPv6 neighbour discovery works both ways")
        ok = True
    finally:
        if not ok:
            env.dump_logs()
        env.close()
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except st.Fail as e:
        log("FAIL: %s" % e)
        sys.exit(1)
