# SPDX-License-Identifier: BSD-3-Clause
"""
EAL command lines and runtime folders. Every DPDK start from Python goes
through eal_args() or carries SAFE: no PCI probing, no hugepages, a memory
size, a file prefix of its own (runs side by side never share EAL locks).
"""
import os
import shutil

# never probe PCI, never take hugepages (the machines these run on share them)
SAFE = ["--no-pci", "--no-huge"]


def eal_args(prefix, lcores="0", mem_mb=512, log_level="*:warning"):
    """The EAL options a gateway run starts with: lcores, SAFE, -m, the file prefix."""
    return ["-l", lcores] + SAFE + ["-m", str(mem_mb), "--file-prefix", prefix,
                                    "--log-level", log_level]


def file_prefix(tag):
    """An EAL --file-prefix of this process alone (tests run side by side)."""
    return "vecsec-gw-%s-%d" % (tag, os.getpid())


def run_dirs(prefix):
    """Where EAL may keep the runtime folder of a file prefix (root, then user)."""
    d = [os.path.join("/var/run/dpdk", prefix)]
    if os.environ.get("XDG_RUNTIME_DIR"):
        d.append(os.path.join(os.environ["XDG_RUNTIME_DIR"], "dpdk", prefix))
    return d


def cleanup(prefix):
    """EAL leaves its runtime folder behind; remove the one of this prefix."""
    for d in run_dirs(prefix):
        shutil.rmtree(d, ignore_errors=True)
