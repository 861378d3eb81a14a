/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, AVX-512 (F+VL+BW): 16 independent messages, one per
 * 32-bit lane, one block of each per step. Word-major: zmm w holds state
 * word w of all 16 lanes (RFC 8439 2.3); a 16x16 transpose turns the
 * keystream into one 64-byte row per lane, XORed with that lane's block.
 * Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <immintrin.h>

#include "chacha_avx512.h"
#include "chacha_internal.h"

void
vecsec_chacha_xor_lanes_x16_avx512(struct chacha_lanes *l, uint32_t nblocks)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	struct lanes_in w;
	__m512i ctr;
	const uint8_t *in[16];
	uint8_t *out[16];
	size_t off = 0;                 /* every lane moves one block per step */

	lanes_in_init(&w, l);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	for (int i = 0; i < 16; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	/* two blocks a step while two are left (block_rows2()), where the CPU gains */
	for (uint32_t blk = 0; blk < nblocks; ) {
		__m512i t[16], u[16];
		const bool two = pairs && blk + 1 < nblocks;

		if (two)
			block_rows2(&w, ctr, dr, t, u);
		else
			block_rows(&w, ctr, dr, t);
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

/*
 * The byte-exact variant (the contract in chacha_internal.h): the
 * ChaCha20-Poly1305 burst reads and writes small linear jobs in place with
 * it, no staging copies.
 * Lengths are public, so the per-lane branches on them are fine.
 * Where the CPU gains from it (vecsec_tune(): Zen 5 and Zen 4, not
 * measured on the Xeons), two blocks a step (block_rows2()) while the
 * longest lane has two left (the one-time-key block counts), one for a
 * last odd block: on an AMD Zen 5, bursts of 32 1420-byte seals (direct
 * path) went from 838 to 726 TSC cycles per message; Zen 4's figures are
 * with its tuning entry (lib/cpu/cpu.c).
 */
void
vecsec_chacha_xor_lanes_bytes_x16_avx512(const struct chacha_lanes *l, const uint32_t *bytes,
					 uint8_t *const *ks0)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	struct lanes_in w;
	__m512i ctr;
	uint32_t left[16], most = 0;
	size_t off = 0;

	lanes_in_init(&w, l);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	for (int i = 0; i < 16; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}

	if (ks0 != NULL) {
		__m512i t[16], u[16];

		if (pairs && most > 0) {
			/* block 0 and the data's first block together */
			block_rows2(&w, ctr, dr, t, u);
			xor_rows(l, left, 0, u);
			off = CHACHA_BLOCK_LEN;
			ctr = vadd(ctr, _mm512_set1_epi32(2));
		} else {
			block_rows(&w, ctr, dr, t);
			ctr = vadd(ctr, _mm512_set1_epi32(1));
		}
		for (int i = 0; i < 16; i++)
			if ((act >> i) & 1)
				_mm512_storeu_si512((void *)ks0[i], t[i]);
	}
	for (; pairs && off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		__m512i t[16], u[16];

		block_rows2(&w, ctr, dr, t, u);
		xor_rows(l, left, off, t);
		xor_rows(l, left, off + CHACHA_BLOCK_LEN, u);
		ctr = vadd(ctr, _mm512_set1_epi32(2));
	}
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m512i t[16];

		block_rows(&w, ctr, dr, t);
		xor_rows(l, left, off, t);
		ctr = vadd(ctr, _mm512_set1_epi32(1));
	}
}
