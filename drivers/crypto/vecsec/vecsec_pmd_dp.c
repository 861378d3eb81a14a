/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec data path: a burst of crypto ops (or a CPU-crypto vector of
 * SGLs) becomes one array of libvecsec jobs, mbuf chains becoming segment
 * lists that start at the data offset; one vecsec_engine_burst() call runs
 * them all, whatever their sessions and directions; each job's status goes
 * back to its op. No allocation, no logs, nothing dropped: a full
 * completion ring makes enqueue take fewer ops. Symmetric sessions are
 * this file's own; an rte_security session's op is prepared and finished
 * by the struct vecsec_pmd_dp_ops its session was given when created
 * (vecsec_pmd_sec.c), so this file calls no ESP code by name.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>
#include <rte_security_driver.h>
#include <rte_spinlock.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"

#include "vecsec_pmd_private.h"
#include "vecsec_pmd_dp.h"

/* Same for a CPU-crypto SGL: skip head bytes, take len. */
static inline int
sgl_span(struct vecsec_pmd_scratch *sc, const struct rte_crypto_sgl *sgl, uint32_t head,
	 uint32_t len, uint8_t **lin, const struct vecsec_seg **segs, uint32_t *nb)
{
	struct vecsec_seg *first;
	uint32_t i = 0, n = 0;

	if (sgl == NULL || (sgl->num != 0 && sgl->vec == NULL))
		return PREP_BAD_ARGS;
	while (i < sgl->num && head >= sgl->vec[i].len && i + 1 < sgl->num) {
		head -= sgl->vec[i].len;
		i++;
	}
	if (i == sgl->num) {
		if (len != 0)
			return PREP_BAD_ARGS;
		*lin = (uint8_t *)(uintptr_t)"";   /* len 0: any readable pointer */
		*segs = NULL;
		*nb = 0;
		return PREP_OK;
	}
	if (head > sgl->vec[i].len)
		return PREP_BAD_ARGS;
	if (len <= sgl->vec[i].len - head) {
		*lin = (uint8_t *)sgl->vec[i].base + head;
		*segs = NULL;
		*nb = 0;
		return PREP_OK;
	}
	first = &sc->segs[sc->nb_segs];
	for (; i < sgl->num && len > 0; i++, head = 0) {
		uint32_t take = RTE_MIN(sgl->vec[i].len - head, len);

		if (take == 0)
			continue;
		if (sc->nb_segs + n == sc->max_segs)
			return PREP_FULL;
		first[n].data = (uint8_t *)sgl->vec[i].base + head;
		first[n].len = take;
		n++;
		len -= take;
	}
	if (len != 0)
		return PREP_BAD_ARGS;
	sc->nb_segs += n;
	*lin = NULL;
	*segs = first;
	*nb = n;
	return PREP_OK;
}

/* The session an op names, or NULL. */
static inline const struct vecsec_pmd_session *
op_session(struct vecsec_pmd_qp *qp, struct rte_crypto_op *op)
{
	struct vecsec_pmd_session *s;

	if (op->sess_type == RTE_CRYPTO_OP_WITH_SESSION) {
		const struct rte_cryptodev_sym_session *sess = op->sym->session;

		if (unlikely(sess == NULL || sess->driver_id != vecsec_pmd_driver_id))
			return NULL;
		s = CRYPTODEV_GET_SYM_SESS_PRIV(sess);
		return likely(s->configured) ? s : NULL;
	}
	if (op->sess_type == RTE_CRYPTO_OP_SESSIONLESS) {
		/* one slot per job of this lanes-engine call, wiped after it */
		s = &qp->sl[qp->nb_sl];
		if (vecsec_pmd_session_set(s, op->sym->xform, qp->aria, qp->sl_key[qp->nb_sl],
					   sizeof(qp->sl_key[0]), SOCKET_ID_ANY) != 0)
			return NULL;
		qp->nb_sl++;
		return s;
	}
	return NULL;
}

/*
 * An rte_security session's op: its session's own prepare, once the
 * session is known to be this driver's.
 */
static inline int
sec_op_prepare(struct vecsec_pmd_qp *qp, struct rte_crypto_op *op)
{
	const struct rte_security_session *sess = op->sym->session;
	struct vecsec_pmd_sec_session *s;

	s = sess != NULL ? SECURITY_GET_SESS_PRIV(sess) : NULL;
	if (unlikely(s == NULL || s->magic != VECSEC_PMD_SEC_MAGIC)) {
		op->status = RTE_CRYPTO_OP_STATUS_INVALID_SESSION;
		if (op->sym->m_src != NULL)
			op->sym->m_src->ol_flags |= RTE_MBUF_F_RX_SEC_OFFLOAD_FAILED;
		return PREP_DONE;
	}
	return vecsec_pmd_sec_dp[s->dp]->prepare(qp, s, op);
}

static inline void
sessionless_wipe(struct vecsec_pmd_qp *qp)
{
	for (unsigned int i = 0; i < qp->nb_sl; i++)
		vecsec_pmd_session_wipe(&qp->sl[i]);
	qp->nb_sl = 0;
}

/* Turn one op into the next job of the scratch. */
static inline int
op_prepare(struct vecsec_pmd_qp *qp, struct rte_crypto_op *op)
{
	struct vecsec_pmd_scratch *sc = &qp->scratch;
	const struct vecsec_pmd_session *s;
	struct rte_crypto_sym_op *sym = op->sym;
	struct rte_mbuf *src, *dst;
	uint32_t off, len, nb_in, nb_out, segs_before = sc->nb_segs;
	const struct vecsec_seg *in_segs, *out_segs;
	uint8_t *in_lin, *out_lin;
	int rc;

	if (unlikely(op->type != RTE_CRYPTO_OP_TYPE_SYMMETRIC || sym == NULL))
		return PREP_BAD_ARGS;
	if (op->sess_type == RTE_CRYPTO_OP_SECURITY_SESSION)
		return sec_op_prepare(qp, op);
	s = op_session(qp, op);
	if (unlikely(s == NULL))
		return PREP_BAD_SESSION;
	if (s->cipher_only) {
		off = sym->cipher.data.offset;
		len = sym->cipher.data.length;
	} else {
		off = sym->aead.data.offset;
		len = sym->aead.data.length;
		if (unlikely(sym->aead.digest.data == NULL ||
			     (s->aad_len != 0 && sym->aead.aad.data == NULL)))
			goto bad_args;
	}
	/*
	 * The segments themselves say where the data are: pkt_len is not
	 * trusted (dpdk-test-crypto-perf leaves it 0 on the chains it builds,
	 * and other PMDs walk the chain too).
	 */
	src = sym->m_src;
	dst = sym->m_dst != NULL ? sym->m_dst : src;
	if (unlikely(src == NULL))
		goto bad_args;

	rc = mbuf_span(sc, src, off, len, &in_lin, &in_segs, &nb_in);
	if (rc != PREP_OK)
		goto fail;
	if (dst == src) {
		out_lin = in_lin;
		out_segs = in_segs;
		nb_out = nb_in;
	} else {
		rc = mbuf_span(sc, dst, off, len, &out_lin, &out_segs, &nb_out);
		if (rc != PREP_OK)
			goto fail;
	}
	job_push(sc, s, rte_crypto_op_ctod_offset(op, const uint8_t *, s->iv_offset), len,
		 in_lin, in_segs, nb_in, out_lin, out_segs, nb_out,
		 s->cipher_only ? NULL : sym->aead.aad.data,
		 s->cipher_only ? NULL : sym->aead.digest.data, op);
	return PREP_OK;

bad_args:
	rc = PREP_BAD_ARGS;
fail:
	sc->nb_segs = segs_before;
	if (op->sess_type == RTE_CRYPTO_OP_SESSIONLESS) {
		/* give the slot back; its key must not linger */
		qp->nb_sl--;
		vecsec_pmd_session_wipe(&qp->sl[qp->nb_sl]);
	}
	return rc;
}

static inline uint8_t
op_status(uint32_t job_status)
{
	switch (job_status) {
	case VECSEC_JOB_OK:
		return RTE_CRYPTO_OP_STATUS_SUCCESS;
	case VECSEC_JOB_AUTH_FAILED:
		return RTE_CRYPTO_OP_STATUS_AUTH_FAILED;
	case VECSEC_JOB_INVALID:
		return RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
	default:
		return RTE_CRYPTO_OP_STATUS_ERROR;
	}
}

/* Run the jobs gathered so far and hand their statuses to their ops. */
static inline void
qp_run(struct vecsec_pmd_qp *qp)
{
	struct vecsec_pmd_scratch *sc = &qp->scratch;

	if (sc->nb_jobs != 0) {
		vecsec_engine_burst(qp->engine, sc->ptrs, sc->nb_jobs);
		for (unsigned int i = 0; i < sc->nb_jobs; i++) {
			struct rte_crypto_op *op = sc->jobs[i].user;

			if (op->sess_type == RTE_CRYPTO_OP_SECURITY_SESSION) {
				struct vecsec_pmd_sec_session *s =
					SECURITY_GET_SESS_PRIV(op->sym->session);

				vecsec_pmd_sec_dp[s->dp]->finish(qp, i, s, op, sc->jobs[i].status);
			} else {
				op->status = op_status(sc->jobs[i].status);
			}
		}
	}
	if (qp->nb_sl != 0)
		sessionless_wipe(qp);
	scratch_reset(sc);
}

/*
 * One op whose chains need more segments than the scratch has: prepare and
 * run it alone with the device's long-chain area as its segment list.
 * The scratch is empty (qp_run() just ran). Returns what op_prepare() did:
 * PREP_OK once the op has run and has its status.
 */
static __rte_noinline int
op_run_long(struct vecsec_pmd_qp *qp, struct rte_crypto_op *op)
{
	struct vecsec_pmd_scratch *sc = &qp->scratch;
	struct vecsec_pmd_long *lc = qp->longc;
	int rc;

	if (lc == NULL)
		return PREP_BAD_ARGS;
	rte_spinlock_lock(&lc->lock);
	sc->segs = lc->segs;
	sc->max_segs = lc->nb_segs;
	rc = op_prepare(qp, op);
	if (rc == PREP_OK)
		qp_run(qp);
	else if (rc == PREP_FULL)
		rc = PREP_BAD_ARGS;   /* cannot happen: two chains always fit */
	sc->segs = sc->seg_store;
	sc->max_segs = VECSEC_PMD_MAX_SEGS;
	rte_spinlock_unlock(&lc->lock);
	return rc;
}

static inline void
op_reject(struct rte_crypto_op *op, int why)
{
	op->status = why == PREP_BAD_SESSION ? RTE_CRYPTO_OP_STATUS_INVALID_SESSION :
		RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
}

/*
 * Start loading the session lines op_prepare() and the engine read (the
 * cryptodev header, the key, the key's alg field 2 KiB further, the
 * session fields after the key) for every op of the burst at once: with
 * many sessions each is a cache miss, and these overlap instead of
 * queueing one behind the other. A run of one session costs one check.
 */
static inline void
session_prefetch(struct rte_crypto_op *const *ops, unsigned int n)
{
	const void *prev = NULL;

	for (unsigned int i = 0; i < n; i++) {
		const struct rte_cryptodev_sym_session *sess;
		const struct vecsec_pmd_session *s;

		if (ops[i]->sess_type == RTE_CRYPTO_OP_SECURITY_SESSION) {
			const void *ss = ops[i]->sym->session;
			const uint8_t *p;

			if (ss == prev || ss == NULL)
				continue;
			prev = ss;
			/* ESP session: the key, then line 1 (vecsec_pmd_private.h) */
			p = SECURITY_GET_SESS_PRIV(ss);
			rte_prefetch0(p);
			rte_prefetch0(p + RTE_CACHE_LINE_SIZE);
			continue;
		}
		if (ops[i]->sess_type != RTE_CRYPTO_OP_WITH_SESSION)
			continue;
		sess = ops[i]->sym->session;
		if (sess == prev || sess == NULL)
			continue;
		prev = sess;
		s = CRYPTODEV_GET_SYM_SESS_PRIV(sess);
		rte_prefetch0(sess);
		rte_prefetch0(s);             /* parameters and the key pointer */
		rte_prefetch0(s->key_line);   /* a (X)ChaCha20-Poly1305 key */
	}
}

/*
 * Process ops[0..n), n <= max_burst: every op ends with a final status.
 * Returns how many were refused before the engine (bad args or session).
 */
static inline unsigned int
qp_process(struct vecsec_pmd_qp *qp, struct rte_crypto_op **ops, unsigned int n)
{
	unsigned int bad = 0;

	session_prefetch(ops, n);

	for (unsigned int i = 0; i < n; i++) {
		int rc;

		qp->cur_ops = ops + i;
		qp->cur_left = n - i;
		rc = op_prepare(qp, ops[i]);

		if (unlikely(rc == PREP_FULL)) {
			qp_run(qp);
			rc = op_prepare(qp, ops[i]);
			if (rc == PREP_FULL)
				rc = op_run_long(qp, ops[i]);   /* beyond the scratch alone */
		}
		if (unlikely(rc != PREP_OK)) {
			if (rc != PREP_DONE)
				op_reject(ops[i], rc);
			bad++;
		}
	}
	qp->seq_sess = NULL;   /* numbers reserved and not used are skipped */
	qp_run(qp);
	return bad;
}

uint16_t
vecsec_pmd_enqueue_burst(void *queue_pair, struct rte_crypto_op **ops, uint16_t nb_ops)
{
	struct vecsec_pmd_qp *qp = queue_pair;
	unsigned int room, n, done, bad = 0;

	/* SP ring: only this thread enqueues, so the room can only grow */
	room = rte_ring_free_count(qp->ring);
	n = RTE_MIN((unsigned int)nb_ops, room);
	for (done = 0; done < n;) {
		unsigned int k = RTE_MIN(n - done, qp->max_burst);

		bad += qp_process(qp, ops + done, k);
		done += k;
	}
	if (n != 0)
		rte_ring_enqueue_burst(qp->ring, (void **)ops, n, NULL);
	/*
	 * Refused ops still complete (with their error status). A full ring
	 * is back-pressure, not an error: the return value tells it.
	 */
	qp->stats.enqueued_count += n;
	qp->stats.enqueue_err_count += bad;
	return (uint16_t)n;
}

uint16_t
vecsec_pmd_dequeue_burst(void *queue_pair, struct rte_crypto_op **ops, uint16_t nb_ops)
{
	struct vecsec_pmd_qp *qp = queue_pair;
	unsigned int n, bad = 0;

	n = rte_ring_dequeue_burst(qp->ring, (void **)ops, nb_ops, NULL);
	for (unsigned int i = 0; i < n; i++)
		bad += ops[i]->status != RTE_CRYPTO_OP_STATUS_SUCCESS;
	qp->stats.dequeued_count += n;
	qp->stats.dequeue_err_count += bad;
	return (uint16_t)n;
}

/* ---- synchronous CPU crypto ---- */

static inline int32_t
cpu_status(uint32_t job_status)
{
	switch (job_status) {
	case VECSEC_JOB_OK:
		return 0;
	case VECSEC_JOB_AUTH_FAILED:
		return EBADMSG;
	default:
		return EINVAL;
	}
}

static inline uint32_t
cpu_run(const struct vecsec_engine *engine, struct vecsec_pmd_scratch *sc,
	struct rte_crypto_sym_vec *vec)
{
	uint32_t ok = 0;

	if (sc->nb_jobs != 0)
		vecsec_engine_burst(engine, sc->ptrs, sc->nb_jobs);
	for (unsigned int i = 0; i < sc->nb_jobs; i++) {
		uint32_t idx = (uint32_t)(uintptr_t)sc->jobs[i].user;
		int32_t st = cpu_status(sc->jobs[i].status);

		vec->status[idx] = st;
		ok += st == 0;
	}
	scratch_reset(sc);
	return ok;
}

/* Total bytes of an SGL, or UINT64_MAX if malformed. */
static inline uint64_t
sgl_len(const struct rte_crypto_sgl *sgl)
{
	uint64_t t = 0;

	if (sgl == NULL || (sgl->num != 0 && sgl->vec == NULL))
		return UINT64_MAX;
	for (uint32_t i = 0; i < sgl->num; i++)
		t += sgl->vec[i].len;
	return t;
}

static inline int
cpu_prepare(struct vecsec_pmd_scratch *sc, const struct vecsec_pmd_session *s,
	    const struct rte_crypto_sym_vec *vec, uint32_t i, uint32_t head, uint32_t tail)
{
	const struct vecsec_seg *in_segs;
	uint32_t nb_in, segs_before = sc->nb_segs;
	uint8_t *in_lin;
	uint64_t total, len;
	int rc;

	total = sgl_len(&vec->src_sgl[i]);
	if (total == UINT64_MAX || total < (uint64_t)head + tail)
		return PREP_BAD_ARGS;
	len = total - head - tail;
	if (len > UINT32_MAX || vec->iv == NULL || vec->iv[i].va == NULL)
		return PREP_BAD_ARGS;
	if (!s->cipher_only && (vec->digest == NULL || vec->digest[i].va == NULL ||
				(s->aad_len != 0 && (vec->aad == NULL || vec->aad[i].va == NULL))))
		return PREP_BAD_ARGS;
	rc = sgl_span(sc, &vec->src_sgl[i], head, (uint32_t)len, &in_lin, &in_segs, &nb_in);
	if (rc != PREP_OK)
		goto fail;
	/*
	 * CPU crypto is in place only, as in every software PMD: vec->dest_sgl is
	 * never read, because DPDK 22.11's rte_ipsec (lib/ipsec/misc.h,
	 * cpu_crypto_bulk) leaves it uninitialised on the stack.
	 */
	job_push(sc, s, vec->iv[i].va, (uint32_t)len, in_lin, in_segs, nb_in, in_lin, in_segs,
		 nb_in, s->cipher_only || s->aad_len == 0 ? NULL : vec->aad[i].va,
		 s->cipher_only ? NULL : vec->digest[i].va, (void *)(uintptr_t)i);
	return PREP_OK;
fail:
	sc->nb_segs = segs_before;
	return rc;
}

/*
 * Element i alone, its SGL longer than the scratch holds: on the device's
 * long-chain area, under its lock (sc is empty). *rc: PREP_OK once it has
 * run; PREP_BAD_ARGS for an SGL of more than RTE_PMD_VECSEC_MAX_SGL_SEGS
 * vectors. Returns 1 if it succeeded.
 */
static __rte_noinline uint32_t
cpu_run_long(const struct vecsec_engine *engine, struct vecsec_pmd_long *lc,
	     struct vecsec_pmd_scratch *sc, const struct vecsec_pmd_session *s,
	     struct rte_crypto_sym_vec *vec, uint32_t i, uint32_t head, uint32_t tail, int *rc)
{
	uint32_t ok = 0;

	*rc = PREP_BAD_ARGS;
	if (lc == NULL)
		return 0;
	rte_spinlock_lock(&lc->lock);
	sc->segs = lc->segs;
	sc->max_segs = lc->nb_segs;
	*rc = cpu_prepare(sc, s, vec, i, head, tail);
	if (*rc == PREP_OK)
		ok = cpu_run(engine, sc, vec);
	else if (*rc == PREP_FULL)
		*rc = PREP_BAD_ARGS;
	sc->segs = sc->seg_store;
	sc->max_segs = VECSEC_PMD_MAX_SEGS;
	rte_spinlock_unlock(&lc->lock);
	return ok;
}

uint32_t
vecsec_pmd_cpu_process(struct rte_cryptodev *dev, struct rte_cryptodev_sym_session *sess,
		       union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec)
{
	const struct vecsec_pmd_private *priv = dev->data->dev_private;
	const struct vecsec_pmd_session *s;
	/* on the stack: CPU crypto may run on any thread at once (~50 KiB) */
	struct vecsec_pmd_scratch sc;
	uint32_t ok = 0, head, tail;

	if (vec == NULL || vec->status == NULL)
		return 0;
	s = sess != NULL ? CRYPTODEV_GET_SYM_SESS_PRIV(sess) : NULL;
	if (s == NULL || sess->driver_id != vecsec_pmd_driver_id || !s->configured ||
	    vec->src_sgl == NULL) {
		for (uint32_t i = 0; i < vec->num; i++)
			vec->status[i] = EINVAL;
		return 0;
	}
	/* AEAD: cipher and auth cover the same bytes; rte_ipsec sets cipher */
	head = ofs.ofs.cipher.head;
	tail = ofs.ofs.cipher.tail;
	scratch_init(&sc);
	for (uint32_t i = 0; i < vec->num; i++) {
		int rc;

		if (sc.nb_jobs == priv->max_burst)
			ok += cpu_run(&priv->engine, &sc, vec);
		rc = cpu_prepare(&sc, s, vec, i, head, tail);
		if (unlikely(rc == PREP_FULL)) {
			ok += cpu_run(&priv->engine, &sc, vec);
			rc = cpu_prepare(&sc, s, vec, i, head, tail);
			if (rc == PREP_FULL)
				ok += cpu_run_long(&priv->engine, priv->longc, &sc, s, vec, i,
						   head, tail, &rc);
		}
		if (unlikely(rc != PREP_OK))
			vec->status[i] = EINVAL;
	}
	ok += cpu_run(&priv->engine, &sc, vec);
	return ok;
}
