# SPDX-License-Identifier: BSD-3-Clause
"""
Two vecsec peers: charon + kernel-vecsec + vecsec-gw on both sides
(swantest.py's namespaces, gB a second gateway). Without kernel-libipsec
there is no NAT and no forced UDP encapsulation, so this is what the
libipsec interop cannot show:

  - raw ESP (no UDP) over IPv4, with ESN, and the private-use ARIA-GCM
    transform (proposal keyword aria256gcm16, accept_private_algs on both):
    numbered UDP both ways, every packet once; a rekey under traffic
  - transport mode between the two gateways' own addresses (10.77.0.1 and
    10.77.0.2, UDP between ports 5300-5399 and 7700-7799): the hosts' traffic leaves through the
    exception path, the outbound SPD encrypts it, the peer decrypts and
    hands it to its host, both ways; IKE between the same addresses is not
    caught (other ports, and the IKE sockets' bypass)

    swan_pair.py BUILD_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402


def children(side):
    a, b = ("10.77.1.0/24", "10.77.2.0/24") if side == "A" else ("10.77.2.0/24", "10.77.1.0/24")
    me, peer = ("10.77.0.1", "10.77.0.2") if side == "A" else ("10.77.0.2", "10.77.0.1")
    return {
        "aria": {"mode": "tunnel", "local_ts": a, "remote_ts": b,
                 "esp_proposals": "aria256gcm16-esn", "start_action": "none"},
        # UDP between A's ports 5300-5399 and B's 7700-7799 (IKE's are elsewhere)
        "host": {"mode": "transport",
                 "local_ts": "%s/32[udp/%s]" % (me, "5300-5399" if side == "A" else "7700-7799"),
                 "remote_ts": "%s/32[udp/%s]" % (peer, "7700-7799" if side == "A" else
                                                 "5300-5399"),
                 "esp_proposals": "chacha20poly1305", "start_action": "none"},
    }


def main():
    env = st.Env(sys.argv[1], "sp")
    try:
        env.topology(peer="vecsec")
        env.gw_start(side="A")
        env.gw_start(side="B")
        priv = "accept_private_algs = yes"
        env.charon_start("B", "gB", st.plugin_conf_vecsec(env, extra=priv, port_nat_t=4500,
                                                           side="B"), preload=True)
        env.charon_start("A", "gA", st.plugin_conf_vecsec(env, extra=priv, port_nat_t=4500),
                         preload=True)
        for side, me, peer, lid, rid in (("B", "10.77.0.2", "10.77.0.1", "b.test", "a.test"),
                                         ("A", "10.77.0.1", "10.77.0.2", "a.test", "b.test")):
            env.swanctl_load(side, st.swanctl_conf([st.conn("c", me, peer, lid, rid,
                                                            children(side))]))
        for c in ("aria", "host"):
            env.swanctl("A", "--initiate", "--child", c)
        cs = {c["name"]: c for c in env.child_sas("A") if c["state"] == "INSTALLED"}
        check(set(cs) == {"aria", "host"}, "both CHILD_SAs up between two vecsec peers")
        check(cs["aria"]["mode"] == "TUNNEL" and cs["aria"]["proposal"] == "ESP:(65101)-288/ESN",
              "aria: plain ESP (no UDP), ESN negotiated (%s %s)" % (cs["aria"]["mode"],
                                                                  cs["aria"]["proposal"]))
        check(cs["host"]["mode"] == "TRANSPORT", "host: transport mode")
        for side in ("A", "B"):
            lst = env.ctl("list", side=side)
            check(re.search(r"^sa in \d+ aria-256-gcm ipv4-tunnel", lst, re.M) and
                  re.search(r"^sa out \d+ aria-256-gcm ipv4-tunnel", lst, re.M) and
                  re.search(r"^sa in \d+ chacha20-poly1305 transport", lst, re.M),
                  "gateway %s: ARIA-256-GCM tunnel SAs and ChaCha20-Poly1305 transport SAs" %
                  side)

        tun = [("hA", "hB", "10.77.2.1", 5201), ("hB", "hA", "10.77.1.1", 5202)]
        trs = [("gA", "gB", "10.77.0.2", 7777, "10.77.0.1,5301"),
               ("gB", "gA", "10.77.0.1", 5302, "10.77.0.2,7778")]
        env.check_traffic(tun + trs, rate=300, count=400,
                          what="ARIA tunnel and host-to-host transport traffic")
        for side in ("A", "B"):
            st_ = env.ctl("stats", side=side)
            m = re.search(r"host: to the host (\d+) from the host (\d+)", st_)
            check(m and int(m.group(1)) >= 400,
                  "gateway %s: the decrypted transport traffic went to its host (%s)" %
                  (side, m.group(0) if m else "no host counters"))
        cs2 = {c["name"]: c for c in env.child_sas("A") if c["state"] == "INSTALLED"}
        check(cs2["host"]["packets_out"] >= 400 and cs2["host"]["packets_in"] >= 400,
              "host: charon A counts the transport packets (%d out, %d in)" % (
                  cs2["host"]["packets_out"], cs2["host"]["packets_in"]))

        # rekey the ARIA CHILD_SA under traffic (ESN, raw ESP): nothing lost
        import threading
        res = {}
        t = threading.Thread(target=lambda: res.update(r=env.flows(tun, rate=300, count=1500)))

        def aria_out():
            return [c for c in env.child_sas("A") if c["name"] == "aria" and
                    c["state"] == "INSTALLED"][0]["packets_out"]
        base = aria_out()
        t.start()
        # under traffic: the rekey starts once charon A counts 300 of this flow's packets
        st.wait_for(lambda: aria_out() >= base + 300, 60, step=0.2,
                    what="ARIA traffic before the rekey")
        env.swanctl("A", "--rekey", "--child", "aria")
        t.join()
        env.check_flows(res["r"], 1500, "ARIA traffic across a rekey")
        new = {c["name"]: c for c in env.child_sas("A") if c["state"] == "INSTALLED"}
        check(new["aria"]["spi_in"] != cs["aria"]["spi_in"], "aria was rekeyed (new SPIs)")
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
