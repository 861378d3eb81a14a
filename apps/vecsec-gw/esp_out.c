/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw outbound ESP: the lifetimes past the fast path (esp_out.h's
 * life_admit()): soft and hard limits in packets and bytes, their events,
 * and the packets past a limit, with --seq-state's cap on the sequence
 * numbers reserved (seqstate.c). Called from esp_crypto.c, once per SA and
 * burst at most; calls only the event queue.
 */
#include "esp_out.h"
#include "seqstate.h"

/*
 * The SA's hard packet limit: hard_pkts, unless --seq-state caps that at
 * the sequence numbers reserved (seqstate.c; the real one is hard_real)
 */
static inline uint64_t
life_hard_pkts(const struct gw_sa *sa)
{
	return sa->hard_real != 0 ? sa->hard_real : __atomic_load_n(&sa->hard_pkts,
								  __ATOMIC_RELAXED);
}

/* A limit crossed by this reservation (prev -> prev + add): the first one queues the event. */
static inline void
life_cross(struct gw_sa *sa, uint64_t prev, uint64_t add, bool by_pkts)
{
	uint64_t soft = sa->life[by_pkts ? GW_LIFE_SOFT_PKTS : GW_LIFE_SOFT_BYTES];
	uint64_t hard = by_pkts ? life_hard_pkts(sa) : sa->life[GW_LIFE_HARD_BYTES];

	if (soft != 0 && prev < soft && prev + add >= soft &&
			__atomic_exchange_n(&sa->soft_sent, 1, __ATOMIC_RELAXED) == 0)
		gw_event_post(sa, false, by_pkts, soft);
	if (hard != 0 && prev < hard && prev + add >= hard &&
			__atomic_exchange_n(&sa->hard_sent, 1, __ATOMIC_RELAXED) == 0)
		gw_event_post(sa, true, by_pkts, hard);
}

/*
 * Packets k..n of mb[] are past a limit: the packet limit cap (hard_pkts
 * as read) from kp on, bytes before. A cap below the SA's real limit is
 * --seq-state's (numbers not durably reserved yet): those packets are
 * seq_unreserved; or --cluster-sync's (not acked by the partner yet:
 * ha_seq_wait, hasync.c); and their numbers are given back (used_pkts counts only
 * what may use one) so that they are there once the cap is raised.
 */
static void
life_drop(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t k, uint16_t kp,
	  uint16_t n, uint64_t cap)
{
	bool unreserved = sa->hard_real != 0 && cap < sa->hard_real;

	for (uint16_t i = k; i < n; i++)
		gw_port_drop(w, sa, mb[i], i < kp || !unreserved ? GW_DROP_EXPIRED :
			     sa->cap_by_ha ? GW_DROP_HA_SEQ_WAIT : GW_DROP_SEQ_UNRESERVED);
	if (unreserved && kp < n)
		(void)life_add(&sa->used_pkts, (uint64_t)0 - (uint64_t)(n - kp));
}

/*
 * Lifetimes: reserve n clear packets and their bytes with one add each
 * (life_add(); per SA and burst, not per packet); the packets past a hard limit are
 * dropped as expired, from the end, so exactly the limit passes (outbound
 * the packet limit includes the sequence numbers left: sa->hard_pkts). Returns
 * how many of mb[] go on. Once a reservation has crossed the hard limit,
 * every later packet of the SA is expired. With --seq-state the packet
 * limit may be a cap below the real one (life_drop()).
 */
uint16_t
gw_life_admit_rest(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
		   uint64_t prev_p)
{
	uint64_t bytes = 0, prev_b = 0, hard;
	uint64_t cap = __atomic_load_n(&sa->hard_pkts, __ATOMIC_RELAXED);
	bool by_bytes = sa->life_more &&
		(sa->life[GW_LIFE_SOFT_BYTES] | sa->life[GW_LIFE_HARD_BYTES]) != 0;
	uint64_t gap = __atomic_load_n(&gw.seq_gap, __ATOMIC_RELAXED);
	uint16_t k = n, kp;

	/* --seq-state: within half a reservation of the cap (seqstate.c renews it) */
	if (gap != 0 && cap != 0 && prev_p + n + gap >= cap && sa->dir == GW_DIR_OUT) {
		gw_seq_state_note(sa->idx);
		if (!sa->life_more && prev_p + n < cap)
			return n;       /* only that: life_admit()'s case */
	}
	if (cap != 0 && prev_p + n > cap)
		k = prev_p >= cap ? 0 : (uint16_t)(cap - prev_p);
	kp = k;
	if (!sa->life_more) {
		/* only the hard packet limit (outbound: numbers left), and it is reached */
		hard = life_hard_pkts(sa);
		if (hard != 0 && prev_p < hard && prev_p + k >= hard &&
				__atomic_exchange_n(&sa->hard_sent, 1, __ATOMIC_RELAXED) == 0)
			gw_event_post(sa, true, true, hard);
		life_drop(w, sa, mb, k, kp, n, cap);
		return k;
	}
	if (by_bytes) {
		for (uint16_t i = 0; i < n; i++)
			bytes += mb[i]->pkt_len;
		prev_b = life_add(&sa->used_bytes, bytes);
	}
	hard = sa->life[GW_LIFE_HARD_BYTES];
	if (hard != 0 && prev_b + bytes > hard) {
		uint64_t cum = prev_b;
		uint16_t j;

		for (j = 0; j < k && cum + mb[j]->pkt_len <= hard; j++)
			cum += mb[j]->pkt_len;
		k = j;
	}
	life_cross(sa, prev_p, kp, true);
	if (by_bytes)
		life_cross(sa, prev_b, bytes, false);
	life_drop(w, sa, mb, k, kp, n, cap);
	return k;
}
