/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20/12/8 lanes, AVX-512 (F+VL+BW): 16 independent messages, one per
 * 32-bit lane, one block of each per step. Word-major: zmm w holds state
 * word w of all 16 lanes (RFC 8439 2.3); a 16x16 transpose turns the
 * keystream into one 64-byte row per lane, XORed with that lane's block.
 * Contract: struct chacha_lanes in chacha_internal.h.
 */
#include <immintrin.h>

#include "chacha_avx512.h"
#include "chacha_internal.h"

static inline __m512i vadd(__m512i a, __m512i b) { return _mm512_add_epi32(a, b); }
static inline __m512i vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
#define VROTL(v, n) _mm512_rol_epi32((v), (n))  /* VPROLD: one op */

/* RFC 8439 2.1 on four words of every lane */
#define QR(a, b, c, d) do { \
	a = vadd(a, b); d = VROTL(vxor(d, a), 16); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 12); \
	a = vadd(a, b); d = VROTL(vxor(d, a), 8); \
	c = vadd(c, d); b = VROTL(vxor(b, c), 7); \
} while (0)

/*
 * 4x4 transpose of 128-bit chunks: afterwards a holds chunk 0 of each of
 * a, b, c, d (in that order), b chunk 1, c chunk 2, d chunk 3.
 */
static inline void
transpose_chunks(__m512i *a, __m512i *b, __m512i *c, __m512i *d)
{
	__m512i ab_lo = _mm512_shuffle_i32x4(*a, *b, 0x44);  /* a0 a1 b0 b1 */
	__m512i ab_hi = _mm512_shuffle_i32x4(*a, *b, 0xee);  /* a2 a3 b2 b3 */
	__m512i cd_lo = _mm512_shuffle_i32x4(*c, *d, 0x44);
	__m512i cd_hi = _mm512_shuffle_i32x4(*c, *d, 0xee);

	*a = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0x88);       /* a0 b0 c0 d0 */
	*b = _mm512_shuffle_i32x4(ab_lo, cd_lo, 0xdd);       /* a1 b1 c1 d1 */
	*c = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0x88);
	*d = _mm512_shuffle_i32x4(ab_hi, cd_hi, 0xdd);
}

/*
 * Rows x[4g..4g+3] (words of every lane) -> in each 128-bit chunk j,
 * t[m] holds words 4g..4g+3 of lane 4j + m.
 */
static inline void
transpose_words(__m512i t[4], __m512i r0, __m512i r1, __m512i r2, __m512i r3)
{
	__m512i a = _mm512_unpacklo_epi32(r0, r1), b = _mm512_unpackhi_epi32(r0, r1);
	__m512i c = _mm512_unpacklo_epi32(r2, r3), d = _mm512_unpackhi_epi32(r2, r3);

	t[0] = _mm512_unpacklo_epi64(a, c);
	t[1] = _mm512_unpackhi_epi64(a, c);
	t[2] = _mm512_unpacklo_epi64(b, d);
	t[3] = _mm512_unpackhi_epi64(b, d);
}

/*
 * A call's input, in memory: s[w] is word w of every lane's input state
 * (s[12], the counter, unused: it changes every step), and p its first
 * column round where the counter is not in it. The column round's quarter
 * rounds on words 1, 5, 9, 13 / 2, 6, 10, 14 / 3, 7, 11, 15 read only
 * constants, key and nonce, the same in every step of a call: p[w] holds
 * them after that quarter round, p[0] = s[0] + s[4] (the first addition of
 * the counter's quarter round). Each step starts from p and so skips 37 of
 * its 960 round operations (20 rounds); the add-back reads s from memory,
 * which keeps the rounds' registers for the state.
 */
struct lanes_in {
	__m512i s[16];
	__m512i p[16];
};

static inline __attribute__((always_inline)) void
lanes_in_init(struct lanes_in *w, const struct chacha_lanes *l)
{
	__m512i x0 = _mm512_set1_epi32((int)CHACHA_C0), x1 = _mm512_set1_epi32((int)CHACHA_C1);
	__m512i x2 = _mm512_set1_epi32((int)CHACHA_C2), x3 = _mm512_set1_epi32((int)CHACHA_C3);
	__m512i x4 = _mm512_load_si512((const void *)l->key[0]);
	__m512i x5 = _mm512_load_si512((const void *)l->key[1]);
	__m512i x6 = _mm512_load_si512((const void *)l->key[2]);
	__m512i x7 = _mm512_load_si512((const void *)l->key[3]);
	__m512i x8 = _mm512_load_si512((const void *)l->key[4]);
	__m512i x9 = _mm512_load_si512((const void *)l->key[5]);
	__m512i x10 = _mm512_load_si512((const void *)l->key[6]);
	__m512i x11 = _mm512_load_si512((const void *)l->key[7]);
	__m512i x12 = _mm512_setzero_si512();
	__m512i x13 = _mm512_loadu_si512((const void *)l->nonce[0]);
	__m512i x14 = _mm512_loadu_si512((const void *)l->nonce[1]);
	__m512i x15 = _mm512_loadu_si512((const void *)l->nonce[2]);

	w->s[0] = x0; w->s[1] = x1; w->s[2] = x2; w->s[3] = x3;
	w->s[4] = x4; w->s[5] = x5; w->s[6] = x6; w->s[7] = x7;
	w->s[8] = x8; w->s[9] = x9; w->s[10] = x10; w->s[11] = x11;
	w->s[12] = x12; w->s[13] = x13; w->s[14] = x14; w->s[15] = x15;
	QR(x1, x5, x9, x13);
	QR(x2, x6, x10, x14);
	QR(x3, x7, x11, x15);
	w->p[0] = vadd(x0, x4); w->p[1] = x1; w->p[2] = x2; w->p[3] = x3;
	w->p[4] = x4; w->p[5] = x5; w->p[6] = x6; w->p[7] = x7;
	w->p[8] = x8; w->p[9] = x9; w->p[10] = x10; w->p[11] = x11;
	w->p[12] = x12; w->p[13] = x13; w->p[14] = x14; w->p[15] = x15;
}

/*
 * The state of 16 lanes as named vectors x0..x15 (word w of every lane in
 * xw), so that the rounds stay in registers: after the first column round
 * at counter ctr (from w's p: STATE() and COLUMN0()), a diagonal round
 * and double rounds (Q(args, a, b, c, d): a quarter round on words a, b,
 * c, d of the states in args; QR2 interleaves two independent states),
 * the input added back, and the transpose into rows (lane i's in t[i]).
 */
#define STATE(x, w, ctr) \
	__m512i x##0 = (w)->p[0], x##1 = (w)->p[1], x##2 = (w)->p[2], x##3 = (w)->p[3]; \
	__m512i x##4 = (w)->p[4], x##5 = (w)->p[5], x##6 = (w)->p[6], x##7 = (w)->p[7]; \
	__m512i x##8 = (w)->p[8], x##9 = (w)->p[9], x##10 = (w)->p[10], x##11 = (w)->p[11]; \
	__m512i x##12 = (ctr), x##13 = (w)->p[13], x##14 = (w)->p[14], x##15 = (w)->p[15]
/* the counter's quarter round of the first column round, its first addition done */
#define COLUMN0(x) do { \
	x##12 = VROTL(vxor(x##12, x##0), 16); \
	x##8 = vadd(x##8, x##12); x##4 = VROTL(vxor(x##4, x##8), 12); \
	x##0 = vadd(x##0, x##4); x##12 = VROTL(vxor(x##12, x##0), 8); \
	x##8 = vadd(x##8, x##12); x##4 = VROTL(vxor(x##4, x##8), 7); \
} while (0)
/*
 * The rounds loops below pin x0..x15 after each double round, each in the
 * register it had (CHACHA_X16_PIN_STATE, chacha_avx512.h). Without it GCC renames the
 * state across the loop's back edge and closes the loop with a register
 * move per word (16 zmm moves a double round in block_rows(), some 40
 * moves and spills in block_rows2()), ops that Zen 4 executes; with it
 * the double round is its 96 (192) operations.
 */
#define QR1(x, a, b, c, d) QR(x##a, x##b, x##c, x##d)
#define QR2(x, y, a, b, c, d) do { QR1(x, a, b, c, d); QR1(y, a, b, c, d); } while (0)
#define DIAGONAL_ROUND(Q, ...) do { \
	Q(__VA_ARGS__, 0, 5, 10, 15); \
	Q(__VA_ARGS__, 1, 6, 11, 12); \
	Q(__VA_ARGS__, 2, 7, 8, 13); \
	Q(__VA_ARGS__, 3, 4, 9, 14); \
} while (0)
#define DOUBLE_ROUND(Q, ...) do { \
	Q(__VA_ARGS__, 0, 4, 8, 12); \
	Q(__VA_ARGS__, 1, 5, 9, 13); \
	Q(__VA_ARGS__, 2, 6, 10, 14); \
	Q(__VA_ARGS__, 3, 7, 11, 15); \
	DIAGONAL_ROUND(Q, __VA_ARGS__); \
} while (0)
#define ADD_INPUT(x, w, ctr) do { \
	x##0 = vadd(x##0, (w)->s[0]); x##1 = vadd(x##1, (w)->s[1]); \
	x##2 = vadd(x##2, (w)->s[2]); x##3 = vadd(x##3, (w)->s[3]); \
	x##4 = vadd(x##4, (w)->s[4]); x##5 = vadd(x##5, (w)->s[5]); \
	x##6 = vadd(x##6, (w)->s[6]); x##7 = vadd(x##7, (w)->s[7]); \
	x##8 = vadd(x##8, (w)->s[8]); x##9 = vadd(x##9, (w)->s[9]); \
	x##10 = vadd(x##10, (w)->s[10]); x##11 = vadd(x##11, (w)->s[11]); \
	x##12 = vadd(x##12, (ctr)); x##13 = vadd(x##13, (w)->s[13]); \
	x##14 = vadd(x##14, (w)->s[14]); x##15 = vadd(x##15, (w)->s[15]); \
} while (0)
#define TO_ROWS(x, t) do { \
	transpose_words((t) + 0, x##0, x##1, x##2, x##3); \
	transpose_words((t) + 4, x##4, x##5, x##6, x##7); \
	transpose_words((t) + 8, x##8, x##9, x##10, x##11); \
	transpose_words((t) + 12, x##12, x##13, x##14, x##15); \
	for (int m = 0; m < 4; m++) \
		transpose_chunks(&(t)[m], &(t)[4 + m], &(t)[8 + m], &(t)[12 + m]); \
} while (0)

/*
 * One step of 16 lanes (counter ctr on each): the keystream rows, lane i's
 * in t[i].
 */
static inline __attribute__((always_inline)) void
block_rows(const struct lanes_in *w, __m512i ctr, unsigned int dr, __m512i t[16])
{
	STATE(x, w, ctr);

	COLUMN0(x);
	DIAGONAL_ROUND(QR1, x);
	CHACHA_X16_PIN_STATE(x);
	for (unsigned int r = 1; r < dr; r++) {
		DOUBLE_ROUND(QR1, x);
		CHACHA_X16_PIN_STATE(x);
	}
	ADD_INPUT(x, w, ctr);
	TO_ROWS(x, t);
}

/*
 * Two steps of 16 lanes in the same double rounds: counter ctr into t
 * (lane i's row in t[i]), ctr + 1 into u. One step's rounds are a chain
 * of dependent operations that leaves vector ports idle; two independent
 * chains fill them (the 32 state vectors fit the 32 registers: the
 * rounds need no temporaries).
 */
static inline __attribute__((always_inline)) void
block_rows2(const struct lanes_in *w, __m512i ctr, unsigned int dr, __m512i t[16],
	    __m512i u[16])
{
	const __m512i ctr1 = vadd(ctr, _mm512_set1_epi32(1));
	STATE(x, w, ctr);
	STATE(y, w, ctr1);

	COLUMN0(x);
	COLUMN0(y);
	DIAGONAL_ROUND(QR2, x, y);
	CHACHA_X16_PIN_STATE(x);
	CHACHA_X16_PIN_STATE(y);
	for (unsigned int r = 1; r < dr; r++) {
		DOUBLE_ROUND(QR2, x, y);
		CHACHA_X16_PIN_STATE(x);
		CHACHA_X16_PIN_STATE(y);
	}
	ADD_INPUT(x, w, ctr);
	ADD_INPUT(y, w, ctr1);
	TO_ROWS(x, t);
	TO_ROWS(y, u);
}

void
vecsec_chacha_xor_lanes_x16_avx512(struct chacha_lanes *l, uint32_t nblocks)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	struct lanes_in w;
	__m512i ctr;
	const uint8_t *in[16];
	uint8_t *out[16];
	size_t off = 0;                 /* every lane moves one block per step */

	lanes_in_init(&w, l);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	for (int i = 0; i < 16; i++) {
		in[i] = l->in[i];
		out[i] = l->out[i];
	}

	/* two blocks a step while two are left (block_rows2()), where the CPU gains */
	for (uint32_t blk = 0; blk < nblocks; ) {
		__m512i t[16], u[16];
		const bool two = pairs && blk + 1 < nblocks;

		if (two)
			block_rows2(&w, ctr, dr, t, u);
		else
			block_rows(&w, ctr, dr, t);
		for (int b = 0; b < (two ? 2 : 1); b++) {
			const __m512i *ks = b == 0 ? t : u;

			for (int lane = 0; lane < 16; lane++) {
				if (!(act & (1u << lane)))
					continue;
				_mm512_storeu_si512((void *)(out[lane] + off),
						    vxor(ks[lane], _mm512_loadu_si512(in[lane] + off)));
			}
			off += CHACHA_BLOCK_LEN;
		}
		ctr = vadd(ctr, _mm512_set1_epi32(two ? 2 : 1));
		blk += two ? 2 : 1;
	}

	_mm512_mask_storeu_epi32((void *)l->ctr, act, ctr);
	for (int i = 0; i < 16; i++) {
		if (!(act & (1u << i)))
			continue;
		l->in[i] = in[i] + off;
		l->out[i] = out[i] + off;
		l->blocks_left[i] -= nblocks;
	}
}

/* out = in ^ t[i] for the block at off of every lane i with bytes left there (masked) */
static inline __attribute__((always_inline)) void
xor_rows(const struct chacha_lanes *l, const uint32_t left[16], size_t off, const __m512i t[16])
{
	for (int i = 0; i < 16; i++) {
		__m512i ks = t[i];      /* lane i's row */
		uint32_t r = left[i] > off ? left[i] - (uint32_t)off : 0;

		if (r >= CHACHA_BLOCK_LEN) {
			_mm512_storeu_si512((void *)(l->out[i] + off),
					    vxor(ks, _mm512_loadu_si512(l->in[i] + off)));
		} else if (r > 0) {
			__mmask64 m = (__mmask64)((UINT64_C(1) << r) - 1);

			_mm512_mask_storeu_epi8((void *)(l->out[i] + off), m,
				vxor(ks, _mm512_maskz_loadu_epi8(m, l->in[i] + off)));
		}
	}
}

/*
 * The byte-exact variant (the contract in chacha_internal.h): the
 * ChaCha20-Poly1305 burst reads and writes small linear jobs in place with
 * it, no staging copies.
 * Lengths are public, so the per-lane branches on them are fine.
 * Where the CPU gains from it (vecsec_tune(): Zen 5 and Zen 4, not
 * measured on the Xeons), two blocks a step (block_rows2()) while the
 * longest lane has two left (the one-time-key block counts), one for a
 * last odd block: on an AMD Zen 5, bursts of 32 1420-byte seals (direct
 * path) went from 838 to 726 TSC cycles per message; Zen 4's figures are
 * with its tuning entry (lib/cpu/cpu.c).
 */
void
vecsec_chacha_xor_lanes_bytes_x16_avx512(const struct chacha_lanes *l, const uint32_t *bytes,
					 uint8_t *const *ks0)
{
	const __mmask16 act = (__mmask16)l->active;
	const unsigned int dr = l->rounds / 2;
	const bool pairs = vecsec_tune()->chacha_x16_pairs;
	struct lanes_in w;
	__m512i ctr;
	uint32_t left[16], most = 0;
	size_t off = 0;

	lanes_in_init(&w, l);
	ctr = _mm512_loadu_si512((const void *)l->ctr);
	for (int i = 0; i < 16; i++) {
		left[i] = (act >> i) & 1 ? bytes[i] : 0;
		most = left[i] > most ? left[i] : most;
	}

	if (ks0 != NULL) {
		__m512i t[16], u[16];

		if (pairs && most > 0) {
			/* block 0 and the data's first block together */
			block_rows2(&w, ctr, dr, t, u);
			xor_rows(l, left, 0, u);
			off = CHACHA_BLOCK_LEN;
			ctr = vadd(ctr, _mm512_set1_epi32(2));
		} else {
			block_rows(&w, ctr, dr, t);
			ctr = vadd(ctr, _mm512_set1_epi32(1));
		}
		for (int i = 0; i < 16; i++)
			if ((act >> i) & 1)
				_mm512_storeu_si512((void *)ks0[i], t[i]);
	}
	for (; pairs && off + CHACHA_BLOCK_LEN < most; off += 2 * CHACHA_BLOCK_LEN) {
		__m512i t[16], u[16];

		block_rows2(&w, ctr, dr, t, u);
		xor_rows(l, left, off, t);
		xor_rows(l, left, off + CHACHA_BLOCK_LEN, u);
		ctr = vadd(ctr, _mm512_set1_epi32(2));
	}
	for (; off < most; off += CHACHA_BLOCK_LEN) {
		__m512i t[16];

		block_rows(&w, ctr, dr, t);
		xor_rows(l, left, off, t);
		ctr = vadd(ctr, _mm512_set1_epi32(1));
	}
}
