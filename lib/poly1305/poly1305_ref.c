/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Poly1305, portable reference (RFC 8439 2.5): 64-bit limbs in radix 2^44
 * with unsigned __int128 products, one 16-byte block at a time. Constant
 * time: no branch or index depends on h, r or the data; the final reduction
 * mod 2^130 - 5 selects with a mask.
 */
#include <string.h>

#include "poly1305_internal.h"

#define M44 ((UINT64_C(1) << 44) - 1)
#define M42 ((UINT64_C(1) << 42) - 1)

typedef unsigned __int128 u128;

static inline uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void
st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* RFC 8439, 2.5: r clamped (vecsec_poly1305_clamp), h = 0. */
void
vecsec_poly1305_core_init(struct poly1305_state *st, const uint8_t r[16])
{
	vecsec_poly1305_clamp(st->r, r);
	st->h[0] = st->h[1] = st->h[2] = 0;
	st->ext_impl = NULL;
}

/*
 * RFC 8439, 2.5: for each block, a = (a + block + pad 2^128) * r mod p.
 * 2^132 = 4 * 2^130 = 20 mod p, so the limb products that land at 2^132
 * and above come back down multiplied by 20 (s1, s2).
 */
void
vecsec_poly1305_blocks_ref(struct poly1305_state *st, const uint8_t *in, size_t nblocks,
			   uint32_t pad)
{
	const uint64_t r0 = st->r[0], r1 = st->r[1], r2 = st->r[2];
	const uint64_t s1 = r1 * 20, s2 = r2 * 20;
	const uint64_t hibit = (uint64_t)(pad & 1) << 40;    /* 2^128 = 2^40 in limb 2 */
	uint64_t h0 = st->h[0], h1 = st->h[1], h2 = st->h[2];

	for (; nblocks > 0; nblocks--, in += POLY1305_BLOCK_LEN) {
		uint64_t t0 = le64(in), t1 = le64(in + 8), c;
		u128 d0, d1, d2;

		h0 += t0 & M44;
		h1 += ((t0 >> 44) | (t1 << 20)) & M44;
		h2 += (t1 >> 24) | hibit;

		d0 = (u128)h0 * r0 + (u128)h1 * s2 + (u128)h2 * s1;
		d1 = (u128)h0 * r1 + (u128)h1 * r0 + (u128)h2 * s2;
		d2 = (u128)h0 * r2 + (u128)h1 * r1 + (u128)h2 * r0;

		/* partial reduction: limbs back under 2^44 (+ a small carry in h1) */
		c = (uint64_t)(d0 >> 44);
		h0 = (uint64_t)d0 & M44;
		d1 += c;
		c = (uint64_t)(d1 >> 44);
		h1 = (uint64_t)d1 & M44;
		d2 += c;
		c = (uint64_t)(d2 >> 42);
		h2 = (uint64_t)d2 & M42;
		h0 += c * 5;                  /* 2^130 = 5 mod p */
		c = h0 >> 44;
		h0 &= M44;
		h1 += c;
	}
	st->h[0] = h0;
	st->h[1] = h1;
	st->h[2] = h2;
}

/* RFC 8439, 2.5 end: h fully reduced mod p (vecsec_poly1305_emit). */
void
vecsec_poly1305_core_emit(const struct poly1305_state *st, uint8_t out[16])
{
	vecsec_poly1305_emit(out, st->h);
}

/* RFC 8439, 2.5: "the secret key s is added to the accumulator" mod 2^128. */
void
vecsec_poly1305_add_s(uint8_t out[16], const uint8_t h[16], const uint8_t s[16])
{
	u128 a = (u128)le64(h) + le64(s);
	uint64_t lo = (uint64_t)a;
	uint64_t hi = le64(h + 8) + le64(s + 8) + (uint64_t)(a >> 64);

	st64(out, lo);
	st64(out + 8, hi);
}

/*
 * The lane form of the reference: each active lane in turn (for CPUs
 * without a lane kernel; as constant time as blocks_ref).
 */
void
vecsec_poly1305_blocks_lanes_ref(struct poly1305_lanes *l, uint32_t nblocks)
{
	struct poly1305_state st;

	for (int i = 0; i < VECSEC_MAX_LANES; i++) {
		if (!(l->active & (UINT32_C(1) << i)))
			continue;
		memset(&st, 0, sizeof(st));
		for (int k = 0; k < 3; k++) {
			st.h[k] = l->h[k][i];
			st.r[k] = l->r[k][i];
		}
		vecsec_poly1305_blocks_ref(&st, l->in[i], nblocks, 1);
		for (int k = 0; k < 3; k++)
			l->h[k][i] = st.h[k];
		l->in[i] += (size_t)nblocks * POLY1305_BLOCK_LEN;
		l->blocks_left[i] -= nblocks;
	}
	vecsec_memzero(&st, sizeof(st));
}

const struct poly1305_impl vecsec_poly1305_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.min_len = 0,
	.blocks = vecsec_poly1305_blocks_ref,
	.lanes = 8,
	.lanes_name = "scalar",
	.blocks_lanes = vecsec_poly1305_blocks_lanes_ref,
};
