/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GHASH (SP 800-38D 6.4), SSE4.1 + PCLMULQDQ (the pclmul flag set): 8
 * blocks per step with aggregated reduction, X(i+8) = (X(i) ^ B0) * H^8 ^
 * B1 * H^7 ^ ... ^ B7 * H, so eight 256-bit products are summed before one
 * reduction; a tail of 1..7 blocks is one more aggregated step.
 *
 * Layout: blocks and powers are byte-reversed into little-endian 128-bit
 * integers, in which GCM's reflected bit order makes the carry-less
 * product come out one bit short: the 255-bit sum is shifted left by one,
 * then reduced modulo x^128 + x^7 + x^2 + x + 1 in the reflected form
 * (Gueron and Kounavis, "Intel Carry-Less Multiplication Instruction and
 * its Usage for Computing the GCM Mode", algorithms 4 and 5). The shift
 * and the reduction are GF(2)-linear, so they commute with the sum.
 * Constant time by construction (no tables).
 */
#include <string.h>

#include <immintrin.h>

#include "ghash_internal.h"
#include "ghash_clmul.h"

static void
ghash_update_pclmul(uint8_t x[16], const struct ghash_key *k, const uint8_t *in, size_t nblocks)
{
	__m128i acc = gc_load_be(x), h[8];

	if (nblocks == 0)
		return;
	for (int i = 0; i < 8; i++)
		h[i] = gc_load_be(k->h[i]);
	while (nblocks > 0) {
		size_t n = nblocks < 8 ? nblocks : 8;
		struct gc_prod p = gc_prod_zero();

		/* block j of n is multiplied by H^(n-j); the first absorbs acc */
		gc_mul_acc(&p, _mm_xor_si128(acc, gc_load_be(in)), h[n - 1]);
		for (size_t j = 1; j < n; j++)
			gc_mul_acc(&p, gc_load_be(in + 16 * j), h[n - 1 - j]);
		acc = gc_reduce(&p);
		in += 16 * n;
		nblocks -= n;
	}
	gc_store_be(x, acc);
	/* the powers of H are key material; clear their stack copies */
	vecsec_memzero(h, sizeof(h));
}

const struct ghash_impl vecsec_ghash_impl_pclmul = {
	.name = "pclmul",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSE41 | VECSEC_CPU_PCLMUL,
	.update = ghash_update_pclmul,
};
