/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8) of one whole linear job on the x86
 * kernels of one level: the body of chachapoly_avx2.c and
 * chachapoly_ssse3.c (each includes this once, after defining CX_AVX2 or
 * CX_SSSE3 for that level's ChaCha building blocks, chacha/chacha_x86.h,
 * and cpx_stitch, the stitched assembly kernel of chachapoly_<isa>.S;
 * at AVX2 its VL form, vecsec_chachapoly_x8_avx2vl, runs in its place on
 * a CPU with AVX-512VL, knob allowing: cx_vl()).
 * CPX_ROW_DATA: the data bytes the row-form first unit carries (its
 * blocks after the one-time key block).
 *
 * The shape of a job (RFC 8439 2.6, 2.8):
 *   1. a first unit of keystream from counter 0: block 0 is the one-time
 *      Poly1305 key, the blocks after it encrypt the first f bytes: a
 *      whole step (f <= CX_STEP - 64), or the row form (f <=
 *      CPX_ROW_DATA) at about one block's latency, chosen so that the
 *      steps after it come out whole or nearly (cpx_row_first());
 *   2. the padded AAD into Poly1305 (radix 2^64, poly1305_64.h);
 *   3. the rest in stitched steps: ChaCha20 on the vector units, the
 *      Poly1305 blocks of the ciphertext between its rounds on the integer
 *      units (seal: the ciphertext produced so far, lagging; open: each
 *      step's own input, absorbed before the step overwrites it);
 *   4. a last partial step: its keystream into a buffer, its slots still
 *      absorbing; then the padded remainder, the lengths, the tag.
 * Open decrypts the first unit and the last partial step only after the
 * tag matched; the stitched steps' plaintext reaches out before and out is
 * wiped when the tag fails (vecsec_chachapoly_verify()).
 */
#ifndef VECSEC_CHACHAPOLY_X86_H
#define VECSEC_CHACHAPOLY_X86_H

#include "chachapoly_internal.h"
#include "chacha/chacha_x86.h"
#include "poly1305/poly1305_64.h"

#define CPX_ROW_DATA ((CX_ROW_BLOCKS - 1) * CHACHA_BLOCK_LEN)

/*
 * Row form first when the job's blocks (one-time key included) leave a
 * last step of at most CPX_ROW_DATA / 64 + 1 blocks after whole steps: the
 * short row unit then saves that whole last step (e.g. AVX2, 1 KiB: 17
 * blocks = 4 in row form + 13 in two steps, not 8 + 8 + 1 in three).
 */
static inline bool
cpx_row_first(size_t len)
{
	const size_t per = CX_STEP / CHACHA_BLOCK_LEN;
	size_t r = (1 + (len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN) % per;

	return len <= CPX_ROW_DATA || (r >= 1 && r <= CPX_ROW_DATA / CHACHA_BLOCK_LEN + 1);
}

/* the stitched kernel, in its VL form where vl (cx_vl()) */
static inline const uint8_t *
cpx_stitch_vl(bool vl, uint8_t *out, const uint8_t *in, size_t nsteps, uint32_t x[16],
	      struct poly1305_64 *p, const uint8_t *mac, const uint8_t *lim)
{
#if defined(CX_AVX2) && defined(VECSEC_HAVE_AVX2_VL)
	if (vl)
		return vecsec_chachapoly_x8_avx2vl(out, in, nsteps, x, p, mac, lim);
#else
	(void)vl;
#endif
	return cpx_stitch(out, in, nsteps, x, p, mac, lim);
}

static inline __attribute__((always_inline)) int
cpx_run(const struct vecsec_aead_job *job, struct chacha_state *st, bool row)
{
	static const uint8_t zeros[CX_STEP] __attribute__((aligned(32)));
	uint8_t ks0[CX_STEP] __attribute__((aligned(32)));
	uint8_t ks1[CX_STEP] __attribute__((aligned(32)));
	struct poly1305_64 p;
	uint8_t lens[16], tag[VECSEC_AEAD_TAG_LEN];
	const bool seal = job->dir == VECSEC_AEAD_SEAL;
	const size_t len = job->len;
	const uint8_t *in = job->in;
	uint8_t *out = job->out;
	size_t f, ks0_len, rest = 0, off, done = 0;
	int rc = 0;
	/* the VL forms (AVX2 on AVX-512VL): asked once, and only if a step runs */
	const bool vl = (!row || len > CPX_ROW_DATA) && cx_vl();

	if (row) {
		unsigned int nb = 1 + (unsigned int)((len >= CPX_ROW_DATA ? CPX_ROW_DATA : len) +
						     CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN;

		cx_row(ks0, st->x, nb, 20);
		st->x[12] += nb;
		ks0_len = CHACHA_BLOCK_LEN * nb;
		f = len < CPX_ROW_DATA ? len : CPX_ROW_DATA;
	} else {
		cx_steps_vl(vl, ks0, zeros, 1, st->x, 20);
		ks0_len = CX_STEP;
		f = len < CX_STEP - CHACHA_BLOCK_LEN ? len : CX_STEP - CHACHA_BLOCK_LEN;
	}
	p64_init(&p, ks0);
	if (job->aad_len > 0)
		p64_padded(&p, job->aad, job->aad_len);
	if (seal && f > 0)
		cx_xor(out, in, ks0 + CHACHA_BLOCK_LEN, f);
	off = f;
	if (len > f) {
		const uint8_t *base = seal ? out : in, *mac = base;
		size_t n = (len - f) / CX_STEP;

		rest = (len - f) % CX_STEP;
		if (n > 0) {
			mac = cpx_stitch_vl(vl, out + f, in + f, n, st->x, &p, mac,
					 seal ? out + f : in + f + CX_STEP);
			off += n * CX_STEP;
		}
		if (rest > 0) {
			mac = cpx_stitch_vl(vl, ks1, zeros, 1, st->x, &p, mac,
					 seal ? out + off : in + off + (rest & ~(size_t)15));
			if (seal)
				cx_xor(out + off, in + off, ks1, rest);
		}
		done = (size_t)(mac - base);
	}
	if (len > done)
		p64_padded(&p, (seal ? out : in) + done, len - done);
	vecsec_chachapoly_lengths(lens, job->aad_len, len);
	p64_blocks(&p, lens, 1, 1);
	p64_tag(tag, &p, ks0 + 16);
	if (seal) {
		memcpy(job->tag, tag, VECSEC_AEAD_TAG_LEN);
		vecsec_wipe(tag, sizeof(tag));
	} else {
		rc = vecsec_chachapoly_verify(job, tag);        /* wipes tag, and out on failure */
		if (rc == 0 && f > 0)
			cx_xor(out, in, ks0 + CHACHA_BLOCK_LEN, f);
		if (rc == 0 && rest > 0)
			cx_xor(out + off, in + off, ks1, rest);
	}
	vecsec_wipe(ks0, ks0_len);
	if (rest > 0)
		vecsec_wipe(ks1, CX_STEP);
	vecsec_wipe(&p, sizeof(p));
	return rc;
}

/* The table entry's linear(): row form first where cpx_row_first() says. */
static int
cpx_linear(const struct vecsec_aead_job *job, struct chacha_state *st)
{
	return cpx_run(job, st, cpx_row_first(job->len));
}

#endif /* VECSEC_CHACHAPOLY_X86_H */
