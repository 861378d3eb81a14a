/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw: UDP encapsulation of ESP (NAT-T, RFC 3948) for transport-mode
 * SAs. rte_ipsec 22.11 builds the UDP header from the template of a tunnel
 * SA only, so for transport SAs the worker adds it after outbound
 * processing and removes it before inbound processing (rte_ipsec then sees
 * plain ESP and restores the next protocol and lengths itself). Also the
 * inner TCP/UDP checksum repair after transport-mode decapsulation
 * (RFC 3948 3.1.2, procedure 2). Keepalives: gw_pkt_class() (gw_pkt.h).
 */
#include "gw_dp.h"
#include "gw_pkt.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_esp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

/* The IPv4 or IPv6 header at p: its length (with IPv6 extensions) and where its protocol is. */
static int
l3_hdr(const uint8_t *p, uint32_t len, uint8_t *proto, uint32_t *nh_off)
{
	if ((p[0] >> 4) == 4) {
		uint32_t hl = (uint32_t)(p[0] & 0xf) * 4;

		if (len < sizeof(struct rte_ipv4_hdr) || hl < sizeof(struct rte_ipv4_hdr) ||
				hl > len)
			return -1;
		*nh_off = offsetof(struct rte_ipv4_hdr, next_proto_id);
		*proto = p[*nh_off];
		return (int)hl;
	}
	return vecsec_esp_ip6_walk(p, len, 0, proto, nh_off);
}

/*
 * RFC 8200 8.1: the pseudo-header's destination is the final one. With a
 * Routing header that still has segments left, that is its last address
 * (types 0 and 2) or the first entry of its segment list (type 4, RFC 8754
 * 2: the list is in reverse order).
 */
static const uint8_t *
ip6_final_dst(const uint8_t *p, uint32_t hl)
{
	uint32_t off = sizeof(struct rte_ipv6_hdr);
	uint8_t nh = p[6];
	const uint8_t *dst = p + offsetof(struct rte_ipv6_hdr, dst_addr);

	/* hl came from vecsec_esp_ip6_walk(): every header below lies within it */
	while (off < hl) {
		uint32_t elen = ((uint32_t)p[off + 1] + 1) * 8;

		if (nh == IPPROTO_ROUTING && elen >= 24 && p[off + 3] != 0) {
			uint32_t naddr = (elen - 8) / 16;

			if (p[off + 2] == 4)
				dst = p + off + 8;
			else if (p[off + 2] == 0 || p[off + 2] == 2)
				dst = p + off + 8 + (naddr - 1) * 16;
		}
		nh = p[off];
		off += elen;
	}
	return dst;
}

/* RFC 768 / RFC 793 / RFC 8200 8.1: the checksum of l4 with its pseudo-header. */
static uint16_t
l4_cksum(const uint8_t *l3, uint32_t hl, uint8_t proto, const uint8_t *l4, uint32_t l4_len)
{
	uint32_t sum;
	uint16_t ck;

	if ((l3[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;
		struct {
			uint32_t src, dst;
			uint8_t zero, proto;
			uint16_t len;
		} __rte_packed ph = { h->src_addr, h->dst_addr, 0, proto,
				      rte_cpu_to_be_16((uint16_t)l4_len) };

		sum = __rte_raw_cksum(&ph, sizeof(ph), 0);
	} else {
		struct {
			uint8_t src[16], dst[16];
			uint32_t len, proto;
		} __rte_packed ph;

		memcpy(ph.src, l3 + offsetof(struct rte_ipv6_hdr, src_addr), 16);
		memcpy(ph.dst, ip6_final_dst(l3, hl), 16);
		ph.len = rte_cpu_to_be_32(l4_len);
		ph.proto = rte_cpu_to_be_32(proto);
		sum = __rte_raw_cksum(&ph, sizeof(ph), 0);
	}
	sum = __rte_raw_cksum(l4, l4_len, sum);
	ck = (uint16_t)~__rte_raw_cksum_reduce(sum);
	/* RFC 768: a computed 0 is sent as all ones (0 means "none" for UDP over IPv4) */
	return ck == 0 && proto == IPPROTO_UDP ? 0xffff : ck;
}

/* UDP ports where ESP arrives encapsulated (gw_pkt.h: gw_natt_port), network order */
uint16_t gw_natt_ports[GW_NATT_MAX_PORTS] = { RTE_BE16(GW_NATT_PORT) };

/*
 * Inbound, before rte_ipsec: m is ESP in UDP with l3_len covering the IP
 * header (and IPv6 extensions) and the UDP header. Remove the UDP header,
 * make the IP header say ESP, shorten its length. The UDP checksum is not
 * checked (RFC 3948 3.1: the receiver MUST NOT depend on it; the ESP ICV
 * covers the payload). Returns 0, or -1 if the headers do not add up.
 */
int
gw_natt_trs_decap(struct rte_mbuf *m)
{
	const uint32_t uh = sizeof(struct rte_udp_hdr);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	const struct rte_udp_hdr *u;
	uint32_t hl, nh_off;
	uint8_t proto;

	if (m->l3_len < uh || m->pkt_len < m->l3_len || !rte_pktmbuf_is_contiguous(m))
		return -1;
	hl = m->l3_len - uh;
	if (l3_hdr(p, hl, &proto, &nh_off) != (int)hl || proto != IPPROTO_UDP)
		return -1;
	u = (const struct rte_udp_hdr *)(p + hl);
	if (rte_be_to_cpu_16(u->dgram_len) != m->pkt_len - hl)
		return -1;
	p[nh_off] = IPPROTO_ESP;
	if ((p[0] >> 4) == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->total_length = rte_cpu_to_be_16((uint16_t)(m->pkt_len - uh));
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		h->payload_len = rte_cpu_to_be_16((uint16_t)(m->pkt_len - uh - sizeof(*h)));
	}
	memmove(p + uh, p, hl);
	rte_pktmbuf_adj(m, (uint16_t)uh);
	m->l3_len = hl;
	return 0;
}

/*
 * Outbound, after rte_ipsec, transport SA: m is IP (+ IPv6 extensions) +
 * ESP. Insert the UDP header (RFC 3948 2.1: ports 4500, or the SA's
 * `udp-ports`, which an IKE daemon takes from its NAT-T socket and the
 * peer's (NATed) port; checksum 0 over
 * IPv4, computed over IPv6, where RFC 8200 8.1 does not allow 0), set the
 * protocol to UDP and fix the lengths. Returns 0, -ENOBUFS without
 * headroom, -EINVAL if m is not IP + ESP.
 */
static int
trs_encap(struct rte_mbuf *m, uint16_t sport, uint16_t dport)
{
	const uint32_t uh = sizeof(struct rte_udp_hdr);
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_udp_hdr *u;
	uint32_t nh_off, l4_len;
	uint8_t proto;
	int hl;

	if (!rte_pktmbuf_is_contiguous(m))
		return -EINVAL;
	hl = l3_hdr(p, m->pkt_len, &proto, &nh_off);
	if (hl < 0 || proto != IPPROTO_ESP ||
			m->pkt_len < (uint32_t)hl + sizeof(struct rte_esp_hdr) ||
			m->pkt_len + uh > UINT16_MAX)
		return -EINVAL;
	p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)uh);
	if (p == NULL)
		return -ENOBUFS;
	memmove(p, p + uh, (size_t)hl);
	p[nh_off] = IPPROTO_UDP;
	l4_len = m->pkt_len - (uint32_t)hl;
	u = (struct rte_udp_hdr *)(p + hl);
	u->src_port = rte_cpu_to_be_16(sport);
	u->dst_port = rte_cpu_to_be_16(dport);
	u->dgram_len = rte_cpu_to_be_16((uint16_t)l4_len);
	u->dgram_cksum = 0;
	if ((p[0] >> 4) == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->total_length = rte_cpu_to_be_16((uint16_t)m->pkt_len);
		h->hdr_checksum = 0;
		h->hdr_checksum = rte_ipv4_cksum(h);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		h->payload_len = rte_cpu_to_be_16((uint16_t)(m->pkt_len - sizeof(*h)));
		u->dgram_cksum = l4_cksum(p, (uint32_t)hl, IPPROTO_UDP, (const uint8_t *)u, l4_len);
	}
	m->l3_len = (uint32_t)hl;
	return 0;
}

/*
 * Inbound, after transport-mode decapsulation (m through parse_l3, proto
 * its upper-layer protocol): RFC 3948 3.1.2, procedure 2. A NAT on the path
 * rewrote the addresses the sender's TCP/UDP checksum covers, and without
 * IKE there is no NAT-OA for the incremental fix (procedure 1), so the
 * checksum is computed afresh; the ESP ICV has already vouched for the
 * payload. A UDP-over-IPv4 checksum of 0 (none) stays 0; fragments (no
 * whole payload here) are left alone.
 */
void
gw_natt_trs_l4_fix(struct rte_mbuf *m, uint8_t proto)
{
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t hl = m->l3_len, l4_len, ck_off;
	bool v4 = (l3[0] >> 4) == 4;
	uint8_t *l4;
	uint16_t ck;

	if (m->pkt_len < hl || !rte_pktmbuf_is_contiguous(m))
		return;
	l4_len = m->pkt_len - hl;
	l4 = l3 + hl;
	if (proto == IPPROTO_TCP && l4_len >= sizeof(struct rte_tcp_hdr))
		ck_off = offsetof(struct rte_tcp_hdr, cksum);
	else if (proto == IPPROTO_UDP && l4_len >= sizeof(struct rte_udp_hdr))
		ck_off = offsetof(struct rte_udp_hdr, dgram_cksum);
	else
		return;
	if (v4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)l3;

		if ((rte_be_to_cpu_16(h->fragment_offset) &
		     (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0)
			return;
		if (proto == IPPROTO_UDP && l4[ck_off] == 0 && l4[ck_off + 1] == 0)
			return;
	}
	l4[ck_off] = 0;
	l4[ck_off + 1] = 0;
	ck = l4_cksum(l3, hl, proto, l4, l4_len);
	memcpy(l4 + ck_off, &ck, 2);
}

/*
 * Outbound NAT-T after rte_ipsec: transport SAs get their UDP header here
 * (add_udp); tunnel SAs have it from rte_ipsec's template, whose checksum
 * is 0, which IPv6 does not allow (RFC 8200 8.1): computed here.
 */
int
gw_natt_outb(struct rte_mbuf *m, const struct gw_sa *s)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_udp_hdr *u;
	uint32_t nh_off;
	uint8_t proto;
	int hl;

	if (s->mode == GW_MODE_TRANS)
		return trs_encap(m, s->natt_sport, s->natt_dport);
	if ((p[0] >> 4) != 6 || !rte_pktmbuf_is_contiguous(m))
		return 0;
	hl = vecsec_esp_ip6_walk(p, m->pkt_len, 0, &proto, &nh_off);
	if (hl < 0 || proto != IPPROTO_UDP || m->pkt_len < (uint32_t)hl + sizeof(*u))
		return -EINVAL;
	u = (struct rte_udp_hdr *)(p + hl);
	u->dgram_cksum = 0;
	u->dgram_cksum = l4_cksum(p, (uint32_t)hl, IPPROTO_UDP, (const uint8_t *)u,
		m->pkt_len - (uint32_t)hl);
	return 0;
}
