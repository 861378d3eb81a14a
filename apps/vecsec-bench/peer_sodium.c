/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench peer: libsodium (IETF ChaCha20-Poly1305 and XChaCha20-
 * Poly1305 with detached tags, the IETF ChaCha20 stream with a block
 * counter, one-time Poly1305). libsodium takes the raw key on every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bench.h"

struct sodium_ctx {
	const struct bench_case *c;
	uint8_t key[32];
};

static bool
sodium_bench_init(struct bench_impl *im)
{
	if (sodium_init() < 0) {
		snprintf(im->version, sizeof(im->version), "sodium_init failed");
		return false;
	}
	snprintf(im->version, sizeof(im->version), "libsodium %s", sodium_version_string());
	return true;
}

static const char *
sodium_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
{
	(void)im, (void)burst;
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
	case CASE_XCHACHA20_POLY1305:
	case CASE_CHACHA20:
	case CASE_POLY1305:
		return NULL;
	default:
		return bench_case_missing(c, "no ARIA");
	}
}

static void *
sodium_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct sodium_ctx *x = calloc(1, sizeof(*x));

	(void)im;
	if (x == NULL)
		return NULL;
	x->c = c;
	memcpy(x->key, key, 32);
	return x;
}

static void
sodium_ctx_free(void *p)
{
	if (p != NULL)
		sodium_memzero(p, sizeof(struct sodium_ctx));
	free(p);
}

static int
sodium_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
	   const uint8_t *nonce, const uint8_t *aad)
{
	struct sodium_ctx *x = p;
	unsigned long long tl;

	switch (x->c->id) {
	case CASE_CHACHA20_POLY1305:
		if (op == BENCH_ENC)
			return crypto_aead_chacha20poly1305_ietf_encrypt_detached(out, tag, &tl,
				in, len, aad, 8, NULL, nonce, x->key);
		return crypto_aead_chacha20poly1305_ietf_decrypt_detached(out, NULL, in, len,
			tag, aad, 8, nonce, x->key);
	case CASE_XCHACHA20_POLY1305:
		if (op == BENCH_ENC)
			return crypto_aead_xchacha20poly1305_ietf_encrypt_detached(out, tag, &tl,
				in, len, aad, 8, NULL, nonce, x->key);
		return crypto_aead_xchacha20poly1305_ietf_decrypt_detached(out, NULL, in, len,
			tag, aad, 8, nonce, x->key);
	case CASE_CHACHA20:
		return crypto_stream_chacha20_ietf_xor_ic(out, in, len, nonce, 1, x->key);
	case CASE_POLY1305:
		return crypto_onetimeauth_poly1305(tag, in, len, x->key);
	default:
		return -1;
	}
}

static struct bench_impl sodium_impl = {
	.name = "libsodium",
	.init = sodium_bench_init,
	.lacks = sodium_lacks,
	.ctx_new = sodium_new,
	.ctx_free = sodium_ctx_free,
	.run = sodium_run,
};

struct bench_impl *
bench_peer_sodium(void)
{
	return &sodium_impl;
}
