/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lane scheduler (never installed): N independent streams of blocks
 * run through a kernel of 4, 8 or 16 SIMD lanes, one stream per lane.
 * Algorithm-free: it sees a width, an active mask and per-lane block
 * counts, never a key or a job. Its users lay their streams out for their
 * kernels (lib/chachapoly does so for ChaCha20 and Poly1305).
 *
 * The one step loop (vecsec_lanes_schedule): fill the free lanes, run the
 * kernel for the smallest remaining count among the active lanes, retire
 * and refill the lanes that ran out, and end when no lane is active. Each
 * kernel call thus runs every active lane for the same number of blocks,
 * which is what a lane kernel's contract asks (nblocks <= every active
 * lane's blocks_left); ragged lengths cost refills, not masks.
 */
#ifndef VECSEC_LANES_H
#define VECSEC_LANES_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu_internal.h"

/*
 * One use of the scheduler. active and blocks_left are the kernel's own
 * struct's fields (one bit, one count per lane, lane < lanes <=
 * VECSEC_MAX_LANES); run(ctx, nblocks) runs the kernel on every active lane
 * (decreasing their counts); refill(ctx, lane, ran) gives a lane its next
 * piece of work and returns true, or returns false when there is none
 * (the lane retires): ran is false when the lane is being filled, true when
 * it ran out (it may go on with the rest of its stream). refill NULL:
 * lanes retire as they run out (the caller filled them).
 */
struct lanes_sched {
	unsigned int lanes;
	uint32_t *active;
	const uint32_t *blocks_left;
	void (*run)(void *ctx, uint32_t nblocks);
	bool (*refill)(void *ctx, unsigned int lane, bool ran);
	void *ctx;
};

/*
 * Fill (when refill is set), then step until every lane is retired.
 * Inline so that each caller's kernel and refill calls are direct.
 */
static inline __attribute__((always_inline)) void
vecsec_lanes_schedule(const struct lanes_sched *s)
{
	uint32_t *active = s->active;

	if (s->refill != NULL) {
		for (unsigned int i = 0; i < s->lanes; i++) {
			if (s->refill(s->ctx, i, false))
				*active |= UINT32_C(1) << i;
			else
				*active &= ~(UINT32_C(1) << i);
		}
	}
	while (*active != 0) {
		uint32_t nb = UINT32_MAX;

		for (unsigned int i = 0; i < s->lanes; i++)
			if ((*active & (UINT32_C(1) << i)) && s->blocks_left[i] < nb)
				nb = s->blocks_left[i];
		s->run(s->ctx, nb);
		for (unsigned int i = 0; i < s->lanes; i++) {
			if (!(*active & (UINT32_C(1) << i)) || s->blocks_left[i] != 0)
				continue;
			if (s->refill == NULL || !s->refill(s->ctx, i, true))
				*active &= ~(UINT32_C(1) << i);
		}
	}
}

/*
 * Put idx[0..n) (n <= LANES_ORDER_MAX) in the order of decreasing
 * weight[idx[k]] (weights capped at 63, stable: equal weights keep their
 * order), so that the longest streams start first and no long one is left
 * to run alone at the end.
 */
#define LANES_ORDER_MAX 512
void vecsec_lanes_order(uint16_t *idx, const uint32_t *weight, unsigned int n);

/*
 * Which of count widths (usable kernels, widths[i] > 0) a run of n
 * streams takes: force > 0 the one of that width; else the narrowest with
 * at least n lanes, or the widest when none has (a burst of 3 runs on 4
 * lanes, not 16). Returns its index, or -1 (no such width).
 */
int vecsec_lanes_pick(const unsigned int *widths, unsigned int count, unsigned int n, int force);

#endif /* VECSEC_LANES_H */
