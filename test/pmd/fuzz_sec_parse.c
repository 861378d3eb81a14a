/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the ESP parsing crypto_vecsec's rte_security path
 * runs (lib/esp: vecsec_esp.h): the IP/ESP walk before decryption (IPv4
 * with options and fragments, IPv6 extension chains, lengths, link
 * padding), the trailer check after it (padding, next header, dummy
 * packets, the inner version in tunnel mode), the egress walk to a given
 * l3_len, and the IP header update (RFC 1624 checksum) transport mode
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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>

#include "vecsec/vecsec_esp.h"

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
 * Transport mode rewrites protocol and length with vecsec_esp_ip_update():
 * a header that was right stays right, one that was wrong stays wrong, and
 * the fields hold what was written.
 */
static void
check_ip_update(const uint8_t *p, uint32_t hl, uint8_t proto, uint16_t len)
{
	uint8_t h[60];
	bool ok;

	memcpy(h, p, hl);
	ok = ip4_sum(h) == 0;
	vecsec_esp_ip_update(h, 4, 9, proto, len);
	if ((ip4_sum(h) == 0) != ok || h[9] != proto || (h[2] << 8 | h[3]) != len)
		abort();
}

/* The trailer the egress path builds is one the ingress check takes. */
static void
check_trailer_roundtrip(uint32_t pl, uint8_t nh, bool tunnel)
{
	uint8_t ct[3 + 3 + 2];
	uint32_t pad = vecsec_esp_pad_len(pl), len = pl + pad + 2;
	int want, rc;

	if (pl > 3 || pad > 3 || (len & 3) != 0)
		abort();
	if (tunnel)
		nh = nh & 1 ? 4 : 41;
	memset(ct, nh == 4 ? 0x45 : 0x60, pl);      /* the inner packet's first byte */
	vecsec_esp_trailer_build(ct + pl, pad, nh);
	rc = vecsec_esp_trailer_check(ct + pl + pad, pad != 0 ? ct + pl : NULL, len, tunnel,
				      pl != 0 ? ct : NULL);
	want = tunnel && pl == 0 ? -EBADMSG : nh;   /* a tunnel carries a packet */
	if (rc != want)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vecsec_esp_in in;
	uint32_t len, avail, nh_off, hlen;
	bool tunnel;
	uint8_t *p;

	if (size < 1 || size > UINT16_MAX + 64)
		return 0;
	tunnel = data[0] & 1;
	len = (uint32_t)size - 1;
	avail = (data[0] >> 1) == 0 ? len : RTE_MIN(len, (uint32_t)(data[0] >> 1) * 8);

	/* ingress walk on the first segment's bytes only */
	p = dup_bytes(data + 1, avail);
	if (vecsec_esp_in_parse(p, avail, len, &in) == 0) {
		if (in.ip_len > len || in.hlen + VECSEC_ESP_HDR_IV_LEN > avail ||
		    in.hlen + VECSEC_ESP_HDR_IV_LEN + in.ct_len + VECSEC_ESP_ICV_LEN !=
		    in.ip_len || (in.ct_len & 3) != 0 || in.ct_len < 4 || in.nh_off >= in.hlen ||
		    p[in.nh_off] != VECSEC_ESP_PROTO || (in.ver != 4 && in.ver != 6) ||
		    (in.ver == 6 && in.hlen > VECSEC_ESP_IP6_HDR_MAX))
			abort();
		if (in.ver == 4)
			check_ip_update(p, in.hlen, data[size - 1], (uint16_t)(in.ip_len - 32));
	}
	free(p);

	/* the trailer check, on the whole packet taken as decrypted */
	p = dup_bytes(data + 1, len);
	if (vecsec_esp_in_parse(p, len, len, &in) == 0) {
		const uint8_t *ct = p + in.hlen + VECSEC_ESP_HDR_IV_LEN;
		const uint8_t *trl = ct + in.ct_len - 2;
		uint32_t pad = trl[0];
		const uint8_t *padb = pad != 0 && pad + 2 <= in.ct_len ? trl - pad : NULL;
		const uint8_t *first = in.ct_len > pad + 2 ? ct : NULL;
		int rc = vecsec_esp_trailer_check(trl, padb, in.ct_len, tunnel, first);

		if (rc >= 0 && (rc != trl[1] || pad + 2 > in.ct_len))
			abort();
		if (rc >= 0 && tunnel && rc != VECSEC_ESP_NEXT_HDR_DUMMY &&
		    (first == NULL || (first[0] >> 4) != (rc == 4 ? 4 : 6)))
			abort();
		if (rc < 0 && trl[1] == VECSEC_ESP_NEXT_HDR_DUMMY && padb != NULL &&
		    pad + 2 <= in.ct_len) {
			/* a dummy is refused only for its padding */
			for (uint32_t i = 0; i < pad && padb[i] == i + 1; i++)
				if (i + 1 == pad)
					abort();
		}
	}
	/* egress: the walk to the l3_len an application gave (the packet's last byte; 0: all) */
	if (len >= 40 && (p[0] >> 4) == 6) {
		uint32_t stop = p[len - 1] * 8u;
		uint8_t nh;
		int r = vecsec_esp_ip6_walk(p, len, stop, &nh, &nh_off);

		if (r >= 0 && ((stop != 0 && (uint32_t)r != stop) || (uint32_t)r > len ||
			       nh_off >= (uint32_t)r || r > VECSEC_ESP_IP6_HDR_MAX ||
			       p[nh_off] != nh))
			abort();
		/* a whole walk ends at a header it does not take */
		if (r >= 0 && stop == 0 && (nh == 0 || nh == 43 || nh == 60))
			abort();
	}
	if (len >= 1 && vecsec_esp_transport_hdr(p, len, 0, &hlen, &nh_off) == 0 &&
	    (hlen > len || nh_off >= hlen))
		abort();
	free(p);
	check_trailer_roundtrip(len & 3, data[0], tunnel);
	return 0;
}
