/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lanes engine (never installed): vecsec_aead_burst() hands it the
 * (X)ChaCha20-Poly1305 jobs of a burst that passed the generic checks, and
 * it runs them side by side in SIMD lanes (DESIGN.md "The lanes engine",
 * STYLE.md 6). Each job ends exactly as the one-shot API leaves it.
 *
 * Stack: about 55 KiB (no allocation on the data path).
 *
 * The jobs are interleaved, so a job's output (data or tag) must not
 * overlap another job's input, AAD, tag or output: the burst contract says
 * "independent jobs". Sharing read-only inputs (a nonce, an AAD) is fine.
 */
#ifndef VECSEC_LANES_INTERNAL_H
#define VECSEC_LANES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "vecsec/vecsec_aead.h"

/*
 * True if the engine takes this job: (X)ChaCha20-Poly1305 with its nonce
 * and tag lengths right and len at most the crossover. The caller has
 * already run the generic checks (pointers, AAD length, segment coverage).
 */
bool vecsec_lanes_accepts(const struct vecsec_aead_job *job);

/* Run n (<= VECSEC_MAX_BURST) accepted jobs; sets every job's status. */
void vecsec_lanes_run(struct vecsec_aead_job *const *jobs, unsigned int n);

/* What a burst of n accepted jobs runs on now. */
struct lanes_choice {
	unsigned int chacha_lanes;   /* 0: one job at a time (no lanes here) */
	unsigned int poly_lanes;
	const char *chacha_name;     /* "x16-avx512", "per-job" */
	const char *poly_name;       /* "x8-avx512ifma", "scalar" */
};
void vecsec_lanes_choose(unsigned int n, struct lanes_choice *c);

/*
 * Tests and the bench: pin the widths. chacha_w: -1 automatic, 0 lanes off
 * (every job through the one-shot path), or 4, 8, 16; poly_w: -1
 * automatic, 1 the scalar per-lane fallback, or 4, 8, 16. Returns 0, or
 * -ENOTSUP if that width has no kernel usable under the current cap.
 * Not thread-safe against bursts running at the same time.
 */
int vecsec_lanes_force(int chacha_w, int poly_w);

/*
 * Linear jobs up to this many bytes (and AAD up to 64) take the staged
 * path: copied whole into a lane buffer (the setter caps it at the buffer
 * size; 0 sends every job through the general passes: tests, bench).
 */
size_t vecsec_lanes_staged_max(void);
void vecsec_lanes_set_staged_max(size_t len);

/*
 * Jobs longer than this go through the single-message path: by default a
 * length measured per lane width (lanes.c); set_crossover pins a value
 * (tests, tools), reset_crossover returns to the default.
 */
size_t vecsec_lanes_crossover(void);
void vecsec_lanes_set_crossover(size_t len);
void vecsec_lanes_reset_crossover(void);

#endif /* VECSEC_LANES_INTERNAL_H */
