/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec rte_security ESP ingress (RFC 4303), the parts that read
 * packet bytes and nothing else: the walk from the IP header to ESP before
 * decryption, and the trailer check after it. Plain functions on byte
 * ranges (no mbuf, no DPDK library, only its header structs), so that the
 * data path (vecsec_pmd_sec_dp.c) and the libFuzzer target
 * (test/pmd/fuzz_sec_parse.c, built without EAL) run the same code.
 * Never installed.
 */
#ifndef VECSEC_PMD_SEC_PARSE_H
#define VECSEC_PMD_SEC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#define VECSEC_PMD_ESP_HDR_LEN 8        /* SPI, sequence number */
#define VECSEC_PMD_ESP_HIV_LEN 16       /* SPI, sequence number, 8-byte IV */
#define VECSEC_PMD_ESP_TAG_LEN 16       /* ICV */
#define VECSEC_PMD_IPPROTO_ESP 50
#define VECSEC_PMD_IPPROTO_DUMMY 59     /* RFC 4303 2.6; IPv6 "No Next Header" */

/* Where ESP starts in an inbound packet, and what comes with it. */
struct vecsec_pmd_esp_in {
	uint32_t ip_len;        /* the IP datagram: bytes past it are link padding */
	uint32_t hlen;          /* IP header and IPv6 extensions before ESP */
	uint32_t ct_len;        /* ciphertext: payload, padding, pad length, next header */
	uint16_t nh_off;        /* the byte that names ESP (transport: the trailer's goes there) */
	uint8_t ver;            /* 4 or 6 */
};

static inline bool
vecsec_pmd_ip6_ext(uint8_t nh)
{
	return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS;
}

/*
 * IPv6: walk the extension headers from the fixed header while the next
 * header is one that goes before ESP, up to stop bytes (0: no limit) and
 * within avail. *nh_off: offset of the next-header byte that names what
 * follows. Returns the offset reached, or -1.
 */
static inline int
vecsec_pmd_ip6_walk(const uint8_t *p, uint32_t avail, uint32_t stop, uint16_t *nh_off)
{
	uint32_t off = sizeof(struct rte_ipv6_hdr);

	if (avail < off)
		return -1;
	*nh_off = offsetof(struct rte_ipv6_hdr, proto);
	while (stop == 0 || off < stop) {
		uint8_t nh = p[*nh_off];
		uint32_t el;

		if (!vecsec_pmd_ip6_ext(nh)) {
			if (stop != 0)
				return -1;
			break;
		}
		if (off + 2 > avail)
			return -1;
		el = ((uint32_t)p[off + 1] + 1) * 8;
		if (off + el > avail || off + el > UINT16_MAX)
			return -1;
		*nh_off = (uint16_t)off;
		off += el;
	}
	if (stop != 0 && off != stop)
		return -1;
	return (int)off;
}

/*
 * The IP header at p (avail bytes readable in place, pkt_len in the whole
 * packet): its version (4 or 6, else 0 for malformed) and *ip_len, the
 * datagram's length (at most pkt_len).
 */
static inline int
vecsec_pmd_ip_len(const uint8_t *p, uint32_t avail, uint32_t pkt_len, uint32_t *ip_len)
{
	uint32_t tl;

	if (avail < 1)
		return 0;
	if ((p[0] >> 4) == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;
		uint32_t hl = (uint32_t)(p[0] & 0xf) * 4;

		if (avail < sizeof(*h) || hl < sizeof(*h) || hl > avail)
			return 0;
		tl = rte_be_to_cpu_16(h->total_length);
		if (tl < hl || tl > pkt_len)
			return 0;
	} else if ((p[0] >> 4) == 6) {
		const struct rte_ipv6_hdr *h = (const struct rte_ipv6_hdr *)p;

		if (avail < sizeof(*h))
			return 0;
		tl = sizeof(*h) + rte_be_to_cpu_16(h->payload_len);
		if (tl > pkt_len)
			return 0;
	} else {
		return 0;
	}
	*ip_len = tl;
	return p[0] >> 4;
}

/*
 * Ingress before decryption: from the IP header at p to ESP. avail bytes
 * are readable at p (the IP header, the ESP header and the IV must be among
 * them), pkt_len is the packet's length. Refused: not IPv4/IPv6, lengths
 * that do not add up, IPv4 fragments (no reassembly here), a next header
 * that is not ESP after the IPv4 header or the IPv6 extensions that go
 * before it, ESP too short for header, IV, a 4-byte aligned ciphertext of
 * at least 4 bytes and the ICV. Returns 0 and fills *r, or -1.
 */
static inline int
vecsec_pmd_esp_in_parse(const uint8_t *p, uint32_t avail, uint32_t pkt_len,
			struct vecsec_pmd_esp_in *r)
{
	uint32_t ip_len = 0, hlen;
	uint16_t nh_off;
	int ver = vecsec_pmd_ip_len(p, avail, pkt_len, &ip_len);

	if (ver == 4) {
		const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)p;

		if (h->next_proto_id != VECSEC_PMD_IPPROTO_ESP ||
		    (rte_be_to_cpu_16(h->fragment_offset) &
		     (RTE_IPV4_HDR_OFFSET_MASK | RTE_IPV4_HDR_MF_FLAG)) != 0)
			return -1;
		hlen = (uint32_t)(h->version_ihl & 0xf) * 4;
		nh_off = offsetof(struct rte_ipv4_hdr, next_proto_id);
	} else if (ver == 6) {
		int n = vecsec_pmd_ip6_walk(p, avail, 0, &nh_off);

		if (n < 0 || p[nh_off] != VECSEC_PMD_IPPROTO_ESP)
			return -1;
		hlen = (uint32_t)n;
	} else {
		return -1;
	}
	if (avail < hlen + VECSEC_PMD_ESP_HIV_LEN ||
	    ip_len < hlen + VECSEC_PMD_ESP_HIV_LEN + VECSEC_PMD_ESP_TAG_LEN + 4)
		return -1;
	r->ct_len = ip_len - hlen - VECSEC_PMD_ESP_HIV_LEN - VECSEC_PMD_ESP_TAG_LEN;
	if ((r->ct_len & 3) != 0)
		return -1;
	r->ip_len = ip_len;
	r->hlen = hlen;
	r->nh_off = nh_off;
	r->ver = (uint8_t)ver;
	return 0;
}

/* What an authenticated ESP trailer says about its packet. */
enum vecsec_pmd_trailer {
	VECSEC_PMD_TRL_OK,      /* deliver: inner packet (tunnel) or payload (transport) */
	VECSEC_PMD_TRL_BAD,     /* malformed: bad padding, next header, inner version */
	VECSEC_PMD_TRL_DUMMY,   /* next header 59: discard (RFC 4303 2.6) */
};

/*
 * Ingress after the ICV matched: the decrypted trailer of a ct_len-byte
 * ciphertext. trl: pad length and next header (its last two bytes); padb:
 * the pad-length bytes of padding before them (may be NULL when there are
 * none); first: the first plaintext byte, or NULL when the payload is
 * empty. RFC 4303 2.4 padding (1, 2, 3, ...) is checked first, then a
 * dummy packet (next header 59, any mode) is told apart, then a tunnel
 * must carry a non-empty inner IPv4 or IPv6 packet of the family its next
 * header names.
 */
static inline enum vecsec_pmd_trailer
vecsec_pmd_esp_trailer(const uint8_t trl[2], const uint8_t *padb, uint32_t ct_len,
		       bool tunnel, const uint8_t *first)
{
	uint32_t pad = trl[0];

	if (pad + 2 > ct_len || (pad != 0 && padb == NULL))
		return VECSEC_PMD_TRL_BAD;
	for (uint32_t i = 0; i < pad; i++)
		if (padb[i] != (uint8_t)(i + 1))
			return VECSEC_PMD_TRL_BAD;
	if (trl[1] == VECSEC_PMD_IPPROTO_DUMMY)
		return VECSEC_PMD_TRL_DUMMY;
	if (!tunnel)
		return VECSEC_PMD_TRL_OK;
	if (trl[1] != IPPROTO_IPIP && trl[1] != IPPROTO_IPV6)
		return VECSEC_PMD_TRL_BAD;
	if (ct_len - pad - 2 == 0 || first == NULL ||
	    (first[0] >> 4) != (trl[1] == IPPROTO_IPIP ? 4 : 6))
		return VECSEC_PMD_TRL_BAD;
	return VECSEC_PMD_TRL_OK;
}

/*
 * RFC 1624 eqn. 3: the IPv4 header checksum after one 16-bit word changed
 * from old to new (both network order). An incremental update keeps a
 * wrong checksum exactly as wrong: a corrupted header is never laundered
 * into a valid one.
 */
static inline rte_be16_t
vecsec_pmd_cksum_adjust(rte_be16_t cksum, rte_be16_t old, rte_be16_t new)
{
	uint32_t sum = (uint16_t)~cksum;

	sum += (uint16_t)~old;
	sum += new;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (rte_be16_t)~sum;
}

#endif /* VECSEC_PMD_SEC_PARSE_H */
