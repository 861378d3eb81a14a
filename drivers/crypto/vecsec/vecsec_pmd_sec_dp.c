/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec lookaside-protocol ESP data path (RFC 4303), one pass per
 * burst: for each op of a security session, build the ESP packet in place
 * (egress) or parse and replay-check it (ingress), and queue one AEAD job;
 * the burst's single vecsec_engine_burst() call (vecsec_pmd_dp.c) runs them
 * with every other op; then finish each (ingress: window update only after
 * the ICV matched, headers and trailer removed).
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
 * Sequence numbers: one atomic per packet, never wrapping (RFC 4303 3.3.3);
 * the IV is the 64-bit sequence number (RFC 7634 2: unique per key). ESN
 * high halves are recovered per RFC 4303 Appendix A.2.
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

#include "vecsec_pmd_private.h"
#include "vecsec_pmd_dp.h"
#include "vecsec_pmd_sec_parse.h"

#define ESP_HDR_LEN 8
#define ESP_HIV_LEN (ESP_HDR_LEN + VECSEC_PMD_ESP_IV_LEN)   /* SPI, seq, IV */
#define IPPROTO_ESP_ 50
#define WIN_MASK (VECSEC_PMD_WIN_WORDS - 1)

/* ESP fields sit wherever the IP header left them: no alignment assumed. */
static inline void
put_be32(uint8_t *p, uint32_t v)
{
	rte_be32_t b = rte_cpu_to_be_32(v);

	memcpy(p, &b, sizeof(b));
}

static inline void
put_be64(uint8_t *p, uint64_t v)
{
	rte_be64_t b = rte_cpu_to_be_64(v);

	memcpy(p, &b, sizeof(b));
}

static inline uint32_t
get_be32(const uint8_t *p)
{
	rte_be32_t b;

	memcpy(&b, p, sizeof(b));
	return rte_be_to_cpu_32(b);
}

/* ---- sequence numbers and the replay window ---- */

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
		uint64_t cur, take;
		unsigned int run = 1;

		while (run < qp->cur_left && run < 64 &&
		       qp->cur_ops[run]->sess_type == RTE_CRYPTO_OP_SECURITY_SESSION &&
		       qp->cur_ops[run]->sym->session == sess)
			run++;
		cur = __atomic_load_n(&s->seq_out, __ATOMIC_RELAXED);
		do {
			if (cur >= s->seq_max)
				return false;
			take = RTE_MIN((uint64_t)run, s->seq_max - cur);
		} while (!__atomic_compare_exchange_n(&s->seq_out, &cur, cur + take, false,
						      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
		qp->seq_sess = s;
		qp->seq_next = cur + 1;
		qp->seq_end = cur + take + 1;
	}
	*seq = qp->seq_next++;
	return true;
}

/*
 * RFC 4303 A.2.1: the high half of an ESN from its low half, the top of
 * the window T and its size W (without anti-replay: the half space, so the
 * nearest number to T). False where the answer falls outside 0..2^64-1.
 */
static inline bool
esn_recover(uint64_t top, uint32_t win, uint32_t lo, uint64_t *seq)
{
	uint32_t tl = (uint32_t)top, th = (uint32_t)(top >> 32);
	uint32_t w = win != 0 ? win : UINT32_C(1) << 31;
	uint32_t bl = tl - w + 1;
	uint64_t hi;

	if (tl >= w - 1) {              /* case A: window within one subspace */
		if (lo >= bl) {
			hi = th;
		} else {
			if (th == UINT32_MAX)
				return false;
			hi = (uint64_t)th + 1;
		}
	} else {                        /* case B: window spans two subspaces */
		if (lo >= bl) {
			if (th == 0)
				return false;
			hi = (uint64_t)th - 1;
		} else {
			hi = th;
		}
	}
	*seq = (hi << 32) | lo;
	return true;
}

/*
 * RFC 4303 A.1: false for a number already seen or left of the window. Read
 * without the lock before decryption (relaxed loads: a stale answer only
 * lets a replay reach the ICV check, never past it), and again under the
 * lock by win_update() once the ICV matched.
 */
static inline bool
win_check(const struct vecsec_pmd_sec_session *s, uint64_t seq)
{
	uint64_t top = __atomic_load_n(&s->top, __ATOMIC_RELAXED);

	if (s->win == 0 || seq > top)
		return true;
	if (seq + s->win <= top)
		return false;
	return ((__atomic_load_n(&s->bits[(seq >> 6) & WIN_MASK], __ATOMIC_RELAXED) >>
		 (seq & 63)) & 1) == 0;
}

/* Record an authenticated number (lock held); false if it turned out a replay after all. */
static inline bool
win_update(struct vecsec_pmd_sec_session *s, uint64_t seq)
{
	uint64_t top = s->top;

	if (!win_check(s, seq))
		return false;
	if (seq > top) {
		uint64_t from = (top >> 6) + 1, to = seq >> 6;

		if (to >= from && to - from >= VECSEC_PMD_WIN_WORDS - 1) {
			from = 0;
			to = VECSEC_PMD_WIN_WORDS - 1;
		}
		for (uint64_t w = from; w <= to; w++)
			__atomic_store_n(&s->bits[w & WIN_MASK], 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->top, seq, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->bits[(seq >> 6) & WIN_MASK],
			 s->bits[(seq >> 6) & WIN_MASK] | UINT64_C(1) << (seq & 63),
			 __ATOMIC_RELAXED);
	return true;
}

/* Without a window only the top moves (ESN recovery needs it): no lock. */
static inline void
top_raise(struct vecsec_pmd_sec_session *s, uint64_t seq)
{
	uint64_t top = __atomic_load_n(&s->top, __ATOMIC_RELAXED);

	while (seq > top && !__atomic_compare_exchange_n(&s->top, &top, seq, true,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
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
	int ver = vecsec_pmd_ip_len(p, avail, m->pkt_len, &tl);

	if (ver != 0 && tl < m->pkt_len && mbuf_cut_tail(m, m->pkt_len - tl) != 0)
		return 0;
	return ver;
}

/*
 * After the packet's length changed: write the next header nh at nh_off
 * and the length (IPv4 total length, IPv6 payload length). IPv4: the
 * header checksum is updated incrementally (RFC 1624), never recomputed,
 * so a header that came in with a wrong one leaves with a wrong one.
 */
static inline void
ip_set(uint8_t *p, int ver, uint16_t nh_off, uint8_t nh, uint32_t len)
{
	if (ver == 4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)p;
		rte_be16_t old, new;

		memcpy(&old, p + offsetof(struct rte_ipv4_hdr, time_to_live), sizeof(old));
		p[nh_off] = nh;
		memcpy(&new, p + offsetof(struct rte_ipv4_hdr, time_to_live), sizeof(new));
		h->hdr_checksum = vecsec_pmd_cksum_adjust(h->hdr_checksum, old, new);
		old = h->total_length;
		h->total_length = rte_cpu_to_be_16((uint16_t)len);
		h->hdr_checksum = vecsec_pmd_cksum_adjust(h->hdr_checksum, old,
							  h->total_length);
	} else {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)p;

		p[nh_off] = nh;
		h->payload_len = rte_cpu_to_be_16((uint16_t)(len - sizeof(*h)));
	}
}

static inline void
job_fill(struct vecsec_pmd_scratch *sc, struct vecsec_pmd_sec_session *s,
	 struct vecsec_pmd_sec_job *sj, uint32_t dir, size_t aad_len, uint8_t *lin,
	 const struct vecsec_seg *segs, uint32_t nb, uint8_t *tag, struct rte_crypto_op *op)
{
	struct vecsec_aead_job *job = &sc->jobs[sc->nb_jobs];

	job->key = &s->key;
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
	job->tag_len = VECSEC_PMD_ESP_ICV_LEN;
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
	uint32_t hlen = 0, outer, pl, pad, total, nb;
	const struct vecsec_seg *segs;
	uint16_t nh_off = 0;
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
		if (ver == 4) {
			hlen = (uint32_t)(p[0] & 0xf) * 4;
			if (m->l3_len != 0 && m->l3_len != hlen)
				goto bad;
			nh_off = offsetof(struct rte_ipv4_hdr, next_proto_id);
		} else {
			int r = vecsec_pmd_ip6_walk(p, m->data_len, m->l3_len, &nh_off);

			if (r < 0)
				goto bad;
			hlen = (uint32_t)r;
		}
		nh = p[nh_off];
		outer = hlen;
		outer_ver = ver;
	}
	pl = m->pkt_len - hlen;
	pad = (4 - ((pl + 2) & 3)) & 3;         /* RFC 4303 2.4: 4-byte alignment */
	sj->ct_len = pl + pad + 2;
	total = outer + ESP_HIV_LEN + sj->ct_len + VECSEC_PMD_ESP_ICV_LEN;
	if (total > (outer_ver == 4 ? 65535u : 65535u + sizeof(struct rte_ipv6_hdr)))
		goto bad;
	if (rte_pktmbuf_headroom(m) < outer - hlen + ESP_HIV_LEN ||
	    rte_pktmbuf_tailroom(rte_pktmbuf_lastseg(m)) < pad + 2 + VECSEC_PMD_ESP_ICV_LEN)
		goto bad;
	if (!seq_next(qp, s, &seq)) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);   /* never wrap */
		return PREP_DONE;
	}

	/* trailer: padding 1, 2, 3 ..., pad length, next header; then the ICV */
	tail = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(pad + 2 + VECSEC_PMD_ESP_ICV_LEN));
	for (uint32_t i = 0; i < pad; i++)
		tail[i] = (uint8_t)(i + 1);
	tail[pad] = (uint8_t)pad;
	tail[pad + 1] = nh;
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
		ip_set(p, 6, offsetof(struct rte_ipv6_hdr, proto), IPPROTO_ESP_, m->pkt_len);
	} else {
		ip_set(p, outer_ver, nh_off, IPPROTO_ESP_, m->pkt_len);
	}
	esp = p + outer;
	put_be32(esp, s->spi);
	put_be32(esp + 4, (uint32_t)seq);
	put_be64(esp + ESP_HDR_LEN, seq);
	m->l2_len = 0;
	m->l3_len = outer;

	sj->seq = seq;
	vecsec_esp_nonce(sj->nonce, &s->key, esp + ESP_HDR_LEN);
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
	struct vecsec_pmd_esp_in in;
	struct rte_mbuf *last;
	const struct vecsec_seg *segs;
	uint32_t lo, nb, aad_len;
	uint8_t *lin, *tag;
	uint64_t seq;
	bool fresh;

	/* the IP/ESP walk (vecsec_pmd_sec_parse.h, fuzzed on its own), then link padding goes */
	if (vecsec_pmd_esp_in_parse(p, m->data_len, m->pkt_len, &in) != 0)
		goto bad;
	if (in.ip_len < m->pkt_len && mbuf_cut_tail(m, m->pkt_len - in.ip_len) != 0)
		goto bad;
	esp = p + in.hlen;
	if (get_be32(esp) != s->spi)
		goto bad;
	lo = get_be32(esp + 4);

	if (s->esn) {
		fresh = esn_recover(__atomic_load_n(&s->top, __ATOMIC_RELAXED), s->win, lo, &seq);
	} else {
		seq = lo;
		fresh = true;
	}
	fresh = fresh && (s->win == 0 || seq != 0) && win_check(s, seq);
	if (!fresh) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, true);
		return PREP_DONE;
	}

	sj->seq = seq;
	sj->hlen = (uint16_t)in.hlen;
	sj->nh_off = in.nh_off;
	sj->ct_len = in.ct_len;
	vecsec_esp_nonce(sj->nonce, &s->key, esp + ESP_HDR_LEN);
	aad_len = (uint32_t)vecsec_esp_aad(sj->aad, s->spi, seq, s->esn);
	last = rte_pktmbuf_lastseg(m);
	if (last->data_len >= VECSEC_PMD_ESP_ICV_LEN) {
		tag = rte_pktmbuf_mtod_offset(last, uint8_t *,
					      last->data_len - VECSEC_PMD_ESP_ICV_LEN);
	} else {
		tag = sj->icv;
		if (rte_pktmbuf_read(m, m->pkt_len - VECSEC_PMD_ESP_ICV_LEN,
				     VECSEC_PMD_ESP_ICV_LEN, tag) != tag)
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
	uint8_t trl[2], padb[255], v;
	const uint8_t *t, *pb = NULL, *in = NULL;
	uint32_t hlen = sj->hlen, pad, cut;
	enum vecsec_pmd_trailer what;
	uint8_t *p;
	bool fresh;
	int ver;

	if (s->win == 0) {
		top_raise(s, sj->seq);
		fresh = true;
	} else {
		rte_spinlock_lock(&s->lock);
		fresh = win_update(s, sj->seq);
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
	what = vecsec_pmd_esp_trailer(t, pb, sj->ct_len, s->tunnel, in);
	if (what == VECSEC_PMD_TRL_DUMMY) {
		/* RFC 4303 2.6: authenticated, counted in the window, then discarded */
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
		m->ol_flags |= vecsec_pmd_dummy_flag;
		return;
	}
	if (what != VECSEC_PMD_TRL_OK)
		goto bad;
	cut = pad + 2 + VECSEC_PMD_ESP_ICV_LEN;
	if (s->tunnel) {
		if (mbuf_cut_tail(m, cut) != 0)
			goto bad;
		rte_pktmbuf_adj(m, (uint16_t)(hlen + ESP_HIV_LEN));
		m->l3_len = 0;
	} else {
		uint8_t nh = t[1];

		if (mbuf_cut_tail(m, cut) != 0)
			goto bad;
		p = rte_pktmbuf_mtod(m, uint8_t *);
		ver = p[0] >> 4;
		memmove(p + ESP_HIV_LEN, p, hlen);
		p = (uint8_t *)rte_pktmbuf_adj(m, ESP_HIV_LEN);
		ip_set(p, ver, sj->nh_off, nh, m->pkt_len);
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

/* ---- entry points from vecsec_pmd_dp.c ---- */

int
vecsec_pmd_sec_prepare(struct vecsec_pmd_qp *qp, struct rte_crypto_op *op)
{
	struct rte_security_session *sess = op->sym->session;
	struct vecsec_pmd_sec_session *s;
	struct rte_mbuf *m = op->sym->m_src;

	s = sess != NULL ? SECURITY_GET_SESS_PRIV(sess) : NULL;
	if (unlikely(s == NULL || s->magic != VECSEC_PMD_SEC_MAGIC)) {
		op_fail(NULL, op, RTE_CRYPTO_OP_STATUS_INVALID_SESSION, false);
		return PREP_DONE;
	}
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
	return s->egress ? egress_prepare(qp, s, op, m) : ingress_prepare(qp, s, op, m);
}

void
vecsec_pmd_sec_finish(struct vecsec_pmd_qp *qp, unsigned int j, struct rte_crypto_op *op,
		      uint32_t job_status)
{
	struct vecsec_pmd_sec_session *s = SECURITY_GET_SESS_PRIV(op->sym->session);
	struct rte_mbuf *m = op->sym->m_src;

	if (job_status == VECSEC_JOB_AUTH_FAILED) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_AUTH_FAILED, false);
		return;
	}
	if (job_status != VECSEC_JOB_OK) {
		op_fail(s, op, RTE_CRYPTO_OP_STATUS_ERROR, false);
		return;
	}
	if (s->egress)
		op_ok(s, op, m);
	else
		ingress_finish(s, &qp->scratch.sec[j], op, m);
}
