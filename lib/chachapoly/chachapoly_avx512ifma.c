/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stitched ChaCha20-Poly1305 (RFC 8439 2.8 data part), AVX-512 F+VL+BW +
 * IFMA: 1 KiB per step. The 16 ChaCha20 blocks of a step are word-sliced
 * in zmm (chacha_avx512.h); during their first four double rounds the
 * Poly1305 of 1 KiB of ciphertext runs as four 256-byte steps of the
 * two-accumulator IFMA code (poly1305_avx512ifma.h): its latency-bound
 * multiply chains fill the ports the rounds leave idle, and the data is
 * read once while in L1 (both share ports 0 and 5, so the gain over two
 * passes is ~5-10%, measured). Seal MACs the previous step's ciphertext
 * (the last one during the tail's rounds, row form for a short tail, or
 * after the loop) and encrypts the tail too; open MACs the step's own
 * input before it is overwritten (in place allowed: every load of a step
 * precedes its stores) and leaves the tail to the caller. Where the CPU's
 * tuning says so (a Zen 4), most of the Poly1305 runs on the integer units
 * beside the rounds instead (seal_int(), open_int(); "long jobs" below).
 */
#include <immintrin.h>

#include "chachapoly_internal.h"
#include "chacha/chacha_avx512.h"
#include "poly1305/poly1305_avx512ifma.h"
#include "poly1305/poly1305_64.h"
#include "poly1305/poly1305_pow.h"

#define STEP 1024
#define PAIR 256                /* bytes per two-accumulator Poly1305 step */

struct mac16 {
	struct p44v a, b;
	struct p44v_mulr r16, one;
	const struct p44v_mulr *ra;     /* a's next multiplier: 1 first, then r^16 */
	__m512i hibit;
	uint64_t r2[3];                 /* p44v_powers()' r^2 */
};

/*
 * Absorb 256 bytes by Horner's rule: a = a ra + m (blocks 0-7), b = b r^16
 * + m (blocks 8-15); a starts as h in lane 0 and b as 0, so the first
 * step (ra = 1) just loads. The final powers come after the last pair.
 */
static inline __attribute__((always_inline)) void
mac_pair(struct mac16 *m, const uint8_t *p)
{
	struct p44v t;

	p44v_load(&t, p, m->hibit);
	p44v_mul(&m->a, m->ra, &t);
	p44v_load(&t, p + 128, m->hibit);
	p44v_mul(&m->b, &m->r16, &t);
	m->ra = &m->r16;
}

/* powers of r (into ps->ext), multipliers, accumulators: a = h in lane 0 */
static inline __attribute__((always_inline)) void
mac_setup(struct mac16 *m, struct poly1305_state *ps)
{
	p44v_powers(ps, &vecsec_poly1305_impl_avx512ifma, m->r2);
	p44v_mulr_bcast(&m->r16, ps->ext, 16);
	p44v_mulr_one(&m->one);
	m->ra = &m->one;
	m->hibit = _mm512_set1_epi64((long long)1 << 40);
	for (int i = 0; i < 3; i++) {
		m->a.v[i] = _mm512_maskz_set1_epi64(1, (long long)ps->h[i]);
		m->b.v[i] = _mm512_setzero_si512();
	}
}

/*
 * One ChaCha20 step on cs (16 blocks, len <= 1024 bytes of them, counter
 * += the blocks used) XORing in to out, with four Poly1305 pairs from
 * mac_src interleaved (mac_src NULL: none), and with mac_setup() for ps
 * after the first double round (setup_ps not NULL; the pairs then come
 * later): its latency-bound chain runs in the shadow of the ChaCha rounds.
 */
static inline __attribute__((always_inline)) void
step(struct chacha_state *cs, struct mac16 *m, uint8_t *out, const uint8_t *in, size_t len,
     const uint8_t *mac_src, struct poly1305_state *setup_ps)
{
	const int first_pair = setup_ps != NULL ? 4 : 0;
	__m512i v[16];

	chacha_x16_init(v, cs->x);
	{
		/*
		 * The ChaCha words pinned in their registers, the MAC's placed
		 * freely; the setup's double round peeled off the loop, whose
		 * back edge would otherwise carry a move per word (the setup's
		 * registers differ from the loop's).
		 */
		CHACHA_X16_REGS(v);
		int dr = 0;

		if (setup_ps != NULL) {
			CHACHA_X16_REGS_DROUND();
			mac_setup(m, setup_ps);
			dr = 1;
		}
		for (; dr < 10; dr++) {
			CHACHA_X16_REGS_DROUND();
			/* after a setup the pairs wait for the powers: run them later */
			if (mac_src != NULL && dr >= first_pair && dr < first_pair + 4)
				mac_pair(m, mac_src + PAIR * (dr - first_pair));
		}
		CHACHA_X16_REGS_STORE(v);
	}
	chacha_x16_finish(out, in, len, v, cs->x);
	cs->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

/* the last whole KiB's four pairs, run inside a short tail's double rounds */
struct tail_mac {
	struct mac16 *m;
	const uint8_t *src;
};

static inline __attribute__((always_inline)) void
tail_hook(void *ctx, unsigned int dr)
{
	struct tail_mac *t = ctx;

	if (dr < 4)
		mac_pair(t->m, t->src + PAIR * dr);
}

/*
 * Seal's tail (0 < len < 1024 bytes) encrypted while the last whole KiB
 * (mac_src) is MACed: row form for up to 12 blocks, else a masked step.
 */
static inline __attribute__((always_inline)) void
seal_tail(struct chacha_state *cs, struct mac16 *m, uint8_t *out, const uint8_t *in,
	  size_t len, const uint8_t *mac_src)
{
	struct tail_mac t = { m, mac_src };

	if (len > 12 * CHACHA_BLOCK_LEN) {
		step(cs, m, out, in, len, mac_src, NULL);
		return;
	}
	if (len > 8 * CHACHA_BLOCK_LEN)
		chacha_rows_xor_hook(out, in, len, cs->x, 20, 3, tail_hook, &t);
	else if (len > 4 * CHACHA_BLOCK_LEN)
		chacha_rows_xor_hook(out, in, len, cs->x, 20, 2, tail_hook, &t);
	else
		chacha_rows_xor_hook(out, in, len, cs->x, 20, 1, tail_hook, &t);
	cs->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

/* ---- long jobs: Poly1305 on the integer units beside the ChaCha20 rounds ---- */

/*
 * The 16-block ChaCha20 step keeps the vector pipes busy on its own, and
 * the IFMA Poly1305 pairs share them: on a Zen 4 the stitched step costs
 * the sum of the two (TSC cycles a byte at 16 KiB: ChaCha20 0.53, IFMA
 * Poly1305 0.15, stitched 0.66-0.68). The integer units sit idle meanwhile.
 * Radix 2^64 Poly1305 there runs one block in about 11 TSC cycles (a
 * latency-bound chain), so a step's double rounds can carry about 40 of
 * its 64 blocks for nothing on a quiet core (the tuning takes fewer: an
 * SMT sibling busy on those units makes the chain the bound, cpu.c); the
 * IFMA kernel takes the rest outside the steps. Poly1305 is a polynomial
 * in r, so the message may be cut in two runs: the first's h, times r to
 * the number of blocks after it, plus the second's.
 *
 * Seal: the integer chain follows the ciphertext, up to q blocks of what
 * earlier steps wrote in each step, and the IFMA kernel finishes from its
 * h. Open (in place too, where a step overwrites its own ciphertext): the
 * IFMA kernel first MACs the first m KiB, the integer chain the other n -
 * m from the first step on, q blocks a step and each KiB before the step
 * that decrypts it, so m = ceil(n (64 - q) / 64); then h = h_ifma r^(64
 * (n - m)) + h_int.
 */

/* radix 2^64 state as P64_BLOCK_C keeps it (poly1305_x86_64_asm.h): h + c */
struct p64c {
	uint64_t h0, h1, h2, c;
	uint64_t r0, r1, s1;
};

/*
 * n blocks at *in (*in advanced; none for n = 0, tested inside so the
 * step's loop has no branch around it: with one, GCC moved the ChaCha20
 * words between registers every double round), each h = (h + c + m +
 * 2^128) r partly reduced, c = 5 (d2 >> 2) carried to the next block, r from k
 * (h0..c: the caller's scalars, never in memory): the loop of
 * poly1305_x86_64.S (P64_BLOCK_C, MULQ), in general registers only. A
 * memory clobber keeps it between the stores before it and after it (an
 * open in place overwrites what it reads; a seal reads what the step
 * before wrote): naming the bytes it reads instead measured 2 % slower
 * (16 KiB seal 9675 against 9474 TSC cycles), the compiler placing the
 * step's loads and stores differently.
 */
static inline __attribute__((always_inline)) void
p64c_blocks(uint64_t *h0, uint64_t *h1, uint64_t *h2, uint64_t *c, const uint8_t **in,
	    unsigned long n, const struct p64c *k)
{
	uint64_t t0, t1, t2, t3;

	__asm__ volatile(
		"testq %[n], %[n]\n\t"
		"jz 2f\n\t"
		"1:\n\t"
		"addq 0(%[in]), %[h0]\n\t"
		"adcq 8(%[in]), %[h1]\n\t"
		"adcq $1, %[h2]\n\t"
		"addq %[c], %[h0]\n\t"
		"adcq $0, %[h1]\n\t"
		"adcq $0, %[h2]\n\t"
		/* d0 = h0 r0 + h1 s1 -> t0 t1 */
		"movq %[r0], %%rax\n\t"
		"mulq %[h0]\n\t"
		"movq %%rax, %[t0]\n\t"
		"movq %%rdx, %[t1]\n\t"
		"movq %[s1], %%rax\n\t"
		"mulq %[h1]\n\t"
		"addq %%rax, %[t0]\n\t"
		"adcq %%rdx, %[t1]\n\t"
		/* d1 = h0 r1 + h1 r0 + h2 s1 + t1 -> t2 t3, t3 += h2 r0 (d2) */
		"movq %[r1], %%rax\n\t"
		"mulq %[h0]\n\t"
		"movq %%rax, %[t2]\n\t"
		"movq %%rdx, %[t3]\n\t"
		"movq %[r0], %%rax\n\t"
		"mulq %[h1]\n\t"
		"addq %%rax, %[t2]\n\t"
		"adcq %%rdx, %[t3]\n\t"
		"movq %[s1], %%rax\n\t"
		"imulq %[h2], %%rax\n\t"
		"imulq %[r0], %[h2]\n\t"
		"addq %%rax, %[t2]\n\t"
		"adcq %[h2], %[t3]\n\t"
		"addq %[t1], %[t2]\n\t"
		"adcq $0, %[t3]\n\t"
		/* h2 = d2 & 3, c = 5 (d2 >> 2) = (d2 & ~3) + (d2 >> 2) */
		"movq %[t3], %[h2]\n\t"
		"andq $3, %[h2]\n\t"
		"movq %[t3], %[c]\n\t"
		"shrq $2, %[t3]\n\t"
		"andq $-4, %[c]\n\t"
		"addq %[t3], %[c]\n\t"
		"movq %[t0], %[h0]\n\t"
		"movq %[t2], %[h1]\n\t"
		"addq $16, %[in]\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"2:\n\t"
		: [h0] "+&r"(*h0), [h1] "+&r"(*h1), [h2] "+&r"(*h2), [c] "+&r"(*c),
		  [in] "+&r"(*in), [n] "+&r"(n), [t0] "=&r"(t0), [t1] "=&r"(t1),
		  [t2] "=&r"(t2), [t3] "=&r"(t3)
		: [r0] "m"(k->r0), [r1] "m"(k->r1), [s1] "m"(k->s1)
		: "rax", "rdx", "cc", "memory");
}

/* s from the radix 2^44 state: r, and h (or 0) */
static inline void
p64c_from44(struct p64c *s, const struct poly1305_state *ps, bool with_h)
{
	struct poly1305_64 p;

	p64_from44(&p, ps);
	s->h0 = with_h ? p.h[0] : 0;
	s->h1 = with_h ? p.h[1] : 0;
	s->h2 = with_h ? p.h[2] : 0;
	s->c = 0;
	s->r0 = p.r[0];
	s->r1 = p.r[1];
	s->s1 = p.s1;
	vecsec_wipe(&p, sizeof(p));
}

/* h = s's h + c as radix 2^44 limbs (carried) */
static inline void
p64c_to44(uint64_t h[3], const struct p64c *s)
{
	struct poly1305_64 p;
	struct poly1305_state t;
	p64_u128 u = (p64_u128)s->h0 + s->c;

	p.h[0] = (uint64_t)u;
	u = (p64_u128)s->h1 + (uint64_t)(u >> 64);
	p.h[1] = (uint64_t)u;
	p.h[2] = s->h2 + (uint64_t)(u >> 64);
	p64_to44(&t, &p);
	h[0] = t.h[0];
	h[1] = t.h[1];
	h[2] = t.h[2];
	vecsec_wipe(&p, sizeof(p));
	vecsec_wipe(t.h, sizeof(t.h));
}

/* o = b^e mod p (radix 2^44, carried), e >= 1; e is public (a length) */
static void
p44_pow(uint64_t o[3], const uint64_t b_in[3], size_t e)
{
	uint64_t b[3] = { b_in[0], b_in[1], b_in[2] };
	bool first = true;

	for (;;) {
		if (e & 1) {
			if (first) {
				o[0] = b[0];
				o[1] = b[1];
				o[2] = b[2];
				first = false;
			} else {
				p44_mul(o, o, b);
			}
		}
		e >>= 1;
		if (e == 0)
			break;
		p44_mul(b, b, b);
	}
	vecsec_wipe(b, sizeof(b));
}

/*
 * One ChaCha20 step on cs (len <= 1024 bytes, counter += its blocks) from
 * in to out, with q integer Poly1305 blocks from *src spread over its
 * double rounds (the first q % 10 take one more).
 */
static inline __attribute__((always_inline)) void
step_int(struct chacha_state *cs, uint8_t *out, const uint8_t *in, size_t len,
	 struct p64c *s, const uint8_t **src, unsigned int q)
{
	const unsigned int each = q / 10, more = q % 10;
	/*
	 * h and c in scalars whose address never leaves the step: they stay in
	 * registers through it (a struct copy lived in memory, spilled around
	 * every block run by the memory clobber, r and h left unwiped)
	 */
	uint64_t h0 = s->h0, h1 = s->h1, h2 = s->h2, c = s->c;
	const uint8_t *p = *src;
	__m512i v[16];

	chacha_x16_init(v, cs->x);
	{
		CHACHA_X16_REGS(v);

		for (unsigned int dr = 0; dr < 10; dr++) {
			const unsigned int nb = each + (dr < more);

			CHACHA_X16_REGS_DROUND();
			p64c_blocks(&h0, &h1, &h2, &c, &p, nb, s);
		}
		CHACHA_X16_REGS_STORE(v);
	}
	chacha_x16_finish(out, in, len, v, cs->x);
	cs->x[12] += (uint32_t)((len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
	s->h0 = h0;
	s->h1 = h1;
	s->h2 = h2;
	s->c = c;
	*src = p;
}

/* Seal, len bytes: all encrypted, the whole KiB MACed (n of them, n >= 1). */
static __attribute__((noinline)) size_t
seal_int(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
	 size_t len, unsigned int q)
{
	const size_t n = len / STEP;
	const uint8_t *src = out;
	struct p64c s;
	size_t done = 0;

	p64c_from44(&s, ps, true);
	/* whole steps and the tail in two calls: a constant length keeps the steps' stores lean */
	for (size_t k = 0; k < n; k++) {
		const size_t ready = 64 * k - done;     /* blocks earlier steps wrote */
		const unsigned int nb = ready < q ? (unsigned int)ready : q;

		step_int(cs, out + STEP * k, in + STEP * k, STEP, &s, &src, nb);
		done += nb;
	}
	if (len % STEP != 0) {
		const size_t ready = 64 * n - done;
		const unsigned int nb = ready < q ? (unsigned int)ready : q;

		step_int(cs, out + STEP * n, in + STEP * n, len % STEP, &s, &src, nb);
		done += nb;
	}
	p64c_to44(ps->h, &s);
	vecsec_wipe(&s, sizeof(s));
	if (64 * n > done)
		vecsec_poly1305_blocks_avx512ifma(ps, out + 16 * done, 64 * n - done, 1);
	return n * STEP;
}

/* Open, n >= 1 whole KiB: all MACed and decrypted (the tail left to the caller). */
static __attribute__((noinline)) size_t
open_int(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
	 size_t n, unsigned int q)
{
	size_t m = (n * (64 - q) + 63) / 64, done = 0;
	const uint8_t *src;
	struct {
		struct p64c s;
		uint64_t h[3], rp[3], r16[3];
	} w;

	m = m < 1 ? 1 : m > n ? n : m;
	src = in + STEP * m;
	p64c_from44(&w.s, ps, false);
	vecsec_poly1305_blocks_avx512ifma(ps, in, 64 * m, 1);
	if (n > m) {
		/*
		 * r^(64 (n - m)) from the kernel's r^16 (ext[16 i + 15], filled
		 * for 16 blocks and up: always here, 64 m of them), computed
		 * before the steps (the out-of-order core may overlap the first)
		 */
		if (ps->ext_impl == &vecsec_poly1305_impl_avx512ifma) {
			w.r16[0] = ps->ext[15];
			w.r16[1] = ps->ext[31];
			w.r16[2] = ps->ext[47];
			p44_pow(w.rp, w.r16, 4 * (n - m));
		} else {
			p44_pow(w.rp, ps->r, 64 * (n - m));
		}
	}
	for (size_t k = 0; k < n; k++) {
		const size_t left = 64 * (n - m) - done;
		size_t nb = left < q ? left : q;

		/* KiB k (k >= m) MACed before step k overwrites it */
		if (k >= m && 64 * (k + 1 - m) > done + nb)
			nb = 64 * (k + 1 - m) - done;
		step_int(cs, out + STEP * k, in + STEP * k, STEP, &w.s, &src, (unsigned int)nb);
		done += nb;
	}
	if (n > m) {
		p44_mul(ps->h, ps->h, w.rp);
		p64c_to44(w.h, &w.s);
		ps->h[0] += w.h[0];
		ps->h[1] += w.h[1];
		ps->h[2] += w.h[2];
		p44_carry(ps->h);
	}
	vecsec_wipe(&w, sizeof(w));
	return n * STEP;
}

static inline __attribute__((always_inline)) size_t
stitch(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out, const uint8_t *in,
       size_t len, bool open)
{
	const size_t n = len / STEP;
	/*
	 * The secrets in one place, wiped by one call at the end (four calls
	 * and 1.8 KiB before; the IFMA Poly1305 kernel's wipe was ~60 of ~360
	 * cycles at 1 KiB on a Zen 4): one multiplier slot for the last
	 * chunks' r^(16-j), then r^(8-j).
	 */
	struct {
		struct mac16 m;
		struct p44v_mulr rl;
		uint64_t h[3];
	} w;
	unsigned int q;

	if (n == 0)
		return 0;
	q = vecsec_chachapoly_int_blocks();
	if (q != 0)
		return open ? open_int(cs, ps, out, in, n, q) : seal_int(cs, ps, out, in, len, q);
	/*
	 * Seal's first step has nothing to MAC yet: the powers of r are
	 * computed inside its rounds, where their latency (and that of the
	 * caller's one-time-key block they wait for) is hidden.
	 */
	if (open) {
		mac_setup(&w.m, ps);
		for (size_t k = 0; k < n; k++)
			step(cs, &w.m, out + STEP * k, in + STEP * k, STEP, in + STEP * k, NULL);
	} else {
		step(cs, &w.m, out, in, STEP, NULL, ps);
		for (size_t k = 1; k < n; k++)
			step(cs, &w.m, out + STEP * k, in + STEP * k, STEP, out + STEP * (k - 1),
			     NULL);
		if (len % STEP != 0) {
			seal_tail(cs, &w.m, out + STEP * n, in + STEP * n, len % STEP,
				  out + STEP * (n - 1));
		} else {
			for (int i = 0; i < 4; i++)
				mac_pair(&w.m, out + STEP * (n - 1) + PAIR * i);
		}
	}
	/* block j of the last 256 bytes gets r^(16-j) */
	p44v_mulr_last(&w.rl, ps->ext, 16);
	p44v_mul_last(&w.m.a, &w.rl);
	p44v_mulr_last(&w.rl, ps->ext, 8);
	p44v_mul_last(&w.m.b, &w.rl);
	p44v_add(&w.m.a, &w.m.b);
	p44v_hsum(w.h, &w.m.a);
	ps->h[0] = w.h[0];
	ps->h[1] = w.h[1];
	ps->h[2] = w.h[2];
	/* r powers and accumulators are secret (the keystream has no named buffer) */
	vecsec_memzero(&w, sizeof(w));
	return n * STEP;
}

static size_t
seal_avx512ifma(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		const uint8_t *in, size_t len)
{
	return stitch(cs, ps, out, in, len, false);
}

static size_t
open_avx512ifma(struct chacha_state *cs, struct poly1305_state *ps, uint8_t *out,
		const uint8_t *in, size_t len)
{
	return stitch(cs, ps, out, in, len, true);
}

/*
 * The rows of the state at counter 0: an IETF job's straight from its key
 * and nonce bytes (a 16-byte load of the words job_state() just stored one
 * by one would wait for them to retire), XChaCha's from the derived state.
 */
static inline __attribute__((always_inline)) void
state_rows(__m128i r[4], const struct vecsec_aead_job *job, const uint32_t x[16])
{
	if (job->key->alg == VECSEC_AEAD_XCHACHA20_POLY1305) {
		for (int i = 0; i < 4; i++)
			r[i] = _mm_loadu_si128((const void *)&x[4 * i]);
		return;
	}
	r[0] = _mm_setr_epi32((int)CHACHA_C0, (int)CHACHA_C1, (int)CHACHA_C2, (int)CHACHA_C3);
	r[1] = _mm_loadu_si128((const void *)job->key->small);
	r[2] = _mm_loadu_si128((const void *)((const uint8_t *)job->key->small + 16));
	r[3] = _mm_bslli_si128(_mm512_castsi512_si128(_mm512_maskz_loadu_epi8(
		_cvtu64_mask64(0xfff), (const void *)job->nonce)), 4);
}

/*
 * 13 to 16 blocks: the 16-block form, block 0 (lane 0) at the state's
 * counter whole into otk, lanes 1..15 at ctr, ctr + 1, ... over the tail
 * (704 < tail <= 960 bytes). Before it such tails cost a separate
 * one-block ChaCha20 call for the key, a row set's latency.
 */
static __attribute__((noinline)) void
otk_tail_x16(const uint32_t x[16], uint32_t ctr, uint8_t otk[CHACHA_BLOCK_LEN], uint8_t *out,
	     const uint8_t *in, size_t tail)
{
	const __m512i ctrv = _mm512_mask_mov_epi32(
		_mm512_add_epi32(_mm512_set1_epi32((int)(ctr - 1)),
				 _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2,
						  1, 0)),
		1, _mm512_set1_epi32((int)x[12]));
	__m512i v[16], o[16];

	/* the input state rebuilt after the rounds, not kept beside them (spills) */
	chacha_x16_init(v, x);
	v[12] = ctrv;
	chacha_x16_rounds(v, 20);
	chacha_x16_init(o, x);
	o[12] = ctrv;
	chacha_x16_finish_first_o(otk, out, in, tail, v, o);
}

/*
 * 1 + ceil(tail / 64) <= 16 blocks: one to three sets of the row form, or
 * past 12 the 16-block form
 */
static void
otk_tail_avx512ifma(const struct vecsec_aead_job *job, struct chacha_state *cs,
		    uint8_t otk[CHACHA_BLOCK_LEN], uint8_t *out, const uint8_t *in, size_t tail,
		    size_t body)
{
	const uint32_t ctr = cs->x[12] + 1 + (uint32_t)(body / CHACHA_BLOCK_LEN);
	const size_t nblk = 1 + (tail + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN;
	__m128i r[4];

	if (nblk > 12) {
		otk_tail_x16(cs->x, ctr, otk, out, in, tail);
		cs->x[12]++;
		return;
	}
	state_rows(r, job, cs->x);
	if (nblk > 8)
		chacha_rows_core_v(out, in, tail, r[0], r[1], r[2], r[3], 20, 3, NULL, NULL, otk,
				   ctr);
	else if (nblk > 4)
		chacha_rows_core_v(out, in, tail, r[0], r[1], r[2], r[3], 20, 2, NULL, NULL, otk,
				   ctr);
	else
		chacha_rows_core_v(out, in, tail, r[0], r[1], r[2], r[3], 20, 1, NULL, NULL, otk,
				   ctr);
	cs->x[12]++;
}

/* ---- short jobs: the whole AEAD in one ChaCha20 pass ---- */

/*
 * Jobs up to 75 blocks (4800 bytes): the one-time-key block and the data
 * blocks come out of one ChaCha20 pass (short_rows(): row form, one to
 * four 16-block forms and up to three sets of rows in the same double
 * rounds), so the ChaCha20 part costs about one pass's latency and
 * nothing waits for the one-time key alone; Poly1305 then runs in radix 2^64 on the
 * integer units (poly1305_64.h), or the IFMA kernel for the data from
 * SHORT_IFMA_BLOCKS on (its powers of r cost more than they save below).
 * Nothing is staged: seal encrypts straight into out; open decrypts
 * straight into out when out is not in (out is wiped if the tag fails, as
 * the stitched steps do), and in place into a stack buffer that reaches
 * out only after the tag matched.
 */
#define SHORT_MAX (75 * CHACHA_BLOCK_LEN)
/*
 * Dispatch takes the short path up to the bound measured on the CPU
 * (vecsec_tune(), chachapoly.c): 960 bytes on a Sapphire Rapids-class
 * Xeon (measured before the multi-form passes existed), 3520 on a Zen 5,
 * where every length 961..3520 is 12 to 44 % faster this way than with
 * the 1 KiB stitched steps (and three sets beside three forms lost), and
 * 4095 on a Zen 4 (2 to 15 % to 3520 B, cpu.c has the figures; 3584
 * to 4800 B were 5 to 9 % ahead of the IFMA-paired stitched steps, TSC
 * cycles per seal, stitched / short, medians of 21 rounds alternating in
 * one process: 3584 B 2915 / 2755, 3776 B 2971 / 2801, 4096 B 3185 /
 * 2965, 4160 B 3311 / 3067, 4608 B 3603 / 3400, 4800 B 3603 / 3421; opens
 * alike; the steps with integer Poly1305 win from 4096 B, cpu.c).
 */

/*
 * Data blocks from which the IFMA kernel takes the ciphertext: per CPU
 * (vecsec_tune(): 24 on a Sapphire Rapids class Xeon, 32 on a Zen 5 and
 * on a Zen 4; the figures are in lib/cpu/cpu.c and docs/bursts.md).
 */
#define SHORT_IFMA_BLOCKS (vecsec_tune()->chachapoly_short_ifma_blocks)
/*
 * The short path's ChaCha20 in sets of rows up to this many data blocks
 * (vecsec_tune(): 7 on a Sapphire Rapids class Xeon, 11 on a Zen 4, the
 * two values short_rows() knows: 11 is three 4-block sets less the
 * one-time key's block), the 16-block form past it.
 */
#define SHORT_ROWS_BLOCKS (vecsec_tune()->chachapoly_short_rows_blocks)

/* dst (16 bytes, aligned) = the n (1..15) bytes at src, zero-padded (RFC 8439 2.8) */
static inline __attribute__((always_inline)) void
pad16(uint8_t *dst, const uint8_t *src, size_t n)
{
	_mm_store_si128((__m128i *)dst, _mm512_castsi512_si128(_mm512_maskz_loadu_epi8(
		_cvtu64_mask64((UINT64_C(1) << n) - 1), (const void *)src)));
}

/* The data's last n (0..15) bytes, padded (RFC 8439 2.8), and the lengths block. */
static inline __attribute__((always_inline)) void
short_final(struct poly1305_64 *p, const uint8_t *in, size_t n, size_t aad_len, size_t len)
{
	alignas(16) uint8_t b[32];
	size_t nb = 1;

	if (n != 0) {
		pad16(b, in, n);
		nb = 2;
	}
	vecsec_chachapoly_lengths(b + 16 * (nb - 1), aad_len, len);
	p64_blocks_c(p, b, nb, 1);
}

/* The AAD, padded (RFC 8439 2.8). */
static inline __attribute__((always_inline)) void
short_aad(struct poly1305_64 *p, const uint8_t *aad, size_t aad_len)
{
	alignas(16) uint8_t b[16];
	size_t n = aad_len % 16;

	if (aad_len >= 16)
		p64_blocks(p, aad, aad_len / 16, 1);
	if (n != 0) {
		pad16(b, aad + aad_len - n, n);
		p64_blocks_c(p, b, 1, 1);
	}
}

/* The whole 16-byte blocks of the data (ciphertext), IFMA (nb from SHORT_IFMA_BLOCKS) */
static inline __attribute__((always_inline)) void
short_data(struct poly1305_64 *p, const uint8_t *c, size_t nb, const uint8_t otk[16])
{
	struct poly1305_state ps;

	vecsec_poly1305_core_init(&ps, otk);
	p64_to44(&ps, p);
	vecsec_poly1305_blocks_avx512ifma(&ps, c, nb, 1);
	p64_from44(p, &ps);
	vecsec_wipe(&ps, sizeof(ps));
}

/*
 * The whole MAC below the IFMA bound: one assembly call from the key to
 * the tag, h in registers throughout.
 */
static inline __attribute__((always_inline)) void
short_mac(uint8_t tag[16], const uint8_t *aad, size_t aad_len, const uint8_t *c, size_t len,
	  const uint8_t otk[32])
{
	struct p64_aead m;
	const size_t na = aad_len % 16, nc = len % 16;

	m.aad = aad;
	m.naad = aad_len / 16;
	m.c = c;
	m.nc = len / 16;
	m.npre = na != 0;
	m.npost = nc != 0 ? 2 : 1;
	if (na != 0)
		pad16(m.pre, aad + aad_len - na, na);
	if (nc != 0)
		pad16(m.post, c + len - nc, nc);
	vecsec_chachapoly_lengths(m.post + 16 * (m.npost - 1), aad_len, len);
	vecsec_poly1305_aead64_x86_64(tag, &m, otk);
}

/*
 * Blocks 16 .. 16 + 4 nsets - 1 of the state x (the data's bytes 960 on,
 * len of them) in row form, run in the same double rounds as the 16-block
 * form of blocks 0-15 (block 0 whole into otk, the data's first 960
 * bytes): the rows' latency-bound chains fill the ports the 16-block form
 * leaves idle, so up to 27 blocks cost little more than 16 (AMD EPYC
 * Zen 5, TSC cycles per 1420-byte ChaCha20: 16 blocks then three sets
 * of rows after it ~660, one pass of both ~430).
 */
static inline __attribute__((always_inline)) void
x16_rows(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	 uint8_t otk[CHACHA_BLOCK_LEN], int nx16, int nsets, uint32_t (*xs)[16],
	 __m512i (*vs)[16])
{
	const size_t head = 15 * CHACHA_BLOCK_LEN, step = 16 * CHACHA_BLOCK_LEN;
	const size_t rows_at = head + step * (size_t)(nx16 - 1);
	struct chacha_rows w;
	__m512i v[16];

	chacha_x16_init(v, x);
	for (int f = 0; f < nx16 - 1; f++) {
		memcpy(xs[f], x, sizeof(xs[f]));
		xs[f][12] += 16 * (uint32_t)(f + 1);
		chacha_x16_init(vs[f], xs[f]);
	}
	if (nsets > 0)
		chacha_rows_init(&w, _mm_loadu_si128((const void *)&x[0]),
				 _mm_loadu_si128((const void *)&x[4]),
				 _mm_loadu_si128((const void *)&x[8]),
				 _mm_add_epi32(_mm_loadu_si128((const void *)&x[12]),
					       _mm_cvtsi32_si128(16 * nx16)), nsets, NULL, 0);
	for (int dr = 0; dr < 10; dr++) {
		chacha_x16_dround(v);
		chacha_x16_pin(v);
		for (int f = 0; f < nx16 - 1; f++) {
			chacha_x16_dround(vs[f]);
			chacha_x16_pin(vs[f]);
		}
		if (nsets > 0) {
			chacha_rows_dround(&w, nsets);
			chacha_rows_pin(&w, nsets);
		}
	}
	chacha_x16_finish_first(otk, out, in, len < head ? len : head, v, x);
	for (int f = 0; f < nx16 - 1; f++) {
		const size_t at = head + step * (size_t)f;

		chacha_x16_finish(out + at, in + at, len - at, vs[f], xs[f]);
	}
	if (nx16 > 1)
		vecsec_wipe(xs, sizeof(xs[0]) * (size_t)(nx16 - 1));
	if (nsets > 0)
		chacha_rows_finish(&w, out + rows_at, in + rows_at, len - rows_at, nsets, NULL);
}

/*
 * Past 15 data blocks: out of line, so the shorter jobs' code (the common
 * case) keeps its small frame and footprint. Up to three 16-block forms
 * and three sets of rows, but not both: with three sets beside three
 * forms (to 3776 B) the pass lost to the stitched steps (2237 against
 * 2113 TSC cycles per 3776-byte seal on a Zen 5), and its frame, shared
 * by every form here, slowed the others (2816 B 1755 with it, 1200
 * without).
 */
static __attribute__((noinline)) void
x16_rows_long(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	      uint8_t otk[CHACHA_BLOCK_LEN])
{
	uint32_t xs[2][16];
	__m512i vs[2][16];

	if (len > 51 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 3, 2, xs, vs);
	else if (len > 47 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 3, 1, xs, vs);
	else if (len > 43 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 3, 0, xs, vs);
	else if (len > 39 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 2, 3, xs, vs);
	else if (len > 35 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 2, 2, xs, vs);
	else if (len > 31 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 2, 1, xs, vs);
	else if (len > 27 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 2, 0, xs, vs);
	else if (len > 23 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 1, 3, xs, vs);
	else if (len > 19 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 1, 2, xs, vs);
	else
		x16_rows(out, in, len, x, otk, 1, 1, xs, vs);
}

/*
 * Past 55 data blocks: three forms and three sets of rows, then four
 * forms and one to three sets, in a function of its own so that its
 * larger frame (a third extra state) stays out of the others'. The pass
 * hides the one-time key's block, which the stitched steps' caller
 * computes alone (about 275 of 3190 TSC cycles of a 4096-byte seal on a
 * Zen 4).
 */
static __attribute__((noinline)) void
x16_rows_x4(uint8_t *out, const uint8_t *in, size_t len, const uint32_t x[16],
	    uint8_t otk[CHACHA_BLOCK_LEN])
{
	uint32_t xs[3][16];
	__m512i vs[3][16];

	if (len > 71 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 4, 3, xs, vs);
	else if (len > 67 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 4, 2, xs, vs);
	else if (len > 63 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 4, 1, xs, vs);
	else if (len > 59 * CHACHA_BLOCK_LEN)
		x16_rows(out, in, len, x, otk, 4, 0, xs, vs);
	else
		x16_rows(out, in, len, x, otk, 3, 3, xs, vs);
}

/*
 * Block 0 (x[12] = 0: the job's state) whole into otk, blocks 1.. over the
 * data: rows up to 11 data blocks (4-block sets, and a 2-block set in ymm
 * where the 4-block sets would round up by two or three: rows_y()), a
 * 16-block step above, and past 15 data blocks the 16-block step with one
 * to three sets of rows in its double rounds (x16_rows()). (GCC 12 stops
 * with an internal error when the counter of the data blocks is x[12] + 1
 * rather than the constant.)
 *
 * The bound between rows and the 16-block step is per CPU
 * (SHORT_ROWS_BLOCKS). On the Zen 4 (512-bit
 * operations two passes) the rows' fewer passes win to 12 blocks (TSC
 * cycles per seal, 16-block step / rows, three runs: 512 B 817-818 /
 * 769-775, 576 B 842-848 / 781-787, 640 B 839-845 / 824-837, 704 B
 * 858-863 / 831-850; 768 B with three sets and a 2-block one lost, 848-857
 * / 882-930). A Sapphire Rapids class Xeon, with 512-bit units, had the
 * 16-block step ahead from 8 data blocks (512 B 840 against 855 with three
 * sets, 704 B 873 against 894; 384 B 722 in two sets against 826), so
 * its entry (and the Zen 5's, not measured) keeps 7.
 */
/*
 * x: the state at counter 0 (XChaCha: with the derived subkey), or NULL:
 * an IETF job's state from its key and nonce bytes.
 */
/*
 * Block 0 whole into otk, data blocks 1 .. 4 nsets + 1 in nsets 4-block
 * sets of rows and one 2-block set (ymm) in the same double rounds: the
 * counts the 4-block sets would round up by two or three blocks. On a
 * Zen 4 two 4-block sets are bound by the shuffle and rotate pipes as much
 * as by their latency; the 2-block set takes half a set's passes (TSC
 * cycles per seal, two 4-block sets / one and the 2-block set, three
 * runs: 256 B 619-639 / 580-583, 320 B 655-685 / 619-643).
 */
static inline __attribute__((always_inline)) void
rows_y(uint8_t *out, const uint8_t *in, size_t len, const __m128i r[4], int nsets,
       uint8_t otk[CHACHA_BLOCK_LEN])
{
	const size_t at = (size_t)(4 * nsets - 1) * CHACHA_BLOCK_LEN;
	struct chacha_rows w;
	struct chacha_rows2 y;

	chacha_rows_init(&w, r[0], r[1], r[2], r[3], nsets, otk, 1);
	chacha_rows2_init(&y, r[0], r[1], r[2], r[3], 4 * (uint32_t)nsets);
	for (int dr = 0; dr < 10; dr++) {
		chacha_rows_dround(&w, nsets);
		chacha_rows_pin(&w, nsets);
		chacha_rows2_dround(&y);
	}
	chacha_rows_finish(&w, out, in, len, nsets, otk);
	chacha_rows2_finish(&y, out + at, in + at, len - at);
}

/* The short path's ChaCha20 as the 16-block form (len past the rows). */
static inline __attribute__((always_inline)) void
short_x16(uint8_t *out, const uint8_t *in, size_t len, const struct vecsec_aead_job *job,
	  const uint32_t *x, uint8_t otk[CHACHA_BLOCK_LEN])
{
	uint32_t xl[16];

	if (x == NULL) {
		/* word loads of words just stored forward: no wait here */
		const uint8_t *k = (const uint8_t *)job->key->small;

		xl[0] = CHACHA_C0;
		xl[1] = CHACHA_C1;
		xl[2] = CHACHA_C2;
		xl[3] = CHACHA_C3;
		for (int w = 0; w < 8; w++)
			xl[4 + w] = vecsec_load_le32(k + 4 * w);
		xl[12] = 0;
		for (int w = 0; w < 3; w++)
			xl[13 + w] = vecsec_load_le32(job->nonce + 4 * w);
		x = xl;
	}
	if (len > 55 * CHACHA_BLOCK_LEN)
		x16_rows_x4(out, in, len, x, otk);
	else if (len > 15 * CHACHA_BLOCK_LEN)
		x16_rows_long(out, in, len, x, otk);
	else
		x16_rows(out, in, len, x, otk, 1, 0, NULL, NULL);
	vecsec_wipe(xl, sizeof(xl));
}

static inline __attribute__((always_inline)) void
short_rows(uint8_t *out, const uint8_t *in, size_t len, const struct vecsec_aead_job *job,
	   const uint32_t *x, uint8_t otk[CHACHA_BLOCK_LEN])
{
	__m128i r[4];

	/*
	 * The 16-block form past the CPU's bound, in two calls each under a
	 * constant bound: the compiler then drops the form's short-tail code
	 * (where the bound was a variable, 768-960 B lost 2-4 % on the Zen 4)
	 */
	if (len > 11 * CHACHA_BLOCK_LEN) {
		short_x16(out, in, len, job, x, otk);
		return;
	}
	if (len > 7 * CHACHA_BLOCK_LEN && SHORT_ROWS_BLOCKS < 11) {
		short_x16(out, in, len, job, x, otk);
		return;
	}
	state_rows(r, job, x);
	if (len > 9 * CHACHA_BLOCK_LEN)
		chacha_rows_core_v(out, in, len, r[0], r[1], r[2], r[3], 20, 3, NULL, NULL, otk, 1);
	else if (len > 7 * CHACHA_BLOCK_LEN)
		rows_y(out, in, len, r, 2, otk);
	else if (len > 5 * CHACHA_BLOCK_LEN)
		chacha_rows_core_v(out, in, len, r[0], r[1], r[2], r[3], 20, 2, NULL, NULL, otk, 1);
	else if (len > 3 * CHACHA_BLOCK_LEN)
		rows_y(out, in, len, r, 1, otk);
	else
		chacha_rows_core_v(out, in, len, r[0], r[1], r[2], r[3], 20, 1, NULL, NULL, otk, 1);
}

static int
short_avx512ifma(const struct vecsec_aead_job *job, struct chacha_state *st)
{
	alignas(64) uint8_t otk[CHACHA_BLOCK_LEN];
	alignas(64) uint8_t pt[SHORT_MAX];
	uint8_t tag[VECSEC_AEAD_TAG_LEN];
	struct poly1305_64 p;
	const size_t len = job->len;
	const uint8_t *mac;
	bool staged = false;
	int rc = 0;

	if (job->dir == VECSEC_AEAD_SEAL) {
		short_rows(job->out, job->in, len, job, st != NULL ? st->x : NULL, otk);
		mac = job->out;
	} else {
		/* in place: the plaintext waits in pt for the verdict */
		staged = job->out == job->in;
		short_rows(staged ? pt : job->out, job->in, len, job, st != NULL ? st->x : NULL,
			   otk);
		mac = job->in;
	}
	if (len / 16 < SHORT_IFMA_BLOCKS) {
		short_mac(tag, job->aad, job->aad_len, mac, len, otk);
	} else {
		p64_init(&p, otk);
		if (job->aad_len > 0)
			short_aad(&p, job->aad, job->aad_len);
		short_data(&p, mac, len / 16, otk);
		short_final(&p, len % 16 != 0 ? mac + (len & ~(size_t)15) : NULL, len % 16,
			    job->aad_len, len);
		p64_tag(tag, &p, otk + 16);
		vecsec_wipe(&p, sizeof(p));
	}
	if (job->dir == VECSEC_AEAD_SEAL) {
		memcpy(job->tag, tag, VECSEC_AEAD_TAG_LEN);
		vecsec_wipe(tag, sizeof(tag));
	} else {
		rc = vecsec_chachapoly_verify(job, tag);   /* wipes tag, and out on failure */
		if (staged) {
			if (rc == 0 && len > 0)
				memcpy(job->out, pt, len);
			vecsec_wipe(pt, len);
		}
	}
	vecsec_wipe(otk, sizeof(otk));
	return rc;
}

const struct chachapoly_impl vecsec_chachapoly_impl_avx512ifma = {
	.name = "avx512ifma",
	.isa = VECSEC_ISA_AVX512,
	.needs = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
		 VECSEC_CPU_AVX512IFMA,
	.min_len = 0,                   /* every length: the generic wrapper around the step */
	.linear = NULL,
	.step = STEP,
	.seal = seal_avx512ifma,
	.open = open_avx512ifma,
	.max_tail = 15 * CHACHA_BLOCK_LEN,
	.otk_tail = otk_tail_avx512ifma,
	.short_max = SHORT_MAX,
	.short_run = short_avx512ifma,
};
