/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH (SP 800-38D 6.4), AVX-512 + VPCLMULQDQ (the avx512_vpclmul flag
 * set): 16 blocks per step, four per zmm, each multiplied by its power
 * H^16..H^1 and summed unreduced; the four 128-bit lanes are folded and
 * reduced once per step (ghash_clmul.h; bit order as in ghash_pclmul.c).
 * Tails of 1..15 blocks take aggregated 128-bit steps of up to 8; short GCM
 * jobs hash AAD, text and lengths in one call with masked loads (hash_short).
 * Constant time by construction.
 */
#include <string.h>

#include <immintrin.h>

#include "ghash_internal.h"
#include "ghash_clmul.h"

static inline __m512i
bswap_lanes(__m512i v)
{
	const __m512i m = _mm512_broadcast_i32x4(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
							      11, 12, 13, 14, 15));

	return _mm512_shuffle_epi8(v, m);
}

/* zmm lanes 0..3 = H^(top), H^(top-1), ..., H^(top-3) in the reversed layout */
static inline __m512i
load_powers(const struct ghash_key *k, int top)
{
	__m512i v = _mm512_castsi128_si512(gc_load_be(k->h[top - 1]));

	v = _mm512_inserti32x4(v, gc_load_be(k->h[top - 2]), 1);
	v = _mm512_inserti32x4(v, gc_load_be(k->h[top - 3]), 2);
	return _mm512_inserti32x4(v, gc_load_be(k->h[top - 4]), 3);
}

static inline void
mul_acc512(__m512i *lo, __m512i *mid, __m512i *hi, __m512i a, __m512i b)
{
	*lo = _mm512_xor_si512(*lo, _mm512_clmulepi64_epi128(a, b, 0x00));
	*hi = _mm512_xor_si512(*hi, _mm512_clmulepi64_epi128(a, b, 0x11));
	*mid = _mm512_ternarylogic_epi64(*mid, _mm512_clmulepi64_epi128(a, b, 0x01),
					 _mm512_clmulepi64_epi128(a, b, 0x10), 0x96);
}

static inline __m128i
fold4(__m512i v)
{
	__m128i a = _mm512_castsi512_si128(v), b = _mm512_extracti32x4_epi32(v, 1);
	__m128i c = _mm512_extracti32x4_epi32(v, 2), d = _mm512_extracti32x4_epi32(v, 3);

	return _mm_xor_si128(_mm_xor_si128(a, b), _mm_xor_si128(c, d));
}

static void
ghash_update_avx512_vpclmul(uint8_t x[16], const struct ghash_key *k, const uint8_t *in,
			    size_t nblocks)
{
	__m128i acc = gc_load_be(x);

	if (nblocks == 0)
		return;
	if (nblocks >= 16) {
		__m512i p[4];

		for (int i = 0; i < 4; i++)
			p[i] = load_powers(k, 16 - 4 * i);
		for (; nblocks >= 16; nblocks -= 16, in += 256) {
			__m512i lo = _mm512_setzero_si512(), mid = lo, hi = lo;
			struct gc_prod s;

			for (int i = 0; i < 4; i++) {
				__m512i b = bswap_lanes(_mm512_loadu_si512(in + 64 * i));

				if (i == 0)
					b = _mm512_xor_si512(b, _mm512_zextsi128_si512(acc));
				mul_acc512(&lo, &mid, &hi, b, p[i]);
			}
			s.lo = fold4(lo);
			s.mid = fold4(mid);
			s.hi = fold4(hi);
			acc = gc_reduce(&s);
		}
		for (int i = 0; i < 4; i++)
			p[i] = _mm512_setzero_si512();
	}
	while (nblocks > 0) {
		size_t n = nblocks < 8 ? nblocks : 8;
		struct gc_prod s = gc_prod_zero();

		gc_mul_acc(&s, _mm_xor_si128(acc, gc_load_be(in)), gc_load_be(k->h[n - 1]));
		for (size_t j = 1; j < n; j++)
			gc_mul_acc(&s, gc_load_be(in + 16 * j), gc_load_be(k->h[n - 1 - j]));
		acc = gc_reduce(&s);
		in += 16 * n;
		nblocks -= n;
	}
	gc_store_be(x, acc);
}

/* len bytes as masked 16-byte pieces, each times its power of H (*left counts down) */
static inline void
short_part(struct gc_prod *s, const struct ghash_key *k, const uint8_t *p, size_t len,
	   size_t *left)
{
	for (size_t o = 0; o < len; o += 16) {
		size_t n = len - o < 16 ? len - o : 16;
		__m128i b = _mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1), p + o);

		*left -= 1;
		gc_mul_acc(s, gc_bswap(b), gc_load_be(k->h[*left]));
	}
}

static void
ghash_short_avx512_vpclmul(uint8_t x[16], const struct ghash_key *k, const uint8_t *aad,
			   size_t aad_len, const uint8_t *c, size_t len)
{
	/* block j of n is multiplied by H^(n-j): the Horner sum, one reduction */
	size_t left = (aad_len + 15) / 16 + (len + 15) / 16 + 1;
	struct gc_prod s = gc_prod_zero();
	__m128i lens = _mm_set_epi64x((long long)((uint64_t)aad_len * 8),
				      (long long)((uint64_t)len * 8));

	short_part(&s, k, aad, aad_len, &left);
	short_part(&s, k, c, len, &left);
	/* the lengths block, already in the reversed (register) order */
	gc_mul_acc(&s, lens, gc_load_be(k->h[0]));
	gc_store_be(x, gc_reduce(&s));
}

const struct ghash_impl vecsec_ghash_impl_avx512_vpclmul = {
	.name = "avx512_vpclmul",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_PCLMUL | VECSEC_CPU_VPCLMULQDQ,
	.update = ghash_update_avx512_vpclmul,
	.hash_short = ghash_short_avx512_vpclmul,
};
