/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8), SSSE3: whole linear jobs
 * (chachapoly_x86.h) on 256-byte stitched steps (chachapoly_ssse3.S), the
 * one-time key block either in a 4-block step with the first 192 bytes
 * or, for short jobs and where it saves a last step, in the row form with
 * up to 64 bytes (2 blocks at about one block's latency).
 */
#include <immintrin.h>

#include "chachapoly_internal.h"

#define CPX_STEP 256
#define CPX_ROW_DATA 64

static inline void
cpx_step_ks(uint8_t *ks, const uint8_t *zeros, uint32_t x[16])
{
	vecsec_chacha_x4_ssse3(ks, zeros, 1, x, 20);
}

static inline void
cpx_row_ks(uint8_t *ks, const uint32_t x[16], unsigned int nblocks)
{
	vecsec_chacha_ks2_ssse3(ks, x, nblocks, 20);
}

#define cpx_stitch vecsec_chachapoly_x4_ssse3

/* out = in ^ ks for n bytes (n < 256): 16 at a time, then 8, 4, 1 */
static inline void
cpx_xor(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm_storeu_si128((__m128i *)(void *)(out + i), _mm_xor_si128(
			_mm_loadu_si128((const __m128i *)(const void *)(in + i)),
			_mm_load_si128((const __m128i *)(const void *)(ks + i))));
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

#include "chachapoly_x86.h"

static int
run_ssse3(const struct vecsec_aead_job *job, struct chacha_state *st)
{
	return cpx_run(job, st, cpx_row_first(job->len));
}

/*
 * Every length: stitched beats two passes at every length measured, 1 B
 * to 16 KiB, at this level (AMD EPYC Zen 3; see the commit).
 */
const struct chachapoly_impl vecsec_chachapoly_impl_ssse3 = {
	.name = "ssse3",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSSE3,
	.min_len = 0,
	.linear = run_ssse3,
};
