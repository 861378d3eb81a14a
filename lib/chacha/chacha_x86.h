/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C side shared by the x86 ChaCha kernels of one level and the
 * ChaCha20-Poly1305 kernels built on them (chacha_avx2.c, chacha_ssse3.c,
 * chachapoly_avx2.c, chachapoly_ssse3.c): each defines CX_AVX2 or
 * CX_SSSE3 and includes this once, which names that level's building
 * blocks (chacha_internal.h):
 *   CX_STEP                bytes of one assembly step (AVX2 512, SSSE3 256)
 *   CX_ROW_BLOCKS          blocks the row form makes in one call (4, 2);
 *                          a longer tail is cheaper as one more step
 *   CX_XOR_YMM             1 where 32-byte vectors may be used (AVX2)
 *   cx_steps(out, in, nsteps, x, rounds)  the assembly step kernel,
 *                          out = in ^ keystream, x[12] advanced by
 *                          CX_STEP / 64 a step (AVX2: its VL form on a
 *                          CPU with AVX-512VL, knob allowing);
 *                          cx_steps_vl(vl, ...) the same with cx_vl()
 *                          read once by the caller
 *   cx_row(ks, x, nblocks, rounds)        1..CX_ROW_BLOCKS blocks of raw
 *                          keystream from x[12] into ks, x not changed
 * RFC 8439 2.1-2.4; the counter is word 12 only and never wraps inside a
 * call (chacha_internal.h).
 */
#ifndef VECSEC_CHACHA_X86_H
#define VECSEC_CHACHA_X86_H

#include <string.h>

#include <immintrin.h>

#include "chacha_internal.h"

#if defined(CX_AVX2)
#define CX_STEP 512
#define CX_ROW_BLOCKS 4
#define CX_XOR_YMM 1
#define cx_row vecsec_chacha_ks4_avx2

/*
 * The step kernel in its VL form or not (cx_vl(): whether this call may,
 * read once per message by callers that make several steps calls).
 */
static inline bool
cx_vl(void)
{
#ifdef VECSEC_HAVE_AVX2_VL
	return vecsec_chacha_avx2_vl();
#else
	return false;
#endif
}

static inline void
cx_steps_vl(bool vl, uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
	    unsigned int rounds)
{
#ifdef VECSEC_HAVE_AVX2_VL
	if (vl) {
		vecsec_chacha_x8_avx2vl(out, in, nsteps, x, rounds);
		return;
	}
#else
	(void)vl;
#endif
	vecsec_chacha_x8_avx2(out, in, nsteps, x, rounds);
}
#elif defined(CX_SSSE3)
#define CX_STEP 256
#define CX_ROW_BLOCKS 2
#define CX_XOR_YMM 0
#define cx_row vecsec_chacha_ks2_ssse3

static inline bool
cx_vl(void)
{
	return false;
}

static inline void
cx_steps_vl(bool vl, uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
	    unsigned int rounds)
{
	(void)vl;
	vecsec_chacha_x4_ssse3(out, in, nsteps, x, rounds);
}
#else
#error "define CX_AVX2 or CX_SSSE3 before including chacha_x86.h"
#endif

#define cx_steps(out, in, nsteps, x, rounds) cx_steps_vl(cx_vl(), out, in, nsteps, x, rounds)

/* out = in ^ ks for 16 bytes, ks 16-byte aligned */
static inline void
cx_xor16(uint8_t *out, const uint8_t *in, const uint8_t *ks)
{
	_mm_storeu_si128((__m128i *)(void *)out, _mm_xor_si128(
		_mm_loadu_si128((const __m128i *)(const void *)in),
		_mm_load_si128((const __m128i *)(const void *)ks)));
}

/*
 * out = in ^ ks for n bytes (n < CX_STEP): 32 at a time (AVX2), then 16,
 * 8, 4, 1. ks is 32-byte aligned (16 without CX_XOR_YMM) at every caller
 * (the keystream buffers and their offsets: multiples of 16 or 32).
 */
static inline void
cx_xor(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	size_t i = 0;

#if CX_XOR_YMM
	for (; i + 32 <= n; i += 32)
		_mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_xor_si256(
			_mm256_loadu_si256((const __m256i *)(const void *)(in + i)),
			_mm256_load_si256((const __m256i *)(const void *)(ks + i))));
	if (i + 16 <= n) {
		cx_xor16(out + i, in + i, ks + i);
		i += 16;
	}
#else
	for (; i + 16 <= n; i += 16)
		cx_xor16(out + i, in + i, ks + i);
#endif
	if (i + 8 <= n) {
		uint64_t a, b;

		memcpy(&a, in + i, 8);
		memcpy(&b, ks + i, 8);
		a ^= b;
		memcpy(out + i, &a, 8);
		i += 8;
	}
	if (i + 4 <= n) {
		uint32_t a, b;

		memcpy(&a, in + i, 4);
		memcpy(&b, ks + i, 4);
		a ^= b;
		memcpy(out + i, &a, 4);
		i += 4;
	}
	for (; i < n; i++)
		out[i] = in[i] ^ ks[i];
}

/*
 * One message: whole steps in place, then a tail of more than
 * CX_ROW_BLOCKS blocks as one more step into a keystream buffer (the
 * counter put back and advanced by the blocks used), a shorter one in the
 * row form at about one block's latency.
 */
static inline __attribute__((always_inline)) void
cx_xor_blocks(uint8_t *out, const uint8_t *in, size_t len, struct chacha_state *st)
{
	static const uint8_t zeros[CX_STEP];
	uint8_t ks[CX_STEP] __attribute__((aligned(CX_XOR_YMM ? 32 : 16)));
	size_t n = len / CX_STEP;
	uint32_t nb;

	if (n != 0) {
		cx_steps(out, in, n, st->x, st->rounds);
		out += n * CX_STEP;
		in += n * CX_STEP;
		len -= n * CX_STEP;
	}
	if (len == 0)
		return;
	nb = (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
	if (nb > CX_ROW_BLOCKS) {
		uint32_t ctr = st->x[12];

		cx_steps(ks, zeros, 1, st->x, st->rounds);
		st->x[12] = ctr;
	} else {
		cx_row(ks, st->x, nb, st->rounds);
	}
	st->x[12] += nb;
	cx_xor(out, in, ks, len);
	vecsec_wipe(ks, (size_t)nb * CHACHA_BLOCK_LEN);
}

#endif /* VECSEC_CHACHA_X86_H */
