/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The test and benchmark knobs of lib/ (never installed), all in this one
 * header: they pin choices dispatch would otherwise make (the ISA itself
 * is pinned with the public vecsec_force_isa()). None is thread-safe
 * against bursts running at the same time; programs other than tests and
 * benchmarks never call them.
 */
#ifndef VECSEC_CHACHAPOLY_KNOBS_H
#define VECSEC_CHACHAPOLY_KNOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chachapoly_impl;

/*
 * How ChaCha20-Poly1305 jobs are run: AUTO (the default) and STITCH send
 * every linear job to the stitched wrapper (which calls the kernel for
 * jobs of at least its min_len and runs shorter ones as two passes on the
 * Poly1305 core); TWOPASS never uses it (also VECSEC_CHACHAPOLY=twopass in
 * the environment when the selectors run): the generic streaming two-pass
 * code, for tests and benchmarks.
 */
enum chachapoly_mode {
	CHACHAPOLY_AUTO = 0,
	CHACHAPOLY_TWOPASS = 1,
	CHACHAPOLY_STITCH = 2,
};

/* Set the mode; returns the previous one. */
enum chachapoly_mode vecsec_chachapoly_set_mode(enum chachapoly_mode mode);

/*
 * The stitched impl to use for a linear job of len bytes, or NULL (none
 * for this ISA cap, or TWOPASS mode).
 */
const struct chachapoly_impl *vecsec_chachapoly_impl_for(size_t len);

/*
 * Single messages: the longest linear job the stitched impl's short path
 * (short_run) takes at the current ISA cap, 0 if it has none; set caps it
 * (0: never; SIZE_MAX, the default: the bound measured on this CPU,
 * vecsec_tune(); any other value: that many bytes, up to the kernel's own
 * bound, whatever the CPU) and returns the previous cap. Tests use it to
 * run the same lengths with and without it, and the kernel's whole range
 * on every CPU.
 */
size_t vecsec_chachapoly_short_max(void);
size_t vecsec_chachapoly_set_short_max(size_t len);

/*
 * Single messages past the short path on AVX-512 IFMA: radix 2^64
 * Poly1305 blocks the integer units take in each 1 KiB ChaCha20 step of
 * the stitched kernel (chachapoly_avx512ifma.c; 0: none, the IFMA pairs
 * in the steps). The value in use: the knob's when set, else the CPU's
 * tuning (vecsec_tune()), at most 64. set returns the previous knob
 * (UINT_MAX: none, the tuning); the tests run 1 to 65 KiB at several q.
 */
unsigned int vecsec_chachapoly_int_blocks(void);
unsigned int vecsec_chachapoly_set_int_blocks(unsigned int q);

/* What a burst of n ChaCha20-Poly1305 jobs runs on now. */
struct lanes_choice {
	unsigned int chacha_lanes;   /* 0: one job at a time (no lanes here) */
	unsigned int poly_lanes;
	const char *chacha_name;     /* "x16-avx512", "per-job" */
	const char *poly_name;       /* "x8-avx512ifma", "scalar" */
};
void vecsec_lanes_choose(unsigned int n, struct lanes_choice *c);

/*
 * Pin the lane widths of bursts. chacha_w: -1 automatic, 0 lanes off
 * (every job through the one-shot path), or 4, 8, 16; poly_w: -1
 * automatic, 1 the scalar per-lane fallback, or 4, 8, 16. Returns 0, or
 * -ENOTSUP if that width has no kernel usable under the current cap.
 */
int vecsec_lanes_force(int chacha_w, int poly_w);

/*
 * Linear jobs up to this many bytes (and AAD up to 64) take the staged
 * path of a burst: copied whole into a lane buffer (the setter caps it at
 * the buffer size; 0 sends every job through the general passes).
 */
size_t vecsec_lanes_staged_max(void);
void vecsec_lanes_set_staged_max(size_t len);

/*
 * The direct path (chachapoly_direct.h: linear jobs past the staged path,
 * read and written in place by a byte-exact ChaCha lane kernel, AVX-512 or AVX2):
 * on by default; set_direct(false) sends those jobs through the general
 * passes (tests and benchmarks). Returns the previous setting.
 */
bool vecsec_lanes_direct(void);
bool vecsec_lanes_set_direct(bool on);

/*
 * The fused kernel for small bursts (chachapoly_small.h: AVX-512 + IFMA,
 * 16 ChaCha lanes, groups of linear jobs of at most 512 bytes, or up to
 * the CPU tuning's fused_x16_max / fused_x8_max where they keep the lanes
 * busy, and AAD of at most 16): on by default wherever the burst runs
 * those lane kernels;
 * set_fused(false) sends its groups through the staged path as before
 * (tests and benchmarks, for an A/B). Returns the previous setting.
 * fused_groups: how many groups have run through it, all threads, while
 * counting was on (count_fused(true); off by default, so the data plane
 * touches no shared counter; returns the previous setting). Tests show
 * with it that the kernel ran.
 */
bool vecsec_lanes_fused(void);
bool vecsec_lanes_set_fused(bool on);
bool vecsec_lanes_count_fused(bool on);
uint64_t vecsec_lanes_fused_groups(void);
/* of those, the groups of 8 or fewer that took the 8-lane kernel beside the 16-lane one */
uint64_t vecsec_lanes_fused_narrow_groups(void);
/* and the groups that held a job past 512 bytes (the tuning's fused_x16_max / fused_x8_max) */
uint64_t vecsec_lanes_fused_long_groups(void);

/*
 * Bursts of 8 or more small linear ChaCha20-Poly1305 jobs all one way
 * and of one ChaCha20 block count go straight to the fused kernel a
 * width at a time, in their order (chachapoly_burst.c small_uniform()):
 * on by default; set_uniform(false) sends them through
 * the general scheduler (tests and benchmarks, for an A/B), returning the
 * previous setting. uniform_bursts: how many bursts went straight, all
 * threads, while fused counting was on (count_fused()).
 */
bool vecsec_lanes_uniform(void);
bool vecsec_lanes_set_uniform(bool on);
uint64_t vecsec_lanes_uniform_bursts(void);

/*
 * The AVX2 lane kernels' VL forms (8 ChaCha, 4 Poly1305 lanes compiled
 * with AVX-512VL/BW, ymm registers only): bursts run them in place of the
 * plain AVX2 ones wherever the CPU has AVX-512VL and BW (usable: whether
 * it has; never on a CPU without, whatever the knob). set(false) keeps
 * the plain forms, set(true) (the default) allows the VL ones; returns
 * the previous setting. Tests run both, the bench compares them.
 */
bool vecsec_avx2_vl_usable(void);
bool vecsec_avx2_vl_set(bool on);

/*
 * Burst jobs longer than this go through the single-message path: by
 * default a length measured per lane width (chachapoly_lanes.c);
 * set_crossover pins a value, reset_crossover returns to the default.
 */
size_t vecsec_lanes_crossover(void);
void vecsec_lanes_set_crossover(size_t len);
void vecsec_lanes_reset_crossover(void);

/*
 * Mixed bursts: jobs longer than this (up to the crossover) go through the
 * single-message path when fewer than a ChaCha width of them are in the
 * burst; by default the CPU's bound for 8 and 16 lanes (SIZE_MAX: none;
 * none either while the crossover is pinned). set_mixed_max pins a value
 * (SIZE_MAX: off), reset_mixed_max returns to the default.
 */
size_t vecsec_lanes_mixed_max(void);
void vecsec_lanes_set_mixed_max(size_t len);
void vecsec_lanes_reset_mixed_max(void);

/*
 * Small bursts: the fewest jobs a burst whose longest job has this many
 * bytes needs to run in lanes (fewer run one by one); 0: any number. From
 * the CPU's tuning at the cap's lane width; 0 while lane widths are
 * forced (vecsec_lanes_force()) or the crossover is pinned.
 */
unsigned int vecsec_lanes_few(size_t longest);

/*
 * The kernel floor of a burst (vecsec-bench --floor): the ChaCha and
 * Poly1305 lane kernels a burst of n jobs picks at the current cap (those
 * vecsec_lanes_choose() names; call after the knobs are set), run on
 * blocks alone: no job, no copy, no tag. floor_chacha runs the ChaCha
 * kernel for `blocks` blocks on each of its lanes, floor_poly the Poly1305
 * kernel likewise; calls of at most 8 (ChaCha) or 64 (Poly1305) blocks a
 * lane, on scratch data that stays in L1 (a fixed key and r: nothing
 * secret). floor_new returns NULL when a burst of n has no lane kernel
 * (one job at a time) or memory is short. For benchmarks only.
 */
struct lanes_floor;
struct lanes_floor *vecsec_lanes_floor_new(unsigned int n);
void vecsec_lanes_floor_chacha(struct lanes_floor *f, uint32_t blocks);
void vecsec_lanes_floor_poly(struct lanes_floor *f, uint32_t blocks);
void vecsec_lanes_floor_free(struct lanes_floor *f);

#endif /* VECSEC_CHACHAPOLY_KNOBS_H */
