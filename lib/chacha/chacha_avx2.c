/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX2. xor_blocks: 8 blocks of one message per step, one
 * state word per ymm (word-sliced, chacha_avx2.h), transposed by 4x4 word
 * transposes in each 128-bit half and VPERM2I128; a tail over 256 bytes is
 * one more step through a keystream buffer, shorter ones go to the SSSE3
 * kernel. Rotations by 16 and 8 are VPSHUFB, by 12 and 7 shifts. RFC 8439
 * 2.1-2.4; the counter is word 12 only and never wraps inside a call
 * (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"
#include "chacha_avx2.h"

/* Eight consecutive blocks: out = in ^ keystream, 512 bytes. */
static void
xor_8blocks(uint8_t *out, const uint8_t *in, const uint32_t x[16], unsigned int rounds)
{
	__m256i v[16];

	chacha_x8_init(v, x);
	for (unsigned int r = 0; r < rounds; r += 2)
		chacha_x8_dround(v);
	chacha_x8_finish(out, in, v, x);
}

/*
 * 257..511 bytes: one 8-block step into a keystream buffer, then XOR (32
 * bytes at a time, then bytes); ~40% faster than two SSSE3 4-block steps.
 */
static void
xor_tail(uint8_t *out, const uint8_t *in, size_t len, struct chacha_state *st)
{
	static const uint8_t zeros[8 * CHACHA_BLOCK_LEN];
	uint8_t ks[8 * CHACHA_BLOCK_LEN] __attribute__((aligned(32)));
	size_t i = 0;

	xor_8blocks(ks, zeros, st->x, st->rounds);
	st->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
	for (; i + 32 <= len; i += 32)
		_mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_xor_si256(
			_mm256_loadu_si256((const __m256i *)(const void *)(in + i)),
			_mm256_load_si256((const __m256i *)(const void *)(ks + i))));
	for (; i < len; i++)
		out[i] = in[i] ^ ks[i];
	vecsec_memzero(ks, sizeof(ks));
}

void
vecsec_chacha_xor_blocks_avx2(uint8_t *out, const uint8_t *in, size_t len,
			      struct chacha_state *st)
{
	const size_t step = 8 * CHACHA_BLOCK_LEN;

	for (; len >= step; len -= step, in += step, out += step) {
		xor_8blocks(out, in, st->x, st->rounds);
		st->x[12] += 8;
	}
	if (len > 4 * CHACHA_BLOCK_LEN)
		xor_tail(out, in, len, st);
	else if (len != 0)
		vecsec_chacha_impl_ssse3.xor_blocks(out, in, len, st);
}

const struct chacha_impl vecsec_chacha_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.xor_blocks = vecsec_chacha_xor_blocks_avx2,
	.lanes = 8,
	.lanes_name = "x8-avx2",
	.xor_lanes = vecsec_chacha_xor_lanes_x8_avx2,
};
