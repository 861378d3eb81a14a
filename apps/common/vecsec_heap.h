/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec_heap_used(): bytes in use in every rte_malloc heap. The gateway
 * measures what its SAD and SPD contexts take with it (before/after), the
 * PMD tests that crypto_vecsec's ARIA key schedules, which live in DPDK's
 * heap where LeakSanitizer cannot see them, are all given back. Header
 * only, as vecsec_eal.h: the callers are separate programs.
 */
#ifndef VECSEC_HEAP_H
#define VECSEC_HEAP_H

#include <stddef.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

static inline size_t
vecsec_heap_used(void)
{
	size_t used = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	}
	return used;
}

#endif /* VECSEC_HEAP_H */
