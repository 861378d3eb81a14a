/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AEAD ops for ARIA-GCM (SP 800-38D; RFC 4106 layout in ESP) and ARIA-CTR
 * (RFC 3686 layout: the nonce is the 16-byte counter block whose 32-bit
 * big-endian counter must not wrap; no tag). Jobs are walked through the
 * segment cursors, so linear buffers and scatter-gather lists take the
 * same path. Open hashes the whole ciphertext and checks the tag before it
 * writes any plaintext.
 */
#include <errno.h>
#include <string.h>

#include "aead_internal.h"
#include "aria/aria_internal.h"

_Static_assert(sizeof(struct aria_gcm_key) <= sizeof(((struct vecsec_aead_key *)0)->opaque),
	       "ARIA-GCM key does not fit struct vecsec_aead_key");

static inline const struct aria_gcm_key *
gcm_key_of(const struct vecsec_aead_key *k)
{
	return (const struct aria_gcm_key *)(const void *)k->opaque;
}

static int
aria_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len)
{
	if (key_len != 16 && key_len != 24 && key_len != 32)
		return -EINVAL;
	/* Both algorithms keep a GCM key (CTR just never reads H). */
	vecsec_aria_gcm_key_setup((struct aria_gcm_key *)(void *)k->opaque, key, key_len);
	return 0;
}

/*
 * Pairs the runs of the input and output cursors: each step gives the
 * longest piece that is contiguous in both.
 */
struct pair_walk {
	struct aead_cursor in, out;
	const uint8_t *pi;
	uint8_t *po;
	size_t ni, no;
};

static void
pair_start(struct pair_walk *w, const struct vecsec_aead_job *job)
{
	vecsec_aead_cursor_in(&w->in, job);
	vecsec_aead_cursor_out(&w->out, job);
	w->pi = NULL;
	w->po = NULL;
	w->ni = 0;
	w->no = 0;
}

static size_t
pair_next(struct pair_walk *w, const uint8_t **in, uint8_t **out)
{
	size_t n;

	if (w->ni == 0)
		w->pi = vecsec_aead_cursor_next(&w->in, 0, &w->ni);
	if (w->no == 0)
		w->po = vecsec_aead_cursor_next(&w->out, 0, &w->no);
	n = w->ni < w->no ? w->ni : w->no;
	if (n == 0)
		return 0;
	*in = w->pi;
	*out = w->po;
	w->pi += n;
	w->ni -= n;
	w->po += n;
	w->no -= n;
	return n;
}

static int
gcm_run(const struct vecsec_aead_job *job)
{
	struct aria_gcm g;
	struct pair_walk w;
	const uint8_t *in;
	uint8_t *out, tag[16];
	size_t n;
	int rc = 0;

	if (job->nonce_len == 0 || job->tag_len < 4 || job->tag_len > 16 ||
	    (uint64_t)job->len > VECSEC_ARIA_GCM_MAX_LEN)
		return -EINVAL;
	vecsec_aria_gcm_start(&g, gcm_key_of(job->key), job->nonce, job->nonce_len);
	vecsec_aria_gcm_hash(&g, job->aad, job->aad_len);
	vecsec_aria_gcm_hash_pad(&g);
	if (job->dir == VECSEC_AEAD_SEAL) {
		pair_start(&w, job);
		while ((n = pair_next(&w, &in, &out)) != 0) {
			vecsec_aria_gcm_ctr(&g, out, in, n);
			vecsec_aria_gcm_hash(&g, out, n);
		}
		vecsec_aria_gcm_tag(&g, tag);
		memcpy(job->tag, tag, job->tag_len);
	} else {
		struct aead_cursor c;
		const uint8_t *p;

		/* SP 800-38D 7.2: the tag over all the ciphertext first */
		vecsec_aead_cursor_in(&c, job);
		while ((p = vecsec_aead_cursor_next(&c, 0, &n)) != NULL)
			vecsec_aria_gcm_hash(&g, p, n);
		vecsec_aria_gcm_tag(&g, tag);
		if (!vecsec_ct_eq(tag, job->tag, job->tag_len)) {
			vecsec_aead_wipe_out(job);
			rc = -EBADMSG;
		} else {
			pair_start(&w, job);
			while ((n = pair_next(&w, &in, &out)) != 0)
				vecsec_aria_gcm_ctr(&g, out, in, n);
		}
	}
	vecsec_memzero(tag, sizeof(tag));
	vecsec_memzero(&g, sizeof(g));
	return rc;
}

static int
ctr_run(const struct vecsec_aead_job *job)
{
	const struct aria_key *k = &gcm_key_of(job->key)->aria;
	struct pair_walk w;
	const uint8_t *in;
	uint8_t *out, ctr[16], ks[16];
	uint32_t ks_left = 0;
	size_t n;

	/* RFC 3686 4 layout: the whole counter block; the counter must not wrap */
	if (job->nonce_len != VECSEC_ARIA_CTR_NONCE_LEN || job->tag_len != 0 ||
	    !vecsec_aria_ctr32_fits(job->nonce, job->len))
		return -EINVAL;
	memcpy(ctr, job->nonce, 16);
	pair_start(&w, job);
	while ((n = pair_next(&w, &in, &out)) != 0)
		vecsec_aria_ctr32_stream(k, ctr, ks, &ks_left, out, in, n);
	vecsec_memzero(ks, sizeof(ks));
	return 0;
}

const struct aead_ops vecsec_aead_ops_aria_gcm = {
	.alg = VECSEC_AEAD_ARIA_GCM,
	.name = "aria-gcm",
	.key_init = aria_key_init,
	.run = gcm_run,
};

const struct aead_ops vecsec_aead_ops_aria_ctr = {
	.alg = VECSEC_AEAD_ARIA_CTR,
	.name = "aria-ctr",
	.key_init = aria_key_init,
	.run = ctr_run,
};
