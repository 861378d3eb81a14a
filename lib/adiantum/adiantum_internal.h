/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Adiantum internals (never installed): NH (Adiantum paper, section 6.3)
 * and the AES-256 single-block cipher, each with a dispatch table (a const
 * impl per ISA, widest first) so SIMD kernels can be added without
 * touching the callers.
 *
 * NH kernel contract (every ISA):
 *   - nh(key, msg, len, hash): len is a multiple of NH_MESSAGE_UNIT and
 *     at most NH_MESSAGE_BYTES (0 allowed: all four sums 0); key holds at
 *     least len / 4 + NH_KEY_EXTRA_WORDS words; no alignment needed.
 *   - hash[i] is pass i's 64-bit sum (mod 2^64) in host order; the caller
 *     serialises it little-endian for Poly1305.
 *   - Constant time: no branch or index depends on key or message.
 *
 * AES kernel contract (every ISA):
 *   - encrypt/decrypt one 16-byte block, out == in allowed, no alignment.
 *   - Both read the same struct aes256_key, filled once by the portable
 *     vecsec_aes256_expand(), so a key stays valid whatever dispatch picks
 *     later (vecsec_force_isa() in tests).
 *   - Constant time: no secret-dependent branch or table index.
 */
#ifndef VECSEC_ADIANTUM_INTERNAL_H
#define VECSEC_ADIANTUM_INTERNAL_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_internal.h"
#include "poly1305/poly1305_internal.h"

/* ---- NH (Adiantum paper 6.3; Linux include/crypto/nhpoly1305.h) ---- */
#define NH_PAIR_STRIDE 2
#define NH_MESSAGE_UNIT (NH_PAIR_STRIDE * 8)   /* 16 bytes */
#define NH_NUM_PASSES 4
#define NH_HASH_BYTES (NH_NUM_PASSES * 8)      /* 32 bytes */
#define NH_MESSAGE_BYTES 1024
#define NH_MESSAGE_WORDS (NH_MESSAGE_BYTES / 4)
/* Pass i uses the key shifted by 4 i words: 12 words past the message. */
#define NH_KEY_EXTRA_WORDS (NH_PAIR_STRIDE * 2 * (NH_NUM_PASSES - 1))
#define NH_KEY_WORDS (NH_MESSAGE_WORDS + NH_KEY_EXTRA_WORDS) /* 268 */
#define NH_KEY_BYTES (NH_KEY_WORDS * 4)                    /* 1072 */

struct nh_impl {
	const char *name;            /* "ref": printed by tests and the bench */
	enum vecsec_isa isa;         /* level needed, compared with the cap */
	uint64_t needs;              /* extra VECSEC_CPU_* bits */
	void (*nh)(const uint32_t *key, const uint8_t *msg, size_t len,
		   uint64_t hash[NH_NUM_PASSES]);
};

/* Widest first, NULL-terminated, the reference last (nhpoly1305.c). */
extern const struct nh_impl *const vecsec_nh_impls[];
extern const struct nh_impl vecsec_nh_impl_ref;
extern const struct nh_impl vecsec_nh_impl_sse2;     /* nh_sse2.c, ssse3 flag set */
extern const struct nh_impl vecsec_nh_impl_avx2;     /* nh_avx2.c */
extern const struct nh_impl vecsec_nh_impl_neon;
void vecsec_nh_ref(const uint32_t *key, const uint8_t *msg, size_t len,
		   uint64_t hash[NH_NUM_PASSES]);
/* The impl selected at a level, and at the process's level (vecsec_isa_cap()). */
const struct nh_impl *vecsec_nh_impl_at(enum vecsec_isa level);
const struct nh_impl *vecsec_nh_impl(void);

/* ---- NHPoly1305 (Adiantum paper 6.4; Linux crypto/nhpoly1305.c) ---- */
#define NHPOLY1305_KEY_LEN (POLY1305_BLOCK_LEN + NH_KEY_BYTES)  /* 1088 */
#define NHPOLY1305_DIGEST_LEN 16

/* A parsed key: Poly1305 r as given (clamped at each use), NH words. */
struct nhpoly1305_key {
	uint32_t nh_key[NH_KEY_WORDS];
	uint8_t r[POLY1305_BLOCK_LEN];
};

/*
 * A message being hashed. NH runs on 1024-byte chunks; nh_remaining is
 * how many bytes the open chunk can still take (0: none open), nh_hash its
 * sums so far; buf holds a partial 16-byte unit. Impls are fixed at begin.
 */
struct nhpoly1305_state {
	struct poly1305_state poly;
	const struct poly1305_impl *poly_impl;
	const struct nh_impl *nh_impl;
	const struct nhpoly1305_key *key;
	uint64_t nh_hash[NH_NUM_PASSES];
	size_t nh_remaining;
	size_t buf_len;
	uint8_t buf[NH_MESSAGE_UNIT];
};

void vecsec_nhpoly1305_key_parse(struct nhpoly1305_key *k, const uint8_t key[NHPOLY1305_KEY_LEN]);
void vecsec_nhpoly1305_begin(struct nhpoly1305_state *s, const struct nhpoly1305_key *k);
void vecsec_nhpoly1305_absorb(struct nhpoly1305_state *s, const uint8_t *in, size_t len);
/* Writes the digest and wipes the state. */
void vecsec_nhpoly1305_finish(struct nhpoly1305_state *s, uint8_t out[NHPOLY1305_DIGEST_LEN]);

/* ---- AES-256, one block (FIPS 197) ---- */
#define AES_BLOCK_LEN 16
#define AES256_KEY_LEN 32
#define AES256_ROUNDS 14

/*
 * Round keys as bytes, in FIPS 197 order (state column-major: byte r + 4 c
 * is row r, column c). ek: the cipher's round keys 0..14 (5.2). dk: the
 * equivalent inverse cipher's (5.3.5): ek[14], InvMixColumns(ek[13..1]),
 * ek[0], the layout AESDEC wants. Secret: wipe with vecsec_memzero().
 */
struct aes256_key {
	alignas(16) uint8_t ek[AES256_ROUNDS + 1][AES_BLOCK_LEN];
	alignas(16) uint8_t dk[AES256_ROUNDS + 1][AES_BLOCK_LEN];
};

struct aes256_impl {
	const char *name;
	enum vecsec_isa isa;
	uint64_t needs;
	void (*encrypt)(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			const uint8_t in[AES_BLOCK_LEN]);
	void (*decrypt)(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			const uint8_t in[AES_BLOCK_LEN]);
};

/* Key expansion (FIPS 197 5.2) plus dk: portable, constant time. */
void vecsec_aes256_expand(struct aes256_key *k, const uint8_t key[AES256_KEY_LEN]);

extern const struct aes256_impl *const vecsec_aes256_impls[];
extern const struct aes256_impl vecsec_aes256_impl_ref;
extern const struct aes256_impl vecsec_aes256_impl_aesni;
extern const struct aes256_impl vecsec_aes256_impl_armv8ce;
void vecsec_aes256_encrypt_ref(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			       const uint8_t in[AES_BLOCK_LEN]);
void vecsec_aes256_decrypt_ref(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			       const uint8_t in[AES_BLOCK_LEN]);
/* The impl selected at a level, and at the process's level (vecsec_isa_cap()). */
const struct aes256_impl *vecsec_aes256_impl_at(enum vecsec_isa level);
const struct aes256_impl *vecsec_aes256_impl(void);

static inline uint32_t
adiantum_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void
adiantum_st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t
adiantum_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif /* VECSEC_ADIANTUM_INTERNAL_H */
