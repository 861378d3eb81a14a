/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw inbound ESP (esp_in.c: the SAD lookup and the inner policy
 * check): what only inbound packets go through, around the shared crypto
 * machinery (esp_crypto.c), which runs these steps inline: the exact
 * anti-replay window in two steps, the dummy-packet tests, and what a
 * packet out of ESP gets (its inner header checked, NAT-T's transport
 * fix-up, the batch of the policy check, whose route asks host.c first).
 */
#ifndef VECSEC_GW_ESP_IN_H
#define VECSEC_GW_ESP_IN_H

#include "gw_dp.h"
#include "esp_crypto.h"
#include "fcache.h"
#include "port_io.h"

#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf_dyn.h>

#include <vecsec/vecsec_esp.h>

#define ESP_NATT 2      /* flag in esp_in_sad()'s v6[]: ESP came in UDP */

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

/*
 * Route a clear packet to a protected port (decrypted, or bypassed in
 * from the unprotected side): the gateway's own addresses go to the host
 * (--host-port), what host.c does not take to the route.
 */
static inline void
gw_route_in(struct gw_worker *w, struct rte_mbuf *m)
{
	if (gw_host_on) {
		struct gw_host_pkt hp = {
			.at = GW_HOST_AT_ROUTE,
			.v6 = (rte_pktmbuf_mtod(m, const uint8_t *)[0] >> 4) == 6,
		};

		if (gw_host_classify(w, 0, m, &hp) == GW_HOST_TAKEN)
			return;
	}
	gw_port_route(w, m, false);
}

/* The policy for each inner packet of ic must protect it with the SA it came in; then route. */
void gw_esp_in_check(struct gw_worker *w, struct in_check *ic);

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
static inline uint16_t
replay_pre(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n)
{
	uint64_t top = vecsec_esp_replay_top(sa->rw);
	/* --cluster-sync (hasync.c): only numbers the partner has acked; line 2 only then */
	uint64_t lim = unlikely(sa->ha_gate) ? __atomic_load_n(&sa->ha_in_lim, __ATOMIC_RELAXED) :
		UINT64_MAX;
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
			gw_port_drop(w, sa, m, GW_DROP_REPLAY);
			continue;
		}
		if (unlikely(v > lim)) {
			gw_port_drop(w, sa, m, GW_DROP_HA_SEQ_WAIT);
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

/*
 * Step B (see above), one run: from mb[*at], the packets to give
 * rte_ipsec_pkt_process() together (into run[], returned count), dropping
 * replays; stops before a packet that is a duplicate of the run or too old
 * for it, decided once the run is recorded. The caller holds the write lock.
 */
static inline uint16_t
replay_run(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *mb[], uint16_t n,
	   uint16_t *at, struct rte_mbuf *run[])
{
	uint32_t win = vecsec_esp_replay_win(sa->rw);
	uint64_t seen[GW_BURST], top = vecsec_esp_replay_top(sa->rw);
	uint16_t nr = 0, ns = 0, i = *at;

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
			gw_port_drop(w, sa, m, GW_DROP_REPLAY);
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
	*at = i;
	return nr;
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
 * An inbound packet out of rte_ipsec that authenticated: a transport
 * dummy is dropped; else counted on its SA, its inner header checked
 * (tunnel: like any received one, a corrupted one dropped, not given a
 * fresh checksum; transport: verified on rx, then ESP's removal changed
 * it), NAT-T's transport checksum fixed, and it joins ic for the policy
 * check.
 */
static inline void
in_post(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m, struct gw_sa_ctr *ss,
	struct in_check *ic)
{
	struct gw_l3 r;
	int v6;

	if (sa->mode == GW_MODE_TRANS && in_trs_dummy(m)) {
		gw_port_drop(w, sa, m, GW_DROP_DUMMY);
		return;
	}
	ss->pkts++;
	ss->bytes += m->pkt_len;
	v6 = parse_l3(m, sa->mode == GW_MODE_TRANS ? GW_CK_GOOD : GW_CK_VERIFY, &r);
	if (v6 < 0) {
		gw_port_drop(w, sa, m, GW_DROP_MALFORMED);
		return;
	}
	if (sa->natt && sa->mode == GW_MODE_TRANS)
		gw_natt_trs_l4_fix(m, r.proto);
	ic->m[v6][ic->n[v6]] = m;
	ic->sa[v6][ic->n[v6]++] = sa;
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

/*
 * ESP packets of a burst (their IP header first, l3_len up to ESP; v6[]:
 * family, | ESP_NATT for ESP in UDP): each one's SA by the SAD, and the
 * length checks rte_ipsec would fail (those dropped). Returns how many go
 * on, in ok[] with their SAs in sas[], for gw_esp_submit(). Inline in the
 * worker's rx_process(), as before the split: out of line it cost 2
 * instructions more per inbound packet (callgrind).
 */
static inline uint16_t
esp_in_sad(struct gw_worker *w, struct rte_mbuf *mb[], const uint8_t v6[], uint16_t n,
	   struct gw_sa *sas[], struct rte_mbuf *ok[])
{
	union rte_ipsec_sad_key keys[GW_BURST];
	struct sad_ck ck[GW_BURST] __rte_aligned(8);
	struct gw_fc_ent *e[GW_BURST];
	const union rte_ipsec_sad_key *kp4[GW_BURST], *kp6[GW_BURST];
	void *res4[GW_BURST], *res6[GW_BURST];
	struct gw_sa *res[GW_BURST];
	uint16_t at4[GW_BURST], at6[GW_BURST];
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
			sa_hint_prefetch(res[i], h->aux);       /* stage 1 with its session */
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
			gw_port_drop(w, NULL, m, GW_DROP_NO_SA);
			continue;
		}
		/* transport NAT-T: rte_ipsec must see plain ESP */
		if (sa->natt && sa->mode == GW_MODE_TRANS && gw_natt_trs_decap(m) < 0) {
			gw_port_drop(w, sa, m, GW_DROP_MALFORMED);
			continue;
		}
		clen = (int32_t)(m->pkt_len - m->l3_len) - sa->esp_fixed;
		if (clen <= 0 || (clen & (sa->pad_align - 1)) != 0 ||
				rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < sa->tail_need) {
			gw_port_drop(w, sa, m, GW_DROP_MALFORMED);
			continue;
		}
		sas[nok] = sa;
		ok[nok++] = m;
	}
	return nok;
}

#endif
