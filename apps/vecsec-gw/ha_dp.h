/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cluster segment filter in the data path (issue #30, docs/ha.md): the
 * part of ClusterIP's role that vecsec-gw takes over. worker.c calls these
 * only when --cluster is given (gw_ha.count != 0) and reads the active mask
 * once per rx burst; with clustering off the data path pays one test of a
 * global per burst and one of a local per packet.
 *
 *   gw_ha_clear_drop()  a clear (non-ESP) IPv4 datagram to a cluster address
 *                       on an ESP-side port, IKE included, whose source's
 *                       segment is inactive (before the host path sees it)
 *   gw_ha_esp_in()      a burst of ESP / ESP-in-UDP: those to a cluster
 *                       address whose (destination, SPI) segment is inactive
 *   gw_ha_esp_out()     a burst of outbound packets with their SAs: those of
 *                       an SA whose (peer, SPI) segment is inactive, dropped
 *                       before the SA gives them a sequence number
 * Each drop is counted as `inactive_segment` (per SA where there is one).
 */
#ifndef VECSEC_GW_HA_DP_H
#define VECSEC_GW_HA_DP_H

#include "gw_dp.h"
#include "gw_pkt.h"
#include "ha.h"
#include "port_io.h"

#include <rte_ip.h>
#include <rte_mbuf.h>

/* p: the datagram's IPv4 header (r from gw_pkt_l3); mask: the active segments */
static inline bool
gw_ha_clear_drop(const uint8_t *p, const struct gw_l3 *r, uint16_t mask)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;
	enum gw_pkt_class c;

	if (r->v6 || !gw_ha_is_vip(rte_be_to_cpu_32(ip->dst_addr)))
		return false;
	c = gw_pkt_class(p, r, true);
	if (c == GW_PKT_ESP || c == GW_PKT_ESP_NATT || c == GW_PKT_MALFORMED)
		return false;           /* ESP: gw_ha_esp_in(); malformed: counted as such */
	return !(mask & gw_ha_seg_bit(gw_ha_seg_host(rte_be_to_cpu_32(ip->src_addr),
						      gw_ha.count)));
}

/*
 * ESP packets (l3_len up to the ESP header, v6[i] bit 0 the family): those
 * of inactive segments dropped, the rest moved down; returns how many are left.
 */
static inline uint16_t
gw_ha_esp_in(struct gw_worker *w, struct rte_mbuf *m[], uint8_t v6[], uint16_t n, uint16_t mask)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)p;

		if (!(v6[i] & 1) && gw_ha_is_vip(rte_be_to_cpu_32(ip->dst_addr))) {
			uint32_t spi;

			/* gw_pkt_class() saw the ESP header in the first segment */
			memcpy(&spi, p + m[i]->l3_len, sizeof(spi));
			if (!(mask & gw_ha_seg_bit(gw_ha_seg_sa(rte_be_to_cpu_32(ip->dst_addr),
								 rte_be_to_cpu_32(spi),
								 gw_ha.count)))) {
				gw_port_drop(w, NULL, m[i], GW_DROP_SEGMENT);
				continue;
			}
		}
		v6[k] = v6[i];
		m[k++] = m[i];
	}
	return k;
}

/* Outbound packets and their SAs: those of inactive segments dropped; returns how many are left. */
static inline uint16_t
gw_ha_esp_out(struct gw_worker *w, struct gw_sa *sa[], struct rte_mbuf *m[], uint16_t n,
	      uint16_t mask)
{
	uint16_t k = 0;

	for (uint16_t i = 0; i < n; i++) {
		unsigned int seg = sa[i]->ha_seg;

		if (seg == GW_HA_SEG_PKT) {
			/* transport mode: the cluster's if it leaves from a cluster address */
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m[i],
									const struct rte_ipv4_hdr *);

			seg = 0;
			if ((ip->version_ihl >> 4) == 4 &&
			    gw_ha_is_vip(rte_be_to_cpu_32(ip->src_addr)))
				seg = gw_ha_seg_sa(rte_be_to_cpu_32(ip->dst_addr), sa[i]->spi,
						   gw_ha.count);
		}
		if (seg != 0 && !(mask & gw_ha_seg_bit(seg))) {
			gw_port_drop(w, sa[i], m[i], GW_DROP_SEGMENT);
			continue;
		}
		sa[k] = sa[i];
		m[k++] = m[i];
	}
	return k;
}

#endif /* VECSEC_GW_HA_DP_H */
