/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw outbound ESP (esp_out.c): SA lifetimes, which outbound are
 * also the sequence-number reservation (no number spent past the limit,
 * none twice; inbound the same accounting runs on what authenticated),
 * and what an outbound packet gets after rte_ipsec (NAT-T, then the route
 * to the unprotected side). The per-burst fast path is static inline here,
 * for esp_crypto.c; a limit near or crossed goes to esp_out.c.
 */
#ifndef VECSEC_GW_ESP_OUT_H
#define VECSEC_GW_ESP_OUT_H

#include "gw_dp.h"
#include "port_io.h"

#include <errno.h>

/*
 * *p += n, returning the old value: an atomic add when workers share the
 * SA, a plain one for a single worker (only workers write these counters).
 */
static inline uint64_t
life_add(uint64_t *p, uint64_t n)
{
	uint64_t v;

	if (gw.nb_workers > 1)
		return __atomic_fetch_add(p, n, __ATOMIC_RELAXED);
	v = __atomic_load_n(p, __ATOMIC_RELAXED);
	__atomic_store_n(p, v + n, __ATOMIC_RELAXED);
	return v;
}

uint16_t gw_life_admit_rest(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[],
			    uint16_t n, uint64_t prev_p);

/*
 * The usual case inline (only the hard packet limit, not reached: one add);
 * the rest in gw_life_admit_rest(). With many SAs a burst reserves once per
 * packet, and a call each was most of the per-SA work before crypto.
 * gw.seq_gap (--seq-state, else 0): a burst within half a reservation of
 * the cap also goes there, to note the SA for the management thread.
 */
static inline uint16_t
life_admit(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n)
{
	uint64_t prev_p = life_add(&sa->used_pkts, n);

	uint64_t hard = __atomic_load_n(&sa->hard_pkts, __ATOMIC_RELAXED);
	uint64_t gap = __atomic_load_n(&gw.seq_gap, __ATOMIC_RELAXED);

	if (likely(!sa->life_more && (hard == 0 || prev_p + n + gap < hard)))
		return n;
	return gw_life_admit_rest(w, sa, mb, n, prev_p);
}

/* An outbound packet out of rte_ipsec: NAT-T's UDP header, then the route to the ESP side. */
static inline void
out_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m)
{
	int rc = sa->natt ? gw_natt_outb(m, sa) : 0;

	if (rc != 0) {
		gw_port_drop(w, sa, m, rc == -ENOBUFS ? GW_DROP_NO_MBUF : GW_DROP_MALFORMED);
		return;
	}
	w->st.esp_out++;
	gw_port_route(w, m, true);
}

#endif
