/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench --floor: the kernel floor of a (X)ChaCha20-Poly1305 burst,
 * the lane blocks its jobs need run through the lane kernels the burst
 * itself dispatches to at the pinned ISA (chachapoly_knobs.h's
 * vecsec_lanes_floor_*: the ChaCha and Poly1305 kernels that
 * vecsec_lanes_choose() names), at full lane width with the data in L1.
 *
 * Per job of len bytes and aad bytes of AAD (RFC 8439 2.8):
 *   ChaCha20 blocks:  1 (the one-time Poly1305 key) + ceil(len / 64),
 *                     + 1 for XChaCha (its HChaCha20 subkey, which the
 *                     burst runs through the same ChaCha lane kernel);
 *   Poly1305 blocks:  ceil(aad / 16) + ceil(len / 16) + 1 (the lengths).
 * A burst's blocks are summed, then run as ceil(sum / width) blocks on every
 * lane of each kernel: the fewest kernel steps that could carry them.
 * Jobs longer than the lanes' crossover (vecsec_lanes_crossover(): SSSE3
 * on a Zen 4 sends every job there) leave the lanes for the
 * single-message path; the floor counts them, and says how many there were.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#ifdef BENCH_HAVE_VECSEC_AEAD
#include "chachapoly/chachapoly_knobs.h"
#endif

bool
bench_floor_case(const struct bench_case *c)
{
	return c->id == CASE_CHACHA20_POLY1305 || c->id == CASE_XCHACHA20_POLY1305;
}

void
bench_floor_count(const struct bench_case *c, const size_t *len, unsigned int n,
		  struct bench_floor *f)
{
	f->chacha_blocks = f->poly_blocks = 0;
	f->len = len;
	f->n = n;
	for (unsigned int j = 0; j < n; j++) {
		f->chacha_blocks += 1 + (len[j] + 63) / 64 +
				    (c->id == CASE_XCHACHA20_POLY1305 ? 1 : 0);
		f->poly_blocks += (c->aad_len + 15) / 16 + (len[j] + 15) / 16 + 1;
	}
}

#ifdef BENCH_HAVE_VECSEC_AEAD
static void
run_chacha(void *arg)
{
	struct bench_floor *f = arg;

	vecsec_lanes_floor_chacha(f->kernels, f->chacha_steps);
}

static void
run_poly(void *arg)
{
	struct bench_floor *f = arg;

	vecsec_lanes_floor_poly(f->kernels, f->poly_steps);
}
#endif

const char *
bench_floor_setup(struct bench_floor *f, unsigned int n)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	struct lanes_choice lc;

	vecsec_lanes_choose(n, &lc);
	if (lc.chacha_lanes == 0)
		return "no lane kernel at this ISA";
	f->kernels = vecsec_lanes_floor_new(n);
	if (f->kernels == NULL)
		return "no lane kernel at this ISA";
	f->chacha_w = lc.chacha_lanes;
	/* the per-lane scalar reference (no Poly1305 lanes at this ISA) names its own width */
	f->poly_w = lc.poly_lanes;
	f->chacha_steps = (uint32_t)((f->chacha_blocks + f->chacha_w - 1) / f->chacha_w);
	f->poly_steps = (uint32_t)((f->poly_blocks + f->poly_w - 1) / f->poly_w);
	f->chacha = run_chacha;
	f->poly = run_poly;
	/* jobs past the crossover take the single-message path: not this floor's */
	f->single_jobs = 0;
	for (unsigned int j = 0; j < f->n; j++)
		f->single_jobs += f->len[j] > vecsec_lanes_crossover();
	return NULL;
#else
	(void)f, (void)n;
	return "no AEAD API in this libvecsec";
#endif
}

void
bench_floor_release(struct bench_floor *f)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	vecsec_lanes_floor_free(f->kernels);
#endif
	f->kernels = NULL;
}
