#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
vecsec-gw's Prometheus metrics, scraped by Debian's real prometheus.

In a network namespace of its own (the script runs itself under
`unshare --net`: only a loopback, gone with the last process, so no port
can clash with another test's): a gateway with --metrics 127.0.0.1:PORT
sends 64 clear packets through SA out 5 (net_pcap, read once). The
endpoint: GET /metrics answers the text exposition format (`promtool
check metrics` finds nothing wrong when promtool is there), with
vecsec_gw_sa_packets_total{dir="out",spi="5"} 64 once the packets went;
a POST is 405, another path 404, a request line and headers over 4 KiB
431, a client that sends nothing is dropped after 2 s while the next one
is served. Then prometheus scrapes it every 0.5 s; the PromQL query
vecsec_gw_sa_packets_total{spi="5"} over Prometheus's HTTP API (polled,
never a fixed sleep) returns 64, and up{job="vecsec-gw"} 1. prometheus
and the gateway are stopped (SIGTERM), their files and the EAL runtime
folder removed.

usage: metrics_check.py GATEWAY_BINARY
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from scapy.all import IP, UDP, Raw, wrpcap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gwtest  # noqa: E402
from gwtest import eth, hexkey, until  # noqa: E402

KEY = bytes(range(0x10, 0x10 + 36))
NPKT = 64
MPORT = 9466
PPORT = 9090


def http(port, raw, timeout=5.0):
    """Send raw bytes to 127.0.0.1:port, return the whole answer (b"" if none)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        out = b""
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            out += b
    return out


def get_metrics():
    a = http(MPORT, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = a.partition(b"\r\n\r\n")
    return head.decode(errors="replace"), body.decode(errors="replace")


def sample(body, name, labels):
    """The value of metric name{labels...} in an exposition, or None."""
    want = "%s{%s}" % (name, ",".join('%s="%s"' % kv for kv in labels))
    for ln in body.splitlines():
        if ln.startswith(want + " "):
            return float(ln.split()[-1])
    return None


def promql(query):
    """The value of a PromQL instant query over Prometheus's HTTP API, or None."""
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (PPORT, urllib.parse.urlencode(
        {"query": query}))
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            d = json.loads(r.read())
    except (OSError, ValueError):
        return None
    res = d.get("data", {}).get("result", []) if d.get("status") == "success" else []
    return float(res[0]["value"][1]) if len(res) == 1 else None


def main():
    if os.environ.get("VECSEC_METRICS_NETNS") != "1":
        # a network namespace of our own: only lo, gone when we are
        env = dict(os.environ, VECSEC_METRICS_NETNS="1")
        os.execvpe("unshare", ["unshare", "--net", sys.executable] + sys.argv, env)
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    gw = sys.argv[1]
    prom = shutil.which("prometheus")
    if prom is None:
        print("FAIL: no prometheus (scripts/setup.sh installs Debian's prometheus)")
        return 1
    ok = True

    def check(cond, good, bad):
        nonlocal ok
        print(("ok   " + good) if cond else ("FAIL: " + bad))
        ok = ok and bool(cond)
        return cond

    tmp = tempfile.mkdtemp(prefix="vecsec-metrics-")
    prefix = gwtest.file_prefix("metrics")
    g = pr = None
    try:
        pk = [IP(src="192.168.9.1", dst="10.5.0.%d" % (k + 1)) / UDP(sport=1000 + k, dport=53) /
              Raw(b"m" * 40) for k in range(NPKT)]
        wrpcap(os.path.join(tmp, "clear.pcap"), [eth(p) for p in pk])
        cfg = gwtest.write_config(os.path.join(tmp, "gw.cfg"),
                                  "rt ipv4 dst 172.31.0.0/16 port 1\n"
                                  "sa out 5 aead_algo chacha20-poly1305 aead_key %s "
                                  "mode ipv4-tunnel src 172.31.1.1 dst 172.31.2.1\n"
                                  "sp ipv4 out esp protect 5 pri 1 dst 10.5.0.0/16\n"
                                  % hexkey(KEY))
        os.chmod(cfg, 0o600)
        ports = ["--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=/dev/null" %
                 os.path.join(tmp, "clear.pcap"), "--vdev", "net_null1,no-rx=1"]
        # gw_cmd(): EAL gets --no-pci --no-huge -m first (gwrun.eal.SAFE), then these --vdev ports
        g = gwtest.Gateway(gwtest.gw_cmd(gw, prefix, ports, app=[
            "-f", cfg, "-u", "2", "--ctrl", "none", "--metrics", "127.0.0.1:%d" % MPORT]))
        if not g.wait_ready():
            ok = False
            return 1
        # the endpoint itself: the 64 packets counted, a well-formed exposition
        body = until(lambda: (lambda h_b: h_b[1] if sample(
            h_b[1], "vecsec_gw_sa_packets_total", [("dir", "out"), ("spi", "5")]) == NPKT
            else None)(get_metrics()), timeout=30)
        head, last = get_metrics()
        check(body is not None and head.startswith("HTTP/1.1 200 OK") and
              "text/plain; version=0.0.4" in head and
              "# TYPE vecsec_gw_sa_packets_total counter" in last and
              'vecsec_gw_sa_info{dir="out",spi="5",algo="chacha20-poly1305",integ="aead"' in last
              and sample(last, "vecsec_gw_port_rx_packets_total",
                         [("port", "0"), ("side", "clear")]) == NPKT and
              sample(last, "vecsec_gw_worker_rx_packets_total",
                     [("worker", "0"), ("lcore", "0")]) == NPKT and
              sample(last, "vecsec_gw_dropped_packets_total", [("reason", "no_sa")]) == 0,
              "GET /metrics: SA out 5 %d packets, port 0 and worker 0 rx %d, drops by reason"
              % (NPKT, NPKT), "GET /metrics:\n%s\n%s" % (head, last[:3000]))
        promtool = shutil.which("promtool")
        if promtool:
            r = subprocess.run([promtool, "check", "metrics"], input=last,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=30)
            check(r.returncode == 0, "promtool check metrics: no problem",
                  "promtool check metrics: %s" % r.stdout[:2000])
        # bounded, refusing parsing
        a = http(MPORT, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        b = http(MPORT, b"GET /other HTTP/1.1\r\n\r\n")
        c = http(MPORT, b"GET /metrics HTTP/1.1\r\nX-Long: " + b"a" * 5000 + b"\r\n\r\n")
        d = http(MPORT, b"\x00\x01 nonsense\r\n\r\n")
        check(a.startswith(b"HTTP/1.1 405") and b.startswith(b"HTTP/1.1 404") and
              c.startswith(b"HTTP/1.1 431") and d.startswith(b"HTTP/1.1 400"),
              "POST 405, /other 404, 5 KB of headers 431, garbage 400",
              "answers: %r %r %r %r" % (a[:40], b[:40], c[:40], d[:40]))
        silent = socket.create_connection(("127.0.0.1", MPORT))
        t0 = time.monotonic()
        head, _ = get_metrics()
        took = time.monotonic() - t0
        silent.settimeout(10)
        gone = silent.recv(1) == b""
        silent.close()
        check(head.startswith("HTTP/1.1 200") and took < 5 and gone,
              "a client that sends nothing is dropped; the next one served after %.1f s" % took,
              "silent client: next answer %r after %.1f s, dropped %s" % (head[:40], took, gone))
        # Debian's prometheus scrapes it; PromQL over its HTTP API
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 500ms\n  evaluation_interval: 500ms\n"
                    "scrape_configs:\n  - job_name: vecsec-gw\n    scrape_timeout: 400ms\n"
                    "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % MPORT)
        plog = open(os.path.join(tmp, "prometheus.log"), "w+")
        pr = subprocess.Popen([prom, "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                               "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                               "--web.listen-address=127.0.0.1:%d" % PPORT],
                              stdout=plog, stderr=subprocess.STDOUT, cwd=tmp)
        q = 'vecsec_gw_sa_packets_total{job="vecsec-gw",dir="out",spi="5"}'
        got = until(lambda: promql(q) == NPKT, timeout=60)
        up = promql('up{job="vecsec-gw"}')
        if not check(got and up == 1, "prometheus scraped it: PromQL %s = %d, up = 1" %
                     (q, NPKT), "PromQL %s = %s, up = %s" % (q, promql(q), up)):
            plog.seek(0)
            print(plog.read()[-3000:])
        pr.send_signal(signal.SIGTERM)
        check(pr.wait(timeout=60) == 0, "prometheus stopped (SIGTERM, exit 0)",
              "prometheus exit %s" % pr.returncode)
        pr = None
        rc, out = g.stop()
        g = None
        check(rc == 0 and "Prometheus metrics on http://127.0.0.1:%d/metrics" % MPORT in out,
              "gateway: exit 0 after SIGTERM", "gateway exit %s:\n%s" % (rc, out[-2000:]))
    finally:
        if pr is not None:
            pr.kill()
            pr.wait()
        if g is not None:
            g.kill()
            if not ok:
                print(g.output()[-3000:])
        gwtest.cleanup(tmp, prefix)
    return gwtest.finish(ok)


if __name__ == "__main__":
    sys.exit(main())
