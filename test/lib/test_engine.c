/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Engines (vecsec_engine.h): a level bound to an object. At every ISA of
 * the loop: vecsec_engine_init() rejects what is no level; an engine runs
 * at the lower of its cap and the process's level, and making or using
 * engines never changes the process's level; for every level up to the
 * process's, seal, open and bursts through an engine of that level give
 * the oracle's bytes (OpenSSL / libsodium) for (X)ChaCha20-Poly1305,
 * ARIA-GCM and ARIA-CTR (when built), linear jobs of 0..2100 bytes, and
 * forged jobs fail with a zeroed output; two engines of different levels
 * used in turn do not disturb each other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "vt.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"

#define NJOBS 40
#define MAXLEN 2100

static const enum vecsec_aead_alg algs[] = {
	VECSEC_AEAD_CHACHA20_POLY1305,
	VECSEC_AEAD_XCHACHA20_POLY1305,
	VECSEC_AEAD_ARIA_GCM,
	VECSEC_AEAD_ARIA_CTR,
};

static enum vecsec_isa
lower(enum vecsec_isa a, enum vecsec_isa b)
{
	return a < b ? a : b;
}

static void
test_engine_api(void)
{
	enum vecsec_isa proc = vecsec_isa_cap();
	struct vecsec_engine e, *p;

	VT_EXPECT(vecsec_engine_init(NULL, VECSEC_ISA_SCALAR) == -EINVAL, "NULL engine");
	VT_EXPECT(vecsec_engine_init(&e, (enum vecsec_isa)7) == -EINVAL, "level 7");
	VT_EXPECT(vecsec_engine_init(&e, (enum vecsec_isa)-2) == -EINVAL, "level -2");
	errno = 0;
	VT_EXPECT(vecsec_engine_create((enum vecsec_isa)9) == NULL && errno == EINVAL,
		  "create level 9");
	VT_EXPECT(vecsec_engine_init(&e, VECSEC_ISA_DEFAULT) == 0, "default");
	VT_EXPECT(vecsec_engine_isa(&e) == proc, "default engine runs %s, process %s",
		  vecsec_isa_name(vecsec_engine_isa(&e)), vecsec_isa_name(proc));
	for (int l = VECSEC_ISA_SCALAR; l <= VECSEC_ISA_AVX512; l++) {
		p = vecsec_engine_create((enum vecsec_isa)l);
		VT_EXPECT(p != NULL, "create %d", l);
		if (p == NULL)
			continue;
		VT_EXPECT(vecsec_engine_isa(p) == lower((enum vecsec_isa)l, proc),
			  "cap %s runs %s under %s", vecsec_isa_name((enum vecsec_isa)l),
			  vecsec_isa_name(vecsec_engine_isa(p)), vecsec_isa_name(proc));
		vecsec_engine_free(p);
	}
	vecsec_engine_free(NULL);
	VT_EXPECT(vecsec_isa_cap() == proc, "process level changed to %s",
		  vecsec_isa_name(vecsec_isa_cap()));
	VT_EXPECT(vecsec_engine_isa(NULL) == VECSEC_ISA_SCALAR, "NULL engine's level");
	VT_EXPECT(vecsec_engine_burst(NULL, NULL, 0) == 0, "burst without engine");
}

struct ejob {
	struct vecsec_aead_job job;
	enum vecsec_aead_alg alg;
	uint8_t nonce[24], aad[40], tag[16], want_tag[16];
	uint8_t in[MAXLEN], out[MAXLEN], want[MAXLEN];
	size_t key_len, tag_len;
};

/* A random linear seal job of alg and its oracle's output. */
static void
ejob_make(struct ejob *j, const struct vecsec_aead_key *k, const uint8_t *raw,
	  enum vecsec_aead_alg alg, uint64_t *st)
{
	size_t len = vt_below(st, MAXLEN + 1), nonce_len, aad_len = vt_below(st, 41);

	memset(j, 0, sizeof(*j));
	j->alg = alg;
	vt_rand(j->nonce, sizeof(j->nonce), vt_next(st));
	vt_rand(j->aad, sizeof(j->aad), vt_next(st));
	vt_rand(j->in, len, vt_next(st));
	switch (alg) {
	case VECSEC_AEAD_ARIA_GCM:
		j->key_len = 16;
		j->tag_len = 16;
		nonce_len = 12;
		break;
	case VECSEC_AEAD_ARIA_CTR:
		j->key_len = 16;
		j->tag_len = 0;
		nonce_len = 16;
		aad_len = 0;
		j->nonce[12] = 0;       /* a 32-bit block counter far from its end */
		j->nonce[13] = 0;
		break;
	default:
		j->key_len = 32;
		j->tag_len = 16;
		nonce_len = vt_nonce_len(alg);
		break;
	}
	vt_oracle_seal_ex(alg, j->want, j->want_tag, j->tag_len, j->in, len, raw, j->key_len,
			  j->nonce, nonce_len, j->aad, aad_len);
	j->job = (struct vecsec_aead_job){
		.key = k, .dir = VECSEC_AEAD_SEAL, .nonce = j->nonce, .nonce_len = nonce_len,
		.aad = j->aad, .aad_len = aad_len, .len = len, .in = j->in, .out = j->out,
		.tag = j->tag, .tag_len = j->tag_len,
	};
}

/* Seal, open and a forgery through e, one job at a time. */
static void
one_shot(const struct vecsec_engine *e, struct ejob *j)
{
	const struct vecsec_aead_job *b = &j->job;
	uint8_t back[MAXLEN];
	int rc;

	rc = vecsec_engine_seal(e, b->key, j->out, j->tag, b->tag_len, b->in, b->len, b->nonce,
				b->nonce_len, b->aad, b->aad_len);
	VT_EXPECT(rc == 0, "%s engine %s seal len %zu: %d", vecsec_aead_alg_name(j->alg),
		  vecsec_isa_name(vecsec_engine_isa(e)), b->len, rc);
	VT_EXPECT_MEM(j->out, j->want, b->len, "%s engine %s seal len %zu",
		      vecsec_aead_alg_name(j->alg), vecsec_isa_name(vecsec_engine_isa(e)), b->len);
	VT_EXPECT_MEM(j->tag, j->want_tag, b->tag_len, "%s engine %s tag len %zu",
		      vecsec_aead_alg_name(j->alg), vecsec_isa_name(vecsec_engine_isa(e)), b->len);
	rc = vecsec_engine_open(e, b->key, back, j->out, b->len, j->tag, b->tag_len, b->nonce,
				b->nonce_len, b->aad, b->aad_len);
	VT_EXPECT(rc == 0, "open: %d", rc);
	VT_EXPECT_MEM(back, b->in, b->len, "%s engine %s open len %zu",
		      vecsec_aead_alg_name(j->alg), vecsec_isa_name(vecsec_engine_isa(e)), b->len);
	if (b->tag_len == 0)
		return;
	j->tag[0] ^= 1;
	memset(back, 0x5a, b->len);
	rc = vecsec_engine_open(e, b->key, back, j->out, b->len, j->tag, b->tag_len, b->nonce,
				b->nonce_len, b->aad, b->aad_len);
	VT_EXPECT(rc == -EBADMSG, "forged open: %d", rc);
	VT_EXPECT_ZERO(back, b->len, "forged open output");
	j->tag[0] ^= 1;
}

static void
test_engine_levels(void)
{
	enum vecsec_isa proc = vecsec_isa_cap();
	struct vecsec_aead_key *keys = malloc(VT_ARRAY_SIZE(algs) * sizeof(*keys));
	struct ejob *jobs = malloc(NJOBS * sizeof(*jobs));
	struct vecsec_aead_job *jp[NJOBS];
	uint8_t raw[VT_ARRAY_SIZE(algs)][32];
	bool on[VT_ARRAY_SIZE(algs)];
	uint64_t st = vt_seed() ^ 0xe9e;

	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
		size_t kl = algs[a] >= VECSEC_AEAD_ARIA_GCM ? 16 : 32;

		vt_rand(raw[a], sizeof(raw[a]), vt_next(&st));
		on[a] = vecsec_aead_key_init(&keys[a], algs[a], raw[a], kl) == 0;
	}
	for (int l = VECSEC_ISA_SCALAR; l <= (int)proc; l++) {
		struct vecsec_engine e;
		unsigned int n = 0;

		VT_EXPECT(vecsec_engine_init(&e, (enum vecsec_isa)l) == 0, "init");
		VT_EXPECT(vecsec_engine_isa(&e) == (enum vecsec_isa)l, "level %d", l);
		for (unsigned int i = 0; i < NJOBS; i++) {
			size_t a = vt_below(&st, VT_ARRAY_SIZE(algs));

			if (!on[a])
				a = vt_below(&st, 2);   /* ChaCha is always built */
			ejob_make(&jobs[n], &keys[a], raw[a], algs[a], &st);
			jp[n] = &jobs[n].job;
			n++;
		}
		for (unsigned int i = 0; i < n; i++)
			one_shot(&e, &jobs[i]);
		/* the same jobs as one burst */
		for (unsigned int i = 0; i < n; i++) {
			memset(jobs[i].out, 0, jobs[i].job.len);
			memset(jobs[i].tag, 0, sizeof(jobs[i].tag));
		}
		VT_EXPECT(vecsec_engine_burst(&e, jp, n) == n, "burst took all");
		for (unsigned int i = 0; i < n; i++) {
			const struct ejob *j = &jobs[i];

			VT_EXPECT(j->job.status == VECSEC_JOB_OK, "burst job %u status %u", i,
				  j->job.status);
			VT_EXPECT_MEM(j->out, j->want, j->job.len, "%s burst at %s len %zu",
				      vecsec_aead_alg_name(j->alg), vecsec_isa_name(vecsec_engine_isa(&e)),
				      j->job.len);
			VT_EXPECT_MEM(j->tag, j->want_tag, j->tag_len, "%s burst tag",
				      vecsec_aead_alg_name(j->alg));
		}
		VT_EXPECT(vecsec_isa_cap() == proc, "process level changed");
	}
	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++)
		vecsec_aead_key_wipe(&keys[a]);
	free(keys);
	free(jobs);
}

/* Two engines of different levels in turn: each keeps its level and its results. */
static void
test_engine_pair(void)
{
	struct vecsec_engine lo, hi;
	struct vecsec_aead_key k;
	struct ejob *j = malloc(sizeof(*j));
	uint8_t raw[32];
	uint64_t st = vt_seed() ^ 0x9a1;

	vt_rand(raw, sizeof(raw), 77);
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, raw, 32) == 0, "key");
	VT_EXPECT(vecsec_engine_init(&lo, VECSEC_ISA_SCALAR) == 0, "lo");
	VT_EXPECT(vecsec_engine_init(&hi, VECSEC_ISA_DEFAULT) == 0, "hi");
	for (int r = 0; r < 8; r++) {
		ejob_make(j, &k, raw, VECSEC_AEAD_CHACHA20_POLY1305, &st);
		one_shot(r % 2 ? &lo : &hi, j);
		VT_EXPECT(vecsec_engine_isa(&lo) == VECSEC_ISA_SCALAR, "lo runs %s",
			  vecsec_isa_name(vecsec_engine_isa(&lo)));
		VT_EXPECT(vecsec_engine_isa(&hi) == vecsec_isa_cap(), "hi runs %s",
			  vecsec_isa_name(vecsec_engine_isa(&hi)));
	}
	vecsec_aead_key_wipe(&k);
	free(j);
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_engine_api),
		VT_TEST(test_engine_levels),
		VT_TEST(test_engine_pair),
	};

	if (sodium_init() < 0)
		return 2;
	return vt_main("engine", tests, VT_ARRAY_SIZE(tests));
}
