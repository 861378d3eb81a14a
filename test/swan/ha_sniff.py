# SPDX-License-Identifier: BSD-3-Clause
"""
ESP on the wire for ha_cluster.py, without tcpdump or scapy: an AF_PACKET
socket on one interface (run in its namespace).

    ha_sniff.py capture IFACE OUT     every IPv4 frame with ESP or ESP in UDP
                                      (port 4500, non-zero marker), one line
                                      each: time dir src dst spi seq frame-hex
                                      ("ready" on stdout once bound; stops
                                      on SIGTERM)
    ha_sniff.py replay IFACE FILE     send FILE's frames (lines as above) again

dir: "out" for frames the interface sent (PACKET_OUTGOING), "in" otherwise.
"""
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 3
PACKET_OUTGOING = 4


def esp_of(frame):
    """(src, dst, spi, seq) of an IPv4 ESP / ESP-in-UDP frame, else None."""
    if len(frame) < 14 + 20 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0f) * 4
    if ip[0] >> 4 != 4 or ihl < 20 or len(ip) < ihl + 8:
        return None
    if struct.unpack(">H", ip[6:8])[0] & 0x3fff:
        return None                     # a fragment: not looked into
    src, dst = socket.inet_ntoa(ip[12:16]), socket.inet_ntoa(ip[16:20])
    p = ip[ihl:]
    if ip[9] == 17:
        if len(p) < 16 or struct.unpack(">H", p[2:4])[0] != 4500 and \
                struct.unpack(">H", p[0:2])[0] != 4500:
            return None
        p = p[8:]
        if p[:4] == b"\0\0\0\0":
            return None                 # IKE on 4500 (non-ESP marker)
    elif ip[9] != 50:
        return None
    if len(p) < 8:
        return None
    spi, seq = struct.unpack(">II", p[:8])
    return src, dst, spi, seq


def capture(iface, out):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.bind((iface, 0))
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    s.settimeout(0.2)
    print("ready", flush=True)
    with open(out, "w") as f:
        while not stop:
            try:
                frame, addr = s.recvfrom(65535)
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            e = esp_of(frame)
            if e is None:
                continue
            f.write("%.6f %s %s %s %u %u %s\n" % (time.monotonic(), "out" if addr[2] ==
                                                  PACKET_OUTGOING else "in", e[0], e[1], e[2],
                                                  e[3], frame.hex()))
            f.flush()


def replay(iface, path):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    n = 0
    with open(path) as f:
        for line in f:
            s.send(bytes.fromhex(line.split()[6]))
            n += 1
            if n % 50 == 0:
                time.sleep(0.01)        # no burst larger than the gateway's ring
    print("sent %d" % n)


if __name__ == "__main__":
    if sys.argv[1] == "capture":
        capture(sys.argv[2], sys.argv[3])
    else:
        replay(sys.argv[2], sys.argv[3])
