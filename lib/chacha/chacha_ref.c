/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 and HChaCha, portable reference: one block at a time,
 * following RFC 8439 2.1-2.4 and draft-irtf-cfrg-xchacha 2.2 word for word.
 * Constant time (additions, rotations and XORs only). No lanes.
 */
#include <string.h>

#include "chacha_internal.h"

static inline uint32_t
rotl32(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

/* RFC 8439, 2.1: the quarter round on words a, b, c, d of the state. */
static inline void
quarter_round(uint32_t s[16], int a, int b, int c, int d)
{
	s[a] += s[b]; s[d] = rotl32(s[d] ^ s[a], 16);
	s[c] += s[d]; s[b] = rotl32(s[b] ^ s[c], 12);
	s[a] += s[b]; s[d] = rotl32(s[d] ^ s[a], 8);
	s[c] += s[d]; s[b] = rotl32(s[b] ^ s[c], 7);
}

/*
 * RFC 8439, 2.3: "inner_block", a column round then a diagonal round;
 * rounds / 2 of them (20 rounds: 10 double rounds).
 */
static void
chacha_permute(uint32_t s[16], unsigned int rounds)
{
	for (unsigned int i = 0; i < rounds; i += 2) {
		quarter_round(s, 0, 4, 8, 12);
		quarter_round(s, 1, 5, 9, 13);
		quarter_round(s, 2, 6, 10, 14);
		quarter_round(s, 3, 7, 11, 15);
		quarter_round(s, 0, 5, 10, 15);
		quarter_round(s, 1, 6, 11, 12);
		quarter_round(s, 2, 7, 8, 13);
		quarter_round(s, 3, 4, 9, 14);
	}
}

/* RFC 8439, 2.3: the block function, permuted state + input, serialized LE. */
void
vecsec_chacha_block_ref(uint8_t out[CHACHA_BLOCK_LEN], const struct chacha_state *st)
{
	uint32_t w[16];

	memcpy(w, st->x, sizeof(w));
	chacha_permute(w, st->rounds);
	for (int i = 0; i < 16; i++)
		chacha_st32(out + 4 * i, w[i] + st->x[i]);
	vecsec_memzero(w, sizeof(w));
}

/*
 * RFC 8439, 2.4: encryption XORs each block of keystream, counter + j for
 * block j; the last partial block uses the start of its keystream block.
 * Word 12 only: chacha_internal.h says who keeps it from wrapping.
 */
void
vecsec_chacha_xor_blocks_ref(uint8_t *out, const uint8_t *in, size_t len,
			     struct chacha_state *st)
{
	uint8_t ks[CHACHA_BLOCK_LEN];

	while (len > 0) {
		size_t n = len < CHACHA_BLOCK_LEN ? len : CHACHA_BLOCK_LEN;

		vecsec_chacha_block_ref(ks, st);
		st->x[12]++;
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ ks[i];
		in += n;
		out += n;
		len -= n;
	}
	vecsec_memzero(ks, sizeof(ks));
}

/*
 * draft-irtf-cfrg-xchacha-03, 2.2: HChaCha20 is the ChaCha state with the
 * 16-byte nonce in words 12-15, permuted, and words 0-3 and 12-15 output
 * without the final addition. The same with 12 or 8 rounds gives the
 * HChaCha12 of Adiantum (and HChaCha8).
 */
void
vecsec_hchacha_ref(uint8_t out[32], const uint8_t key[CHACHA_KEY_LEN],
		   const uint8_t nonce[HCHACHA_NONCE_LEN], unsigned int rounds)
{
	struct chacha_state st;

	chacha_state_key(&st, key, rounds);
	for (int i = 0; i < 4; i++)
		st.x[12 + i] = chacha_le32(nonce + 4 * i);
	chacha_permute(st.x, rounds);
	for (int i = 0; i < 4; i++) {
		chacha_st32(out + 4 * i, st.x[i]);
		chacha_st32(out + 16 + 4 * i, st.x[12 + i]);
	}
	vecsec_memzero(&st, sizeof(st));
}

const struct chacha_impl vecsec_chacha_impl_ref = {
	.name = "ref",
	.isa = VECSEC_ISA_SCALAR,
	.needs = 0,
	.min_len = 0,
	.xor_blocks = vecsec_chacha_xor_blocks_ref,
	.hchacha = vecsec_hchacha_ref,
};
