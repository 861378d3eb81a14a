# SPDX-License-Identifier: BSD-3-Clause
"""
DPDK telemetry (the v2 SOCK_SEQPACKET socket EAL opens in its runtime
folder): a connection that answers commands, and one-shot queries by file
prefix.
"""
import json
import os
import socket

from . import eal


class Telemetry:
    """One connection to a telemetry socket; get(cmd) returns the decoded answer."""

    def __init__(self, path, timeout=5):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.s.recv(4096)                               # greeting

    def get(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(1 << 20).decode())

    def close(self):
        self.s.close()


def socket_path(prefix):
    """The telemetry socket of an EAL file prefix, or None while there is none."""
    for d in eal.run_dirs(prefix):
        path = os.path.join(d, "dpdk_telemetry.v2")
        if os.path.exists(path):
            return path
    return None


def query(prefix, cmds):
    """
    Answers of DPDK telemetry (v2 socket of the EAL file prefix) to cmds, or
    None while nobody answers there: no socket yet, or one EAL has bound but
    not yet listens on (a gateway still starting), or one left by a process
    that has gone.
    """
    path = socket_path(prefix)
    if path is None:
        return None
    out = []
    for c in cmds:
        try:
            t = Telemetry(path)
        except (ConnectionRefusedError, FileNotFoundError):
            return None
        try:
            out.append(t.get(c))
        finally:
            t.close()
    return out
