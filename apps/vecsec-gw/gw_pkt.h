/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw packet classification on bytes: the IPv6 extension header walk
 * is lib/esp's vecsec_esp_ip6_walk() (RFC 8200 4; the one walk of the
 * project, crypto_vecsec's too), used by the worker (l3_len covers the
 * chain, so rte_ipsec finds ESP after it and puts ESP after it in
 * transport mode) and the SPD (which classifies by the upper-layer
 * protocol at the end of the chain); the IP header checks (RFC 791,
 * RFC 1122 3.2.1, RFC 1812 5.2.2: an IPv4 header with a wrong checksum is
 * dropped); and what an arriving datagram is (fragment, ESP, ESP in UDP
 * 4500, NAT-T keepalive, clear traffic). Header only, no mbuf and no DPDK
 * library: the SPD test links sp.c without the worker, and the libFuzzer
 * target test/gw/fuzz_classify.c runs this code (and lib/esp's walk) on
 * raw buffers without EAL.
 */
#ifndef VECSEC_GW_PKT_H
#define VECSEC_GW_PKT_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "vecsec/vecsec_esp.h"

/* What is known of an IPv4 header checksum (from the NIC's rx flags, or set by the gateway). */
enum gw_ck {
	GW_CK_VERIFY,           /* unknown: check it in software */
	GW_CK_GOOD,             /* checked (by the NIC, or before the gateway changed the header) */
	GW_CK_BAD,              /* the NIC found it wrong */
	GW_CK_FIX,              /* the header is intact but its checksum field is not: rewrite it */
};

/* An IP header that gw_pkt_l3() accepted. */
struct gw_l3 {
	uint32_t ip_len;        /* the datagram: IPv4 total length, IPv6 40 + payload length */
	uint32_t avail;         /* of it, the bytes readable in place from the IP header on */
	uint32_t l3_len;        /* IPv4 header with options; IPv6 header, extensions walked */
	uint8_t proto;          /* the protocol (next header) that follows l3_len */
	uint8_t v6;
	uint8_t frag;           /* IPv4 with MF or an offset; IPv6 with a Fragment header next */
	uint8_t fix_cksum;      /* GW_CK_FIX: the caller rewrites the IPv4 checksum */
};

/*
 * The IP header at p, len bytes of packet of which avail are readable in
 * place (a reassembled datagram may be a chain): version 4 or 6, a header
 * within avail, a datagram length within len (the rest is link padding,
 * for the caller to trim), an IPv4 checksum that ck does not say is wrong
 * (verified here for GW_CK_VERIFY), an IPv6 extension chain that
 * vecsec_esp_ip6_walk() accepts. Returns 0 (IPv4) or 1 (IPv6) with *r filled, or
 * -1: malformed.
 */
static inline int
gw_pkt_l3(const uint8_t *p, uint32_t avail, uint32_t len, enum gw_ck ck, struct gw_l3 *r)
{
	if (avail > len)
		avail = len;
	if (avail < 1)
		return -1;
	if ((p[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;
		uint32_t hl, tl;

		if (avail < sizeof(*h))
			return -1;
		hl = (uint32_t)(h->version_ihl & 0xf) * 4;
		tl = rte_be_to_cpu_16(h->total_length);
		if (hl < sizeof(*h) || hl > avail || tl < hl || tl > len)
			return -1;
		/* the ones' complement sum over the header, checksum included, is all ones */
		if (ck == GW_CK_BAD || (ck == GW_CK_VERIFY && rte_ipv4_cksum(h) != 0))
			return -1;
		r->ip_len = tl;
		r->avail = RTE_MIN(avail, tl);
		r->l3_len = hl;
		r->proto = h->next_proto_id;
		r->v6 = 0;
		r->frag = (rte_be_to_cpu_16(h->fragment_offset) &
			   (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0;
		r->fix_cksum = ck == GW_CK_FIX;
		return 0;
	}
	if ((p[0] >> 4) == 6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)p;
		uint32_t tl;
		int hl;

		if (avail < sizeof(*h))
			return -1;
		tl = sizeof(*h) + rte_be_to_cpu_16(h->payload_len);
		if (tl > len)
			return -1;
		hl = vecsec_esp_ip6_walk(p, RTE_MIN(tl, avail), 0, &r->proto, NULL);
		if (hl < 0)
			return -1;
		r->ip_len = tl;
		r->avail = RTE_MIN(avail, tl);
		r->l3_len = (uint32_t)hl;
		r->v6 = 1;
		r->frag = r->proto == IPPROTO_FRAGMENT;
		r->fix_cksum = 0;
		return 1;
	}
	return -1;
}

/*
 * UDP destination ports where ESP arrives encapsulated (RFC 3948): 4500 and
 * those an IKE daemon registers (`natt udp PORT`, the control socket).
 * Network order; 0 is a free slot (`natt udp PORT del` leaves holes, so the
 * whole set is read). Defined in natt.c (and by the fuzz target).
 */
#define GW_NATT_MAX_PORTS 8
extern uint16_t gw_natt_ports[GW_NATT_MAX_PORTS];

static inline bool
gw_natt_port(uint16_t port_be)
{
	for (unsigned int i = 0; i < GW_NATT_MAX_PORTS; i++) {
		uint16_t p = __atomic_load_n(&gw_natt_ports[i], __ATOMIC_RELAXED);

		if (p == port_be)
			return port_be != 0;
	}
	return false;
}

/* What a whole (not fragmented, or reassembled) datagram is to the data path. */
enum gw_pkt_class {
	GW_PKT_CLEAR,           /* to the SPD (bypass, discard or protect) */
	GW_PKT_ESP,             /* ESP after l3_len, to the SAD */
	GW_PKT_ESP_NATT,        /* ESP in UDP 4500 (RFC 3948): ESP after l3_len + 8 */
	GW_PKT_KEEPALIVE,       /* NAT-keepalive (RFC 3948 2.3): dropped, counted */
	GW_PKT_MALFORMED,       /* ESP too short for its header, an IPv4 ESP fragment, */
				/* headers to read beyond r->avail */
};

/*
 * The datagram at p, whose header gw_pkt_l3() accepted (r) and which was
 * trimmed to r->ip_len, on an unprotected (ESP-side, RFC 4301) port or
 * not: ESP and ESP in UDP only arrive on the former. UDP to 4500 (or a
 * port an IKE daemon registered: gw_natt_port) whose payload is the
 * single octet 0xff is a keepalive; whose first four
 * payload octets are not zero (zero marks IKE, which is clear traffic) is
 * ESP, unless it is an IPv4 fragment (a fragment that no reassembly put
 * together cannot be processed: plain ESP ones are malformed).
 */
static inline enum gw_pkt_class
gw_pkt_class(const uint8_t *p, const struct gw_l3 *r, bool esp_side)
{
	const uint32_t uh = sizeof(struct rte_udp_hdr);

	if (!esp_side)
		return GW_PKT_CLEAR;
	if (r->proto == IPPROTO_UDP) {
		const struct rte_udp_hdr *u = (const struct rte_udp_hdr *)(p + r->l3_len);
		const uint8_t *pl = p + r->l3_len + uh;

		/* UDP header, then up to an ESP header: what is read below */
		if (RTE_MIN(r->ip_len, r->l3_len + uh + 8) > r->avail)
			return GW_PKT_MALFORMED;
		if (r->ip_len < r->l3_len + uh + 1 || !gw_natt_port(u->dst_port))
			return GW_PKT_CLEAR;
		if (r->ip_len == r->l3_len + uh + 1)
			return pl[0] == 0xff ? GW_PKT_KEEPALIVE : GW_PKT_CLEAR;
		if (r->ip_len < r->l3_len + uh + 8 || (!r->v6 && r->frag) ||
		    (pl[0] | pl[1] | pl[2] | pl[3]) == 0)
			return GW_PKT_CLEAR;
		return GW_PKT_ESP_NATT;
	}
	if (r->proto == IPPROTO_ESP) {
		if ((!r->v6 && r->frag) || r->ip_len < r->l3_len + 8 || r->avail < r->l3_len + 8)
			return GW_PKT_MALFORMED;
		return GW_PKT_ESP;
	}
	return GW_PKT_CLEAR;
}

/*
 * A frame as a port receives it: Ethernet, then IP. The whole rx
 * classification on a buffer (what the worker does on a contiguous mbuf,
 * and the fuzz target on its input): Ethernet type, gw_pkt_l3() and, for
 * a datagram that is not a fragment, gw_pkt_class(). *frag tells a
 * fragment (reassembly decides its fate, then gw_pkt_class() runs on the
 * datagram). Returns the class, GW_PKT_MALFORMED also for a frame that is
 * not IPv4/IPv6 over Ethernet or whose IP header gw_pkt_l3() refuses.
 */
static inline enum gw_pkt_class
gw_pkt_classify(const uint8_t *f, uint32_t len, enum gw_ck ck, bool esp_side,
		struct gw_l3 *r, bool *frag)
{
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)f;
	uint16_t type;

	*frag = false;
	if (len < sizeof(*eh))
		return GW_PKT_MALFORMED;
	type = rte_be_to_cpu_16(eh->ether_type);
	if (type != RTE_ETHER_TYPE_IPV4 && type != RTE_ETHER_TYPE_IPV6)
		return GW_PKT_MALFORMED;
	len -= (uint32_t)sizeof(*eh);
	if (gw_pkt_l3(f + sizeof(*eh), len, len, ck, r) < 0)
		return GW_PKT_MALFORMED;
	if (r->frag) {
		*frag = true;
		return GW_PKT_CLEAR;
	}
	return gw_pkt_class(f + sizeof(*eh), r, esp_side);
}

#endif /* VECSEC_GW_PKT_H */
