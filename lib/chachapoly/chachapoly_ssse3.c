/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8), SSSE3: whole linear jobs
 * (chachapoly_x86.h) on 256-byte stitched steps (chachapoly_ssse3.S), the
 * one-time key block either in a 4-block step with the first 192 bytes
 * or, for short jobs and where it saves a last step, in the row form with
 * up to 64 bytes (2 blocks at about one block's latency).
 */
#include "chachapoly_internal.h"

#define CX_SSSE3
#define cpx_stitch vecsec_chachapoly_x4_ssse3
#include "chachapoly_x86.h"

/*
 * Every length: stitched beats two passes at every length measured, 1 B
 * to 16 KiB, at this level (AMD EPYC Zen 3; see the commit).
 */
const struct chachapoly_impl vecsec_chachapoly_impl_ssse3 = {
	.name = "ssse3",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_SSSE3,
	.min_len = 0,
	.linear = cpx_linear,
};
