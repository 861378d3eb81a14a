/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305 lanes, NEON: 4 independent messages, one per 32-bit lane of
 * each limb vector, each with its own r; one 16-byte block of each per
 * step (RFC 8439 2.5). Radix 2^26 (five limbs): UMULL/UMLAL on lanes 0-1,
 * UMULL2/UMLAL2 on lanes 2-3, 5 r folded in for the limbs past 2^130; the
 * four blocks are one 4x4 word transpose (TRN1/TRN2) from their lanes'
 * pointers. The struct's radix 2^44 is converted on entry and exit.
 * Contract: struct poly1305_impl (blocks_lanes) in poly1305_internal.h.
 */
#include <arm_neon.h>

#include "poly1305_internal.h"

#define M26 ((UINT64_C(1) << 26) - 1)
#define M44 ((UINT64_C(1) << 44) - 1)

/* the block inactive lanes read instead of theirs (their h is not stored) */
static const uint8_t zero_block[POLY1305_BLOCK_LEN];

/* radix 2^44 limbs x0..x2 of two lanes (limbs a little above 2^44 allowed) -> 2^26 */
static inline void
to26(uint64x2_t a[5], uint64x2_t x0, uint64x2_t x1, uint64x2_t x2)
{
	const uint64x2_t m26 = vdupq_n_u64(M26), m44 = vdupq_n_u64(M44);

	x1 = vaddq_u64(x1, vshrq_n_u64(x0, 44));
	x0 = vandq_u64(x0, m44);
	x2 = vaddq_u64(x2, vshrq_n_u64(x1, 44));
	x1 = vandq_u64(x1, m44);
	a[0] = vandq_u64(x0, m26);
	a[1] = vandq_u64(vorrq_u64(vshrq_n_u64(x0, 26), vshlq_n_u64(x1, 18)), m26);
	a[2] = vandq_u64(vshrq_n_u64(x1, 8), m26);
	a[3] = vandq_u64(vorrq_u64(vshrq_n_u64(x1, 34), vshlq_n_u64(x2, 10)), m26);
	a[4] = vshrq_n_u64(x2, 16);
}

/* limbs of the four lanes: lanes 0-1 from lo, 2-3 from hi, as 32-bit */
static inline void
load26(uint32x4_t v[5], const uint64_t (*x)[VECSEC_MAX_LANES])
{
	uint64x2_t lo[5], hi[5];

	to26(lo, vld1q_u64(&x[0][0]), vld1q_u64(&x[1][0]), vld1q_u64(&x[2][0]));
	to26(hi, vld1q_u64(&x[0][2]), vld1q_u64(&x[1][2]), vld1q_u64(&x[2][2]));
	for (int i = 0; i < 5; i++)
		v[i] = vmovn_high_u64(vmovn_u64(lo[i]), hi[i]);
}

/* d[k] += limb products of h and r (s = 5 r), one half of the lanes */
#define MULS(d, H, R, S, mul, mla) do { \
	d[0] = mul(H[0], R[0]); d[0] = mla(d[0], H[1], S[4]); d[0] = mla(d[0], H[2], S[3]); \
	d[0] = mla(d[0], H[3], S[2]); d[0] = mla(d[0], H[4], S[1]); \
	d[1] = mul(H[0], R[1]); d[1] = mla(d[1], H[1], R[0]); d[1] = mla(d[1], H[2], S[4]); \
	d[1] = mla(d[1], H[3], S[3]); d[1] = mla(d[1], H[4], S[2]); \
	d[2] = mul(H[0], R[2]); d[2] = mla(d[2], H[1], R[1]); d[2] = mla(d[2], H[2], R[0]); \
	d[2] = mla(d[2], H[3], S[4]); d[2] = mla(d[2], H[4], S[3]); \
	d[3] = mul(H[0], R[3]); d[3] = mla(d[3], H[1], R[2]); d[3] = mla(d[3], H[2], R[1]); \
	d[3] = mla(d[3], H[3], R[0]); d[3] = mla(d[3], H[4], S[4]); \
	d[4] = mul(H[0], R[4]); d[4] = mla(d[4], H[1], R[3]); d[4] = mla(d[4], H[2], R[2]); \
	d[4] = mla(d[4], H[3], R[1]); d[4] = mla(d[4], H[4], R[0]); \
} while (0)

#define MUL_LO(a, b) vmull_u32(vget_low_u32(a), vget_low_u32(b))
#define MLA_LO(d, a, b) vmlal_u32((d), vget_low_u32(a), vget_low_u32(b))
#define MUL_HI(a, b) vmull_high_u32((a), (b))
#define MLA_HI(d, a, b) vmlal_high_u32((d), (a), (b))

/* one serial carry pass on the limb products of two lanes: limbs 0-3 < 2^26 */
static inline void
carry(uint64x2_t d[5])
{
	const uint64x2_t m = vdupq_n_u64(M26);
	uint64x2_t c;

	c = vshrq_n_u64(d[0], 26); d[0] = vandq_u64(d[0], m); d[1] = vaddq_u64(d[1], c);
	c = vshrq_n_u64(d[1], 26); d[1] = vandq_u64(d[1], m); d[2] = vaddq_u64(d[2], c);
	c = vshrq_n_u64(d[2], 26); d[2] = vandq_u64(d[2], m); d[3] = vaddq_u64(d[3], c);
	c = vshrq_n_u64(d[3], 26); d[3] = vandq_u64(d[3], m); d[4] = vaddq_u64(d[4], c);
	c = vshrq_n_u64(d[4], 26); d[4] = vandq_u64(d[4], m);
	d[0] = vaddq_u64(d[0], vaddq_u64(c, vshlq_n_u64(c, 2)));
	c = vshrq_n_u64(d[0], 26); d[0] = vandq_u64(d[0], m); d[1] = vaddq_u64(d[1], c);
}

void
vecsec_poly1305_blocks_lanes_x4_neon(struct poly1305_lanes *l, uint32_t nblocks)
{
	const uint32_t act = l->active;
	const uint32x4_t m26 = vdupq_n_u32((uint32_t)M26);
	const uint32x4_t pad = vdupq_n_u32(1u << 24);         /* 2^128 in limb 4 */
	uint32x4_t h[5], r[5], s[5];
	uint64x2_t dl[5], dh[5], x0, x1, x2;
	const uint8_t *p[4];
	size_t step[4];
	uint64_t out[3][4];

	load26(h, l->h);
	load26(r, l->r);
	for (int i = 0; i < 5; i++)
		s[i] = vaddq_u32(r[i], vshlq_n_u32(r[i], 2));
	for (int i = 0; i < 4; i++) {
		bool on = (act >> i) & 1;

		p[i] = on ? l->in[i] : zero_block;
		step[i] = on ? POLY1305_BLOCK_LEN : 0;
	}

	for (uint32_t b = 0; b < nblocks; b++) {
		/* w[j]: word j of each lane's block */
		uint32x4_t w0 = vreinterpretq_u32_u8(vld1q_u8(p[0]));
		uint32x4_t w1 = vreinterpretq_u32_u8(vld1q_u8(p[1]));
		uint32x4_t w2 = vreinterpretq_u32_u8(vld1q_u8(p[2]));
		uint32x4_t w3 = vreinterpretq_u32_u8(vld1q_u8(p[3]));
		uint32x4_t t0 = vtrn1q_u32(w0, w1), t1 = vtrn2q_u32(w0, w1);
		uint32x4_t t2 = vtrn1q_u32(w2, w3), t3 = vtrn2q_u32(w2, w3);

		w0 = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t0),
						      vreinterpretq_u64_u32(t2)));
		w1 = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t1),
						      vreinterpretq_u64_u32(t3)));
		w2 = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t0),
						      vreinterpretq_u64_u32(t2)));
		w3 = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t1),
						      vreinterpretq_u64_u32(t3)));
		for (int i = 0; i < 4; i++)
			p[i] += step[i];

		/* h += block + 2^128 */
		h[0] = vaddq_u32(h[0], vandq_u32(w0, m26));
		h[1] = vaddq_u32(h[1], vandq_u32(vsliq_n_u32(vshrq_n_u32(w0, 26), w1, 6), m26));
		h[2] = vaddq_u32(h[2], vandq_u32(vsliq_n_u32(vshrq_n_u32(w1, 20), w2, 12), m26));
		h[3] = vaddq_u32(h[3], vandq_u32(vsliq_n_u32(vshrq_n_u32(w2, 14), w3, 18), m26));
		h[4] = vaddq_u32(h[4], vorrq_u32(vshrq_n_u32(w3, 8), pad));

		/* h *= r, lanes 0-1 and 2-3 */
		MULS(dl, h, r, s, MUL_LO, MLA_LO);
		MULS(dh, h, r, s, MUL_HI, MLA_HI);
		carry(dl);
		carry(dh);
		for (int i = 0; i < 5; i++)
			h[i] = vmovn_high_u64(vmovn_u64(dl[i]), dh[i]);
	}

	/* back to radix 2^44: h[0], h[2..3] < 2^26, h[1], h[4] a little above */
	for (int half = 0; half < 2; half++) {
		uint64x2_t g[5];

		for (int i = 0; i < 5; i++)
			g[i] = half == 0 ? vmovl_u32(vget_low_u32(h[i])) : vmovl_high_u32(h[i]);
		x0 = vaddq_u64(g[0], vshlq_n_u64(g[1], 26));
		x1 = vaddq_u64(vaddq_u64(vshrq_n_u64(x0, 44), vshlq_n_u64(g[2], 8)),
			       vshlq_n_u64(g[3], 34));
		x0 = vandq_u64(x0, vdupq_n_u64(M44));
		x2 = vaddq_u64(vshrq_n_u64(x1, 44), vshlq_n_u64(g[4], 16));
		x1 = vandq_u64(x1, vdupq_n_u64(M44));
		vst1q_u64(&out[0][2 * half], x0);
		vst1q_u64(&out[1][2 * half], x1);
		vst1q_u64(&out[2][2 * half], x2);
	}
	for (int i = 0; i < 4; i++) {
		if (!((act >> i) & 1))
			continue;
		for (int k = 0; k < 3; k++)
			l->h[k][i] = out[k][i];
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
	vecsec_memzero(out, sizeof(out));
}
