/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched ChaCha20-Poly1305 (RFC 8439 2.8 data part), AVX2: 512 bytes per
 * step. The 8 ChaCha20 blocks of a step are word-sliced in ymm
 * (chacha_avx2.h); after each of the first eight double rounds one 64-byte
 * Poly1305 step (4 lanes, radix 2^26, Horner with r^4: poly1305_avx2.h)
 * absorbs 512 bytes of ciphertext per ChaCha step. Seal MACs the previous
 * step's ciphertext (the last one after the loop) and encrypts the tail
 * too; open MACs the step's own input before it is overwritten (in place
 * allowed) and leaves the tail to the caller.
 */
#include <immintrin.h>

#include "chachapoly_internal.h"
#include "chacha/chacha_avx2.h"
#include "poly1305/poly1305_avx2.h"

#define STEP 512

struct mac4 {
	struct p26v acc, r4, one;
	__m256i s4[5], sone[5];
	const struct p26v *ra;          /* next multiplier: 1 first, then r^4 */
	const __m256i *sa;
	__m256i hibit;
};

/* acc = acc ra + m (64 bytes, lanes hold blocks 0, 2, 1, 3) */
static inline __attribute__((always_inline)) void
mac_step(struct mac4 *m, const uint8_t *p)
{
	struct p26v t;

	p26v_mul(&m->acc, m->ra, m->sa);
	p26v_load(&t, p, m->hibit);
	p26v_add(&m->acc, &t);
	m->ra = &m->r4;
	m->sa = m->s4;
}

/* r^1..r^4 (into ps->ext), the multipliers, acc = h in lane 0 */
static inline __attribute__((always_inline)) void
mac_setup(struct mac4 *m, struct poly1305_state *ps)
{
	static const int p4[4] = { 4, 4, 4, 4 };
	uint64_t h44[3], h[5];

	p26v_powers(ps);
	p26v_pow(&m->r4, m->s4, ps->ext, p4);
	p26v_one(&m->one, m->sone);
	m->ra = &m->one;
	m->sa = m->sone;
	m->hibit = _mm256_set1_epi64x((long long)1 << 24);
	h44[0] = ps->h[0];
	h44[1] = ps->h[1];
	h44[2] = ps->h[2];
	p44_carry(h44);
	p44_to_26(h, h44);
	for (int i = 0; i < 5; i++)
		m->acc.v[i] = _mm256_set_epi64x(0, 0, 0, (long long)h[i]);
	vecsec_memzero(h44, sizeof(h44));
	vecsec_memzero(h, sizeof(h));
}

/*
 * One ChaCha20 step (8 blocks) with eight Poly1305 steps from mac_src
 * interleaved (mac_src NULL: none), and with mac_setup() for ps after
 * the second double round (setup_ps not NULL), in the rounds' shadow.
 */
static inline __attribute__((always_inline)) void
step(struct chacha_state *cs, struct mac4 *m, uint8_t *out, const uint8_t *in,
     const uint8_t *mac_src, struct poly1305_state *setup_ps)
{
	__m256i v[16];

	chacha_x8_init(v, cs->x);
	for (int dr = 0; dr < 10; dr++) {
		chacha_x8_dround(v);
		if (mac_src != NULL && dr < 8)
			mac_step(m, mac_src + 64 * dr);
		if (setup_ps != NULL && dr == 1)
			mac_setup(m, setup_ps);
	}
	chacha_x8_finish(out, in, v, cs->x);
	cs->x[12] += 8;
}

static inline __attribute__((always_inline)) size_t
stitch(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
       size_t len, bool open)
{
	static const int plast[4] = { 4, 2, 3, 1 };
	const size_t n = len / STEP;
	struct mac4 m;
	struct p26v rl;
	__m256i sl[5];
	uint64_t h[5];

	if (n == 0)
		return 0;
	/*
	 * Seal's first step has nothing to MAC yet: the powers of r are
	 * computed inside its rounds, where their latency (and that of the
	 * caller's one-time-key block they wait for) is hidden.
	 */
	if (open)
		mac_setup(&m, ps);
	else
		step(cs, &m, out, in, NULL, ps);
	if (open) {
		for (size_t k = 0; k < n; k++)
			step(cs, &m, out + STEP * k, in + STEP * k, in + STEP * k, NULL);
	} else {
		for (size_t k = 1; k < n; k++)
			step(cs, &m, out + STEP * k, in + STEP * k, out + STEP * (k - 1), NULL);
		/* the tail too (seal contract), next to the last MAC steps */
		if (len % STEP != 0)
			vecsec_chacha_impl_avx2.xor_blocks(out + STEP * n, in + STEP * n,
							   len % STEP, cs);
		for (int i = 0; i < 8; i++)
			mac_step(&m, out + STEP * (n - 1) + 64 * i);
	}
	/* lane j's last block gets r^(4-j) */
	p26v_pow(&rl, sl, ps->ext, plast);
	p26v_mul(&m.acc, &rl, sl);
	for (int i = 0; i < 5; i++)
		h[i] = p26v_hsum(m.acc.v[i]);
	p26_carry(h);
	p26_to_44(ps->h, h);
	/* r powers and accumulators are secret (the keystream has no named buffer) */
	vecsec_memzero(h, sizeof(h));
	vecsec_memzero(&m, sizeof(m));
	vecsec_memzero(&rl, sizeof(rl));
	vecsec_memzero(sl, sizeof(sl));
	return n * STEP;
}

static size_t
seal_avx2(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
	  size_t len)
{
	return stitch(cs, ps, out, in, len, false);
}

static size_t
open_avx2(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
	  size_t len)
{
	return stitch(cs, ps, out, in, len, true);
}

const struct chachapoly_impl vecsec_chachapoly_impl_avx2 = {
	.name = "avx2",
	.isa = VECSEC_ISA_AVX2,
	.needs = VECSEC_CPU_AVX2 | VECSEC_CPU_BMI2,   /* the avx2 flag set has -mbmi2 */
	.min_len = STEP,
	.seal = seal_avx2,
	.open = open_avx2,
	.max_tail = 0,
	.otk_tail = NULL,
};
