/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, NEON (AArch64 Advanced SIMD, baseline ARMv8-A). Long inputs:
 * radix 2^26 (five limbs, UMULL/UMLAL 32x32->64 products), 4 blocks per
 * step in the two 64-bit lanes of each product: LD4 splits 64 bytes into
 * word j of blocks 0..3, lane A takes blocks 0 and 2, lane B 1 and 3, and
 *   (h + m0 | m1) * r^4 + (m2 | m3) * r^2          (UMLAL, UMLAL2)
 * so each lane runs Horner's rule with r^2 per block; the last step
 * multiplies by r^4 | r^3 and r^2 | r^1 instead and the lanes are summed
 * (RFC 8439 2.5, evaluated as sum m_i r^(n-i+1)). One carry pass per
 * step. The design of OpenSSL/CRYPTOGAMS' poly1305-armv8 NEON code (used
 * by Linux's arch/arm64/crypto/poly1305-glue.c). r^1..r^4 are kept in the
 * state's ext[] (radix 2^26).
 * Short inputs (fewer than MIN_BLOCKS blocks, and the n mod 4 last ones):
 * scalar radix 2^64, two MUL/UMULH pairs per limb product, 10 multiplies a
 * block against the reference's 18 (radix 2^44, three limbs).
 * Constant time: no branch or index on h, r or the data.
 */
#include <arm_neon.h>

#include "poly1305_internal.h"
#include "poly1305_pow.h"

/*
 * Below 8 blocks (128 bytes) the scalar code is used: the vector setup
 * (powers from ext[], 18 power vectors, radix changes) costs about what 4
 * scalar blocks do. The threshold of poly1305-armv8 (128 bytes); not
 * measured here (no arm64 machine: see docs/arm64.md).
 */
#define MIN_BLOCKS 8

typedef unsigned __int128 u128;

/*
 * Scalar radix 2^64: h = h0 + h1 2^64 + h2 2^128, r = r0 + r1 2^64 with r1
 * a multiple of 4 (clamped), so h1 r1 2^128 = h1 (r1 / 4) 2^130 = (5 r1 /
 * 4) h1 mod p: s1 = r1 + r1 / 4 folds the products past 2^128 back.
 */
static void
blocks_64(struct poly1305_state *st, const uint8_t *in, size_t nblocks, uint32_t pad)
{
	uint64_t t[3] = { st->h[0], st->h[1], st->h[2] };
	uint64_t h0, h1, h2, r0, r1, s1;

	p44_carry(t);
	h0 = t[0] | (t[1] << 44);
	h1 = (t[1] >> 20) | (t[2] << 24);
	h2 = t[2] >> 40;
	r0 = st->r[0] | (st->r[1] << 44);
	r1 = (st->r[1] >> 20) | (st->r[2] << 24);
	s1 = r1 + (r1 >> 2);

	for (; nblocks > 0; nblocks--, in += POLY1305_BLOCK_LEN) {
		u128 a, d0, d1;
		uint64_t d2, c;

		/* h += block + pad 2^128 */
		a = (u128)h0 + vecsec_load_le64(in);
		h0 = (uint64_t)a;
		a = (u128)h1 + vecsec_load_le64(in + 8) + (uint64_t)(a >> 64);
		h1 = (uint64_t)a;
		h2 += (uint64_t)(a >> 64) + (pad & 1);
		/* h *= r: h2 <= 6, so h2 s1 and h2 r0 fit in 64 bits */
		d0 = (u128)h0 * r0 + (u128)h1 * s1;
		d1 = (u128)h0 * r1 + (u128)h1 * r0 + h2 * s1 + (uint64_t)(d0 >> 64);
		d2 = h2 * r0 + (uint64_t)(d1 >> 64);
		h0 = (uint64_t)d0;
		h1 = (uint64_t)d1;
		/* bits 130 and up, times 5, back to the bottom: h2 ends <= 4 */
		c = (d2 >> 2) + (d2 & ~(uint64_t)3);
		h2 = d2 & 3;
		a = (u128)h0 + c;
		h0 = (uint64_t)a;
		a = (u128)h1 + (uint64_t)(a >> 64);
		h1 = (uint64_t)a;
		h2 += (uint64_t)(a >> 64);
	}
	st->h[0] = h0 & P44_M44;
	st->h[1] = ((h0 >> 44) | (h1 << 20)) & P44_M44;
	st->h[2] = (h1 >> 24) | (h2 << 40);
}

/* ext[]: 5 limbs of r^k (radix 2^26) for k = 1..4 */
static void
powers(struct poly1305_state *st)
{
	uint64_t pw[3 * 4], h[3];

	if (st->ext_impl == &vecsec_poly1305_impl_neon)
		return;
	p44_powers(pw, st->r, 4);
	for (int k = 0; k < 4; k++) {
		h[0] = pw[3 * k];
		h[1] = pw[3 * k + 1];
		h[2] = pw[3 * k + 2];
		p44_carry(h);
		p44_to_26(st->ext + 5 * k, h);
	}
	st->ext_impl = &vecsec_poly1305_impl_neon;
	vecsec_memzero(pw, sizeof(pw));
	vecsec_memzero(h, sizeof(h));
}

/*
 * The multipliers of one step: r[i] limb i of the power in each 32-bit
 * lane (lanes 0-1 multiply h + blocks 0|1, lanes 2-3 blocks 2|3), s[i] = 5
 * r[i] (2^130 = 5 mod p) for the limb products past 2^130.
 */
struct mults {
	uint32x4_t r[5], s[5];
};

static inline void
mults_set(struct mults *m, const uint64_t *ext, int p0, int p1, int p2, int p3)
{
	for (int i = 0; i < 5; i++) {
		uint32_t v[4] = {
			(uint32_t)ext[5 * (p0 - 1) + i], (uint32_t)ext[5 * (p1 - 1) + i],
			(uint32_t)ext[5 * (p2 - 1) + i], (uint32_t)ext[5 * (p3 - 1) + i],
		};

		m->r[i] = vld1q_u32(v);
		m->s[i] = vaddq_u32(m->r[i], vshlq_n_u32(m->r[i], 2));
		vecsec_memzero(v, sizeof(v));
	}
}

/* 64 bytes = blocks 0..3 as five 26-bit limbs, limb i of block j in lane j */
static inline void
load_limbs(uint32x4_t m[5], const uint8_t *in, uint32x4_t hibit)
{
	const uint32x4_t m26 = vdupq_n_u32((uint32_t)P26_M26);
	uint32x4x4_t w = vld4q_u32((const uint32_t *)(const void *)in);

	m[0] = vandq_u32(w.val[0], m26);
	m[1] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[0], 26), w.val[1], 6), m26);
	m[2] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[1], 20), w.val[2], 12), m26);
	m[3] = vandq_u32(vsliq_n_u32(vshrq_n_u32(w.val[2], 14), w.val[3], 18), m26);
	m[4] = vorrq_u32(vshrq_n_u32(w.val[3], 8), hibit);
}

/*
 * d[k] = limb k of (h + blocks 0|1) * lanes 0-1 of mu + (blocks 2|3) *
 * lanes 2-3 of mu, before any carry (each below 2^61: ten products of a
 * limb below 2^27 by one below 2^29 plus five by one below 2^26).
 */
static inline void
step_products(uint64x2_t d[5], const uint32x2_t h[5], const uint32x4_t m[5],
	      const struct mults *mu)
{
	uint32x2_t a[5];

	for (int i = 0; i < 5; i++)
		a[i] = vadd_u32(vget_low_u32(m[i]), h[i]);
	/*
	 * d[k] = sum over i + j = k (mod 5) of a[i] r[j] (s[j] where i + j >= 5),
	 * lanes 0-1 (UMULL/UMLAL), then blocks 2|3 by lanes 2-3 (UMLAL2)
	 */
#define PROD(k, R0, R1, R2, R3, R4) do { \
	d[k] = vmull_u32(a[0], vget_low_u32(mu->R0)); \
	d[k] = vmlal_u32(d[k], a[1], vget_low_u32(mu->R1)); \
	d[k] = vmlal_u32(d[k], a[2], vget_low_u32(mu->R2)); \
	d[k] = vmlal_u32(d[k], a[3], vget_low_u32(mu->R3)); \
	d[k] = vmlal_u32(d[k], a[4], vget_low_u32(mu->R4)); \
	d[k] = vmlal_high_u32(d[k], m[0], mu->R0); \
	d[k] = vmlal_high_u32(d[k], m[1], mu->R1); \
	d[k] = vmlal_high_u32(d[k], m[2], mu->R2); \
	d[k] = vmlal_high_u32(d[k], m[3], mu->R3); \
	d[k] = vmlal_high_u32(d[k], m[4], mu->R4); \
} while (0)
	PROD(0, r[0], s[4], s[3], s[2], s[1]);
	PROD(1, r[1], r[0], s[4], s[3], s[2]);
	PROD(2, r[2], r[1], r[0], s[4], s[3]);
	PROD(3, r[3], r[2], r[1], r[0], s[4]);
	PROD(4, r[4], r[3], r[2], r[1], r[0]);
#undef PROD
}

/*
 * One carry pass, two chains side by side (0->1->2->3 and 3->4->0->1):
 * limbs 0, 2, 3 end below 2^26, limbs 1 and 4 a little above; narrowed.
 */
static inline void
carry_narrow(uint32x2_t h[5], uint64x2_t d[5])
{
	const uint64x2_t m = vdupq_n_u64(P26_M26);
	uint64x2_t c0, c1, c2, c3, c4;

	c0 = vshrq_n_u64(d[0], 26); d[0] = vandq_u64(d[0], m);
	c3 = vshrq_n_u64(d[3], 26); d[3] = vandq_u64(d[3], m);
	d[1] = vaddq_u64(d[1], c0);
	d[4] = vaddq_u64(d[4], c3);
	c1 = vshrq_n_u64(d[1], 26); d[1] = vandq_u64(d[1], m);
	c4 = vshrq_n_u64(d[4], 26); d[4] = vandq_u64(d[4], m);
	d[2] = vaddq_u64(d[2], c1);
	d[0] = vaddq_u64(d[0], vaddq_u64(c4, vshlq_n_u64(c4, 2)));
	c2 = vshrq_n_u64(d[2], 26); d[2] = vandq_u64(d[2], m);
	c0 = vshrq_n_u64(d[0], 26); d[0] = vandq_u64(d[0], m);
	d[3] = vaddq_u64(d[3], c2);
	d[1] = vaddq_u64(d[1], c0);
	c3 = vshrq_n_u64(d[3], 26); d[3] = vandq_u64(d[3], m);
	d[4] = vaddq_u64(d[4], c3);
	for (int i = 0; i < 5; i++)
		h[i] = vmovn_u64(d[i]);
}

void
vecsec_poly1305_blocks_neon(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
			    uint32_t pad)
{
	const uint32x4_t hibit = vdupq_n_u32((pad & 1) << 24);      /* 2^128 in limb 4 */
	struct mults step, last;
	uint64x2_t d[5];
	uint32x2_t h[5];
	uint32x4_t m[5];
	uint64_t l[5], h44[3];
	size_t nv;

	if (nblocks < MIN_BLOCKS) {
		blocks_64(st, in, nblocks, pad);
		return;
	}
	nv = nblocks & ~(size_t)3;
	powers(st);
	mults_set(&step, st->ext, 4, 4, 2, 2);
	mults_set(&last, st->ext, 4, 3, 2, 1);

	h44[0] = st->h[0];
	h44[1] = st->h[1];
	h44[2] = st->h[2];
	p44_carry(h44);
	p44_to_26(l, h44);
	for (int i = 0; i < 5; i++)
		h[i] = vcreate_u32(l[i]);       /* lane A: h, lane B: 0 */
	for (size_t b = 0; b + 4 < nv; b += 4) {
		load_limbs(m, in + 16 * b, hibit);
		step_products(d, h, m, &step);
		carry_narrow(h, d);
	}
	load_limbs(m, in + 16 * (nv - 4), hibit);
	step_products(d, h, m, &last);
	for (int i = 0; i < 5; i++)
		l[i] = vaddvq_u64(d[i]);        /* lane A + lane B */
	p26_carry(l);
	p26_to_44(st->h, l);
	/*
	 * The accumulator and r powers are secret: wipe the copies in memory
	 * (the vectors stay in registers: taking their address would keep
	 * them in memory through the loop).
	 */
	vecsec_memzero(l, sizeof(l));
	vecsec_memzero(h44, sizeof(h44));
	if (nblocks > nv)
		blocks_64(st, in + 16 * nv, nblocks - nv, pad);
}

const struct poly1305_impl vecsec_poly1305_impl_neon = {
	.name = "neon",
	.isa = VECSEC_ISA_NEON,
	.needs = VECSEC_CPU_NEON,
	.blocks = vecsec_poly1305_blocks_neon,
	.lanes = 4,
	.lanes_name = "x4-neon",
	.blocks_lanes = vecsec_poly1305_blocks_lanes_x4_neon,
};
