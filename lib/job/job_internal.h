/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Jobs (struct vecsec_aead_job), the bottom of the AEAD path (never
 * installed): the checks every job passes before an algorithm sees it, the
 * walk over its source and destination (linear or scatter-gather, the same
 * code for every algorithm), the wipe of its output after a failed open,
 * and the mapping of a result to the job's status. Nothing here knows an
 * algorithm.
 */
#ifndef VECSEC_JOB_INTERNAL_H
#define VECSEC_JOB_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vecsec/vecsec_aead.h"
#include "cpu_internal.h"

/* A segment list covers len bytes, and each segment that gives bytes has data. */
bool vecsec_job_segs_ok(const struct vecsec_seg *segs, uint32_t nb, size_t len);

/* A source or destination: a linear buffer (nb 0) or a segment list covering len. */
static inline bool
vecsec_job_side_ok(const uint8_t *lin, const struct vecsec_seg *segs, uint32_t nb, size_t len)
{
	if (nb == 0)
		return lin != NULL || len == 0;
	return vecsec_job_segs_ok(segs, nb, len);
}

/*
 * The generic checks: a key, a direction, a nonce, AAD within
 * VECSEC_AEAD_MAX_AAD_LEN, a tag pointer when tag_len > 0, and sources and
 * destinations that cover len bytes (a segment that gives bytes has data).
 * What is algorithm-specific (nonce_len, tag_len, key->alg) is the
 * algorithm's to check. Returns 0 or -EINVAL. Inline: a burst checks every
 * job, and a call per job was a tenth of a 64-byte burst's time outside
 * its kernel.
 */
static inline int
vecsec_job_check(const struct vecsec_aead_job *job)
{
	if (job->key == NULL)
		return -EINVAL;
	if (job->dir != VECSEC_AEAD_SEAL && job->dir != VECSEC_AEAD_OPEN)
		return -EINVAL;
	if (job->nonce == NULL)
		return -EINVAL;
	if (job->aad_len > VECSEC_AEAD_MAX_AAD_LEN || (job->aad == NULL && job->aad_len > 0))
		return -EINVAL;
	if (job->tag == NULL && job->tag_len > 0)
		return -EINVAL;
	if (!vecsec_job_side_ok(job->in, job->in_segs, job->nb_in_segs, job->len) ||
	    !vecsec_job_side_ok(job->out, job->out_segs, job->nb_out_segs, job->len))
		return -EINVAL;
	return 0;
}

/* The status a job gets from a result: 0, -EBADMSG, anything else. */
static inline uint32_t
vecsec_job_status(int rc)
{
	return rc == 0 ? VECSEC_JOB_OK :
	       rc == -EBADMSG ? VECSEC_JOB_AUTH_FAILED : VECSEC_JOB_INVALID;
}

/*
 * Walks a job's source or destination as a sequence of contiguous runs,
 * whether linear or a segment list. Empty segments are skipped.
 */
struct job_cursor {
	const struct vecsec_seg *segs; /* NULL: linear */
	uint32_t nb_segs;
	uint32_t seg;                  /* current segment */
	size_t off;                    /* offset in it (or in the linear buffer) */
	uint8_t *lin;                  /* linear buffer */
	size_t left;                   /* bytes still to walk */
};

void vecsec_job_cursor_in(struct job_cursor *c, const struct vecsec_aead_job *job);
void vecsec_job_cursor_out(struct job_cursor *c, const struct vecsec_aead_job *job);
/*
 * Next contiguous run of at most max bytes (0 = no limit): returns its
 * pointer and stores its length in *n (0 at the end).
 */
uint8_t *vecsec_job_cursor_next(struct job_cursor *c, size_t max, size_t *n);

/*
 * Source and destination walked together: each step gives the longest
 * piece that is contiguous in both (in place or not, any segmentation).
 */
struct job_pair {
	struct job_cursor in, out;
	const uint8_t *pi;
	uint8_t *po;
	size_t ni, no;
};

void vecsec_job_pair_start(struct job_pair *w, const struct vecsec_aead_job *job);
/* Next piece: returns its length (0 at the end), its source and destination. */
size_t vecsec_job_pair_next(struct job_pair *w, const uint8_t **in, uint8_t **out);

/* Zero a job's whole output (after a failed open): linear or segments. */
void vecsec_job_wipe_out(const struct vecsec_aead_job *job);

/* A linear job: no segment list on either side. */
static inline bool
vecsec_job_linear(const struct vecsec_aead_job *job)
{
	return job->nb_in_segs == 0 && job->nb_out_segs == 0;
}

#endif /* VECSEC_JOB_INTERNAL_H */
