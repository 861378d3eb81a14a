/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, NEON: 4 independent messages, one per 32-bit lane,
 * one block of each per step. Word-major: q register w holds state word w
 * of all 4 lanes (RFC 8439 2.3); four 4x4 transposes (TRN1/TRN2) give each
 * lane its 64-byte row of keystream. Rotations as in chacha_neon.c.
 * Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <arm_neon.h>

#include "chacha_internal.h"

static inline uint32x4_t vadd(uint32x4_t a, uint32x4_t b) { return vaddq_u32(a, b); }
static inline uint32x4_t vxor(uint32x4_t a, uint32x4_t b) { return veorq_u32(a, b); }

static inline uint32x4_t
vrol16(uint32x4_t v)
{
	return vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v)));
}

static inline uint32x4_t
vrol8(uint32x4_t v, uint8x16_t rot8)
{
	return vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(v), rot8));
}

static inline uint32x4_t vrol12(uint32x4_t v) { return vsriq_n_u32(vshlq_n_u32(v, 12), v, 20); }
static inline uint32x4_t vrol7(uint32x4_t v) { return vsriq_n_u32(vshlq_n_u32(v, 7), v, 25); }

/* each word turned left by 8 */
static const uint8_t rot8_idx[16] = { 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 };

/* RFC 8439 2.1 on four words of every lane (r8: the TBL indexes) */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = vrol16(vxor(d, a)); \
	c = vadd(c, d); b = vrol12(vxor(b, c)); \
	a = vadd(a, b); d = vrol8(vxor(d, a), r8); \
	c = vadd(c, d); b = vrol7(vxor(b, c)); \
} while (0)

/* rows r[0..3] (a word of lanes 0..3) -> r[i] = those 4 words of lane i */
static inline void
transpose4(uint32x4_t r[4])
{
	uint32x4_t a = vtrn1q_u32(r[0], r[1]), b = vtrn2q_u32(r[0], r[1]);
	uint32x4_t c = vtrn1q_u32(r[2], r[3]), d = vtrn2q_u32(r[2], r[3]);

	r[0] = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(a),
						vreinterpretq_u64_u32(c)));
	r[1] = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(b),
						vreinterpretq_u64_u32(d)));
	r[2] = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(a),
						vreinterpretq_u64_u32(c)));
	r[3] = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(b),
						vreinterpretq_u64_u32(d)));
}

void
vecsec_chacha_xor_lanes_x4_neon(struct chacha_lanes *l, uint32_t nblocks)
{
	const uint32x4_t c0 = vdupq_n_u32(CHACHA_C0), c1 = vdupq_n_u32(CHACHA_C1);
	const uint32x4_t c2 = vdupq_n_u32(CHACHA_C2), c3 = vdupq_n_u32(CHACHA_C3);
	const uint8x16_t r8 = vld1q_u8(rot8_idx);
	const uint32_t act = l->active;
	const unsigned int dr = l->rounds / 2;
	uint32x4_t k[8], n0, n1, n2, ctr;
	const uint8_t *in[4];
	uint8_t *out[4];
	size_t off = 0;                 /* every lane moves one block per step */

	for (int w = 0; w < 8; w++)
		k[w] = vld1q_u32(l->key[w]);
	ctr = vld1q_u32(l->ctr);
	n0 = vld1q_u32(l->nonce[0]);
	n1 = vld1q_u32(l->nonce[1]);
	n2 = vld1q_u32(l->nonce[2]);
	for (int i = 0; i < 4; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	for (uint32_t blk = 0; blk < nblocks; blk++) {
		uint32x4_t x[16], g[4][4];

		x[0] = c0; x[1] = c1; x[2] = c2; x[3] = c3;
		for (int w = 0; w < 8; w++)
			x[4 + w] = k[w];
		x[12] = ctr; x[13] = n0; x[14] = n1; x[15] = n2;
		for (unsigned int r = 0; r < dr; r++) {
			QR(x[0], x[4], x[8], x[12]);
			QR(x[1], x[5], x[9], x[13]);
			QR(x[2], x[6], x[10], x[14]);
			QR(x[3], x[7], x[11], x[15]);
			QR(x[0], x[5], x[10], x[15]);
			QR(x[1], x[6], x[11], x[12]);
			QR(x[2], x[7], x[8], x[13]);
			QR(x[3], x[4], x[9], x[14]);
		}
		x[0] = vadd(x[0], c0); x[1] = vadd(x[1], c1);
		x[2] = vadd(x[2], c2); x[3] = vadd(x[3], c3);
		for (int w = 0; w < 8; w++)
			x[4 + w] = vadd(x[4 + w], k[w]);
		x[12] = vadd(x[12], ctr); x[13] = vadd(x[13], n0);
		x[14] = vadd(x[14], n1); x[15] = vadd(x[15], n2);
		/* g[q][i]: words 4q..4q+3 of lane i */
		for (int q = 0; q < 4; q++) {
			for (int i = 0; i < 4; i++)
				g[q][i] = x[4 * q + i];
			transpose4(g[q]);
		}
		for (int i = 0; i < 4; i++) {
			if (!(act & (1u << i)))
				continue;
			for (int q = 0; q < 4; q++) {
				uint8x16_t m = vld1q_u8(in[i] + off + 16 * q);

				vst1q_u8(out[i] + off + 16 * q,
					 veorq_u8(m, vreinterpretq_u8_u32(g[q][i])));
			}
		}
		ctr = vadd(ctr, vdupq_n_u32(1));
		off += CHACHA_BLOCK_LEN;
	}

	for (int i = 0; i < 4; i++) {
		if (!(act & (1u << i)))
			continue;
		l->ctr[i] += nblocks;
		l->in[i] = in[i] + off;
		l->out[i] = out[i] + off;
		l->blocks_left[i] -= nblocks;
	}
}
