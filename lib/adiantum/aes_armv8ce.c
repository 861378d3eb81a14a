/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-256 on one block, ARMv8 Cryptography Extensions (built with
 * -march=armv8-a+crypto, the armv8ce flag set; used only where
 * getauxval(AT_HWCAP) has HWCAP_AES): AESE + AESMC per round on the round
 * keys that the portable vecsec_aes256_expand() computed. AESE adds the
 * round key before SubBytes/ShiftRows (AES-NI's AESENC after MixColumns),
 * so the cipher is AESE/AESMC with ek[0..12], AESE with ek[13], EOR
 * ek[14]; the equivalent inverse cipher (FIPS 197 5.3.5) the same with
 * AESD/AESIMC on dk[], the layout AES-NI uses too. Constant time by
 * construction.
 */
#include <arm_neon.h>

#include "adiantum_internal.h"

static void
aes256_encrypt_armv8ce(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
		       const uint8_t in[AES_BLOCK_LEN])
{
	uint8x16_t x = vld1q_u8(in);

	for (int r = 0; r < AES256_ROUNDS - 1; r++)
		x = vaesmcq_u8(vaeseq_u8(x, vld1q_u8(k->ek[r])));
	x = vaeseq_u8(x, vld1q_u8(k->ek[AES256_ROUNDS - 1]));
	vst1q_u8(out, veorq_u8(x, vld1q_u8(k->ek[AES256_ROUNDS])));
}

static void
aes256_decrypt_armv8ce(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
		       const uint8_t in[AES_BLOCK_LEN])
{
	uint8x16_t x = vld1q_u8(in);

	for (int r = 0; r < AES256_ROUNDS - 1; r++)
		x = vaesimcq_u8(vaesdq_u8(x, vld1q_u8(k->dk[r])));
	x = vaesdq_u8(x, vld1q_u8(k->dk[AES256_ROUNDS - 1]));
	vst1q_u8(out, veorq_u8(x, vld1q_u8(k->dk[AES256_ROUNDS])));
}

const struct aes256_impl vecsec_aes256_impl_armv8ce = {
	.name = "armv8ce",
	.isa = VECSEC_ISA_NEON,
	.needs = VECSEC_CPU_NEON | VECSEC_CPU_ARM_AES,
	.encrypt = aes256_encrypt_armv8ce,
	.decrypt = aes256_decrypt_armv8ce,
};
