/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec data path helpers shared by the symmetric path
 * (vecsec_pmd_dp.c) and the rte_security ESP path (vecsec_pmd_sec_dp.c):
 * mbuf ranges as lanes-engine inputs, and queuing a job. Never installed.
 */
#ifndef VECSEC_PMD_DP_H
#define VECSEC_PMD_DP_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "vecsec/vecsec_aead.h"

#include "vecsec_pmd_private.h"

/* What preparing one op or vector element can end in, besides success. */
#define PREP_OK 0
#define PREP_FULL 1      /* scratch segments used up: run the jobs, retry */
#define PREP_BAD_ARGS 2
#define PREP_BAD_SESSION 3
#define PREP_DONE 4      /* ESP path: op finished before the engine, status set */

static inline void
scratch_reset(struct vecsec_pmd_scratch *sc)
{
	sc->nb_jobs = 0;
	sc->nb_segs = 0;
}

/* A scratch with its own segments (a new queue pair, CPU crypto's stack copy). */
static inline void
scratch_init(struct vecsec_pmd_scratch *sc)
{
	sc->segs = sc->seg_store;
	sc->max_segs = VECSEC_PMD_MAX_SEGS;
	scratch_reset(sc);
}

/*
 * Describe bytes [off, off + len) of an mbuf chain: one linear run if a
 * single segment holds them, else a list in the scratch starting at the
 * data offset. A chain that ends before off + len is PREP_BAD_ARGS.
 */
static inline int
mbuf_span(struct vecsec_pmd_scratch *sc, struct rte_mbuf *m, uint32_t off, uint32_t len,
	  uint8_t **lin, const struct vecsec_seg **segs, uint32_t *nb)
{
	struct vecsec_seg *first;
	uint32_t n = 0;

	while (m != NULL && off >= m->data_len && m->next != NULL) {
		off -= m->data_len;
		m = m->next;
	}
	if (m == NULL || off > m->data_len)
		return PREP_BAD_ARGS;
	if (len <= (uint32_t)m->data_len - off) {
		*lin = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
		*segs = NULL;
		*nb = 0;
		return PREP_OK;
	}
	first = &sc->segs[sc->nb_segs];
	for (; m != NULL && len > 0; m = m->next, off = 0) {
		uint32_t take = RTE_MIN((uint32_t)m->data_len - off, len);

		if (take == 0)
			continue;
		if (sc->nb_segs + n == sc->max_segs)
			return PREP_FULL;
		first[n].data = rte_pktmbuf_mtod_offset(m, uint8_t *, off);
		first[n].len = take;
		n++;
		len -= take;
	}
	if (len != 0)
		return PREP_BAD_ARGS;   /* the chain is shorter than off + len */
	sc->nb_segs += n;
	*lin = NULL;
	*segs = first;
	*nb = n;
	return PREP_OK;
}

/*
 * Fill the next job of the scratch from a session and its buffers (in and
 * out may be the same linear run or segment list, as libvecsec allows)
 * and queue it. aad and tag are not read for cipher-only sessions.
 */
static inline void
job_push(struct vecsec_pmd_scratch *sc, const struct vecsec_pmd_session *s,
	 const uint8_t *nonce, uint32_t len, uint8_t *in_lin, const struct vecsec_seg *in_segs,
	 uint32_t nb_in, uint8_t *out_lin, const struct vecsec_seg *out_segs, uint32_t nb_out,
	 const uint8_t *aad, uint8_t *tag, void *user)
{
	struct vecsec_aead_job *job = &sc->jobs[sc->nb_jobs];

	job->key = s->key;
	job->dir = s->dir;
	job->status = VECSEC_JOB_PENDING;
	job->nonce = nonce;
	job->nonce_len = s->iv_len;
	job->len = len;
	job->in = in_lin;
	job->in_segs = in_segs;
	job->nb_in_segs = nb_in;
	job->out = out_lin;
	job->out_segs = out_segs;
	job->nb_out_segs = nb_out;
	if (s->cipher_only) {
		job->aad = NULL;
		job->aad_len = 0;
		job->tag = NULL;
		job->tag_len = 0;
	} else {
		job->aad = aad;
		job->aad_len = s->aad_len;
		job->tag = tag;
		job->tag_len = s->digest_len;
	}
	job->user = user;
	sc->ptrs[sc->nb_jobs] = job;
	sc->nb_jobs++;
}

#endif /* VECSEC_PMD_DP_H */
