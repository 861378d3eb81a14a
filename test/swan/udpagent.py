# SPDX-License-Identifier: BSD-3-Clause
"""
A UDP agent for the host path tests (host_spd.py), run in a network
namespace: one JSON request a line on stdin, one JSON answer a line on
stdout.

    {"op": "open", "addr": A, "port": P}     a socket bound to A:P -> {"id": N}
    {"op": "send", "id": N, "dst": D, "dport": Q, "hex": H}
                                             datagram H (hex) from socket N to D:Q
    {"op": "got", "id": N}                   what socket N received so far:
                                             {"got": [[src, sport, hex], ...]}

Each socket has a thread that keeps what arrives; the caller polls `got`.
"""
import json
import socket
import sys
import threading

socks = []
lock = threading.Lock()


def reader(s, got):
    while True:
        try:
            data, src = s.recvfrom(65535)
        except OSError:
            return
        with lock:
            got.append([src[0], src[1], data.hex()])


def main():
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "open":
                fam = socket.AF_INET6 if ":" in req["addr"] else socket.AF_INET
                s = socket.socket(fam, socket.SOCK_DGRAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if fam == socket.AF_INET6:      # beside an IPv4 socket of the same port
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                s.bind((req["addr"], req["port"]))
                got = []
                socks.append((s, got))
                threading.Thread(target=reader, args=(s, got), daemon=True).start()
                ans = {"id": len(socks) - 1}
            elif req["op"] == "send":
                s = socks[req["id"]][0]
                s.sendto(bytes.fromhex(req["hex"]), (req["dst"], req["dport"]))
                ans = {"sent": True}
            elif req["op"] == "got":
                with lock:
                    ans = {"got": list(socks[req["id"]][1])}
            else:
                ans = {"error": "unknown op"}
        except OSError as e:
            ans = {"error": str(e)}
        print(json.dumps(ans), flush=True)


if __name__ == "__main__":
    main()
