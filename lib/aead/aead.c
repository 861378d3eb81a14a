/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AEAD router (vecsec_aead.h): the per-algorithm ops table, key
 * objects, the one-shot API built on jobs and the burst. It knows no
 * algorithm: each ops entry points into the layer that implements one.
 * (The ESP layouts on top of it are lib/esp's.)
 *
 * vecsec_aead_burst() checks every job (lib/job), then hands the jobs of
 * each burst function over in one call ((X)ChaCha20-Poly1305 to
 * lib/chachapoly's lanes, ARIA to lib/aria's keystream batches) and runs
 * the others job by job; either way each job ends exactly as
 * vecsec_aead_seal()/vecsec_aead_open() would leave it.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"
#include "aead_internal.h"
#include "job/job_internal.h"
#include "aria/aria_internal.h"
#include "chachapoly/chachapoly_internal.h"

static const struct aead_ops ops_chacha20_poly1305 = {
	.alg = VECSEC_AEAD_CHACHA20_POLY1305,
	.name = "chacha20-poly1305",
	.key_size = vecsec_chachapoly_key_size,
	.key_init = vecsec_chachapoly_key_init,
	.run = vecsec_chachapoly_run,
	.burst = vecsec_chachapoly_burst,
};

static const struct aead_ops ops_xchacha20_poly1305 = {
	.alg = VECSEC_AEAD_XCHACHA20_POLY1305,
	.name = "xchacha20-poly1305",
	.key_size = vecsec_chachapoly_key_size,
	.key_init = vecsec_chachapoly_key_init,
	.run = vecsec_xchachapoly_run,
	.burst = vecsec_chachapoly_burst,
};

static const struct aead_ops ops_aria_gcm = {
	.alg = VECSEC_AEAD_ARIA_GCM,
	.name = "aria-gcm",
	.key_size = vecsec_aria_gcm_key_size,
	.key_init = vecsec_aria_aead_key_init,
	.run = vecsec_aria_gcm_run,
	.burst = vecsec_aria_burst,
};

static const struct aead_ops ops_aria_ctr = {
	.alg = VECSEC_AEAD_ARIA_CTR,
	.name = "aria-ctr",
	.key_size = vecsec_aria_ctr_key_size,
	.key_init = vecsec_aria_aead_key_init,
	.run = vecsec_aria_ctr_run,
	.burst = vecsec_aria_burst,
};

/*
 * Indexed by enum vecsec_aead_alg; NULL (or past the end): not built,
 * -ENOTSUP at key init.
 */
static const struct aead_ops *const aead_ops_table[] = {
	[VECSEC_AEAD_NONE] = NULL,
	[VECSEC_AEAD_CHACHA20_POLY1305] = &ops_chacha20_poly1305,
	[VECSEC_AEAD_XCHACHA20_POLY1305] = &ops_xchacha20_poly1305,
	[VECSEC_AEAD_ARIA_GCM] = &ops_aria_gcm,
	[VECSEC_AEAD_ARIA_CTR] = &ops_aria_ctr,
};

#define NB_ALGS (sizeof(aead_ops_table) / sizeof(aead_ops_table[0]))

static const struct aead_ops *
ops_of(uint32_t alg)
{
	if (alg >= NB_ALGS)
		return NULL;
	return aead_ops_table[alg];
}

/* The header's line: the least any key object has. */
#define KEY_HEAD_LEN 64

_Static_assert(offsetof(struct vecsec_aead_key, small) + sizeof(((struct vecsec_aead_key *)0)->small) ==
		       KEY_HEAD_LEN,
	       "the small schedule ends the header's line");
_Static_assert(offsetof(struct vecsec_aead_key, opaque) == KEY_HEAD_LEN,
	       "large schedules start at byte 64");

VECSEC_API size_t
vecsec_aead_key_size(enum vecsec_aead_alg alg, size_t key_len)
{
	const struct aead_ops *ops = ops_of((uint32_t)alg);
	size_t n;

	if (ops == NULL)
		return 0;
	n = ops->key_size(key_len);
	VECSEC_ASSERT(n == 0 || (n >= KEY_HEAD_LEN && n % 64 == 0 &&
				 n <= sizeof(struct vecsec_aead_key)));
	return n;
}

/*
 * Only the bytes the algorithm needs are written: the key object may be
 * an allocation of just vecsec_aead_key_size() bytes.
 */
VECSEC_API int
vecsec_aead_key_init(struct vecsec_aead_key *k, enum vecsec_aead_alg alg, const uint8_t *key,
		     size_t key_len)
{
	const struct aead_ops *ops;
	size_t n;
	int rc;

	if (k == NULL || key == NULL)
		return -EINVAL;
	ops = ops_of((uint32_t)alg);
	if (ops == NULL)
		return -ENOTSUP;
	n = ops->key_size(key_len);
	if (n == 0) {
		/* no algorithm left in it (any key object has the header's line) */
		vecsec_memzero(k, KEY_HEAD_LEN);
		return -EINVAL;
	}
	vecsec_memzero(k, n);
	k->alg = (uint32_t)alg;
	k->key_len = (uint32_t)key_len;
	rc = ops->key_init(k, key, key_len);
	if (rc != 0)
		vecsec_memzero(k, n);
	return rc;
}

VECSEC_API void
vecsec_aead_key_wipe(struct vecsec_aead_key *k)
{
	size_t n;

	if (k == NULL)
		return;
	/* sized by the header; one naming no key is the header's line alone */
	n = vecsec_aead_key_size((enum vecsec_aead_alg)k->alg, k->key_len);
	vecsec_memzero(k, n != 0 ? n : KEY_HEAD_LEN);
}

/* The generic checks (lib/job), then the algorithm's ops. */
static int
job_check(const struct vecsec_aead_job *job, const struct aead_ops **ops)
{
	if (job->key == NULL)
		return -EINVAL;
	*ops = ops_of(job->key->alg);
	if (*ops == NULL)
		return -EINVAL;
	return vecsec_job_check(job);
}

/* The one-shot API: one linear job, run at once. */
static int
job_run(enum vecsec_isa level, const struct vecsec_aead_key *k, enum vecsec_aead_dir dir,
	uint8_t *out,
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
	return ops->run(level, &job);
}

VECSEC_API int
vecsec_aead_seal(const struct vecsec_aead_key *k, uint8_t *out, uint8_t *tag, size_t tag_len,
		 const uint8_t *in, size_t len, const uint8_t *nonce, size_t nonce_len,
		 const uint8_t *aad, size_t aad_len)
{
	return job_run(vecsec_isa_cap(), k, VECSEC_AEAD_SEAL, out, in, len, tag, tag_len, nonce,
		       nonce_len, aad, aad_len);
}

VECSEC_API int
vecsec_aead_open(const struct vecsec_aead_key *k, uint8_t *out, const uint8_t *in, size_t len,
		 const uint8_t *tag, size_t tag_len, const uint8_t *nonce, size_t nonce_len,
		 const uint8_t *aad, size_t aad_len)
{
	/* open only reads the tag */
	return job_run(vecsec_isa_cap(), k, VECSEC_AEAD_OPEN, out, in, len,
		       (uint8_t *)(uintptr_t)tag, tag_len, nonce, nonce_len, aad, aad_len);
}

/*
 * Checked jobs go to their algorithm's burst function, all the jobs of one
 * function in one call (ChaCha20 and XChaCha20 share the lanes, GCM and
 * CTR the ARIA batches); an entry without one runs its jobs here.
 */
static unsigned int
burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	struct vecsec_aead_job *grp[NB_ALGS][VECSEC_MAX_BURST];
	void (*fn[NB_ALGS])(enum vecsec_isa, struct vecsec_aead_job *const *, unsigned int);
	unsigned int cnt[NB_ALGS], ng = 0, last = 0;

	if (jobs == NULL || n > VECSEC_MAX_BURST)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct vecsec_aead_job *job = jobs[i];
		const struct aead_ops *ops = NULL;
		unsigned int g = 0;
		int rc;

		if (job == NULL)
			continue;
		rc = job_check(job, &ops);
		if (rc != 0 || ops->burst == NULL) {
			job->status = vecsec_job_status(rc == 0 ? ops->run(level, job) : rc);
			continue;
		}
		/* the common case: the same function as the job before */
		if (ng == 0 || fn[last] != ops->burst) {
			while (g < ng && fn[g] != ops->burst)
				g++;
			if (g == ng) {
				fn[ng] = ops->burst;
				cnt[ng++] = 0;
			}
			last = g;
		}
		grp[last][cnt[last]++] = job;
	}
	for (unsigned int g = 0; g < ng; g++)
		fn[g](level, grp[g], cnt[g]);
	return n;
}

VECSEC_API unsigned int
vecsec_aead_burst(struct vecsec_aead_job *const *jobs, unsigned int n)
{
	return burst(vecsec_isa_cap(), jobs, n);
}

/* ---- the same at an engine's level (vecsec_engine.h) ---- */

VECSEC_API int
vecsec_engine_seal(const struct vecsec_engine *e, const struct vecsec_aead_key *k, uint8_t *out,
		   uint8_t *tag, size_t tag_len, const uint8_t *in, size_t len,
		   const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len)
{
	if (e == NULL)
		return -EINVAL;
	return job_run(vecsec_engine_isa(e), k, VECSEC_AEAD_SEAL, out, in, len, tag, tag_len,
		       nonce, nonce_len, aad, aad_len);
}

VECSEC_API int
vecsec_engine_open(const struct vecsec_engine *e, const struct vecsec_aead_key *k, uint8_t *out,
		   const uint8_t *in, size_t len, const uint8_t *tag, size_t tag_len,
		   const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len)
{
	if (e == NULL)
		return -EINVAL;
	/* open only reads the tag */
	return job_run(vecsec_engine_isa(e), k, VECSEC_AEAD_OPEN, out, in, len,
		       (uint8_t *)(uintptr_t)tag, tag_len, nonce, nonce_len, aad, aad_len);
}

VECSEC_API unsigned int
vecsec_engine_burst(const struct vecsec_engine *e, struct vecsec_aead_job *const *jobs,
		    unsigned int n)
{
	if (e == NULL)
		return 0;
	return burst(vecsec_engine_isa(e), jobs, n);
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
