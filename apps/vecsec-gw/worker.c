/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw data path, one loop per worker lcore: rx burst -> strip L2 and
 * check the IP header -> unprotected (ESP-side) port: ESP to the SAD, clear
 * traffic to the inbound SPD (bypass or drop); protected port: outbound SPD (protect,
 * bypass, discard) -> group by SA -> rte_ipsec prepare -> cryptodev
 * enqueue (lookaside-none) or rte_ipsec CPU crypto -> dequeue, group by
 * session -> rte_ipsec process -> inbound: the SP that protects the inner
 * packet must name this SA -> route (rte_fib/fib6) -> Ethernet header -> tx.
 * Every drop is counted once, under its reason, per SA where there is one.
 */
#include "gw_dp.h"
#include "fcache.h"
#include "gw_pkt.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_security.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include <vecsec/vecsec_esp.h>

#define ESP_NATT 2      /* flag in esp_inbound()'s v6[]: ESP came in UDP */

static inline void
drop(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m, enum gw_drop why)
{
	w->st.drops[why]++;
	if (sa != NULL)
		w->sa_drops[sa->idx][why]++;
	rte_pktmbuf_free(m);
}

/*
 * Check the IP header at the start of m (gw_pkt_l3(), with what is known
 * of its IPv4 checksum), trim link padding, set l3_len; an IPv4 header
 * whose checksum field alone the NIC found wrong gets a right one.
 * Returns 0 (IPv4), 1 (IPv6) or -1 (malformed, a wrong IPv4 checksum
 * included). The headers must lie in the first segment.
 */
static inline int
parse_l3(struct rte_mbuf *m, enum gw_ck ck, struct gw_l3 *r)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	int v6 = gw_pkt_l3(p, rte_pktmbuf_data_len(m), rte_pktmbuf_pkt_len(m), ck, r);

	if (v6 < 0)
		return -1;
	if (r->ip_len < m->pkt_len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - r->ip_len));
	m->l3_len = r->l3_len;
	if (r->fix_cksum) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	return v6;
}

/* The NIC's word on the IPv4 header checksum (RTE_MBUF_F_RX_IP_CKSUM_*); unknown: verify. */
static inline enum gw_ck
rx_ck(const struct rte_mbuf *m)
{
	switch (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) {
	case RTE_MBUF_F_RX_IP_CKSUM_GOOD:
		return GW_CK_GOOD;
	case RTE_MBUF_F_RX_IP_CKSUM_BAD:
		return GW_CK_BAD;
	case RTE_MBUF_F_RX_IP_CKSUM_NONE:
		return GW_CK_FIX;
	default:
		return GW_CK_VERIFY;
	}
}

/* Strip the Ethernet header; -1 if it is not IPv4/IPv6 over Ethernet. */
static inline int
strip_l2(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	uint16_t type;

	if (!rte_pktmbuf_is_contiguous(m) && rte_pktmbuf_linearize(m) != 0)
		return -1;
	if (rte_pktmbuf_data_len(m) < sizeof(*eh))
		return -1;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	type = rte_be_to_cpu_16(eh->ether_type);
	if (type != RTE_ETHER_TYPE_IPV4 && type != RTE_ETHER_TYPE_IPV6)
		return -1;
	rte_pktmbuf_adj(m, sizeof(*eh));
	m->l2_len = 0;
	return 0;
}

static void
tx_flush(struct gw_worker *w, uint16_t port)
{
	struct gw_txbuf *tb = &w->tx[port];
	uint16_t sent;

	if (tb->n == 0)
		return;
	if (gw.port[port].tx_shared) {
		uint16_t q = (uint16_t)(w->id % gw.port[port].nb_txq);

		rte_spinlock_lock(&gw.port[port].tx_lock[q]);
		sent = rte_eth_tx_burst(port, q, tb->m, tb->n);
		rte_spinlock_unlock(&gw.port[port].tx_lock[q]);
	} else {
		sent = rte_eth_tx_burst(port, (uint16_t)w->id, tb->m, tb->n);
	}
	w->st.port[port].tx += sent;
	for (uint16_t i = sent; i < tb->n; i++)
		drop(w, NULL, tb->m[i], GW_DROP_RING_FULL);
	tb->n = 0;
}

/* Route the IP packet at the start of m and queue it, with its L2 header, for tx. */
static void
route_tx(struct gw_worker *w, struct rte_mbuf *m, bool to_esp_side)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	bool v6 = (l3[0] >> 4) == 6;
	struct rte_ether_hdr *eh;
	struct gw_txbuf *tb;
	int port;

	/* for the gateway's own addresses: the host stack (--host-port) */
	if (!to_esp_side && gw_host_on && gw_host_local(w, m, v6))
		return;
	port = gw_rt_lookup(&gw, to_esp_side, l3, v6);
	if (port < 0 || port >= gw.nb_ports || !gw.port[port].used) {
		drop(w, NULL, m, GW_DROP_NO_ROUTE);
		return;
	}
	/* too big for the port: fragments (each routed again, they fit), else too_big */
	if (m->pkt_len > gw.port[port].mtu) {
		struct rte_mbuf *fr[GW_FRAG_MAX_OUT];
		int nf = gw_frag_split(w, m, gw.port[port].mtu, v6, fr);

		if (nf < 0) {
			drop(w, NULL, m, nf == -ENOMEM ? GW_DROP_NO_MBUF : GW_DROP_TOO_BIG);
			return;
		}
		for (int i = 0; i < nf; i++)
			route_tx(w, fr[i], to_esp_side);
		return;
	}
	if (!v6) {
		/*
		 * Recomputed only over headers that were verified (rx, or the
		 * inner header after decryption) or that the gateway built:
		 * never over one that came in wrong (RFC 1812 5.2.2).
		 */
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)l3;

		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	}
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh));
	if (eh == NULL) {
		drop(w, NULL, m, GW_DROP_NO_MBUF);
		return;
	}
	rte_ether_addr_copy(&gw.port[port].peer, &eh->dst_addr);
	rte_ether_addr_copy(&gw.port[port].mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	m->ol_flags = 0;
	m->l2_len = sizeof(*eh);
	tb = &w->tx[port];
	if (tb->n == RTE_DIM(tb->m))
		tx_flush(w, (uint16_t)port);
	tb->m[tb->n++] = m;
}

/* host.c: the same for frames from or to the host's port */
void
gw_worker_tx(struct gw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct gw_txbuf *tb = &w->tx[port];

	if (tb->n == RTE_DIM(tb->m))
		tx_flush(w, port);
	tb->m[tb->n++] = m;
}

void
gw_worker_drop(struct gw_worker *w, struct rte_mbuf *m, enum gw_drop why)
{
	drop(w, NULL, m, why);
}

void
gw_worker_route(struct gw_worker *w, struct rte_mbuf *m, bool to_esp_side)
{
	route_tx(w, m, to_esp_side);
}

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

/*
 * Packets k..n of mb[] are past a limit: the packet limit cap (hard_pkts
 * as read) from kp on, bytes before. A cap below the SA's real limit is
 * --seq-state's (numbers not durably reserved yet): those packets are
 * seq_unreserved, and their numbers are given back (used_pkts counts only
 * what may use one) so that they are there once the cap is raised.
 */
static void
life_drop(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t k, uint16_t kp,
	  uint16_t n, uint64_t cap)
{
	bool unreserved = sa->hard_real != 0 && cap < sa->hard_real;

	for (uint16_t i = k; i < n; i++)
		drop(w, sa, mb[i], i >= kp && unreserved ? GW_DROP_SEQ_UNRESERVED : GW_DROP_EXPIRED);
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
static __rte_noinline uint16_t
life_admit_rest(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
		uint64_t prev_p)
{
	uint64_t bytes = 0, prev_b = 0, hard;
	uint64_t cap = __atomic_load_n(&sa->hard_pkts, __ATOMIC_RELAXED);
	bool by_bytes = sa->life_more &&
		(sa->life[GW_LIFE_SOFT_BYTES] | sa->life[GW_LIFE_HARD_BYTES]) != 0;
	uint16_t k = n, kp;

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

/*
 * The usual case inline (only the hard packet limit, not reached: one add);
 * the rest in life_admit_rest(). With many SAs a burst reserves once per
 * packet, and a call each was most of the per-SA work before crypto.
 */
static inline uint16_t
life_admit(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n)
{
	uint64_t prev_p = life_add(&sa->used_pkts, n);

	uint64_t hard = __atomic_load_n(&sa->hard_pkts, __ATOMIC_RELAXED);

	if (likely(!sa->life_more && (hard == 0 || prev_p + n < hard)))
		return n;
	return life_admit_rest(w, sa, mb, n, prev_p);
}

/* The SA an op was submitted for (GW_COP_SA_OFFSET): set by esp_submit(), direct_submit(). */
static inline struct gw_sa **
op_sa(struct rte_crypto_op *op)
{
	return rte_crypto_op_ctod_offset(op, struct gw_sa **, GW_COP_SA_OFFSET);
}

/*
 * A direct SA's completions (struct gw_sa: direct), as rte_ipsec's process
 * for a lookaside-protocol session: the packets the PMD marked failed go
 * after the others, both in order. Returns how many succeeded.
 */
static inline uint16_t
sec_outcome(struct rte_mbuf *mb[], uint16_t n)
{
	struct rte_mbuf *bad[GW_BURST];
	uint16_t k = 0, nb = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (mb[i]->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED)
			bad[nb++] = mb[i];
		else
			mb[k++] = mb[i];
	}
	for (uint16_t i = 0; i < nb; i++)
		mb[k + i] = bad[i];
	return k;
}

/*
 * Inbound packets out of ESP, waiting for the policy check: the SAs of a
 * burst share one SPD lookup per family (rte_acl takes a burst, but one
 * packet per SA of a burst spread over many SAs runs it one by one).
 */
struct in_check {
	uint16_t n[2];
	struct rte_mbuf *m[2][GW_BURST];
	struct gw_sa *sa[2][GW_BURST];
};

/* The policy for each inner packet must protect it with the SA it came in; then route. */
static void
in_check_flush(struct gw_worker *w, struct in_check *ic)
{
	for (int v6 = 0; v6 < 2; v6++) {
		const struct gw_sp *sps[GW_BURST];
		struct gw_sp_val val[GW_BURST];

		if (ic->n[v6] == 0)
			continue;
		spd_lookup(w, v6, GW_DIR_IN, ic->m[v6], ic->n[v6], sps, val);
		for (uint16_t i = 0; i < ic->n[v6]; i++) {
			struct gw_sa *sa = ic->sa[v6][i];

			/* the rule's line only for sa_prev (during a rekey) */
			if (sps[i] == NULL || val[i].action != GW_SP_PROTECT ||
					(val[i].sa != sa && sps[i]->sa_prev != sa)) {
				drop(w, sa, ic->m[v6][i], GW_DROP_POLICY);
				continue;
			}
			w->st.esp_in++;
			route_tx(w, ic->m[v6][i], false);
		}
		ic->n[v6] = 0;
	}
}

/*
 * ---- vecsec: exact anti-replay for inbound rte_ipsec SAs ------------------
 *
 * DPDK 22.11's rte_ipsec window marks only the low half of each 64-bit
 * word (replays pass), counts W + 1 numbers, has no spare bitmap word, and
 * rebuilds an ESN twice, in prepare (from the window before the burst; the
 * ICV is checked with that number) and in process (from the window as the
 * burst's earlier packets left it), recording the second
 * (docs/dpdk-ipsec-replay.md). So the SA keeps an exact window of W
 * numbers of its own (lib/esp, sa->rw; rte_ipsec's is given R = W + 64,
 * sa.c) and rte_ipsec only sees packets its window cannot get wrong:
 *
 * A (replay_pre, then prepare; read lock when workers share the SA): each
 *   packet's full number v0 is rebuilt from our window, whose top equals
 *   rte_ipsec's (both start at `esn N`, and both record exactly the packets
 *   rte_ipsec_pkt_process() returns), with rte_ipsec's R: so v0 is the
 *   number prepare authenticates. Kept in the mbuf (gw_seq_dynfield).
 *   What our window refuses already is dropped before any crypto.
 * B (replay_post; write lock): after crypto, in arrival order, a packet
 *   whose v0 is a duplicate or now at or below top - W (top as our window
 *   and the packets before it in the burst leave it) is dropped as a replay
 *   and never reaches rte_ipsec; the rest go to rte_ipsec_pkt_process() in
 *   runs in which no packet is such a duplicate or too old for an earlier
 *   one of the same run; what it returns is recorded (replay_record).
 *
 * Why rte_ipsec's second reconstruction then equals v0: Appendix A maps a
 * low half to the one number in [T - R + 1, T - R + 2^32]. v0 lies there
 * for the top T0 of step A. At process time rte_ipsec's top T' is T0 or
 * higher (tops only grow), so v0 <= T0 - R + 2^32 <= T' - R + 2^32; and
 * step B let the packet through only if v0 > T' - W > T' - R (T' is at
 * most the top it checked against: rte_ipsec may have refused an earlier
 * packet of the run, never recorded more). So v0 lies in T''s interval
 * too: rte_ipsec rebuilds v0, finds it neither left of its window nor
 * seen (it has recorded only what ours has, in a bitmap with a spare
 * word), and both windows record the same number. Packets whose crypto
 * failed are left to rte_ipsec (auth_failed); they record nothing.
 */

static inline uint64_t *
esp_seq(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, gw_seq_dynfield, uint64_t *);
}

/* Step A, before rte_ipsec prepare: v0 of each packet; drops what our window refuses. */
static uint16_t
replay_pre(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n)
{
	uint64_t top = vecsec_esp_replay_top(sa->rw);
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		const struct rte_esp_hdr *esp = rte_pktmbuf_mtod_offset(m,
			const struct rte_esp_hdr *, m->l2_len + m->l3_len);
		uint32_t lo = rte_be_to_cpu_32(esp->seq);
		uint64_t v = lo;

		/*
		 * a number outside 64 bits (-ERANGE) belongs to no packet of the SA;
		 * one above the top is fresh (the usual case: no call)
		 */
		if ((sa->rw_esn && vecsec_esp_esn_recover(top, sa->rw_recover, lo, &v) != 0) ||
		    (v <= top && vecsec_esp_replay_check(sa->rw, v) != 0)) {
			drop(w, sa, m, GW_DROP_REPLAY);
			continue;
		}
		*esp_seq(m) = v;
		mb[k++] = m;
	}
	return k;
}

/* After rte_ipsec_pkt_process: record what it accepted (mb[0..k), v0 set by replay_pre). */
static inline void
replay_record(struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t k)
{
	/* cannot fail: replay_post let only numbers through that the window takes */
	for (uint16_t i = 0; i < k; i++)
		vecsec_esp_replay_update(sa->rw, *esp_seq(mb[i]));
}

static void post_process(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[],
			 uint16_t n, struct in_check *ic);

/* Step B: the window after crypto, then rte_ipsec process run by run (see above). */
static void
replay_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	    struct in_check *ic)
{
	uint32_t win = vecsec_esp_replay_win(sa->rw);
	uint16_t i = 0;

	if (sa->rw_shared)
		rte_rwlock_write_lock(&sa->rw_lock);
	while (i < n) {
		struct rte_mbuf *run[GW_BURST];
		uint64_t seen[GW_BURST], top = vecsec_esp_replay_top(sa->rw);
		uint16_t nr = 0, ns = 0;

		for (; i < n; i++) {
			struct rte_mbuf *m = mb[i];
			uint64_t v;
			bool again = false;

			if (m->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED) {
				run[nr++] = m;          /* rte_ipsec drops it: auth_failed */
				continue;
			}
			v = *esp_seq(m);
			/* above the top (ours and the run's) it is fresh: the usual case */
			if (v <= top && vecsec_esp_replay_check(sa->rw, v) != 0) {
				drop(w, sa, m, GW_DROP_REPLAY);
				continue;
			}
			/* against the run's earlier packets: too old, or the same number */
			if (v <= top) {
				again = top - v >= win;
				for (uint16_t j = 0; j < ns && !again; j++)
					again = seen[j] == v;
			}
			if (again)
				break;          /* decided once the run is recorded */
			seen[ns++] = v;
			if (v > top)
				top = v;
			run[nr++] = m;
		}
		if (nr != 0)
			post_process(w, sa, run, nr, ic);
	}
	if (sa->rw_shared)
		rte_rwlock_write_unlock(&sa->rw_lock);
}

/* After crypto: rte_ipsec process and what follows, through the exact window if the SA has one. */
static inline void
sa_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	struct in_check *ic)
{
	if (sa->rw != NULL)
		replay_post(w, sa, mb, n, ic);
	else
		post_process(w, sa, mb, n, ic);
}

/*
 * Inbound transport mode, ESP just removed: the trailer's next header went
 * into the byte that named ESP, which m->l3_len (IP header and the IPv6
 * extensions before ESP) still locates. 59 is a dummy packet (RFC 4303
 * 2.6, RFC 4301 4.4.2): to be discarded, not delivered.
 */
static inline bool
in_trs_dummy(const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t l3 = m->l3_len;
	uint8_t nh;

	if (m->data_len < sizeof(struct rte_ipv4_hdr))
		return false;
	if ((p[0] >> 4) == 4)
		return ((const struct rte_ipv4_hdr *)p)->next_proto_id == IPPROTO_NONE;
	return l3 <= m->data_len && vecsec_esp_ip6_walk(p, l3, 0, &nh, NULL) == (int)l3 &&
		nh == IPPROTO_NONE;
}

/*
 * Inbound tunnel mode on rte_ipsec: a packet that authenticated (no
 * failure flag) and that process refused untouched (length as before,
 * plen) failed the trailer check, which wants the tunnel's next header;
 * one whose decrypted trailer says 59 is a dummy packet, counted as one.
 */
static inline bool
in_tun_dummy(const struct gw_sa *sa, const struct rte_mbuf *m, uint32_t plen)
{
	uint8_t nh;
	const uint8_t *p;

	if (sa->dir != GW_DIR_IN || sa->mode == GW_MODE_TRANS ||
	    sa->action == GW_SA_LOOKASIDE_PROTOCOL ||
	    (m->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED) || m->pkt_len != plen ||
	    m->pkt_len < sa->nh_from_end)
		return false;
	p = rte_pktmbuf_read(m, m->pkt_len - sa->nh_from_end, 1, &nh);
	return p != NULL && *p == IPPROTO_NONE;
}

/*
 * After rte_ipsec process: count, then inbound policy check, then route.
 * Inbound packets join ic (at most GW_BURST per flush), checked by the
 * caller's in_check_flush(); with ic NULL, here.
 */
static void
post_process(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	     struct in_check *ic)
{
	struct rte_mbuf *orig[GW_BURST];
	struct in_check own;
	uint32_t plen[GW_BURST];
	bool direct = __atomic_load_n(&sa->direct, __ATOMIC_RELAXED);
	uint16_t k;

	if (direct && sa->rw == NULL) {
		/* the PMD did all of ESP: nothing to sort out unless a packet failed */
		uint64_t fl = 0;

		for (uint16_t i = 0; i < n; i++)
			fl |= mb[i]->ol_flags;
		if (likely(!(fl & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED))) {
			k = n;
			goto passed;
		}
	}
	for (uint16_t i = 0; i < n; i++) {
		orig[i] = mb[i];
		plen[i] = mb[i]->pkt_len;
	}
	k = direct ? sec_outcome(mb, n) : rte_ipsec_pkt_process(&sa->ss, mb, n);
	if (sa->rw != NULL)
		replay_record(sa, mb, k);
	for (uint16_t i = k; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		enum gw_drop why = GW_DROP_MALFORMED;
		uint16_t j;

		for (j = 0; j < n && orig[j] != m; j++)
			;
		if (m->ol_flags & gw_sec_replay_flag)
			why = GW_DROP_REPLAY;   /* lookaside-protocol: the PMD's window */
		else if (m->ol_flags & gw_sec_dummy_flag)
			why = GW_DROP_DUMMY;    /* lookaside-protocol: next header 59 */
		else if (in_tun_dummy(sa, m, j < n ? plen[j] : 0))
			why = GW_DROP_DUMMY;
		else if (m->ol_flags & RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED)
			why = sa->dir == GW_DIR_IN ? GW_DROP_AUTH : GW_DROP_CRYPTO;
		else if (sa->dir == GW_DIR_IN && j < n && m->pkt_len != plen[j])
			why = GW_DROP_REPLAY;   /* passed the checks, then lost in the window */
		drop(w, sa, m, why);
	}
passed:
	if (ic == NULL) {
		own.n[0] = own.n[1] = 0;
		ic = &own;
	}
	/* inbound lifetimes count only what authenticated: forged packets spend nothing */
	if (sa->has_life && sa->dir == GW_DIR_IN && k != 0)
		k = life_admit(w, sa, mb, k);
	/*
	 * last use (an IKE daemon's query: idle SAs, DPD); one store per SA and
	 * burst, in this worker's counters (the line the counts below write)
	 */
	if (k != 0)
		__atomic_store_n(&w->sa_st[sa->idx].last_tsc, w->now_tsc, __ATOMIC_RELAXED);
	for (uint16_t i = 0; i < k; i++) {
		struct rte_mbuf *m = mb[i];
		struct gw_sa_ctr *ss = &w->sa_st[sa->idx];

		m->ol_flags = 0;
		if (sa->dir == GW_DIR_IN && sa->mode == GW_MODE_TRANS && in_trs_dummy(m)) {
			drop(w, sa, m, GW_DROP_DUMMY);
			continue;
		}
		ss->pkts++;
		ss->bytes += m->pkt_len;
		if (sa->dir == GW_DIR_IN) {
			struct gw_l3 r;
			/*
			 * Tunnel: the inner header is verified like any received one (a
			 * corrupted one is dropped, not given a fresh checksum). Transport:
			 * the header was verified on rx, then ESP's removal changed it.
			 */
			int v6 = parse_l3(m, sa->mode == GW_MODE_TRANS ? GW_CK_GOOD : GW_CK_VERIFY,
					  &r);

			if (v6 < 0) {
				drop(w, sa, m, GW_DROP_MALFORMED);
				continue;
			}
			if (sa->natt && sa->mode == GW_MODE_TRANS)
				gw_natt_trs_l4_fix(m, r.proto);
			ic->m[v6][ic->n[v6]] = m;
			ic->sa[v6][ic->n[v6]++] = sa;
		} else {
			int rc = sa->natt ? gw_natt_outb(m, sa) : 0;

			if (rc != 0) {
				drop(w, sa, m, rc == -ENOBUFS ? GW_DROP_NO_MBUF : GW_DROP_MALFORMED);
				continue;
			}
			w->st.esp_out++;
			route_tx(w, m, true);
		}
	}
	if (ic == &own)
		in_check_flush(w, ic);
}

/*
 * Crypto ops of one rx burst, per cryptodev: every SA's ops go in one
 * enqueue, so a PMD that packs ops of different sessions into SIMD lanes
 * (crypto_vecsec) sees the whole burst.
 */
struct cop_batch {
	uint16_t n[GW_MAX_CDEV];
	struct rte_crypto_op *cop[GW_MAX_CDEV][GW_BURST];
	/*
	 * Ops come from one mempool call per burst, not one per SA: the first
	 * SA that needs ops takes them for every packet not yet submitted
	 * (left); what no SA takes goes back in batch_enqueue().
	 */
	uint16_t left, nspare;
	struct rte_crypto_op *spare[GW_BURST];
	struct in_check ic;     /* inbound CPU-crypto SAs, one check after the burst */
};

/* n ops for one SA of the burst, from the burst's allocation; 0 if the pool is empty. */
static inline uint16_t
cop_take(struct gw_worker *w, struct cop_batch *b, struct rte_crypto_op *cop[], uint16_t n)
{
	if (b->nspare < n) {
		if (b->nspare != 0)
			rte_mempool_put_bulk(w->cop_pool, (void **)b->spare, b->nspare);
		b->nspare = RTE_MAX(b->left, n);
		/* a pool too low for the rest of the burst may still serve this SA */
		if (rte_crypto_op_bulk_alloc(w->cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC, b->spare,
				b->nspare) == 0) {
			b->nspare = n;
			if (rte_crypto_op_bulk_alloc(w->cop_pool, RTE_CRYPTO_OP_TYPE_SYMMETRIC,
					b->spare, n) == 0) {
				b->nspare = 0;
				return 0;
			}
		}
	}
	b->nspare -= n;
	for (uint16_t i = 0; i < n; i++)        /* mostly 1 or 2: no memcpy call */
		cop[i] = b->spare[b->nspare + i];
	return n;
}

/* Packets of one SA: prepare, then CPU crypto now or ops into the batch. */
static void
esp_submit(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	   struct cop_batch *b)
{
	struct rte_crypto_op **cop;
	enum gw_drop prep_why = sa->dir == GW_DIR_IN ? GW_DROP_REPLAY : GW_DROP_MALFORMED;
	uint16_t k;

	/*
	 * outbound lifetimes and sequence numbers before encryption: no number
	 * is spent past the limit, none is used twice
	 */
	if (sa->dir == GW_DIR_OUT) {
		n = life_admit(w, sa, mb, n);
		if (n == 0)
			return;
	}
	/* inbound exact window, step A (replay_pre): read lock until prepare is done */
	if (sa->rw != NULL) {
		if (sa->rw_shared)
			rte_rwlock_read_lock(&sa->rw_lock);
		n = replay_pre(w, sa, mb, n);
	}
	if (sa->action == GW_SA_CPU_CRYPTO) {
		if (sa->dir == GW_DIR_OUT)
			w->sa_st[sa->idx].seq_used += n;        /* prepare numbers them all */
		k = n != 0 ? rte_ipsec_pkt_cpu_prepare(&sa->ss, mb, n) : 0;
		if (sa->rw != NULL && sa->rw_shared)
			rte_rwlock_read_unlock(&sa->rw_lock);
		for (uint16_t i = k; i < n; i++)
			drop(w, sa, mb[i], prep_why);
		if (k != 0)
			sa_post(w, sa, mb, k, &b->ic);
		return;
	}
	/* at most GW_BURST packets per rx burst in all, so the batch has room */
	cop = &b->cop[sa->cdev_id][b->n[sa->cdev_id]];
	if (n == 0 || cop_take(w, b, cop, n) == 0) {
		if (sa->rw != NULL && sa->rw_shared)
			rte_rwlock_read_unlock(&sa->rw_lock);
		for (uint16_t i = 0; i < n; i++)
			drop(w, sa, mb[i], GW_DROP_NO_MBUF);
		return;
	}
	if (sa->dir == GW_DIR_OUT)
		w->sa_st[sa->idx].seq_used += n;
	/*
	 * an SA that became direct after esp_group_submit() looked (a reload
	 * unlisted it) is still right here: for a lookaside-protocol session
	 * rte_ipsec's prepare only attaches it, as direct_submit() does
	 */
	k = rte_ipsec_pkt_crypto_prepare(&sa->ss, mb, cop, n);
	if (sa->rw != NULL && sa->rw_shared)
		rte_rwlock_read_unlock(&sa->rw_lock);
	for (uint16_t i = 0; i < k; i++)
		*op_sa(cop[i]) = sa;
	for (uint16_t i = k; i < n; i++) {
		drop(w, sa, mb[i], prep_why);
		rte_crypto_op_free(cop[i]);
	}
	b->n[sa->cdev_id] += k;
}

static void
batch_enqueue(struct gw_worker *w, struct cop_batch *b)
{
	if (b->nspare != 0)
		rte_mempool_put_bulk(w->cop_pool, (void **)b->spare, b->nspare);
	b->nspare = 0;
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		uint16_t k = b->n[id], e;

		if (k == 0)
			continue;
		e = rte_cryptodev_enqueue_burst((uint8_t)id, w->qp, b->cop[id], k);
		w->inflight[id] += e;
		w->inflight_total += e;
		for (uint16_t i = e; i < k; i++) {
			struct rte_crypto_op *op = b->cop[id][i];

			drop(w, *op_sa(op), op->sym->m_src, GW_DROP_RING_FULL);
			rte_crypto_op_free(op);
		}
	}
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

/* Stage 2 for one SA (its gw_sa lines are in, or on their way). */
static inline void
sa_state_prefetch(struct gw_worker *w, const struct gw_sa *sa)
{
	const uint8_t *ses = (const uint8_t *)sa->ss.crypto.ses;

	if (!__atomic_load_n(&sa->direct, __ATOMIC_RELAXED))
		ipsec_sa_prefetch(sa);
	if (sa->rw != NULL)
		rte_prefetch0(sa->rw);
	ses_prefetch(ses, sa->action == GW_SA_LOOKASIDE_PROTOCOL);
	/* an outbound IPv6 tunnel's template goes on in the session's next line */
	if (ses != NULL && sa->action == GW_SA_LOOKASIDE_PROTOCOL && sa->dir == GW_DIR_OUT &&
	    sa->mode == GW_MODE_TUN6)
		rte_prefetch0(ses + 3 * RTE_CACHE_LINE_SIZE);
	rte_prefetch0(&w->sa_st[sa->idx]);
}

/*
 * The SAD cache's aux (fcache.h) for an SA: its session's address, with bit
 * 0 set for an rte_security session. A cache hit prefetches the session
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
	if (ses == NULL)
		return 0;
	return (uint64_t)(uintptr_t)ses | (sa->action == GW_SA_LOOKASIDE_PROTOCOL);
}

/* ses_prefetch() of the session ses_hint() named. */
static inline void
ses_hint_prefetch(uint64_t hint)
{
	ses_prefetch((const uint8_t *)(uintptr_t)(hint & ~(uint64_t)1), hint & 1);
}

#define SA_GROUP_SLOTS (2 * GW_BURST)   /* open addressing, at most half full */
#define SA_PREFETCH_AHEAD 4             /* after crypto: groups ahead of the one processed */

/*
 * Group n packets by SA in one pass (a burst spread over many SAs has as
 * many groups as packets): gid[i] is packet i's group, groups numbered in
 * order of first appearance, gsa[] their SAs, gcnt[] their sizes. A small
 * hash of the SA pointer finds the group; a run of one SA skips it. (The
 * SAs' hot lines are on their way already: stage 1, see esp_group_submit().)
 */
static uint16_t
sa_group(struct gw_sa *const sas[], uint16_t n, uint8_t gid[], struct gw_sa *gsa[],
	 uint16_t gcnt[])
{
	uint8_t slot[SA_GROUP_SLOTS];   /* group + 1, 0 = free */
	uint16_t ng = 0;

	memset(slot, 0, sizeof(slot));
	for (uint16_t i = 0; i < n; i++) {
		struct gw_sa *sa = sas[i];
		uint32_t h;

		if (i != 0 && sa == sas[i - 1]) {
			gid[i] = gid[i - 1];
			gcnt[gid[i]]++;
			continue;
		}
		h = ((uint32_t)((uintptr_t)sa >> 6) * 2654435761u) >> 26;
		while (slot[h] != 0 && gsa[slot[h] - 1] != sa)
			h = (h + 1) & (SA_GROUP_SLOTS - 1);
		if (slot[h] == 0) {
			gsa[ng] = sa;
			gcnt[ng] = 0;
			slot[h] = (uint8_t)++ng;
		}
		gid[i] = (uint8_t)(slot[h] - 1);
		gcnt[gid[i]]++;
	}
	return ng;
}

/* Packets of SAs that go through rte_ipsec: grouped by SA, one call per SA, in arrival order. */
static void
group_submit(struct gw_worker *w, struct gw_sa *sas[], struct rte_mbuf *mb[], uint16_t n,
	     struct cop_batch *b)
{
	struct rte_mbuf *sorted[GW_BURST];
	struct gw_sa *gsa[GW_BURST];
	uint16_t gcnt[GW_BURST], gofs[GW_BURST], ng, at = 0;
	uint8_t gid[GW_BURST];

	RTE_BUILD_BUG_ON(SA_GROUP_SLOTS != 64 || GW_BURST > 255);
	ng = sa_group(sas, n, gid, gsa, gcnt);
	for (uint16_t g = 0; g < ng; g++) {
		gofs[g] = at;
		at += gcnt[g];
	}
	for (uint16_t i = 0; i < n; i++)
		sorted[gofs[gid[i]]++] = mb[i];
	/* stage 2 for the whole burst before the first SA is used */
	for (uint16_t g = 0; g < ng; g++)
		sa_state_prefetch(w, gsa[g]);
	at = 0;
	for (uint16_t g = 0; g < ng; g++) {
		esp_submit(w, gsa[g], &sorted[at], gcnt[g], b);
		at += gcnt[g];
		b->left -= gcnt[g];
	}
}

/*
 * Packets of direct SAs (struct gw_sa direct): the PMD does all of ESP and
 * takes a burst whose sessions are mixed, so they are not grouped. In
 * arrival order, each run of consecutive packets of one SA reserves its
 * lifetime once (outbound; what esp_submit() does per group), and each
 * packet gets an op carrying the SA's session. With many SAs a run is one
 * packet, and this is all the per-SA work a packet costs before crypto.
 */
static void
direct_submit(struct gw_worker *w, struct gw_sa *const sas[], struct rte_mbuf *mb[],
	      uint16_t n, struct cop_batch *b)
{
	struct rte_crypto_op *ops[GW_BURST];
	uint16_t start[GW_BURST], nr = 0, nops, used = 0;

	/* the runs, and stage 2 for all of them before the first is used */
	for (uint16_t i = 0; i < n; i++) {
		if (i != 0 && sas[i] == sas[i - 1])
			continue;
		start[nr++] = i;
		sa_state_prefetch(w, sas[i]);
	}
	/* one op per packet, taken at once (those of expired packets go back below) */
	nops = cop_take(w, b, ops, n);
	for (uint16_t r = 0; r < nr; r++) {
		uint16_t i = start[r], len = (r + 1 < nr ? start[r + 1] : n) - i;
		struct gw_sa *sa = sas[i];
		struct rte_crypto_op **cop;
		void *ses;
		uint16_t k;

		b->left -= len;
		k = sa->dir == GW_DIR_OUT ? life_admit(w, sa, &mb[i], len) : len;
		if (k == 0)
			continue;
		cop = &b->cop[sa->cdev_id][b->n[sa->cdev_id]];
		if (nops != 0) {
			for (uint16_t j = 0; j < k; j++)
				cop[j] = ops[used++];
		} else if (cop_take(w, b, cop, k) == 0) {
			/* a pool too low for the whole burst may still serve this SA */
			for (uint16_t j = 0; j < k; j++)
				drop(w, sa, mb[i + j], GW_DROP_NO_MBUF);
			continue;
		}
		if (sa->dir == GW_DIR_OUT)
			w->sa_st[sa->idx].seq_used += k;
		ses = sa->ss.security.ses;
		for (uint16_t j = 0; j < k; j++) {
			cop[j]->sym->m_src = mb[i + j];
			rte_security_attach_session(cop[j], ses);
			*op_sa(cop[j]) = sa;
		}
		b->n[sa->cdev_id] += k;
	}
	/* ops of expired packets: back to the burst's spares (batch_enqueue() frees them) */
	while (used < nops)
		b->spare[b->nspare++] = ops[used++];
}

/*
 * Submit n packets with their SAs (sas[] and mb[] are the caller's scratch:
 * reordered here), keeping arrival order within an SA.
 */
static void
esp_group_submit(struct gw_worker *w, struct gw_sa *sas[], struct rte_mbuf *mb[], uint16_t n)
{
	struct gw_sa *dsa[GW_BURST];
	struct rte_mbuf *dmb[GW_BURST];
	uint16_t nd = 0, nr = 0;
	struct cop_batch b;

	memset(b.n, 0, sizeof(b.n));
	b.left = n;
	b.nspare = 0;
	b.ic.n[0] = b.ic.n[1] = 0;
	/*
	 * Stage 1 (the SAs' hot lines) was issued where each SA became known:
	 * gw_sp_lookup_bulk() outbound, esp_inbound() inbound. Direct SAs apart.
	 */
	for (uint16_t i = 0; i < n; i++) {
		if (__atomic_load_n(&sas[i]->direct, __ATOMIC_RELAXED)) {
			dsa[nd] = sas[i];
			dmb[nd++] = mb[i];
		} else {
			sas[nr] = sas[i];
			mb[nr++] = mb[i];
		}
	}
	if (nr != 0)
		group_submit(w, sas, mb, nr, &b);
	if (nd != 0)
		direct_submit(w, dsa, dmb, nd, &b);
	in_check_flush(w, &b.ic);
	batch_enqueue(w, &b);
}

/*
 * The SAD cache's key (fcache.h): the packet's SAD key, as rte_ipsec_sad
 * takes it, and its family (the SADs are one per family).
 */
struct sad_ck {
	uint8_t v6;
	uint8_t pad[3];
	rte_be32_t spi;
	uint8_t dip[16];
	uint8_t sip[16];
};

/* Inbound ESP: SAD lookup, the length checks rte_ipsec would fail, then submit. */
static void
esp_inbound(struct gw_worker *w, struct rte_mbuf *mb[], const uint8_t v6[], uint16_t n)
{
	union rte_ipsec_sad_key keys[GW_BURST];
	struct sad_ck ck[GW_BURST] __rte_aligned(8);
	struct gw_fc_ent *e[GW_BURST];
	const union rte_ipsec_sad_key *kp4[GW_BURST], *kp6[GW_BURST];
	void *res4[GW_BURST], *res6[GW_BURST];
	struct gw_sa *res[GW_BURST];
	uint16_t at4[GW_BURST], at6[GW_BURST];
	struct gw_sa *sas[GW_BURST];
	struct rte_mbuf *ok[GW_BURST];
	struct gw_fc *c = w->sadc;
	uint64_t gen = __atomic_load_n(&gw.sad_gen, __ATOMIC_ACQUIRE);
	uint16_t n4 = 0, n6 = 0, nok = 0;

	RTE_BUILD_BUG_ON(sizeof(struct sad_ck) != GW_FC_KEY);
	/* each packet's key once, the cache's; rte_ipsec_sad's only for a miss */
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *l3 = rte_pktmbuf_mtod(mb[i], const uint8_t *);
		const struct rte_esp_hdr *esp = (const struct rte_esp_hdr *)(l3 + mb[i]->l3_len);

		memset(&ck[i], 0, sizeof(ck[i]));
		ck[i].v6 = v6[i] & 1;
		ck[i].spi = esp->spi;
		if (v6[i] & 1) {
			const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)l3;

			memcpy(ck[i].dip, h->dst_addr, 16);
			memcpy(ck[i].sip, h->src_addr, 16);
		} else {
			const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;

			memcpy(ck[i].dip, &h->dst_addr, 4);
			memcpy(ck[i].sip, &h->src_addr, 4);
		}
		if (c != NULL)
			e[i] = gw_fc_slot(c, &ck[i]);
	}
	/* the SAD cache first (one line), rte_ipsec_sad for what it does not hold */
	for (uint16_t i = 0; i < n; i++) {
		const struct gw_fc_ent *h = c != NULL ? gw_fc_hit(e[i], gen, &ck[i]) : NULL;

		if (h != NULL) {
			res[i] = (struct gw_sa *)(uintptr_t)h->ans;
			gw_sa_prefetch(res[i]);         /* stage 1 with its session */
			ses_hint_prefetch(h->aux);
			continue;
		}
		memset(&keys[i], 0, sizeof(keys[i]));
		if (ck[i].v6) {
			keys[i].v6.spi = ck[i].spi;
			memcpy(keys[i].v6.dip, ck[i].dip, 16);
			memcpy(keys[i].v6.sip, ck[i].sip, 16);
			at6[n6] = i;
			kp6[n6++] = &keys[i];
		} else {
			keys[i].v4.spi = ck[i].spi;
			memcpy(&keys[i].v4.dip, ck[i].dip, 4);
			memcpy(&keys[i].v4.sip, ck[i].sip, 4);
			at4[n4] = i;
			kp4[n4++] = &keys[i];
		}
	}
	if (c != NULL)
		gw_fc_count(c, n - n4 - n6, n4 + n6);
	if (n4 != 0)
		rte_ipsec_sad_lookup(gw.sad4, kp4, res4, n4);
	if (n6 != 0)
		rte_ipsec_sad_lookup(gw.sad6, kp6, res6, n6);
	for (uint16_t j = 0; j < n4 + n6; j++) {
		uint16_t i = j < n4 ? at4[j] : at6[j - n4];

		res[i] = j < n4 ? res4[j] : res6[j - n4];
		if (res[i] != NULL)
			gw_sa_prefetch(res[i]);         /* stage 1 (cache hits: above) */
		if (c != NULL)
			gw_fc_fill(e[i], gen, &ck[i], res[i], ses_hint(res[i]));
	}
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		struct gw_sa *sa = res[i];
		int32_t clen;

		/* an SA takes ESP in UDP or plain ESP, not both */
		if (sa != NULL && sa->natt != ((v6[i] & ESP_NATT) != 0))
			sa = NULL;
		if (sa == NULL) {
			drop(w, NULL, m, GW_DROP_NO_SA);
			continue;
		}
		/* transport NAT-T: rte_ipsec must see plain ESP */
		if (sa->natt && sa->mode == GW_MODE_TRANS && gw_natt_trs_decap(m) < 0) {
			drop(w, sa, m, GW_DROP_MALFORMED);
			continue;
		}
		clen = (int32_t)(m->pkt_len - m->l3_len) - sa->esp_fixed;
		if (clen <= 0 || (clen & (sa->pad_align - 1)) != 0 ||
				rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < sa->tail_need) {
			drop(w, sa, m, GW_DROP_MALFORMED);
			continue;
		}
		sas[nok] = sa;
		ok[nok++] = m;
	}
	if (nok != 0)
		esp_group_submit(w, sas, ok, nok);
}

#define HOST_IN 1       /* rx_process(): clear, for the host once the inbound SPD passes it */
#define HOST_PASS 2     /* rx_process(): from the host, out as it is if no rule matches */

static void
rx_process(struct gw_worker *w, uint16_t port, struct rte_mbuf *mb[], uint16_t n)
{
	bool prot = gw.port[port].esp_side;     /* ESP arrives here */
	/* --host-port (host.c): port mirrors a host interface, or is the host's */
	bool mirror = gw_host_tap[port] >= 0, from_host = gw_host_of[port] >= 0;
	struct rte_mbuf *esp[GW_BURST], *out[GW_BURST], *clear[2][GW_BURST];
	struct gw_sa *out_sa[GW_BURST];
	/* clear packets for the host (HOST_IN) or from it that no rule may drop (HOST_PASS) */
	uint8_t hflag[2][GW_BURST];
	uint16_t nclear[2] = { 0, 0 };
	uint8_t esp_v6[GW_BURST];
	uint16_t nesp = 0, nout = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		struct gw_l3 r;
		int v6, rc;

		if ((mirror || from_host) && gw_host_l2(w, port, m))
			continue;
		/* classification: gw_pkt.h (also run by the fuzz target, on bytes) */
		if (strip_l2(m) < 0 || (v6 = parse_l3(m, rx_ck(m), &r)) < 0) {
			drop(w, NULL, m, GW_DROP_MALFORMED);
			continue;
		}
		/* fragments wait for their datagram, which then goes on from here */
		if (r.frag && w->frag != NULL && (rc = gw_frag_in(w, &m, v6, r.proto)) != 0 &&
				(rc < 0 || (v6 = parse_l3(m, GW_CK_GOOD, &r)) < 0)) {
			if (rc > 0)
				drop(w, NULL, m, GW_DROP_MALFORMED);
			continue;
		}
		if (from_host) {
			if (gw_host_bypass(w, port, m, v6, r.proto, r.frag))
				continue;
			/* outbound SPD */
			hflag[v6][nclear[v6]] = gw_host_default_drop(port, m, v6, r.proto) ? 0 :
				HOST_PASS;
			clear[v6][nclear[v6]++] = m;
			continue;
		}
		if (mirror) {
			int h = gw_host_l3(w, port, m, v6, r.proto, r.frag);

			if (h == GW_HOST_TAKEN)
				continue;
			if (h == GW_HOST_SPD) {
				/* clear, for the host: the inbound SPD first, in this burst's lookup */
				hflag[v6][nclear[v6]] = HOST_IN;
				clear[v6][nclear[v6]++] = m;
				continue;
			}
		}
		switch (gw_pkt_class(rte_pktmbuf_mtod(m, const uint8_t *), &r, prot)) {
		case GW_PKT_KEEPALIVE:
			drop(w, NULL, m, GW_DROP_KEEPALIVE);     /* RFC 3948 2.3: nothing to do */
			continue;
		case GW_PKT_ESP_NATT:
			m->l3_len += sizeof(struct rte_udp_hdr);        /* ESP starts after UDP */
			esp_v6[nesp] = (uint8_t)(v6 | ESP_NATT);
			esp[nesp++] = m;
			continue;
		case GW_PKT_ESP:
			esp_v6[nesp] = (uint8_t)v6;
			esp[nesp++] = m;
			continue;
		case GW_PKT_MALFORMED:
			drop(w, NULL, m, GW_DROP_MALFORMED);
			continue;
		case GW_PKT_CLEAR:
			break;
		}
		hflag[v6][nclear[v6]] = 0;
		clear[v6][nclear[v6]++] = m;
	}
	/* the SPD, one rte_acl call per family */
	for (int v6 = 0; v6 < 2; v6++) {
		const struct gw_sp *sps[GW_BURST];
		struct gw_sp_val val[GW_BURST];

		if (nclear[v6] == 0)
			continue;
		spd_lookup(w, v6, prot ? GW_DIR_IN : GW_DIR_OUT, clear[v6], nclear[v6], sps, val);
		for (uint16_t i = 0; i < nclear[v6]; i++) {
			struct rte_mbuf *m = clear[v6][i];
			bool none = sps[i] == NULL;
			uint8_t action = val[i].action;

			/*
			 * the host's traffic no rule protects leaves as the host made it
			 * (no rule: unless --host-default discard)
			 */
			if (from_host && ((none && (hflag[v6][i] & HOST_PASS) != 0) ||
					  (!none && action == GW_SP_BYPASS))) {
				gw_host_out(w, port, m, v6);
				continue;
			}
			/* clear traffic for the host: bypass (or no rule) lets it in */
			if ((hflag[v6][i] & HOST_IN) != 0) {
				if (none ? gw_host_discard : action != GW_SP_BYPASS)
					drop(w, NULL, m, GW_DROP_POLICY);
				else
					gw_host_in(w, port, m, v6);
				continue;
			}
			if (none || action == GW_SP_DISCARD || (prot && action != GW_SP_BYPASS)) {
				drop(w, NULL, m, GW_DROP_POLICY);
				continue;
			}
			if (action == GW_SP_BYPASS) {
				w->st.bypass++;
				route_tx(w, m, !prot);
				continue;
			}
			out_sa[nout] = val[i].sa;
			out[nout++] = m;
		}
	}
	if (nesp != 0)
		esp_inbound(w, esp, esp_v6, nesp);
	if (nout != 0)
		esp_group_submit(w, out_sa, out, nout);
}

/*
 * What post_process() touches of a group's SA: its rte_ipsec SA (unless
 * direct) and this worker's counters.
 */
static inline void
post_prefetch(struct gw_worker *w, const struct gw_sa *sa)
{
	if (!__atomic_load_n(&sa->direct, __ATOMIC_RELAXED))
		ipsec_sa_prefetch(sa);
	rte_prefetch0(&w->sa_st[sa->idx]);     /* the line of its packet counters */
}

/*
 * Completed ops into runs of one SA (the SA each op carries, op_sa()), as
 * rte_ipsec_pkt_crypto_group() groups them by session but without reading
 * the session: mb[] the ops' packets in order, gsa[g] and gcnt[g] each
 * run's SA and length. A packet whose op did not succeed is marked
 * RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED, what rte_ipsec's process looks for.
 */
static uint16_t
cop_runs(struct rte_crypto_op *cop[], uint16_t n, struct rte_mbuf *mb[], struct gw_sa *gsa[],
	 uint16_t gcnt[])
{
	uint16_t ng = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = cop[i]->sym->m_src;
		struct gw_sa *sa = *op_sa(cop[i]);

		m->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD;
		if (cop[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS)
			m->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED;
		mb[i] = m;
		if (ng == 0 || gsa[ng - 1] != sa) {
			gsa[ng] = sa;
			gcnt[ng++] = 0;
		}
		gcnt[ng - 1]++;
	}
	return ng;
}

static unsigned int
crypto_dequeue(struct gw_worker *w)
{
	struct rte_crypto_op *cop[GW_BURST];
	struct rte_mbuf *mb[GW_BURST];
	struct gw_sa *gsa[GW_BURST];
	uint16_t gcnt[GW_BURST];
	struct in_check ic = { .n = { 0, 0 } };
	unsigned int total = 0;

	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		uint16_t n, ng, at;

		/*
		 * Drain what is done, not just one burst: a poll may enqueue several
		 * bursts (one per rx queue), and a queue pair left to fill up drops.
		 */
	again:
		if (w->inflight[id] == 0)
			continue;
		n = rte_cryptodev_dequeue_burst((uint8_t)id, w->qp, cop, GW_BURST);
		if (n == 0)
			continue;
		w->inflight[id] -= n;
		w->inflight_total -= n;
		total += n;
		ng = cop_runs(cop, n, mb, gsa, gcnt);
		at = 0;
		rte_mempool_put_bulk(w->cop_pool, (void **)cop, n);
		for (uint16_t g = 0; g < ng && g < SA_PREFETCH_AHEAD; g++)
			post_prefetch(w, gsa[g]);
		for (uint16_t g = 0; g < ng; g++) {
			if (g + SA_PREFETCH_AHEAD < ng)
				post_prefetch(w, gsa[g + SA_PREFETCH_AHEAD]);
			sa_post(w, gsa[g], &mb[at], gcnt[g], &ic);
			at += gcnt[g];
		}
		in_check_flush(w, &ic);
		if (n == GW_BURST)
			goto again;
	}
	return total;
}

/* One iteration: every rx queue once, crypto completions, tx. Returns packets moved. */
unsigned int
gw_worker_poll(struct gw_worker *w)
{
	struct rte_mbuf *mb[GW_BURST];
	unsigned int moved = 0;

	/*
	 * One TSC read per poll for the SAs' last use: rdtsc costs about 30
	 * cycles here, once per SA group it was 55 % of post_process at 1,000
	 * SAs (a group per packet)
	 */
	w->now_tsc = rte_rdtsc();
	for (unsigned int q = 0; q < w->nb_rxq; q++) {
		uint16_t port = w->rxq[q].port;
		uint16_t n = rte_eth_rx_burst(port, w->rxq[q].queue, mb, gw.rx_burst);

		if (n == 0)
			continue;
		w->st.port[port].rx += n;
		moved += n;
		rx_process(w, port, mb, n);
	}
	if (w->inflight_total != 0)
		moved += crypto_dequeue(w);
	gw_frag_poll(w);
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		tx_flush(w, p);
	if (gw.rcu != NULL) {
		/* no SA, SP list or crypto op of this poll is referenced past here */
		if (w->inflight_total == 0)
			__atomic_store_n(&w->drained, w->drained + 1, __ATOMIC_RELEASE);
		rte_rcu_qsbr_quiescent(gw.rcu, w->id);
	}
	/* --idle-exit (main.c) reads last_rx_tsc after polls: store it first */
	if (moved != 0)
		__atomic_store_n(&w->last_rx_tsc, rte_rdtsc(), __ATOMIC_RELAXED);
	__atomic_store_n(&w->polls, w->polls + 1, __ATOMIC_RELEASE);
	return moved;
}

/* Wait for the cryptodevs to give back what this worker enqueued, then flush. */
void
gw_worker_drain(struct gw_worker *w)
{
	uint64_t deadline = rte_get_tsc_cycles() + rte_get_tsc_hz();

	for (;;) {
		uint32_t left = 0;

		w->now_tsc = rte_rdtsc();
		left = w->inflight_total;
		if (left == 0 || rte_get_tsc_cycles() > deadline)
			break;
		crypto_dequeue(w);
		for (uint16_t p = 0; p < gw.nb_ports; p++)
			tx_flush(w, p);
	}
	gw_frag_flush(w);
}

int
gw_worker_loop(void *arg)
{
	struct gw_worker *w = arg;

	if (gw.rcu != NULL) {
		rte_rcu_qsbr_thread_register(gw.rcu, w->id);
		rte_rcu_qsbr_thread_online(gw.rcu, w->id);
	}
	while (!gw_quit) {
		uint64_t t0 = rte_rdtsc();

		if (gw_worker_poll(w) != 0) {
			uint64_t t1 = rte_rdtsc();

			w->busy_cycles += t1 - t0;
			w->last_rx_tsc = t1;
		}
	}
	gw_worker_drain(w);
	if (gw.rcu != NULL) {
		rte_rcu_qsbr_thread_offline(gw.rcu, w->id);
		rte_rcu_qsbr_thread_unregister(gw.rcu, w->id);
	}
	return 0;
}
