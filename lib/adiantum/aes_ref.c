/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AES-256 on one block, portable reference (FIPS 197): key expansion
 * (5.2), Cipher (5.1) and InvCipher (5.3), on a byte state in the
 * standard's column-major order. Constant time: the s-box is computed
 * (lib/cpu/gf256.h, inversion by exponentiation), never looked up, and
 * xtime uses masks. Slow (about 200 s-box evaluations a block); Adiantum
 * needs one block a message, and AES-NI takes over where the CPU has it.
 */
#include "adiantum_internal.h"
#include "gf256.h"
#include "vecsec/vecsec.h"

/* FIPS 197 4.2.1: multiplication by x, with a mask instead of a branch. */
static inline uint8_t
xtime(uint8_t a)
{
	return (uint8_t)((a << 1) ^ (-(a >> 7) & 0x1b));
}

static void
add_round_key(uint8_t s[16], const uint8_t rk[16])
{
	for (int i = 0; i < 16; i++)
		s[i] ^= rk[i];
}

/* 5.1.1 and 5.3.2 */
static void
sub_bytes(uint8_t s[16])
{
	for (int i = 0; i < 16; i++)
		s[i] = vecsec_aes_sbox_ct(s[i]);
}

static void
inv_sub_bytes(uint8_t s[16])
{
	for (int i = 0; i < 16; i++)
		s[i] = vecsec_aes_inv_sbox_ct(s[i]);
}

/* 5.1.2: row r rotates left by r columns. */
static void
shift_rows(uint8_t s[16])
{
	uint8_t t[16];

	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++)
			t[r + 4 * c] = s[r + 4 * ((c + r) % 4)];
	for (int i = 0; i < 16; i++)
		s[i] = t[i];
}

/* 5.3.1: row r rotates right by r columns. */
static void
inv_shift_rows(uint8_t s[16])
{
	uint8_t t[16];

	for (int r = 0; r < 4; r++)
		for (int c = 0; c < 4; c++)
			t[r + 4 * ((c + r) % 4)] = s[r + 4 * c];
	for (int i = 0; i < 16; i++)
		s[i] = t[i];
}

/* 5.1.3: each column times {03}x^3 + {01}x^2 + {01}x + {02}. */
static void
mix_columns(uint8_t s[16])
{
	for (int c = 0; c < 4; c++) {
		uint8_t *col = s + 4 * c;
		uint8_t a0 = col[0], a1 = col[1], a2 = col[2], a3 = col[3];
		uint8_t all = a0 ^ a1 ^ a2 ^ a3;

		/* 2 a_i + 3 a_(i+1) + a_(i+2) + a_(i+3) = a_i + all + 2 (a_i + a_(i+1)) */
		col[0] = a0 ^ all ^ xtime(a0 ^ a1);
		col[1] = a1 ^ all ^ xtime(a1 ^ a2);
		col[2] = a2 ^ all ^ xtime(a2 ^ a3);
		col[3] = a3 ^ all ^ xtime(a3 ^ a0);
	}
}

/* 5.3.3: each column times {0b}x^3 + {0d}x^2 + {09}x + {0e}. */
static void
inv_mix_columns(uint8_t s[16])
{
	for (int c = 0; c < 4; c++) {
		uint8_t *col = s + 4 * c;
		uint8_t a[4] = { col[0], col[1], col[2], col[3] };

		for (int i = 0; i < 4; i++)
			col[i] = vecsec_gf256_mul(a[i], 0x0e) ^
				 vecsec_gf256_mul(a[(i + 1) % 4], 0x0b) ^
				 vecsec_gf256_mul(a[(i + 2) % 4], 0x0d) ^
				 vecsec_gf256_mul(a[(i + 3) % 4], 0x09);
	}
}

/*
 * 5.2, Nk = 8, Nr = 14: words w[0..59], w[i] = w[i-8] ^ temp where temp is
 * SubWord(RotWord(w[i-1])) ^ Rcon[i/8] when i % 8 == 0, SubWord(w[i-1])
 * when i % 8 == 4, else w[i-1]. The branches depend on i only.
 */
void
vecsec_aes256_expand(struct aes256_key *k, const uint8_t key[AES256_KEY_LEN])
{
	uint8_t *w = &k->ek[0][0];      /* 60 words of 4 bytes */
	uint8_t rcon = 0x01;
	uint8_t t[4];

	for (int i = 0; i < 32; i++)
		w[i] = key[i];
	for (int i = 8; i < 4 * (AES256_ROUNDS + 1); i++) {
		for (int j = 0; j < 4; j++)
			t[j] = w[4 * (i - 1) + j];
		if (i % 8 == 0) {
			uint8_t t0 = t[0];

			t[0] = vecsec_aes_sbox_ct(t[1]) ^ rcon;
			t[1] = vecsec_aes_sbox_ct(t[2]);
			t[2] = vecsec_aes_sbox_ct(t[3]);
			t[3] = vecsec_aes_sbox_ct(t0);
			rcon = xtime(rcon);
		} else if (i % 8 == 4) {
			for (int j = 0; j < 4; j++)
				t[j] = vecsec_aes_sbox_ct(t[j]);
		}
		for (int j = 0; j < 4; j++)
			w[4 * i + j] = w[4 * (i - 8) + j] ^ t[j];
	}
	vecsec_memzero(t, sizeof(t));
	/* 5.3.5: the equivalent inverse cipher's round keys. */
	for (int r = 0; r <= AES256_ROUNDS; r++) {
		for (int i = 0; i < 16; i++)
			k->dk[r][i] = k->ek[AES256_ROUNDS - r][i];
		if (r != 0 && r != AES256_ROUNDS)
			inv_mix_columns(k->dk[r]);
	}
}

/* 5.1, Figure 5 */
void
vecsec_aes256_encrypt_ref(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			  const uint8_t in[AES_BLOCK_LEN])
{
	uint8_t s[16];

	for (int i = 0; i < 16; i++)
		s[i] = in[i];
	add_round_key(s, k->ek[0]);
	for (int r = 1; r < AES256_ROUNDS; r++) {
		sub_bytes(s);
		shift_rows(s);
		mix_columns(s);
		add_round_key(s, k->ek[r]);
	}
	sub_bytes(s);
	shift_rows(s);
	add_round_key(s, k->ek[AES256_ROUNDS]);
	for (int i = 0; i < 16; i++)
		out[i] = s[i];
	vecsec_memzero(s, sizeof(s));
}

/* 5.3, Figure 12: the straightforward inverse cipher, on ek. */
void
vecsec_aes256_decrypt_ref(const struct aes256_key *k, uint8_t out[AES_BLOCK_LEN],
			  const uint8_t in[AES_BLOCK_LEN])
{
	uint8_t s[16];

	for (int i = 0; i < 16; i++)
		s[i] = in[i];
	add_round_key(s, k->ek[AES256_ROUNDS]);
	for (int r = AES256_ROUNDS - 1; r > 0; r--) {
		inv_shift_rows(s);
		inv_sub_bytes(s);
		add_round_key(s, k->ek[r]);
		inv_mix_columns(s);
	}
	inv_shift_rows(s);
	inv_sub_bytes(s);
	add_round_key(s, k->ek[0]);
	for (int i = 0; i < 16; i++)
		out[i] = s[i];
	vecsec_memzero(s, sizeof(s));
}

const struct aes256_impl vecsec_aes256_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.encrypt = vecsec_aes256_encrypt_ref,
	.decrypt = vecsec_aes256_decrypt_ref,
};
