/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench: libvecsec itself, one impl per ISA level (pinned with
 * vecsec_force_isa() before each use). AEADs and ARIA-CTR go through the
 * public AEAD API (vecsec_aead_seal/open, vecsec_aead_burst). Primitives
 * that this build of libvecsec lacks are shown as n/a, never faked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "bench.h"

struct vs_ctx {
	struct vecsec_aead_key key; /* first: 64-byte aligned */
	const struct bench_case *c;
};

#ifdef BENCH_HAVE_VECSEC_AEAD
static enum vecsec_aead_alg
vs_alg(const struct bench_case *c)
{
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
		return VECSEC_AEAD_CHACHA20_POLY1305;
	case CASE_XCHACHA20_POLY1305:
		return VECSEC_AEAD_XCHACHA20_POLY1305;
	case CASE_ARIA128_GCM:
		return VECSEC_AEAD_ARIA_GCM;
	case CASE_ARIA128_CTR:
	case CASE_ARIA256_CTR:
		return VECSEC_AEAD_ARIA_CTR;
	default:
		return VECSEC_AEAD_NONE;
	}
}
#endif

bool
bench_vecsec_has(const struct bench_case *c)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	return vs_alg(c) != VECSEC_AEAD_NONE;
#else
	(void)c;
	return false;
#endif
}

static const char *
vs_lacks(const struct bench_impl *im, const struct bench_case *c)
{
	(void)im;
	return bench_vecsec_has(c) ? NULL : "not in this libvecsec yet";
}

static void
vs_select(const struct bench_impl *im)
{
	int rc = vecsec_force_isa((enum vecsec_isa)im->isa);

	if (rc != 0) {
		fprintf(stderr, "vecsec-bench: vecsec_force_isa(%s) failed: %d\n", im->name, rc);
		exit(2);
	}
}

static const char *
vs_detail(const struct bench_impl *im, const struct bench_case *c)
{
	(void)c;
	/* libvecsec exposes no per-primitive impl name yet: show the cap */
	return vecsec_isa_name((enum vecsec_isa)im->isa);
}

static bool
vs_init(struct bench_impl *im)
{
	snprintf(im->version, sizeof(im->version), "libvecsec %s", vecsec_version());
	return true;
}

static void
vs_free(void *p)
{
	struct vs_ctx *x = p;

	if (x == NULL)
		return;
#ifdef BENCH_HAVE_VECSEC_AEAD
	vecsec_aead_key_wipe(&x->key);
#endif
	free(x);
}

static void *
vs_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct vs_ctx *x = bench_alloc(sizeof(*x));

	(void)im;
	x->c = c;
#ifdef BENCH_HAVE_VECSEC_AEAD
	if (vecsec_aead_key_init(&x->key, vs_alg(c), key, c->key_len) == 0)
		return x;
#else
	(void)key;
#endif
	vs_free(x);
	return NULL;
}

static int
vs_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
       const uint8_t *nonce, const uint8_t *aad)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	struct vs_ctx *x = p;
	const struct bench_case *c = x->c;

	if (op == BENCH_ENC)
		return vecsec_aead_seal(&x->key, out, tag, c->tag_len, in, len, nonce,
					c->nonce_len, aad, c->aad_len);
	return vecsec_aead_open(&x->key, out, in, len, tag, c->tag_len, nonce, c->nonce_len,
				aad, c->aad_len);
#else
	(void)p, (void)op, (void)out, (void)tag, (void)in, (void)len, (void)nonce, (void)aad;
	return -ENOTSUP;
#endif
}

static unsigned int
vs_burst(const struct bench_case *c, enum bench_op op, struct bench_msg *msgs, unsigned int n)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	static struct vecsec_aead_job jobs[VECSEC_MAX_BURST];
	static struct vecsec_aead_job *ptrs[VECSEC_MAX_BURST];
	unsigned int bad = 0;

	if (n > VECSEC_MAX_BURST)
		return n;
	for (unsigned int i = 0; i < n; i++) {
		struct vs_ctx *x = msgs[i].ctx;

		jobs[i] = (struct vecsec_aead_job){
			.key = &x->key,
			.dir = op == BENCH_ENC ? VECSEC_AEAD_SEAL : VECSEC_AEAD_OPEN,
			.status = VECSEC_JOB_PENDING,
			.nonce = msgs[i].nonce, .nonce_len = c->nonce_len,
			.aad = msgs[i].aad, .aad_len = c->aad_len,
			.len = msgs[i].len, .in = msgs[i].in, .out = msgs[i].out,
			.tag = msgs[i].tag, .tag_len = c->tag_len,
		};
		ptrs[i] = &jobs[i];
	}
	if (vecsec_aead_burst(ptrs, n) != n)
		return n;
	for (unsigned int i = 0; i < n; i++) {
		msgs[i].status = jobs[i].status != VECSEC_JOB_OK;
		bad += msgs[i].status != 0;
	}
	return bad;
#else
	(void)c, (void)op, (void)msgs;
	return n;
#endif
}

struct bench_impl *
bench_vecsec_impl(int isa)
{
	struct bench_impl *im = calloc(1, sizeof(*im));
	char *name = malloc(32);

	if (im == NULL || name == NULL) {
		fprintf(stderr, "vecsec-bench: out of memory\n");
		exit(2);
	}
	snprintf(name, 32, "vecsec-%s", vecsec_isa_name((enum vecsec_isa)isa));
	im->name = name;
	im->is_vecsec = true;
	im->isa = isa;
	im->init = vs_init;
	im->lacks = vs_lacks;
	im->select = vs_select;
	im->detail = vs_detail;
	im->ctx_new = vs_new;
	im->ctx_free = vs_free;
	im->run = vs_run;
	im->burst = vs_burst;
	return im;
}
