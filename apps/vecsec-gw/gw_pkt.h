/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: IPv6 extension header walk (RFC 8200 4.1-4.6), shared by the
 * worker (l3_len covers the chain, so rte_ipsec finds ESP after it and puts
 * ESP after it in transport mode) and the SPD (which classifies by the
 * upper-layer protocol at the end of the chain). Header only: the SPD test
 * links sp.c without the worker.
 */
#ifndef VECSEC_GW_PKT_H
#define VECSEC_GW_PKT_H

#include <stdint.h>

#include <rte_ip.h>

/*
 * Longest IPv6 header chain taken: mbuf l3_len has 9 bits (511), and NAT-T
 * tunnel SAs add the 8-byte UDP header to it.
 */
#define GW_IP6_HDR_MAX 496

/*
 * Walk the Hop-by-Hop, Routing and Destination Options headers after the
 * IPv6 header at p, reading only p[0..len). Fragment (44), ESP, AH and any
 * other value end the walk unconsumed. Returns the length of the fixed
 * header and the walked extensions, with *proto the next-header value that
 * follows them and, when nh_off is not NULL, *nh_off the offset of the byte
 * that holds it (6 for the fixed header, else the last extension's start).
 * Returns -1 if the chain is truncated, Hop-by-Hop is not first (RFC 8200
 * 4.3) or it is longer than GW_IP6_HDR_MAX.
 */
static inline int
gw_ip6_walk(const uint8_t *p, uint32_t len, uint8_t *proto, uint32_t *nh_off)
{
	uint32_t off = sizeof(struct rte_ipv6_hdr), last = 6;
	uint8_t nh;

	if (len < off)
		return -1;
	nh = p[6];
	while (nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS) {
		uint32_t elen;

		if (nh == IPPROTO_HOPOPTS && off != sizeof(struct rte_ipv6_hdr))
			return -1;
		if (len < off + 2)
			return -1;
		elen = ((uint32_t)p[off + 1] + 1) * 8;  /* Hdr Ext Len: 8-octet units past 8 */
		if (len - off < elen || off + elen > GW_IP6_HDR_MAX)
			return -1;
		last = off;
		nh = p[off];
		off += elen;
	}
	*proto = nh;
	if (nh_off != NULL)
		*nh_off = last;
	return (int)off;
}

#endif /* VECSEC_GW_PKT_H */
