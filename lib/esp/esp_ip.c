/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IP headers around ESP, portable C on byte buffers: the datagram
 * length (RFC 791, RFC 8200 3), the IPv6 extension headers that stand
 * before ESP (RFC 8200 4, RFC 4303 3.1.1), where ESP is in a received
 * datagram and where transport mode puts it, and the header update after
 * ESP was added or removed (RFC 1624 for the IPv4 checksum).
 *
 * The one IPv6 walk of the project (crypto_vecsec's rte_security path and
 * vecsec-gw's classification both call it). What it takes, per RFC 8200:
 *  - Hop-by-Hop Options only directly after the IPv6 header (4.1, 4.3: a
 *    node must not process it elsewhere; taking it later would let a
 *    packet carry options the path never looked at);
 *  - Routing and Destination Options in any order and any number of times
 *    (4.1: "must accept and attempt to process extension headers in any
 *    order and occurring any number of times", HBH excepted);
 *  - Fragment ends the walk: the datagram is a fragment, which the caller
 *    reassembles (the gateway) or refuses (the PMD, as for IPv4);
 *  - AH, ESP, No Next Header, Mobility and upper layers end it too;
 *  - a chain cut off by the buffer, or longer than VECSEC_ESP_IP6_HDR_MAX
 *    bytes, is malformed (RFC 8200 sets no limit; the receiver must).
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>

#include "esp_internal.h"

VECSEC_API int
vecsec_esp_ip_len(const uint8_t *p, size_t avail, size_t pkt_len, uint32_t *ip_len)
{
	uint32_t tl;

	if (p == NULL || ip_len == NULL || avail < 1)
		return -EBADMSG;
	if ((p[0] >> 4) == 4) {
		uint32_t hl = (uint32_t)(p[0] & 0xf) * 4;

		/* RFC 791 3.1: IHL counts 32-bit words, at least 5 */
		if (avail < ESP_IP4_HDR_LEN || hl < ESP_IP4_HDR_LEN || hl > avail)
			return -EBADMSG;
		tl = esp_get_be16(p + 2);
		if (tl < hl || tl > pkt_len)
			return -EBADMSG;
	} else if ((p[0] >> 4) == 6) {
		if (avail < ESP_IP6_HDR_LEN)
			return -EBADMSG;
		/* RFC 8200 3: the payload length counts what follows the fixed header */
		tl = ESP_IP6_HDR_LEN + esp_get_be16(p + 4);
		if (tl > pkt_len)
			return -EBADMSG;
	} else {
		return -EBADMSG;
	}
	*ip_len = tl;
	return p[0] >> 4;
}

VECSEC_API int
vecsec_esp_ip6_walk(const uint8_t *p, size_t len, size_t end, uint8_t *next_hdr,
		    uint32_t *nh_off)
{
	uint32_t off = ESP_IP6_HDR_LEN, last = ESP_IP6_NH_OFF;
	uint8_t nh;

	if (p == NULL || len < ESP_IP6_HDR_LEN)
		return -EBADMSG;
	nh = p[ESP_IP6_NH_OFF];
	while (end == 0 || off < end) {
		uint32_t elen;

		if (nh != ESP_PROTO_HOPOPTS && nh != ESP_PROTO_ROUTING && nh != ESP_PROTO_DSTOPTS)
			break;
		/* RFC 8200 4.3: Hop-by-Hop only right after the IPv6 header */
		if (nh == ESP_PROTO_HOPOPTS && off != ESP_IP6_HDR_LEN)
			return -EBADMSG;
		if (len < off + 2)
			return -EBADMSG;
		elen = ((uint32_t)p[off + 1] + 1) * 8;  /* Hdr Ext Len: 8-octet units past 8 */
		if (len - off < elen || off + elen > VECSEC_ESP_IP6_HDR_MAX)
			return -EBADMSG;
		last = off;
		nh = p[off];
		off += elen;
	}
	if (end != 0 && off != end)
		return -EBADMSG;
	if (next_hdr != NULL)
		*next_hdr = nh;
	if (nh_off != NULL)
		*nh_off = last;
	return (int)off;
}

VECSEC_API int
vecsec_esp_transport_hdr(const uint8_t *p, size_t avail, size_t l3_len, uint32_t *hlen,
			 uint32_t *nh_off)
{
	int n;

	if (p == NULL || hlen == NULL || nh_off == NULL || avail < 1)
		return -EBADMSG;
	if ((p[0] >> 4) == 4) {
		uint32_t hl = (uint32_t)(p[0] & 0xf) * 4;

		if (avail < ESP_IP4_HDR_LEN || hl < ESP_IP4_HDR_LEN || hl > avail ||
		    (l3_len != 0 && l3_len != hl))
			return -EBADMSG;
		*hlen = hl;
		*nh_off = ESP_IP4_NH_OFF;
		return 0;
	}
	if ((p[0] >> 4) != 6)
		return -EBADMSG;
	n = vecsec_esp_ip6_walk(p, avail, l3_len, NULL, nh_off);
	if (n < 0)
		return n;
	*hlen = (uint32_t)n;
	return 0;
}

VECSEC_API int
vecsec_esp_in_parse(const uint8_t *p, size_t avail, size_t pkt_len, struct vecsec_esp_in *r)
{
	uint32_t ip_len = 0, hlen, nh_off, ct_len;
	int ver;

	if (r == NULL)
		return -EBADMSG;
	ver = vecsec_esp_ip_len(p, avail, pkt_len, &ip_len);
	if (ver == 4) {
		/* RFC 791: MF or an offset is a fragment, never ESP processed as such */
		if (p[ESP_IP4_NH_OFF] != VECSEC_ESP_PROTO || (esp_get_be16(p + 6) & 0x3fff) != 0)
			return -EBADMSG;
		hlen = (uint32_t)(p[0] & 0xf) * 4;
		nh_off = ESP_IP4_NH_OFF;
	} else if (ver == 6) {
		uint8_t nh;
		int n = vecsec_esp_ip6_walk(p, avail < ip_len ? avail : ip_len, 0, &nh, &nh_off);

		if (n < 0 || nh != VECSEC_ESP_PROTO)
			return -EBADMSG;
		hlen = (uint32_t)n;
	} else {
		return -EBADMSG;
	}
	/* header and IV in place; then at least 4 bytes of ciphertext and the ICV */
	if (avail < hlen + VECSEC_ESP_HDR_IV_LEN ||
	    ip_len < hlen + VECSEC_ESP_HDR_IV_LEN + VECSEC_ESP_ICV_LEN + 4)
		return -EBADMSG;
	ct_len = ip_len - hlen - VECSEC_ESP_HDR_IV_LEN - VECSEC_ESP_ICV_LEN;
	if ((ct_len & 3) != 0)
		return -EBADMSG;        /* RFC 4303 2.4: the trailer ends 4-aligned */
	r->ip_len = ip_len;
	r->hlen = hlen;
	r->ct_len = ct_len;
	r->nh_off = nh_off;
	r->spi = esp_get_be32(p + hlen);
	r->seq_lo = esp_get_be32(p + hlen + 4);
	r->ver = (uint8_t)ver;
	return 0;
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), ones' complement sums of 16-bit words. */
static uint16_t
cksum_adjust(uint16_t cksum, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~cksum;

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

VECSEC_API void
vecsec_esp_ip_update(uint8_t *p, int ver, uint32_t nh_off, uint8_t next_hdr, uint32_t len)
{
	if (ver == 4) {
		/* protocol shares a word with TTL; total length is a word of its own */
		uint16_t ck = esp_get_be16(p + 10), old = esp_get_be16(p + 8);

		p[nh_off] = next_hdr;
		ck = cksum_adjust(ck, old, esp_get_be16(p + 8));
		old = esp_get_be16(p + 2);
		esp_put_be16(p + 2, (uint16_t)len);
		ck = cksum_adjust(ck, old, (uint16_t)len);
		esp_put_be16(p + 10, ck);
	} else {
		p[nh_off] = next_hdr;
		esp_put_be16(p + 4, (uint16_t)(len - ESP_IP6_HDR_LEN));
	}
}
