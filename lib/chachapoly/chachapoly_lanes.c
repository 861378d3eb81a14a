/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lane widths of ChaCha20-Poly1305 bursts (chachapoly_burst.h): the
 * lane kernels each dispatch level has (lib/chacha's and lib/poly1305's
 * table entries, widest first), the width a burst of n jobs runs at, the
 * Poly1305 width of the general passes, the crossover to the
 * single-message path, and the test and benchmark knobs that pin them
 * (chachapoly_knobs.h). Runs once per burst, never per job.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "chachapoly_burst.h"
#include "chachapoly_knobs.h"

/*
 * Above this many bytes a job goes to the single-message path (its wide
 * kernels run many blocks of one message per register). Measured with
 * vecsec-bench --burst-only --crossover (bursts of 32 equal jobs, 32 keys;
 * TSC cycles per message, medians of 5 runs; "lanes" all jobs in the
 * lanes, "single" all through the single-message path), on a Sapphire
 * Rapids-class Xeon (AVX-512 F/BW/VL/IFMA/VBMI), lanes with the direct
 * path (chachapoly_direct.h), 2 shared cores:
 *   16 lanes (AVX-512): 3072 B seal 2389 / 2442, open 2285 / 2479;
 *     4096 B seal 2988 / 3067, open 2959 / 3068; 6144 B seal 4447 / 4276:
 *     the lanes win up to 4 KiB (as an earlier Xeon run found);
 *   8 lanes (AVX2, VECSEC_ISA=avx2): 768 B seal 1414 / 1482, open 1491 /
 *     1433; 1024 B seal 1809 / 1861, open 1838 / 1771; 1280 B seal 2254 /
 *     2051, open 2210 / 2103; 1420 B seal 2621 / 2166: even to 1 KiB,
 *     the single path ahead from 1280 B (a Zen 3 had put it at 1.5 KiB);
 *   4 lanes (SSSE3, its Poly1305 scalar per lane): 256 B seal 1171 /
 *     1143, open 1198 / 1332; 384 B seal 1602 / 1732, open 1836 / 1758;
 *     512 B seal 2053 / 1643: even to 384 B, behind from 512 B.
 * On an AMD EPYC Zen 5 (the same tools, medians of 21 to 41 alternating
 * runs of 32-job bursts, load 0.5 to 3.5) 8 lanes cross where they do on
 * the Xeon (AVX2 1024 B seal 1227 / 1387, open 1238 / 1270; 1280 B seal
 * 1475 / 1406), and so did 16 before their kernel ran two blocks a step
 * (AVX-512 4096 B seal 1939 / 2002, open 1956 / 1967; 5120 B seal 2401 /
 * 2357); with it they win to 8 KiB, and SSSE3's lanes only at 64 B (both
 * crossovers in cpu.c's table, with the figures).
 * NEON's 4 lanes have 4-lane Poly1305 as well (not SSSE3's scalar one per
 * lane) and have not been measured on an ARM core: they keep the crossover
 * they had before these x86 measurements, 1536 B.
 */
/*
 * 16 ChaCha lanes: per CPU, vecsec_tune() (4096 on the Xeon above, 8192 on
 * a Zen 5, 4800 on a Zen 4)
 */
#define CROSSOVER_X16 (vecsec_tune()->lanes_crossover_x16)
/*
 * 8 ChaCha lanes: 1024 B for the plain AVX2 kernels; their AVX-512VL forms
 * (two blocks a step in the byte-exact kernel) per CPU, vecsec_tune()'s
 * lanes_crossover_x8vl where it has one (3584 on a Zen 4; 0: 1024, the
 * Xeon and the Zen 5, not measured with those forms)
 */
#define CROSSOVER_X8 1024
#if defined(__aarch64__)
#define CROSSOVER_X4 1536       /* 4 (NEON) */
#else
/* 4 (SSSE3): per CPU, vecsec_tune() (384 on the Xeon above, 64 on a Zen 5, 0 on a Zen 4) */
#define CROSSOVER_X4 (vecsec_tune()->lanes_crossover_ssse3)
#endif

static struct lane_set lane_sets[VECSEC_NB_LEVELS];
static pthread_once_t lane_sets_once = PTHREAD_ONCE_INIT;

/*
 * The AVX2 lane kernels compiled with AVX-512VL/BW (lib/meson.build,
 * avx2_vl): on a CPU with VL and BW (whatever the level, since they stay
 * in ymm registers and so within EAL's 256-bit SIMD width) they take the
 * AVX2 entries' place in lane_sets; lane_sets_plain keeps the AVX2 ones
 * for vecsec_avx2_vl_set(false). Copies of the AVX2 table entries with
 * only the lane kernels and their names changed.
 */
static struct lane_set lane_sets_plain[VECSEC_NB_LEVELS];
#ifdef VECSEC_HAVE_AVX2_VL
static struct chacha_impl chacha_avx2vl;
static struct poly1305_impl poly_avx2vl;

/* ls with the VL forms in place of the AVX2 lane kernels */
static void
put_vl(struct lane_set *ls)
{
	for (unsigned int i = 0; i < ls->nc; i++)
		if (ls->chacha[i] == &vecsec_chacha_impl_avx2)
			ls->chacha[i] = &chacha_avx2vl;
	for (unsigned int i = 0; i < ls->np; i++)
		if (ls->poly[i] == &vecsec_poly1305_impl_avx2)
			ls->poly[i] = &poly_avx2vl;
}
#endif

/* The knobs (chachapoly_knobs.h): tests and benchmarks only. */
static _Atomic int force_chacha = -1, force_poly = -1;
#define CROSSOVER_UNSET SIZE_MAX
static _Atomic size_t crossover_forced = CROSSOVER_UNSET;

static void
lane_sets_init(void)
{
	for (unsigned int lv = 0; lv < VECSEC_NB_LEVELS; lv++) {
		struct lane_set *ls = &lane_sets[lv];
		uint64_t feat = vecsec_level_features((enum vecsec_isa)lv);

		for (size_t i = 0; vecsec_chacha_impls[i] != NULL && ls->nc < MAX_WIDTHS; i++) {
			const struct chacha_impl *im = vecsec_chacha_impls[i];

			if (im->xor_lanes != NULL &&
			    vecsec_impl_usable(im->isa, im->needs, (enum vecsec_isa)lv, feat)) {
				ls->chacha_w[ls->nc] = im->lanes;
				ls->chacha[ls->nc++] = im;
			}
		}
		for (size_t i = 0; vecsec_poly1305_impls[i] != NULL && ls->np < MAX_WIDTHS; i++) {
			const struct poly1305_impl *im = vecsec_poly1305_impls[i];

			if (im->blocks_lanes != NULL && im != &vecsec_poly1305_impl_ref &&
			    vecsec_impl_usable(im->isa, im->needs, (enum vecsec_isa)lv, feat)) {
				ls->poly_w[ls->np] = im->lanes;
				ls->poly[ls->np++] = im;
			}
		}
		lane_sets_plain[lv] = *ls;
	}
#ifdef VECSEC_HAVE_AVX2_VL
	if (!vecsec_chacha_avx2_vl_cpu())
		return;
	chacha_avx2vl = vecsec_chacha_impl_avx2;
	chacha_avx2vl.lanes_name = "x8-avx2vl";
	chacha_avx2vl.xor_lanes = vecsec_chacha_xor_lanes_x8_avx2vl;
	chacha_avx2vl.xor_lanes_bytes = vecsec_chacha_xor_lanes_bytes_x8_avx2vl;
	poly_avx2vl = vecsec_poly1305_impl_avx2;
	poly_avx2vl.lanes_name = "x4-avx2vl";
	poly_avx2vl.blocks_lanes = vecsec_poly1305_blocks_lanes_x4_avx2vl;
	for (unsigned int lv = 0; lv < VECSEC_NB_LEVELS; lv++)
		put_vl(&lane_sets[lv]);
#endif
}

/* The measured crossover of a lane set's widest ChaCha kernel (on this CPU: read per burst). */
static size_t
crossover_of(const struct lane_set *ls)
{
	if (ls->nc == 0 || ls->chacha_w[0] <= 4)
		return CROSSOVER_X4;
	if (ls->chacha_w[0] > 8)
		return CROSSOVER_X16;
#ifdef VECSEC_HAVE_AVX2_VL
	if (ls->chacha[0]->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x8_avx2vl &&
	    vecsec_tune()->lanes_crossover_x8vl > 0)
		return vecsec_tune()->lanes_crossover_x8vl;
#endif
	return CROSSOVER_X8;
}

const struct lane_set *
vecsec_burst_lanes_at(enum vecsec_isa level)
{
	pthread_once(&lane_sets_once, lane_sets_init);
	return vecsec_chacha_avx2_vl_allowed() ? &lane_sets[level] : &lane_sets_plain[level];
}

/* the knob lives in lib/chacha (chacha.c): the single-message AVX2 kernels read it too */
bool
vecsec_avx2_vl_usable(void)
{
	return vecsec_chacha_avx2_vl_cpu();
}

bool
vecsec_avx2_vl_set(bool on)
{
	return vecsec_chacha_avx2_vl_allow(on);
}

/*
 * The narrowest usable kernel with at least n lanes, else the widest: a
 * burst of 3 runs on 4 lanes, not 16; a width given by force wins. NULL:
 * one job at a time (no lane kernel, lanes forced off, or a lone job).
 */
const struct chacha_impl *
vecsec_burst_pick_chacha(const struct lane_set *ls, unsigned int n)
{
	int f = atomic_load_explicit(&force_chacha, memory_order_relaxed);
	const struct chacha_impl *ci, *bx = NULL;
	int k;

	if (f == 0 || (f < 0 && n <= 1))
		return NULL;
	k = vecsec_lanes_pick(ls->chacha_w, ls->nc, n, f);
	if (k < 0)
		return NULL;
	ci = ls->chacha[k];
	if (f > 0 || ci->xor_lanes_bytes != NULL)
		return ci;
	/*
	 * Where the level has a byte-exact kernel, a narrower one without
	 * (the 4-lane kernels at AVX2 and AVX-512) is passed over: small
	 * bursts on it took the general passes.
	 */
	for (unsigned int i = 0; i < ls->nc; i++) {
		const struct chacha_impl *c = ls->chacha[i];

		if (c->xor_lanes_bytes != NULL &&
		    (bx == NULL || (c->lanes >= n && (bx->lanes < n || c->lanes < bx->lanes)) ||
		     (bx->lanes < n && c->lanes > bx->lanes)))
			bx = c;
	}
	return bx != NULL ? bx : ci;
}

/* Likewise for Poly1305; the per-lane reference when nothing else is there (or forced: 1). */
const struct poly1305_impl *
vecsec_burst_pick_poly(const struct lane_set *ls, unsigned int n)
{
	int f = atomic_load_explicit(&force_poly, memory_order_relaxed);
	int k;

	if (f == 1)
		return &vecsec_poly1305_impl_ref;
	k = vecsec_lanes_pick(ls->poly_w, ls->np, n, f);
	return k < 0 ? &vecsec_poly1305_impl_ref : ls->poly[k];
}

void
vecsec_lanes_choose(unsigned int n, struct lanes_choice *c)
{
	const struct lane_set *ls = vecsec_burst_lanes_at(vecsec_isa_cap());
	const struct chacha_impl *ci = vecsec_burst_pick_chacha(ls, n);
	const struct poly1305_impl *pi = vecsec_burst_pick_poly(ls, n);

	c->chacha_lanes = ci != NULL ? ci->lanes : 0;
	c->chacha_name = ci != NULL ? ci->lanes_name : "per-job";
	c->poly_lanes = ci != NULL ? pi->lanes : 0;
	c->poly_name = ci != NULL ? pi->lanes_name : "per-job";
}

int
vecsec_lanes_force(int chacha_w, int poly_w)
{
	const struct lane_set *ls = vecsec_burst_lanes_at(vecsec_isa_cap());

	if ((chacha_w > 0 && vecsec_lanes_pick(ls->chacha_w, ls->nc, 0, chacha_w) < 0) ||
	    (poly_w > 1 && vecsec_lanes_pick(ls->poly_w, ls->np, 0, poly_w) < 0) || poly_w == 0)
		return -ENOTSUP;
	atomic_store_explicit(&force_chacha, chacha_w < 0 ? -1 : chacha_w, memory_order_relaxed);
	atomic_store_explicit(&force_poly, poly_w < 0 ? -1 : poly_w, memory_order_relaxed);
	return 0;
}

/* The crossover at a level: the forced one, else the measured one. */
size_t
vecsec_burst_crossover(enum vecsec_isa level)
{
	size_t c = atomic_load_explicit(&crossover_forced, memory_order_relaxed);

	return c != CROSSOVER_UNSET ? c : crossover_of(vecsec_burst_lanes_at(level));
}

size_t
vecsec_lanes_crossover(void)
{
	return vecsec_burst_crossover(vecsec_isa_cap());
}

/*
 * A pinned length knob: len, where SIZE_MAX (the "unset" mark) is stored as
 * SIZE_MAX - 1, as good as "no limit" (lanes_take caps lengths)
 */
static void
pin_len(_Atomic size_t *knob, size_t len)
{
	atomic_store_explicit(knob, len == CROSSOVER_UNSET ? len - 1 : len, memory_order_relaxed);
}

void
vecsec_lanes_set_crossover(size_t len)
{
	pin_len(&crossover_forced, len);
}

void
vecsec_lanes_reset_crossover(void)
{
	atomic_store_explicit(&crossover_forced, CROSSOVER_UNSET, memory_order_relaxed);
}

/*
 * The mixed-burst bound at a level (vecsec_tune()->lanes_mixed_max, for 8
 * and 16 ChaCha lanes; lanes_mixed_max_x8 for 8 where the entry has one):
 * the forced one, else none while the crossover is pinned (a pinned
 * crossover alone decides, as tests and the bench's all-lanes runs
 * expect), else the CPU's.
 */
static _Atomic size_t mixed_forced = CROSSOVER_UNSET;

size_t
vecsec_burst_mixed_max(enum vecsec_isa level)
{
	size_t m = atomic_load_explicit(&mixed_forced, memory_order_relaxed);
	const struct lane_set *ls;

	if (m != CROSSOVER_UNSET)
		return m;
	if (atomic_load_explicit(&crossover_forced, memory_order_relaxed) != CROSSOVER_UNSET)
		return SIZE_MAX;
	ls = vecsec_burst_lanes_at(level);
	if (ls->nc == 0 || ls->chacha_w[0] < 8)
		return SIZE_MAX;
	if (ls->chacha_w[0] < 16 && vecsec_tune()->lanes_mixed_max_x8 != 0)
		return vecsec_tune()->lanes_mixed_max_x8;
	return vecsec_tune()->lanes_mixed_max;
}

/*
 * The fewest jobs a burst needs to run in lanes (0: any), from the CPU's
 * tuning (lanes_few_x16, lanes_few_x8) and the burst's longest job; none
 * while lane widths are forced or the crossover is pinned (tests and the
 * bench's all-lanes runs mean the lanes then).
 */
unsigned int
vecsec_burst_few(enum vecsec_isa level, size_t longest)
{
	const struct lane_set *ls = vecsec_burst_lanes_at(level);
	size_t step, need;

	if (ls->nc == 0 || atomic_load_explicit(&force_chacha, memory_order_relaxed) >= 0 ||
	    atomic_load_explicit(&crossover_forced, memory_order_relaxed) != CROSSOVER_UNSET)
		return 0;
	step = ls->chacha_w[0] >= 16 ? vecsec_tune()->lanes_few_x16 :
	       ls->chacha_w[0] >= 8 ? vecsec_tune()->lanes_few_x8 : 0;
	if (step == 0)
		return 0;
	need = 3 + longest / step;
	return need < 8 ? (unsigned int)need : 8;
}

unsigned int
vecsec_lanes_few(size_t longest)
{
	return vecsec_burst_few(vecsec_isa_cap(), longest);
}

size_t
vecsec_lanes_mixed_max(void)
{
	return vecsec_burst_mixed_max(vecsec_isa_cap());
}

void
vecsec_lanes_set_mixed_max(size_t len)
{
	pin_len(&mixed_forced, len);
}

void
vecsec_lanes_reset_mixed_max(void)
{
	atomic_store_explicit(&mixed_forced, CROSSOVER_UNSET, memory_order_relaxed);
}

/* Jobs up to this many bytes take the staged path (at most FAST_MAX). */
static _Atomic size_t staged_max = FAST_MAX;

size_t
vecsec_lanes_staged_max(void)
{
	return atomic_load_explicit(&staged_max, memory_order_relaxed);
}

void
vecsec_lanes_set_staged_max(size_t len)
{
	atomic_store_explicit(&staged_max, len < FAST_MAX ? len : FAST_MAX,
			      memory_order_relaxed);
}

static _Atomic bool fused_on = true;
/* counted only while asked: a shared counter would put a locked add per group between cores */
_Atomic bool vecsec_burst_fused_counting;
_Atomic uint64_t vecsec_burst_fused_groups, vecsec_burst_fused_narrow;
_Atomic uint64_t vecsec_burst_fused_long;

bool
vecsec_lanes_fused(void)
{
	return atomic_load_explicit(&fused_on, memory_order_relaxed);
}

bool
vecsec_lanes_set_fused(bool on)
{
	return atomic_exchange_explicit(&fused_on, on, memory_order_relaxed);
}

bool
vecsec_lanes_count_fused(bool on)
{
	return atomic_exchange_explicit(&vecsec_burst_fused_counting, on,
					memory_order_relaxed);
}

uint64_t
vecsec_lanes_fused_groups(void)
{
	return atomic_load_explicit(&vecsec_burst_fused_groups, memory_order_relaxed);
}

uint64_t
vecsec_lanes_fused_narrow_groups(void)
{
	return atomic_load_explicit(&vecsec_burst_fused_narrow, memory_order_relaxed);
}

uint64_t
vecsec_lanes_fused_long_groups(void)
{
	return atomic_load_explicit(&vecsec_burst_fused_long, memory_order_relaxed);
}

static _Atomic bool uniform_on = true;
_Atomic uint64_t vecsec_burst_uniform;

bool
vecsec_lanes_uniform(void)
{
	return atomic_load_explicit(&uniform_on, memory_order_relaxed);
}

bool
vecsec_lanes_set_uniform(bool on)
{
	return atomic_exchange_explicit(&uniform_on, on, memory_order_relaxed);
}

uint64_t
vecsec_lanes_uniform_bursts(void)
{
	return atomic_load_explicit(&vecsec_burst_uniform, memory_order_relaxed);
}

static _Atomic bool direct_on = true;

bool
vecsec_lanes_direct(void)
{
	return atomic_load_explicit(&direct_on, memory_order_relaxed);
}

bool
vecsec_lanes_set_direct(bool on)
{
	return atomic_exchange_explicit(&direct_on, on, memory_order_relaxed);
}

/*
 * Poly1305 width for the general passes: their lanes fall out of step
 * (AAD, text and lengths blocks of different jobs), and each call runs the
 * fewest blocks any active lane has left, so 16 lanes make more, shorter
 * calls than 8. Measured with the lanes tool (now vecsec-bench --lanes;
 * x ipsec-mb msgs/s, 3 runs, x16 poly / x8 poly): 1420 B 0.98 1.01 1.02 /
 * 1.01 1.03 1.03, IMIX 1.09 1.11 1.13 / 1.15 1.20 1.20; the staged path
 * keeps 16 (64 B: 2.17..2.19 / 2.09..2.11). Pinned widths (vecsec_lanes_force) stay as they are.
 */
const struct poly1305_impl *
vecsec_burst_general_poly(const struct lane_set *ls, const struct poly1305_impl *pi)
{
	if (pi->lanes <= 8 || atomic_load_explicit(&force_poly, memory_order_relaxed) >= 0)
		return pi;
	for (unsigned int i = 0; i < ls->np; i++)
		if (ls->poly_w[i] == 8)
			return ls->poly[i];
	return pi;
}

/* ---- the kernel floor (chachapoly_knobs.h): benchmarks only ---- */

#define FLOOR_CHACHA_CALL 8     /* blocks a lane per ChaCha call: 8 KiB out at 16 lanes */
#define FLOOR_POLY_CALL 64      /* blocks a lane per Poly1305 call: 1 KiB read by all */

struct lanes_floor {
	struct chacha_lanes cl;
	struct poly1305_lanes pl;
	const struct chacha_impl *ci;
	const struct poly1305_impl *pi;
	uint32_t chacha_all, poly_all;  /* every lane's bit */
	alignas(64) uint8_t in[FLOOR_CHACHA_CALL * CHACHA_BLOCK_LEN];
	alignas(64) uint8_t out[VECSEC_MAX_LANES][FLOOR_CHACHA_CALL * CHACHA_BLOCK_LEN];
	alignas(64) uint8_t msg[FLOOR_POLY_CALL * POLY1305_BLOCK_LEN];
};

struct lanes_floor *
vecsec_lanes_floor_new(unsigned int n)
{
	const struct lane_set *ls = vecsec_burst_lanes_at(vecsec_isa_cap());
	const struct chacha_impl *ci = vecsec_burst_pick_chacha(ls, n);
	struct lanes_floor *f;
	uint8_t r[16];

	if (ci == NULL)
		return NULL;
	f = aligned_alloc(64, sizeof(*f));
	if (f == NULL)
		return NULL;
	memset(f, 0, sizeof(*f));
	f->ci = ci;
	f->pi = vecsec_burst_pick_poly(ls, n);
	f->chacha_all = (uint32_t)((UINT64_C(1) << ci->lanes) - 1);
	f->poly_all = (uint32_t)((UINT64_C(1) << f->pi->lanes) - 1);
	f->cl.rounds = 20;
	for (unsigned int i = 0; i < VECSEC_MAX_LANES; i++) {
		for (unsigned int w = 0; w < 8; w++)
			f->cl.key[w][i] = 0x01010101u * (w + 1) + i;
		f->cl.nonce[0][i] = i;
	}
	for (unsigned int i = 0; i < VECSEC_MAX_LANES; i++) {
		uint64_t t[3];

		for (unsigned int k = 0; k < sizeof(r); k++)
			r[k] = (uint8_t)(0x5a + 7 * k + i);
		vecsec_poly1305_clamp(t, r);
		for (unsigned int l = 0; l < 3; l++)
			f->pl.r[l][i] = t[l];
	}
	for (size_t k = 0; k < sizeof(f->in); k++)
		f->in[k] = (uint8_t)(k * 13);
	for (size_t k = 0; k < sizeof(f->msg); k++)
		f->msg[k] = (uint8_t)(k * 29);
	return f;
}

void
vecsec_lanes_floor_chacha(struct lanes_floor *f, uint32_t blocks)
{
	while (blocks > 0) {
		uint32_t k = blocks < FLOOR_CHACHA_CALL ? blocks : FLOOR_CHACHA_CALL;

		for (unsigned int i = 0; i < f->ci->lanes; i++) {
			f->cl.ctr[i] = 1;
			f->cl.in[i] = f->in;
			f->cl.out[i] = f->out[i];
			f->cl.blocks_left[i] = k;
		}
		f->cl.active = f->chacha_all;
		f->ci->xor_lanes(&f->cl, k);
		blocks -= k;
	}
}

void
vecsec_lanes_floor_poly(struct lanes_floor *f, uint32_t blocks)
{
	while (blocks > 0) {
		uint32_t k = blocks < FLOOR_POLY_CALL ? blocks : FLOOR_POLY_CALL;

		for (unsigned int i = 0; i < f->pi->lanes; i++) {
			f->pl.in[i] = f->msg;
			f->pl.blocks_left[i] = k;
		}
		f->pl.active = f->poly_all;
		f->pi->blocks_lanes(&f->pl, k);
		blocks -= k;
	}
}

void
vecsec_lanes_floor_free(struct lanes_floor *f)
{
	free(f);
}
