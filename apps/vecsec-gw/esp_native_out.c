/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native ESP, outbound (type native): one clear IP packet framed
 * as ESP in its own mbuf (RFC 4303 2: the tunnel's outer header from the
 * SA's template, or transport's ESP after the IP header and its IPv6
 * extensions; SPI, sequence number, the IV = the 64-bit sequence number
 * (RFC 7634 2, RFC 4106 3.1), padding to 4 bytes, pad length, next
 * header, room for the ICV), its AEAD job filled (nonce = salt || IV, AAD
 * = SPI || [seq-hi ||] seq-lo), and after the burst NAT-T and the route.
 * The bytes are those rte_ipsec 22.11 writes for the same SA and number
 * (the IPv4 ID of a tunnel is the number's low 16 bits, as there); the
 * test gw-native-equiv compares them.
 */
#include "esp_native.h"
#include "esp_out.h"
#include "port_io.h"

#include <rte_ip.h>
#include <rte_udp.h>

/* The tunnel's outer header: the template, then the lengths and the IPv4 ID. */
static inline uint8_t *
out_tun(const struct gw_sa *sa, struct rte_mbuf *m, uint64_t seq, uint32_t total)
{
	const struct gw_nsa0 *n = &sa->nsa0;
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, n->tmpl_len + VECSEC_ESP_HDR_IV_LEN);

	if (p == NULL)
		return NULL;
	memcpy(p, sa->mode == GW_MODE_TUN4 ? n->tmpl4 : n->nsa->tmpl6, n->tmpl_len);
	if (sa->mode == GW_MODE_TUN4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;

		h->total_length = rte_cpu_to_be_16((uint16_t)total);
		h->packet_id = rte_cpu_to_be_16((uint16_t)seq);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		h->payload_len = rte_cpu_to_be_16((uint16_t)(total - sizeof(*h)));
	}
	if (n->udp_ofs != 0) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(p + n->udp_ofs);

		u->dgram_len = rte_cpu_to_be_16((uint16_t)(total - n->udp_ofs));
	}
	return p + n->tmpl_len;
}

/* Transport: ESP goes after the IP header (and IPv6's extensions), which move to the front. */
static inline uint8_t *
out_trs(struct rte_mbuf *m, uint32_t total, uint8_t *nh, uint32_t *hlen)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t nh_off;
	int ver = p[0] >> 4;

	if (vecsec_esp_transport_hdr(p, m->data_len, m->l3_len, hlen, &nh_off) != 0)
		return NULL;
	*nh = p[nh_off];
	p = (uint8_t *)rte_pktmbuf_prepend(m, VECSEC_ESP_HDR_IV_LEN);
	if (p == NULL)
		return NULL;
	memmove(p, p + VECSEC_ESP_HDR_IV_LEN, *hlen);
	vecsec_esp_ip_update(p, ver, nh_off, VECSEC_ESP_PROTO, total);
	return p + *hlen;
}

/*
 * Frame m (its IP header first) with number seq and fill job j. Returns 0,
 * or the drop reason + 1 (the packet untouched but for what was framed).
 */
int
gw_native_out_prep(struct gw_sa *sa, struct rte_mbuf *m, uint64_t seq, struct gw_nat *j)
{
	const struct gw_nsa0 *n = &sa->nsa0;
	const struct vecsec_aead_key *key = gw_nsa_key(sa);
	uint32_t plen = m->pkt_len, pad = vecsec_esp_pad_len(plen), hlen = 0, total;
	uint32_t tail = pad + 2 + VECSEC_ESP_ICV_LEN;
	uint8_t *esp, *t, nh;
	int ver = rte_pktmbuf_mtod(m, const uint8_t *)[0] >> 4;

	if (m->nb_segs > GW_NAT_SEGS && rte_pktmbuf_linearize(m) != 0)
		return GW_DROP_NO_MBUF + 1;
	if (rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < tail)
		return GW_DROP_NO_MBUF + 1;
	if (sa->mode == GW_MODE_TRANS) {
		total = plen + VECSEC_ESP_HDR_IV_LEN + tail;
		esp = out_trs(m, total, &nh, &hlen);
		if (esp == NULL)
			return GW_DROP_MALFORMED + 1;
	} else {
		total = n->tmpl_len + VECSEC_ESP_HDR_IV_LEN + plen + tail;
		if (total > UINT16_MAX)
			return GW_DROP_TOO_BIG + 1;
		nh = ver == 6 ? IPPROTO_IPV6 : IPPROTO_IPIP;
		esp = out_tun(sa, m, seq, total);
		if (esp == NULL)
			return GW_DROP_NO_MBUF + 1;
		hlen = n->tmpl_len;
	}
	vecsec_esp_hdr_build(esp, sa->spi, seq);
	t = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)tail);  /* room checked above */
	vecsec_esp_trailer_build(t, pad, nh);
	j->seq = seq;
	j->esp_off = hlen;
	j->ct_len = m->pkt_len - hlen - VECSEC_ESP_HDR_IV_LEN - VECSEC_ESP_ICV_LEN;
	if (gw_nat_data(j, m, hlen + VECSEC_ESP_HDR_IV_LEN, j->ct_len) != 0)
		return GW_DROP_NO_MBUF + 1;
	vecsec_esp_nonce(j->nonce, key, esp + VECSEC_ESP_HDR_LEN);
	j->job.key = key;
	j->job.dir = VECSEC_AEAD_SEAL;
	j->job.nonce = j->nonce;
	j->job.nonce_len = sizeof(j->nonce);
	j->job.aad = j->aad;
	j->job.aad_len = vecsec_esp_aad(j->aad, sa->spi, seq, n->esn);
	j->job.tag = t + pad + 2;
	j->job.tag_len = VECSEC_ESP_ICV_LEN;
	return 0;
}

/* After the burst: sealed packets counted, NAT-T's UDP header (transport), then the route. */
void
gw_native_out_done(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m,
		   const struct gw_nat *j)
{
	struct gw_sa_ctr *ss = &w->sa_st[sa->idx];

	ss->seq_used++;         /* its number, sealed or not (esp_native.c, out_run) */
	if (j->job.status != VECSEC_JOB_OK) {
		gw_port_drop(w, sa, m, GW_DROP_CRYPTO);
		return;
	}
	ss->pkts++;
	ss->bytes += m->pkt_len;
	/* last use (an IKE daemon's `query sa`), on the line the counts write */
	__atomic_store_n(&ss->last_tsc, w->now_tsc, __ATOMIC_RELAXED);
	m->ol_flags = 0;
	out_post(w, sa, m);                     /* esp_out.h */
}
