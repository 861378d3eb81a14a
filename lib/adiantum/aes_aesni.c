/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-256 on one block, AES-NI (built with -msse4.1 -maes, the aesni flag
 * set): one AESENC/AESDEC per round on the round keys that the portable
 * vecsec_aes256_expand() computed (ek for the cipher, dk for the
 * equivalent inverse cipher, FIPS 197 5.3.5). Constant time by
 * construction.
 */
#include <immintrin.h>

#include "adiantum_internal.h"

static inline __m128i
load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static void
aes256_encrypt_aesni(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
		     const uint8_t in[AES_BLOCK_LEN])
{
	__m128i x = _mm_xor_si128(load(in), load(k->ek[0]));

	for (int r = 1; r < AES256_ROUNDS; r++)
		x = _mm_aesenc_si128(x, load(k->ek[r]));
	x = _mm_aesenclast_si128(x, load(k->ek[AES256_ROUNDS]));
	_mm_storeu_si128((__m128i *)(void *)out, x);
}

static void
aes256_decrypt_aesni(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
		     const uint8_t in[AES_BLOCK_LEN])
{
	__m128i x = _mm_xor_si128(load(in), load(k->dk[0]));

	for (int r = 1; r < AES256_ROUNDS; r++)
		x = _mm_aesdec_si128(x, load(k->dk[r]));
	x = _mm_aesdeclast_si128(x, load(k->dk[AES256_ROUNDS]));
	_mm_storeu_si128((__m128i *)(void *)out, x);
}

const struct aes256_impl vecsec_aes256_impl_aesni = {
	.name = "aesni",
	.isa = VECSEC_ISA_SSSE3,
	.needs = VECSEC_CPU_AESNI | VECSEC_CPU_SSE41,
	.encrypt = aes256_encrypt_aesni,
	.decrypt = aes256_decrypt_aesni,
};
