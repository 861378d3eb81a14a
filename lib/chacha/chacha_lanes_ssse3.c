/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, SSSE3: 4 independent messages, one per 32-bit lane,
 * one block of each per step. Word-major: xmm w holds state word w of all 4
 * lanes (RFC 8439 2.3); four 4x4 transposes give each lane its 64-byte row
 * of keystream. Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <tmmintrin.h>

#include "chacha_internal.h"

static inline __m128i vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
static inline __m128i vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }

static inline __m128i
vrotl(__m128i v, int n)
{
	return _mm_or_si128(_mm_slli_epi32(v, n), _mm_srli_epi32(v, 32 - n));
}

/* rotations by whole bytes as one PSHUFB */
static inline __m128i
vrotl16(__m128i v)
{
	return _mm_shuffle_epi8(v, _mm_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0,
						3, 2));
}

static inline __m128i
vrotl8(__m128i v)
{
	return _mm_shuffle_epi8(v, _mm_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1,
						0, 3));
}

/* RFC 8439 2.1 on four words of every lane */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = vrotl16(vxor(d, a)); \
	c = vadd(c, d); b = vrotl(vxor(b, c), 12); \
	a = vadd(a, b); d = vrotl8(vxor(d, a)); \
	c = vadd(c, d); b = vrotl(vxor(b, c), 7); \
} while (0)

/* rows r[0..3] (a word of lanes 0..3) -> r[i] = those 4 words of lane i */
static inline void
transpose4(__m128i r[4])
{
	__m128i a = _mm_unpacklo_epi32(r[0], r[1]), b = _mm_unpackhi_epi32(r[0], r[1]);
	__m128i c = _mm_unpacklo_epi32(r[2], r[3]), d = _mm_unpackhi_epi32(r[2], r[3]);

	r[0] = _mm_unpacklo_epi64(a, c);
	r[1] = _mm_unpackhi_epi64(a, c);
	r[2] = _mm_unpacklo_epi64(b, d);
	r[3] = _mm_unpackhi_epi64(b, d);
}

void
vecsec_chacha_xor_lanes_x4_ssse3(struct chacha_lanes *l, uint32_t nblocks)
{
	const __m128i c0 = _mm_set1_epi32((int)CHACHA_C0), c1 = _mm_set1_epi32((int)CHACHA_C1);
	const __m128i c2 = _mm_set1_epi32((int)CHACHA_C2), c3 = _mm_set1_epi32((int)CHACHA_C3);
	const uint32_t act = l->active;
	const unsigned int dr = l->rounds / 2;
	__m128i k[8], n0, n1, n2, ctr;
	const uint8_t *in[4];
	uint8_t *out[4];
	size_t off = 0;                 /* every lane moves one block per step */

	for (int w = 0; w < 8; w++)
		k[w] = _mm_loadu_si128((const __m128i *)l->key[w]);
	ctr = _mm_loadu_si128((const __m128i *)l->ctr);
	n0 = _mm_loadu_si128((const __m128i *)l->nonce[0]);
	n1 = _mm_loadu_si128((const __m128i *)l->nonce[1]);
	n2 = _mm_loadu_si128((const __m128i *)l->nonce[2]);
	for (int i = 0; i < 4; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	for (uint32_t blk = 0; blk < nblocks; blk++) {
		__m128i x[16], g[4][4];

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
				__m128i m = _mm_loadu_si128((const __m128i *)(in[i] + off + 16 * q));

				_mm_storeu_si128((__m128i *)(out[i] + off + 16 * q),
						 vxor(m, g[q][i]));
			}
		}
		ctr = vadd(ctr, _mm_set1_epi32(1));
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
