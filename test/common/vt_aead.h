/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test helpers for AEAD suites (header-only): scatter-gather lists laid out
 * with guard gaps between segments (so a write that ignores a segment
 * boundary is caught), and the library oracles for (X)ChaCha20-Poly1305:
 * OpenSSL EVP_chacha20_poly1305 and EVP_aria_*_gcm/ctr, libsodium
 * crypto_aead_xchacha20poly1305_ietf.
 */
#ifndef VT_AEAD_H
#define VT_AEAD_H

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "vt.h"
#include "vecsec/vecsec_aead.h"

#define VT_SG_GAP 3             /* guard bytes between segments */

struct vt_sg {
	struct vecsec_seg *segs;
	uint32_t nb;
	uint8_t *mem;
	size_t mem_len;
	size_t len;             /* bytes the list must cover */
};

enum vt_sg_style {
	VT_SG_ONES,             /* every segment one byte */
	VT_SG_RANDOM,           /* odd sizes, empty segments, a spare tail */
};

/*
 * Lay out len bytes over segments separated by VT_SG_GAP guard bytes. The
 * random style mixes empty segments (some with NULL data) and ends with a
 * segment that goes beyond len (bytes past len must stay untouched).
 */
static inline void
vt_sg_make(struct vt_sg *s, size_t len, enum vt_sg_style style, uint64_t *st)
{
	size_t cap = len + 8, pos = 0;
	uint8_t *p;

	s->segs = calloc(cap, sizeof(*s->segs));
	s->mem_len = 2 * len + VT_SG_GAP * (cap + 2) + 64;
	s->mem = malloc(s->mem_len);
	if (s->segs == NULL || s->mem == NULL)
		abort();
	memset(s->mem, VT_GUARD_BYTE, s->mem_len);
	s->len = len;
	s->nb = 0;
	p = s->mem + VT_SG_GAP;
	while (pos < len && s->nb < cap - 3) {
		size_t n = 1;

		if (style == VT_SG_RANDOM) {
			uint32_t r = vt_below(st, 8);

			n = r == 0 ? 0 : r < 4 ? 1 + vt_below(st, 7) : 1 + vt_below(st, 200);
		}
		if (n > len - pos)
			n = len - pos;
		s->segs[s->nb].data = (n == 0 && vt_below(st, 2)) ? NULL : p;
		s->segs[s->nb].len = n;
		s->nb++;
		p += n + VT_SG_GAP;
		pos += n;
	}
	if (style == VT_SG_RANDOM) {
		/* an empty one, then one reaching past len */
		s->segs[s->nb].data = p;
		s->segs[s->nb++].len = 0;
		s->segs[s->nb].data = p;
		s->segs[s->nb++].len = 5;
	}
}

static inline void
vt_sg_free(struct vt_sg *s)
{
	free(s->segs);
	free(s->mem);
	s->segs = NULL;
	s->mem = NULL;
}

/* Copy linear data into the list (first len bytes). */
static inline void
vt_sg_scatter(struct vt_sg *s, const uint8_t *src)
{
	size_t pos = 0;

	for (uint32_t i = 0; i < s->nb && pos < s->len; i++) {
		size_t n = s->segs[i].len < s->len - pos ? s->segs[i].len : s->len - pos;

		if (n > 0)
			memcpy(s->segs[i].data, src + pos, n);
		pos += n;
	}
}

static inline void
vt_sg_gather(const struct vt_sg *s, uint8_t *dst)
{
	size_t pos = 0;

	for (uint32_t i = 0; i < s->nb && pos < s->len; i++) {
		size_t n = s->segs[i].len < s->len - pos ? s->segs[i].len : s->len - pos;

		if (n > 0)
			memcpy(dst + pos, s->segs[i].data, n);
		pos += n;
	}
}

/* True if every byte outside the covered part of the segments is untouched. */
static inline bool
vt_sg_guards_ok(const struct vt_sg *s)
{
	uint8_t *shadow = malloc(s->mem_len);
	size_t pos = 0;
	bool ok;

	if (shadow == NULL)
		abort();
	memcpy(shadow, s->mem, s->mem_len);
	for (uint32_t i = 0; i < s->nb && pos < s->len; i++) {
		size_t n = s->segs[i].len < s->len - pos ? s->segs[i].len : s->len - pos;

		if (n > 0)
			memset(shadow + (s->segs[i].data - s->mem), VT_GUARD_BYTE, n);
		pos += n;
	}
	ok = true;
	for (size_t i = 0; i < s->mem_len; i++)
		ok &= shadow[i] == VT_GUARD_BYTE;
	free(shadow);
	return ok;
}

/* ---- oracles ---- */

/* OpenSSL ChaCha20-Poly1305 (RFC 8439) seal */
static inline void
vt_ossl_chachapoly_seal(uint8_t *out, uint8_t tag[16], const uint8_t *in, size_t len,
			const uint8_t key[32], const uint8_t nonce[12], const uint8_t *aad,
			size_t aad_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int outl = 0;

	if (c == NULL || EVP_EncryptInit_ex(c, EVP_chacha20_poly1305(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1 ||
	    EVP_EncryptInit_ex(c, NULL, NULL, key, nonce) != 1 ||
	    (aad_len > 0 && EVP_EncryptUpdate(c, NULL, &outl, aad, (int)aad_len) != 1) ||
	    (len > 0 && EVP_EncryptUpdate(c, out, &outl, in, (int)len) != 1) ||
	    EVP_EncryptFinal_ex(c, out + len, &outl) != 1 ||
	    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) {
		fprintf(stderr, "OpenSSL chacha20-poly1305 failed\n");
		exit(2);
	}
	EVP_CIPHER_CTX_free(c);
}

/* OpenSSL ARIA-GCM (SP 800-38D, tag truncated to tag_len) or ARIA-CTR */
static inline void
vt_ossl_aria_seal(enum vecsec_aead_alg alg, uint8_t *out, uint8_t *tag, size_t tag_len,
		  const uint8_t *in, size_t len, const uint8_t *key, size_t key_len,
		  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	const EVP_CIPHER *cipher;
	uint8_t full[16];
	int outl = 0;
	bool gcm = alg == VECSEC_AEAD_ARIA_GCM, ok;

	if (gcm)
		cipher = key_len == 16 ? EVP_aria_128_gcm() :
			 key_len == 24 ? EVP_aria_192_gcm() : EVP_aria_256_gcm();
	else
		cipher = key_len == 16 ? EVP_aria_128_ctr() :
			 key_len == 24 ? EVP_aria_192_ctr() : EVP_aria_256_ctr();
	ok = c != NULL && EVP_EncryptInit_ex(c, cipher, NULL, NULL, NULL) == 1;
	if (ok && gcm)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)nonce_len, NULL) == 1;
	ok = ok && EVP_EncryptInit_ex(c, NULL, NULL, key, nonce) == 1;
	if (ok && gcm && aad_len > 0)
		ok = EVP_EncryptUpdate(c, NULL, &outl, aad, (int)aad_len) == 1;
	if (ok && len > 0)
		ok = EVP_EncryptUpdate(c, out, &outl, in, (int)len) == 1;
	ok = ok && EVP_EncryptFinal_ex(c, full, &outl) == 1;
	if (ok && gcm) {
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, full) == 1;
		memcpy(tag, full, tag_len);
	}
	if (!ok) {
		fprintf(stderr, "OpenSSL ARIA failed\n");
		exit(2);
	}
	EVP_CIPHER_CTX_free(c);
}

/*
 * The oracle for any algorithm: OpenSSL (ChaCha20-Poly1305, ARIA) or
 * libsodium (XChaCha20-Poly1305).
 */
static inline void
vt_oracle_seal_ex(enum vecsec_aead_alg alg, uint8_t *out, uint8_t *tag, size_t tag_len,
		  const uint8_t *in, size_t len, const uint8_t *key, size_t key_len,
		  const uint8_t *nonce, size_t nonce_len, const uint8_t *aad, size_t aad_len)
{
	unsigned long long maclen = 0;

	switch (alg) {
	case VECSEC_AEAD_CHACHA20_POLY1305:
		vt_ossl_chachapoly_seal(out, tag, in, len, key, nonce, aad, aad_len);
		break;
	case VECSEC_AEAD_XCHACHA20_POLY1305:
		crypto_aead_xchacha20poly1305_ietf_encrypt_detached(out, tag, &maclen, in, len, aad,
								    aad_len, NULL, nonce, key);
		break;
	default:
		vt_ossl_aria_seal(alg, out, tag, tag_len, in, len, key, key_len, nonce, nonce_len,
				  aad, aad_len);
		break;
	}
}

/* (X)ChaCha20-Poly1305: 32-byte key, 16-byte tag */
static inline void
vt_oracle_seal(enum vecsec_aead_alg alg, uint8_t *out, uint8_t tag[16], const uint8_t *in,
	       size_t len, const uint8_t key[32], const uint8_t *nonce, const uint8_t *aad,
	       size_t aad_len)
{
	vt_oracle_seal_ex(alg, out, tag, 16, in, len, key, 32, nonce,
			  alg == VECSEC_AEAD_XCHACHA20_POLY1305 ? 24 : 12, aad, aad_len);
}

static inline size_t
vt_nonce_len(enum vecsec_aead_alg alg)
{
	return alg == VECSEC_AEAD_XCHACHA20_POLY1305 ? VECSEC_XCHACHAPOLY_NONCE_LEN :
						       VECSEC_CHACHAPOLY_NONCE_LEN;
}

#endif /* VT_AEAD_H */
