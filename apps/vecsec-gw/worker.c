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
 *
 * This file keeps the loop: the poll (rx, completions, tx flush), each rx
 * burst's dispatch (host.c's verdict on --host-port ports, ESP or clear,
 * the SPD), the drain at stop and quiescence. Below it: inbound ESP
 * (esp_in.c), outbound (esp_out.c), the crypto machinery both share
 * (esp_crypto.c), the host exception path (host.c, asked through
 * gw_host_classify() alone) and the port I/O layer (port_io.c).
 */
#include "gw_dp.h"
#include "esp_crypto.h"
#include "esp_in.h"
#include "gw_pkt.h"
#include "ha_dp.h"
#include "port_io.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_udp.h>

static void
rx_process(struct gw_worker *w, uint16_t port, struct rte_mbuf *mb[], uint16_t n)
{
	bool prot = gw.port[port].esp_side;     /* ESP arrives here */
	/* --host-port (host.c): port mirrors a host interface, or is the host's */
	bool mirror = gw_host_tap[port] >= 0, from_host = gw_host_of[port] >= 0;
	struct rte_mbuf *esp[GW_BURST], *out[GW_BURST], *clear[2][GW_BURST];
	struct gw_sa *out_sa[GW_BURST];
	/* clear packets for the host or from it: host.c's GW_HOST_SPD_* (else GW_HOST_NO) */
	uint8_t hflag[2][GW_BURST];
	uint16_t nclear[2] = { 0, 0 };
	uint8_t esp_v6[GW_BURST];
	uint16_t nesp = 0, nout = 0;
	struct gw_host_pkt hp;
	/* --cluster (ha_dp.h): the active segments, read once for the burst */
	bool ha_on = gw_ha.count != 0;
	uint16_t ha_mask = ha_on ? gw_ha_active() : 0;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = mb[i];
		struct gw_l3 r;
		int v6, rc;

		if (mirror || from_host) {
			hp.at = GW_HOST_AT_L2;
			if (gw_host_classify(w, port, m, &hp) == GW_HOST_TAKEN)
				continue;
		}
		/* classification: gw_pkt.h (also run by the fuzz target, on bytes) */
		if (strip_l2(m) < 0 || (v6 = parse_l3(m, rx_ck(m), &r)) < 0) {
			gw_port_drop(w, NULL, m, GW_DROP_MALFORMED);
			continue;
		}
		/* fragments wait for their datagram, which then goes on from here */
		if (r.frag && w->frag != NULL && (rc = gw_frag_in(w, &m, v6, r.proto)) != 0 &&
				(rc < 0 || (v6 = parse_l3(m, GW_CK_GOOD, &r)) < 0)) {
			if (rc > 0)
				gw_port_drop(w, NULL, m, GW_DROP_MALFORMED);
			continue;
		}
		/* to the cluster address from a peer of a segment inactive here */
		if (ha_on && prot && gw_ha_clear_drop(rte_pktmbuf_mtod(m, const uint8_t *), &r,
							ha_mask)) {
			gw_port_drop(w, NULL, m, GW_DROP_SEGMENT);
			continue;
		}
		/*
		 * the host's (from it: to the outbound SPD whatever it is) or to
		 * it (the inbound SPD first), or the gateway's after all
		 */
		if (mirror || from_host) {
			enum gw_host_verdict h;

			hp.at = GW_HOST_AT_L3;
			hp.v6 = (uint8_t)v6;
			hp.proto = r.proto;
			hp.frag = r.frag;
			h = gw_host_classify(w, port, m, &hp);
			if (h == GW_HOST_TAKEN)
				continue;
			if (h != GW_HOST_NO) {
				hflag[v6][nclear[v6]] = (uint8_t)h;
				clear[v6][nclear[v6]++] = m;
				continue;
			}
		}
		switch (gw_pkt_class(rte_pktmbuf_mtod(m, const uint8_t *), &r, prot)) {
		case GW_PKT_KEEPALIVE:
			gw_port_drop(w, NULL, m, GW_DROP_KEEPALIVE);     /* RFC 3948 2.3: nothing to do */
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
			gw_port_drop(w, NULL, m, GW_DROP_MALFORMED);
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
			 * the host's traffic no rule protects leaves as the host made it;
			 * clear traffic for the host: bypass (or no rule) lets it in
			 */
			if ((mirror || from_host) && hflag[v6][i] != GW_HOST_NO) {
				hp.at = GW_HOST_AT_SPD;
				hp.v6 = (uint8_t)v6;
				hp.l3 = hflag[v6][i];
				hp.sp = none ? GW_HOST_SP_NONE : action;
				if (gw_host_classify(w, port, m, &hp) == GW_HOST_TAKEN)
					continue;
			}
			if (none || action == GW_SP_DISCARD || (prot && action != GW_SP_BYPASS)) {
				gw_port_drop(w, NULL, m, GW_DROP_POLICY);
				continue;
			}
			if (action == GW_SP_BYPASS) {
				w->st.bypass++;
				if (prot)
					gw_route_in(w, m);      /* the host's own addresses first */
				else
					gw_port_route(w, m, true);
				continue;
			}
			out_sa[nout] = val[i].sa;
			out[nout++] = m;
		}
	}
	if (ha_on && nesp != 0)
		nesp = gw_ha_esp_in(w, esp, esp_v6, nesp, ha_mask);
	if (ha_on && nout != 0)
		nout = gw_ha_esp_out(w, out_sa, out, nout, ha_mask);
	if (nesp != 0) {
		struct gw_sa *in_sa[GW_BURST];
		struct rte_mbuf *ok[GW_BURST];
		uint16_t nok = esp_in_sad(w, esp, esp_v6, nesp, in_sa, ok);

		if (nok != 0)
			gw_esp_submit(w, in_sa, ok, nok);
	}
	if (nout != 0)
		gw_esp_submit(w, out_sa, out, nout);
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
		uint16_t n = gw_port_rx(w, q, mb);

		if (n == 0)
			continue;
		moved += n;
		rx_process(w, w->rxq[q].port, mb, n);
	}
	if (w->inflight_total != 0)
		moved += gw_esp_dequeue(w);
	gw_frag_poll(w);
	for (uint16_t p = 0; p < gw.nb_ports; p++)
		gw_port_flush(w, p);
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
		gw_esp_dequeue(w);
		for (uint16_t p = 0; p < gw.nb_ports; p++)
			gw_port_flush(w, p);
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
