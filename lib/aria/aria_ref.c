/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA, portable reference (RFC 5794): key schedule (2.2), encryption and
 * decryption (2.3), round functions, substitution and diffusion layers
 * (2.4). One block per step, no tables: the s-boxes are computed with
 * constant-time GF(2^8) inversion (lib/cpu/gf256.h), so no branch or
 * memory index depends on key or data. Slow (about 200 inversions per
 * block); it is the oracle of every SIMD path and the fallback.
 */
#include <string.h>

#include "aria_internal.h"
#include "gf256.h"

/* ---- 2.4.2 S-boxes ---- */

/*
 * The ARIA specification defines SB2(x) = B * x^247 + 0xe2 over GF(2) (B an
 * 8x8 bit matrix); RFC 5794 gives the table. Since x^247 = x^-8 = (x^-1)^8
 * and raising to the 8th power is GF(2)-linear, SB2(x) = M * x^-1 + 0xe2
 * with M = B * (squaring)^3. M is given by its columns M * 2^j (j = bit
 * index, 0 = least significant); M^-1 gives SB4 = SB2^-1. test_aria checks
 * every value against the RFC's SB2 table.
 */
static const uint8_t sb2_cols[8] = { 0xac, 0xfd, 0xc6, 0x83, 0x26, 0xa7, 0xfb, 0x5f };
static const uint8_t sb4_cols[8] = { 0xd8, 0x38, 0x7a, 0xc1, 0x75, 0x52, 0xae, 0xe8 };

/* A GF(2)-linear map of a byte, by columns, with masks instead of branches. */
static inline uint8_t
linear8(const uint8_t cols[8], uint8_t v)
{
	uint8_t r = 0;

	for (int j = 0; j < 8; j++)
		r ^= cols[j] & (uint8_t)-((v >> j) & 1);
	return r;
}

/* SB1 is the AES s-box, SB3 = SB1^-1. */
static inline uint8_t
sb1(uint8_t x)
{
	return vecsec_aes_sbox_ct(x);
}

static inline uint8_t
sb2(uint8_t x)
{
	return linear8(sb2_cols, vecsec_gf256_inv(x)) ^ 0xe2;
}

static inline uint8_t
sb3(uint8_t x)
{
	return vecsec_aes_inv_sbox_ct(x);
}

static inline uint8_t
sb4(uint8_t x)
{
	return vecsec_gf256_inv(linear8(sb4_cols, x ^ 0xe2));
}

uint8_t
vecsec_aria_sbox_ref(unsigned int box, uint8_t x)
{
	switch (box) {
	case 1:
		return sb1(x);
	case 2:
		return sb2(x);
	case 3:
		return sb3(x);
	default:
		return sb4(x);
	}
}

/* ---- 2.4.2 substitution layers ---- */

/* Type 1 (odd rounds): SB1, SB2, SB3, SB4 repeated. */
static void
sl1(uint8_t x[16])
{
	for (int i = 0; i < 16; i += 4) {
		x[i] = sb1(x[i]);
		x[i + 1] = sb2(x[i + 1]);
		x[i + 2] = sb3(x[i + 2]);
		x[i + 3] = sb4(x[i + 3]);
	}
}

/* Type 2 (even rounds): SB3, SB4, SB1, SB2 repeated; the inverse of SL1. */
static void
sl2(uint8_t x[16])
{
	for (int i = 0; i < 16; i += 4) {
		x[i] = sb3(x[i]);
		x[i + 1] = sb4(x[i + 1]);
		x[i + 2] = sb1(x[i + 2]);
		x[i + 3] = sb2(x[i + 3]);
	}
}

/* ---- 2.4.3 diffusion layer (an involution) ---- */

static void
diffuse(uint8_t y[16], const uint8_t x[16])
{
	y[0] = x[3] ^ x[4] ^ x[6] ^ x[8] ^ x[9] ^ x[13] ^ x[14];
	y[1] = x[2] ^ x[5] ^ x[7] ^ x[8] ^ x[9] ^ x[12] ^ x[15];
	y[2] = x[1] ^ x[4] ^ x[6] ^ x[10] ^ x[11] ^ x[12] ^ x[15];
	y[3] = x[0] ^ x[5] ^ x[7] ^ x[10] ^ x[11] ^ x[13] ^ x[14];
	y[4] = x[0] ^ x[2] ^ x[5] ^ x[8] ^ x[11] ^ x[14] ^ x[15];
	y[5] = x[1] ^ x[3] ^ x[4] ^ x[9] ^ x[10] ^ x[14] ^ x[15];
	y[6] = x[0] ^ x[2] ^ x[7] ^ x[9] ^ x[10] ^ x[12] ^ x[13];
	y[7] = x[1] ^ x[3] ^ x[6] ^ x[8] ^ x[11] ^ x[12] ^ x[13];
	y[8] = x[0] ^ x[1] ^ x[4] ^ x[7] ^ x[10] ^ x[13] ^ x[15];
	y[9] = x[0] ^ x[1] ^ x[5] ^ x[6] ^ x[11] ^ x[12] ^ x[14];
	y[10] = x[2] ^ x[3] ^ x[5] ^ x[6] ^ x[8] ^ x[13] ^ x[15];
	y[11] = x[2] ^ x[3] ^ x[4] ^ x[7] ^ x[9] ^ x[12] ^ x[14];
	y[12] = x[1] ^ x[2] ^ x[6] ^ x[7] ^ x[9] ^ x[11] ^ x[12];
	y[13] = x[0] ^ x[3] ^ x[6] ^ x[7] ^ x[8] ^ x[10] ^ x[13];
	y[14] = x[0] ^ x[3] ^ x[4] ^ x[5] ^ x[9] ^ x[11] ^ x[14];
	y[15] = x[1] ^ x[2] ^ x[4] ^ x[5] ^ x[8] ^ x[10] ^ x[15];
}

static inline void
xor16(uint8_t out[16], const uint8_t a[16], const uint8_t b[16])
{
	for (int i = 0; i < 16; i++)
		out[i] = a[i] ^ b[i];
}

/* ---- 2.4.1 round functions ---- */

/* FO(D, RK) = A(SL1(D ^ RK)) */
static void
fo(uint8_t out[16], const uint8_t d[16], const uint8_t rk[16])
{
	uint8_t t[16];

	xor16(t, d, rk);
	sl1(t);
	diffuse(out, t);
	vecsec_memzero(t, sizeof(t));
}

/* FE(D, RK) = A(SL2(D ^ RK)) */
static void
fe(uint8_t out[16], const uint8_t d[16], const uint8_t rk[16])
{
	uint8_t t[16];

	xor16(t, d, rk);
	sl2(t);
	diffuse(out, t);
	vecsec_memzero(t, sizeof(t));
}

/* ---- 2.2 key schedule ---- */

/* out = in <<< n (128-bit left rotation, 0 < n < 128). */
static void
rotl128(uint8_t out[16], const uint8_t in[16], unsigned int n)
{
	unsigned int q = n / 8, r = n % 8;

	for (unsigned int j = 0; j < 16; j++) {
		uint8_t hi = in[(j + q) % 16], lo = in[(j + q + 1) % 16];

		out[j] = r == 0 ? hi : (uint8_t)((hi << r) | (lo >> (8 - r)));
	}
}

/* out = a ^ (b <<< n) */
static void
xor_rotl(uint8_t out[16], const uint8_t a[16], const uint8_t b[16], unsigned int n)
{
	uint8_t t[16];

	rotl128(t, b, n);
	xor16(out, a, t);
	vecsec_memzero(t, sizeof(t));
}

/* The constants C1, C2, C3 (the first 128 bits of the fraction of 1/pi). */
static const uint8_t aria_c[3][16] = {
	{ 0x51, 0x7c, 0xc1, 0xb7, 0x27, 0x22, 0x0a, 0x94,
	  0xfe, 0x13, 0xab, 0xe8, 0xfa, 0x9a, 0x6e, 0xe0 },
	{ 0x6d, 0xb1, 0x4a, 0xcc, 0x9e, 0x21, 0xc8, 0x20,
	  0xff, 0x28, 0xb1, 0xd5, 0xef, 0x5d, 0xe2, 0xb0 },
	{ 0xdb, 0x92, 0x37, 0x1d, 0x21, 0x26, 0xe9, 0x70,
	  0x03, 0x24, 0x97, 0x75, 0x04, 0xe8, 0xc9, 0x0e },
};

void
vecsec_aria_key_schedule_ref(struct aria_key *k, const uint8_t *key, size_t key_len)
{
	uint8_t kl[16], kr[16] = { 0 }, w[4][16], t[16];
	/* CK1, CK2, CK3 are C1, C2, C3 rotated by the key size. */
	unsigned int first = (unsigned int)(key_len - 16) / 8;  /* 0, 1, 2 */
	const uint8_t *ck1 = aria_c[first], *ck2 = aria_c[(first + 1) % 3],
		      *ck3 = aria_c[(first + 2) % 3];
	unsigned int n = 12 + 2 * first;

	memcpy(kl, key, 16);
	memcpy(kr, key + 16, key_len - 16);

	/* W0 = KL, W1 = FO(W0, CK1) ^ KR, W2 = FE(W1, CK2) ^ W0, W3 = FO(W2, CK3) ^ W1 */
	memcpy(w[0], kl, 16);
	fo(t, w[0], ck1);
	xor16(w[1], t, kr);
	fe(t, w[1], ck2);
	xor16(w[2], t, w[0]);
	fo(t, w[2], ck3);
	xor16(w[3], t, w[1]);

	/*
	 * ek1..ek4 rotate right by 19 (left by 109), ek5..ek8 right by 31
	 * (left by 97), ek9..ek12 left by 61, ek13..ek16 left by 31, ek17
	 * left by 19: ek(4i+j) = W(j) ^ (W(j+1) rot), ek(4i+4) = (W0 rot) ^ W3.
	 */
	static const unsigned int rot[5] = { 109, 97, 61, 31, 19 };

	for (unsigned int i = 0; i <= n; i++) {
		unsigned int j = i % 4, r = rot[i / 4];

		if (j < 3)
			xor_rotl(k->ek[i], w[j], w[j + 1], r);
		else
			xor_rotl(k->ek[i], w[3], w[0], r);
	}

	/* 2.3.2: dk1 = ek(n+1), dk(i) = A(ek(n+2-i)) for 1 < i <= n, dk(n+1) = ek1. */
	memcpy(k->dk[0], k->ek[n], 16);
	for (unsigned int i = 1; i < n; i++)
		diffuse(k->dk[i], k->ek[n - i]);
	memcpy(k->dk[n], k->ek[0], 16);
	k->rounds = n;

	vecsec_memzero(kl, sizeof(kl));
	vecsec_memzero(kr, sizeof(kr));
	vecsec_memzero(w, sizeof(w));
	vecsec_memzero(t, sizeof(t));
}

/* ---- 2.3 encryption / decryption: the same rounds, ek or dk ---- */

/*
 * P1 = FO(P, rk1), P2 = FE(P1, rk2), ..., P(n-1) = FO(P(n-2), rk(n-1)),
 * C = SL2(P(n-1) ^ rk(n)) ^ rk(n+1).
 */
static void
aria_crypt(uint8_t out[16], const uint8_t in[16], const uint8_t rk[][16], unsigned int n)
{
	uint8_t x[16], y[16];

	memcpy(x, in, 16);
	for (unsigned int i = 0; i + 1 < n; i++) {
		if (i % 2 == 0)
			fo(y, x, rk[i]);
		else
			fe(y, x, rk[i]);
		memcpy(x, y, 16);
	}
	xor16(x, x, rk[n - 1]);
	sl2(x);
	xor16(out, x, rk[n]);
	vecsec_memzero(x, sizeof(x));
	vecsec_memzero(y, sizeof(y));
}

static void
encrypt_blocks_ref(uint8_t *out, const uint8_t *in, size_t nblocks, const struct aria_key *k)
{
	for (size_t i = 0; i < nblocks; i++)
		aria_crypt(out + 16 * i, in + 16 * i, k->ek, k->rounds);
}

static void
decrypt_blocks_ref(uint8_t *out, const uint8_t *in, size_t nblocks, const struct aria_key *k)
{
	for (size_t i = 0; i < nblocks; i++)
		aria_crypt(out + 16 * i, in + 16 * i, k->dk, k->rounds);
}

/* ---- CTR (see the contract in aria_internal.h) ---- */

/* Add 1 to the last `width` bytes of ctr, big-endian, without branches. */
static inline void
ctr_inc(uint8_t ctr[16], unsigned int width)
{
	unsigned int carry = 1;

	for (unsigned int i = 16; i-- > 16 - width;) {
		carry += ctr[i];
		ctr[i] = (uint8_t)carry;
		carry >>= 8;
	}
}

static void
ctr_xor(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
	uint8_t ctr[16], unsigned int width)
{
	uint8_t ks[16];

	while (len > 0) {
		size_t n = len < 16 ? len : 16;

		aria_crypt(ks, ctr, k->ek, k->rounds);
		ctr_inc(ctr, width);
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ ks[i];
		in += n;
		out += n;
		len -= n;
	}
	vecsec_memzero(ks, sizeof(ks));
}

static void
ctr128_xor_ref(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
	       uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 16);
}

static void
ctr32_xor_ref(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
	      uint8_t ctr[16])
{
	ctr_xor(out, in, len, k, ctr, 4);
}

const struct aria_impl vecsec_aria_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.encrypt_blocks = encrypt_blocks_ref,
	.decrypt_blocks = decrypt_blocks_ref,
	.ctr128_xor = ctr128_xor_ref,
	.ctr32_xor = ctr32_xor_ref,
};
