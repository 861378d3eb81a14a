/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec lookaside-protocol ESP data path (RFC 4303), one pass per
 * burst: for each op of a security session, build the ESP packet in place
 * (egress) or parse and replay-check it (ingress), and queue one AEAD job;
 * the burst's single vecsec_engine_burst() call (vecsec_pmd_dp.c) runs them
 * with every other op; then finish each (ingress: window update only after
 * the ICV matched, headers and trailer removed). vecsec_pmd_dp.c reaches
 * this file only through the two vecsec_pmd_dp_ops at the end, which
 * vecsec_pmd_sec.c gives each session when it creates it.
 *
 * The mbuf holds an IP packet from its data offset (no L2 header; l2_len is
 * not read). Egress tunnel: the whole packet is the inner packet; the outer
 * header comes from the session. Egress transport: ESP goes after the first
 * l3_len bytes (the IP header and the IPv6 extension headers before ESP, as
 * rte_ipsec's l2_len + l3_len with l2_len 0), or after the IPv4 header / the
 * IPv6 hop-by-hop, routing and destination options headers when l3_len is
 * 0. Ingress: ESP is found by walking the IP header. Output: l2_len 0,
 * l3_len the outer (egress) or remaining (transport ingress) IP header, 0
 * for a tunnel's inner packet. The IP header, the ESP header and the IV lie
 * in the first segment; egress appends the trailer and ICV in the last
 * segment's tailroom; otherwise the op fails. Ingress trailer and ICV may
 * span segments.
 *
 * The ESP rules are lib/esp's (vecsec_esp.h): layouts, header and trailer,
 * sequence numbers (one atomic per run of a session's ops, none when the
 * device has one queue pair; never wrapping,
 * the IV the 64-bit number), the replay window and ESN recovery, the
 * IPv4/IPv6 walks. This file does the mbuf work around them: lengths,
 * headroom and tailroom, segments, flags, the window's lock.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_crypto.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_security_driver.h>
#include <rte_spinlock.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_esp.h"

#include "vecsec_pmd_private.h"
#include "vecsec_pmd_dp.h"

#define ESP_HIV_LEN VECSEC_ESP_HDR_IV_LEN   /* SPI, seq, IV */

uint64_t vecsec_pmd_replay_flag;
uint64_t vecsec_pmd_dummy_flag;

/* ---- sequence numbers ---- */

/*
 * The next egress number, or false once the last one has been used. One
 * atomic per run of consecutive ops of the session in the burst: the queue
 * pair reserves the run's numbers at once (so each queue pair's packets
 * keep their order, and numbers never repeat across queue pairs).
 */
static inline bool
seq_next(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s, uint64_t *seq)
{
	if (qp->seq_sess != s || qp->seq_next == qp->seq_end) {
		const void *sess = qp->cur_ops[0]->sym->session;
		unsigned int run = 1;
		uint64_t first;
		uint32_t take;

		while (run < qp->cur_left && run < 64 &&
		       qp->cur_ops[run]->sess_type == RTE_CRYPTO_OP_SECURITY_SESSION &&
		       qp->cur_ops[run]->sym->session == sess)
			run++;
		take = qp->seq_excl ? vecsec_esp_seq_reserve_excl(&s->seq, run, &first) :
			vecsec_esp_seq_reserve(&s->seq, run, &first);
		if (take == 0)
			return false;
		qp->seq_sess = s;
		qp->seq_next = first;
		qp->seq_end = first + take;
	}
	*seq = qp->seq_next++;
	return true;
}

/* ---- op outcome ---- */

static inline void
op_fail(struct vecsec_pmd_sec_session *s, struct rte_crypto_op *op, uint8_t status,
	bool replay)
{
	struct rte_mbuf *m = op->sym->m_src;

	op->status = status;
	if (m != NULL)
		m->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED |
			(replay ? vecsec_pmd_replay_flag : 0);
	if (s != NULL && s->stats)
		__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
}

static inline void
op_ok(struct vecsec_pmd_sec_session *s, struct rte_crypto_op *op, struct rte_mbuf *m)
{
	op->status = RTE_CRYPTO_OP_STATUS_SUCCESS;
	if (!s->stats)
		return;   /* options.stats: the application asked for no counting */
	__atomic_fetch_add(&s->pkts, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&s->bytes, m->pkt_len, __ATOMIC_RELAXED);
}

/*
 * Drop the last len bytes of a chain, segments included when the tail
 * spans them (the segments freed go back to their pools). -1 if the chain
 * is shorter than len.
 */
static inline int
mbuf_cut_tail(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t keep, nb = 1;

	if (len > m->pkt_len)
		return -1;
	if (rte_pktmbuf_lastseg(m)->data_len >= len)
		return rte_pktmbuf_trim(m, (uint16_t)len);
	keep = m->pkt_len - len;
	while (keep > seg->data_len && seg->next != NULL) {
		keep -= seg->data_len;
		seg = seg->next;
		nb++;
	}
	if (keep > seg->data_len)
		return -1;
	seg->data_len = (uint16_t)keep;
	if (seg->next != NULL)
		rte_pktmbuf_free(seg->next);
	seg->next = NULL;
	m->nb_segs = (uint16_t)nb;
	m->pkt_len -= len;
	return 0;
}

/* ---- IP headers ---- */

/*
 * Check the IP header at p (avail bytes in the first segment, len in the
 * packet), trim link padding. Returns 4, 6 or 0 (malformed).
 */
static inline int
ip_check(struct rte_mbuf *m, const uint8_t *p, uint32_t avail)
{
	uint32_t tl = 0;
	int ver = vecsec_esp_ip_len(p, avail, m->pkt_len, &tl);

	if (ver < 0 || (tl < m->pkt_len && mbuf_cut_tail(m, m->pkt_len - tl) != 0))
		return 0;
	return ver;
}

static inline void
job_fill(struct vecsec_pmd_scratch *sc, struct vecsec_pmd_sec_session *s,
	 struct vecsec_pmd_sec_job *sj, uint32_t dir, size_t aad_len, uint8_t *lin,
	 const struct vecsec_seg *segs, uint32_t nb, uint8_t *tag, struct rte_crypto_op *op)
{
	struct vecsec_aead_job *job = &sc->jobs[sc->nb_jobs];

	job->key = s->key;
	job->dir = dir;
	job->status = VECSEC_JOB_PENDING;
	job->nonce = sj->nonce;
	job->nonce_len = sizeof(sj->nonce);
	job->aad = sj->aad;
	job->aad_len = aad_len;
	job->len = sj->ct_len;
	job->in = lin;
	job->out = lin;
	job->in_segs = segs;
	job->out_segs = segs;
	job->nb_in_segs = nb;
	job->nb_out_segs = nb;
	job->tag = tag;
	job->tag_len = VECSEC_ESP_ICV_LEN;
	job->user = op;
	sc->ptrs[sc->nb_jobs] = job;
	sc->nb_jobs++;
}

/* ---- egress ---- */

static int
egress_prepare(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
	       struct rte_crypto_op *op, struct rte_mbuf *m)
{
	struct vecsec_pmd_scratch *sc = &qp->scratch;
	struct vecsec_pmd_sec_job *sj = &sc->sec[sc->nb_jobs];
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *), *esp, *tail;
	uint32_t hlen = 0, nh_off = 0, outer, pl, pad, total, nb;
	const struct vecsec_seg *segs;
	uint8_t nh, *lin;
	uint64_t seq;
	size_t aad_len;
	int ver, outer_ver;

	ver = ip_check(m, p, m->data_len);
	if (ver == 0)
		goto bad;
	if (s->tunnel) {
		nh = ver == 4 ? IPPROTO_IPIP : IPPROTO_IPV6;
		outer = s->tun_hdr_len;
		outer_ver = s->tun_v6 ? 6 : 4;
	} else {
		if (vecsec_esp_transport_hdr(p, m->data_len, m->l3_len, &hlen, &nh_off) != 0)
			goto bad;
		nh = p[nh_off];
		outer = hlen;
		outer_ver = ver;
	}
	pl = m->pkt_len - hlen;
	pad = vecsec_esp_pad_len(pl);
	sj->ct_len = pl + pad + 2;
	total = outer + ESP_HIV_LEN + sj->ct_len + VECSEC_ESP_ICV_LEN;
	if (total > (outer_ver == 4 ? 65535u : 65535u + sizeof(struct rte_ipv6_hdr)))
		goto bad;
	if (rte_pktmbuf_headroom(m) < outer - hlen + ESP_HIV_LEN ||
	    rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < pad + 2 + VECSEC_ESP_ICV_LEN)
		goto bad;
	if (!seq_next(qp, s, &seq)) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);   /* never wrap */
		return PREP_DONE;
	}

	/* trailer: padding 1, 2, 3 ..., pad length, next header; then the ICV */
	tail = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(pad + 2 + VECSEC_ESP_ICV_LEN));
	vecsec_esp_trailer_build(tail, pad, nh);
	if (s->tunnel) {
		p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(outer + ESP_HIV_LEN));
		if (outer == sizeof(struct rte_ipv4_hdr))   /* constant sizes: inline copies */
			memcpy(p, s->tun_hdr, sizeof(struct rte_ipv4_hdr));
		else
			memcpy(p, s->tun_hdr, sizeof(struct rte_ipv6_hdr));
	} else {
		p = (uint8_t *)rte_pktmbuf_prepend(m, ESP_HIV_LEN);
		memmove(p, p + ESP_HIV_LEN, hlen);
	}
	if (s->tunnel && outer_ver == 4) {
		/* the template's sum plus the length (RFC 1071, RFC 1624 3) */
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;
		uint32_t sum = s->tun_csum + (uint16_t)rte_cpu_to_be_16((uint16_t)m->pkt_len);

		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		h->total_length = rte_cpu_to_be_16((uint16_t)m->pkt_len);
		h->hdr_checksum = (uint16_t)~sum;
	} else if (s->tunnel) {
		vecsec_esp_ip_update(p, 6, offsetof(struct rte_ipv6_hdr, proto), VECSEC_ESP_PROTO,
				     m->pkt_len);
	} else {
		vecsec_esp_ip_update(p, outer_ver, nh_off, VECSEC_ESP_PROTO, m->pkt_len);
	}
	esp = p + outer;
	vecsec_esp_hdr_build(esp, s->spi, seq);
	m->l2_len = 0;
	m->l3_len = outer;

	sj->seq = seq;
	vecsec_esp_nonce(sj->nonce, s->key, esp + VECSEC_ESP_HDR_LEN);
	aad_len = vecsec_esp_aad(sj->aad, s->spi, seq, s->esn);
	if (mbuf_span(sc, m, outer + ESP_HIV_LEN, sj->ct_len, &lin, &segs, &nb) != PREP_OK)
		goto bad_late;
	job_fill(sc, s, sj, VECSEC_AEAD_SEAL, aad_len, lin, segs, nb, tail + pad + 2, op);
	return PREP_OK;

bad_late:
	/* the packet is already changed: fail it, its number stays spent */
bad:
	op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
	return PREP_DONE;
}

/* ---- ingress ---- */

static int
ingress_prepare(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
		struct rte_crypto_op *op, struct rte_mbuf *m)
{
	struct vecsec_pmd_scratch *sc = &qp->scratch;
	struct vecsec_pmd_sec_job *sj = &sc->sec[sc->nb_jobs];
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *), *esp;
	struct vecsec_esp_in in;
	struct rte_mbuf *last;
	const struct vecsec_seg *segs;
	uint32_t nb, aad_len;
	uint8_t *lin, *tag;
	uint64_t seq;
	bool fresh;

	/* the IP/ESP walk (lib/esp, fuzzed on its own), then link padding goes */
	if (vecsec_esp_in_parse(p, m->data_len, m->pkt_len, &in) != 0)
		goto bad;
	if (in.ip_len < m->pkt_len && mbuf_cut_tail(m, m->pkt_len - in.ip_len) != 0)
		goto bad;
	esp = p + in.hlen;
	if (in.spi != s->spi)
		goto bad;

	/*
	 * RFC 4303 A.2 and A.1 without the lock (a stale window only lets a
	 * replay reach the ICV check, never past it: ingress_finish() decides
	 * under the lock). Without a window every number passes, 0 too, as
	 * rte_ipsec does with replay_win_sz 0.
	 */
	fresh = vecsec_esp_replay_recover(vecsec_pmd_sec_window(s), in.seq_lo, &seq) == 0 &&
		(s->win == 0 || vecsec_esp_replay_check(vecsec_pmd_sec_window(s), seq) == 0);
	if (!fresh) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, true);
		return PREP_DONE;
	}

	sj->seq = seq;
	sj->hlen = (uint16_t)in.hlen;
	sj->nh_off = (uint16_t)in.nh_off;
	sj->ct_len = in.ct_len;
	vecsec_esp_nonce(sj->nonce, s->key, esp + VECSEC_ESP_HDR_LEN);
	aad_len = (uint32_t)vecsec_esp_aad(sj->aad, s->spi, seq, s->esn);
	last = rte_pktmbuf_lastseg(m);
	if (last->data_len >= VECSEC_ESP_ICV_LEN) {
		tag = rte_pktmbuf_mtod_offset(last, uint8_t *,
					      last->data_len - VECSEC_ESP_ICV_LEN);
	} else {
		tag = sj->icv;
		if (rte_pktmbuf_read(m, m->pkt_len - VECSEC_ESP_ICV_LEN,
				     VECSEC_ESP_ICV_LEN, tag) != tag)
			goto bad;
	}
	if (mbuf_span(sc, m, in.hlen + ESP_HIV_LEN, in.ct_len, &lin, &segs, &nb) != PREP_OK)
		goto bad;
	job_fill(sc, s, sj, VECSEC_AEAD_OPEN, aad_len, lin, segs, nb, tag, op);
	return PREP_OK;
bad:
	op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
	return PREP_DONE;
}

/* After the ICV matched: window, trailer, headers. */
static void
ingress_finish(struct vecsec_pmd_sec_session *s, struct vecsec_pmd_sec_job *sj,
	       struct rte_crypto_op *op, struct rte_mbuf *m)
{
	struct vecsec_esp_replay *r = vecsec_pmd_sec_window(s);
	uint8_t trl[2], padb[255], v;
	const uint8_t *t, *pb = NULL, *in = NULL;
	uint32_t hlen = sj->hlen, pad, cut;
	uint8_t *p;
	bool fresh;
	int nh, ver;

	if (s->win == 0) {
		/* only the top moves (ESN recovery needs it): lock-free */
		(void)vecsec_esp_replay_update(r, sj->seq);
		fresh = true;
	} else {
		rte_spinlock_lock(&s->lock);
		fresh = vecsec_esp_replay_update(r, sj->seq) == 0;
		rte_spinlock_unlock(&s->lock);
	}
	if (!fresh) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, true);
		return;
	}
	t = rte_pktmbuf_read(m, hlen + ESP_HIV_LEN + sj->ct_len - 2, 2, trl);
	if (t == NULL)
		goto bad;
	pad = t[0];
	if (pad != 0 && pad + 2 <= sj->ct_len)
		pb = rte_pktmbuf_read(m, hlen + ESP_HIV_LEN + sj->ct_len - 2 - pad, pad, padb);
	if (sj->ct_len > pad + 2)
		in = rte_pktmbuf_read(m, hlen + ESP_HIV_LEN, 1, &v);
	nh = vecsec_esp_trailer_check(t, pb, sj->ct_len, s->tunnel, in);
	if (nh == VECSEC_ESP_NEXT_HDR_DUMMY) {
		/* RFC 4303 2.6: authenticated, counted in the window, then discarded */
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
		m->ol_flags |= vecsec_pmd_dummy_flag;
		return;
	}
	if (nh < 0)
		goto bad;
	cut = pad + 2 + VECSEC_ESP_ICV_LEN;
	if (s->tunnel) {
		if (mbuf_cut_tail(m, cut) != 0)
			goto bad;
		rte_pktmbuf_adj(m, (uint16_t)(hlen + ESP_HIV_LEN));
		m->l3_len = 0;
	} else {
		if (mbuf_cut_tail(m, cut) != 0)
			goto bad;
		p = rte_pktmbuf_mtod(m, uint8_t *);
		ver = p[0] >> 4;
		memmove(p + ESP_HIV_LEN, p, hlen);
		p = (uint8_t *)rte_pktmbuf_adj(m, ESP_HIV_LEN);
		vecsec_esp_ip_update(p, ver, sj->nh_off, (uint8_t)nh, m->pkt_len);
		m->l3_len = hlen;
	}
	m->l2_len = 0;
	m->ol_flags &= ~(RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED | vecsec_pmd_replay_flag |
			 vecsec_pmd_dummy_flag);
	op_ok(s, op, m);
	return;
bad:
	op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
}

/* ---- the sessions' data paths (struct vecsec_pmd_dp_ops) ---- */

/*
 * What both directions check first (the session is valid: vecsec_pmd_dp.c
 * checked its magic). PREP_OK to go on.
 */
static inline int
sec_prepare_common(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
		   struct rte_crypto_op *op, struct rte_mbuf *m)
{
	if (unlikely(m == NULL || (op->sym->m_dst != NULL && op->sym->m_dst != m))) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_INVALID_ARGS, false);   /* in place only */
		return PREP_DONE;
	}
	/*
	 * Room for the worst case before the packet is touched: no retry after.
	 * A chain longer than the scratch holds comes back here on the long-chain
	 * area (vecsec_pmd_dp.c), where any mbuf chain fits.
	 */
	if (qp->scratch.nb_segs + m->nb_segs > qp->scratch.max_segs)
		return PREP_FULL;
	if (qp->cur_left > 1) {
		/* the next packet's headers: this path reads them first */
		const struct rte_mbuf *n = qp->cur_ops[1]->sym->m_src;

		if (n != NULL)
			rte_prefetch0(rte_pktmbuf_mtod(n, const void *));
	}
	m->ol_flags &= ~(RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED | vecsec_pmd_replay_flag |
			 vecsec_pmd_dummy_flag);
	return PREP_OK;
}

static int
sec_egress_prepare(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
		   struct rte_crypto_op *op)
{
	struct rte_mbuf *m = op->sym->m_src;
	int rc = sec_prepare_common(qp, s, op, m);

	return likely(rc == PREP_OK) ? egress_prepare(qp, s, op, m) : rc;
}

static int
sec_ingress_prepare(struct vecsec_pmd_qp *qp, struct vecsec_pmd_sec_session *s,
		    struct rte_crypto_op *op)
{
	struct rte_mbuf *m = op->sym->m_src;
	int rc = sec_prepare_common(qp, s, op, m);

	return likely(rc == PREP_OK) ? ingress_prepare(qp, s, op, m) : rc;
}

/* The engine's verdict on the job; true when the op goes on to its finish. */
static inline bool
sec_job_ok(struct vecsec_pmd_sec_session *s, struct rte_crypto_op *op, uint32_t job_status)
{
	if (job_status == VECSEC_JOB_AUTH_FAILED) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_AUTH_FAILED, false);
		return false;
	}
	if (job_status != VECSEC_JOB_OK) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
		return false;
	}
	return true;
}

static void
sec_egress_finish(struct vecsec_pmd_qp *qp __rte_unused, unsigned int j __rte_unused,
		  struct vecsec_pmd_sec_session *s, struct rte_crypto_op *op, uint32_t job_status)
{
	if (sec_job_ok(s, op, job_status))
		op_ok(s, op, op->sym->m_src);
}

static void
sec_ingress_finish(struct vecsec_pmd_qp *qp, unsigned int j, struct vecsec_pmd_sec_session *s,
		   struct rte_crypto_op *op, uint32_t job_status)
{
	if (sec_job_ok(s, op, job_status))
		ingress_finish(s, &qp->scratch.sec[j], op, op->sym->m_src);
}

const struct vecsec_pmd_dp_ops vecsec_pmd_sec_egress_dp = {
	.prepare = sec_egress_prepare,
	.finish = sec_egress_finish,
};

const struct vecsec_pmd_dp_ops vecsec_pmd_sec_ingress_dp = {
	.prepare = sec_ingress_prepare,
	.finish = sec_ingress_finish,
};
