# SPDX-License-Identifier: BSD-3-Clause
"""
The files a gateway run reads and writes: keys as the configuration syntax
writes them, configuration files, pcap files (plain Ethernet frames).
"""
import os
import struct

# pcap global header: little-endian magic, v2.4, snaplen 65535, Ethernet
PCAP_HEADER = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)


def keygen(mul, step, add):
    """
    A key maker key(tag, n): n bytes (tag * mul + i * step + add) & 0xff.
    Each user picks its own constants so its SAs' keys differ from others'.
    """
    def key(tag, n):
        return bytes((tag * mul + i * step + add) & 0xff for i in range(n))
    return key


def hexkey(b):
    """Key bytes as the configuration file writes them: aa:bb:cc..."""
    return ":".join("%02x" % x for x in b)


def write_config(path, text, mode=None):
    """
    Write a gateway configuration file; returns its path. mode (e.g. 0o600:
    the gateway warns about key files others can read) is set when given.
    """
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)
    return path


def write_pcap(path, frames=()):
    """A pcap file of raw Ethernet frames (bytes); with none, the header only."""
    with open(path, "wb") as f:
        f.write(PCAP_HEADER)
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)
    return path


def read_pcap(path):
    """Frames (bytes) of a pcap file (usec or nsec, either byte order), streamed."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        endian = "<" if hdr[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(endian + "I", rec[8:12])[0]
            yield f.read(incl)
