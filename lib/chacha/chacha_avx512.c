/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8, AVX-512 (F+VL+BW). xor_blocks: 16 blocks of one message
 * per step (one state word per zmm, VPROLD rotations, chacha_avx512.h);
 * the tail ends with masked loads and stores: over 768 bytes one more
 * 16-block step, else 1 to 3 interleaved sets of 4 blocks in row form (zmm
 * lane L = block L of a set, one row of the state per zmm). RFC 8439
 * 2.1-2.4; the counter is word 12 only and never wraps inside a call
 * (chacha_internal.h).
 */
#include <immintrin.h>

#include "chacha_internal.h"
#include "chacha_avx512.h"

static void
xor_16blocks(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	     unsigned int rounds)
{
	__m512i v[16];

	chacha_x16_init(v, x);
	chacha_x16_rounds(v, rounds);
	chacha_x16_finish(out, in, len, v, x);
}

void
vecsec_chacha_xor_blocks_avx512(uint8_t *out, const uint8_t *in, size_t len,
				struct chacha_state *st)
{
	const size_t step = 16 * CHACHA_BLOCK_LEN;

	for (; len >= step; len -= step, in += step, out += step) {
		xor_16blocks(out, in, step, st->x, st->rounds);
		st->x[12] += 16;
	}
	if (len == 0)
		return;
	/*
	 * TSC cycles measured (lightly loaded, one call): row form 1 set ~235
	 * (1-4 blocks), 2 sets ~370 (5-8), 3 sets ~555 (9-12); a masked
	 * 16-block step ~600 whatever the length; the 8-block ymm word-sliced
	 * form it replaced ~480 for 5-8 blocks.
	 */
	if (len > 12 * CHACHA_BLOCK_LEN)
		xor_16blocks(out, in, len, st->x, st->rounds);
	else if (len > 8 * CHACHA_BLOCK_LEN)
		chacha_rows_xor(out, in, len, st->x, st->rounds, 3);
	else if (len > 4 * CHACHA_BLOCK_LEN)
		chacha_rows_xor(out, in, len, st->x, st->rounds, 2);
	else
		chacha_rows_xor(out, in, len, st->x, st->rounds, 1);
	st->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

const struct chacha_impl vecsec_chacha_impl_avx512 = {
	.name = "avx512",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW,
	.min_len = 0,
	.xor_blocks = vecsec_chacha_xor_blocks_avx512,
	.lanes = 16,
	.lanes_name = "x16-avx512",
	.xor_lanes = vecsec_chacha_xor_lanes_x16_avx512,
	.xor_lanes_bytes = vecsec_chacha_xor_lanes_bytes_x16_avx512,
};
