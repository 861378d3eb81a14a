/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for vecsec-gw's rx packet classification (gw_pkt.h):
 * gw_pkt_classify() on a frame as a port hands it over (Ethernet, IPv4
 * with options, IPv6 extension chains, fragments, ESP, ESP in UDP 4500,
 * NAT-keepalives, IKE markers), then gw_pkt_l3() and gw_pkt_class() on
 * the IP packet with only part of it readable in place (as a reassembled
 * chain is), and the inbound transport-mode dummy test's walk. The same
 * code the worker runs, on bytes: no EAL, no mbuf, no DPDK library.
 *
 * Input: one control byte, then the frame. Control bit 0: the frame came
 * in on the ESP side; bits 1-2: what the NIC said of the IPv4 checksum
 * (enum gw_ck); bits 3-7: 0, the whole packet is readable in place, else
 * only the first 16 * n bytes of the IP packet. Every buffer is a heap
 * copy of exactly the bytes the code may read, so ASan catches a read
 * past them. Built with clang-14 -fsanitize=fuzzer,address,undefined by
 * test/gw/fuzz-classify.sh, which also runs it (with lib/esp/esp_ip.c, the
 * IPv6 walk gw_pkt.h calls).
 */
#include "gw_pkt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* the NAT-T ports gw_pkt_class() knows (natt.c's, without registrations) */
uint16_t gw_natt_ports[GW_NATT_MAX_PORTS] = { RTE_BE16(4500) };

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

/* What gw_pkt_l3() promises of an accepted header. */
static void
check_l3(const uint8_t *p, uint32_t avail, uint32_t len, enum gw_ck ck, int v6,
	 const struct gw_l3 *r)
{
	if (v6 != r->v6 || r->ip_len > len || r->avail > r->ip_len || r->avail > avail ||
	    r->l3_len > r->avail || r->l3_len < (v6 ? 40u : 20u))
		abort();
	if (!v6) {
		if (ck == GW_CK_BAD || r->l3_len != (uint32_t)(p[0] & 0xf) * 4 ||
		    r->proto != p[9] || r->fix_cksum != (ck == GW_CK_FIX))
			abort();
		/* RFC 1071: an accepted header that was to be verified sums to all ones */
		if (ck == GW_CK_VERIFY && rte_ipv4_cksum((const struct rte_ipv4_hdr *)p) != 0)
			abort();
	} else {
		uint8_t proto;

		if (r->l3_len > VECSEC_ESP_IP6_HDR_MAX || r->fix_cksum ||
		    vecsec_esp_ip6_walk(p, r->l3_len, 0, &proto, NULL) != (int)r->l3_len ||
		    proto != r->proto || r->frag != (r->proto == IPPROTO_FRAGMENT))
			abort();
	}
}

/* What gw_pkt_class() promises of its answer. */
static void
check_class(const struct gw_l3 *r, enum gw_pkt_class c, bool esp_side)
{
	const uint32_t uh = 8;

	if (!esp_side && c != GW_PKT_CLEAR)
		abort();
	switch (c) {
	case GW_PKT_ESP:
		if (r->proto != IPPROTO_ESP || r->ip_len < r->l3_len + 8 ||
		    r->avail < r->l3_len + 8 || (!r->v6 && r->frag))
			abort();
		break;
	case GW_PKT_ESP_NATT:
		if (r->proto != IPPROTO_UDP || r->ip_len < r->l3_len + uh + 8 ||
		    r->avail < r->l3_len + uh + 8 || (!r->v6 && r->frag))
			abort();
		break;
	case GW_PKT_KEEPALIVE:
		if (r->proto != IPPROTO_UDP || r->ip_len != r->l3_len + uh + 1)
			abort();
		break;
	case GW_PKT_MALFORMED:
		if (r->proto != IPPROTO_ESP && r->proto != IPPROTO_UDP)
			abort();
		break;
	case GW_PKT_CLEAR:
		break;
	default:
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gw_l3 r, r2;
	enum gw_pkt_class c;
	enum gw_ck ck;
	uint32_t len, avail;
	uint8_t *f, *p;
	bool esp_side, frag;
	int v6;

	if (size < 1 || size > UINT16_MAX + 64)
		return 0;
	esp_side = data[0] & 1;
	ck = (enum gw_ck)((data[0] >> 1) & 3);
	len = (uint32_t)size - 1;

	/* the whole frame, as the worker sees a received (linear) mbuf */
	f = dup_bytes(data + 1, len);
	c = gw_pkt_classify(f, len, ck, esp_side, &r, &frag);
	if (c != GW_PKT_MALFORMED || frag) {
		if (len < 14)
			abort();
		check_l3(f + 14, len - 14, len - 14, ck, r.v6, &r);
		if (!frag)
			check_class(&r, c, esp_side);
	}
	free(f);

	/* the IP packet with only its first bytes in place: nothing past them is read */
	if (len <= 14)
		return 0;
	len -= 14;
	avail = (data[0] >> 3) == 0 ? len : RTE_MIN(len, (uint32_t)(data[0] >> 3) * 16);
	p = dup_bytes(data + 1 + 14, avail);
	v6 = gw_pkt_l3(p, avail, len, ck, &r2);
	if (v6 >= 0) {
		check_l3(p, avail, len, ck, v6, &r2);
		if (!r2.frag || v6)
			check_class(&r2, gw_pkt_class(p, &r2, esp_side), esp_side);
		if (v6) {
			/* the worker's transport dummy test walks up to where ESP was */
			uint8_t nh;
			int n = vecsec_esp_ip6_walk(p, r2.l3_len, 0, &nh, NULL);

			if (n >= 0 && (uint32_t)n > r2.l3_len)
				abort();
		}
	}
	free(p);
	return 0;
}
