/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers for ChaCha suites (header-only): the OpenSSL EVP_chacha20
 * oracle, with the RFC 8439 block counter and 12-byte nonce.
 */
#ifndef VT_CHACHA_H
#define VT_CHACHA_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* OpenSSL: the 16-byte IV is the LE32 block counter || 12-byte nonce */
static inline void
vt_ossl_chacha20(uint8_t *out, const uint8_t *in, size_t len, const uint8_t key[32],
		 const uint8_t nonce[12], uint32_t ctr)
{
	EVP_CIPHER_CTX *c;
	uint8_t iv[16];
	int outl = 0;

	if (len == 0)
		return;
	for (int i = 0; i < 4; i++)
		iv[i] = (uint8_t)(ctr >> (8 * i));
	memcpy(iv + 4, nonce, 12);
	c = EVP_CIPHER_CTX_new();
	if (c == NULL || EVP_EncryptInit_ex(c, EVP_chacha20(), NULL, key, iv) != 1 ||
	    EVP_EncryptUpdate(c, out, &outl, in, (int)len) != 1 || (size_t)outl != len) {
		fprintf(stderr, "OpenSSL chacha20 failed\n");
		exit(2);
	}
	EVP_CIPHER_CTX_free(c);
}

#endif /* VT_CHACHA_H */
