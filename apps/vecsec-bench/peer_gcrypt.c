/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench peer: libgcrypt (gcry_cipher ChaCha20 in POLY1305 mode for
 * the AEAD and in STREAM mode alone, gcry_mac Poly1305). ARIA arrived in
 * libgcrypt 1.11; older versions (Debian 12 has 1.10) show it as n/a.
 * --gcrypt-deny names hardware features libgcrypt must not use
 * (GCRYCTL_DISABLE_HWF before initialization: what /etc/gcrypt/hwf.deny
 * does, for this process only); the version column says what was denied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

#include "vecsec/vecsec.h"
#include "bench.h"

#if GCRYPT_VERSION_NUMBER >= 0x010b00
#define GC_HAVE_ARIA 1
#endif

struct gc_ctx {
	const struct bench_case *c;
	gcry_cipher_hd_t h;
	gcry_mac_hd_t m;
	uint8_t key[32];
};

static bool
gc_init(struct bench_impl *im)
{
	const char *v;

	if (bench_gcrypt_deny != NULL && *bench_gcrypt_deny != '\0') {
		char *list = strdup(bench_gcrypt_deny), *save = NULL;

		for (char *t = strtok_r(list, ",", &save); t != NULL;
		     t = strtok_r(NULL, ",", &save)) {
			if (gcry_control(GCRYCTL_DISABLE_HWF, t, NULL) != 0) {
				/* 1.10 has no "intel-avx512": nothing to deny */
				fprintf(stderr, "vecsec-bench: libgcrypt knows no feature %s"
					" (not denied)\n", t);
			}
		}
		free(list);
	}
	v = gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	snprintf(im->version, sizeof(im->version), "libgcrypt %s%s%s", v != NULL ? v : "?",
		 bench_gcrypt_deny != NULL ? " deny " : "",
		 bench_gcrypt_deny != NULL ? bench_gcrypt_deny : "");
	return v != NULL;
}

static int
gc_algo_mode(const struct bench_case *c, int *mode)
{
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
		*mode = GCRY_CIPHER_MODE_POLY1305;
		return GCRY_CIPHER_CHACHA20;
	case CASE_CHACHA20:
		*mode = GCRY_CIPHER_MODE_STREAM;
		return GCRY_CIPHER_CHACHA20;
#ifdef GC_HAVE_ARIA
	case CASE_ARIA128_CTR:
		*mode = GCRY_CIPHER_MODE_CTR;
		return GCRY_CIPHER_ARIA128;
	case CASE_ARIA256_CTR:
		*mode = GCRY_CIPHER_MODE_CTR;
		return GCRY_CIPHER_ARIA256;
	case CASE_ARIA128_GCM:
		*mode = GCRY_CIPHER_MODE_GCM;
		return GCRY_CIPHER_ARIA128;
	case CASE_ARIA128_ECB:
		*mode = GCRY_CIPHER_MODE_ECB;
		return GCRY_CIPHER_ARIA128;
#endif
	default:
		return 0;
	}
}

static const char *
gc_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
{
	int mode;

	(void)im, (void)burst;
	if (c->id == CASE_POLY1305 || gc_algo_mode(c, &mode) != 0)
		return NULL;
	return bench_case_missing(c, "no ARIA before 1.11");
}

static void
gc_free(void *p)
{
	struct gc_ctx *x = p;

	if (x == NULL)
		return;
	if (x->h != NULL)
		gcry_cipher_close(x->h);
	if (x->m != NULL)
		gcry_mac_close(x->m);
	vecsec_memzero(x->key, sizeof(x->key));   /* a memset before free may be dropped */
	free(x);
}

static void *
gc_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct gc_ctx *x = calloc(1, sizeof(*x));
	int mode = 0, algo;

	(void)im;
	if (x == NULL)
		return NULL;
	x->c = c;
	if (c->id == CASE_POLY1305) {
		memcpy(x->key, key, 32);
		if (gcry_mac_open(&x->m, GCRY_MAC_POLY1305, 0, NULL) != 0)
			goto fail;
		return x;
	}
	algo = gc_algo_mode(c, &mode);
	if (gcry_cipher_open(&x->h, algo, mode, 0) != 0 ||
	    gcry_cipher_setkey(x->h, key, c->key_len) != 0)
		goto fail;
	return x;
fail:
	gc_free(x);
	return NULL;
}

static int
gc_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
       const uint8_t *nonce, const uint8_t *aad)
{
	struct gc_ctx *x = p;
	const struct bench_case *c = x->c;
	uint8_t iv[16];
	size_t tl = 16;

	if (c->id == CASE_POLY1305) {
		/* a Poly1305 key is one-time: setkey starts a new message */
		if (gcry_mac_setkey(x->m, x->key, 32) != 0 || gcry_mac_write(x->m, in, len) != 0 ||
		    gcry_mac_read(x->m, tag, &tl) != 0)
			return -1;
		return tl == 16 ? 0 : -1;
	}
	switch (c->kind) {
	case BENCH_AEAD:
		if (gcry_cipher_setiv(x->h, nonce, c->nonce_len) != 0 ||
		    gcry_cipher_authenticate(x->h, aad, c->aad_len) != 0)
			return -1;
		if (op == BENCH_ENC)
			return (gcry_cipher_encrypt(x->h, out, len, in, len) != 0 ||
				gcry_cipher_gettag(x->h, tag, 16) != 0) ? -1 : 0;
		return (gcry_cipher_decrypt(x->h, out, len, in, len) != 0 ||
			gcry_cipher_checktag(x->h, tag, 16) != 0) ? -1 : 0;
	case BENCH_CIPHER:
		if (c->id == CASE_CHACHA20) {
			/* 16-byte IV: 32-bit little-endian block counter || nonce */
			iv[0] = 1;
			iv[1] = iv[2] = iv[3] = 0;
			memcpy(iv + 4, nonce, 12);
			if (gcry_cipher_setiv(x->h, iv, 16) != 0)
				return -1;
		} else if (gcry_cipher_setctr(x->h, nonce, 16) != 0) {
			return -1;
		}
		return gcry_cipher_encrypt(x->h, out, len, in, len) != 0 ? -1 : 0;
	case BENCH_BLOCK:
		return gcry_cipher_encrypt(x->h, out, len, in, len) != 0 ? -1 : 0;
	default:
		return -1;
	}
}

static struct bench_impl gc_impl = {
	.name = "libgcrypt",
	.init = gc_init,
	.lacks = gc_lacks,
	.ctx_new = gc_new,
	.ctx_free = gc_free,
	.run = gc_run,
};

struct bench_impl *
bench_peer_gcrypt(void)
{
	return &gc_impl;
}
