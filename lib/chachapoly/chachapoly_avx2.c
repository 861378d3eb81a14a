/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8), AVX2 + BMI2: whole linear jobs
 * (chachapoly_x86.h) on 512-byte stitched steps (chachapoly_avx2.S), the
 * one-time key block either in an 8-block step with the first 448 bytes
 * or, for short jobs and where it saves a last step, in the row form with
 * up to 192 bytes (4 blocks at about one block's latency).
 */
#include <immintrin.h>

#include "chachapoly_internal.h"

#define CPX_STEP 512
#define CPX_ROW_DATA 192

static inline void
cpx_step_ks(uint8_t *ks, const uint8_t *zeros, uint32_t x[16])
{
	vecsec_chacha_x8_avx2(ks, zeros, 1, x, 20);
}

static inline void
cpx_row_ks(uint8_t *ks, const uint32_t x[16], unsigned int nblocks)
{
	vecsec_chacha_ks4_avx2(ks, x, nblocks, 20);
}

#define cpx_stitch vecsec_chachapoly_x8_avx2

/* out = in ^ ks for n bytes (n < 512): 32 at a time, then 16, 8, 4, 1 */
static inline void
cpx_xor(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	size_t i = 0;

	for (; i + 32 <= n; i += 32)
		_mm256_storeu_si256((__m256i *)(void *)(out + i), _mm256_xor_si256(
			_mm256_loadu_si256((const __m256i *)(const void *)(in + i)),
			_mm256_load_si256((const __m256i *)(const void *)(ks + i))));
	if (i + 16 <= n) {
		_mm_storeu_si128((__m128i *)(void *)(out + i), _mm_xor_si128(
			_mm_loadu_si128((const __m128i *)(const void *)(in + i)),
			_mm_load_si128((const __m128i *)(const void *)(ks + i))));
		i += 16;
	}
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
run_avx2(const struct vecsec_aead_job *job, struct chacha_state *st)
{
	return cpx_run(job, st, cpx_row_first(job->len));
}

/*
 * Every length: stitched beats two passes at every length measured, 1 B
 * to 16 KiB, at this level (AMD EPYC Zen 3; see the commit).
 */
const struct chachapoly_impl vecsec_chachapoly_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.min_len = 0,
	.linear = run_avx2,
};
