/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw ESP, what both directions share (esp_crypto.c): the SPD lookup
 * of a burst, the per-SA state fetched early, submission to the cryptodevs
 * (grouping by SA, rte_ipsec prepare or the direct path, enqueue) and
 * completion (dequeue, rte_ipsec process, counting). The per-direction
 * steps it runs per packet are static inline in esp_in.h and esp_out.h, so
 * that neither direction's file calls back into this one's callers.
 */
#ifndef VECSEC_GW_ESP_CRYPTO_H
#define VECSEC_GW_ESP_CRYPTO_H

#include "gw_dp.h"

#include <rte_prefetch.h>

/* SPD answers for n packets of one family whose IP header starts the mbuf. */
static inline void
spd_lookup(struct gw_worker *w, int v6, uint8_t dir, struct rte_mbuf *const m[], uint16_t n,
	   const struct gw_sp *out[], struct gw_sp_val val[])
{
	const uint8_t *l3[GW_BURST];
	uint32_t l3_len[GW_BURST], pkt_len[GW_BURST];

	for (uint16_t i = 0; i < n; i++) {
		l3[i] = rte_pktmbuf_mtod(m[i], const uint8_t *);
		l3_len[i] = m[i]->l3_len;
		pkt_len[i] = m[i]->pkt_len;
	}
	gw_sp_lookup_bulk(&gw, w->spc, v6, dir, l3, l3_len, pkt_len, n, out, val);
}

/*
 * ---- per-SA state, fetched early -------------------------------------------
 *
 * With many SAs a burst's packets each belong to another SA, and at 100,000
 * SAs every line of per-SA state is a miss to memory. What a burst needs is
 * started in stages, each as soon as its address is known, so that the
 * misses of all its SAs overlap instead of queueing behind each other:
 *   1. the SA's two hot lines (struct gw_sa: the rte_ipsec session, the
 *      fields read per burst; gw_sa_prefetch()), as soon as the SPD or SAD
 *      names the SA;
 *   2. once those are in, for every SA of the burst at once: its rte_ipsec
 *      SA (4 lines: templates, sequence number, counters), its replay
 *      window (inbound), its crypto session's first three lines (DPDK's
 *      header, then crypto_vecsec's whole session: parameters and the
 *      ChaCha20 key), this worker's packet counters.
 */
static inline void
ipsec_sa_prefetch(const struct gw_sa *sa)
{
	const uint8_t *p = (const uint8_t *)sa->ss.sa;

	rte_prefetch0(p);
	rte_prefetch0(p + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(p + 2 * RTE_CACHE_LINE_SIZE);
	rte_prefetch0(p + 3 * RTE_CACHE_LINE_SIZE);
}

/*
 * A session's lines a packet reads: a cryptodev session's first three
 * (DPDK's header, then the PMD's data; crypto_vecsec: parameters, key); an
 * rte_security session's from the second (crypto_vecsec: the key, then one
 * line with the sequence number and an IPv4 template or the window's
 * header), its header not being read.
 */
static inline void
ses_prefetch(const uint8_t *ses, bool sec)
{
	if (ses == NULL)
		return;
	if (!sec)
		rte_prefetch0(ses);
	rte_prefetch0(ses + RTE_CACHE_LINE_SIZE);
	rte_prefetch0(ses + 2 * RTE_CACHE_LINE_SIZE);
}

/*
 * The SAD cache's aux (fcache.h) for an SA: its session's address, with bit
 * 0 set for an rte_security session (a native SA: its window head or key line, bit 1 set). A cache hit prefetches the session
 * from it together with the SA's own lines (stage 1), one step earlier than
 * stage 2 could, which must read the SA first. Only a prefetch hint: an
 * SA's session does not change while the SAD generation that cached it is
 * current.
 */
static inline uint64_t
ses_hint(const struct gw_sa *sa)
{
	const void *ses = sa != NULL ? sa->ss.crypto.ses : NULL;

	RTE_BUILD_BUG_ON(offsetof(struct rte_ipsec_session, crypto.ses) !=
			 offsetof(struct rte_ipsec_session, security.ses));
	/*
	 * a native SA, bit 1 set: its window's head, the first line its packet
	 * waits on (the number's check, before crypto), else its key line
	 * (stage 2 asks for that one from line 0 in any case)
	 */
	if (sa != NULL && sa->action == GW_SA_NATIVE)
		return (uint64_t)(uintptr_t)(sa->rw != NULL ? (const void *)sa->rw :
					     (const void *)sa->nsa0.nsa->key_line) | 2;
	if (ses == NULL)
		return 0;
	return (uint64_t)(uintptr_t)ses | (sa->action == GW_SA_LOOKASIDE_PROTOCOL);
}

/* ses_prefetch() of the session ses_hint() named. */
static inline void
ses_hint_prefetch(uint64_t hint)
{
	if (hint & 2) {         /* a native SA's window head or key line */
		rte_prefetch0((const void *)(uintptr_t)(hint & ~(uint64_t)3));
		return;
	}
	ses_prefetch((const uint8_t *)(uintptr_t)(hint & ~(uint64_t)1), hint & 1);
}

/*
 * Stage 1 from the SAD cache: the SA's hot lines (gw_sa_prefetch; a native
 * SA's line 0 holds the address stage 2 takes its key line from) and what
 * the hint names.
 */
static inline void
sa_hint_prefetch(const struct gw_sa *sa, uint64_t hint)
{
	gw_sa_prefetch(sa);
	ses_hint_prefetch(hint);
}

/*
 * Submit n packets with their SAs (sas[] and mb[] are the caller's scratch:
 * reordered here), keeping arrival order within an SA: the worker's
 * outbound SPD results, esp_in.c's SAD results.
 */
void gw_esp_submit(struct gw_worker *w, struct gw_sa *sas[], struct rte_mbuf *mb[], uint16_t n);
/* Crypto completions of this worker, every cryptodev drained; returns how many. */
unsigned int gw_esp_dequeue(struct gw_worker *w);

#endif
