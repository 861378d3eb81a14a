/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench peer: Intel ipsec-mb through its job API (the manager picks
 * its widest ISA, init_mb_mgr_auto, unless --ipsecmb-arch pins one:
 * init_mb_mgr_avx2() for an AVX2-to-AVX2 comparison). ChaCha20-Poly1305 is
 * IMB_CIPHER_CHACHA20_POLY1305 + IMB_AUTH_CHACHA20_POLY1305; ChaCha20
 * alone and Poly1305 alone are IMB_CIPHER_CHACHA20 and IMB_AUTH_POLY1305.
 * One message: get, submit, flush. A burst: submit every job, then flush,
 * which lets ipsec-mb fill its own lanes. Open computes the tag (ipsec-mb
 * 1.3 does not check it) and the harness-side compare is constant-time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>

#include "bench.h"

struct mb_ctx {
	const struct bench_case *c;
	uint8_t key[32];
	uint8_t calc[16];      /* open: computed tag */
	struct bench_msg *msg; /* the message in flight with this key */
};

static IMB_MGR *mgr;
static IMB_ARCH mgr_arch;

static const char *
arch_name(IMB_ARCH a)
{
	switch (a) {
	case IMB_ARCH_NOAESNI:
		return "no-aesni";
	case IMB_ARCH_SSE:
		return "sse";
	case IMB_ARCH_AVX:
		return "avx";
	case IMB_ARCH_AVX2:
		return "avx2";
	case IMB_ARCH_AVX512:
		return "avx512";
	default:
		return "?";
	}
}

static bool
mb_init(struct bench_impl *im)
{
	mgr = alloc_mb_mgr(0);
	if (mgr == NULL) {
		snprintf(im->version, sizeof(im->version), "alloc_mb_mgr failed");
		return false;
	}
	if (bench_ipsecmb_arch == NULL || strcmp(bench_ipsecmb_arch, "auto") == 0) {
		init_mb_mgr_auto(mgr, &mgr_arch);
	} else if (strcmp(bench_ipsecmb_arch, "sse") == 0) {
		init_mb_mgr_sse(mgr);
		mgr_arch = IMB_ARCH_SSE;
	} else if (strcmp(bench_ipsecmb_arch, "avx") == 0) {
		init_mb_mgr_avx(mgr);
		mgr_arch = IMB_ARCH_AVX;
	} else if (strcmp(bench_ipsecmb_arch, "avx2") == 0) {
		init_mb_mgr_avx2(mgr);
		mgr_arch = IMB_ARCH_AVX2;
	} else if (strcmp(bench_ipsecmb_arch, "avx512") == 0) {
		init_mb_mgr_avx512(mgr);
		mgr_arch = IMB_ARCH_AVX512;
	} else {
		snprintf(im->version, sizeof(im->version), "unknown --ipsecmb-arch %s",
			 bench_ipsecmb_arch);
		return false;
	}
	if (imb_get_errno(mgr) != 0) {
		snprintf(im->version, sizeof(im->version), "init_mb_mgr_%s: %s",
			 bench_ipsecmb_arch != NULL ? bench_ipsecmb_arch : "auto",
			 imb_get_strerror(imb_get_errno(mgr)));
		return false;
	}
	snprintf(im->version, sizeof(im->version), "ipsec-mb %s (%s%s)", imb_get_version_str(),
		 arch_name(mgr_arch), bench_ipsecmb_arch != NULL &&
		 strcmp(bench_ipsecmb_arch, "auto") != 0 ? ", pinned" : "");
	return true;
}

static const char *
mb_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
{
	(void)im, (void)burst;
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
	case CASE_CHACHA20:
	case CASE_POLY1305:
		return NULL;
	default:
		return bench_case_missing(c, "no ARIA");
	}
}

static void *
mb_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct mb_ctx *x = aligned_alloc(64, (sizeof(*x) + 63) / 64 * 64);

	(void)im;
	if (x == NULL)
		return NULL;
	memset(x, 0, sizeof(*x));
	x->c = c;
	memcpy(x->key, key, 32);
	return x;
}

static void
mb_free(void *p)
{
	if (p != NULL)
		imb_clear_mem(p, sizeof(struct mb_ctx));
	free(p);
}

static void
mb_fill(IMB_JOB *job, struct mb_ctx *x, enum bench_op op, struct bench_msg *m)
{
	const struct bench_case *c = x->c;

	job->src = m->in;
	job->dst = m->out;
	job->cipher_start_src_offset_in_bytes = 0;
	job->hash_start_src_offset_in_bytes = 0;
	job->msg_len_to_cipher_in_bytes = m->len;
	job->msg_len_to_hash_in_bytes = m->len;
	job->enc_keys = x->key;
	job->dec_keys = x->key;
	job->key_len_in_bytes = 32;
	job->iv = m->nonce;
	job->iv_len_in_bytes = 12;
	job->auth_tag_output = op == BENCH_DEC ? x->calc : m->tag;
	job->auth_tag_output_len_in_bytes = 16;
	job->cipher_direction = op == BENCH_DEC ? IMB_DIR_DECRYPT : IMB_DIR_ENCRYPT;
	job->user_data = x;
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
		job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305;
		job->hash_alg = IMB_AUTH_CHACHA20_POLY1305;
		job->u.CHACHA20_POLY1305.aad = m->aad;
		job->u.CHACHA20_POLY1305.aad_len_in_bytes = c->aad_len;
		job->chain_order = op == BENCH_DEC ? IMB_ORDER_HASH_CIPHER : IMB_ORDER_CIPHER_HASH;
		break;
	case CASE_CHACHA20:
		job->cipher_mode = IMB_CIPHER_CHACHA20;
		job->hash_alg = IMB_AUTH_NULL;
		job->chain_order = IMB_ORDER_CIPHER_HASH;
		break;
	default: /* CASE_POLY1305 */
		job->cipher_mode = IMB_CIPHER_NULL;
		job->hash_alg = IMB_AUTH_POLY1305;
		job->u.POLY1305._key = x->key;
		job->chain_order = IMB_ORDER_HASH_CIPHER;
		break;
	}
}

static unsigned int
mb_complete(IMB_JOB *job, enum bench_op op)
{
	struct mb_ctx *x = job->user_data;
	struct bench_msg *m = x->msg;

	m->status = job->status != IMB_STATUS_COMPLETED;
	if (m->status == 0 && op == BENCH_DEC && x->c->kind == BENCH_AEAD)
		m->status = bench_tag_diff(x->calc, m->tag);
	return m->status != 0;
}

static unsigned int
mb_burst(const struct bench_case *c, enum bench_op op, struct bench_msg *msgs, unsigned int n)
{
	unsigned int bad = 0;
	IMB_JOB *job;

	(void)c;
	for (unsigned int i = 0; i < n; i++) {
		struct mb_ctx *x = msgs[i].ctx;

		x->msg = &msgs[i];
		job = IMB_GET_NEXT_JOB(mgr);
		mb_fill(job, x, op, &msgs[i]);
		job = IMB_SUBMIT_JOB(mgr);
		while (job != NULL) {
			bad += mb_complete(job, op);
			job = IMB_GET_COMPLETED_JOB(mgr);
		}
	}
	while ((job = IMB_FLUSH_JOB(mgr)) != NULL)
		bad += mb_complete(job, op);
	return bad;
}

static int
mb_run(void *ctx, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
       const uint8_t *nonce, const uint8_t *aad)
{
	struct mb_ctx *x = ctx;
	struct bench_msg m = {
		.ctx = ctx, .in = in, .out = out, .tag = tag, .len = len,
		.nonce = nonce, .aad = aad,
	};

	return mb_burst(x->c, op, &m, 1) != 0 ? -1 : 0;
}

static struct bench_impl mb_impl = {
	.name = "ipsec-mb",
	.init = mb_init,
	.lacks = mb_lacks,
	.ctx_new = mb_new,
	.ctx_free = mb_free,
	.run = mb_run,
	.burst = mb_burst,
};

struct bench_impl *
bench_peer_ipsecmb(void)
{
	return &mb_impl;
}
