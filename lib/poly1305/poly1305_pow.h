/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 helpers for the SIMD kernels (portable C, no intrinsics): powers
 * of r and carries in the radix-2^44 form of poly1305_internal.h, and the
 * conversion to and from radix 2^26 (AVX2). Constant time: no branch or
 * index on h or r.
 */
#ifndef VECSEC_POLY1305_POW_H
#define VECSEC_POLY1305_POW_H

#include <stdint.h>

#include "poly1305_internal.h"

#define P44_M44 ((UINT64_C(1) << 44) - 1)
#define P44_M42 ((UINT64_C(1) << 42) - 1)
#define P26_M26 ((UINT64_C(1) << 26) - 1)

/*
 * Carry a radix-2^44 value so that limbs 0 and 1 are below 2^44 and limb 2
 * below 2^42 + 1 (the value is then below 2^130 + 2^88, congruent mod p).
 */
static inline void
p44_carry(uint64_t h[3])
{
	uint64_t c;

	c = h[0] >> 44; h[0] &= P44_M44; h[1] += c;
	c = h[1] >> 44; h[1] &= P44_M44; h[2] += c;
	c = h[2] >> 42; h[2] &= P44_M42; h[0] += c * 5;   /* 2^130 = 5 mod p */
	c = h[0] >> 44; h[0] &= P44_M44; h[1] += c;
	c = h[1] >> 44; h[1] &= P44_M44; h[2] += c;
}

/* o = a * b mod p (partly reduced, carried as p44_carry()); o may alias. */
static inline void
p44_mul(uint64_t o[3], const uint64_t a[3], const uint64_t b[3])
{
	const unsigned __int128 s1 = (unsigned __int128)(b[1] * 20), s2 = b[2] * 20;
	unsigned __int128 d0, d1, d2;
	uint64_t c;

	/* 2^132 = 20 mod p: limb products at 2^132 and above come back * 20 */
	d0 = (unsigned __int128)a[0] * b[0] + a[1] * s2 + a[2] * s1;
	d1 = (unsigned __int128)a[0] * b[1] + (unsigned __int128)a[1] * b[0] + a[2] * s2;
	d2 = (unsigned __int128)a[0] * b[2] + (unsigned __int128)a[1] * b[1] +
	     (unsigned __int128)a[2] * b[0];
	c = (uint64_t)(d0 >> 44); o[0] = (uint64_t)d0 & P44_M44; d1 += c;
	c = (uint64_t)(d1 >> 44); o[1] = (uint64_t)d1 & P44_M44; d2 += c;
	c = (uint64_t)(d2 >> 42); o[2] = (uint64_t)d2 & P44_M42;
	o[0] += c * 5;
	c = o[0] >> 44; o[0] &= P44_M44; o[1] += c;
	c = o[1] >> 44; o[1] &= P44_M44; o[2] += c;
}

/* pw[3 (k - 1) + i] = limb i of r^k, k = 1 .. n */
static inline void
p44_powers(uint64_t *pw, const uint64_t r[3], unsigned int n)
{
	pw[0] = r[0];
	pw[1] = r[1];
	pw[2] = r[2];
	for (unsigned int k = 1; k < n; k++)
		p44_mul(pw + 3 * k, pw + 3 * (k - 1), r);
}

/* radix 2^44 (carried by p44_carry()) to five 26-bit limbs (top one may exceed) */
static inline void
p44_to_26(uint64_t o[5], const uint64_t h[3])
{
	o[0] = h[0] & P26_M26;
	o[1] = ((h[0] >> 26) | (h[1] << 18)) & P26_M26;
	o[2] = (h[1] >> 8) & P26_M26;
	o[3] = ((h[1] >> 34) | (h[2] << 10)) & P26_M26;
	o[4] = h[2] >> 16;
}

/* five 26-bit limbs (limbs 0-3 below 2^26) to radix 2^44 */
static inline void
p26_to_44(uint64_t o[3], const uint64_t l[5])
{
	o[0] = (l[0] | (l[1] << 26)) & P44_M44;
	o[1] = ((l[1] >> 18) | (l[2] << 8) | (l[3] << 34)) & P44_M44;
	o[2] = (l[3] >> 10) | (l[4] << 16);
}

/* Carry 26-bit limbs of any size below 2^62 down to limbs 0-3 < 2^26. */
static inline void
p26_carry(uint64_t l[5])
{
	uint64_t c;

	for (int pass = 0; pass < 2; pass++) {
		c = l[0] >> 26; l[0] &= P26_M26; l[1] += c;
		c = l[1] >> 26; l[1] &= P26_M26; l[2] += c;
		c = l[2] >> 26; l[2] &= P26_M26; l[3] += c;
		c = l[3] >> 26; l[3] &= P26_M26; l[4] += c;
		c = l[4] >> 26; l[4] &= P26_M26; l[0] += c * 5;
	}
	c = l[0] >> 26; l[0] &= P26_M26; l[1] += c;
	c = l[1] >> 26; l[1] &= P26_M26; l[2] += c;
	c = l[2] >> 26; l[2] &= P26_M26; l[3] += c;
	c = l[3] >> 26; l[3] &= P26_M26; l[4] += c;
}

#endif /* VECSEC_POLY1305_POW_H */
