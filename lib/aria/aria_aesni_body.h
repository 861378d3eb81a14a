/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA (RFC 5794) ECB and CTR through AES-NI, for CPUs without GFNI: the
 * body of aria_avx_aesni.c (VEX, -mavx -maes), aria_aesni.c (SSE4.1,
 * -msse4.1 -maes) and the tails of aria_avx2_vaes.c, which define
 * AESNI_FN(name) (the suffix) and then include this file once. 16 blocks
 * per step byte-sliced in 16 xmm (aria_bs.h); tails through one step on a
 * buffer.
 * S-boxes through the AES round instructions with a zero round key:
 *   SB1 = AESENCLAST (SubBytes; its ShiftRows undone by a PSHUFB first,
 *         since in byte-sliced form ShiftRows only moves blocks around),
 *   SB3 = AESDECLAST likewise (InvSubBytes),
 *   SB2 = SB1 then the affine map L2 = M * A^-1 (x ^ 0x63) ^ 0xe2, as two
 *         nibble PSHUFBs (SB2 = M * inv ^ 0xe2, inv = A^-1 (SB1 ^ 0x63)),
 *   SB4 = the affine map A * M^-1 (x ^ 0xe2) ^ 0x63, then SB3's path
 *         (SB4 = inv(M^-1 (x ^ 0xe2)), inv(z) = InvSubBytes(A z ^ 0x63)),
 * A the AES affine matrix, M aria_ref.c's SB2 matrix. The nibble tables
 * are PSHUFB operands in registers, not memory indexed by data.
 */
#include <stdalign.h>
#include <string.h>

#include <immintrin.h>

#include "aria_internal.h"

/* PSHUFB controls: out[p] = in[mask[p]] (FIPS 197 5.1.2 / 5.3.1 on bytes) */
#define SHIFT_ROWS _mm_setr_epi8(0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11)
#define INV_SHIFT_ROWS _mm_setr_epi8(0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3)

static inline __m128i
sb1(__m128i v)
{
	return _mm_aesenclast_si128(_mm_shuffle_epi8(v, INV_SHIFT_ROWS), _mm_setzero_si128());
}

static inline __m128i
sb3(__m128i v)
{
	return _mm_aesdeclast_si128(_mm_shuffle_epi8(v, SHIFT_ROWS), _mm_setzero_si128());
}

/* an affine map of every byte: lo[x & 15] ^ hi[x >> 4] (constant in lo) */
static inline __m128i
affine_nibbles(__m128i v, __m128i lo, __m128i hi)
{
	const __m128i m = _mm_set1_epi8(0x0f);
	__m128i l = _mm_and_si128(v, m), h = _mm_and_si128(_mm_srli_epi16(v, 4), m);

	return _mm_xor_si128(_mm_shuffle_epi8(lo, l), _mm_shuffle_epi8(hi, h));
}

static inline __m128i
sb2(__m128i v)
{
	/* L2(n) ^ 0x63-and-0xe2 constants, L2(n << 4), from aria_ref.c's sb2_cols */
	const __m128i lo = _mm_setr_epi8((char)0x88, 0x0d, 0x37, (char)0xb2, 0x00,
					 (char)0x85, (char)0xbf, 0x3a, (char)0xa8, 0x2d, 0x17,
					 (char)0x92, 0x20, (char)0xa5, (char)0x9f, 0x1a);
	const __m128i hi = _mm_setr_epi8(0x00, 0x3e, (char)0xd4, (char)0xea, (char)0x84,
					 (char)0xba, 0x50, 0x6e, (char)0xcd, (char)0xf3, 0x19,
					 0x27, 0x49, 0x77, (char)0x9d, (char)0xa3);

	return affine_nibbles(sb1(v), lo, hi);
}

static inline __m128i
sb4(__m128i v)
{
	const __m128i lo = _mm_setr_epi8(0x04, 0x45, (char)0xee, (char)0xaf, 0x17, 0x56,
					 (char)0xfd, (char)0xbc, 0x53, 0x12, (char)0xb9,
					 (char)0xf8, 0x40, 0x01, (char)0xaa, (char)0xeb);
	const __m128i hi = _mm_setr_epi8(0x00, (char)0xb6, 0x08, (char)0xbe, (char)0xd6, 0x60,
					 (char)0xde, 0x68, 0x53, (char)0xe5, 0x5b, (char)0xed,
					 (char)0x85, 0x33, (char)0x8d, 0x3b);

	return sb3(affine_nibbles(v, lo, hi));
}

/* ---- 16 blocks, xmm ---- */
#define BS_V __m128i
#define BS_LANES 1
#define BS_FN(name) name##_x16
#define BS_LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define BS_STORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define BS_ZERO() _mm_setzero_si128()
#define BS_XOR(a, b) _mm_xor_si128((a), (b))
#define BS_XOR3(a, b, c) _mm_xor_si128(_mm_xor_si128((a), (b)), (c))
#define BS_AND(a, b) _mm_and_si128((a), (b))
#define BS_BCAST(b) _mm_set1_epi8((char)(b))
#define BS_UNPACKLO(a, b) _mm_unpacklo_epi8((a), (b))
#define BS_UNPACKHI(a, b) _mm_unpackhi_epi8((a), (b))
#define BS_ADD8(a, b) _mm_add_epi8((a), (b))
#define BS_SUB8(a, b) _mm_sub_epi8((a), (b))
#define BS_GT_U8(a, b) _mm_cmpgt_epi8(_mm_xor_si128((a), _mm_set1_epi8(-128)), \
				      _mm_xor_si128((b), _mm_set1_epi8(-128)))
#define BS_SB1(v) sb1(v)
#define BS_SB2(v) sb2(v)
#define BS_SB3(v) sb3(v)
#define BS_SB4(v) sb4(v)
#define BS_BLOCK_INDEX bs_block_index_x1
#include "aria_bs.h"

/* ---- drivers ---- */

static void
AESNI_FN(ecb)(uint8_t *out, const uint8_t *in, size_t nblocks, const uint8_t (*rk)[16],
	      unsigned int n)
{
	for (; nblocks >= 16; nblocks -= 16, in += 256, out += 256)
		bs_ecb_x16(out, in, rk, n);
	if (nblocks > 0)
		bs_tail_x16(out, in, nblocks * 16, rk, n, NULL, 0);
}

static void
AESNI_FN(ctr_xor)(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		  uint8_t ctr[16], unsigned int width)
{
	for (; len >= 256; len -= 256, in += 256, out += 256) {
		bs_ctr_x16(out, in, ctr, k->ek, k->rounds, width);
		bs_ctr_add(ctr, 16, width);
	}
	if (len > 0)
		bs_tail_x16(out, in, len, k->ek, k->rounds, ctr, width);
}

static void
AESNI_FN(encrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks, const struct aria_key *k)
{
	AESNI_FN(ecb)(out, in, nblocks, k->ek, k->rounds);
}

static void
AESNI_FN(decrypt_blocks)(uint8_t *out, const uint8_t *in, size_t nblocks, const struct aria_key *k)
{
	AESNI_FN(ecb)(out, in, nblocks, k->dk, k->rounds);
}

static void
AESNI_FN(ctr128_xor)(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		     uint8_t ctr[16])
{
	AESNI_FN(ctr_xor)(out, in, len, k, ctr, 16);
}

static void
AESNI_FN(ctr32_xor)(uint8_t *out, const uint8_t *in, size_t len, const struct aria_key *k,
		    uint8_t ctr[16])
{
	AESNI_FN(ctr_xor)(out, in, len, k, ctr, 4);
}
