/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMD tests' view of DPDK's heaps: crypto_vecsec keeps ARIA key
 * schedules in rte_malloc memory, which LeakSanitizer cannot see, so the
 * tests compare the bytes in use before and after.
 */
#ifndef VECSEC_TEST_PMD_HEAP_H
#define VECSEC_TEST_PMD_HEAP_H

#include <stddef.h>

#include <rte_lcore.h>
#include <rte_malloc.h>

/* Bytes in use in every rte_malloc heap. */
static inline size_t
heap_allocated(void)
{
	size_t sum = 0;

	for (unsigned int i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			sum += st.heap_allocsz_bytes;
	}
	return sum;
}

#endif /* VECSEC_TEST_PMD_HEAP_H */
