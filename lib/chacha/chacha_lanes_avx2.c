/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, AVX2: 8 independent messages, one per 32-bit lane,
 * one block of each per step. Word-major: ymm w holds state word w of all 8
 * lanes (RFC 8439 2.3); two 8x8 transposes give each lane its 64-byte row
 * of keystream. Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <immintrin.h>

#include "chacha_internal.h"

static inline __m256i vadd(__m256i a, __m256i b) { return _mm256_add_epi32(a, b); }
static inline __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

static inline __m256i
vrotl(__m256i v, int n)
{
	return _mm256_or_si256(_mm256_slli_epi32(v, n), _mm256_srli_epi32(v, 32 - n));
}

/* rotations by whole bytes as one shuffle */
static inline __m256i
vrotl16(__m256i v)
{
	const __m256i m = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
					  13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);

	return _mm256_shuffle_epi8(v, m);
}

static inline __m256i
vrotl8(__m256i v)
{
	const __m256i m = _mm256_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
					  14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);

	return _mm256_shuffle_epi8(v, m);
}

/* RFC 8439 2.1 on four words of every lane */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = vrotl16(vxor(d, a)); \
	c = vadd(c, d); b = vrotl(vxor(b, c), 12); \
	a = vadd(a, b); d = vrotl8(vxor(d, a)); \
	c = vadd(c, d); b = vrotl(vxor(b, c), 7); \
} while (0)

/*
 * 8x8 transpose of rows r[0..7] (word w of lanes 0..7): afterwards r[i]
 * holds those 8 words of lane i.
 */
static inline void
transpose8(__m256i r[8])
{
	__m256i a0 = _mm256_unpacklo_epi32(r[0], r[1]), a1 = _mm256_unpackhi_epi32(r[0], r[1]);
	__m256i a2 = _mm256_unpacklo_epi32(r[2], r[3]), a3 = _mm256_unpackhi_epi32(r[2], r[3]);
	__m256i a4 = _mm256_unpacklo_epi32(r[4], r[5]), a5 = _mm256_unpackhi_epi32(r[4], r[5]);
	__m256i a6 = _mm256_unpacklo_epi32(r[6], r[7]), a7 = _mm256_unpackhi_epi32(r[6], r[7]);
	/* in 128-bit half j: u[m] = words 0-3 of lane 4j + m, v[m] = words 4-7 */
	__m256i u0 = _mm256_unpacklo_epi64(a0, a2), u1 = _mm256_unpackhi_epi64(a0, a2);
	__m256i u2 = _mm256_unpacklo_epi64(a1, a3), u3 = _mm256_unpackhi_epi64(a1, a3);
	__m256i v0 = _mm256_unpacklo_epi64(a4, a6), v1 = _mm256_unpackhi_epi64(a4, a6);
	__m256i v2 = _mm256_unpacklo_epi64(a5, a7), v3 = _mm256_unpackhi_epi64(a5, a7);

	r[0] = _mm256_permute2x128_si256(u0, v0, 0x20);
	r[1] = _mm256_permute2x128_si256(u1, v1, 0x20);
	r[2] = _mm256_permute2x128_si256(u2, v2, 0x20);
	r[3] = _mm256_permute2x128_si256(u3, v3, 0x20);
	r[4] = _mm256_permute2x128_si256(u0, v0, 0x31);
	r[5] = _mm256_permute2x128_si256(u1, v1, 0x31);
	r[6] = _mm256_permute2x128_si256(u2, v2, 0x31);
	r[7] = _mm256_permute2x128_si256(u3, v3, 0x31);
}

void
vecsec_chacha_xor_lanes_x8_avx2(struct chacha_lanes *l, uint32_t nblocks)
{
	const __m256i c0 = _mm256_set1_epi32((int)CHACHA_C0), c1 = _mm256_set1_epi32((int)CHACHA_C1);
	const __m256i c2 = _mm256_set1_epi32((int)CHACHA_C2), c3 = _mm256_set1_epi32((int)CHACHA_C3);
	const uint32_t act = l->active;
	const unsigned int dr = l->rounds / 2;
	__m256i k[8], n0, n1, n2, ctr;
	const uint8_t *in[8];
	uint8_t *out[8];
	size_t off = 0;                 /* every lane moves one block per step */

	for (int w = 0; w < 8; w++)
		k[w] = _mm256_loadu_si256((const __m256i *)l->key[w]);
	ctr = _mm256_loadu_si256((const __m256i *)l->ctr);
	n0 = _mm256_loadu_si256((const __m256i *)l->nonce[0]);
	n1 = _mm256_loadu_si256((const __m256i *)l->nonce[1]);
	n2 = _mm256_loadu_si256((const __m256i *)l->nonce[2]);
	for (int i = 0; i < 8; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	for (uint32_t blk = 0; blk < nblocks; blk++) {
		__m256i x0 = c0, x1 = c1, x2 = c2, x3 = c3;
		__m256i x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
		__m256i x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
		__m256i x12 = ctr, x13 = n0, x14 = n1, x15 = n2;
		__m256i lo[8], hi[8];

		for (unsigned int r = 0; r < dr; r++) {
			QR(x0, x4, x8, x12);
			QR(x1, x5, x9, x13);
			QR(x2, x6, x10, x14);
			QR(x3, x7, x11, x15);
			QR(x0, x5, x10, x15);
			QR(x1, x6, x11, x12);
			QR(x2, x7, x8, x13);
			QR(x3, x4, x9, x14);
		}
		lo[0] = vadd(x0, c0); lo[1] = vadd(x1, c1); lo[2] = vadd(x2, c2);
		lo[3] = vadd(x3, c3); lo[4] = vadd(x4, k[0]); lo[5] = vadd(x5, k[1]);
		lo[6] = vadd(x6, k[2]); lo[7] = vadd(x7, k[3]);
		hi[0] = vadd(x8, k[4]); hi[1] = vadd(x9, k[5]); hi[2] = vadd(x10, k[6]);
		hi[3] = vadd(x11, k[7]); hi[4] = vadd(x12, ctr); hi[5] = vadd(x13, n0);
		hi[6] = vadd(x14, n1); hi[7] = vadd(x15, n2);
		transpose8(lo);
		transpose8(hi);
		for (int i = 0; i < 8; i++) {
			__m256i a, b;

			if (!(act & (1u << i)))
				continue;
			a = _mm256_loadu_si256((const __m256i *)(in[i] + off));
			b = _mm256_loadu_si256((const __m256i *)(in[i] + off + 32));
			_mm256_storeu_si256((__m256i *)(out[i] + off), vxor(a, lo[i]));
			_mm256_storeu_si256((__m256i *)(out[i] + off + 32), vxor(b, hi[i]));
		}
		ctr = vadd(ctr, _mm256_set1_epi32(1));
		off += CHACHA_BLOCK_LEN;
	}

	for (int i = 0; i < 8; i++) {
		if (!(act & (1u << i)))
			continue;
		l->ctr[i] += nblocks;
		l->in[i] = in[i] + off;
		l->out[i] = out[i] + off;
		l->blocks_left[i] -= nblocks;
	}
}
