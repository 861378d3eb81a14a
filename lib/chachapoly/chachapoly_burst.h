/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to the ChaCha20-Poly1305 burst (never installed, never included
 * outside lib/chachapoly): the three files of vecsec_chachapoly_burst()
 * share these types and helpers.
 *   chachapoly_burst.c   the four passes, the lane scheduler's callbacks,
 *                        lanes_run() and the entry point;
 *   chachapoly_staged.h  the staged path for small linear jobs (a header
 *                        chachapoly_burst.c alone includes: see there);
 *   chachapoly_direct.h  the direct path for longer linear jobs with a
 *                        byte-exact ChaCha lane kernel (likewise);
 *   chachapoly_lanes.c   the lane kernels of each level, the choice of
 *                        width, the crossover and the knobs
 *                        (chachapoly_knobs.h).
 * What runs per job or per block is static inline here, as it was when
 * the three were one file, so that it still inlines into each caller;
 * the functions across object files run once per burst.
 */
#ifndef CHACHAPOLY_BURST_H
#define CHACHAPOLY_BURST_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "job/job_internal.h"
#include "lanes/lanes.h"
#include "chachapoly_internal.h"
#include "chachapoly_small.h"

#define MAX_WIDTHS 8

/*
 * The lane kernels usable at one dispatch level: the entries of lib/chacha's
 * and lib/poly1305's tables that have one, widest first (the Poly1305
 * reference's lane form, the per-lane fallback, apart); the crossover goes
 * with the widest ChaCha width (vecsec_burst_crossover()).
 */
struct lane_set {
	const struct chacha_impl *chacha[MAX_WIDTHS];
	unsigned int chacha_w[MAX_WIDTHS], nc;
	const struct poly1305_impl *poly[MAX_WIDTHS];
	unsigned int poly_w[MAX_WIDTHS], np;
};

/* ---- the burst ---- */

/*
 * XChaCha20 jobs' words (lane_key()); ChaCha20 jobs' come straight from
 * their keys. Apart from struct job_ctx so that the end of a burst without
 * XChaCha jobs has none of them to wipe.
 */
struct xjob_words {
	uint32_t key[8];        /* the HChaCha subkey */
	uint32_t nonce[3];      /* state words 13..15 */
};

struct job_ctx {
	uint8_t s[16];          /* Poly1305 s (RFC 8439 2.5) */
	uint64_t h[3];          /* Poly1305 accumulator, radix 2^44 */
	uint64_t r[3];          /* clamped r, radix 2^44 */
	const uint8_t *in;      /* staged path: the whole Poly1305 input */
	uint32_t blocks;
};

/*
 * A linear job (no segment lists) walks by offset; a scatter-gather one
 * through the segment cursors of lib/job.
 */
struct chacha_lane {
	struct job_cursor ci, co;
	bool lin;               /* linear job: lin_in/lin_out from off to len */
	const uint8_t *lin_in;
	uint8_t *lin_out;
	size_t off, len;
	uint32_t staged;        /* bytes to scatter from the stage after the block */
};

enum { PH_AAD, PH_TEXT, PH_LENS, PH_DONE };

struct poly_lane {
	struct job_cursor c;   /* the ciphertext (scatter-gather) */
	const uint8_t *lin;     /* the ciphertext (linear); NULL: the cursor */
	size_t off, len;        /* linear: bytes done, bytes in all */
	size_t aad_off;
	uint32_t phase;
};

/* A run of a job's ChaCha blocks for one lane (count 0: the whole job). */
struct piece {
	uint16_t job;
	uint32_t first, count;
};

#define NB_PIECES (VECSEC_MAX_BURST + VECSEC_MAX_LANES)

/*
 * Small linear jobs (at most FAST_MAX bytes, AAD at most 64) are staged
 * whole: one block slot, then the data, then room for pad16 and lengths.
 */
#define FAST_MAX 512
#define FAST_AAD 64
#define FAST_BUF (CHACHA_BLOCK_LEN + FAST_MAX + 32)

struct burst {
	struct vecsec_aead_job *const *jobs;
	struct piece pieces[NB_PIECES];
	unsigned int npieces;
	struct job_ctx *ctx;
	struct xjob_words *xw;             /* indexed as ctx: XChaCha jobs only */
	/* the lane scheduler's state: kernels, work left, lanes holding work */
	const struct chacha_impl *ci;
	const struct poly1305_impl *pk;    /* the Poly1305 lane kernel of this pass */
	small_kernel_fn fused;             /* small groups' fused kernel (NULL: none) */
	small_kernel_fn fused8;            /* the same for groups of 8 or fewer (NULL: fused) */
	size_t fused_max;                  /* the longest job fused takes (fused_max()) */
	bool fused_rows;                   /* fused reads keys where they lie (small_mac.key) */
	bool fused_all;                    /* every staged job fits fused (fused_fits()) */
	bool old_staged;                   /* a small group took fast_group / fast_seal_direct */
	bool keyed;                        /* a fused group put key words in cl (lane_key()) */
	struct small_mac sm;               /* its MAC inputs (public: lengths, pointers) */
	uint32_t sbytes[VECSEC_MAX_LANES];
	const uint16_t *list;              /* pass 3: the jobs to MAC */
	unsigned int nlist, next;          /* next: the next piece or job to start */
	uint16_t job[VECSEC_MAX_LANES];     /* lane -> job index */
	struct chacha_lanes cl;
	struct poly1305_lanes pl;
	struct chacha_lane cs[VECSEC_MAX_LANES];
	struct poly_lane ps[VECSEC_MAX_LANES];
	alignas(64) uint8_t stage[VECSEC_MAX_LANES][CHACHA_BLOCK_LEN];
	/* the staged path for small linear jobs (fast_group) */
	alignas(64) uint8_t buf[VECSEC_MAX_LANES][FAST_BUF];
	struct poly1305_state pst;         /* poly_absorb1's scalar state */
	_Static_assert(CHACHA_BLOCK_LEN * (1 + FAST_MAX / CHACHA_BLOCK_LEN) + 32 <= FAST_BUF,
		       "FAST_BUF holds every staged job");
};

static const uint8_t zero_block[CHACHA_BLOCK_LEN];

/*
 * Small copies and fills of the staged path, inline: 16-byte moves (a
 * vector type the compiler keeps as one load or store, never a libc call;
 * a call per job was a tenth of the time at 64 bytes), the last one
 * overlapping. d and s must not overlap.
 */
typedef uint64_t u128_un __attribute__((vector_size(16), aligned(1), may_alias));

static inline void
mv16(uint8_t *d, const uint8_t *s)
{
	*(u128_un *)(void *)d = *(const u128_un *)(const void *)s;
}

static inline void
copy_small(uint8_t *restrict d, const uint8_t *restrict s, size_t n)
{
	size_t k = 0;

	if (n >= 16) {
		for (; k + 16 <= n; k += 16)
			mv16(d + k, s + k);
		if (k < n)
			mv16(d + n - 16, s + n - 16);
		return;
	}
	if (n >= 8) {
		uint64_t a, z;

		memcpy(&a, s, 8);
		memcpy(&z, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &z, 8);
		return;
	}
	for (; k < n; k++)
		d[k] = s[k];
}

/* n bytes of zeros at d, n < 16 or a multiple of 16 */
static inline void
zero_small(uint8_t *d, size_t n)
{
	const u128_un z = { 0, 0 };
	size_t k = 0;

	for (; k + 16 <= n; k += 16)
		*(u128_un *)(void *)(d + k) = z;
	for (; k < n; k++)
		d[k] = 0;
}

/*
 * Open's verdict for a lane job (tag_len 16: lanes_take): the single
 * message's vecsec_chachapoly_verify() (constant-time vecsec_ct_eq16(),
 * calc wiped, the output zeroed on a mismatch), as a job status.
 */
static inline uint32_t
lane_verify(const struct vecsec_aead_job *job, uint8_t calc[POLY1305_TAG_LEN])
{
	return vecsec_chachapoly_verify(job, calc) == 0 ? VECSEC_JOB_OK : VECSEC_JOB_AUTH_FAILED;
}

/* RFC 8439 2.6, 2.5: r (clamped) and s from keystream block 0 */
static inline void
take_otk(struct job_ctx *c, const uint8_t *block0)
{
	vecsec_poly1305_clamp(c->r, block0);
	memcpy(c->s, block0 + 16, sizeof(c->s));
}

/*
 * Job j's key and nonce words into lane `lane` of the ChaCha struct, its
 * counter ctr. ChaCha20 jobs: straight from the key object and the nonce
 * (as vecsec_chachapoly_words() reads them), no copy between;
 * XChaCha20 jobs: the HChaCha subkey and nonce words lanes_run() left in
 * b->xw (xchacha_subkeys()).
 */
static inline void
lane_key(struct burst *b, unsigned int lane, unsigned int j, uint32_t ctr)
{
	const struct vecsec_aead_job *job = b->jobs[j];

	if (job->key->alg == VECSEC_AEAD_CHACHA20_POLY1305) {
		const uint8_t *k = (const uint8_t *)job->key->small;

		for (int w = 0; w < 8; w++)
			b->cl.key[w][lane] = vecsec_load_le32(k + 4 * w);
		for (int w = 0; w < 3; w++)
			b->cl.nonce[w][lane] = vecsec_load_le32(job->nonce + 4 * w);
	} else {
		for (int w = 0; w < 8; w++)
			b->cl.key[w][lane] = b->xw[j].key[w];
		for (int w = 0; w < 3; w++)
			b->cl.nonce[w][lane] = b->xw[j].nonce[w];
	}
	b->cl.ctr[lane] = ctr;
	b->job[lane] = (uint16_t)j;
}

/*
 * Job j's key and nonce where they lie, for a kernel that reads them so
 * (chachapoly_small.h's 16-lane kernel): the key object's words for
 * ChaCha20 (little-endian, as lane_key() reads them), the subkey and nonce
 * words lanes_run() left in b->xw for XChaCha20 (host order: x86 only).
 */
static inline void
lane_key_at(const struct burst *b, unsigned int j, const uint8_t **key, const uint8_t **nonce)
{
	const struct vecsec_aead_job *job = b->jobs[j];

	if (job->key->alg == VECSEC_AEAD_CHACHA20_POLY1305) {
		*key = (const uint8_t *)job->key->small;
		*nonce = job->nonce;
	} else {
		*key = (const uint8_t *)b->xw[j].key;
		*nonce = (const uint8_t *)b->xw[j].nonce;
	}
}

static inline uint32_t
job_blocks(const struct vecsec_aead_job *job)
{
	return (uint32_t)((job->len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

static inline bool
fast_ok(const struct vecsec_aead_job *job, size_t max)
{
	return job->nb_in_segs == 0 && job->nb_out_segs == 0 && job->len <= max &&
	       job->aad_len <= FAST_AAD;
}

static inline size_t
pad16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/* The scheduler's calls (lib/lanes): the ChaCha lane kernel, ... */
static inline void
chacha_run(void *ctx, uint32_t nblocks)
{
	struct burst *b = ctx;

	b->ci->xor_lanes(&b->cl, nblocks);
}

/* The scheduler's calls (lib/lanes): the Poly1305 lane kernel, ... */
static inline void
poly_run(void *ctx, uint32_t nblocks)
{
	struct burst *b = ctx;

	b->pk->blocks_lanes(&b->pl, nblocks);
}

/*
 * True if the lanes take this job: (X)ChaCha20-Poly1305 with its nonce and
 * tag lengths right and len at most the crossover.
 */
static inline bool
lanes_take(const struct vecsec_aead_job *job, size_t crossover)
{
	uint32_t alg = job->key->alg;

	if (alg == VECSEC_AEAD_CHACHA20_POLY1305) {
		if (job->nonce_len != VECSEC_CHACHAPOLY_NONCE_LEN)
			return false;
	} else if (alg == VECSEC_AEAD_XCHACHA20_POLY1305) {
		if (job->nonce_len != VECSEC_XCHACHAPOLY_NONCE_LEN)
			return false;
	} else {
		return false;
	}
	/*
	 * The lanes keep block counters in 32 bits and never carry into word
	 * 13: longer jobs (only possible with the crossover raised) go through
	 * the single-message path, which checks or carries itself.
	 */
	return job->tag_len == VECSEC_AEAD_TAG_LEN && job->len <= crossover &&
	       (uint64_t)job->len <= ((UINT64_C(1) << 32) - 2) * CHACHA_BLOCK_LEN;
}

/*
 * Groups the fused kernel ran, counted only while a test asked for it
 * (vecsec_lanes_count_fused()): the data plane pays one load of a line
 * every core only reads. Not thread-local: LeakSanitizer's thread scan
 * crashes on the TLS of a library loaded with dlopen (the PMD), as the
 * gateway's two-worker demo under ASan showed.
 */
extern _Atomic bool vecsec_burst_fused_counting;
extern _Atomic uint64_t vecsec_burst_fused_groups, vecsec_burst_fused_narrow;
extern _Atomic uint64_t vecsec_burst_fused_long;
extern _Atomic uint64_t vecsec_burst_uniform;
bool vecsec_lanes_uniform(void);
bool vecsec_lanes_fused(void);

/*
 * narrow: the group took fused_narrow()'s 8-lane kernel; long: it held a
 * job past SMALL_MAX (fused_max())
 */
static inline void
vecsec_burst_count_fused(bool narrow, bool long_jobs)
{
	if (__builtin_expect(atomic_load_explicit(&vecsec_burst_fused_counting,
						  memory_order_relaxed), 0)) {
		atomic_fetch_add_explicit(&vecsec_burst_fused_groups, 1,
					  memory_order_relaxed);
		if (narrow)
			atomic_fetch_add_explicit(&vecsec_burst_fused_narrow, 1,
						  memory_order_relaxed);
		if (long_jobs)
			atomic_fetch_add_explicit(&vecsec_burst_fused_long, 1,
						  memory_order_relaxed);
	}
}

/*
 * The fused kernel (chachapoly_small.h) that stands for the burst's lane
 * kernels, if the knob allows it, else NULL: the byte-exact x16 ChaCha
 * (AVX-512) with an IFMA Poly1305 lane kernel, or the byte-exact x8
 * ChaCha (AVX2) with the AVX2 x4 Poly1305 lane kernel, each in the form
 * (plain or VL) the lane set has (chachapoly_lanes.c put_vl()). The x8
 * VL ChaCha with the x8 IFMA Poly1305 (AVX-512 bursts of 5-8) takes the
 * x8 VL fused kernel too: on Zen 4 its seals 10-15 % faster than the
 * staged path at 64-512 B, opens level to 3 % faster (docs/bursts.md).
 */
/* pi is the x8 IFMA Poly1305 lane kernel (false in a build without it) */
static inline bool
poly_is_x8_ifma(const struct poly1305_impl *pi)
{
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
	return pi->blocks_lanes == vecsec_poly1305_blocks_lanes_x8_avx512ifma;
#else
	(void)pi;
	return false;
#endif
}

static inline small_kernel_fn
fused_kernels(const struct chacha_impl *ci, const struct poly1305_impl *pi)
{
	if (!vecsec_lanes_fused())
		return NULL;
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
	if (ci->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x16_avx512 &&
	    (pi->blocks_lanes == vecsec_poly1305_blocks_lanes_x16_avx512ifma ||
	     poly_is_x8_ifma(pi)))
		return vecsec_chachapoly_small_x16_avx512ifma;
#endif
#ifdef VECSEC_HAVE_AVX2
	if (ci->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x8_avx2 &&
	    pi->blocks_lanes == vecsec_poly1305_blocks_lanes_x4_avx2)
		return vecsec_chachapoly_small_x8_avx2;
#endif
#ifdef VECSEC_HAVE_AVX2_VL
	if (ci->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x8_avx2vl &&
	    (pi->blocks_lanes == vecsec_poly1305_blocks_lanes_x4_avx2vl ||
	     poly_is_x8_ifma(pi)))
		return vecsec_chachapoly_small_x8_avx2vl;
#endif
	(void)ci;
	(void)pi;
	return NULL;
}

/*
 * For a group of 8 jobs or fewer beside the x16 AVX-512 fused kernel,
 * where the CPU's tuning asks for it (fused_narrow_groups: 512-bit
 * operations in two halves, so 16 lanes cost twice 8 whatever is in
 * them): the 8-lane fused kernel in the form of the lane set's x8
 * ChaCha; else NULL.
 */
static inline small_kernel_fn
fused_narrow(const struct lane_set *ls, small_kernel_fn wide)
{
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512) && defined(VECSEC_HAVE_AVX2)
	if (wide != vecsec_chachapoly_small_x16_avx512ifma || !vecsec_tune()->fused_narrow_groups)
		return NULL;
	for (unsigned int i = 0; i < ls->nc; i++) {
#ifdef VECSEC_HAVE_AVX2_VL
		if (ls->chacha[i]->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x8_avx2vl)
			return vecsec_chachapoly_small_x8_avx2vl;
#endif
		if (ls->chacha[i]->xor_lanes_bytes == vecsec_chacha_xor_lanes_bytes_x8_avx2)
			return vecsec_chachapoly_small_x8_avx2;
	}
#endif
	(void)ls;
	(void)wide;
	return NULL;
}

/*
 * The longest job a group on the fused kernel wide may hold: the CPU's
 * tuning, fused_x16_max for the 16-lane AVX-512 kernel, fused_x8_max for
 * the 8-lane ones, at least SMALL_MAX, at most SMALL_LONG_MAX.
 */
static inline size_t
fused_max(small_kernel_fn wide)
{
	size_t max = vecsec_tune()->fused_x8_max;

	if (wide == NULL)
		return SMALL_MAX;
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
	if (wide == vecsec_chachapoly_small_x16_avx512ifma)
		max = vecsec_tune()->fused_x16_max;
#endif
	return max <= SMALL_MAX ? SMALL_MAX : max < SMALL_LONG_MAX ? max : SMALL_LONG_MAX;
}

/* ---- chachapoly_lanes.c ---- */

/* The lane kernels of a level, chosen once for all levels (thread-safe). */
const struct lane_set *vecsec_burst_lanes_at(enum vecsec_isa level);
/*
 * The ChaCha kernel for a burst of n (NULL: one job at a time) and the
 * Poly1305 kernel that goes with it.
 */
const struct chacha_impl *vecsec_burst_pick_chacha(const struct lane_set *ls, unsigned int n);
unsigned int vecsec_burst_few(enum vecsec_isa level, size_t longest);
const struct poly1305_impl *vecsec_burst_pick_poly(const struct lane_set *ls, unsigned int n);
/* The Poly1305 kernel of the general passes, given the staged path's pi. */
const struct poly1305_impl *vecsec_burst_general_poly(const struct lane_set *ls,
						      const struct poly1305_impl *pi);
/* Jobs longer than this at level take the single-message path. */
size_t vecsec_burst_crossover(enum vecsec_isa level);
/* Mixed bursts: the few jobs longer than this at level take it too (SIZE_MAX: none). */
size_t vecsec_burst_mixed_max(enum vecsec_isa level);

#endif /* CHACHAPOLY_BURST_H */
