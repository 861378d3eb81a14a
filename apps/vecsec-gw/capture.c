/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw packet capture by DPDK's multi-process tools: rte_pdump_init()
 * at start (unless --no-pdump), so that dpdk-dumpcap or dpdk-pdump, run as
 * secondary processes with the gateway's --file-prefix, can ask for copies
 * of a port's packets. Costs nothing until one asks: the rx/tx callbacks
 * exist only while a capture runs.
 *
 * A secondary process must map the primary's memory, and EAL (22.11) can
 * attach one only to a primary whose memory lives in hugepage files:
 * with --in-memory (and --no-shconf) there is no shared configuration and
 * no IPC at all; with --no-huge the memory is an anonymous memfd that no
 * other process can open, and no hugepage map is written for it. Said at
 * start, so an operator knows why dpdk-dumpcap cannot attach
 * (docs/operations.md, "Capturing packets").
 */
#include "gw_main.h"
#include "gw_log.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_pdump.h>

static bool pdump_on;

int
gw_capture_init(void)
{
	bool huge = rte_eal_has_hugepages() != 0;
	char cfg[PATH_MAX];
	bool shared;

	/* the shared configuration a secondary reads (none with --in-memory, --no-shconf) */
	snprintf(cfg, sizeof(cfg), "%s/config", rte_eal_get_runtime_dir());
	shared = access(cfg, F_OK) == 0;

	if (rte_pdump_init() != 0) {
		GW_LOG(ERR, "rte_pdump_init: %s (--no-pdump runs without packet capture)",
		       rte_strerror(rte_errno));
		return -1;
	}
	pdump_on = true;
	if (!shared)
		GW_LOG(INFO, "packet capture (rte_pdump) is on, but EAL shares nothing with other "
		       "processes (--in-memory or --no-shconf): dpdk-dumpcap cannot attach");
	else if (!huge)
		GW_LOG(INFO, "packet capture (rte_pdump) is on, but EAL runs without hugepages "
		       "(--no-huge): dpdk-dumpcap cannot attach, no other process can map this "
		       "gateway's memory");
	else
		GW_LOG(INFO, "packet capture: dpdk-dumpcap --file-prefix <this EAL file prefix> "
		       "-i PORT");
	return 0;
}

void
gw_capture_fini(void)
{
	if (pdump_on)
		rte_pdump_uninit();
	pdump_on = false;
}
