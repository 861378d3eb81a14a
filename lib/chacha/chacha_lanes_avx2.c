/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, AVX2: 8 independent messages, one per 32-bit lane,
 * one block of each per step (two in the VL form, below). Word-major: ymm
 * w holds state word w of all 8 lanes (RFC 8439 2.3); two 8x8 transposes
 * give each lane its 64-byte row
 * of keystream. Contract: struct chacha_lanes in chacha_internal.h. A
 * byte-exact variant (xor_lanes_bytes) reads and writes packets in place
 * for the ChaCha20-Poly1305 burst's staged and direct paths.
 *
 * Compiled twice (lib/meson.build): as the AVX2 flag set (symbols _avx2)
 * and with -mavx512vl -mavx512bw added (symbols _avx2vl), for CPUs with
 * AVX-512VL and BW at the AVX2 level: the same 8 lanes in ymm registers
 * (never zmm, so EAL's 256-bit SIMD width holds), but VPROLD for every
 * rotation, all 16 words in registers (32 ymm: no slot swaps), and
 * byte-masked loads and stores for a lane's short last block; and two
 * blocks of every lane a step (rounds2(): the second state in ymm16-31,
 * as the fused kernel runs them), so the lanes cross over to the
 * single-message path later (chachapoly_lanes.c).
 */
#include "chacha_lanes_avx2.h"

#ifdef __AVX512VL__
#define LANES_FN(name) name##_avx2vl
#else
#define LANES_FN(name) name##_avx2
#endif

void
LANES_FN(vecsec_chacha_xor_lanes_x8)(struct chacha_lanes *l, uint32_t nblocks)
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

	uint32_t blk = 0;

#ifdef __AVX512VL__
	/* two blocks a step while two are left: the byte-exact variant's step, whole blocks */
	if (nblocks >= 2) {
		uint32_t left[8];

		for (int i = 0; i < 8; i++)
			left[i] = act & (1u << i) ? nblocks * CHACHA_BLOCK_LEN : 0;
		for (; blk + 1 < nblocks; blk += 2) {
			pair_xor(l, left, off, k, ctr, n0, n1, n2, dr);
			ctr = vadd(ctr, _mm256_set1_epi32(2));
			off += 2 * CHACHA_BLOCK_LEN;
		}
	}
#endif
	for (; blk < nblocks; blk++) {
		alignas(32) __m256i x[16] = { c0, c1, c2, c3, k[0], k[1], k[2], k[3],
					      k[4], k[5], k[6], k[7], ctr, n0, n1, n2 };
		__m256i lo[8], hi[8];

		rounds(x, dr);
		state_rows(x, k, ctr, n0, n1, n2, lo, hi);
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

/*
 * The byte-exact variant (the contract in chacha_internal.h): whole blocks
 * by 32-byte loads and stores, a lane's short last block by xor_last()
 * (VL) or through its keystream row on the stack (AVX2 has no byte-masked
 * store), 8 bytes and then single bytes at a time. Lengths are public, so
 * the per-lane branches on them are fine; the row is wiped before return.
 */
void
LANES_FN(vecsec_chacha_xor_lanes_bytes_x8)(const struct chacha_lanes *l, const uint32_t *bytes,
					     uint8_t *const *ks0)
{
	const uint32_t act = l->active & 0xff;
	const unsigned int dr = l->rounds / 2;
	__m256i k[8], n0, n1, n2, ctr;
#ifndef __AVX512VL__
	alignas(32) uint8_t row[CHACHA_BLOCK_LEN];
	bool tail = false;
#endif
	uint32_t left[8], most = 0;
	size_t off = 0;

	for (int w = 0; w < 8; w++)
		k[w] = _mm256_loadu_si256((const __m256i *)l->key[w]);
	ctr = _mm256_loadu_si256((const __m256i *)l->ctr);
	n0 = _mm256_loadu_si256((const __m256i *)l->nonce[0]);
	n1 = _mm256_loadu_si256((const __m256i *)l->nonce[1]);
	n2 = _mm256_loadu_si256((const __m256i *)l->nonce[2]);
	for (int i = 0; i < 8; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}

	if (ks0 != NULL) {
		__m256i lo[8], hi[8];

		block_rows(k, ctr, n0, n1, n2, dr, lo, hi);
		for (int i = 0; i < 8; i++) {
			if (!((act >> i) & 1))
				continue;
			_mm256_storeu_si256((__m256i *)ks0[i], lo[i]);
			_mm256_storeu_si256((__m256i *)(ks0[i] + 32), hi[i]);
		}
		ctr = vadd(ctr, _mm256_set1_epi32(1));
	}
#ifdef __AVX512VL__
	/*
	 * two blocks a step while two are left: their double rounds
	 * interleaved (rounds2(), the second state in ymm16-31), as the fused
	 * kernel's ChaCha20 runs them
	 */
	for (; off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		pair_xor(l, left, off, k, ctr, n0, n1, n2, dr);
		ctr = vadd(ctr, _mm256_set1_epi32(2));
	}
#endif
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m256i lo[8], hi[8];

		block_rows(k, ctr, n0, n1, n2, dr, lo, hi);
		for (int i = 0; i < 8; i++) {
			uint32_t r = left[i] > off ? left[i] - (uint32_t)off : 0;
			const uint8_t *in = l->in[i] + off;
			uint8_t *out = l->out[i] + off;

			if (r >= CHACHA_BLOCK_LEN) {
				__m256i a = _mm256_loadu_si256((const __m256i *)in);
				__m256i b = _mm256_loadu_si256((const __m256i *)(in + 32));

				_mm256_storeu_si256((__m256i *)out, vxor(a, lo[i]));
				_mm256_storeu_si256((__m256i *)(out + 32), vxor(b, hi[i]));
			} else if (r > 0) {
#ifdef __AVX512VL__
				xor_last(out, in, lo[i], hi[i], r);
#else
				_mm256_store_si256((__m256i *)row, lo[i]);
				_mm256_store_si256((__m256i *)(row + 32), hi[i]);
				xor_tail(out, in, row, r);
				tail = true;
#endif
			}
		}
		ctr = vadd(ctr, _mm256_set1_epi32(1));
	}
#ifndef __AVX512VL__
	if (tail)
		vecsec_memzero(row, sizeof(row));
#endif
}
