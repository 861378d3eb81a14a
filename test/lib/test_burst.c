/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec_aead_burst(): bursts of 0, 1, 7, 16, 17, 33, 64 and 256 jobs mixing
 * algorithms (ChaCha20-Poly1305, XChaCha20-Poly1305, and ARIA-GCM/ARIA-CTR
 * whenever this build has their ops: probed at run time), keys, key and tag
 * lengths, nonce lengths, data lengths (0 too), AAD, directions, linear and
 * scatter-gather, in place and out of place. Every job must end as the
 * one-shot API leaves it (and seal jobs as OpenSSL / libsodium say); forged
 * jobs fail alone with a zeroed output; invalid jobs get VECSEC_JOB_INVALID,
 * write nothing and never stop the burst. And NULL for every empty buffer
 * (AAD, input, output; vt_null.h), one-shot and in bursts, on every path
 * (test_null_empty_buffers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vt_null.h"
#include "vecsec/vecsec_aead.h"
#include "chachapoly/chachapoly_knobs.h"

#define NKEYS 5
#define MAXJOB 2048

static bool slow;

static const enum vecsec_aead_alg all_algs[] = {
	VECSEC_AEAD_CHACHA20_POLY1305,
	VECSEC_AEAD_XCHACHA20_POLY1305,
	VECSEC_AEAD_ARIA_GCM,
	VECSEC_AEAD_ARIA_CTR,
};
#define NALGS 4

static enum vecsec_aead_alg algs_on[NALGS];   /* the ones this build has */
static unsigned int nb_algs_on;

enum kind {
	K_GOOD,
	K_FORGED,       /* open with a flipped tag/ciphertext bit */
	K_INVALID,      /* one generic or algorithm-specific argument wrong */
};

struct bjob {
	struct vecsec_aead_job job;
	enum kind kind;
	enum vecsec_aead_alg alg;
	struct vt_buf buf;              /* in (and out, in place) */
	struct vt_buf obuf;             /* out of place output */
	bool in_place, sg, open;
	struct vt_sg sgin, sgout;
	uint8_t nonce[24], aad[300], tag[16];
	uint8_t *pt, *want;             /* plaintext; expected output */
	uint8_t *orig;                  /* input as given */
	uint8_t want_tag[16];
	uint32_t want_status;
	int invalid_how;
};

struct keyset {
	struct vecsec_aead_key k[NALGS][NKEYS];
	uint8_t raw[NALGS][NKEYS][32];
	size_t len[NALGS][NKEYS];
};

static bool
is_aria(enum vecsec_aead_alg alg)
{
	return alg == VECSEC_AEAD_ARIA_GCM || alg == VECSEC_AEAD_ARIA_CTR;
}

/* Index of alg in algs_on, or -1 when this build lacks it. */
static int
alg_index(enum vecsec_aead_alg alg)
{
	for (unsigned int a = 0; a < nb_algs_on; a++)
		if (algs_on[a] == alg)
			return (int)a;
	return -1;
}

static void
keys_init(struct keyset *ks, uint64_t seed)
{
	for (unsigned int a = 0; a < nb_algs_on; a++) {
		for (int i = 0; i < NKEYS; i++) {
			size_t kl = is_aria(algs_on[a]) ? 16 + 8 * (i % 3) : 32;

			vt_rand(ks->raw[a][i], 32, seed + 10 * a + i);
			ks->len[a][i] = kl;
			VT_EXPECT(vecsec_aead_key_init(&ks->k[a][i], algs_on[a], ks->raw[a][i], kl) ==
				  0, "key init %s %zu", vecsec_aead_alg_name(algs_on[a]), kl);
		}
	}
}

static void
probe_algs(void)
{
	struct vecsec_aead_key k;
	uint8_t key[32] = { 0 };

	nb_algs_on = 0;
	printf("\n    burst algorithms:");
	for (unsigned int a = 0; a < NALGS; a++) {
		int rc = vecsec_aead_key_init(&k, all_algs[a], key, 32);

		if (rc == 0)
			algs_on[nb_algs_on++] = all_algs[a];
		printf(" %s%s", vecsec_aead_alg_name(all_algs[a]), rc == 0 ? "" : " (not built)");
	}
	printf("\n");
	vecsec_aead_key_wipe(&k);
}

/* Build one job and what it must end as. */
static void
bjob_make(struct bjob *b, struct keyset *ks, uint64_t *st, bool allow_bad)
{
	int a = (int)vt_below(st, nb_algs_on), ki = (int)vt_below(st, NKEYS);
	uint32_t r = vt_below(st, 16);
	size_t len = r == 0 ? 0 : r < 12 ? vt_below(st, 300) : vt_below(st, MAXJOB + 1);
	size_t aad_len = vt_below(st, 4) == 0 ? 256 : vt_below(st, 65);
	bool open = vt_below(st, 2) == 1;
	struct vecsec_aead_job *j = &b->job;
	enum vecsec_aead_alg alg = algs_on[a];
	size_t nonce_len, tag_len;
	uint8_t ctag[16];
	uint8_t *ct;

	memset(b, 0, sizeof(*b));
	b->open = open;
	b->alg = alg;
	switch (alg) {
	case VECSEC_AEAD_ARIA_GCM:
		nonce_len = vt_below(st, 2) ? 12 : 1 + vt_below(st, 24);
		tag_len = 4 + vt_below(st, 13);
		break;
	case VECSEC_AEAD_ARIA_CTR:
		nonce_len = VECSEC_ARIA_CTR_NONCE_LEN;
		tag_len = 0;
		break;
	default:
		nonce_len = vt_nonce_len(alg);
		tag_len = 16;
		break;
	}
	b->kind = K_GOOD;
	if (allow_bad) {
		uint32_t x = vt_below(st, 10);

		/* a tag flip works for empty messages too; CTR has no tag to forge */
		b->kind = x == 0 ? K_INVALID : (x == 1 && open && tag_len > 0) ? K_FORGED : K_GOOD;
	}
	b->in_place = vt_below(st, 3) == 0;
	b->sg = vt_below(st, 4) == 0;
	vt_next(st);
	vt_rand(b->nonce, sizeof(b->nonce), vt_next(st));
	vt_rand(b->aad, sizeof(b->aad), vt_next(st));
	b->pt = malloc(len + 1);
	b->want = malloc(len + 1);
	ct = malloc(len + 1);
	vt_rand(b->pt, len, vt_next(st));
	if (alg == VECSEC_AEAD_ARIA_CTR) {
		/* RFC 3686 layout: 32-bit block counter from 1, never wrapping here */
		memcpy(b->nonce + 12, "\0\0\0\1", 4);
	}

	/* the one-shot answer, checked against the library oracle */
	VT_EXPECT(vecsec_aead_seal(&ks->k[a][ki], ct, ctag, tag_len, b->pt, len, b->nonce,
				   nonce_len, b->aad, aad_len) == 0, "one-shot %s",
		  vecsec_aead_alg_name(alg));
	{
		uint8_t *oc = malloc(len + 1), otag[16];

		vt_oracle_seal_ex(alg, oc, otag, tag_len, b->pt, len, ks->raw[a][ki],
				  ks->len[a][ki], b->nonce, nonce_len, b->aad, aad_len);
		VT_EXPECT(memcmp(oc, ct, len) == 0 && memcmp(otag, ctag, tag_len) == 0,
			  "one-shot %s vs oracle len=%zu", vecsec_aead_alg_name(alg), len);
		free(oc);
	}

	vt_buf_init(&b->buf, len);
	vt_buf_init(&b->obuf, len);
	memcpy(b->buf.data, open ? ct : b->pt, len);
	j->key = &ks->k[a][ki];
	j->dir = open ? VECSEC_AEAD_OPEN : VECSEC_AEAD_SEAL;
	j->status = VECSEC_JOB_PENDING;
	j->nonce = b->nonce;
	j->nonce_len = nonce_len;
	j->aad = b->aad;
	j->aad_len = aad_len;
	j->len = len;
	j->in = b->buf.data;
	j->out = b->in_place ? b->buf.data : b->obuf.data;
	j->tag = (tag_len == 0 && vt_below(st, 2)) ? NULL : b->tag;
	j->tag_len = tag_len;
	j->user = b;
	memset(b->tag, 0xee, 16);
	if (open)
		memcpy(b->tag, ctag, tag_len);
	if (b->sg) {
		vt_sg_make(&b->sgin, len, vt_below(st, 3) == 0 ? VT_SG_ONES : VT_SG_RANDOM, st);
		vt_sg_make(&b->sgout, len, VT_SG_RANDOM, st);
		vt_sg_scatter(&b->sgin, b->buf.data);
		j->in_segs = b->sgin.segs;
		j->nb_in_segs = b->sgin.nb;
		j->out_segs = b->in_place ? b->sgin.segs : b->sgout.segs;
		j->nb_out_segs = b->in_place ? b->sgin.nb : b->sgout.nb;
	}

	if (open) {
		memcpy(b->want, b->pt, len);
	} else {
		memcpy(b->want, ct, len);
		memcpy(b->want_tag, ctag, tag_len);
		memset(b->want_tag + tag_len, 0xee, 16 - tag_len);  /* the rest untouched */
	}
	b->want_status = VECSEC_JOB_OK;
	if (b->kind == K_FORGED) {
		if (len > 0 && vt_below(st, 2)) {
			size_t i = vt_below(st, (uint32_t)len);

			/* flip a ciphertext bit in the input (linear and sg copies) */
			b->buf.data[i] ^= (uint8_t)(1u << vt_below(st, 8));
			if (b->sg)
				vt_sg_scatter(&b->sgin, b->buf.data);
		} else {
			b->tag[vt_below(st, (uint32_t)tag_len)] ^= (uint8_t)(1u << vt_below(st, 8));
		}
		memset(b->want, 0, len);
		b->want_status = VECSEC_JOB_AUTH_FAILED;
	} else if (b->kind == K_INVALID) {
		b->invalid_how = (int)vt_below(st, 7);
		switch (b->invalid_how) {
		case 0:
			j->key = NULL;
			break;
		case 1:
			/* a length this algorithm refuses */
			j->nonce_len = alg == VECSEC_AEAD_ARIA_GCM ? 0 :
				       alg == VECSEC_AEAD_ARIA_CTR ? 12 : 16;
			break;
		case 2:
			j->tag_len = alg == VECSEC_AEAD_ARIA_GCM ? 17 :
				     alg == VECSEC_AEAD_ARIA_CTR ? 4 : 8;
			if (j->tag == NULL)
				j->tag = b->tag;
			break;
		case 3:
			j->aad_len = VECSEC_AEAD_MAX_AAD_LEN + 1;
			break;
		case 4:
			j->dir = 7;
			break;
		case 5:
			j->nonce = NULL;
			break;
		default:
			/* input shorter than len (past any spare segment too) */
			j->len = len + 1000;
			j->in = NULL;
			j->nb_in_segs = 0;
			if (b->sg) {
				j->in_segs = b->sgin.segs;
				j->nb_in_segs = b->sgin.nb;
			}
			break;
		}
		b->want_status = VECSEC_JOB_INVALID;
	}
	b->orig = malloc(len + 1);
	memcpy(b->orig, b->buf.data, len);
	free(ct);
}

static void
bjob_check(struct bjob *b, unsigned int idx, unsigned int n)
{
	struct vecsec_aead_job *j = &b->job;
	size_t len = b->buf.cap;
	uint8_t *got = malloc(len + 1);
	const char *an = vecsec_aead_alg_name(b->alg);

	VT_EXPECT(j->status == b->want_status,
		  "burst %u job %u (%s %s kind %d how %d len %zu sg %d): status %u want %u", n,
		  idx, an, b->open ? "open" : "seal", b->kind, b->invalid_how, len, b->sg, j->status, b->want_status);
	VT_EXPECT(j->user == b, "user pointer untouched");
	if (b->kind == K_INVALID) {
		/* nothing written: input as it was, output untouched, no tag */
		if (b->sg)
			vt_sg_gather(&b->sgin, got);
		else
			memcpy(got, b->buf.data, len);
		VT_EXPECT_MEM(got, b->orig, len, "invalid job %u changed its input", idx);
		if (!b->in_place) {
			bool untouched = true;

			if (b->sg)
				for (size_t i = 0; i < b->sgout.mem_len; i++)
					untouched &= b->sgout.mem[i] == VT_GUARD_BYTE;
			VT_EXPECT(untouched && vt_buf_guards_ok(&b->obuf, 0, 0),
				  "invalid job %u wrote its output", idx);
		}
		VT_EXPECT(b->open || b->tag[0] == 0xee,
			  "invalid job %u wrote a tag", idx);
		free(got);
		return;
	}
	if (b->sg)
		vt_sg_gather(b->in_place ? &b->sgin : &b->sgout, got);
	else
		memcpy(got, j->out, len);
	VT_EXPECT_MEM(got, b->want, len, "burst %u job %u %s %s kind %d len %zu sg %d inpl %d", n,
		      idx, an, j->dir == VECSEC_AEAD_OPEN ? "open" : "seal", b->kind, len, b->sg,
		      b->in_place);
	if (!b->open)
		VT_EXPECT_MEM(b->tag, b->want_tag, 16, "burst %u job %u %s tag", n, idx, an);
	if (b->sg) {
		VT_EXPECT(vt_sg_guards_ok(&b->sgin) && vt_sg_guards_ok(&b->sgout),
			  "burst %u job %u: sg write outside", n, idx);
	} else {
		VT_EXPECT(vt_buf_guards_ok(&b->buf, 0, len), "burst %u job %u: guards", n, idx);
		VT_EXPECT(vt_buf_guards_ok(&b->obuf, 0, b->in_place ? 0 : len), "job %u guards",
			  idx);
	}
	free(got);
}

static void
bjob_free(struct bjob *b)
{
	vt_buf_free(&b->buf);
	vt_buf_free(&b->obuf);
	if (b->sg) {
		vt_sg_free(&b->sgin);
		vt_sg_free(&b->sgout);
	}
	free(b->pt);
	free(b->want);
	free(b->orig);
}

static void
run_burst(unsigned int n, struct keyset *ks, uint64_t seed, bool allow_bad)
{
	struct bjob *bj = calloc(n + 1, sizeof(*bj));
	struct vecsec_aead_job **jobs = calloc(n + 1, sizeof(*jobs));
	uint64_t st = seed;

	for (unsigned int i = 0; i < n; i++) {
		bjob_make(&bj[i], ks, &st, allow_bad);
		jobs[i] = &bj[i].job;
	}
	VT_EXPECT(vecsec_aead_burst(jobs, n) == n, "burst of %u taken", n);
	for (unsigned int i = 0; i < n; i++) {
		bjob_check(&bj[i], i, n);
		bjob_free(&bj[i]);
	}
	free(bj);
	free(jobs);
}

static void
test_bursts(void)
{
	static const unsigned int sizes[] = { 0, 1, 7, 16, 17, 33, 64, 256 };
	struct keyset *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed();
	unsigned int reps = slow ? 8 : 1;

	probe_algs();
	keys_init(ks, seed);
	for (unsigned int r = 0; r < reps; r++)
		for (size_t i = 0; i < VT_ARRAY_SIZE(sizes); i++)
			run_burst(sizes[i], ks, seed + 1000 * r + sizes[i], false);
	free(ks);
}

static void
test_bursts_with_bad_jobs(void)
{
	static const unsigned int sizes[] = { 1, 7, 16, 17, 33, 64, 256 };
	struct keyset *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0xbad;
	unsigned int reps = slow ? 8 : 2;

	probe_algs();
	keys_init(ks, seed);
	for (unsigned int r = 0; r < reps; r++)
		for (size_t i = 0; i < VT_ARRAY_SIZE(sizes); i++)
			run_burst(sizes[i], ks, seed + 1000 * r + sizes[i], true);
	free(ks);
}

static void
test_burst_args(void)
{
	struct vecsec_aead_job job, *jp[VECSEC_MAX_BURST + 1];

	memset(&job, 0, sizeof(job));
	for (unsigned int i = 0; i <= VECSEC_MAX_BURST; i++)
		jp[i] = &job;
	job.status = VECSEC_JOB_PENDING;
	VT_EXPECT(vecsec_aead_burst(NULL, 3) == 0, "NULL array");
	VT_EXPECT(vecsec_aead_burst(jp, VECSEC_MAX_BURST + 1) == 0, "too many");
	VT_EXPECT(job.status == VECSEC_JOB_PENDING, "a refused burst touches no job");
	VT_EXPECT(vecsec_aead_burst(jp, 0) == 0, "empty burst");
	/* an all-zero job (no key) is invalid, not a crash */
	VT_EXPECT(vecsec_aead_burst(jp, 1) == 1 && job.status == VECSEC_JOB_INVALID, "zero job");
}

/*
 * NULL for every empty buffer (vt_null.h): one-shot for each key, bursts of
 * 1 to 64 jobs (the 4-, 8- and 16-lane widths and one past), four jobs a
 * key (one-key and many-key ARIA batches), scatter-gather in the larger
 * ones, and one burst of every algorithm and shape together.
 */
static void
test_null_empty_buffers(void)
{
	static const unsigned int sizes[] = { 1, 3, 4, 8, 16, 17, 64 };
	struct keyset *ks = malloc(sizeof(*ks));
	uint8_t (*want_ct)[VT_NULL_MAX] = malloc(NKEYS * sizeof(*want_ct));
	uint8_t (*want_tag)[16] = malloc(NKEYS * sizeof(*want_tag));
	struct vt_null_spec *sp = calloc(VECSEC_MAX_BURST, sizeof(*sp));
	uint8_t (*mix_ct)[VT_NULL_MAX] = malloc(VECSEC_MAX_BURST * sizeof(*mix_ct));
	uint8_t (*mix_tag)[16] = malloc(VECSEC_MAX_BURST * sizeof(*mix_tag));
	uint64_t seed = vt_seed() ^ 0x4e554c4c;
	unsigned int nmix = 0;

	if (ks == NULL || want_ct == NULL || want_tag == NULL || sp == NULL || mix_ct == NULL ||
	    mix_tag == NULL)
		abort();
	probe_algs();
	keys_init(ks, seed);
	vt_null_init(seed);
	for (size_t vi = 0; vi < VT_ARRAY_SIZE(vt_null_variants); vi++) {
		const struct vt_null_variant *v = &vt_null_variants[vi];
		int a = alg_index(v->alg);

		if (a < 0)
			continue;
		for (size_t si = 0; si < VT_ARRAY_SIZE(vt_null_shapes); si++) {
			size_t aad_len = vt_null_shapes[si].aad_len, len = vt_null_shapes[si].len;

			/* ChaCha's crossovers; ARIA runs these as it runs 2049 */
			if (is_aria(v->alg) && (len == 1537 || len == 4097))
				continue;
			for (unsigned int ki = 0; ki < NKEYS; ki++) {
				vt_null_want(v, ks->raw[a][ki], ks->len[a][ki], aad_len, len,
					     want_ct[ki], want_tag[ki]);
				vt_null_oneshot(v, &ks->k[a][ki], aad_len, len, want_ct[ki],
						want_tag[ki], "burst suite");
			}
			for (size_t z = 0; z < VT_ARRAY_SIZE(sizes); z++) {
				unsigned int n = sizes[z];

				/*
				 * ARIA has no lanes (and its scalar code is slow), nor
				 * do ChaCha jobs past the staged path need every width:
				 * one job, one key's four and five keys' 17 suffice
				 * (ARIA's long jobs: one key's four, in several batches).
				 */
				if ((is_aria(v->alg) || len > 512) && n != 1 && n != 4 &&
				    n != 17)
					continue;
				if (is_aria(v->alg) && len > 512 && n == 17)
					continue;
				for (unsigned int i = 0; i < n; i++) {
					unsigned int ki = (i / 4) % NKEYS;

					sp[i] = (struct vt_null_spec){
						.v = v, .key = &ks->k[a][ki],
						.aad_len = aad_len, .len = len,
						.sg = n >= 17 && i % 3 == 2,
						.forge = v->tag_len > 0 && i % 2 == 1,
						.want_ct = want_ct[ki], .want_tag = want_tag[ki],
					};
				}
				vt_null_burst(sp, n, seed + 100 * si + n, "burst suite");
			}
		}
	}
	/* one burst of every variant and shape together, keys and paths mixed */
	for (size_t si = 0; si < VT_ARRAY_SIZE(vt_null_shapes); si++) {
		for (size_t vi = 0; vi < VT_ARRAY_SIZE(vt_null_variants); vi++) {
			const struct vt_null_variant *v = &vt_null_variants[vi];
			int a = alg_index(v->alg);
			unsigned int ki = nmix % NKEYS;

			if (a < 0 || nmix == VECSEC_MAX_BURST)
				continue;
			sp[nmix] = (struct vt_null_spec){
				.v = v, .key = &ks->k[a][ki],
				.aad_len = vt_null_shapes[si].aad_len,
				.len = vt_null_shapes[si].len,
				.sg = nmix % 5 == 4, .forge = v->tag_len > 0 && nmix % 3 == 1,
				.want_ct = mix_ct[nmix], .want_tag = mix_tag[nmix],
			};
			vt_null_want(v, ks->raw[a][ki], ks->len[a][ki], sp[nmix].aad_len,
				     sp[nmix].len, mix_ct[nmix], mix_tag[nmix]);
			nmix++;
		}
	}
	vt_null_burst(sp, nmix, seed + 7, "burst suite, mixed");
	free(ks);
	free(want_ct);
	free(want_tag);
	free(sp);
	free(mix_ct);
	free(mix_tag);
}

/*
 * The AVX2 lane kernels' plain forms: bursts run the VL ones by default
 * on a CPU with AVX-512VL/BW (the tests above), the plain ones here.
 */
static void
test_bursts_avx2_plain(void)
{
	bool was;

#if defined(__x86_64__)
	if (!vecsec_avx2_vl_usable()) {
		printf("\nSKIP burst: the AVX2 lane kernels' VL forms not run (CPU lacks AVX-512VL/BW)\n");
		fprintf(stderr, "SKIP burst: the AVX2 lane kernels' VL forms not run (CPU lacks AVX-512VL/BW)\n");
	}
#endif
	was = vecsec_avx2_vl_set(false);
	test_bursts();
	test_bursts_with_bad_jobs();
	vecsec_avx2_vl_set(was);
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_bursts),
		VT_TEST(test_bursts_with_bad_jobs),
		VT_TEST(test_burst_args),
		VT_TEST(test_null_empty_buffers),
		VT_TEST(test_bursts_avx2_plain),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	if (sodium_init() < 0)
		return 2;
	return vt_main("burst", tests, VT_ARRAY_SIZE(tests));
}
