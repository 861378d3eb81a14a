/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA byte-sliced core, a template included by the SIMD kernel files
 * (aria_avx512_gfni.c, aria_avx2_gfni.c, aria_avx_aesni.c), once per
 * vector width. RFC 5794 2.3-2.4 on 16 * BS_LANES blocks at once.
 *
 * Layout: 16 vectors x[0..15]; x[j] holds byte j of every block, so the
 * substitution layer is one s-box per vector (SL1: SB1 SB2 SB3 SB4 on
 * j % 4 = 0..3; SL2: SB3 SB4 SB1 SB2), the diffusion layer A (2.4.3) is
 * XORs of whole vectors, and a round key byte is broadcast. A 16 x 16 byte
 * transpose inside every 128-bit lane goes between the two layouts: loaded
 * vector i, lane l holds block BS_LANES * i + l; after the transpose, byte
 * 16 * l + i of x[j] is byte j of that block. The transpose is four
 * identical interleave stages (each rotates the 8-bit (vector, byte)
 * index by one bit) and is its own inverse.
 *
 * The includer defines, before including:
 *   BS_V                 the vector type
 *   BS_LANES             128-bit lanes per vector (1, 2, 4)
 *   BS_FN(name)          the name with the width's suffix
 *   BS_LOAD(p), BS_STORE(p, v), BS_ZERO()
 *   BS_XOR(a, b), BS_XOR3(a, b, c), BS_AND(a, b)
 *   BS_BCAST(b)          byte b in every byte
 *   BS_UNPACKLO(a, b), BS_UNPACKHI(a, b)   byte interleave within lanes
 *   BS_ADD8(a, b), BS_SUB8(a, b), BS_GT_U8(a, b) (0xff where a > b unsigned)
 *   BS_SB1(v) .. BS_SB4(v)                 the four s-boxes on every byte
 *   BS_MAT(m)            (optional) a 64-bit matrix in every qword
 *   BS_BLOCK_INDEX       a const uint8_t[16 * BS_LANES] table name: entry
 *                        16 * l + i = BS_LANES * i + l (which block a byte is)
 * All of them are #undef'd at the end. No table is indexed by data: the
 * s-boxes are GFNI or AES-NI instructions.
 */

#ifndef VECSEC_ARIA_BS_ONCE
#define VECSEC_ARIA_BS_ONCE

/* ctr += add in its low `width` bytes, big-endian, wrapping there */
static inline void
bs_ctr_add(uint8_t ctr[16], unsigned int add, unsigned int width)
{
	unsigned int carry = add;

	for (unsigned int i = 16; i-- > 16 - width;) {
		carry += ctr[i];
		ctr[i] = (uint8_t)carry;
		carry >>= 8;
	}
}

/* which block each byte of a byte-sliced vector belongs to (see above) */
static const uint8_t bs_block_index_x4[64] = {
	0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
	1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61,
	2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50, 54, 58, 62,
	3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47, 51, 55, 59, 63,
};
static const uint8_t bs_block_index_x2[32] = {
	0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
	1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
};
static const uint8_t bs_block_index_x1[16] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

/*
 * GF2P8AFFINE(INV)QB matrices (row i of the 8x8 bit matrix in byte 7 - i)
 * for RFC 5794 2.4.2, with inv() the inversion in GF(2^8) mod x^8 + x^4 +
 * x^3 + x + 1 (AES's field, which ARIA shares):
 *   SB1(x) = A * inv(x) ^ 0x63          A the AES affine matrix
 *   SB2(x) = M * inv(x) ^ 0xe2          M from aria_ref.c's sb2_cols
 *   SB3(x) = inv(A^-1 * x ^ 0x05)       0x05 = A^-1 * 0x63
 *   SB4(x) = inv(M^-1 * x ^ 0x2c)       0x2c = M^-1 * 0xe2
 * test_aria checks every kernel against the reference, which checks
 * every SB2 value against the RFC table.
 */
#define BS_MAT_AES     UINT64_C(0xf1e3c78f1f3e7cf8)
#define BS_MAT_AES_INV UINT64_C(0xa44992254a942952)
#define BS_MAT_SB2     UINT64_C(0xeafcb7c3c273c66f)
#define BS_MAT_SB4_PRE UINT64_C(0x186450c737d6bdc9)
#define BS_MAT_ID      UINT64_C(0x0102040810204080)

#endif /* VECSEC_ARIA_BS_ONCE */

#define BS_BLOCKS (16 * BS_LANES)

#define BS_REP16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) \
	M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)

/* one interleave stage: (vector k, k + 8) -> vectors 2k, 2k + 1 */
#define BS_ILV(k) \
	t[2 * (k)] = BS_UNPACKLO(x[k], x[(k) + 8]); \
	t[2 * (k) + 1] = BS_UNPACKHI(x[k], x[(k) + 8]);
#define BS_COPY(j) x[j] = t[j];

static inline __attribute__((always_inline)) void
BS_FN(bs_stage)(BS_V x[16])
{
	BS_V t[16];

	BS_ILV(0) BS_ILV(1) BS_ILV(2) BS_ILV(3) BS_ILV(4) BS_ILV(5) BS_ILV(6) BS_ILV(7)
	BS_REP16(BS_COPY)
}

static inline __attribute__((always_inline)) void
BS_FN(bs_transpose)(BS_V x[16])
{
	BS_FN(bs_stage)(x);
	BS_FN(bs_stage)(x);
	BS_FN(bs_stage)(x);
	BS_FN(bs_stage)(x);
}

#define BS_ADDKEY(j) x[j] = BS_XOR(x[j], BS_BCAST(rk[j]));

static inline __attribute__((always_inline)) void
BS_FN(bs_addkey)(BS_V x[16], const uint8_t rk[16])
{
	BS_REP16(BS_ADDKEY)
}

/* 2.4.2: SL1 (odd rounds) and SL2 (even rounds and the last) */
#define BS_SL1(j) \
	x[4 * (j)] = BS_SB1(x[4 * (j)]); x[4 * (j) + 1] = BS_SB2(x[4 * (j) + 1]); \
	x[4 * (j) + 2] = BS_SB3(x[4 * (j) + 2]); x[4 * (j) + 3] = BS_SB4(x[4 * (j) + 3]);
#define BS_SL2(j) \
	x[4 * (j)] = BS_SB3(x[4 * (j)]); x[4 * (j) + 1] = BS_SB4(x[4 * (j) + 1]); \
	x[4 * (j) + 2] = BS_SB1(x[4 * (j) + 2]); x[4 * (j) + 3] = BS_SB2(x[4 * (j) + 3]);

static inline __attribute__((always_inline)) void
BS_FN(bs_sl1)(BS_V x[16])
{
	BS_SL1(0) BS_SL1(1) BS_SL1(2) BS_SL1(3)
}

static inline __attribute__((always_inline)) void
BS_FN(bs_sl2)(BS_V x[16])
{
	BS_SL2(0) BS_SL2(1) BS_SL2(2) BS_SL2(3)
}

/*
 * 2.4.3: the diffusion layer A. Each output is the XOR of seven inputs
 * (96 two-input XORs row by row); sharing common pairs (a greedy search,
 * Paar's algorithm, over A's 16 rows) needs 48, and with three-input XORs
 * where a pair is used once, 37. The rows of the RFC, for reference:
 *   y0 = x3 x4 x6 x8 x9 x13 x14     y8 = x0 x1 x4 x7 x10 x13 x15
 *   y1 = x2 x5 x7 x8 x9 x12 x15     y9 = x0 x1 x5 x6 x11 x12 x14
 *   y2 = x1 x4 x6 x10 x11 x12 x15   y10 = x2 x3 x5 x6 x8 x13 x15
 *   y3 = x0 x5 x7 x10 x11 x13 x14   y11 = x2 x3 x4 x7 x9 x12 x14
 *   y4 = x0 x2 x5 x8 x11 x14 x15    y12 = x1 x2 x6 x7 x9 x11 x12
 *   y5 = x1 x3 x4 x9 x10 x14 x15    y13 = x0 x3 x6 x7 x8 x10 x13
 *   y6 = x0 x2 x7 x9 x10 x12 x13    y14 = x0 x3 x4 x5 x9 x11 x14
 *   y7 = x1 x3 x6 x8 x11 x12 x13    y15 = x1 x2 x4 x5 x8 x10 x15
 * test_aria checks every kernel against the reference's row-by-row A.
 */
static inline __attribute__((always_inline)) void
BS_FN(bs_diffuse)(BS_V x[16])
{
	BS_V y[16];
	BS_V t16, t17, t20, t21, t22, t23, t24, t25, t26, t27, t28;
	BS_V t29, t30, t31, t32, t33, t34, t35, t36, t37, t38;
	t16 = BS_XOR(x[6], x[8]);
	t17 = BS_XOR(x[7], x[13]);
	t20 = BS_XOR(x[1], x[10]);
	t21 = BS_XOR3(x[4], x[3], x[14]);
	t22 = BS_XOR3(x[0], x[5], x[11]);
	t23 = BS_XOR(x[2], x[15]);
	t24 = BS_XOR(x[9], x[12]);
	t25 = BS_XOR(x[2], t24);
	t26 = BS_XOR(x[10], t17);
	t27 = BS_XOR(x[8], t23);
	t28 = BS_XOR(x[9], t21);
	t29 = BS_XOR(x[14], t22);
	t30 = BS_XOR(x[13], t16);
	t31 = BS_XOR(x[15], t20);
	t32 = BS_XOR(x[1], x[11]);
	t33 = BS_XOR(x[3], t30);
	t34 = BS_XOR(x[5], t27);
	t35 = BS_XOR(x[7], t25);
	t36 = BS_XOR(x[6], x[12]);
	t37 = BS_XOR(x[4], t31);
	t38 = BS_XOR(x[0], t26);
	y[0] = BS_XOR(t28, t30);
	y[1] = BS_XOR3(x[7], t24, t34);
	y[2] = BS_XOR3(x[11], t36, t37);
	y[3] = BS_XOR(t26, t29);
	y[4] = BS_XOR(t27, t29);
	y[5] = BS_XOR(t28, t31);
	y[6] = BS_XOR(t25, t38);
	y[7] = BS_XOR3(x[12], t32, t33);
	y[8] = BS_XOR3(x[0], t17, t37);
	y[9] = BS_XOR3(x[1], t29, t36);
	y[10] = BS_XOR3(x[5], t23, t33);
	y[11] = BS_XOR(t21, t35);
	y[12] = BS_XOR3(x[6], t32, t35);
	y[13] = BS_XOR3(x[3], t16, t38);
	y[14] = BS_XOR(t22, t28);
	y[15] = BS_XOR3(x[4], t20, t34);
#define BS_COPYY(j) x[j] = y[j];
	BS_REP16(BS_COPYY)
#undef BS_COPYY
}

/*
 * 2.3.1 on byte-sliced state: FO and FE alternate with rk[0..n-2], then
 * SL2, rk[n-1] and rk[n]. rk is ek (encryption) or dk (decryption).
 */
static inline __attribute__((always_inline)) void
BS_FN(bs_crypt)(BS_V x[16], const uint8_t (*rk)[16], unsigned int n)
{
	for (unsigned int r = 0; r + 1 < n; r += 2) {
		BS_FN(bs_addkey)(x, rk[r]);
		BS_FN(bs_sl1)(x);
		BS_FN(bs_diffuse)(x);
		if (r + 2 == n)
			break;
		BS_FN(bs_addkey)(x, rk[r + 1]);
		BS_FN(bs_sl2)(x);
		BS_FN(bs_diffuse)(x);
	}
	BS_FN(bs_addkey)(x, rk[n - 1]);
	BS_FN(bs_sl2)(x);
	BS_FN(bs_addkey)(x, rk[n]);
}

#define BS_LOADV(j) x[j] = BS_LOAD(in + 16 * BS_LANES * (j));
#define BS_STOREV(j) BS_STORE(out + 16 * BS_LANES * (j), x[j]);

/* BS_BLOCKS whole blocks, in block order; the state is cleared after. */
static void
BS_FN(bs_ecb)(uint8_t *out, const uint8_t *in, const uint8_t (*rk)[16], unsigned int n)
{
	BS_V x[16];

	BS_REP16(BS_LOADV)
	BS_FN(bs_transpose)(x);
	BS_FN(bs_crypt)(x, rk, n);
	BS_FN(bs_transpose)(x);
	BS_REP16(BS_STOREV)
}

/*
 * CTR on BS_BLOCKS whole blocks: out = in ^ E(ctr + 0 .. ctr + BS_BLOCKS - 1)
 * (the low `width` bytes count, big-endian, as in aria_internal.h); ctr is
 * not advanced here. The counters are built byte-sliced: the last byte
 * gets the block index added, a carry vector ripples up through bytes
 * 16 - width .. 14 (each adds 0 or 1, so a byte passes the carry on only
 * where it is 0xff). No branch or index depends on the counter.
 */
static void
BS_FN(bs_ctr)(uint8_t *out, const uint8_t *in, const uint8_t ctr[16],
	      const uint8_t (*rk)[16], unsigned int n, unsigned int width)
{
	/* c is indexed at run time, x only by constants (it stays in registers) */
	BS_V x[16], c[16], idx = BS_LOAD(BS_BLOCK_INDEX), carry;

	for (unsigned int j = 0; j < 16 - width; j++)
		c[j] = BS_BCAST(ctr[j]);
	c[15] = BS_ADD8(BS_BCAST(ctr[15]), idx);
	carry = BS_GT_U8(idx, BS_BCAST((uint8_t)(255 - ctr[15])));
	for (unsigned int j = 15; j-- > 16 - width;) {
		c[j] = BS_SUB8(BS_BCAST(ctr[j]), carry);
		carry = BS_AND(carry, BS_BCAST((uint8_t)-(uint8_t)(ctr[j] == 0xff)));
	}
#define BS_FROMC(j) x[j] = c[j];
	BS_REP16(BS_FROMC)
#undef BS_FROMC
	BS_FN(bs_crypt)(x, rk, n);
	BS_FN(bs_transpose)(x);
#define BS_XORIN(j) x[j] = BS_XOR(x[j], BS_LOAD(in + 16 * BS_LANES * (j)));
	BS_REP16(BS_XORIN)
#undef BS_XORIN
	BS_REP16(BS_STOREV)
}

/*
 * Fewer than BS_BLOCKS blocks (len bytes, 0 < len <= 16 * BS_BLOCKS) through
 * a stack buffer: ECB when ctr is NULL (len a multiple of 16), else CTR,
 * advancing ctr by the blocks used. The buffer is wiped.
 */
static void
BS_FN(bs_tail)(uint8_t *out, const uint8_t *in, size_t len, const uint8_t (*rk)[16],
	       unsigned int n, uint8_t *ctr, unsigned int width)
{
	alignas(64) uint8_t buf[16 * BS_BLOCKS];

	memcpy(buf, in, len);
	memset(buf + len, 0, sizeof(buf) - len);
	if (ctr == NULL) {
		BS_FN(bs_ecb)(buf, buf, rk, n);
	} else {
		BS_FN(bs_ctr)(buf, buf, ctr, rk, n, width);
		bs_ctr_add(ctr, (unsigned int)((len + 15) / 16), width);
	}
	memcpy(out, buf, len);
	vecsec_memzero(buf, sizeof(buf));
}

#undef BS_LOADV
#undef BS_STOREV
#undef BS_ADDKEY
#undef BS_SL1
#undef BS_SL2
#undef BS_ILV
#undef BS_COPY
#undef BS_REP16
#undef BS_BLOCKS

/* the includer's parameters, so that the next width can define its own */
#undef BS_V
#undef BS_LANES
#undef BS_FN
#undef BS_LOAD
#undef BS_STORE
#undef BS_ZERO
#undef BS_XOR
#undef BS_XOR3
#undef BS_AND
#undef BS_BCAST
#undef BS_UNPACKLO
#undef BS_UNPACKHI
#undef BS_ADD8
#undef BS_SUB8
#undef BS_GT_U8
#undef BS_MAT
#undef BS_SB1
#undef BS_SB2
#undef BS_SB3
#undef BS_SB4
#undef BS_BLOCK_INDEX
