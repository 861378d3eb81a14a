# SPDX-License-Identifier: BSD-3-Clause
"""
strongSwan drives vecsec-gw, end to end (swantest.py's namespaces):
charon A with kernel-vecsec installs its CHILD_SAs into vecsec-gw; the
peer is charon B with kernel-libipsec (userspace ESP, UDP encapsulation).

  1. IKEv2 PSK over IPv4 and over IPv6 through the gateway's exception
     path; CHILD_SAs net4 (ChaCha20-Poly1305, 10.77.1/24 === 10.77.2/24),
     exp4 (AES-256-GCM, 10.77.1.2 === gB, life_packets 100), cbc4
     (AES-128-CBC/HMAC-SHA2-256-128), ctr4 (AES-256-CTR/HMAC-SHA2-384-192)
     and net6 (AES-256-GCM, fd77:1::/64 === fd77:2::/64): the gateway holds
     exactly their SAs and in/out rules
  2. numbered UDP both ways, both families, every algorithm: every packet
     once, intact
  3. swanctl --list-sas counters == the gateway's (query sa)
  4. rekeying under traffic (net4 by bytes: the gateway's soft expire
     events; net6 by time: the plugin's timers): several rekeys each,
     every packet once, afterwards only the current SAs and rules remain
  5. hard packet limit: the gateway's hard expire deletes exp4, charon
     re-creates it with new SPIs, the old ones are gone
  6. swanctl --terminate: nothing of this charon left in the gateway
  7. charon killed (SIGKILL) and started again: the stale SAs it left are
     flushed before it installs new ones; traffic flows again, also while
     the gateway is stopped for 2.5 s (a worker a loaded machine does not
     schedule): nothing lost; a test that loses a packet says on which hop
     (swantest.Env.loss_report)
  8. vecsec-gw restarted: the plugin notices (new boot id), charon
     re-creates the CHILD_SA, traffic flows again

With --native the gateway runs with --native: the SAs charon installs
whose algorithm libvecsec has (net4's ChaCha20-Poly1305) are native (type
native: the gateway's own ESP), the others stay on cryptodevs; checked in
the gateway's `list` after step 1.

    swan_e2e.py BUILD_DIR [--native]
"""
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402

CHILDREN_A = {
    "net4": {"mode": "tunnel", "local_ts": "10.77.1.0/24", "remote_ts": "10.77.2.0/24",
             "esp_proposals": "chacha20poly1305", "start_action": "none",
             "rekey_bytes": 400000, "life_bytes": 4000000, "rand_bytes": 0},
    # ends at gB itself: libipsec routes need a local address in its selector
    "exp4": {"mode": "tunnel", "local_ts": "10.77.1.2/32", "remote_ts": "10.77.2.254/32",
             "esp_proposals": "aes256gcm16", "start_action": "none",
             "rekey_packets": 0, "life_packets": 100},
    # classic ciphers with HMAC-SHA2 (RFC 4868 truncations)
    "cbc4": {"mode": "tunnel", "local_ts": "10.77.1.3/32", "remote_ts": "10.77.2.254/32",
             "esp_proposals": "aes128-sha256", "start_action": "none"},
    "ctr4": {"mode": "tunnel", "local_ts": "10.77.1.4/32", "remote_ts": "10.77.2.254/32",
             "esp_proposals": "aes256ctr-sha384", "start_action": "none"},
}
CHILDREN_A6 = {
    "net6": {"mode": "tunnel", "local_ts": "fd77:1::/64", "remote_ts": "fd77:2::/64",
             "esp_proposals": "aes256gcm16", "start_action": "none",
             "rekey_time": "6s", "life_time": "60s", "rand_time": 0},
}


def mirror(children):
    """B's side of A's children: selectors swapped, B's default lifetimes."""
    out = {}
    for n, kv in children.items():
        out[n] = {"mode": kv["mode"], "local_ts": kv["remote_ts"], "remote_ts": kv["local_ts"],
                  "esp_proposals": kv["esp_proposals"], "start_action": "none"}
    return out


def conf_a():
    return st.swanctl_conf([
        st.conn("v4", "10.77.0.1", "10.77.0.2", "a.test", "b.test", CHILDREN_A),
        st.conn("v6", "fd77::1", "fd77::2", "a.test", "b.test", CHILDREN_A6)])


def conf_b():
    return st.swanctl_conf([
        st.conn("v4", "10.77.0.2", "10.77.0.1", "b.test", "a.test", mirror(CHILDREN_A)),
        st.conn("v6", "fd77::2", "fd77::1", "b.test", "a.test", mirror(CHILDREN_A6))])


def installed(env):
    return [c for c in env.child_sas("A") if c["state"] == "INSTALLED"]


def gateway_state(env, children):
    """(want, got SAs, rules, protected) for the CHILD_SAs children."""
    want = set()
    for c in children:
        want.add(("in", c["spi_in"]))
        want.add(("out", c["spi_out"]))
    sps = env.gw_sps()
    protected = {(("in" if " in " in l else "out"), int(re.search(r"protect (\d+)", l).group(1)))
                 for l in sps if "protect" in l}
    return want, env.gw_sas(), sps, protected


def expect_gateway_holds(env, names, what, timeout=15):
    """
    The gateway's SAs and rules of owner test are exactly those of the
    installed CHILD_SAs names (asked again while a rekey is under way: the
    old inbound SA stays for delete_rekeyed_delay).
    """
    end = time.time() + timeout
    while True:
        cs = [c for c in installed(env) if c["name"] in names and "spi_in" in c]
        want, got, sps, protected = gateway_state(env, cs)
        good = len(cs) == len(names) and got == want and len(sps) == 2 * len(cs) and \
            protected == want
        if good or time.time() > end:
            break
        time.sleep(0.5)
    if not good:
        log("charon's CHILD_SAs: %s" % cs)
        log("gateway SAs missing %s, extra %s; rules:\n  %s" % (
            sorted(want - got), sorted(got - want), "\n  ".join(sps)))
    check(good, "%s: the gateway holds exactly the %d SAs of %s and one in and one out "
          "rule on each CHILD_SA's current SAs" % (what, len(want), ",".join(sorted(names))))


def wait_installed(env, names, timeout=30):
    def ok():
        cs = installed(env)
        have = {c["name"] for c in cs if "spi_in" in c}
        return cs if set(names) <= have else None
    return st.wait_for(ok, timeout, step=0.3, what="CHILD_SAs %s installed" % ",".join(names))


ALL = ["net4", "exp4", "cbc4", "ctr4", "net6"]
V4 = [("hA", "hB", "10.77.2.1", 5001), ("hB", "hA", "10.77.1.1", 5002)]
CLASSIC = [("hA", "gB", "10.77.2.254", 5010, "10.77.1.3"),
           ("gB", "hA", "10.77.1.3", 5011, "10.77.2.254"),
           ("hA", "gB", "10.77.2.254", 5012, "10.77.1.4"),
           ("gB", "hA", "10.77.1.4", 5013, "10.77.2.254")]
V6 = [("hA", "hB", "fd77:2::1", 5003), ("hB", "hA", "fd77:1::1", 5004)]


def main():
    build = sys.argv[1]
    gw_args = ["--native"] if "--native" in sys.argv[2:] else []
    env = st.Env(build, "se")
    try:
        env.topology()
        for a in ("10.77.1.2/24", "10.77.1.3/24", "10.77.1.4/24"):
            env.add_addr("hA", "la0", a)
        env.gw_start(args=gw_args)
        env.charon_start("B", "gB", st.plugin_conf_libipsec())
        env.charon_start("A", "gA", st.plugin_conf_vecsec(env), preload=True)
        la = env.charon_log("A")
        check("feature CUSTOM:kernel-ipsec in plugin 'kernel-netlink' failed to load" in la
              and "kernel-vecsec: connected to vecsec-gw" in la,
              "charon A runs kernel-vecsec (kernel-netlink keeps kernel-net only)")
        env.swanctl_load("B", conf_b())
        env.swanctl_load("A", conf_a())

        # 1. establish over IPv4 and IPv6
        t0 = time.time()
        for c in ALL:
            env.swanctl("A", "--initiate", "--child", c)
        cs = wait_installed(env, ALL)
        log("%d CHILD_SAs up in %.1f s" % (len(ALL), time.time() - t0))
        for c in cs:
            check(c["mode"] == "TUNNEL-in-UDP", "%s is tunnel mode in UDP (%s)" % (
                c["name"], c["proposal"]))
        expect_gateway_holds(env, ALL, "established")
        if gw_args:
            # native: charon's ChaCha20-Poly1305 SAs (net4), not its AES-GCM ones (net6)
            types = {}
            for line in env.ctl("list").splitlines():
                m = re.match(r"sa (in|out) (\d+) (\S+) .* cryptodev (\S+)( native)?", line)
                if m:
                    types[m.group(3)] = types.get(m.group(3), set()) | {bool(m.group(5))}
            check(types.get("chacha20-poly1305") == {True} and
                  types.get("aes-256-gcm") == {False},
                  "--native: charon's ChaCha20-Poly1305 SAs are native, AES-GCM on a "
                  "cryptodev (%s)" % types)
        props = {c["name"]: c["proposal"] for c in cs}
        check(props["cbc4"] == "ESP:AES_CBC-128/HMAC_SHA2_256_128" and
              props["ctr4"] == "ESP:AES_CTR-256/HMAC_SHA2_384_192",
              "AES-CBC/HMAC-SHA2-256 and AES-CTR/HMAC-SHA2-384 CHILD_SAs (%s, %s)" % (
                  props["cbc4"], props["ctr4"]))

        # 2. traffic both ways, both families, every algorithm
        # (the first packet of each path gets through before any is counted)
        env.check_traffic(V4 + V6 + CLASSIC, rate=300, count=300, warm=True,
                          what="first traffic")

        # 3. counters (net6 rekeys every 6 s: asked again when its SA went meanwhile)
        for name in ALL:
            for attempt in range(5):
                c = [x for x in installed(env) if x["name"] == name and "spi_in" in x][0]
                q = {d: env.ctl("query", "sa", d, str(c["spi_" + d]), check_rc=False)
                     for d in ("in", "out")}
                if all(v.rstrip().endswith("OK") for v in q.values()):
                    break
                time.sleep(0.5)
            for d in ("in", "out"):
                pk = int(re.search(r"packets (\d+)", q[d]).group(1))
                by = int(re.search(r"bytes (\d+)", q[d]).group(1))
                check(pk == c["packets_" + d] and by == c["bytes_" + d],
                      "%s %s: swanctl %d packets %d bytes == gateway %d packets %d bytes" % (
                          c["name"], d, c["packets_" + d], c["bytes_" + d], pk, by))
        cs = installed(env)
        check(any(c["packets_in"] >= 300 and c["packets_out"] >= 300 for c in cs
                  if c["name"] == "net4"), "net4's counters show the traffic")

        # 4. rekeying under traffic: net4 by bytes (gateway events), net6 by time (plugin)
        def established(name):
            return len(set(re.findall(r"CHILD_SA %s\{(\d+)\} established" % name,
                                      env.charon_log("A"))))
        before = {n: established(n) for n in ("net4", "net6")}
        ev_before = env.charon_log("A").count("vecsec-gw: expire soft")
        count = 6000
        res = env.flows(V4 + V6, rate=300, count=count, size=300)
        rekeys = {n: established(n) - before[n] for n in before}
        log("rekeys during %d s of traffic: net4 %d, net6 %d; gateway soft expire events %d" % (
            count // 300, rekeys["net4"], rekeys["net6"],
            env.charon_log("A").count("vecsec-gw: expire soft") - ev_before))
        env.check_flows(res, count, "traffic while rekeying")
        check(rekeys["net4"] >= 3, "net4 rekeyed %d times by bytes (>= 3)" % rekeys["net4"])
        check(rekeys["net6"] >= 3, "net6 rekeyed %d times by time (>= 3)" % rekeys["net6"])
        expect_gateway_holds(env, ALL, "after the rekeys")

        # 5. hard packet limit on exp4: deleted by the gateway's hard expire, re-created
        old = [c for c in installed(env) if c["name"] == "exp4"][0]
        env.flows([("hA", "gB", "10.77.2.254", 5005, "10.77.1.2")], rate=500, count=150)

        def recreated():
            cs = installed(env)
            e = [c for c in cs if c["name"] == "exp4" and "spi_in" in c]
            return cs if e and e[0]["spi_in"] != old["spi_in"] else None
        cs = st.wait_for(recreated, 30, step=0.3, what="exp4 re-created")
        la = env.charon_log("A")
        check("vecsec-gw: expire hard out %d packets 100" % old["spi_out"] in la and
              "closing expired CHILD_SA exp4" in la,
              "exp4's outbound SA hit its 100-packet hard limit in the gateway; charon "
              "closed the CHILD_SA")
        gs = env.gw_sas()
        check(("in", old["spi_in"]) not in gs and ("out", old["spi_out"]) not in gs,
              "the expired SAs are gone from the gateway")
        expect_gateway_holds(env, ALL, "after the hard expire")

        # 6. terminate: nothing left in the gateway
        env.swanctl("A", "--terminate", "--ike", "v6")
        env.swanctl("A", "--terminate", "--ike", "v4")
        # charon destroys the CHILD_SAs (del_sa, del_policy) right after the DELETE exchange
        st.wait_for(lambda: not env.gw_sas() and not env.gw_sps(), 10, step=0.2,
                    what="the gateway to be empty after --terminate")
        check(True, "swanctl --terminate: no SA, no rule of this charon left in the gateway")

        # 7. charon killed and restarted: the stale SAs are flushed
        env.swanctl("A", "--initiate", "--child", "net4")
        wait_installed(env, ["net4"])
        env.charon_stop("A", signal.SIGKILL)
        stale = env.gw_sas()
        check(len(stale) == 2, "charon A killed: its 2 SAs stay in the gateway (stale)")
        env.charon_start("A", "gA", st.plugin_conf_vecsec(env), preload=True)
        check(not env.gw_sas() and not env.gw_sps(),
              "charon A restarted: the stale SAs and rules were flushed")
        env.swanctl_load("A", conf_a())
        env.swanctl("A", "--initiate", "--child", "net4")
        wait_installed(env, ["net4"])
        expect_gateway_holds(env, ["net4"], "after charon's restart")
        env.check_traffic(V4, rate=300, count=300, what="traffic after charon's restart")

        # 7b. the gateway not scheduled for 2.5 s in the middle of the traffic, as a
        # loaded machine does to its worker: what comes meanwhile waits in its rx
        # rings (750 frames per port), then goes out at once to the peer, whose
        # charon does ESP through its UDP socket; every packet arrives, late
        stall = env.stall_gateway(1.0, 2.5)
        res = env.flows(V4, rate=300, count=900)
        stall.join()
        env.check_flows(res, 900, "traffic with the gateway stopped for 2.5 s")

        # 8. vecsec-gw restarted: the plugin notices, charon re-creates the CHILD_SA
        old = [c for c in installed(env) if c["name"] == "net4"][0]
        env.gw_stop()
        env.gw_start(args=gw_args)

        def back():
            cs = installed(env)
            n = [c for c in cs if c["name"] == "net4" and "spi_in" in c]
            return cs if n and n[0]["spi_in"] != old["spi_in"] and \
                ("in", n[0]["spi_in"]) in env.gw_sas() else None
        cs = st.wait_for(back, 60, step=0.5, what="net4 re-created in the new gateway")
        check("restarted (boot" in env.charon_log("A"),
              "the plugin noticed the gateway's restart (new boot id)")
        expect_gateway_holds(env, ["net4"], "after the gateway's restart")
        env.check_traffic(V4, rate=300, count=300, what="traffic after the gateway's restart")
        check(env.charon_A.poll() is None and env.charon_B.poll() is None,
              "both charons still run")
        log("PASS")
        return 0
    except st.Fail as e:
        log("FAIL: %s" % e)
        env.dump_logs()
        return 1
    finally:
        env.close()


if __name__ == "__main__":
    sys.exit(main())
