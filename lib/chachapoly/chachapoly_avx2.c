/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8), AVX2 + BMI2: whole linear jobs
 * (chachapoly_x86.h) on 512-byte stitched steps (chachapoly_avx2.S), the
 * one-time key block either in an 8-block step with the first 448 bytes
 * or, for short jobs and where it saves a last step, in the row form with
 * up to 192 bytes (4 blocks at about one block's latency).
 */
#include "chachapoly_internal.h"

#define CX_AVX2
#define cpx_stitch vecsec_chachapoly_x8_avx2
#include "chachapoly_x86.h"

/*
 * Every length: stitched beats two passes at every length measured, 1 B
 * to 16 KiB, at this level (AMD EPYC Zen 3; see the commit).
 */
const struct chachapoly_impl vecsec_chachapoly_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.min_len = 0,
	.linear = cpx_linear,
};
