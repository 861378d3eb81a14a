/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ESP-form ChaCha20-Poly1305 vectors (RFC 7634): key material = 32-byte key
 * || 4-byte salt (RFC 7634 3), nonce = salt || 8-byte IV (RFC 7634 2), AAD
 * = SPI || seq, or SPI || seq-hi || seq-lo with ESN (RFC 7634 2.1).
 *
 * RFC 7634 Appendix B's packet could not be retrieved while writing this
 * (the stored copies of the RFC end before it), so it is NOT here. These
 * are the two RFC 8439 AEAD vectors whose inputs have exactly the ESP shape,
 * decomposed into ESP fields: in 2.8.2 the "32-bit fixed-common part"
 * 07000000 is the salt, 4041..47 the IV, and the 12-byte AAD reads as
 * SPI 0x50515253 with ESN 0xc0c1c2c3:c4c5c6c7; in A.5 the salt is 00000000,
 * the IV 0102..08, the AAD SPI 0xf3338886 with ESN 0x00000000:00004e91.
 * Ciphertexts and tags are those of rfc8439.h.
 */
#ifndef VT_VECTORS_RFC7634_H
#define VT_VECTORS_RFC7634_H

#include <stdint.h>

#include "rfc8439.h"

struct rfc7634_esp_vec {
	const char *name;
	const char *keymat;     /* key || salt, 36 bytes */
	const char *iv;         /* 8 bytes carried in the packet */
	uint32_t spi;
	uint64_t seq;
	bool esn;
	const struct rfc8439_aead_vec *aead;   /* plaintext, ciphertext, tag */
};

static const struct rfc7634_esp_vec rfc7634_esp[] = {
	{ "RFC 8439 2.8.2 as ESP",
	  "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f 07000000",
	  "4041424344454647", 0x50515253, 0xc0c1c2c3c4c5c6c7ULL, true, &rfc8439_aead[0] },
	{ "RFC 8439 A.5 as ESP",
	  "1c 92 40 a5 eb 55 d3 8a f3 33 88 86 04 f6 b5 f0"
	  "47 39 17 c1 40 2b 80 09 9d ca 5c bc 20 70 75 c0 00000000",
	  "0102030405060708", 0xf3338886, 0x0000000000004e91ULL, true, &rfc8439_aead[1] },
};

#endif /* VT_VECTORS_RFC7634_H */
