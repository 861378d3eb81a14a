/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory hardening: key material and DPDK's memory out of core dumps (or
 * no core dump at all, --no-coredump), and transparent huge pages asked
 * for where DPDK runs without hugepages.
 */
#include "gw_main.h"
#include "gw_log.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <rte_eal.h>
#include <rte_memory.h>

static int
mem_dontdump(const struct rte_memseg_list *msl, void *arg)
{
	unsigned int *failed = arg;

	if (msl->base_va != NULL && msl->len != 0 &&
			madvise(msl->base_va, msl->len, MADV_DONTDUMP) != 0)
		(*failed)++;
	return 0;
}

static int
mem_hugepage(const struct rte_memseg_list *msl, void *arg)
{
	(void)arg;
	if (msl->base_va != NULL && msl->len != 0)
		(void)madvise(msl->base_va, msl->len, MADV_HUGEPAGE);
	return 0;
}

/*
 * Without hugepages (--no-huge) DPDK's memory is ordinary 4 KiB pages, and
 * with many SAs nearly every per-SA line a packet reads is also a TLB
 * miss. Ask for transparent huge pages there, before the pools are
 * filled. Best effort, and often without effect: DPDK 22.11 maps --no-huge
 * memory from a memfd, which is shared memory, so the kernel honours the
 * advice only where transparent huge pages are enabled for shared memory
 * (/sys/kernel/mm/transparent_hugepage/shmem_enabled `advise` or `always`;
 * Debian's default is `never`). Production runs on hugepages
 * (docs/operations.md).
 */
void
gw_thp_advise(void)
{
	if (!rte_eal_has_hugepages())
		rte_memseg_list_walk(mem_hugepage, NULL);
}

/*
 * Keep key material out of core dumps. The configuration tables are on
 * pages of their own already (gw_secret_alloc()). The cryptodev and
 * rte_security sessions, which hold the keys (and their schedules) from
 * now on, live in DPDK's memory, as do the packets: every memory segment
 * list EAL has at this point (the session pools were made by
 * gw_sa_setup(), sessions added later come from them) is marked
 * MADV_DONTDUMP. --no-coredump gives up core dumps altogether.
 */
void
gw_keys_out_of_dumps(bool no_coredump)
{
	unsigned int failed = 0;

	rte_memseg_list_walk(mem_dontdump, &failed);
	if (failed != 0)
		GW_LOG(WARNING, "%u DPDK memory areas could not be left out of core dumps", failed);
	if (no_coredump) {
		struct rlimit rl = { 0, 0 };

		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || setrlimit(RLIMIT_CORE, &rl) != 0)
			GW_LOG(ERR, "--no-coredump: %s", strerror(errno));
	}
}
