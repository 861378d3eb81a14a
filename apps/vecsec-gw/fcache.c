/* SPDX-License-Identifier: BSD-3-Clause */
/* vecsec-gw flow caches (fcache.h): allocation and counts. */
#include "gw_dp.h"
#include "fcache.h"

#include <rte_malloc.h>

struct gw_fc *
gw_fc_create(const char *name, unsigned int entries, int socket)
{
	struct gw_fc *c;

	RTE_BUILD_BUG_ON(sizeof(struct gw_fc_ent) != 64);
	if (entries == 0 || (entries & (entries - 1)) != 0)
		return NULL;
	c = rte_zmalloc_socket(name, sizeof(*c), RTE_CACHE_LINE_SIZE, socket);
	if (c == NULL)
		return NULL;
	/* entries in sets of GW_FC_WAYS (one set at least), each set one aligned pair of lines */
	entries = RTE_MAX(entries, (unsigned int)GW_FC_WAYS);
	c->ent = rte_zmalloc_socket(name, (size_t)entries * sizeof(c->ent[0]),
				    GW_FC_WAYS * RTE_CACHE_LINE_SIZE, socket);
	if (c->ent == NULL) {
		rte_free(c);
		return NULL;
	}
	c->mask = entries / GW_FC_WAYS - 1;
	return c;
}

void
gw_fc_free(struct gw_fc *c)
{
	if (c == NULL)
		return;
	rte_free(c->ent);
	rte_free(c);
}

size_t
gw_fc_mem(const struct gw_fc *c)
{
	return c != NULL ? sizeof(*c) + ((size_t)c->mask + 1) * GW_FC_WAYS * sizeof(c->ent[0]) : 0;
}

void
gw_fc_counts(const struct gw_fc *c, uint64_t *hit, uint64_t *miss)
{
	*hit = c != NULL ? __atomic_load_n(&c->hit, __ATOMIC_RELAXED) : 0;
	*miss = c != NULL ? __atomic_load_n(&c->miss, __ATOMIC_RELAXED) : 0;
}
