/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec_aead_burst(): bursts of 0, 1, 7, 16, 17, 33, 64 and 256 jobs mixing
 * algorithms (ChaCha20-Poly1305, XChaCha20-Poly1305), keys, lengths (0
 * too), AAD, directions, linear and scatter-gather, in place and out of
 * place. Every job must end as the one-shot API leaves it (and seal jobs as
 * OpenSSL / libsodium say); forged jobs fail alone with a zeroed output;
 * invalid jobs get VECSEC_JOB_INVALID, write nothing and never stop the
 * burst.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"

#define NKEYS 5
#define MAXJOB 2048

static bool slow;

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
	struct vecsec_aead_key k[2][NKEYS];
	uint8_t raw[2][NKEYS][32];
};

static void
keys_init(struct keyset *ks, uint64_t seed)
{
	for (int a = 0; a < 2; a++) {
		for (int i = 0; i < NKEYS; i++) {
			vt_rand(ks->raw[a][i], 32, seed + 10 * a + i);
			vecsec_aead_key_init(&ks->k[a][i], a == 0 ? VECSEC_AEAD_CHACHA20_POLY1305 :
								     VECSEC_AEAD_XCHACHA20_POLY1305,
					     ks->raw[a][i], 32);
		}
	}
}

/* Build one job and what it must end as. */
static void
bjob_make(struct bjob *b, struct keyset *ks, uint64_t *st, bool allow_bad)
{
	int a = (int)vt_below(st, 2), ki = (int)vt_below(st, NKEYS);
	uint32_t r = vt_below(st, 16);
	size_t len = r == 0 ? 0 : r < 12 ? vt_below(st, 300) : vt_below(st, MAXJOB + 1);
	size_t aad_len = vt_below(st, 4) == 0 ? 256 : vt_below(st, 65);
	bool open = vt_below(st, 2) == 1;
	struct vecsec_aead_job *j = &b->job;
	uint8_t ctag[16];
	uint8_t *ct;

	memset(b, 0, sizeof(*b));
	b->open = open;
	b->alg = a == 0 ? VECSEC_AEAD_CHACHA20_POLY1305 : VECSEC_AEAD_XCHACHA20_POLY1305;
	b->kind = K_GOOD;
	if (allow_bad) {
		uint32_t x = vt_below(st, 10);

		b->kind = x == 0 ? K_INVALID : (x == 1 && open && len > 0) ? K_FORGED : K_GOOD;
		if (x == 1 && open && len == 0)
			b->kind = K_FORGED;     /* tag flip works for empty messages too */
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

	/* the one-shot answer, checked against the library oracle */
	vecsec_aead_seal(&ks->k[a][ki], ct, ctag, 16, b->pt, len, b->nonce, vt_nonce_len(b->alg),
			 b->aad, aad_len);
	{
		uint8_t *oc = malloc(len + 1), otag[16];

		vt_oracle_seal(b->alg, oc, otag, b->pt, len, ks->raw[a][ki], b->nonce, b->aad,
			       aad_len);
		VT_EXPECT(memcmp(oc, ct, len) == 0 && memcmp(otag, ctag, 16) == 0,
			  "one-shot vs oracle len=%zu", len);
		free(oc);
	}

	vt_buf_init(&b->buf, len);
	vt_buf_init(&b->obuf, len);
	memcpy(b->buf.data, open ? ct : b->pt, len);
	j->key = &ks->k[a][ki];
	j->dir = open ? VECSEC_AEAD_OPEN : VECSEC_AEAD_SEAL;
	j->status = VECSEC_JOB_PENDING;
	j->nonce = b->nonce;
	j->nonce_len = vt_nonce_len(b->alg);
	j->aad = b->aad;
	j->aad_len = aad_len;
	j->len = len;
	j->in = b->buf.data;
	j->out = b->in_place ? b->buf.data : b->obuf.data;
	j->tag = b->tag;
	j->tag_len = 16;
	j->user = b;
	if (open)
		memcpy(b->tag, ctag, 16);
	else
		memset(b->tag, 0xee, 16);
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
		memcpy(b->want_tag, ctag, 16);
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
			b->tag[vt_below(st, 16)] ^= (uint8_t)(1u << vt_below(st, 8));
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
			j->nonce_len = 16;
			break;
		case 2:
			j->tag_len = 8;
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

	VT_EXPECT(j->status == b->want_status, "burst %u job %u (%s %s kind %d how %d len %zu sg %d)"
		  ": status %u want %u", n, idx, an, j->dir == VECSEC_AEAD_OPEN ? "open" : "seal",
		  b->kind, b->invalid_how, len, b->sg, j->status, b->want_status);
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
	if (j->dir == VECSEC_AEAD_SEAL)
		VT_EXPECT_MEM(b->tag, b->want_tag, 16, "burst %u job %u tag", n, idx);
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

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_bursts),
		VT_TEST(test_bursts_with_bad_jobs),
		VT_TEST(test_burst_args),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	if (sodium_init() < 0)
		return 2;
	return vt_main("burst", tests, VT_ARRAY_SIZE(tests));
}
