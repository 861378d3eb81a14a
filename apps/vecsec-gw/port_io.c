/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw port I/O, the out-of-line part (port_io.h): tx flush, and the
 * route with its L2 header (fragmenting for the port's MTU). Below the
 * worker, the ESP files and the host exception path; calls only rt.c and
 * frag.c.
 */
#include "port_io.h"

#include <errno.h>

void
gw_port_flush(struct gw_worker *w, uint16_t port)
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
		gw_port_drop(w, NULL, tb->m[i], GW_DROP_RING_FULL);
	tb->n = 0;
}

void
gw_port_route(struct gw_worker *w, struct rte_mbuf *m, bool to_esp_side)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	bool v6 = (l3[0] >> 4) == 6;
	struct rte_ether_hdr *eh;
	int port;

	port = gw_rt_lookup(&gw, to_esp_side, l3, v6);
	if (port < 0 || port >= gw.nb_ports || !gw.port[port].used) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_ROUTE);
		return;
	}
	/*
	 * too big for the port: fragments (each routed again, they fit), else
	 * too_big; a fragment has its datagram's destination, which the
	 * caller's look at the gateway's own addresses has seen already
	 */
	if (m->pkt_len > gw.port[port].mtu) {
		struct rte_mbuf *fr[GW_FRAG_MAX_OUT];
		int nf = gw_frag_split(w, m, gw.port[port].mtu, v6, fr);

		if (nf < 0) {
			gw_port_drop(w, NULL, m, nf == -ENOMEM ? GW_DROP_NO_MBUF : GW_DROP_TOO_BIG);
			return;
		}
		for (int i = 0; i < nf; i++)
			gw_port_route(w, fr[i], to_esp_side);
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
		gw_port_drop(w, NULL, m, GW_DROP_NO_MBUF);
		return;
	}
	rte_ether_addr_copy(&gw.port[port].peer, &eh->dst_addr);
	rte_ether_addr_copy(&gw.port[port].mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	m->ol_flags = 0;
	m->l2_len = sizeof(*eh);
	gw_port_tx(w, (uint16_t)port, m);
}
