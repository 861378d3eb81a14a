/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench peer: OpenSSL 3 through EVP (ciphers) and EVP_MAC
 * (Poly1305). A context is keyed once; each message re-initialises only the
 * IV, as an ESP implementation on OpenSSL does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#include "bench.h"

struct ossl_ctx {
	const struct bench_case *c;
	EVP_CIPHER_CTX *cctx;      /* ciphers */
	EVP_MAC_CTX *mctx;         /* poly1305 */
	uint8_t key[32];
};

static EVP_MAC *poly_mac;

static const EVP_CIPHER *
ossl_cipher(const struct bench_case *c)
{
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
		return EVP_chacha20_poly1305();
	case CASE_CHACHA20:
		return EVP_chacha20();
#ifndef OPENSSL_NO_ARIA
	case CASE_ARIA128_CTR:
		return EVP_aria_128_ctr();
	case CASE_ARIA256_CTR:
		return EVP_aria_256_ctr();
	case CASE_ARIA128_GCM:
		return EVP_aria_128_gcm();
	case CASE_ARIA128_ECB:
		return EVP_aria_128_ecb();
#endif
	default:
		return NULL;
	}
}

static bool
ossl_init(struct bench_impl *im)
{
	snprintf(im->version, sizeof(im->version), "%s", OpenSSL_version(OPENSSL_VERSION));
	poly_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	return true;
}

static const char *
ossl_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
{
	(void)im, (void)burst;
	if (c->id == CASE_POLY1305)
		return poly_mac == NULL ? "no POLY1305 EVP_MAC" : NULL;
	if (ossl_cipher(c) != NULL)
		return NULL;
	return bench_case_missing(c, "no ARIA in this build");
}

static void
ossl_free(void *p)
{
	struct ossl_ctx *x = p;

	if (x == NULL)
		return;
	EVP_CIPHER_CTX_free(x->cctx);
	EVP_MAC_CTX_free(x->mctx);
	OPENSSL_cleanse(x->key, sizeof(x->key));
	free(x);
}

static void *
ossl_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct ossl_ctx *x = calloc(1, sizeof(*x));

	(void)im;
	if (x == NULL)
		return NULL;
	x->c = c;
	if (c->id == CASE_POLY1305) {
		x->mctx = EVP_MAC_CTX_new(poly_mac);
		memcpy(x->key, key, 32);
		if (x->mctx == NULL)
			goto fail;
		return x;
	}
	x->cctx = EVP_CIPHER_CTX_new();
	if (x->cctx == NULL ||
	    EVP_CipherInit_ex(x->cctx, ossl_cipher(c), NULL, key, NULL, 1) != 1)
		goto fail;
	if (c->id == CASE_ARIA128_ECB)
		EVP_CIPHER_CTX_set_padding(x->cctx, 0);
	return x;
fail:
	ossl_free(x);
	return NULL;
}

static int
ossl_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
	 const uint8_t *nonce, const uint8_t *aad)
{
	struct ossl_ctx *x = p;
	const struct bench_case *c = x->c;
	uint8_t iv[16];
	const uint8_t *ivp = nonce;
	int n = 0, n2 = 0, enc = op == BENCH_ENC;

	if (c->id == CASE_POLY1305) {
		size_t tl = 0;

		if (EVP_MAC_init(x->mctx, x->key, 32, NULL) != 1 ||
		    EVP_MAC_update(x->mctx, in, len) != 1 ||
		    EVP_MAC_final(x->mctx, tag, &tl, 16) != 1)
			return -1;
		return tl == 16 ? 0 : -1;
	}
	if (c->id == CASE_CHACHA20) {
		/* EVP's ChaCha20 IV: 32-bit little-endian block counter || nonce */
		iv[0] = 1;
		iv[1] = iv[2] = iv[3] = 0;
		memcpy(iv + 4, nonce, 12);
		ivp = iv;
	}
	if (EVP_CipherInit_ex(x->cctx, NULL, NULL, NULL, ivp, enc) != 1)
		return -1;
	if (c->kind == BENCH_AEAD) {
		if (!enc && EVP_CIPHER_CTX_ctrl(x->cctx, EVP_CTRL_AEAD_SET_TAG, 16,
						(void *)(uintptr_t)tag) != 1)
			return -1;
		if (EVP_CipherUpdate(x->cctx, NULL, &n, aad, (int)c->aad_len) != 1)
			return -1;
	}
	if (EVP_CipherUpdate(x->cctx, out, &n, in, (int)len) != 1)
		return -1;
	if (EVP_CipherFinal_ex(x->cctx, out + n, &n2) != 1)
		return -1;             /* open: tag mismatch */
	if (c->kind == BENCH_AEAD && enc &&
	    EVP_CIPHER_CTX_ctrl(x->cctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1)
		return -1;
	return (size_t)(n + n2) == len ? 0 : -1;
}

static struct bench_impl ossl_impl = {
	.name = "openssl",
	.init = ossl_init,
	.lacks = ossl_lacks,
	.ctx_new = ossl_new,
	.ctx_free = ossl_free,
	.run = ossl_run,
};

struct bench_impl *
bench_peer_openssl(void)
{
	return &ossl_impl;
}
