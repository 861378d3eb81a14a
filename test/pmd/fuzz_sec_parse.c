/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for crypto_vecsec's rte_security ESP ingress parsing
 * (drivers/crypto/vecsec/vecsec_pmd_sec_parse.h): the IP/ESP walk before
 * decryption (IPv4 with options and fragments, IPv6 extension chains,
 * lengths, link padding), the trailer check after it (padding, next
 * header, dummy packets, the inner version in tunnel mode), the egress
 * walk to a given l3_len, and the RFC 1624 checksum update transport mode
 * applies. The data path's own code, on bytes: no EAL, no mbuf, no DPDK
 * library.
 *
 * Input: one control byte, then an IP packet (as the PMD sees it after the
 * application stripped L2). Control bit 0: tunnel session; bits 1-7: 0,
 * the whole packet lies in the first segment, else only 8 * n bytes. Each
 * buffer is a heap copy of exactly the bytes the code may read, so ASan
 * catches a read past them; the bytes after the ESP IV stand for the
 * decrypted text. Built with clang-14 -fsanitize=fuzzer,address,undefined
 * by test/pmd/fuzz-sec-parse.sh, which also runs it.
 */
#include "vecsec_pmd_sec_parse.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t *
dup_bytes(const uint8_t *p, size_t n)
{
	uint8_t *b = malloc(n != 0 ? n : 1);

	if (b == NULL)
		abort();
	memcpy(b, p, n);
	return b;
}

/* Ones' complement sum of an IPv4 header, checksum included: 0 when it is right. */
static uint16_t
ip4_sum(const uint8_t *p)
{
	return rte_ipv4_cksum((const struct rte_ipv4_hdr *)p);
}

/*
 * Transport mode rewrites protocol and length with vecsec_pmd_cksum_adjust():
 * a header that was right stays right, one that was wrong stays wrong.
 */
static void
check_cksum_update(const uint8_t *p, uint32_t hl, uint8_t proto, uint16_t len)
{
	uint8_t h[60];
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)h;
	rte_be16_t old, new;
	bool ok;

	memcpy(h, p, hl);
	ok = ip4_sum(h) == 0;
	memcpy(&old, h + 8, 2);
	h[9] = proto;
	memcpy(&new, h + 8, 2);
	ih->hdr_checksum = vecsec_pmd_cksum_adjust(ih->hdr_checksum, old, new);
	old = ih->total_length;
	ih->total_length = rte_cpu_to_be_16(len);
	ih->hdr_checksum = vecsec_pmd_cksum_adjust(ih->hdr_checksum, old, ih->total_length);
	if ((ip4_sum(h) == 0) != ok)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vecsec_pmd_esp_in in;
	uint32_t len, avail;
	uint16_t nh_off;
	bool tunnel;
	uint8_t *p;

	if (size < 1 || size > UINT16_MAX + 64)
		return 0;
	tunnel = data[0] & 1;
	len = (uint32_t)size - 1;
	avail = (data[0] >> 1) == 0 ? len : RTE_MIN(len, (uint32_t)(data[0] >> 1) * 8);

	/* ingress walk on the first segment's bytes only */
	p = dup_bytes(data + 1, avail);
	if (vecsec_pmd_esp_in_parse(p, avail, len, &in) == 0) {
		if (in.ip_len > len || in.hlen + VECSEC_PMD_ESP_HIV_LEN > avail ||
		    in.hlen + VECSEC_PMD_ESP_HIV_LEN + in.ct_len + VECSEC_PMD_ESP_TAG_LEN !=
		    in.ip_len || (in.ct_len & 3) != 0 || in.ct_len < 4 || in.nh_off >= in.hlen ||
		    p[in.nh_off] != VECSEC_PMD_IPPROTO_ESP || (in.ver != 4 && in.ver != 6))
			abort();
		if (in.ver == 4)
			check_cksum_update(p, in.hlen, data[size - 1], (uint16_t)(in.ip_len - 32));
	}
	free(p);

	/* the trailer check, on the whole packet taken as decrypted */
	p = dup_bytes(data + 1, len);
	if (vecsec_pmd_esp_in_parse(p, len, len, &in) == 0) {
		const uint8_t *ct = p + in.hlen + VECSEC_PMD_ESP_HIV_LEN;
		const uint8_t *trl = ct + in.ct_len - 2;
		uint32_t pad = trl[0];
		const uint8_t *padb = pad != 0 && pad + 2 <= in.ct_len ? trl - pad : NULL;
		const uint8_t *first = in.ct_len > pad + 2 ? ct : NULL;
		enum vecsec_pmd_trailer t = vecsec_pmd_esp_trailer(trl, padb, in.ct_len, tunnel,
								   first);

		if ((t == VECSEC_PMD_TRL_DUMMY) != (trl[1] == VECSEC_PMD_IPPROTO_DUMMY &&
						    t != VECSEC_PMD_TRL_BAD))
			abort();
		if (t == VECSEC_PMD_TRL_OK && (pad + 2 > in.ct_len ||
		    (tunnel && (first == NULL ||
				(first[0] >> 4) != (trl[1] == IPPROTO_IPIP ? 4 : 6)))))
			abort();
	}
	/* egress: the walk to the l3_len an application gave (the packet's last byte; 0: all) */
	if (len >= 40 && (p[0] >> 4) == 6) {
		uint32_t stop = p[len - 1] * 8u;
		int r = vecsec_pmd_ip6_walk(p, len, stop, &nh_off);

		if (r >= 0 && ((stop != 0 && (uint32_t)r != stop) || (uint32_t)r > len ||
			       nh_off >= (uint32_t)r))
			abort();
	}
	free(p);
	return 0;
}
