# SPDX-License-Identifier: BSD-3-Clause
"""
gwrun: running vecsec-gw (and DPDK's ipsec-secgw) from Python, the one
helper package of the gateway's tests (test/gw/, through their harness
gwtest.py) and of its benchmark (gwrun.bench, run by scripts/bench-gw.sh).

  gwrun.eal        the EAL options every start carries (--no-pci, --no-huge,
                   -m), file prefixes, EAL runtime folders and their cleanup
  gwrun.files      keys, configuration files, pcap files
  gwrun.telemetry  DPDK telemetry through the v2 socket of a file prefix
  gwrun.bench      the gateway benchmark driver

Standard library only; scapy is imported by the functions that need it.
Import it from the repository's tools/ folder:

    sys.path.insert(0, os.path.join(REPO, "tools"))
    from gwrun import eal, files
"""
