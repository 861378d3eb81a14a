/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers (header-only) for NULL where vecsec_aead.h allows it: AAD
 * with aad_len 0, input and output with len 0. The other suites pass real
 * buffers even when they are empty; these jobs pass NULL for each empty
 * one. The shapes have one side empty (NULL) and the other of a length
 * that picks a path: ChaCha20-Poly1305's staged lanes (<= 512 bytes), its
 * direct or four-pass lanes and the one-by-one path past the crossover
 * (384, 1024 and 4096 by lane width; 1536 an older one);
 * ARIA-GCM's short GHASH (AAD + data <= 208 on AVX-512), its gathered hash
 * (<= 480), its batches (<= 2048) and one-by-one jobs. Seal must give the
 * oracle's bytes, open the plaintext back, and a forged tag must fail
 * alone with its output zeroed. Used by test_burst (every algorithm,
 * one-shot and bursts) and test_lanes (every lane width).
 */
#ifndef VT_NULL_H
#define VT_NULL_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"

struct vt_null_variant {
	enum vecsec_aead_alg alg;
	size_t nonce_len, tag_len;
};

static const struct vt_null_variant vt_null_variants[] = {
	{ VECSEC_AEAD_CHACHA20_POLY1305, VECSEC_CHACHAPOLY_NONCE_LEN, 16 },
	{ VECSEC_AEAD_XCHACHA20_POLY1305, VECSEC_XCHACHAPOLY_NONCE_LEN, 16 },
	{ VECSEC_AEAD_ARIA_GCM, 12, 16 },
	{ VECSEC_AEAD_ARIA_GCM, 8, 12 },        /* J0 from GHASH: another batch path */
	{ VECSEC_AEAD_ARIA_CTR, VECSEC_ARIA_CTR_NONCE_LEN, 0 },
};

static const struct {
	uint16_t aad_len, len;
} vt_null_shapes[] = {
	{ 0, 0 },
	/* AAD NULL */
	{ 0, 1 }, { 0, 15 }, { 0, 16 }, { 0, 17 }, { 0, 63 }, { 0, 64 }, { 0, 65 },
	{ 0, 200 }, { 0, 208 }, { 0, 209 }, { 0, 300 }, { 0, 385 }, { 0, 479 }, { 0, 480 },
	{ 0, 481 },
	{ 0, 512 }, { 0, 513 }, { 0, 1024 }, { 0, 1025 }, { 0, 1537 }, { 0, 2048 },
	{ 0, 2049 }, { 0, 4097 },
	/* input and output NULL */
	{ 1, 0 }, { 16, 0 }, { 64, 0 }, { 65, 0 }, { 208, 0 }, { 209, 0 }, { 480, 0 },
	{ 481, 0 }, { 1000, 0 },
};

#define VT_NULL_MAX 4097

/* Plaintext, AAD and a nonce that suits every variant (CTR: counter 1). */
static uint8_t vt_null_src[VT_NULL_MAX], vt_null_aad[VT_NULL_MAX], vt_null_nonce[24];

static inline void
vt_null_init(uint64_t seed)
{
	vt_rand(vt_null_src, sizeof(vt_null_src), seed + 1);
	vt_rand(vt_null_aad, sizeof(vt_null_aad), seed + 2);
	vt_rand(vt_null_nonce, sizeof(vt_null_nonce), seed + 3);
	memcpy(vt_null_nonce + 12, "\0\0\0\1", 4);
}

/* The oracle's seal of a shape, on real (non-NULL) buffers; tag bytes past tag_len 0xee. */
static inline void
vt_null_want(const struct vt_null_variant *v, const uint8_t *raw, size_t key_len,
	     size_t aad_len, size_t len, uint8_t *ct, uint8_t tag[16])
{
	memset(tag, 0xee, 16);
	vt_oracle_seal_ex(v->alg, ct, tag, v->tag_len, vt_null_src, len, raw, key_len,
			  vt_null_nonce, v->nonce_len, vt_null_aad, aad_len);
}

/* One job of a NULL burst and what it must give. */
struct vt_null_spec {
	const struct vt_null_variant *v;
	const struct vecsec_aead_key *key;
	size_t aad_len, len;
	bool sg, forge;
	const uint8_t *want_ct;         /* len bytes */
	const uint8_t *want_tag;        /* 16 bytes: v->tag_len, then 0xee */
};

/* Two empty segments, NULL data: a list a job of len 0 may give. */
static const struct vecsec_seg vt_null_segs[2] = { { NULL, 0 }, { NULL, 0 } };

/*
 * Run the jobs as one seal burst, then as one open burst (the expected
 * ciphertext as input, forged tags where asked), NULL for every empty
 * buffer; check each job. cfg names the configuration in failures.
 */
static inline void
vt_null_burst(const struct vt_null_spec *sp, unsigned int n, uint64_t seed, const char *cfg)
{
	struct vecsec_aead_job *job = calloc(n, sizeof(*job));
	struct vecsec_aead_job **jp = calloc(n, sizeof(*jp));
	struct vt_sg *sgin = calloc(n, sizeof(*sgin)), *sgout = calloc(n, sizeof(*sgout));
	uint8_t **out = calloc(n, sizeof(*out)), (*tag)[16] = calloc(n, sizeof(*tag));
	uint8_t *got = malloc(VT_NULL_MAX);
	uint64_t st = seed;

	if (job == NULL || jp == NULL || sgin == NULL || sgout == NULL || out == NULL ||
	    tag == NULL || got == NULL)
		abort();
	for (int dir = VECSEC_AEAD_SEAL; dir <= VECSEC_AEAD_OPEN; dir++) {
		for (unsigned int i = 0; i < n; i++) {
			const struct vt_null_spec *s = &sp[i];
			struct vecsec_aead_job *j = &job[i];
			const uint8_t *in = dir == VECSEC_AEAD_SEAL ? vt_null_src : s->want_ct;

			memset(j, 0, sizeof(*j));
			j->key = s->key;
			j->dir = (uint32_t)dir;
			j->status = VECSEC_JOB_PENDING;
			j->nonce = vt_null_nonce;
			j->nonce_len = s->v->nonce_len;
			j->aad = s->aad_len > 0 ? vt_null_aad : NULL;
			j->aad_len = s->aad_len;
			j->len = s->len;
			memset(tag[i], 0xee, 16);
			if (dir == VECSEC_AEAD_OPEN) {
				memcpy(tag[i], s->want_tag, s->v->tag_len);
				if (s->forge)
					tag[i][0] ^= 0x10;
			}
			j->tag = s->v->tag_len > 0 ? tag[i] : NULL;
			j->tag_len = s->v->tag_len;
			if (s->sg && s->len == 0) {
				j->in_segs = vt_null_segs;
				j->nb_in_segs = 2;
				j->out_segs = vt_null_segs;
				j->nb_out_segs = 2;
			} else if (s->sg) {
				vt_sg_make(&sgin[i], s->len, VT_SG_RANDOM, &st);
				vt_sg_make(&sgout[i], s->len, VT_SG_RANDOM, &st);
				vt_sg_scatter(&sgin[i], in);
				j->in_segs = sgin[i].segs;
				j->nb_in_segs = sgin[i].nb;
				j->out_segs = sgout[i].segs;
				j->nb_out_segs = sgout[i].nb;
			} else if (s->len > 0) {
				out[i] = malloc(s->len);
				if (out[i] == NULL)
					abort();
				memset(out[i], 0xa5, s->len);
				j->in = in;
				j->out = out[i];
			}
			jp[i] = j;
		}
		VT_EXPECT(vecsec_aead_burst(jp, n) == n, "%s: NULL burst of %u taken", cfg, n);
		for (unsigned int i = 0; i < n; i++) {
			const struct vt_null_spec *s = &sp[i];
			const char *an = vecsec_aead_alg_name(s->v->alg);
			bool forged = dir == VECSEC_AEAD_OPEN && s->forge;
			uint32_t want = forged ? VECSEC_JOB_AUTH_FAILED : VECSEC_JOB_OK;

			VT_EXPECT(job[i].status == want,
				  "%s: NULL burst of %u, job %u %s %s nonce %zu aad %zu len %zu "
				  "sg %d forged %d: status %u want %u", cfg, n, i, an,
				  dir == VECSEC_AEAD_SEAL ? "seal" : "open", s->v->nonce_len,
				  s->aad_len, s->len, s->sg, forged, job[i].status, want);
			if (s->sg && s->len > 0) {
				vt_sg_gather(&sgout[i], got);
				VT_EXPECT(vt_sg_guards_ok(&sgin[i]) && vt_sg_guards_ok(&sgout[i]),
					  "%s: NULL burst job %u: sg write outside", cfg, i);
			} else if (s->len > 0) {
				memcpy(got, out[i], s->len);
			}
			if (dir == VECSEC_AEAD_SEAL) {
				VT_EXPECT_MEM(got, s->want_ct, s->len,
					      "%s: NULL burst of %u, job %u %s seal aad %zu "
					      "len %zu sg %d", cfg, n, i, an, s->aad_len, s->len,
					      s->sg);
				VT_EXPECT_MEM(tag[i], s->want_tag, 16,
					      "%s: NULL burst of %u, job %u %s tag aad %zu "
					      "len %zu sg %d", cfg, n, i, an, s->aad_len, s->len,
					      s->sg);
			} else if (forged) {
				VT_EXPECT_ZERO(got, s->len, "%s: NULL burst job %u %s forged: "
					       "output not zeroed", cfg, i, an);
			} else {
				VT_EXPECT_MEM(got, vt_null_src, s->len,
					      "%s: NULL burst of %u, job %u %s open aad %zu "
					      "len %zu sg %d", cfg, n, i, an, s->aad_len, s->len,
					      s->sg);
			}
			free(out[i]);
			out[i] = NULL;
			if (s->sg && s->len > 0) {
				vt_sg_free(&sgin[i]);
				vt_sg_free(&sgout[i]);
			}
		}
	}
	free(job);
	free(jp);
	free(sgin);
	free(sgout);
	free(out);
	free(tag);
	free(got);
}

/*
 * The one-shot calls with NULL for the empty buffers: seal == the oracle,
 * open gives the plaintext, a forged tag -EBADMSG with the output zeroed.
 */
static inline void
vt_null_oneshot(const struct vt_null_variant *v, const struct vecsec_aead_key *k,
		size_t aad_len, size_t len, const uint8_t *want_ct, const uint8_t want_tag[16],
		const char *cfg)
{
	const uint8_t *aad = aad_len > 0 ? vt_null_aad : NULL;
	const uint8_t *ct = len > 0 ? want_ct : NULL;
	const char *an = vecsec_aead_alg_name(v->alg);
	uint8_t *buf = len > 0 ? malloc(len) : NULL, tag[16];
	uint8_t *tp = v->tag_len > 0 ? tag : NULL;

	if (len > 0 && buf == NULL)
		abort();
	memset(tag, 0xee, sizeof(tag));
	VT_EXPECT(vecsec_aead_seal(k, buf, tp, v->tag_len, len > 0 ? vt_null_src : NULL, len,
				   vt_null_nonce, v->nonce_len, aad, aad_len) == 0,
		  "%s: one-shot %s seal, NULL for empty: aad %zu len %zu", cfg, an, aad_len, len);
	VT_EXPECT_MEM(buf, want_ct, len, "%s: one-shot %s seal aad %zu len %zu", cfg, an,
		      aad_len, len);
	VT_EXPECT_MEM(tag, want_tag, 16, "%s: one-shot %s tag aad %zu len %zu", cfg, an,
		      aad_len, len);
	VT_EXPECT(vecsec_aead_open(k, buf, ct, len, tp, v->tag_len, vt_null_nonce, v->nonce_len,
				   aad, aad_len) == 0,
		  "%s: one-shot %s open, NULL for empty: aad %zu len %zu", cfg, an, aad_len, len);
	VT_EXPECT_MEM(buf, vt_null_src, len, "%s: one-shot %s open aad %zu len %zu", cfg, an,
		      aad_len, len);
	if (v->tag_len > 0) {
		tag[v->tag_len - 1] ^= 1;
		VT_EXPECT(vecsec_aead_open(k, buf, ct, len, tag, v->tag_len, vt_null_nonce,
					   v->nonce_len, aad, aad_len) == -EBADMSG,
			  "%s: one-shot %s forged open, NULL for empty: aad %zu len %zu", cfg, an,
			  aad_len, len);
		VT_EXPECT_ZERO(buf, len, "%s: one-shot %s forged open: output not zeroed", cfg,
			       an);
	}
	free(buf);
}

#endif /* VT_NULL_H */
