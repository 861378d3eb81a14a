# SPDX-License-Identifier: BSD-3-Clause
"""
Numbered UDP datagrams for the strongSwan tests.

    udpflow.py send ADDR PORT COUNT RATE SIZE [SRC[,SRCPORT]]
    udpflow.py recv BIND PORT COUNT SETTLE [PATIENCE]
    udpflow.py probe BIND PORT TIMEOUT

The sender sends COUNT datagrams of SIZE bytes at RATE per second: an
8-byte sequence number, then bytes derived from it (so damage shows); with
COUNT 0 it sends until a line (or end of file) on its stdin and then prints
"sent N". The receiver prints "ready" once bound, then counts what arrives
until it has COUNT distinct numbers, or the last one (COUNT - 1: the path
carries the flow's end, what is missing was lost before it), and SETTLE
seconds passed without a datagram (late duplicates), or, short of both,
PATIENCE seconds (default 20) without one (60 s before the first; 180 s in
all). With COUNT 0 the count comes as a line on its stdin (the sender's
"sent N"); until then only PATIENCE ends it. It prints {"got", "dup", "bad",
"missing", "first", "last", "gap", "gap_end", "top"} as JSON (gap: the
longest silence between two datagrams, in seconds, gap_end the
CLOCK_MONOTONIC time of the datagram that ended it; top: the highest
number received). A path that stalls for a few seconds
on a loaded machine (a gateway worker not scheduled) delays datagrams but
loses none if they had room to wait: the receiver waits for them rather
than calling them lost.
"""
import json
import select
import socket
import struct
import sys
import time


def body(seq, size):
    return struct.pack(">Q", seq) + bytes((seq * 7 + i) & 0xff for i in range(size - 8))


def send(addr, port, count, rate, size, src=None):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if src:
        a, _, p = src.partition(",")
        s.bind((a, int(p or 0)))
    t0 = time.monotonic()
    seq = 0
    while count == 0 or seq < count:
        due = t0 + seq / rate
        now = time.monotonic()
        if count == 0:
            # until told: a line or end of file on stdin
            if select.select([sys.stdin], [], [], max(due - now, 0))[0]:
                break
        elif due > now:
            time.sleep(due - now)
        while True:
            try:
                s.sendto(body(seq, size), (addr, port))
                break
            except OSError:
                time.sleep(0.001)       # ENOBUFS/EAGAIN: try again, never skip a number
        seq += 1
    print("sent %d" % seq, flush=True)


def recv(bind, port, count, settle, patience=20.0):
    fam = socket.AF_INET6 if ":" in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((bind, port))
    print("ready", flush=True)
    seen = set()
    dup = bad = 0
    first = last = None
    gap = 0.0
    gap_end = None
    start = time.monotonic()
    s.settimeout(min(settle, 0.5))
    told = count > 0
    while time.monotonic() - start < 180:
        if not told and select.select([sys.stdin], [], [], 0)[0]:
            line = sys.stdin.readline()
            count = int(line) if line.strip().isdigit() else 0
            told = True
        try:
            data, _ = s.recvfrom(65536)
        except socket.timeout:
            quiet = time.monotonic() - (last if last is not None else start)
            done = told and (len(seen) >= count or count - 1 in seen)
            if quiet > (settle if done else patience if first is not None else 60):
                break
            continue
        now = time.monotonic()
        if last is not None and now - last > gap:
            gap, gap_end = now - last, now
        first = first or now
        last = now
        if len(data) < 8:
            bad += 1
            continue
        seq = struct.unpack(">Q", data[:8])[0]
        if (told and seq >= count) or data != body(seq, len(data)):
            bad += 1
        elif seq in seen:
            dup += 1
        else:
            seen.add(seq)
    bad += sum(1 for x in seen if x >= count)     # past what the sender said it sent
    seen = {x for x in seen if x < count}
    print(json.dumps({"got": len(seen), "dup": dup, "bad": bad,
                      "missing": sorted(set(range(count)) - seen)[:20],
                      "first": first, "last": last, "gap": round(gap, 3),
                      "gap_end": gap_end, "top": max(seen) if seen else -1}))


def probe(bind, port, timeout):
    """Wait for any one datagram (swantest.Env.warm): {"got": 1} or {"got": 0}."""
    fam = socket.AF_INET6 if ":" in bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((bind, port))
    print("ready", flush=True)
    s.settimeout(timeout)
    try:
        s.recvfrom(65536)
        got = 1
    except socket.timeout:
        got = 0
    print(json.dumps({"got": got}))


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        probe(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
             int(sys.argv[6]), sys.argv[7] if len(sys.argv) > 7 else None)
    else:
        recv(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]),
             *[float(x) for x in sys.argv[6:7]])
