/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bursts of ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha 2.3) jobs in SIMD lanes: 4/8/16-lane ChaCha and
 * 4/8/16-lane Poly1305 kernels (the lane entries of lib/chacha's and
 * lib/poly1305's tables), each job ending exactly as the one-shot path
 * leaves it. Jobs longer than the crossover, or with wrong lengths, go
 * through the one-shot path. Portable C: the lane kernels do the
 * arithmetic, this file lays out the construction for them.
 *
 * Small linear jobs (<= FAST_MAX bytes, AAD <= 64) take the staged path,
 * a ChaCha width of them at a time (fast_group): each is copied into its
 * lane's buffer behind a zero block, one kernel run gives block 0 (the
 * one-time Poly1305 key, 2.6) and the data, and the MAC input is laid out
 * contiguously around the ciphertext, so each lane needs one Poly1305 run.
 * Seal with a byte-exact kernel (16 lanes, AVX-512) skips the staging of
 * the data: the kernel reads job->in and writes job->out itself, masked
 * at the ragged end (fast_seal_direct); open with it decrypts, once the
 * tag matched, straight from job->in to job->out. Where the Poly1305 lane
 * kernel has tags_lanes, a group's tags are finished in the lanes too.
 *
 * The other jobs go through four passes, each a lane scheduler that fills
 * free lanes, runs the kernel for as many blocks as the shortest active
 * lane needs, then retires or refills the lanes that ran out:
 *   1. block 0 of every job's ChaCha20 -> the one-time Poly1305 key;
 *   2. seal jobs: ChaCha20 from counter 1, input to output (long linear
 *      jobs cut into pieces over several lanes: each lane has its counter);
 *   3. Poly1305 of every job: pad16(AAD) || pad16(ciphertext) || lengths,
 *      all whole blocks (the ciphertext is the output for seal jobs and the
 *      input for open jobs);
 *   4. open jobs whose tag matched (vecsec_ct_eq): ChaCha20 from counter 1.
 * Either way open verifies before any plaintext reaches the caller's
 * buffer: a forged job's output is only zeroed (as the one-shot path
 * does), never written with plaintext.
 *
 * Scatter-gather and ragged lengths: a lane's kernel pointers cover the
 * longest run of whole blocks contiguous in both source and destination;
 * a block that straddles segments, or the short last block, goes through
 * the lane's 64-byte (16 for Poly1305) stage buffer: gathered, run as one
 * block, scattered back. AAD and lengths blocks are staged the same way.
 *
 * No allocation: the per-job context (VECSEC_MAX_BURST entries) and the
 * per-lane buffers (VECSEC_MAX_LANES) live on the stack, about 55 KiB in
 * all; keys, keystream and plaintext in them are wiped before return.
 * The jobs are interleaved, so a job's output (data or tag) must not
 * overlap another job's input, AAD, tag or output (the burst contract:
 * independent jobs); sharing read-only inputs (a nonce, an AAD) is fine.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "job/job_internal.h"
#include "lanes/lanes.h"
#include "chachapoly_internal.h"

/* ---- lane kernels and the choice of width ---- */

/*
 * Above this many bytes a job goes to the single-message path (its wide
 * kernels run many blocks of one message per register). Measured with the
 * lanes tool's crossover mode, now vecsec-bench --burst-only --crossover
 * (bursts of 32 equal seal jobs, AVX-512 + IFMA Xeon, branch simd's
 * single-message kernels merged; TSC cycles per message, medians):
 * 2048 B lanes 2106 / single 2490, 3072 B 3005 / 3368, 4096 B 3966 / 3990,
 * 6144 B 5808 / 5634, 8192 B 7872 / 7226. The lanes
 * win up to 4 KiB and lose from 6 KiB on. With 8 ChaCha lanes (AVX2, same
 * tool, VECSEC_ISA=avx2): 1024 B 1954 / 2217, 1536 B 2873 / 2980, 2048 B
 * 3926 / 3881, 3072 B 5766 / 5230: the crossover falls to 1.5 KiB.
 */
#define CROSSOVER_WIDE 4096     /* 16 ChaCha lanes */
#define CROSSOVER_NARROW 1536   /* 8 or 4 */

#define MAX_WIDTHS 8

/*
 * The lane kernels usable at one dispatch level: the entries of lib/chacha's
 * and lib/poly1305's tables that have one, widest first (the Poly1305
 * reference's lane form, the per-lane fallback, apart), and the crossover
 * that goes with the widest ChaCha width.
 */
struct lane_set {
	const struct chacha_impl *chacha[MAX_WIDTHS];
	unsigned int chacha_w[MAX_WIDTHS], nc;
	const struct poly1305_impl *poly[MAX_WIDTHS];
	unsigned int poly_w[MAX_WIDTHS], np;
	size_t crossover;
};

static struct lane_set lane_sets[VECSEC_NB_LEVELS];
static pthread_once_t lane_sets_once = PTHREAD_ONCE_INIT;

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
		ls->crossover = ls->nc > 0 && ls->chacha_w[0] >= 16 ? CROSSOVER_WIDE :
			       CROSSOVER_NARROW;
	}
}

/* The lane kernels of a level, chosen once for all levels (thread-safe). */
static const struct lane_set *
lanes_at(enum vecsec_isa level)
{
	pthread_once(&lane_sets_once, lane_sets_init);
	return &lane_sets[level];
}

/*
 * The narrowest usable kernel with at least n lanes, else the widest: a
 * burst of 3 runs on 4 lanes, not 16; a width given by force wins. NULL:
 * one job at a time (no lane kernel, lanes forced off, or a lone job).
 */
static const struct chacha_impl *
pick_chacha(const struct lane_set *ls, unsigned int n)
{
	int f = atomic_load_explicit(&force_chacha, memory_order_relaxed);
	int k;

	if (f == 0 || (f < 0 && n <= 1))
		return NULL;
	k = vecsec_lanes_pick(ls->chacha_w, ls->nc, n, f);
	return k < 0 ? NULL : ls->chacha[k];
}

/* Likewise for Poly1305; the per-lane reference when nothing else is there (or forced: 1). */
static const struct poly1305_impl *
pick_poly(const struct lane_set *ls, unsigned int n)
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
	const struct lane_set *ls = lanes_at(vecsec_isa_cap());
	const struct chacha_impl *ci = pick_chacha(ls, n);
	const struct poly1305_impl *pi = pick_poly(ls, n);

	c->chacha_lanes = ci != NULL ? ci->lanes : 0;
	c->chacha_name = ci != NULL ? ci->lanes_name : "per-job";
	c->poly_lanes = ci != NULL ? pi->lanes : 0;
	c->poly_name = ci != NULL ? pi->lanes_name : "per-job";
}

int
vecsec_lanes_force(int chacha_w, int poly_w)
{
	const struct lane_set *ls = lanes_at(vecsec_isa_cap());

	if ((chacha_w > 0 && vecsec_lanes_pick(ls->chacha_w, ls->nc, 0, chacha_w) < 0) ||
	    (poly_w > 1 && vecsec_lanes_pick(ls->poly_w, ls->np, 0, poly_w) < 0) || poly_w == 0)
		return -ENOTSUP;
	atomic_store_explicit(&force_chacha, chacha_w < 0 ? -1 : chacha_w, memory_order_relaxed);
	atomic_store_explicit(&force_poly, poly_w < 0 ? -1 : poly_w, memory_order_relaxed);
	return 0;
}

/* The crossover at a level: the forced one, else the measured one. */
static size_t
crossover_at(enum vecsec_isa level)
{
	size_t c = atomic_load_explicit(&crossover_forced, memory_order_relaxed);

	return c != CROSSOVER_UNSET ? c : lanes_at(level)->crossover;
}

size_t
vecsec_lanes_crossover(void)
{
	return crossover_at(vecsec_isa_cap());
}

void
vecsec_lanes_set_crossover(size_t len)
{
	/* SIZE_MAX - 1 is as good as "no limit": lanes_take caps lengths */
	atomic_store_explicit(&crossover_forced, len == CROSSOVER_UNSET ? len - 1 : len,
			      memory_order_relaxed);
}

void
vecsec_lanes_reset_crossover(void)
{
	atomic_store_explicit(&crossover_forced, CROSSOVER_UNSET, memory_order_relaxed);
}

/*
 * True if the lanes take this job: (X)ChaCha20-Poly1305 with its nonce and
 * tag lengths right and len at most the crossover.
 */
static bool
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

/* ---- the burst ---- */

struct job_ctx {
	uint32_t key[8];        /* ChaCha20 key words (XChaCha: the HChaCha subkey) */
	uint32_t nonce[3];      /* state words 13..15 */
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
	/* the lane scheduler's state: kernels, work left, lanes holding work */
	const struct chacha_impl *ci;
	const struct poly1305_impl *pk;    /* the Poly1305 lane kernel of this pass */
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

/* RFC 8439 2.6, 2.5: r (clamped) and s from keystream block 0 */
static inline void
take_otk(struct job_ctx *c, const uint8_t *block0)
{
	vecsec_poly1305_clamp(c->r, block0);
	memcpy(c->s, block0 + 16, sizeof(c->s));
}

static void
lane_key(struct burst *b, unsigned int lane, unsigned int j, uint32_t ctr)
{
	for (int w = 0; w < 8; w++)
		b->cl.key[w][lane] = b->ctx[j].key[w];
	for (int w = 0; w < 3; w++)
		b->cl.nonce[w][lane] = b->ctx[j].nonce[w];
	b->cl.ctr[lane] = ctr;
	b->job[lane] = (uint16_t)j;
}

/* Pass 1: block 0 of every job's keystream gives its r and s (RFC 8439 2.6). */
static void
pass_otk(struct burst *b, const struct chacha_impl *im, const uint16_t *list,
	 unsigned int n)
{
	for (unsigned int j0 = 0; j0 < n; j0 += im->lanes) {
		unsigned int k = n - j0 < im->lanes ? n - j0 : im->lanes;

		b->cl.active = 0;
		for (unsigned int i = 0; i < k; i++) {
			lane_key(b, i, list[j0 + i], 0);
			b->cl.in[i] = zero_block;
			b->cl.out[i] = b->stage[i];
			b->cl.blocks_left[i] = 1;
			b->cl.active |= UINT32_C(1) << i;
		}
		im->xor_lanes(&b->cl, 1);
		for (unsigned int i = 0; i < k; i++)
			take_otk(&b->ctx[list[j0 + i]], b->stage[i]);
	}
}

/*
 * The next piece of a lane's job: whole blocks in place, or one staged
 * block. False when the job has no bytes left.
 */
static bool
chacha_chunk(struct burst *b, unsigned int i)
{
	struct chacha_lane *s = &b->cs[i];
	struct job_cursor pi, po;
	size_t ni, no, n, k = 0;
	uint8_t *in, *out, *p;

	if (s->lin) {
		n = s->len - s->off;
		if (n == 0)
			return false;
		if (n >= CHACHA_BLOCK_LEN) {
			n -= n % CHACHA_BLOCK_LEN;
			b->cl.in[i] = s->lin_in + s->off;
			b->cl.out[i] = s->lin_out + s->off;
			b->cl.blocks_left[i] = (uint32_t)(n / CHACHA_BLOCK_LEN);
			s->off += n;
			return true;
		}
		memcpy(b->stage[i], s->lin_in + s->off, n);
		b->cl.in[i] = b->stage[i];
		b->cl.out[i] = b->stage[i];
		b->cl.blocks_left[i] = 1;
		s->staged = (uint32_t)n;
		return true;
	}
	pi = s->ci;
	po = s->co;
	in = vecsec_job_cursor_next(&pi, 0, &ni);
	if (in == NULL)
		return false;
	out = vecsec_job_cursor_next(&po, 0, &no);
	n = ni < no ? ni : no;
	if (n >= CHACHA_BLOCK_LEN) {
		n -= n % CHACHA_BLOCK_LEN;
		vecsec_job_cursor_next(&s->ci, n, &ni);
		vecsec_job_cursor_next(&s->co, n, &no);
		b->cl.in[i] = in;
		b->cl.out[i] = out;
		b->cl.blocks_left[i] = (uint32_t)(n / CHACHA_BLOCK_LEN);
		s->staged = 0;
		return true;
	}
	while (k < CHACHA_BLOCK_LEN &&
	       (p = vecsec_job_cursor_next(&s->ci, CHACHA_BLOCK_LEN - k, &n)) != NULL) {
		memcpy(b->stage[i] + k, p, n);
		k += n;
	}
	b->cl.in[i] = b->stage[i];
	b->cl.out[i] = b->stage[i];
	b->cl.blocks_left[i] = 1;
	s->staged = (uint32_t)k;
	return true;
}

static void
chacha_unstage(struct burst *b, unsigned int i)
{
	struct chacha_lane *s = &b->cs[i];
	size_t k = 0, n;
	uint8_t *p;

	if (s->lin) {
		memcpy(s->lin_out + s->off, b->stage[i], s->staged);
		s->off += s->staged;
		s->staged = 0;
		return;
	}
	while (k < s->staged && (p = vecsec_job_cursor_next(&s->co, s->staged - k, &n)) != NULL) {
		memcpy(p, b->stage[i] + k, n);
		k += n;
	}
	s->staged = 0;
}

/* Start the next piece in lane i; false when none is left. */
static bool
chacha_refill(struct burst *b, unsigned int i)
{
	while (b->next < b->npieces) {
		const struct piece *pc = &b->pieces[b->next++];
		const struct vecsec_aead_job *job = b->jobs[pc->job];
		struct chacha_lane *s = &b->cs[i];

		s->staged = 0;
		s->lin = job->nb_in_segs == 0 && job->nb_out_segs == 0;
		if (s->lin) {
			size_t end = ((size_t)pc->first + pc->count) * CHACHA_BLOCK_LEN;

			s->lin_in = job->in;
			s->lin_out = job->out;
			s->off = (size_t)pc->first * CHACHA_BLOCK_LEN;
			s->len = pc->count == 0 || end > job->len ? job->len : end;
		} else {
			vecsec_job_cursor_in(&s->ci, job);
			vecsec_job_cursor_out(&s->co, job);
		}
		if (chacha_chunk(b, i)) {
			/* RFC 8439 2.8: the data starts at block counter 1 */
			lane_key(b, i, pc->job, 1 + pc->first);
			return true;
		}
	}
	return false;
}

/* The scheduler's calls (lib/lanes): the ChaCha lane kernel, ... */
static void
chacha_run(void *ctx, uint32_t nblocks)
{
	struct burst *b = ctx;

	b->ci->xor_lanes(&b->cl, nblocks);
}

/* ... and a lane that ran out (ran) or is free: the rest of its piece, or the next. */
static bool
chacha_next(void *ctx, unsigned int i, bool ran)
{
	struct burst *b = ctx;

	if (ran) {
		if (b->cs[i].staged != 0)
			chacha_unstage(b, i);
		if (chacha_chunk(b, i))
			return true;
	}
	return chacha_refill(b, i);
}

static uint32_t
job_blocks(const struct vecsec_aead_job *job)
{
	return (uint32_t)((job->len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN);
}

/*
 * Cut the listed jobs into pieces for the lanes. Each lane has its own
 * counter, so a long linear job can run as several pieces in several lanes
 * at once (blocks first .. first + count - 1 of its data); pieces of at
 * least total / lanes blocks keep every lane busy to the end instead of
 * leaving one long job running alone. Scatter-gather jobs stay whole.
 * At most n + lanes pieces; longest first (lib/lanes' order).
 */
static void
make_pieces(struct burst *b, const uint16_t *list, unsigned int n, unsigned int lanes)
{
	uint64_t total = 0;
	uint32_t size, weight[NB_PIECES];
	uint16_t order[NB_PIECES];
	struct piece tmp[NB_PIECES];
	unsigned int np = 0;

	for (unsigned int k = 0; k < n; k++)
		total += job_blocks(b->jobs[list[k]]);
	size = (uint32_t)((total + lanes - 1) / lanes);
	if (size < 8)
		size = 8;
	for (unsigned int k = 0; k < n; k++) {
		const struct vecsec_aead_job *job = b->jobs[list[k]];
		uint32_t nb = job_blocks(job), first = 0;

		if (job->nb_in_segs != 0 || job->nb_out_segs != 0 || nb <= size) {
			weight[np] = nb;
			tmp[np++] = (struct piece){ .job = list[k], .first = 0, .count = 0 };
			continue;
		}
		for (; first < nb; first += size) {
			weight[np] = nb - first < size ? nb - first : size;
			tmp[np++] = (struct piece){ .job = list[k], .first = first,
						    .count = size };
		}
	}
	for (unsigned int k = 0; k < np; k++)
		order[k] = (uint16_t)k;
	vecsec_lanes_order(order, weight, np);
	for (unsigned int k = 0; k < np; k++)
		b->pieces[k] = tmp[order[k]];
	b->npieces = np;
}

/* Passes 2 and 4: ChaCha20 from counter 1 over the listed jobs' data. */
static void
pass_chacha(struct burst *b, const uint16_t *list, unsigned int n)
{
	const struct lanes_sched sched = {
		.lanes = b->ci->lanes, .active = &b->cl.active, .blocks_left = b->cl.blocks_left,
		.run = chacha_run, .refill = chacha_next, .ctx = b,
	};

	if (n == 0)
		return;
	make_pieces(b, list, n, b->ci->lanes);
	b->next = 0;
	b->cl.active = 0;
	vecsec_lanes_schedule(&sched);
}

/*
 * The next Poly1305 piece of lane i's job (RFC 8439 2.8): AAD, zeros to a
 * multiple of 16, ciphertext, zeros likewise, vecsec_load_le64(aad_len) || vecsec_load_le64(len).
 * Whole blocks in place; short pieces padded in the stage (padding a short
 * piece with zeros to 16 bytes is exactly pad16). False when done.
 */
static bool
poly_chunk(struct burst *b, unsigned int i)
{
	struct poly_lane *s = &b->ps[i];
	const struct vecsec_aead_job *job = b->jobs[b->job[i]];
	uint8_t *st = b->stage[i];
	size_t n, k = 0;
	uint8_t *p;

	switch (s->phase) {
	case PH_AAD:
		n = job->aad_len - s->aad_off;
		if (n >= POLY1305_BLOCK_LEN) {
			n -= n % POLY1305_BLOCK_LEN;
			b->pl.in[i] = job->aad + s->aad_off;
			b->pl.blocks_left[i] = (uint32_t)(n / POLY1305_BLOCK_LEN);
			s->aad_off += n;
			return true;
		}
		s->phase = PH_TEXT;
		if (n > 0) {
			memcpy(st, job->aad + s->aad_off, n);
			memset(st + n, 0, POLY1305_BLOCK_LEN - n);
			b->pl.in[i] = st;
			b->pl.blocks_left[i] = 1;
			return true;
		}
		/* fall through */
	case PH_TEXT: {
		struct job_cursor pc = s->c;

		if (s->lin != NULL) {
			n = s->len - s->off;
			if (n >= POLY1305_BLOCK_LEN) {
				n -= n % POLY1305_BLOCK_LEN;
				b->pl.in[i] = s->lin + s->off;
				b->pl.blocks_left[i] = (uint32_t)(n / POLY1305_BLOCK_LEN);
				s->off += n;
				return true;
			}
			s->phase = PH_LENS;
			if (n > 0) {
				memcpy(st, s->lin + s->off, n);
				memset(st + n, 0, POLY1305_BLOCK_LEN - n);
				s->off += n;
				b->pl.in[i] = st;
				b->pl.blocks_left[i] = 1;
				return true;
			}
			goto lens;
		}
		p = vecsec_job_cursor_next(&pc, 0, &n);
		if (p != NULL && n >= POLY1305_BLOCK_LEN) {
			n -= n % POLY1305_BLOCK_LEN;
			vecsec_job_cursor_next(&s->c, n, &n);
			b->pl.in[i] = p;
			b->pl.blocks_left[i] = (uint32_t)(n / POLY1305_BLOCK_LEN);
			return true;
		}
		while (k < POLY1305_BLOCK_LEN &&
		       (p = vecsec_job_cursor_next(&s->c, POLY1305_BLOCK_LEN - k, &n)) != NULL) {
			memcpy(st + k, p, n);
			k += n;
		}
		if (k > 0) {
			memset(st + k, 0, POLY1305_BLOCK_LEN - k);
			b->pl.in[i] = st;
			b->pl.blocks_left[i] = 1;
			return true;
		}
		s->phase = PH_LENS;
	}
		/* fall through */
	case PH_LENS:
lens:
		vecsec_chachapoly_lengths(st, job->aad_len, job->len);
		b->pl.in[i] = st;
		b->pl.blocks_left[i] = 1;
		s->phase = PH_DONE;
		return true;
	default:
		return false;
	}
}

/* Start the next listed job in lane i; false when none is left. */
static bool
poly_refill(struct burst *b, unsigned int i)
{
	unsigned int j;
	const struct vecsec_aead_job *job;

	if (b->next >= b->nlist)
		return false;
	j = b->list[b->next++];
	job = b->jobs[j];
	b->job[i] = (uint16_t)j;
	b->ps[i].phase = PH_AAD;
	b->ps[i].aad_off = 0;
	/* the ciphertext: what seal wrote, what open received */
	b->ps[i].lin = NULL;
	if (job->dir == VECSEC_AEAD_SEAL) {
		if (job->nb_out_segs == 0)
			b->ps[i].lin = job->out;
		else
			vecsec_job_cursor_out(&b->ps[i].c, job);
	} else {
		if (job->nb_in_segs == 0)
			b->ps[i].lin = job->in;
		else
			vecsec_job_cursor_in(&b->ps[i].c, job);
	}
	b->ps[i].off = 0;
	b->ps[i].len = job->len;
	if (job->len == 0)
		b->ps[i].lin = zero_block;     /* nothing to read either way */
	for (int k = 0; k < 3; k++) {
		b->pl.h[k][i] = 0;
		b->pl.r[k][i] = b->ctx[j].r[k];
	}
	poly_chunk(b, i);          /* always has the lengths block */
	return true;
}

/* The scheduler's calls (lib/lanes): the Poly1305 lane kernel, ... */
static void
poly_run(void *ctx, uint32_t nblocks)
{
	struct burst *b = ctx;

	b->pk->blocks_lanes(&b->pl, nblocks);
}

/* ... and a lane that ran out (ran) or is free: the rest of its job, or the next. */
static bool
poly_next(void *ctx, unsigned int i, bool ran)
{
	struct burst *b = ctx;

	if (ran) {
		if (poly_chunk(b, i))
			return true;
		for (int k = 0; k < 3; k++)
			b->ctx[b->job[i]].h[k] = b->pl.h[k][i];
	}
	return poly_refill(b, i);
}

/* Pass 3: every listed job's Poly1305 accumulator into ctx[].h, in pk's lanes. */
static void
pass_poly(struct burst *b, const struct poly1305_impl *pk, const uint16_t *list,
	  unsigned int n)
{
	const struct lanes_sched sched = {
		.lanes = pk->lanes, .active = &b->pl.active, .blocks_left = b->pl.blocks_left,
		.run = poly_run, .refill = poly_next, .ctx = b,
	};

	b->pk = pk;
	b->list = list;
	b->nlist = n;
	b->next = 0;
	b->pl.active = 0;
	vecsec_lanes_schedule(&sched);
}

/*
 * HChaCha20 subkeys of the listed XChaCha jobs (vecsec_xchacha_subkeys, in
 * the lanes of ci), a lane width's worth at a time, into their ctx key words.
 */
static void
xchacha_subkeys(struct burst *b, const struct chacha_impl *ci, const uint16_t *list,
		unsigned int n)
{
	uint32_t key[VECSEC_MAX_LANES][8];
	const uint8_t *nonce[VECSEC_MAX_LANES];

	for (unsigned int j0 = 0; j0 < n; j0 += VECSEC_MAX_LANES) {
		unsigned int k = n - j0 < VECSEC_MAX_LANES ? n - j0 : VECSEC_MAX_LANES;

		for (unsigned int i = 0; i < k; i++) {
			memcpy(key[i], b->ctx[list[j0 + i]].key, sizeof(key[i]));
			nonce[i] = b->jobs[list[j0 + i]]->nonce;
		}
		vecsec_xchacha_subkeys(key, nonce, k, ci);
		for (unsigned int i = 0; i < k; i++)
			memcpy(b->ctx[list[j0 + i]].key, key[i], sizeof(key[i]));
	}
	vecsec_memzero(key, sizeof(key));
}

static void
run_one_by_one(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct vecsec_aead_job *job = jobs[i];

		job->status = vecsec_job_status(job->key->alg == VECSEC_AEAD_CHACHA20_POLY1305 ?
						vecsec_chachapoly_run(level, job) :
						vecsec_xchachapoly_run(level, job));
	}
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

static bool
fast_ok(const struct vecsec_aead_job *job, size_t max)
{
	return job->nb_in_segs == 0 && job->nb_out_segs == 0 && job->len <= max &&
	       job->aad_len <= FAST_AAD;
}

static size_t
pad16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/* Run the active lanes of the ChaCha or Poly1305 struct until all are done. */
static void
drain_chacha(struct burst *b)
{
	const struct lanes_sched sched = {
		.lanes = b->ci->lanes, .active = &b->cl.active, .blocks_left = b->cl.blocks_left,
		.run = chacha_run, .ctx = b,
	};

	vecsec_lanes_schedule(&sched);
}

static void
drain_poly(struct burst *b, const struct poly1305_impl *pk)
{
	const struct lanes_sched sched = {
		.lanes = pk->lanes, .active = &b->pl.active, .blocks_left = b->pl.blocks_left,
		.run = poly_run, .ctx = b,
	};

	b->pk = pk;
	vecsec_lanes_schedule(&sched);
}

/*
 * Poly1305 over the staged inputs (c->in, c->blocks) of k jobs, pi->lanes at
 * a time. With tags_lanes the tags are finished in the lanes: seal's into
 * job->tag, open's into calc[i] (calc NULL: every job is a seal); without,
 * each job's accumulator is left in its ctx for vecsec_poly1305_tag().
 */
static void
mac_staged(struct burst *b, const struct poly1305_impl *pi, const uint16_t *list,
	   unsigned int k, uint8_t (*calc)[POLY1305_TAG_LEN])
{
	for (unsigned int g = 0; g < k; g += pi->lanes) {
		unsigned int kk = k - g < pi->lanes ? k - g : pi->lanes;

		b->pl.active = 0;
		for (unsigned int i = 0; i < kk; i++) {
			const struct job_ctx *c = &b->ctx[list[g + i]];

			for (int w = 0; w < 3; w++) {
				b->pl.h[w][i] = 0;
				b->pl.r[w][i] = c->r[w];
			}
			b->pl.in[i] = c->in;
			b->pl.blocks_left[i] = c->blocks;
			b->pl.active |= UINT32_C(1) << i;
		}
		drain_poly(b, pi);
		if (pi->tags_lanes != NULL) {
			uint64_t s[2][VECSEC_MAX_LANES];
			uint8_t *tp[VECSEC_MAX_LANES];

			for (unsigned int i = 0; i < kk; i++) {
				struct vecsec_aead_job *job = b->jobs[list[g + i]];

				s[0][i] = vecsec_load_le64(b->ctx[list[g + i]].s);
				s[1][i] = vecsec_load_le64(b->ctx[list[g + i]].s + 8);
				tp[i] = calc == NULL || job->dir == VECSEC_AEAD_SEAL ? job->tag :
									       calc[g + i];
			}
			b->pl.active = (UINT32_C(1) << kk) - 1;
			pi->tags_lanes(&b->pl, s, tp);
			b->pl.active = 0;
			vecsec_memzero(s, sizeof(s));
			continue;
		}
		for (unsigned int i = 0; i < kk; i++)
			for (int w = 0; w < 3; w++)
				b->ctx[list[g + i]].h[w] = b->pl.h[w][i];
	}
}

/*
 * The staged path: up to one ChaCha width of small linear jobs, each copied
 * into its lane's buffer behind a zero block. Seal: one kernel run gives
 * block 0 (the Poly1305 key) and the ciphertext together (counter 0 ..).
 * Open: a run of block 0 alone first. Either way the Poly1305 input is then
 * laid out contiguously around the ciphertext in the buffer (padded AAD in
 * the block-0 slot just before it, once r and s are out; zeros and the
 * lengths after), so each lane needs one Poly1305 run. Open decrypts in the
 * lane's buffer only the jobs whose tag matched (vecsec_ct_eq), and copies
 * plaintext out only then; a failed job's output is zeroed.
 */
static void
fast_group(struct burst *b, const struct chacha_impl *ci,
	   const struct poly1305_impl *pi, const uint16_t *list, unsigned int k)
{
	uint32_t verified = 0, bytes[VECSEC_MAX_LANES];
	uint8_t calc[VECSEC_MAX_LANES][POLY1305_TAG_LEN];      /* open: computed tags */

	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		uint8_t *buf = b->buf[i];

		lane_key(b, i, list[i], 0);
		zero_small(buf, CHACHA_BLOCK_LEN);
		copy_small(buf + CHACHA_BLOCK_LEN, job->in, job->len);
		b->cl.in[i] = buf;
		b->cl.out[i] = buf;
		b->cl.blocks_left[i] = 1 + (job->dir == VECSEC_AEAD_SEAL ? job_blocks(job) : 0);
		b->cl.active |= UINT32_C(1) << i;
	}
	drain_chacha(b);

	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		struct job_ctx *c = &b->ctx[list[i]];
		uint8_t *buf = b->buf[i];
		size_t a16 = pad16(job->aad_len), l16 = pad16(job->len);
		uint8_t *p = buf + CHACHA_BLOCK_LEN - a16;

		take_otk(c, buf);
		if (job->dir == VECSEC_AEAD_SEAL)
			copy_small(job->out, buf + CHACHA_BLOCK_LEN, job->len);
		/* RFC 8439 2.8: AAD || pad16 || ciphertext || pad16 || lengths */
		if (a16 > 0)
			mv16(p + a16 - 16, zero_block);
		copy_small(p, job->aad, job->aad_len);
		zero_small(buf + CHACHA_BLOCK_LEN + job->len, l16 - job->len);
		vecsec_chachapoly_lengths(p + a16 + l16, job->aad_len, job->len);
		c->in = p;
		c->blocks = (uint32_t)((a16 + l16) / POLY1305_BLOCK_LEN + 1);
	}

	mac_staged(b, pi, list, k, calc);

	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		struct vecsec_aead_job *job = b->jobs[list[i]];
		struct job_ctx *c = &b->ctx[list[i]];
		uint8_t tag[POLY1305_TAG_LEN];

		if (job->dir == VECSEC_AEAD_SEAL) {
			if (pi->tags_lanes == NULL)
				vecsec_poly1305_tag(job->tag, c->h, c->s);
			job->status = VECSEC_JOB_OK;
			continue;
		}
		if (pi->tags_lanes == NULL)
			vecsec_poly1305_tag(tag, c->h, c->s);
		else
			memcpy(tag, calc[i], sizeof(tag));
		job->status = vecsec_job_status(vecsec_chachapoly_verify(job, tag));
		if (job->status == VECSEC_JOB_OK) {
			/*
			 * Counter 1 on, the lane's key still loaded: straight from
			 * job->in to job->out with a byte-exact kernel (the tag
			 * matched), else in place in the buffer and copied out below.
			 */
			b->cl.ctr[i] = 1;
			b->cl.in[i] = b->buf[i] + CHACHA_BLOCK_LEN;
			b->cl.out[i] = b->buf[i] + CHACHA_BLOCK_LEN;
			b->cl.blocks_left[i] = job_blocks(job);
			if (ci->xor_lanes_bytes != NULL) {
				b->cl.in[i] = job->in;
				b->cl.out[i] = job->out;
				bytes[i] = (uint32_t)job->len;
			}
			if (b->cl.blocks_left[i] > 0)
				b->cl.active |= UINT32_C(1) << i;
			verified |= UINT32_C(1) << i;
		}
	}
	if (ci->xor_lanes_bytes != NULL) {
		if (b->cl.active != 0)
			ci->xor_lanes_bytes(&b->cl, bytes, NULL);
		verified = 0;           /* nothing left to copy out */
		b->cl.active = 0;
	}
	drain_chacha(b);

	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		/* what the kernel and the layout wrote: whole blocks, pad, lengths */
		size_t used = CHACHA_BLOCK_LEN * (1 + (size_t)job_blocks(job)) + 32;

		/*
		 * Secret: block 0 (the Poly1305 key), the keystream past the data
		 * and (open) the plaintext; one wipe of all (a seal's ciphertext
		 * between is public, but one call costs less than two). With a
		 * byte-exact kernel only open jobs come here and never decrypt in
		 * the buffer: block 0 is all there is to wipe.
		 */
		if (ci->xor_lanes_bytes != NULL)
			used = CHACHA_BLOCK_LEN;
		if (job->dir == VECSEC_AEAD_OPEN && ((verified >> i) & 1))
			copy_small(job->out, b->buf[i] + CHACHA_BLOCK_LEN, job->len);
		vecsec_memzero(b->buf[i], used);
	}
	vecsec_memzero(calc, sizeof(calc));
}

/*
 * Seal with a byte-exact ChaCha kernel (xor_lanes_bytes): one kernel call
 * gives block 0 (into the lane's buffer) and the ciphertext straight from
 * job->in to job->out, partial last blocks by masked loads and stores; the
 * plaintext is never staged. The Poly1305 input is then laid out in the
 * buffer as on the staged path (padded AAD, a copy of the ciphertext, pad,
 * lengths), so each lane needs one Poly1305 run. Measured (the lanes tool,
 * now vecsec-bench --lanes; minimum of 61 samples): absorbing the ciphertext in place from job->out
 * instead, in three runs (AAD, whole blocks, last block and lengths), was
 * slower at both 64 and 256 bytes than the copy back.
 */
static void
fast_seal_direct(struct burst *b, const struct chacha_impl *ci,
		 const struct poly1305_impl *pi, const uint16_t *list, unsigned int k)
{
	uint32_t bytes[VECSEC_MAX_LANES];
	uint8_t *ks0[VECSEC_MAX_LANES];

	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];

		lane_key(b, i, list[i], 0);
		b->cl.in[i] = job->in;
		b->cl.out[i] = job->out;
		bytes[i] = (uint32_t)job->len;
		ks0[i] = b->buf[i];
		b->cl.active |= UINT32_C(1) << i;
	}
	ci->xor_lanes_bytes(&b->cl, bytes, ks0);

	/* RFC 8439 2.8: AAD || pad16 || ciphertext || pad16 || lengths */
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		struct job_ctx *c = &b->ctx[list[i]];
		uint8_t *buf = b->buf[i];
		size_t a16 = pad16(job->aad_len), l16 = pad16(job->len);
		uint8_t *p = buf + CHACHA_BLOCK_LEN - a16;

		take_otk(c, buf);
		if (a16 > 0)
			mv16(p + a16 - 16, zero_block);
		copy_small(p, job->aad, job->aad_len);
		copy_small(buf + CHACHA_BLOCK_LEN, job->out, job->len);
		zero_small(buf + CHACHA_BLOCK_LEN + job->len, l16 - job->len);
		vecsec_chachapoly_lengths(p + a16 + l16, job->aad_len, job->len);
		c->in = p;
		c->blocks = (uint32_t)((a16 + l16) / POLY1305_BLOCK_LEN + 1);
	}
	mac_staged(b, pi, list, k, NULL);

	for (unsigned int i = 0; i < k; i++) {
		struct vecsec_aead_job *job = b->jobs[list[i]];
		struct job_ctx *c = &b->ctx[list[i]];

		if (pi->tags_lanes == NULL)
			vecsec_poly1305_tag(job->tag, c->h, c->s);
		job->status = VECSEC_JOB_OK;
		/* the buffer's secret: what is left of block 0 (the Poly1305 key) */
		vecsec_memzero(b->buf[i], CHACHA_BLOCK_LEN);
	}
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
static const struct poly1305_impl *
general_poly(const struct lane_set *ls, const struct poly1305_impl *pi)
{
	if (pi->lanes <= 8 || atomic_load_explicit(&force_poly, memory_order_relaxed) >= 0)
		return pi;
	for (unsigned int i = 0; i < ls->np; i++)
		if (ls->poly_w[i] == 8)
			return ls->poly[i];
	return pi;
}

/* Accepted jobs (lanes_take) in the lanes; sets every job's status. */
static void
lanes_run(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	const struct lane_set *ls;
	const struct chacha_impl *ci;
	const struct poly1305_impl *pi;
	struct job_ctx ctx[VECSEC_MAX_BURST];
	uint16_t seal[VECSEC_MAX_BURST], open[VECSEC_MAX_BURST], all[VECSEC_MAX_BURST];
	uint16_t fast[VECSEC_MAX_BURST], xjobs[VECSEC_MAX_BURST];
	uint32_t weight[VECSEC_MAX_BURST];
	unsigned int ns = 0, no = 0, nf = 0, ng = 0, nx = 0;
	size_t smax;
	struct burst b;

	if (n == 0)
		return;
	ls = lanes_at(level);
	ci = pick_chacha(ls, n);
	if (ci == NULL) {
		run_one_by_one(level, jobs, n);
		return;
	}
	pi = pick_poly(ls, n);

	b.jobs = jobs;
	b.ctx = ctx;
	b.ci = ci;
	b.cl.rounds = 20;
	smax = vecsec_lanes_staged_max();
	for (unsigned int j = 0; j < n; j++) {
		/* the order lanes start jobs in: longest first (lengths are public) */
		weight[j] = (uint32_t)(jobs[j]->len / CHACHA_BLOCK_LEN);
		if (vecsec_chachapoly_words(jobs[j], ctx[j].key, ctx[j].nonce))
			xjobs[nx++] = (uint16_t)j;
		if (fast_ok(jobs[j], smax))
			fast[nf++] = (uint16_t)j;
		else
			all[ng++] = (uint16_t)j;
	}

	if (nx > 0)
		xchacha_subkeys(&b, ci, xjobs, nx);

	/*
	 * small linear jobs: a ChaCha width at a time, similar lengths
	 * together; seal in place where the kernel is byte-exact, else staged
	 */
	vecsec_lanes_order(fast, weight, nf);
	if (ci->xor_lanes_bytes != NULL) {
		unsigned int nd = 0, nst = 0;

		for (unsigned int j = 0; j < nf; j++) {
			if (jobs[fast[j]]->dir == VECSEC_AEAD_SEAL)
				fast[nd++] = fast[j];
			else
				open[nst++] = fast[j];
		}
		for (unsigned int g = 0; g < nd; g += ci->lanes)
			fast_seal_direct(&b, ci, pi, fast + g,
					 nd - g < ci->lanes ? nd - g : ci->lanes);
		memcpy(fast, open, nst * sizeof(fast[0]));
		nf = nst;
	}
	for (unsigned int g = 0; g < nf; g += ci->lanes)
		fast_group(&b, ci, pi, fast + g, nf - g < ci->lanes ? nf - g : ci->lanes);

	/* the rest: the four passes */
	vecsec_lanes_order(all, weight, ng);
	for (unsigned int j = 0; j < ng; j++)
		if (jobs[all[j]]->dir == VECSEC_AEAD_SEAL)
			seal[ns++] = all[j];
	if (ng == 0)
		goto out;
	pass_otk(&b, ci, all, ng);
	pass_chacha(&b, seal, ns);
	pass_poly(&b, general_poly(ls, pi), all, ng);

	for (unsigned int k = 0; k < ng; k++) {
		unsigned int j = all[k];
		struct vecsec_aead_job *job = jobs[j];
		uint8_t tag[POLY1305_TAG_LEN];

		if (job->dir == VECSEC_AEAD_SEAL) {
			vecsec_poly1305_tag(job->tag, ctx[j].h, ctx[j].s);
			job->status = VECSEC_JOB_OK;
			continue;
		}
		vecsec_poly1305_tag(tag, ctx[j].h, ctx[j].s);
		job->status = vecsec_job_status(vecsec_chachapoly_verify(job, tag));
		if (job->status == VECSEC_JOB_OK)
			open[no++] = (uint16_t)j;
	}
	pass_chacha(&b, open, no);
out:
	vecsec_memzero(ctx, n * sizeof(ctx[0]));
	vecsec_memzero(&b.cl, sizeof(b.cl));
	vecsec_memzero(&b.pl, sizeof(b.pl));
	vecsec_memzero(b.stage, sizeof(b.stage));
}

void
vecsec_chachapoly_burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs,
			unsigned int n)
{
	struct vecsec_aead_job *lane_jobs[VECSEC_MAX_BURST];
	size_t crossover = crossover_at(level);
	unsigned int nl = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (lanes_take(jobs[i], crossover))
			lane_jobs[nl++] = jobs[i];
		else
			run_one_by_one(level, jobs + i, 1);
	}
	lanes_run(level, lane_jobs, nl);
}
