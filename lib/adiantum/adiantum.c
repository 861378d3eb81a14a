/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Adiantum (Crowley and Biggers, "Adiantum: length-preserving encryption
 * for entry-level processors", 2018; Linux crypto/adiantum.c): key
 * derivation, the hash-encrypt-hash construction on XChaCha12/20, AES-256
 * and NHPoly1305, and the AES-256 dispatch table.
 */
#include "vecsec/vecsec_adiantum.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "adiantum_internal.h"
#include "chacha/chacha_internal.h"

/*
 * ---- AES-256 dispatch: AES-NI or the ARMv8 Cryptography Extensions where
 * the CPU has them, else the constant-time reference ----
 */
const struct aes256_impl *const vecsec_aes256_impls[] = {
#ifdef VECSEC_HAVE_AESNI
	&vecsec_aes256_impl_aesni,
#endif
#ifdef VECSEC_HAVE_ARMV8CE
	&vecsec_aes256_impl_armv8ce,
#endif
	&vecsec_aes256_impl_ref,
	NULL,
};

VECSEC_DEFINE_SELECTION(aes256, aes256_impl)

/* ---- Adiantum ---- */

#define ADIANTUM_BLOCK_LEN AES_BLOCK_LEN                 /* the right part */
#define ADIANTUM_DERIVED_LEN (AES256_KEY_LEN + POLY1305_BLOCK_LEN + NHPOLY1305_KEY_LEN)

struct adiantum_key {
	struct aes256_key aes;                  /* K_E */
	struct nhpoly1305_key hash_key;         /* K_M */
	uint8_t header_r[POLY1305_BLOCK_LEN];   /* K_T, Poly1305 r */
	uint8_t stream_key[CHACHA_KEY_LEN];     /* K_S */
	uint32_t rounds;                        /* 12 or 20 */
};

_Static_assert(sizeof(struct adiantum_key) <= sizeof(struct vecsec_adiantum_key),
	       "vecsec_adiantum_key too small");
_Static_assert(_Alignof(struct adiantum_key) <= _Alignof(struct vecsec_adiantum_key),
	       "vecsec_adiantum_key under-aligned");

/*
 * XChaCha (draft-irtf-cfrg-xchacha, Linux's 64-bit-counter layout) with a
 * 24-byte nonce, from block 0: HChaCha on the first 16 nonce bytes gives
 * the subkey, the last 8 are the ChaCha nonce (state words 14-15).
 */
static void
xchacha_xor(uint8_t *out, const uint8_t *in, size_t len, const uint8_t key[CHACHA_KEY_LEN],
	    const uint8_t nonce[XCHACHA_NONCE_LEN], unsigned int rounds)
{
	struct chacha_state st;
	uint8_t subkey[CHACHA_KEY_LEN];

	vecsec_hchacha_impl(vecsec_chacha_impl(), subkey, key, nonce, rounds);
	chacha_state_init_64(&st, subkey, nonce + HCHACHA_NONCE_LEN, 0, rounds);
	vecsec_chacha_xor_state(&st, out, in, len);
	vecsec_memzero(subkey, sizeof(subkey));
	vecsec_memzero(&st, sizeof(st));
}

VECSEC_API int
vecsec_adiantum_key_init(struct vecsec_adiantum_key *key, const uint8_t *raw, size_t key_len,
			 enum vecsec_adiantum_stream stream)
{
	struct adiantum_key *k = (struct adiantum_key *)key;
	uint8_t nonce[XCHACHA_NONCE_LEN] = { 1 };       /* 1 || 0^191 */
	uint8_t d[ADIANTUM_DERIVED_LEN] = { 0 };

	if (key == NULL || raw == NULL || key_len != VECSEC_ADIANTUM_KEY_LEN ||
	    (stream != VECSEC_ADIANTUM_XCHACHA12 && stream != VECSEC_ADIANTUM_XCHACHA20))
		return -EINVAL;
	/* K_E || K_T || K_M = XChaCha_{K_S}(1 || 0^191), as keystream */
	xchacha_xor(d, d, sizeof(d), raw, nonce, (unsigned int)stream);
	vecsec_aes256_expand(&k->aes, d);
	memcpy(k->header_r, d + AES256_KEY_LEN, POLY1305_BLOCK_LEN);
	vecsec_nhpoly1305_key_parse(&k->hash_key, d + AES256_KEY_LEN + POLY1305_BLOCK_LEN);
	memcpy(k->stream_key, raw, CHACHA_KEY_LEN);
	k->rounds = (uint32_t)stream;
	vecsec_memzero(d, sizeof(d));
	return 0;
}

VECSEC_API void
vecsec_adiantum_key_wipe(struct vecsec_adiantum_key *k)
{
	if (k != NULL)
		vecsec_memzero(k, sizeof(*k));
}

/* Elements of Z/2^128 Z as two little-endian 64-bit halves. */
struct le128 {
	uint64_t lo, hi;
};

static inline struct le128
le128_load(const uint8_t b[16])
{
	return (struct le128){ adiantum_le64(b), adiantum_le64(b + 8) };
}

static inline void
le128_store(uint8_t b[16], struct le128 x)
{
	adiantum_st64(b, x.lo);
	adiantum_st64(b + 8, x.hi);
}

static inline struct le128
le128_add(struct le128 a, struct le128 b)
{
	struct le128 r = { a.lo + b.lo, a.hi + b.hi };

	/* carry out of the low half, by bit logic: no compare on secrets */
	r.hi += ((a.lo & b.lo) | ((a.lo | b.lo) & ~r.lo)) >> 63;
	return r;
}

static inline struct le128
le128_sub(struct le128 a, struct le128 b)
{
	struct le128 r = { a.lo - b.lo, a.hi - b.hi };

	/* borrow out of the low half, by bit logic */
	r.hi -= ((~a.lo & b.lo) | ((~a.lo | b.lo) & r.lo)) >> 63;
	return r;
}

/*
 * The paper's H_{K_T,K_M}(T, L) = Poly1305_{K_T}(le64(8 |L|) || 0^64 || T)
 * + NHPoly1305_{K_M}(L) mod 2^128 (Linux adiantum_hash_header() and
 * adiantum_hash_message()); |L| = bulk_len bytes.
 */
static struct le128
adiantum_hash(const struct adiantum_key *k, const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN],
	      const uint8_t *bulk, size_t bulk_len)
{
	const struct poly1305_impl *poly = vecsec_poly1305_impl();
	struct poly1305_state st;
	struct nhpoly1305_state nhs;
	uint8_t header[POLY1305_BLOCK_LEN] = { 0 }, h[16];
	struct le128 r;

	adiantum_st64(header, (uint64_t)bulk_len * 8);
	vecsec_poly1305_core_init(&st, k->header_r);
	poly->blocks(&st, header, 1, 1);
	poly->blocks(&st, tweak, VECSEC_ADIANTUM_TWEAK_LEN / POLY1305_BLOCK_LEN, 1);
	vecsec_poly1305_core_emit(&st, h);
	r = le128_load(h);
	vecsec_nhpoly1305_begin(&nhs, &k->hash_key);
	vecsec_nhpoly1305_absorb(&nhs, bulk, bulk_len);
	vecsec_nhpoly1305_finish(&nhs, h);
	r = le128_add(r, le128_load(h));
	vecsec_memzero(&st, sizeof(st));
	vecsec_memzero(h, sizeof(h));
	return r;
}

static bool
args_ok(const struct vecsec_adiantum_key *k, const uint8_t *out, const uint8_t *in, size_t len,
	const uint8_t *tweak)
{
	return k != NULL && out != NULL && in != NULL && tweak != NULL &&
	       len >= VECSEC_ADIANTUM_MIN_LEN && len <= SIZE_MAX / 8;
}

/*
 * Encryption (the paper's procedure; Linux adiantum_crypt() then
 * adiantum_finish()), P = P_L || P_R with |P_R| = 16:
 *   P_M = P_R + H(T, P_L);  C_M = AES_{K_E}(P_M);
 *   C_L = P_L ^ XChaCha_{K_S}(C_M || 1 || 0^63);  C_R = C_M - H(T, C_L).
 * Decryption, the same steps backwards:
 *   C_M = C_R + H(T, C_L);  P_L = C_L ^ XChaCha_{K_S}(C_M || 1 || 0^63);
 *   P_M = AES^-1_{K_E}(C_M);  P_R = P_M - H(T, P_L).
 * Both are one walk: the right part plus the hash of the left, AES
 * (encrypt) before or (decrypt) after the stream xor keyed by C_M, minus
 * the hash of the new left part. In place works: the right part is read
 * before it is written, the left part is hashed before it is overwritten.
 */
static int
adiantum_crypt(const struct vecsec_adiantum_key *key, uint8_t *out, const uint8_t *in,
	       size_t len, const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN], bool encrypt)
{
	const struct adiantum_key *k = (const struct adiantum_key *)key;
	size_t bulk_len = len - ADIANTUM_BLOCK_LEN;
	uint8_t rbuf[XCHACHA_NONCE_LEN] = { 0 };
	struct le128 m;

	if (!args_ok(key, out, in, len, tweak))
		return -EINVAL;
	m = le128_add(le128_load(in + bulk_len), adiantum_hash(k, tweak, in, bulk_len));
	le128_store(rbuf, m);                                           /* P_M or C_M */
	if (encrypt)
		vecsec_aes256_impl()->encrypt(&k->aes, rbuf, rbuf);    /* C_M */
	rbuf[16] = 1;                                                   /* nonce C_M || 1 || 0 */
	xchacha_xor(out, in, bulk_len, k->stream_key, rbuf, k->rounds);
	if (!encrypt)
		vecsec_aes256_impl()->decrypt(&k->aes, rbuf, rbuf);    /* P_M */
	m = le128_sub(le128_load(rbuf), adiantum_hash(k, tweak, out, bulk_len));
	le128_store(out + bulk_len, m);
	vecsec_memzero(rbuf, sizeof(rbuf));
	vecsec_memzero(&m, sizeof(m));
	return 0;
}

VECSEC_API int
vecsec_adiantum_encrypt(const struct vecsec_adiantum_key *key, uint8_t *out, const uint8_t *in,
			size_t len, const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN])
{
	return adiantum_crypt(key, out, in, len, tweak, true);
}

VECSEC_API int
vecsec_adiantum_decrypt(const struct vecsec_adiantum_key *key, uint8_t *out, const uint8_t *in,
			size_t len, const uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN])
{
	return adiantum_crypt(key, out, in, len, tweak, false);
}
