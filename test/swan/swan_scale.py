# SPDX-License-Identifier: BSD-3-Clause
"""
kernel-vecsec at scale: N CHILD_SAs (default 1000) in one IKE_SA between
charon A (kernel-vecsec, vecsec-gw) and charon B (kernel-libipsec), in
swantest.py's namespaces. Debian ships no load-tester plugin, so the
CHILD_SAs are N children of one connection: A's side i protects
10.78.i/32 (i = 1..N), B's side 10.79.0.0/16, ChaCha20-Poly1305.

  - start_action = start: all N installed (however long a loaded machine
    takes: the test fails only once no SA came for STALL seconds, with
    where it stopped); the gateway then holds
    exactly 2N SAs and 2N rules of this charon; install rate printed
    (CHILD_SAs and gateway SAs per second, from the first request to the
    last CHILD_SA installed)
  - numbered UDP both ways on a sample of the CHILD_SAs (spread over the
    range): every packet once; each sampled SA's gateway counters show it
  - swanctl --terminate: the gateway is empty again (delete rate printed)

    swan_scale.py BUILD_DIR [N]
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import swantest as st  # noqa: E402
from swantest import check, log  # noqa: E402


# seconds without a new SA (or one gone, at the end) before the test gives up
# (SWAN_STALL: another, e.g. to see its diagnostic)
STALL = float(os.environ.get("SWAN_STALL", "60"))


def addr_a(k):
    return "10.78.%d.%d" % (k >> 8, k & 255)


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    env = st.Env(build, "ss")
    try:
        env.topology()
        env.add_addr("gB", "lb1", "10.79.255.254/16")
        env.add_addr("hB", "lb0", "10.79.0.1/16")
        sample = sorted({1, 2, n // 4, n // 2, 3 * n // 4, n - 1, n} | {k for k in range(97, n, 211)})
        for k in sample:
            env.add_addr("hA", "la0", addr_a(k) + "/32")
        st.sh(["ip", "route", "add", "10.79.0.0/16", "via", "10.77.1.254"], ns=env.ns["hA"])
        env.gw_start(extra_rt=["rt ipv4 dst 10.78.0.0/16 port 0"])
        env.charon_start("B", "gB", st.plugin_conf_libipsec())
        env.charon_start("A", "gA", st.plugin_conf_vecsec(env), preload=True)
        ca, cb = {}, {}
        for k in range(1, n + 1):
            ca["c%d" % k] = {"mode": "tunnel", "local_ts": addr_a(k) + "/32",
                             "remote_ts": "10.79.0.0/16", "esp_proposals": "chacha20poly1305",
                             "start_action": "start"}
            cb["c%d" % k] = {"mode": "tunnel", "local_ts": "10.79.0.0/16",
                             "remote_ts": addr_a(k) + "/32",
                             "esp_proposals": "chacha20poly1305", "start_action": "none"}
        env.swanctl_load("B", st.swanctl_conf([st.conn("big", "10.77.0.2", "10.77.0.1",
                                                       "b.test", "a.test", cb)]))
        # start_action = start: loading initiates every child (one IKE_SA, queued CHILD_SAs)
        t0 = time.time()
        env.swanctl_load("A", st.swanctl_conf([st.conn("big", "10.77.0.1", "10.77.0.2",
                                                       "a.test", "b.test", ca)]))

        # a loaded machine makes this slow, not wrong: fail only when no SA came
        # for STALL seconds, saying where it stopped and what each charon was doing
        def where():
            return "\n".join([env.ike_state("A"), env.ike_state("B")])
        st.wait_progress(lambda: len(env.gw_sas()), lambda k: k >= 2 * n, STALL,
                         "%d SAs in the gateway" % (2 * n), where)
        sas = env.gw_sas()
        dt = time.time() - t0
        cs = [c for c in env.child_sas("A") if c["state"] == "INSTALLED"]
        log("%d CHILD_SAs installed through kernel-vecsec in %.1f s: %.0f CHILD_SAs/s, "
            "%.0f gateway SAs/s (each: spi alloc, 2 sa, 2 sp rules)" % (len(cs), dt, len(cs) / dt,
                                                                       2 * len(cs) / dt))
        check(len(cs) == n, "charon A has %d CHILD_SAs installed" % len(cs))
        want = {("in", c["spi_in"]) for c in cs} | {("out", c["spi_out"]) for c in cs}
        check(sas == want, "the gateway holds exactly their %d SAs" % len(want))
        check(len(env.gw_sps()) == 2 * n, "the gateway holds %d rules (in and out per "
              "CHILD_SA)" % (2 * n))

        # traffic on a sample
        specs = []
        for i, k in enumerate(sample):
            specs.append(("hA", "hB", "10.79.0.1", 6000 + i, addr_a(k)))
            specs.append(("hB", "hA", addr_a(k), 7000 + i, "10.79.0.1"))
        env.check_traffic(specs, rate=100, count=100, size=120,
                          what="traffic on %d sampled CHILD_SAs" % len(sample))
        byname = {c["name"]: c for c in cs}
        for k in sample:
            c = byname["c%d" % k]
            for d in ("in", "out"):
                q = env.ctl("query", "sa", d, str(c["spi_" + d]))
                pk = int(re.search(r"packets (\d+)", q).group(1))
                check(pk == 100, "c%d %s SA %d: the gateway counted the 100 packets" % (
                    k, d, c["spi_" + d]))

        t0 = time.time()
        env.swanctl("A", "--terminate", "--ike", "big", "--timeout", "300", timeout=400)
        st.wait_progress(lambda: (len(env.gw_sas()), len(env.gw_sps())), lambda v: v == (0, 0),
                         STALL, "the gateway to be empty (SAs, rules)", where)
        dt = time.time() - t0
        log("%d CHILD_SAs removed in %.1f s: %.0f CHILD_SAs/s" % (n, dt, n / dt))
        check(True, "swanctl --terminate: the gateway is empty")
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
