/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, AVX-512 (F+VL+BW): 16 independent messages, one per
 * 32-bit lane, one block of each per step. Word-major: zmm w holds state
 * word w of all 16 lanes (RFC 8439 2.3); a 16x16 transpose turns the
 * keystream into one 64-byte row per lane, XORed with that lane's block.
 * Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <immintrin.h>

#include "chacha_internal.h"

static inline __m512i vadd(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
static inline __m512i vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
#define VROTL(v, n) _mm512_rol_epi32((v), (n))  /* VPROLD: one op */

/* RFC 8439 2.1 on four words of every lane */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROTL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROTL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 7); \
} while (0)

/*
 * 4x4 transpose of 128-bit chunks: afterwards a holds chunk 0 of each of
 * a, b, c, d (in that order), b chunk 1, c chunk 2, d chunk 3.
 */
static inline void
transpose_chunks(__m512i *a, __m512i *b, __m512i *c, __m512i *d)
{
	__m512i ab_lo = _mm512_shuffle_i32x4(*a, *b, 0x44);  /* a0 a1 b0 b1 */
	__m512i ab_hi = _mm512_shuffle_i32x4(*a, *b, 0xee);  /* a2 a3 b2 b3 */
	__m512i cd_lo = _mm512_shuffle_i32x4(*c, *d, 0x44);
	__m512i cd_hi = _mm512_shuffle_i32x4(*c, *d, 0xee);

	*a = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0x88);       /* a0 b0 c0 d0 */
	*b = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0xdd);       /* a1 b1 c1 d1 */
	*c = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0x88);
	*d = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0xdd);
}

/*
 * Rows x[4g..4g+3] (words of every lane) -> in each 128-bit chunk j,
 * t[m] holds words 4g..4g+3 of lane 4j + m.
 */
static inline void
transpose_words(__m512i t[4], __m512i r0, __m512i r1, __m512i r2, __m512i r3)
{
	__m512i a = _mm512_unpacklo_epi32(r0, r1), b = _mm512_unpackhi_epi32(r0, r1);
	__m512i c = _mm512_unpacklo_epi32(r2, r3), d = _mm512_unpackhi_epi32(r2, r3);

	t[0] = _mm512_unpacklo_epi64(a, c);
	t[1] = _mm512_unpackhi_epi64(a, c);
	t[2] = _mm512_unpacklo_epi64(b, d);
	t[3] = _mm512_unpackhi_epi64(b, d);
}

/*
 * One step of 16 lanes (counter ctr on each): the keystream rows, lane i's
 * in t[i].
 */
static inline __attribute__((always_inline)) void
block_rows(const __m512i k[8], __m512i ctr, __m512i n0, __m512i n1, __m512i n2,
	   unsigned int dr, __m512i t[16])
{
	const __m512i c0 = _mm512_set1_epi32((int)CHACHA_C0);
	const __m512i c1 = _mm512_set1_epi32((int)CHACHA_C1);
	const __m512i c2 = _mm512_set1_epi32((int)CHACHA_C2);
	const __m512i c3 = _mm512_set1_epi32((int)CHACHA_C3);
	__m512i x0 = c0, x1 = c1, x2 = c2, x3 = c3;
	__m512i x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
	__m512i x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
	__m512i x12 = ctr, x13 = n0, x14 = n1, x15 = n2;

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
	x0 = vadd(x0, c0); x1 = vadd(x1, c1); x2 = vadd(x2, c2); x3 = vadd(x3, c3);
	x4 = vadd(x4, k[0]); x5 = vadd(x5, k[1]); x6 = vadd(x6, k[2]); x7 = vadd(x7, k[3]);
	x8 = vadd(x8, k[4]); x9 = vadd(x9, k[5]); x10 = vadd(x10, k[6]); x11 = vadd(x11, k[7]);
	x12 = vadd(x12, ctr); x13 = vadd(x13, n0); x14 = vadd(x14, n1); x15 = vadd(x15, n2);
	transpose_words(t + 0, x0, x1, x2, x3);
	transpose_words(t + 4, x4, x5, x6, x7);
	transpose_words(t + 8, x8, x9, x10, x11);
	transpose_words(t + 12, x12, x13, x14, x15);
	for (int m = 0; m < 4; m++)
		transpose_chunks(&t[m], &t[4 + m], &t[8 + m], &t[12 + m]);
}

/*
 * Two steps of 16 lanes in the same double rounds: counter ctr into t
 * (lane i's row in t[i]), ctr + 1 into u. One step's rounds are a chain
 * of dependent operations that leaves vector ports idle; two independent
 * chains fill them (the 32 state vectors fit the 32 registers: the
 * rounds need no temporaries).
 */
static inline __attribute__((always_inline)) void
block_rows2(const __m512i k[8], __m512i ctr, __m512i n0, __m512i n1, __m512i n2,
	    unsigned int dr, __m512i t[16], __m512i u[16])
{
	const __m512i c0 = _mm512_set1_epi32((int)CHACHA_C0);
	const __m512i c1 = _mm512_set1_epi32((int)CHACHA_C1);
	const __m512i c2 = _mm512_set1_epi32((int)CHACHA_C2);
	const __m512i c3 = _mm512_set1_epi32((int)CHACHA_C3);
	const __m512i ctr1 = vadd(ctr, _mm512_set1_epi32(1));
	__m512i x0 = c0, x1 = c1, x2 = c2, x3 = c3;
	__m512i x4 = k[0], x5 = k[1], x6 = k[2], x7 = k[3];
	__m512i x8 = k[4], x9 = k[5], x10 = k[6], x11 = k[7];
	__m512i x12 = ctr, x13 = n0, x14 = n1, x15 = n2;
	__m512i y0 = c0, y1 = c1, y2 = c2, y3 = c3;
	__m512i y4 = k[0], y5 = k[1], y6 = k[2], y7 = k[3];
	__m512i y8 = k[4], y9 = k[5], y10 = k[6], y11 = k[7];
	__m512i y12 = ctr1, y13 = n0, y14 = n1, y15 = n2;

	for (unsigned int r = 0; r < dr; r++) {
		QR(x0, x4, x8, x12);
		QR(y0, y4, y8, y12);
		QR(x1, x5, x9, x13);
		QR(y1, y5, y9, y13);
		QR(x2, x6, x10, x14);
		QR(y2, y6, y10, y14);
		QR(x3, x7, x11, x15);
		QR(y3, y7, y11, y15);
		QR(x0, x5, x10, x15);
		QR(y0, y5, y10, y15);
		QR(x1, x6, x11, x12);
		QR(y1, y6, y11, y12);
		QR(x2, x7, x8, x13);
		QR(y2, y7, y8, y13);
		QR(x3, x4, x9, x14);
		QR(y3, y4, y9, y14);
	}
	x0 = vadd(x0, c0); x1 = vadd(x1, c1); x2 = vadd(x2, c2); x3 = vadd(x3, c3);
	x4 = vadd(x4, k[0]); x5 = vadd(x5, k[1]); x6 = vadd(x6, k[2]); x7 = vadd(x7, k[3]);
	x8 = vadd(x8, k[4]); x9 = vadd(x9, k[5]); x10 = vadd(x10, k[6]); x11 = vadd(x11, k[7]);
	x12 = vadd(x12, ctr); x13 = vadd(x13, n0); x14 = vadd(x14, n1); x15 = vadd(x15, n2);
	y0 = vadd(y0, c0); y1 = vadd(y1, c1); y2 = vadd(y2, c2); y3 = vadd(y3, c3);
	y4 = vadd(y4, k[0]); y5 = vadd(y5, k[1]); y6 = vadd(y6, k[2]); y7 = vadd(y7, k[3]);
	y8 = vadd(y8, k[4]); y9 = vadd(y9, k[5]); y10 = vadd(y10, k[6]); y11 = vadd(y11, k[7]);
	y12 = vadd(y12, ctr1); y13 = vadd(y13, n0); y14 = vadd(y14, n1); y15 = vadd(y15, n2);
	transpose_words(t + 0, x0, x1, x2, x3);
	transpose_words(t + 4, x4, x5, x6, x7);
	transpose_words(t + 8, x8, x9, x10, x11);
	transpose_words(t + 12, x12, x13, x14, x15);
	for (int m = 0; m < 4; m++)
		transpose_chunks(&t[m], &t[4 + m], &t[8 + m], &t[12 + m]);
	transpose_words(u + 0, y0, y1, y2, y3);
	transpose_words(u + 4, y4, y5, y6, y7);
	transpose_words(u + 8, y8, y9, y10, y11);
	transpose_words(u + 12, y12, y13, y14, y15);
	for (int m = 0; m < 4; m++)
		transpose_chunks(&u[m], &u[4 + m], &u[8 + m], &u[12 + m]);
}

void
vecsec_chacha_xor_lanes_x16_avx512(struct chacha_lanes *l, uint32_t nblocks)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	__m512i k[8], n0, n1, n2, ctr;
	const uint8_t *in[16];
	uint8_t *out[16];
	size_t off = 0;                 /* every lane moves one block per step */

	for (int w = 0; w < 8; w++)
		k[w] = _mm512_load_si512((const void *)l->key[w]);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	n0 = _mm512_loadu_si512((const void *)l->nonce[0]);
	n1 = _mm512_loadu_si512((const void *)l->nonce[1]);
	n2 = _mm512_loadu_si512((const void *)l->nonce[2]);
	for (int i = 0; i < 16; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	/* two blocks a step while two are left (block_rows2()), where the CPU gains */
	for (uint32_t blk = 0; blk < nblocks; ) {
		__m512i t[16], u[16];
		const bool two = pairs && blk + 1 < nblocks;

		if (two)
			block_rows2(k, ctr, n0, n1, n2, dr, t, u);
		else
			block_rows(k, ctr, n0, n1, n2, dr, t);
		for (int b = 0; b < (two ? 2 : 1); b++) {
			const __m512i *ks = b == 0 ? t : u;

			for (int lane = 0; lane < 16; lane++) {
				if (!(act & (1u << lane)))
					continue;
				_mm512_storeu_si512((void *)(out[lane] + off),
						    vxor(ks[lane], _mm512_loadu_si512(in[lane] + off)));
			}
			off += CHACHA_BLOCK_LEN;
		}
		ctr = vadd(ctr, _mm512_set1_epi32(two ? 2 : 1));
		blk += two ? 2 : 1;
	}

	_mm512_mask_storeu_epi32((void *)l->ctr, act, ctr);
	for (int i = 0; i < 16; i++) {
		if (!(act & (1u << i)))
			continue;
		l->in[i] = in[i] + off;
		l->out[i] = out[i] + off;
		l->blocks_left[i] -= nblocks;
	}
}

/* out = in ^ t[i] for the block at off of every lane i with bytes left there (masked) */
static inline __attribute__((always_inline)) void
xor_rows(const struct chacha_lanes *l, const uint32_t left[16], size_t off, const __m512i t[16])
{
	for (int i = 0; i < 16; i++) {
		__m512i ks = t[i];      /* lane i's row */
		uint32_t r = left[i] > off ? left[i] - (uint32_t)off : 0;

		if (r >= CHACHA_BLOCK_LEN) {
			_mm512_storeu_si512((void *)(l->out[i] + off),
					    vxor(ks, _mm512_loadu_si512(l->in[i] + off)));
		} else if (r > 0) {
			__mmask64 m = (__mmask64)((UINT64_C(1) << r) - 1);

			_mm512_mask_storeu_epi8((void *)(l->out[i] + off), m,
				vxor(ks, _mm512_maskz_loadu_epi8(m, l->in[i] + off)));
		}
	}
}

/*
 * The byte-exact variant (the contract in chacha_internal.h): the
 * ChaCha20-Poly1305 burst reads and writes small linear jobs in place with
 * it, no staging copies.
 * Lengths are public, so the per-lane branches on them are fine.
 * Where the CPU gains from it (vecsec_tune(): a Zen 5, not measured on
 * the Xeons), two blocks a step (block_rows2()) while the longest lane
 * has two left (the one-time-key block counts), one for a last odd block:
 * on an AMD Zen 5, bursts of 32 1420-byte seals (direct path) went from
 * 838 to 726 TSC cycles per message.
 */
void
vecsec_chacha_xor_lanes_bytes_x16_avx512(const struct chacha_lanes *l, const uint32_t *bytes,
					 uint8_t *const *ks0)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	__m512i k[8], n0, n1, n2, ctr;
	uint32_t left[16], most = 0;
	size_t off = 0;

	for (int w = 0; w < 8; w++)
		k[w] = _mm512_load_si512((const void *)l->key[w]);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	n0 = _mm512_loadu_si512((const void *)l->nonce[0]);
	n1 = _mm512_loadu_si512((const void *)l->nonce[1]);
	n2 = _mm512_loadu_si512((const void *)l->nonce[2]);
	for (int i = 0; i < 16; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}

	if (ks0 != NULL) {
		__m512i t[16], u[16];

		if (pairs && most > 0) {
			/* block 0 and the data's first block together */
			block_rows2(k, ctr, n0, n1, n2, dr, t, u);
			xor_rows(l, left, 0, u);
			off = CHACHA_BLOCK_LEN;
			ctr = vadd(ctr, _mm512_set1_epi32(2));
		} else {
			block_rows(k, ctr, n0, n1, n2, dr, t);
			ctr = vadd(ctr, _mm512_set1_epi32(1));
		}
		for (int i = 0; i < 16; i++)
			if ((act >> i) & 1)
				_mm512_storeu_si512((void *)ks0[i], t[i]);
	}
	for (; pairs && off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		__m512i t[16], u[16];

		block_rows2(k, ctr, n0, n1, n2, dr, t, u);
		xor_rows(l, left, off, t);
		xor_rows(l, left, off + CHACHA_BLOCK_LEN, u);
		ctr = vadd(ctr, _mm512_set1_epi32(2));
	}
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m512i t[16];

		block_rows(k, ctr, n0, n1, n2, dr, t);
		xor_rows(l, left, off, t);
		ctr = vadd(ctr, _mm512_set1_epi32(1));
	}
}
