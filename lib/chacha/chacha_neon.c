/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 and HChaCha, NEON (AArch64 Advanced SIMD, baseline
 * ARMv8-A, no flags). xor_blocks: 5 blocks of one message per step, 4 of
 * them word-sliced (one state word per q register, transposed by
 * TRN1/TRN2 before the XOR) and the fifth in general-purpose registers in
 * the same loop; then one 4-block step; 2 to 4 last blocks are a 4-block
 * step into a keystream buffer, a last block alone uses the row form (one
 * row of the state per register, diagonals lined up by EXT). hchacha: the
 * row form without the final addition. Rotations by 16 are REV32, by 8
 * one TBL, by 12 and 7 SHL + SRI. The design of Linux's
 * arch/arm64/crypto/chacha-neon-core.S (chacha_4block_xor_neon with its
 * ALU block, chacha_permute). RFC 8439 2.1-2.4, draft-irtf-cfrg-xchacha
 * 2.2; the counter is word 12 only and never wraps inside a call
 * (chacha_internal.h). Instruction counts: docs/arm64.md.
 */
#include <stdatomic.h>
#include <string.h>

#include <arm_neon.h>

#include "chacha_internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "chacha_neon.c stores state words as little-endian bytes: aarch64 little-endian only"
#endif

static inline uint32x4_t vadd(uint32x4_t a, uint32x4_t b) { return vaddq_u32(a, b); }
static inline uint32x4_t vxor(uint32x4_t a, uint32x4_t b) { return veorq_u32(a, b); }

/* rotations by whole bytes: REV32 on halfwords, TBL for 8 */
static inline uint32x4_t
vrol16(uint32x4_t v)
{
	return vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(v)));
}

static inline uint32x4_t
vrol8(uint32x4_t v, uint8x16_t rot8)
{
	return vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(v), rot8));
}

/* SHL then SRI: the bits shifted out on the left come back on the right */
static inline uint32x4_t vrol12(uint32x4_t v) { return vsriq_n_u32(vshlq_n_u32(v, 12), v, 20); }
static inline uint32x4_t vrol7(uint32x4_t v) { return vsriq_n_u32(vshlq_n_u32(v, 7), v, 25); }

/* byte i of the result is byte rot8_idx[i] of the input: each word turned left by 8 */
static const uint8_t rot8_idx[16] = { 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14 };

/* RFC 8439 2.1, on four words of every block at once (r8: the TBL indexes) */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = vrol16(vxor(d, a)); \
	c = vadd(c, d); b = vrol12(vxor(b, c)); \
	a = vadd(a, b); d = vrol8(vxor(d, a), r8); \
	c = vadd(c, d); b = vrol7(vxor(b, c)); \
} while (0)

/*
 * Rows 0-3 of the state after rounds/2 double rounds (no addition): the
 * diagonal round turns rows 1-3 left by 1, 2, 3 words so that diagonals
 * line up as columns (RFC 8439 2.2), then back.
 */
static inline void
rows_permute(uint32x4_t *pa, uint32x4_t *pb, uint32x4_t *pc, uint32x4_t *pd,
	     unsigned int rounds)
{
	const uint8x16_t r8 = vld1q_u8(rot8_idx);
	uint32x4_t a = *pa, b = *pb, c = *pc, d = *pd;

	for (unsigned int i = 0; i < rounds; i += 2) {
		QR(a, b, c, d);
		b = vextq_u32(b, b, 1);
		c = vextq_u32(c, c, 2);
		d = vextq_u32(d, d, 3);
		QR(a, b, c, d);
		b = vextq_u32(b, b, 3);
		c = vextq_u32(c, c, 2);
		d = vextq_u32(d, d, 1);
	}
	*pa = a;
	*pb = b;
	*pc = c;
	*pd = d;
}

/* One block of keystream in row form (RFC 8439 2.3). */
static void
block_x1(uint8_t ks[CHACHA_BLOCK_LEN], const uint32_t x[16], unsigned int rounds)
{
	const uint32x4_t a0 = vld1q_u32(&x[0]), b0 = vld1q_u32(&x[4]);
	const uint32x4_t c0 = vld1q_u32(&x[8]), d0 = vld1q_u32(&x[12]);
	uint32x4_t a = a0, b = b0, c = c0, d = d0;

	rows_permute(&a, &b, &c, &d, rounds);
	vst1q_u8(ks, vreinterpretq_u8_u32(vadd(a, a0)));
	vst1q_u8(ks + 16, vreinterpretq_u8_u32(vadd(b, b0)));
	vst1q_u8(ks + 32, vreinterpretq_u8_u32(vadd(c, c0)));
	vst1q_u8(ks + 48, vreinterpretq_u8_u32(vadd(d, d0)));
}

/* 4x4 transpose of 32-bit words: a..d become words w..w+3 of blocks 0..3 */
#define TRANSPOSE4(a, b, c, d) do { \
	uint32x4_t t0_ = vtrn1q_u32(a, b), t1_ = vtrn2q_u32(a, b); \
	uint32x4_t t2_ = vtrn1q_u32(c, d), t3_ = vtrn2q_u32(c, d); \
	a = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t0_), \
					     vreinterpretq_u64_u32(t2_))); \
	b = vreinterpretq_u32_u64(vtrn1q_u64(vreinterpretq_u64_u32(t1_), \
					     vreinterpretq_u64_u32(t3_))); \
	c = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t0_), \
					     vreinterpretq_u64_u32(t2_))); \
	d = vreinterpretq_u32_u64(vtrn2q_u64(vreinterpretq_u64_u32(t1_), \
					     vreinterpretq_u64_u32(t3_))); \
} while (0)

/*
 * Four consecutive blocks, word-sliced: v[i] holds word i of blocks 0..3.
 * in != NULL: out = in ^ keystream, 256 bytes; in == NULL: the keystream
 * itself into out.
 */
/* The double round on word-sliced state (RFC 8439 2.2: columns, then diagonals). */
#define DROUND(v) do { \
	QR(v[0], v[4], v[8], v[12]); \
	QR(v[1], v[5], v[9], v[13]); \
	QR(v[2], v[6], v[10], v[14]); \
	QR(v[3], v[7], v[11], v[15]); \
	QR(v[0], v[5], v[10], v[15]); \
	QR(v[1], v[6], v[11], v[12]); \
	QR(v[2], v[7], v[8], v[13]); \
	QR(v[3], v[4], v[9], v[14]); \
} while (0)

/*
 * Four consecutive blocks, word-sliced: v[i] holds word i of blocks 0..3.
 * in != NULL: out = in ^ keystream, 256 bytes; in == NULL: the keystream
 * itself into out. The input words are loaded again (LD1R) for the final
 * addition rather than kept: 16 more live registers would spill.
 */
static void
blocks_x4(uint8_t *out, const uint8_t *in, const uint32_t x[16], unsigned int rounds)
{
	static const uint32_t ctr_add[4] = { 0, 1, 2, 3 };
	const uint8x16_t r8 = vld1q_u8(rot8_idx);
	const uint32x4_t inc = vld1q_u32(ctr_add);
	uint32x4_t v[16];

	for (int i = 0; i < 16; i++)
		v[i] = vld1q_dup_u32(&x[i]);
	v[12] = vadd(v[12], inc);
	/* rounds / 2 is even (20, 12, 8): two double rounds a turn */
	for (unsigned int r = 0; r < rounds; r += 4) {
		DROUND(v);
		DROUND(v);
	}
	/* a compiler-only fence: load x[] again, do not keep it in 16 registers */
	atomic_signal_fence(memory_order_seq_cst);
	for (int i = 0; i < 16; i++)
		v[i] = vadd(v[i], vld1q_dup_u32(&x[i]));
	v[12] = vadd(v[12], inc);
	TRANSPOSE4(v[0], v[1], v[2], v[3]);
	TRANSPOSE4(v[4], v[5], v[6], v[7]);
	TRANSPOSE4(v[8], v[9], v[10], v[11]);
	TRANSPOSE4(v[12], v[13], v[14], v[15]);
	/* block k is v[k], v[4 + k], v[8 + k], v[12 + k] */
	for (int k = 0; k < 4; k++) {
		for (int j = 0; j < 4; j++) {
			uint8x16_t w = vreinterpretq_u8_u32(v[4 * j + k]);

			if (in != NULL)
				w = veorq_u8(w, vld1q_u8(in + 64 * k + 16 * j));
			vst1q_u8(out + 64 * k + 16 * j, w);
		}
	}
}

/* ---- the fifth block, in general-purpose registers ---- */

static inline uint32_t
rol32(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));         /* one ROR */
}

/* RFC 8439 2.1 on scalar words */
#define SQR(a, b, c, d) do { \
	a += b; d = rol32(d ^ a, 16); \
	c += d; b = rol32(b ^ c, 12); \
	a += b; d = rol32(d ^ a, 8); \
	c += d; b = rol32(b ^ c, 7); \
} while (0)

#define SDROUND(s) do { \
	SQR(s[0], s[4], s[8], s[12]); \
	SQR(s[1], s[5], s[9], s[13]); \
	SQR(s[2], s[6], s[10], s[14]); \
	SQR(s[3], s[7], s[11], s[15]); \
	SQR(s[0], s[5], s[10], s[15]); \
	SQR(s[1], s[6], s[11], s[12]); \
	SQR(s[2], s[7], s[8], s[13]); \
	SQR(s[3], s[4], s[9], s[14]); \
} while (0)

/*
 * Five consecutive blocks, out = in ^ keystream (320 bytes): blocks 0-3
 * word-sliced in NEON registers as blocks_x4(), block 4 in general-purpose
 * registers in the same loop (ADD/EOR/ROR), so that cores which issue
 * integer and ASIMD instructions side by side get a fifth block for
 * about the price of four (Linux's chacha_4block_xor_neon does the same).
 */
static void
blocks_x5(uint8_t *out, const uint8_t *in, const uint32_t x[16], unsigned int rounds)
{
	static const uint32_t ctr_add[4] = { 0, 1, 2, 3 };
	const uint8x16_t r8 = vld1q_u8(rot8_idx);
	const uint32x4_t inc = vld1q_u32(ctr_add);
	uint32x4_t v[16];
	uint32_t s[16], ks5[16];

	for (int i = 0; i < 16; i++) {
		v[i] = vld1q_dup_u32(&x[i]);
		s[i] = x[i];
	}
	v[12] = vadd(v[12], inc);
	s[12] += 4;
	for (unsigned int r = 0; r < rounds; r += 4) {
		DROUND(v);
		SDROUND(s);
		DROUND(v);
		SDROUND(s);
	}
	/* block 4: its keystream words through memory (ks5, wiped) into NEON */
	for (int i = 0; i < 16; i++)
		ks5[i] = s[i] + x[i];
	ks5[12] += 4;
	for (int q = 0; q < 4; q++)
		vst1q_u8(out + 256 + 16 * q,
			 veorq_u8(vld1q_u8(in + 256 + 16 * q),
				  vreinterpretq_u8_u32(vld1q_u32(&ks5[4 * q]))));
	vecsec_memzero(ks5, sizeof(ks5));
	atomic_signal_fence(memory_order_seq_cst);      /* load x[] again */
	for (int i = 0; i < 16; i++)
		v[i] = vadd(v[i], vld1q_dup_u32(&x[i]));
	v[12] = vadd(v[12], inc);
	TRANSPOSE4(v[0], v[1], v[2], v[3]);
	TRANSPOSE4(v[4], v[5], v[6], v[7]);
	TRANSPOSE4(v[8], v[9], v[10], v[11]);
	TRANSPOSE4(v[12], v[13], v[14], v[15]);
	for (int k = 0; k < 4; k++)
		for (int j = 0; j < 4; j++)
			vst1q_u8(out + 64 * k + 16 * j,
				 veorq_u8(vreinterpretq_u8_u32(v[4 * j + k]),
					  vld1q_u8(in + 64 * k + 16 * j)));
}

static inline void
xor_ks(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		vst1q_u8(out + i, veorq_u8(vld1q_u8(in + i), vld1q_u8(ks + i)));
	for (; i < n; i++)
		out[i] = in[i] ^ ks[i];
}

void
vecsec_chacha_xor_blocks_neon(uint8_t *out, const uint8_t *in, size_t len,
			      struct chacha_state *st)
{
	uint8_t ks[4 * CHACHA_BLOCK_LEN];

	for (; len >= 5 * CHACHA_BLOCK_LEN; len -= 5 * CHACHA_BLOCK_LEN) {
		blocks_x5(out, in, st->x, st->rounds);
		st->x[12] += 5;
		in += 5 * CHACHA_BLOCK_LEN;
		out += 5 * CHACHA_BLOCK_LEN;
	}
	if (len >= 4 * CHACHA_BLOCK_LEN) {
		blocks_x4(out, in, st->x, st->rounds);
		st->x[12] += 4;
		in += 4 * CHACHA_BLOCK_LEN;
		out += 4 * CHACHA_BLOCK_LEN;
		len -= 4 * CHACHA_BLOCK_LEN;
	}
	if (len == 0)
		return;
	if (len > CHACHA_BLOCK_LEN)
		/* 2 to 4 blocks: one x4 step costs less than two single blocks */
		blocks_x4(ks, NULL, st->x, st->rounds);
	else
		block_x1(ks, st->x, st->rounds);
	xor_ks(out, in, ks, len);
	st->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
	vecsec_memzero(ks, sizeof(ks));
}

/*
 * draft-irtf-cfrg-xchacha-03 2.2: the state with the 16-byte nonce in
 * words 12-15, permuted in row form; rows 0 and 3, no final addition.
 */
void
vecsec_hchacha_neon(uint8_t out[32], const uint8_t key[CHACHA_KEY_LEN],
		    const uint8_t nonce[HCHACHA_NONCE_LEN], unsigned int rounds)
{
	static const uint32_t sigma[4] = { CHACHA_C0, CHACHA_C1, CHACHA_C2, CHACHA_C3 };
	uint32x4_t a = vld1q_u32(sigma);
	uint32x4_t b = vreinterpretq_u32_u8(vld1q_u8(key));
	uint32x4_t c = vreinterpretq_u32_u8(vld1q_u8(key + 16));
	uint32x4_t d = vreinterpretq_u32_u8(vld1q_u8(nonce));

	rows_permute(&a, &b, &c, &d, rounds);
	vst1q_u8(out, vreinterpretq_u8_u32(a));
	vst1q_u8(out + 16, vreinterpretq_u8_u32(d));
}

const struct chacha_impl vecsec_chacha_impl_neon = {
	.name = "neon",
	.isa = VECSEC_ISA_NEON,
	.needs = VECSEC_CPU_NEON,
	.xor_blocks = vecsec_chacha_xor_blocks_neon,
	.hchacha = vecsec_hchacha_neon,
	.lanes = 4,
	.lanes_name = "x4-neon",
	.xor_lanes = vecsec_chacha_xor_lanes_x4_neon,
};
