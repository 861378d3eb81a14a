/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generic AEAD layer (vecsec_aead.h): the per-algorithm ops table, key
 * objects, the one-shot API built on jobs, the checks every job passes
 * before an algorithm sees it, the scatter-gather cursor, the burst, and
 * the ESP helpers of RFC 7634 2 / RFC 4106 4-5 / RFC 3686 4.
 *
 * vecsec_aead_burst() hands (X)ChaCha20-Poly1305 jobs to lib/lanes (jobs
 * packed into SIMD lanes) and runs the others job by job; either way each
 * job ends exactly as vecsec_aead_seal()/vecsec_aead_open() would leave it.
 */
#include <errno.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "aead_internal.h"
#include "lanes/lanes_internal.h"

/*
 * Indexed by enum vecsec_aead_alg; NULL (or past the end): not built,
 * -ENOTSUP at key init.
 */
static const struct aead_ops *const aead_ops_table[] = {
	[VECSEC_AEAD_NONE] = NULL,
	[VECSEC_AEAD_CHACHA20_POLY1305] = &vecsec_aead_ops_chacha20_poly1305,
	[VECSEC_AEAD_XCHACHA20_POLY1305] = &vecsec_aead_ops_xchacha20_poly1305,
	[VECSEC_AEAD_ARIA_GCM] = &vecsec_aead_ops_aria_gcm,
	[VECSEC_AEAD_ARIA_CTR] = &vecsec_aead_ops_aria_ctr,
};

#define NB_ALGS (sizeof(aead_ops_table) / sizeof(aead_ops_table[0]))

static const struct aead_ops *
ops_of(uint32_t alg)
{
	if (alg >= NB_ALGS)
		return NULL;
	return aead_ops_table[alg];
}

VECSEC_API int
vecsec_aead_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg, const uint8_t *key,
		     size_t key_len)
{
	const struct aead_ops *ops;
	int rc;

	if (k == NULL || key == NULL)
		return -EINVAL;
	ops = ops_of((uint32_t)alg);
	if (ops == NULL)
		return -ENOTSUP;
	vecsec_memzero(k, sizeof(*k));
	k->alg = (uint32_t)alg;
	k->key_len = (uint32_t)key_len;
	rc = ops->key_init(k, key, key_len);
	if (rc != 0)
		vecsec_memzero(k, sizeof(*k));
	return rc;
}

VECSEC_API int
vecsec_esp_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg, const uint8_t *keymat,
		    size_t keymat_len)
{
	int rc;

	if (k == NULL || keymat == NULL)
		return -EINVAL;
	/* RFC 7634 3, RFC 4106 8.1, RFC 3686 5.1: key || 4-byte salt */
	if (alg != VECSEC_AEAD_CHACHA20_POLY1305 && alg != VECSEC_AEAD_ARIA_GCM &&
	    alg != VECSEC_AEAD_ARIA_CTR)
		return -ENOTSUP;
	if (ops_of((uint32_t)alg) == NULL)
		return -ENOTSUP;
	if (keymat_len <= VECSEC_ESP_SALT_LEN)
		return -EINVAL;
	rc = vecsec_aead_key_init(k, alg, keymat, keymat_len - VECSEC_ESP_SALT_LEN);
	if (rc != 0)
		return rc;
	memcpy(k->salt, keymat + keymat_len - VECSEC_ESP_SALT_LEN, VECSEC_ESP_SALT_LEN);
	return 0;
}

VECSEC_API void
vecsec_aead_key_wipe(struct vecsec_aead_key *k)
{
	if (k != NULL)
		vecsec_memzero(k, sizeof(*k));
}

/* Segments must cover len bytes; a segment that gives bytes needs data. */
static bool
segs_ok(const struct vecsec_seg *segs, uint32_t nb, size_t len)
{
	size_t sum = 0;

	if (segs == NULL)
		return false;
	for (uint32_t i = 0; i < nb && sum < len; i++) {
		if (segs[i].len > 0 && segs[i].data == NULL)
			return false;
		if (segs[i].len > SIZE_MAX - sum)
			return true;            /* covers anything */
		sum += segs[i].len;
	}
	return sum >= len;
}

/* The generic checks (aead_internal.h): pointers, lengths, coverage. */
static int
job_check(const struct vecsec_aead_job *job, const struct aead_ops **ops)
{
	if (job->key == NULL)
		return -EINVAL;
	*ops = ops_of(job->key->alg);
	if (*ops == NULL)
		return -EINVAL;
	if (job->dir != VECSEC_AEAD_SEAL && job->dir != VECSEC_AEAD_OPEN)
		return -EINVAL;
	if (job->nonce == NULL)
		return -EINVAL;
	if (job->aad_len > VECSEC_AEAD_MAX_AAD_LEN || (job->aad == NULL && job->aad_len > 0))
		return -EINVAL;
	if (job->tag == NULL && job->tag_len > 0)
		return -EINVAL;
	if (job->nb_in_segs == 0) {
		if (job->in == NULL && job->len > 0)
			return -EINVAL;
	} else if (!segs_ok(job->in_segs, job->nb_in_segs, job->len)) {
		return -EINVAL;
	}
	if (job->nb_out_segs == 0) {
		if (job->out == NULL && job->len > 0)
			return -EINVAL;
	} else if (!segs_ok(job->out_segs, job->nb_out_segs, job->len)) {
		return -EINVAL;
	}
	return 0;
}

/* The one-shot API: one linear job, run at once. */
static int
job_run(const struct vecsec_aead_key *k, enum vecsec_aead_dir dir, uint8_t *out,
	const uint8_t *in, size_t len, uint8_t *tag, size_t tag_len, const uint8_t *nonce,
	size_t nonce_len, const uint8_t *aad, size_t aad_len)
{
	struct vecsec_aead_job job = {
		.key = k,
		.dir = dir,
		.nonce = nonce,
		.nonce_len = nonce_len,
		.aad = aad,
		.aad_len = aad_len,
		.len = len,
		.in = in,
		.out = out,
		.tag = tag,
		.tag_len = tag_len,
	};
	const struct aead_ops *ops = NULL;
	int rc = job_check(&job, &ops);

	if (rc != 0)
		return rc;
	return ops->run(&job);
}

VECSEC_API int
vecsec_aead_seal(const struct vecsec_aead_key *k, uint8_t *out, uint8_t *tag, size_t tag_len,
		 const uint8_t *in, size_t len, const uint8_t *nonce, size_t nonce_len,
		 const uint8_t *aad, size_t aad_len)
{
	return job_run(k, VECSEC_AEAD_SEAL, out, in, len, tag, tag_len, nonce, nonce_len, aad,
		       aad_len);
}

VECSEC_API int
vecsec_aead_open(const struct vecsec_aead_key *k, uint8_t *out, const uint8_t *in, size_t len,
		 const uint8_t *tag, size_t tag_len, const uint8_t *nonce, size_t nonce_len,
		 const uint8_t *aad, size_t aad_len)
{
	/* open only reads the tag */
	return job_run(k, VECSEC_AEAD_OPEN, out, in, len, (uint8_t *)(uintptr_t)tag, tag_len,
		       nonce, nonce_len, aad, aad_len);
}

/*
 * Jobs the lanes engine takes (lib/lanes: (X)ChaCha20-Poly1305 up to its
 * crossover length) run there together after the loop, short ARIA jobs
 * likewise grouped by key (aead_aria.c: one keystream call per group);
 * the others one by one here.
 */
VECSEC_API unsigned int
vecsec_aead_burst(struct vecsec_aead_job *const *jobs, unsigned int n)
{
	struct vecsec_aead_job *lane_jobs[VECSEC_MAX_BURST], *aria_jobs[VECSEC_MAX_BURST];
	unsigned int nl = 0, na = 0;

	if (jobs == NULL || n > VECSEC_MAX_BURST)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct vecsec_aead_job *job = jobs[i];
		const struct aead_ops *ops = NULL;
		int rc;

		if (job == NULL)
			continue;
		rc = job_check(job, &ops);
		if (rc == 0 && vecsec_lanes_accepts(job)) {
			lane_jobs[nl++] = job;
			continue;
		}
		if (rc == 0 && vecsec_aead_aria_batchable(job)) {
			aria_jobs[na++] = job;
			continue;
		}
		if (rc == 0)
			rc = ops->run(job);
		job->status = rc == 0 ? VECSEC_JOB_OK :
			      rc == -EBADMSG ? VECSEC_JOB_AUTH_FAILED : VECSEC_JOB_INVALID;
	}
	vecsec_lanes_run(lane_jobs, nl);
	vecsec_aead_aria_burst(aria_jobs, na);
	return n;
}

/* ---- segment cursor ---- */

void
vecsec_aead_cursor_in(struct aead_cursor *c, const struct vecsec_aead_job *job)
{
	c->segs = job->nb_in_segs > 0 ? job->in_segs : NULL;
	c->nb_segs = job->nb_in_segs;
	c->seg = 0;
	c->off = 0;
	c->lin = (uint8_t *)(uintptr_t)job->in;   /* read only through this cursor */
	c->left = job->len;
}

void
vecsec_aead_cursor_out(struct aead_cursor *c, const struct vecsec_aead_job *job)
{
	c->segs = job->nb_out_segs > 0 ? job->out_segs : NULL;
	c->nb_segs = job->nb_out_segs;
	c->seg = 0;
	c->off = 0;
	c->lin = job->out;
	c->left = job->len;
}

uint8_t *
vecsec_aead_cursor_next(struct aead_cursor *c, size_t max, size_t *n)
{
	uint8_t *p;
	size_t k;

	if (c->left == 0) {
		*n = 0;
		return NULL;
	}
	if (c->segs == NULL) {
		p = c->lin + c->off;
		k = c->left;
	} else {
		/* skip used-up and empty segments; job_check made sure they cover left */
		while (c->seg < c->nb_segs && c->off == c->segs[c->seg].len) {
			c->seg++;
			c->off = 0;
		}
		if (c->seg == c->nb_segs) {
			*n = 0;
			return NULL;
		}
		p = c->segs[c->seg].data + c->off;
		k = c->segs[c->seg].len - c->off;
		if (k > c->left)
			k = c->left;
	}
	if (max != 0 && k > max)
		k = max;
	c->off += k;
	c->left -= k;
	*n = k;
	return p;
}

void
vecsec_aead_wipe_out(const struct vecsec_aead_job *job)
{
	struct aead_cursor c;
	uint8_t *p;
	size_t n;

	vecsec_aead_cursor_out(&c, job);
	while ((p = vecsec_aead_cursor_next(&c, 0, &n)) != NULL)
		vecsec_memzero(p, n);
}

/* ---- ESP helpers ---- */

static void
be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

VECSEC_API void
vecsec_esp_nonce(uint8_t nonce[12], const struct vecsec_aead_key *k,
		 const uint8_t iv[VECSEC_ESP_IV_LEN])
{
	if (nonce == NULL || k == NULL || iv == NULL)
		return;
	/* RFC 7634 2: salt (4) || IV (8) */
	memcpy(nonce, k->salt, VECSEC_ESP_SALT_LEN);
	memcpy(nonce + VECSEC_ESP_SALT_LEN, iv, VECSEC_ESP_IV_LEN);
}

VECSEC_API void
vecsec_esp_ctr_block(uint8_t block[16], const struct vecsec_aead_key *k,
		     const uint8_t iv[VECSEC_ESP_IV_LEN])
{
	if (block == NULL || k == NULL || iv == NULL)
		return;
	/* RFC 3686 4: nonce (4) || IV (8) || block counter 1 (big-endian) */
	memcpy(block, k->salt, VECSEC_ESP_SALT_LEN);
	memcpy(block + VECSEC_ESP_SALT_LEN, iv, VECSEC_ESP_IV_LEN);
	be32(block + 12, 1);
}

VECSEC_API size_t
vecsec_esp_aad(uint8_t aad[12], uint32_t spi, uint64_t seq, bool esn)
{
	if (aad == NULL)
		return esn ? 12 : 8;
	/* RFC 7634 2.1, RFC 4106 5: SPI || [seq-hi ||] seq-lo, big-endian */
	be32(aad, spi);
	if (!esn) {
		be32(aad + 4, (uint32_t)seq);
		return 8;
	}
	be32(aad + 4, (uint32_t)(seq >> 32));
	be32(aad + 8, (uint32_t)seq);
	return 12;
}

VECSEC_API const char *
vecsec_aead_alg_name(enum vecsec_aead_alg alg)
{
	switch (alg) {
	case VECSEC_AEAD_CHACHA20_POLY1305:
		return "chacha20-poly1305";
	case VECSEC_AEAD_XCHACHA20_POLY1305:
		return "xchacha20-poly1305";
	case VECSEC_AEAD_ARIA_GCM:
		return "aria-gcm";
	case VECSEC_AEAD_ARIA_CTR:
		return "aria-ctr";
	default:
		return "unknown";
	}
}
