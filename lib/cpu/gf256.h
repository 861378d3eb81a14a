/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Constant-time arithmetic in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (the
 * AES/ARIA field) for the portable references: no branch and no table
 * index depends on the operands. Slow (about 300 operations per s-box) and
 * meant as an oracle and fallback; SIMD paths use AES-NI or GFNI.
 */
#ifndef VECSEC_GF256_H
#define VECSEC_GF256_H

#include <stdint.h>

/* a * b in GF(2^8): shift-and-add with masks instead of branches. */
static inline uint8_t
vecsec_gf256_mul(uint8_t a, uint8_t b)
{
	uint8_t r = 0;

	for (int i = 0; i < 8; i++) {
		r ^= (uint8_t)(-(b & 1) & a);
		a = (uint8_t)((a << 1) ^ (-(a >> 7) & 0x1b));
		b >>= 1;
	}
	return r;
}

/* a^254 = a^-1 for a != 0, and 0 for 0 (FIPS 197 5.1.1). */
static inline uint8_t
vecsec_gf256_inv(uint8_t a)
{
	uint8_t a2 = vecsec_gf256_mul(a, a);          /* a^2 */
	uint8_t a3 = vecsec_gf256_mul(a2, a);         /* a^3 */
	uint8_t a6 = vecsec_gf256_mul(a3, a3);        /* a^6 */
	uint8_t a12 = vecsec_gf256_mul(a6, a6);       /* a^12 */
	uint8_t a15 = vecsec_gf256_mul(a12, a3);      /* a^15 */
	uint8_t a30 = vecsec_gf256_mul(a15, a15);     /* a^30 */
	uint8_t a60 = vecsec_gf256_mul(a30, a30);     /* a^60 */
	uint8_t a120 = vecsec_gf256_mul(a60, a60);    /* a^120 */
	uint8_t a126 = vecsec_gf256_mul(a120, a6);    /* a^126 */
	uint8_t a127 = vecsec_gf256_mul(a126, a);     /* a^127 */

	return vecsec_gf256_mul(a127, a127);          /* a^254 */
}

static inline uint8_t
vecsec_rotl8(uint8_t x, int n)
{
	return (uint8_t)((x << n) | (x >> (8 - n)));
}

/* The AES s-box (FIPS 197 5.1.1), which is also ARIA's S1 (RFC 5794 2.4.2). */
static inline uint8_t
vecsec_aes_sbox_ct(uint8_t x)
{
	uint8_t b = vecsec_gf256_inv(x);

	return b ^ vecsec_rotl8(b, 1) ^ vecsec_rotl8(b, 2) ^ vecsec_rotl8(b, 3) ^
	       vecsec_rotl8(b, 4) ^ 0x63;
}

/* Inverse AES s-box: inverse affine map, then inversion. */
static inline uint8_t
vecsec_aes_inv_sbox_ct(uint8_t x)
{
	uint8_t b = vecsec_rotl8(x, 1) ^ vecsec_rotl8(x, 3) ^ vecsec_rotl8(x, 6) ^ 0x05;

	return vecsec_gf256_inv(b);
}

#endif /* VECSEC_GF256_H */
