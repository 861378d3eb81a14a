/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw flow caches: a worker's last answers to a lookup whose key is
 * 40 bytes (the SPD's 5-tuple, the SAD's SPI and addresses), one cache line
 * an entry, direct-mapped: a colliding key replaces the entry. An entry
 * answers only for the generation of the table it came from (the SPD
 * list's, the SAD's change count): a generation is never given out twice,
 * so a change to the table makes every older answer a miss, and an answer
 * (a pointer into the table's objects) is never used after the change that
 * could free what it points to. Per worker, never shared; the counts are
 * read by the control thread.
 *
 * With 100,000 SAs every lookup structure walks lines spread over
 * megabytes (rte_acl's trie; rte_ipsec_sad: two rte_hash tables, each a
 * bucket and a key line); a hit is one line. VPP's IPsec has the same idea
 * for its SPD (its flow cache).
 */
#ifndef VECSEC_GW_FCACHE_H
#define VECSEC_GW_FCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_hash_crc.h>
#include <rte_prefetch.h>

#define GW_FC_KEY 40

struct gw_fc_ent {
	uint64_t gen;                   /* the table's generation, 0: empty */
	const void *ans;                /* NULL: the table had no answer (cached too) */
	uint64_t key[GW_FC_KEY / 8];
	uint64_t aux;                   /* the user's: what of the answer a hit needs */
};

struct gw_fc {
	struct gw_fc_ent *ent;
	uint32_t mask;
	uint64_t hit, miss;             /* written by the worker, read by the control thread */
};

/* gw_fc_create(), gw_fc_free(), gw_fc_mem(), gw_fc_counts(): gw_dp.h */

/* The entry for key (40 bytes, 8-byte aligned, unused bytes zero), prefetched. */
static inline struct gw_fc_ent *
gw_fc_slot(const struct gw_fc *c, const void *key)
{
	const uint64_t *w = key;
	uint32_t h = 0x9e3779b9u;
	struct gw_fc_ent *e;

	for (unsigned int i = 0; i < GW_FC_KEY / 8; i++)
		h = rte_hash_crc_8byte(w[i], h);
	e = &c->ent[h & c->mask];
	rte_prefetch0(e);
	return e;
}

/* Whether entry e holds key for generation gen (then e->ans is the answer). */
static inline bool
gw_fc_hit(const struct gw_fc_ent *e, uint64_t gen, const void *key)
{
	const uint64_t *k = key;

	return e->gen == gen && ((e->key[0] ^ k[0]) | (e->key[1] ^ k[1]) | (e->key[2] ^ k[2]) |
				 (e->key[3] ^ k[3]) | (e->key[4] ^ k[4])) == 0;
}

static inline void
gw_fc_fill(struct gw_fc_ent *e, uint64_t gen, const void *key, const void *ans, uint64_t aux)
{
	const uint64_t *k = key;

	e->gen = gen;
	e->ans = ans;
	e->aux = aux;
	for (unsigned int i = 0; i < GW_FC_KEY / 8; i++)
		e->key[i] = k[i];
}

static inline void
gw_fc_count(struct gw_fc *c, uint32_t hits, uint32_t misses)
{
	__atomic_store_n(&c->hit, c->hit + hits, __ATOMIC_RELAXED);
	if (misses != 0)
		__atomic_store_n(&c->miss, c->miss + misses, __ATOMIC_RELAXED);
}

#endif /* VECSEC_GW_FCACHE_H */
