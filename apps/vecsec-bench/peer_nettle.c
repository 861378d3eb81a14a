/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench peer: GNU Nettle (chacha_poly1305_* for the AEAD, chacha
 * with a 96-bit nonce and 32-bit counter for ChaCha20 alone). Nettle's
 * public Poly1305 is Poly1305-AES only; the one-time Poly1305 of RFC 8439
 * is measured through the three block functions its own AEAD uses
 * (_nettle_poly1305_set_key/_block/_digest, exported in the
 * NETTLE_INTERNAL symbol version), with the last partial block padded as
 * RFC 8439 2.5 says: the fastest short-message Poly1305 among the peers.
 * Open compares the tag in constant time here (Nettle leaves that to the
 * caller).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/chacha.h>
#include <nettle/chacha-poly1305.h>
#include <nettle/poly1305.h>
#include <nettle/version.h>

#include "bench.h"

/* Nettle's internal Poly1305 (poly1305-internal.h, not installed). */
void _nettle_poly1305_set_key(struct poly1305_ctx *ctx, const uint8_t key[16]);
void _nettle_poly1305_block(struct poly1305_ctx *ctx, const uint8_t *m, unsigned high);
void _nettle_poly1305_digest(struct poly1305_ctx *ctx, union nettle_block16 *s);

struct nettle_bench_ctx {
	const struct bench_case *c;
	uint8_t key[32];
	struct chacha_poly1305_ctx aead;
	struct chacha_ctx chacha;
	struct poly1305_ctx poly;
};

static bool
nettle_bench_init(struct bench_impl *im)
{
	snprintf(im->version, sizeof(im->version), "nettle %d.%d", nettle_version_major(),
		 nettle_version_minor());
	return true;
}

static const char *
nettle_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
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
nettle_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct nettle_bench_ctx *x = calloc(1, sizeof(*x));

	(void)im;
	if (x == NULL)
		return NULL;
	x->c = c;
	memcpy(x->key, key, 32);
	chacha_poly1305_set_key(&x->aead, key);
	chacha_set_key(&x->chacha, key);
	return x;
}

static void
nettle_free(void *p)
{
	volatile uint8_t *v = p;

	if (p == NULL)
		return;
	for (size_t i = 0; i < sizeof(struct nettle_bench_ctx); i++)
		v[i] = 0;
	free(p);
}

/* RFC 8439 2.5 over Nettle's block function: the key is set up per message. */
static void
nettle_mac(struct nettle_bench_ctx *x, uint8_t tag[16], const uint8_t *in, size_t len)
{
	union nettle_block16 s;

	_nettle_poly1305_set_key(&x->poly, x->key);
	for (; len >= 16; len -= 16, in += 16)
		_nettle_poly1305_block(&x->poly, in, 1);
	if (len > 0) {
		uint8_t b[16] = { 0 };

		memcpy(b, in, len);
		b[len] = 1;
		_nettle_poly1305_block(&x->poly, b, 0);
	}
	memcpy(s.b, x->key + 16, 16);
	_nettle_poly1305_digest(&x->poly, &s);
	memcpy(tag, s.b, 16);
}

static int
nettle_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
	   const uint8_t *nonce, const uint8_t *aad)
{
	struct nettle_bench_ctx *x = p;
	static const uint8_t one[4] = { 1, 0, 0, 0 };
	uint8_t calc[16];

	switch (x->c->id) {
	case CASE_CHACHA20_POLY1305:
		chacha_poly1305_set_nonce(&x->aead, nonce);
		chacha_poly1305_update(&x->aead, x->c->aad_len, aad);
		if (op == BENCH_ENC) {
			chacha_poly1305_encrypt(&x->aead, len, out, in);
			chacha_poly1305_digest(&x->aead, 16, tag);
			return 0;
		}
		chacha_poly1305_decrypt(&x->aead, len, out, in);
		chacha_poly1305_digest(&x->aead, 16, calc);
		if (bench_tag_diff(calc, tag)) {
			memset(out, 0, len);
			return -1;
		}
		return 0;
	case CASE_CHACHA20:
		/* RFC 8439 2.4: 96-bit nonce, 32-bit block counter from 1 */
		chacha_set_nonce96(&x->chacha, nonce);
		chacha_set_counter32(&x->chacha, one);
		chacha_crypt32(&x->chacha, len, out, in);
		return 0;
	case CASE_POLY1305:
		nettle_mac(x, tag, in, len);
		return 0;
	default:
		return -1;
	}
}

static struct bench_impl nettle_impl = {
	.name = "nettle",
	.init = nettle_bench_init,
	.lacks = nettle_lacks,
	.ctx_new = nettle_new,
	.ctx_free = nettle_free,
	.run = nettle_run,
};

struct bench_impl *
bench_peer_nettle(void)
{
	return &nettle_impl;
}
