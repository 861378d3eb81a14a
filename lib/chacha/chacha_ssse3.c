/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, SSSE3. xor_blocks: 4 blocks of one message per step, one
 * state word per xmm (word-sliced, transposed before the XOR); a last block
 * alone uses the row form (one row of the state per xmm, diagonals by
 * PSHUFD). Rotations by 16 and 8 are PSHUFB byte shuffles, by 12 and 7
 * shifts. RFC 8439 2.1-2.4; the counter is word 12 only and never wraps
 * inside a call (chacha_internal.h). Also the tail path of the AVX2 kernel.
 */
#include <string.h>

#include <immintrin.h>

#include "chacha_internal.h"

static inline __m128i vadd(__m128i a, __m128i b) { return _mm_add_epi32(a, b); }
static inline __m128i vxor(__m128i a, __m128i b) { return _mm_xor_si128(a, b); }

static inline __m128i
vrol16(__m128i v)
{
	const __m128i m = _mm_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);

	return _mm_shuffle_epi8(v, m);
}

static inline __m128i
vrol8(__m128i v)
{
	const __m128i m = _mm_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);

	return _mm_shuffle_epi8(v, m);
}

#define VROL(v, n) ((n) == 16 ? vrol16(v) : (n) == 8 ? vrol8(v) : \
	_mm_or_si128(_mm_slli_epi32((v), (n)), _mm_srli_epi32((v), 32 - (n))))

/* RFC 8439 2.1, on four words of every block at once */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROL(vxor(b, c), 7); \
} while (0)

static inline __m128i
loadu(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static inline void
storeu(uint8_t *p, __m128i v)
{
	_mm_storeu_si128((__m128i *)(void *)p, v);
}

/*
 * One block in row form: a, b, c, d are rows 0-3 of the state; the
 * diagonal round turns rows 1-3 left by 1, 2, 3 words so that diagonals
 * line up as columns (RFC 8439 2.2), then back.
 */
static void
block_x1(uint8_t ks[CHACHA_BLOCK_LEN], const uint32_t x[16], unsigned int rounds)
{
	const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)&x[0]);
	const __m128i b0 = _mm_loadu_si128((const __m128i *)(const void *)&x[4]);
	const __m128i c0 = _mm_loadu_si128((const __m128i *)(const void *)&x[8]);
	const __m128i d0 = _mm_loadu_si128((const __m128i *)(const void *)&x[12]);
	__m128i a = a0, b = b0, c = c0, d = d0;

	for (unsigned int i = 0; i < rounds; i += 2) {
		QR(a, b, c, d);
		b = _mm_shuffle_epi32(b, 0x39);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x93);
		QR(a, b, c, d);
		b = _mm_shuffle_epi32(b, 0x93);
		c = _mm_shuffle_epi32(c, 0x4e);
		d = _mm_shuffle_epi32(d, 0x39);
	}
	storeu(ks, vadd(a, a0));
	storeu(ks + 16, vadd(b, b0));
	storeu(ks + 32, vadd(c, c0));
	storeu(ks + 48, vadd(d, d0));
}

/* 4x4 transpose of 32-bit words: a..d become words w..w+3 of blocks 0..3 */
#define TRANSPOSE4(a, b, c, d) do { \
	__m128i t0_ = _mm_unpacklo_epi32(a, b), t1_ = _mm_unpackhi_epi32(a, b); \
	__m128i t2_ = _mm_unpacklo_epi32(c, d), t3_ = _mm_unpackhi_epi32(c, d); \
	a = _mm_unpacklo_epi64(t0_, t2_); \
	b = _mm_unpackhi_epi64(t0_, t2_); \
	c = _mm_unpacklo_epi64(t1_, t3_); \
	d = _mm_unpackhi_epi64(t1_, t3_); \
} while (0)

/*
 * Four consecutive blocks, word-sliced: v[i] holds word i of blocks 0..3.
 * len >= 256: out = in ^ keystream directly; otherwise the keystream goes
 * to ks (256 bytes) and the caller XORs the len bytes it needs.
 */
static void
blocks_x4(uint8_t *out, const uint8_t *in, size_t len, uint8_t *ks, const uint32_t x[16],
	  unsigned int rounds)
{
	__m128i v[16], o[16];

	for (int i = 0; i < 16; i++)
		o[i] = _mm_set1_epi32((int)x[i]);
	o[12] = vadd(o[12], _mm_set_epi32(3, 2, 1, 0));
	for (int i = 0; i < 16; i++)
		v[i] = o[i];
	for (unsigned int r = 0; r < rounds; r += 2) {
		QR(v[0], v[4], v[8], v[12]);
		QR(v[1], v[5], v[9], v[13]);
		QR(v[2], v[6], v[10], v[14]);
		QR(v[3], v[7], v[11], v[15]);
		QR(v[0], v[5], v[10], v[15]);
		QR(v[1], v[6], v[11], v[12]);
		QR(v[2], v[7], v[8], v[13]);
		QR(v[3], v[4], v[9], v[14]);
	}
	for (int i = 0; i < 16; i++)
		v[i] = vadd(v[i], o[i]);
	TRANSPOSE4(v[0], v[1], v[2], v[3]);
	TRANSPOSE4(v[4], v[5], v[6], v[7]);
	TRANSPOSE4(v[8], v[9], v[10], v[11]);
	TRANSPOSE4(v[12], v[13], v[14], v[15]);
	/* block k is v[k], v[4 + k], v[8 + k], v[12 + k] */
	if (len >= 4 * CHACHA_BLOCK_LEN) {
		for (int k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++)
				storeu(out + 64 * k + 16 * j,
				       vxor(loadu(in + 64 * k + 16 * j), v[4 * j + k]));
	} else {
		for (int k = 0; k < 4; k++)
			for (int j = 0; j < 4; j++)
				storeu(ks + 64 * k + 16 * j, v[4 * j + k]);
	}
}

static inline void
xor_bytes(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = in[i] ^ ks[i];
}

void
vecsec_chacha_xor_blocks_ssse3(uint8_t *out, const uint8_t *in, size_t len,
			       struct chacha_state *st)
{
	uint8_t ks[4 * CHACHA_BLOCK_LEN];
	bool used = false;

	for (; len >= 4 * CHACHA_BLOCK_LEN; len -= 4 * CHACHA_BLOCK_LEN) {
		blocks_x4(out, in, len, ks, st->x, st->rounds);
		st->x[12] += 4;
		in += 4 * CHACHA_BLOCK_LEN;
		out += 4 * CHACHA_BLOCK_LEN;
	}
	if (len > CHACHA_BLOCK_LEN) {
		/* 2 to 4 blocks: one x4 step costs about what two single blocks do */
		blocks_x4(out, in, len, ks, st->x, st->rounds);
		xor_bytes(out, in, ks, len);
		st->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
		used = true;
	} else if (len > 0) {
		block_x1(ks, st->x, st->rounds);
		xor_bytes(out, in, ks, len);
		st->x[12]++;
		used = true;
	}
	if (used)
		vecsec_memzero(ks, sizeof(ks));
}

const struct chacha_impl vecsec_chacha_impl_ssse3 = {
	.name = "ssse3",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSSE3,
	.xor_blocks = vecsec_chacha_xor_blocks_ssse3,
	.lanes = 4,
	.lanes_name = "x4-ssse3",
	.xor_lanes = vecsec_chacha_xor_lanes_x4_ssse3,
};
