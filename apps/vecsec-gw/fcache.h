/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw flow caches: a worker's last answers to a lookup whose key is
 * 40 bytes (the SPD's 5-tuple, the SAD's SPI and addresses), one cache line
 * an entry, two-way set-associative: a key's set is two entries side by side
 * (one 128-byte aligned pair, which the hardware tends to fetch together);
 * the newest answer goes into way 0 and the one there moves to way 1, so a
 * key is read from way 0 alone unless another key of its set came later.
 * (Direct-mapped at twice the SA count, about one lookup in six found
 * another flow's entry with 100,000 uniform flows.) An entry
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
	struct gw_fc_ent *ent;          /* sets of GW_FC_WAYS entries */
	uint32_t mask;                  /* sets - 1 */
	uint64_t hit, miss;             /* written by the worker, read by the control thread */
};

#define GW_FC_WAYS 2

/* gw_fc_create(), gw_fc_free(), gw_fc_mem(), gw_fc_counts(): gw_dp.h */

/* The set for key (40 bytes, 8-byte aligned, unused bytes zero), its way 0 prefetched. */
static inline struct gw_fc_ent *
gw_fc_slot(const struct gw_fc *c, const void *key)
{
	const uint64_t *w = key;
	uint32_t h = 0x9e3779b9u;
	struct gw_fc_ent *e;

	for (unsigned int i = 0; i < GW_FC_KEY / 8; i++)
		h = rte_hash_crc_8byte(w[i], h);
	e = &c->ent[(size_t)(h & c->mask) * GW_FC_WAYS];
	rte_prefetch0(e);
	return e;
}

static inline bool
gw_fc_match(const struct gw_fc_ent *e, uint64_t gen, const uint64_t *k)
{
	return e->gen == gen && ((e->key[0] ^ k[0]) | (e->key[1] ^ k[1]) | (e->key[2] ^ k[2]) |
				 (e->key[3] ^ k[3]) | (e->key[4] ^ k[4])) == 0;
}

/*
 * The entry of set (gw_fc_slot()) that holds key for generation gen (its
 * ans is the answer), or NULL. Way 1 is read only when way 0 holds another key.
 */
static inline const struct gw_fc_ent *
gw_fc_hit(const struct gw_fc_ent *set, uint64_t gen, const void *key)
{
	if (gw_fc_match(&set[0], gen, key))
		return &set[0];
	if (gw_fc_match(&set[1], gen, key))
		return &set[1];
	return NULL;
}

/*
 * Cache an answer in set: into way 0, a current answer there moving to way 1
 * (the older of the two is the one dropped); a key already in way 0 (two
 * packets of one new flow in a burst) is only refreshed.
 */
static inline void
gw_fc_fill(struct gw_fc_ent *set, uint64_t gen, const void *key, const void *ans, uint64_t aux)
{
	const uint64_t *k = key;

	if (!gw_fc_match(&set[0], gen, k)) {
		if (set[0].gen == gen)  /* another key's current answer (a stale one just goes) */
			set[1] = set[0];
		for (unsigned int i = 0; i < GW_FC_KEY / 8; i++)
			set[0].key[i] = k[i];
	}
	set[0].gen = gen;
	set[0].ans = ans;
	set[0].aux = aux;
}

static inline void
gw_fc_count(struct gw_fc *c, uint32_t hits, uint32_t misses)
{
	__atomic_store_n(&c->hit, c->hit + hits, __ATOMIC_RELAXED);
	if (misses != 0)
		__atomic_store_n(&c->miss, c->miss + misses, __ATOMIC_RELAXED);
}

#endif /* VECSEC_GW_FCACHE_H */
