/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native ESP, inbound (type native). Before the burst, per
 * packet: its full sequence number (RFC 4303 A.2 from the SA's exact
 * window, lib/esp), the window's check (3.4.3: a replay or a number left
 * of the window is dropped before any crypto), the AEAD job (nonce = salt
 * || the packet's IV, AAD = SPI || [seq-hi ||] seq-lo, the ciphertext in
 * place, scatter-gather over a chain). After it: the tag's verdict, the
 * trailer (padding, pad length, next header; a dummy packet, next header
 * 59, is authenticated and recorded, then dropped as one), the number
 * recorded in the window (only now: its ICV was verified), lifetimes on
 * what authenticated, ESP removed (tunnel: the outer header, ESP header,
 * IV, trailer and ICV; transport: ESP taken out from behind the IP header,
 * whose next header and length are updated), then esp_in.h's in_post()
 * as for every other SA type: counters, the inner header's check, NAT-T's
 * transport checksum, the policy check's batch. Workers that share an SA
 * take its rw_lock: read for the check, write for the record.
 */
#include "esp_native.h"
#include "esp_in.h"
#include "esp_out.h"
#include "port_io.h"

#include <string.h>

#include <rte_ip.h>

/*
 * Window check under the read lock when workers share the SA: 0, -1 (a
 * replay), or -2: above what the cluster partner acked (--cluster-sync,
 * hasync.c; line 2 read only for such SAs).
 */
static inline int
in_window(struct gw_sa *sa, uint32_t lo, uint64_t *seq)
{
	int rc;

	if (sa->rw_shared)
		rte_rwlock_read_lock(&sa->rw_lock);
	rc = vecsec_esp_replay_recover(sa->rw, lo, seq);
	if (rc == 0)
		rc = vecsec_esp_replay_check(sa->rw, *seq);
	if (sa->rw_shared)
		rte_rwlock_read_unlock(&sa->rw_lock);
	if (rc == 0 && unlikely(sa->ha_gate) &&
	    *seq > __atomic_load_n(&sa->ha_in_lim, __ATOMIC_RELAXED))
		return -2;
	return rc == 0 ? 0 : -1;
}

int
gw_native_in_prep(struct gw_sa *sa, struct rte_mbuf *m, struct gw_nat *j)
{
	const uint8_t *esp;
	uint32_t off = m->l3_len, lo;
	int rc;

	if (m->nb_segs > GW_NAT_SEGS && rte_pktmbuf_linearize(m) != 0)
		return GW_DROP_NO_MBUF + 1;
	/* the headers ESP's removal moves or cuts are in the first segment */
	if (m->data_len < off + VECSEC_ESP_HDR_IV_LEN ||
	    m->pkt_len < off + VECSEC_ESP_HDR_IV_LEN + 4 + VECSEC_ESP_ICV_LEN)
		return GW_DROP_MALFORMED + 1;
	esp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	memcpy(&lo, esp + 4, sizeof(lo));       /* any alignment */
	lo = rte_be_to_cpu_32(lo);
	rc = in_window(sa, lo, &j->seq);
	if (rc != 0)
		return (rc == -2 ? GW_DROP_HA_SEQ_WAIT : GW_DROP_REPLAY) + 1;
	j->esp_off = off;
	j->ct_len = m->pkt_len - off - VECSEC_ESP_HDR_IV_LEN - VECSEC_ESP_ICV_LEN;
	j->ver = rte_pktmbuf_mtod(m, const uint8_t *)[0] >> 4;
	j->nh_off = 9;          /* IPv4's protocol */
	if (sa->mode == GW_MODE_TRANS && j->ver == 6) {
		uint32_t nh_off;

		if (vecsec_esp_ip6_walk(rte_pktmbuf_mtod(m, const uint8_t *), off, off, NULL,
					&nh_off) != (int)off)
			return GW_DROP_MALFORMED + 1;
		j->nh_off = (uint16_t)nh_off;
	}
	if (gw_nat_data(j, m, off + VECSEC_ESP_HDR_IV_LEN, j->ct_len) != 0)
		return GW_DROP_NO_MBUF + 1;
	j->job.key = gw_nsa_key(sa);    /* ChaCha20: the key line alone */
	j->job.dir = VECSEC_AEAD_OPEN;
	vecsec_esp_nonce(j->nonce, j->job.key, esp + VECSEC_ESP_HDR_LEN);
	j->job.nonce = j->nonce;
	j->job.nonce_len = sizeof(j->nonce);
	j->job.aad = j->aad;
	j->job.aad_len = vecsec_esp_aad(j->aad, sa->spi, j->seq, sa->rw_esn);
	j->job.tag = (uint8_t *)(uintptr_t)rte_pktmbuf_read(m, m->pkt_len - VECSEC_ESP_ICV_LEN,
		VECSEC_ESP_ICV_LEN, j->tag);
	j->job.tag_len = VECSEC_ESP_ICV_LEN;
	return 0;
}

/* Cut len bytes off the end of m, across segments (a reassembled chain). */
static void
cut_tail(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *s = m, *rest;
	uint32_t keep = m->pkt_len - len, at = 0;
	uint16_t nb = 1;

	if (rte_pktmbuf_trim(m, (uint16_t)len) == 0)
		return;
	while (s->next != NULL && at + s->data_len < keep) {
		at += s->data_len;
		s = s->next;
		nb++;
	}
	rest = s->next;
	s->data_len = (uint16_t)(keep - at);
	s->next = NULL;
	m->nb_segs = nb;
	m->pkt_len = keep;
	if (rest != NULL) {
		rest->nb_segs = 1;      /* freed segment by segment below */
		rte_pktmbuf_free(rest);
	}
}

/*
 * The decrypted trailer (lib/esp's check: padding 1, 2, 3, ..., a tunnel's
 * inner packet IPv4 or IPv6): its next header, or -1.
 */
static int
in_trailer(const struct gw_sa *sa, const struct rte_mbuf *m, const struct gw_nat *j,
	   uint8_t *pad_len)
{
	uint8_t tb[2], pb[255], fb;
	uint32_t ct = j->esp_off + VECSEC_ESP_HDR_IV_LEN;
	const uint8_t *trl, *padb = NULL, *first;
	bool tun = sa->mode != GW_MODE_TRANS;

	if (likely(j->job.out != NULL)) {
		/* one segment held the ciphertext (gw_nat_data): the plaintext is there */
		first = j->job.out;
		trl = first + j->ct_len - 2;
		if (trl[0] != 0 && (uint32_t)trl[0] + 2 <= j->ct_len)
			padb = trl - trl[0];
		*pad_len = trl[0];
		return vecsec_esp_trailer_check(trl, padb, j->ct_len, tun, first);
	}
	trl = rte_pktmbuf_read(m, ct + j->ct_len - 2, 2, tb);
	first = rte_pktmbuf_read(m, ct, 1, &fb);
	if (trl == NULL)
		return -1;
	if (trl[0] != 0 && (uint32_t)trl[0] + 2 <= j->ct_len)
		padb = rte_pktmbuf_read(m, ct + j->ct_len - 2 - trl[0], trl[0], pb);
	*pad_len = trl[0];
	return vecsec_esp_trailer_check(trl, padb, j->ct_len, tun, first);
}

/* Record the number, now that its packet authenticated: 0, or -1 (a replay after all). */
static inline int
in_record(struct gw_sa *sa, uint64_t seq)
{
	int rc;

	if (sa->rw_shared)
		rte_rwlock_write_lock(&sa->rw_lock);
	rc = vecsec_esp_replay_update(sa->rw, seq);
	if (sa->rw_shared)
		rte_rwlock_write_unlock(&sa->rw_lock);
	return rc == 0 ? 0 : -1;
}

/* ESP out of m: tunnel, all before the inner packet; transport, ESP from behind the headers. */
static void
in_strip(const struct gw_sa *sa, struct rte_mbuf *m, const struct gw_nat *j, uint8_t pad_len,
	 uint8_t nh)
{
	uint32_t off = j->esp_off;
	uint8_t *p;

	cut_tail(m, (uint32_t)pad_len + 2 + VECSEC_ESP_ICV_LEN);
	if (sa->mode != GW_MODE_TRANS) {
		rte_pktmbuf_adj(m, (uint16_t)(off + VECSEC_ESP_HDR_IV_LEN));
		return;
	}
	p = rte_pktmbuf_mtod(m, uint8_t *);
	memmove(p + VECSEC_ESP_HDR_IV_LEN, p, off);
	p = (uint8_t *)rte_pktmbuf_adj(m, VECSEC_ESP_HDR_IV_LEN);
	vecsec_esp_ip_update(p, j->ver, j->nh_off, nh, m->pkt_len);
}

void
gw_native_in_done(struct gw_worker *w, struct gw_sa *sa, struct rte_mbuf *m,
		  const struct gw_nat *j, struct in_check *ic)
{
	uint8_t pad_len = 0;
	int nh;

	if (j->job.status != VECSEC_JOB_OK) {
		gw_port_drop(w, sa, m, j->job.status == VECSEC_JOB_AUTH_FAILED ? GW_DROP_AUTH :
			     GW_DROP_CRYPTO);
		return;
	}
	nh = in_trailer(sa, m, j, &pad_len);
	if (nh < 0) {
		gw_port_drop(w, sa, m, GW_DROP_MALFORMED);
		return;
	}
	if (in_record(sa, j->seq) != 0) {
		gw_port_drop(w, sa, m, GW_DROP_REPLAY);
		return;
	}
	if (nh == VECSEC_ESP_NEXT_HDR_DUMMY) {
		gw_port_drop(w, sa, m, GW_DROP_DUMMY);
		return;
	}
	/* lifetimes count only what authenticated: forged packets spend nothing */
	if (sa->has_life && life_admit(w, sa, &m, 1) == 0)
		return;
	in_strip(sa, m, j, pad_len, (uint8_t)nh);
	/* last use (an IKE daemon's `query sa`): authenticated packets only */
	__atomic_store_n(&w->sa_st[sa->idx].last_tsc, w->now_tsc, __ATOMIC_RELAXED);
	m->ol_flags = 0;
	in_post(w, sa, m, &w->sa_st[sa->idx], ic);     /* esp_in.h */
}
