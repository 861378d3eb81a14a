/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw port I/O: what the worker and the host exception path (host.c)
 * both do to packets on the ports, and nothing else: rx burst, strip the
 * Ethernet header and check the IP header, count and free a drop, buffer
 * for tx and flush (port_io.c), route and put the L2 header on (the
 * kernel's routes and neighbours with --kernel-nh: kernel_nh.h). It calls
 * no other data-path file (rt.c and frag.c only), so the worker, the ESP
 * files and host.c all sit on it. Per-packet steps are static inline here.
 */
#ifndef VECSEC_GW_PORT_IO_H
#define VECSEC_GW_PORT_IO_H

#include "gw_dp.h"
#include "gw_pkt.h"
#include "kernel_nh.h"

#include <errno.h>

#include <rte_ethdev.h>
#include <rte_ip.h>

/* Count a drop once, under its reason (and its SA's, where there is one), and free it. */
static inline void
gw_port_drop(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m, enum gw_drop why)
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

/* Up to gw.rx_burst packets of the worker's rx queue q, counted on their port. */
static inline uint16_t
gw_port_rx(struct gw_worker *w, unsigned int q, struct rte_mbuf *mb[])
{
	uint16_t port = w->rxq[q].port;
	uint16_t n = rte_eth_rx_burst(port, w->rxq[q].queue, mb, gw.rx_burst);

	if (n != 0)
		w->st.port[port].rx += n;
	return n;
}

/* Send what the worker buffered for port (port_io.c). */
void gw_port_flush(struct gw_worker *w, uint16_t port);

/* Queue m, its L2 header in front, for tx on port (the buffer flushed when full). */
static inline void
gw_port_tx(struct gw_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct gw_txbuf *tb = &w->tx[port];

	if (tb->n == RTE_DIM(tb->m))
		gw_port_flush(w, port);
	tb->m[tb->n++] = m;
}

/*
 * Route the IP packet at the start of m and queue it, with its L2 header,
 * for tx. The gateway's own addresses are not looked at here: a caller
 * routing to a protected port asks host.c first (gw_route_in()).
 */
static inline void
gw_port_route(struct gw_worker *w, struct rte_mbuf *m, bool to_esp_side)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	bool v6 = (l3[0] >> 4) == 6;
	/* the next hop: the destination, or a kernel route's gateway (--kernel-nh) */
	const uint8_t *nh = l3 + (v6 ? offsetof(struct rte_ipv6_hdr, dst_addr) :
				  offsetof(struct rte_ipv4_hdr, dst_addr));
	struct rte_ether_addr dmac;
	struct rte_ether_hdr *eh;
	int port;

	port = gw_rt_lookup(&gw, to_esp_side, l3, v6);
	if (port < 0 && gw_knh_on)
		port = gw_knh_route(to_esp_side, v6, &nh);     /* rt lines first */
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
	if (!gw_knh_on)
		gw_port_peer(&gw.port[port], &dmac);
	else if (gw_knh_l2((uint16_t)port, v6, nh, &dmac) != 0) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_NEIGH);     /* the kernel resolves it */
		return;
	}
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh));
	if (eh == NULL) {
		gw_port_drop(w, NULL, m, GW_DROP_NO_MBUF);
		return;
	}
	rte_ether_addr_copy(&dmac, &eh->dst_addr);
	rte_ether_addr_copy(&gw.port[port].mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(v6 ? RTE_ETHER_TYPE_IPV6 : RTE_ETHER_TYPE_IPV4);
	m->ol_flags = 0;
	m->l2_len = sizeof(*eh);
	gw_port_tx(w, (uint16_t)port, m);
}

#endif
