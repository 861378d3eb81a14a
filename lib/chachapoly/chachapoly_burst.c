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
 * This file: the four passes, lanes_run() and the entry point. Small
 * linear jobs (<= FAST_MAX bytes, AAD <= 64) take the staged path instead,
 * a ChaCha width of them at a time (chachapoly_staged.h); longer linear
 * ones, where a byte-exact ChaCha lane kernel exists and a group of them
 * fills the lanes, the direct path (chachapoly_direct.h); the lane widths,
 * the crossover and the test knobs are chachapoly_lanes.c's; the types
 * and the per-job inline helpers the three share, chachapoly_burst.h.
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
 * a ChaCha block that straddles segments, or the short last block, goes
 * through the lane's 64-byte stage buffer: gathered, run as one block,
 * scattered back. Poly1305's short or straddling blocks (AAD, last
 * ciphertext block) and the lengths block are absorbed between kernel
 * calls by the scalar reference (poly_absorb1), so that a lane's kernel
 * run ends once per job.
 *
 * No allocation: the per-job context (VECSEC_MAX_BURST entries) and the
 * per-lane buffers (VECSEC_MAX_LANES) live on the stack, about 55 KiB in
 * all; keys, keystream and plaintext in them are wiped before return.
 * The jobs are interleaved, so a job's output (data or tag) must not
 * overlap another job's input, AAD, tag or output (the burst contract:
 * independent jobs); sharing read-only inputs (a nonce, an AAD) is fine.
 */
#include <string.h>

#include "chachapoly_burst.h"
#include "chachapoly_knobs.h"
#include "chachapoly_staged.h"
#include "chachapoly_direct.h"

/* ---- the four passes ---- */

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
 * One block (a short piece padded with zeros: exactly pad16) into lane i's
 * accumulator with the scalar reference, between kernel calls. The AAD's
 * short block, the ciphertext's short last block and the lengths block
 * are absorbed so: only the runs of whole blocks go through the lane
 * kernel, so a lane's run ends once per job, not three or four times, and
 * the kernel calls (each as long as the shortest run among the lanes)
 * stay long. Measured on AVX2 (AMD Zen 3, TSC cycles): a call of the
 * 4-lane kernel costs about 150 for one block per lane, a scalar block
 * about 45; so lanes in step (a burst of equal lengths) pay about the
 * same either way, and lanes out of step (IMIX) no longer cut each
 * other's runs into one-block calls.
 */
static void
poly_absorb1(struct burst *b, unsigned int i, const uint8_t *block)
{
	struct poly1305_state *st = &b->pst;

	for (int k = 0; k < 3; k++) {
		st->h[k] = b->pl.h[k][i];
		st->r[k] = b->pl.r[k][i];
	}
	vecsec_poly1305_blocks_ref(st, block, 1, 1);
	for (int k = 0; k < 3; k++)
		b->pl.h[k][i] = st->h[k];
}

/* n < 16 bytes at p, padded with zeros, absorbed (poly_absorb1) */
static void
poly_absorb_short(struct burst *b, unsigned int i, const uint8_t *p, size_t n)
{
	uint8_t *st = b->stage[i];

	memcpy(st, p, n);
	memset(st + n, 0, POLY1305_BLOCK_LEN - n);
	poly_absorb1(b, i, st);
}

/*
 * The next run of whole Poly1305 blocks of lane i's job (RFC 8439 2.8):
 * AAD, zeros to a multiple of 16, ciphertext, zeros likewise,
 * le64(aad_len) || le64(len). Whole blocks in place (true: the kernel's
 * next run); short pieces, blocks that straddle segments and the lengths
 * block are absorbed here (poly_absorb1). False when the job is done.
 */
static bool
poly_chunk(struct burst *b, unsigned int i)
{
	struct poly_lane *s = &b->ps[i];
	const struct vecsec_aead_job *job = b->jobs[b->job[i]];
	uint8_t *st = b->stage[i];
	size_t n, k;
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
		if (n > 0)
			poly_absorb_short(b, i, job->aad + s->aad_off, n);
		/* fall through */
	case PH_TEXT:
		if (s->lin != NULL) {
			n = s->len - s->off;
			if (n >= POLY1305_BLOCK_LEN) {
				n -= n % POLY1305_BLOCK_LEN;
				b->pl.in[i] = s->lin + s->off;
				b->pl.blocks_left[i] = (uint32_t)(n / POLY1305_BLOCK_LEN);
				s->off += n;
				return true;
			}
			if (n > 0)
				poly_absorb_short(b, i, s->lin + s->off, n);
			s->off += n;
			s->phase = PH_LENS;
			goto lens;
		}
		for (;;) {
			struct job_cursor pc = s->c;

			p = vecsec_job_cursor_next(&pc, 0, &n);
			if (p != NULL && n >= POLY1305_BLOCK_LEN) {
				n -= n % POLY1305_BLOCK_LEN;
				vecsec_job_cursor_next(&s->c, n, &n);
				b->pl.in[i] = p;
				b->pl.blocks_left[i] = (uint32_t)(n / POLY1305_BLOCK_LEN);
				return true;
			}
			/* a block across segments, or the short last one */
			k = 0;
			while (k < POLY1305_BLOCK_LEN &&
			       (p = vecsec_job_cursor_next(&s->c, POLY1305_BLOCK_LEN - k, &n)) !=
			       NULL) {
				memcpy(st + k, p, n);
				k += n;
			}
			if (k == 0)
				break;
			memset(st + k, 0, POLY1305_BLOCK_LEN - k);
			poly_absorb1(b, i, st);
		}
		s->phase = PH_LENS;
		/* fall through */
	case PH_LENS:
lens:
		vecsec_chachapoly_lengths(st, job->aad_len, job->len);
		poly_absorb1(b, i, st);
		s->phase = PH_DONE;
		/* fall through */
	default:
		return false;
	}
}

/* Lane i's job is done: its accumulator to its context. */
static void
poly_retire(struct burst *b, unsigned int i)
{
	for (int k = 0; k < 3; k++)
		b->ctx[b->job[i]].h[k] = b->pl.h[k][i];
}

/*
 * Start the next listed job in lane i (one with whole blocks for the
 * kernel; jobs without are finished here); false when none is left.
 */
static bool
poly_refill(struct burst *b, unsigned int i)
{
	while (b->next < b->nlist) {
		unsigned int j = b->list[b->next++];
		const struct vecsec_aead_job *job = b->jobs[j];

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
		if (poly_chunk(b, i))
			return true;
		poly_retire(b, i);
	}
	return false;
}

/* ... and a lane that ran out (ran) or is free: the rest of its job, or the next. */
static bool
poly_next(void *ctx, unsigned int i, bool ran)
{
	struct burst *b = ctx;

	if (ran) {
		if (poly_chunk(b, i))
			return true;
		poly_retire(b, i);
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
 * the lanes of ci), a lane width's worth at a time, into their key words (b->xw).
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
			memcpy(key[i], b->xw[list[j0 + i]].key, sizeof(key[i]));
			nonce[i] = b->jobs[list[j0 + i]]->nonce;
		}
		vecsec_xchacha_subkeys(key, nonce, k, ci);
		for (unsigned int i = 0; i < k; i++)
			memcpy(b->xw[list[j0 + i]].key, key[i], sizeof(key[i]));
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

/* ---- the burst ---- */

/*
 * Jobs past the staged path's limit (up to b->fused_max: the CPU's tuning)
 * join the fused kernel's groups (16 lanes at AVX-512, 8 at AVX2) only
 * where they keep its lanes busy: a group steps every lane as long as its
 * longest job (ChaCha20 and Poly1305 both), so a few long jobs beside many
 * short ones waste most of it, while the direct path cuts long jobs into pieces over free lanes. A
 * group is busy enough when its jobs' bytes are at least FUSED_BUSY of its
 * longest job's length times the lanes (a partial group's idle lanes count
 * as empty).
 *
 * Zen 4 (model 11h), bursts of 32 seals in place, TSC cycles a message,
 * the long jobs on the direct path / in fused groups, median of 41 rounds
 * alternating the two in one process: busy enough, 10 x 576 B beside
 * 6 x 64 B in a group (exactly 2/3; the bench's IMIX, whose 1500-byte
 * jobs take the single path) 522 / 497; 12 x 564 beside 4 x 52 (77 %, the
 * gateway's IMIX as ESP payloads) 517 / 489; 11 x 576 beside 5 x 64 (72 %)
 * 441 / 361; 32 x 576 605 / 566, 32 x 704 661 / 640, 32 x 768 703 / 684,
 * 32 x 1024 level (956 / 949, past the tuning's 768). Not busy enough: 10
 * x 576 alone (62.5 %) 794 / 815; 8 x 640 beside 8 x 128 (60 %) 342 / 354;
 * 4 x 576 beside 12 x 64 (33 %) 276 / 289 (fused before this rule).
 */
#define FUSED_BUSY_NUM 2
#define FUSED_BUSY_DEN 3

/*
 * Whether a direction's first group with long jobs could be busy enough
 * at all, from counts alone: nl long jobs (each past smax bytes), ns
 * small ones, the longest of them small_most bytes. A group of fewer
 * than lanes long jobs holds at most lanes - nl small ones, and the
 * longest job's length is past smax: an upper bound on its busy share.
 * Most mixes with a few long jobs end here, without the group walk.
 */
static inline bool
fused_long_may(unsigned int nl, unsigned int ns, size_t small_most, size_t smax,
	       unsigned int lanes)
{
	uint64_t room, top;

	if (nl >= lanes)
		return true;
	room = ns < lanes - nl ? ns : lanes - nl;
	top = (uint64_t)nl * (smax + 1) + room * small_most;
	return top * FUSED_BUSY_DEN >= (uint64_t)(smax + 1) * lanes * FUSED_BUSY_NUM;
}

/*
 * For the jobs of one direction (open: VECSEC_AEAD_OPEN or SEAL), in the
 * order their groups are cut (lng[0..nlg): the long jobs, longest first;
 * then fast[0..nf): the small ones, longest first), how many of its long
 * jobs may stay: those before the first group that starts with a long job
 * and is not busy enough.
 */
static unsigned int
fused_long_keep(struct vecsec_aead_job *const *jobs, const uint16_t *lng, unsigned int nlg,
		const uint16_t *fast, unsigned int nf, uint32_t open, unsigned int lanes)
{
	unsigned int in = 0, nl0 = 0, nl = 0;
	uint64_t sum = 0, most = 0;

	for (unsigned int j = 0; j < nlg + nf; j++) {
		const struct vecsec_aead_job *job = jobs[j < nlg ? lng[j] : fast[j - nlg]];

		if (job->dir != open)
			continue;
		if (in == 0) {
			/* the groups before were busy enough; none from here has a long job */
			if (j >= nlg)
				return nl;
			most = 0;
			sum = 0;
			nl0 = nl;
		}
		/* (the order is by whole blocks: the first is not always the longest) */
		most = job->len > most ? job->len : most;
		sum += job->len;
		nl += j < nlg;
		if (++in == lanes) {
			if (sum * FUSED_BUSY_DEN < most * lanes * FUSED_BUSY_NUM)
				return nl0;
			in = 0;
		}
	}
	return in != 0 && sum * FUSED_BUSY_DEN < most * lanes * FUSED_BUSY_NUM ? nl0 : nl;
}

/*
 * Whether a last group of rest jobs (0 < rest < the lanes) whose first is
 * len bytes runs one by one rather than as a group of the byte-exact
 * kernels (lanes_run(), small_uniform(); the figures at its use in
 * lanes_run()).
 */
static inline bool
last_group_alone(enum vecsec_isa level, unsigned int rest, size_t len)
{
	return rest <= 2 || rest < vecsec_burst_few(level, len);
}

/* b's fused kernels: fused (fused_kernels()'s pick for ls, or NULL) and what goes with it */
static inline void
fused_set(struct burst *b, const struct lane_set *ls, small_kernel_fn fused)
{
	b->fused = fused;
	b->fused8 = fused_narrow(ls, fused);
	b->fused_max = fused_max(fused);
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
	b->fused_rows = fused == vecsec_chachapoly_small_x16_avx512ifma;
#else
	b->fused_rows = false;
#endif
}

/* Accepted jobs (lanes_take) in the lanes; sets every job's status. */
static void
lanes_run(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	const struct lane_set *ls;
	const struct chacha_impl *ci;
	const struct poly1305_impl *pi;
	struct job_ctx ctx[VECSEC_MAX_BURST];
	struct xjob_words xw[VECSEC_MAX_BURST];
	uint16_t seal[VECSEC_MAX_BURST], open[VECSEC_MAX_BURST], all[VECSEC_MAX_BURST];
	uint16_t fast[VECSEC_MAX_BURST], xjobs[VECSEC_MAX_BURST], cand[VECSEC_MAX_BURST];
	uint16_t lng[VECSEC_MAX_BURST];        /* past the staged limit, for the fused kernel */
	uint32_t weight[VECSEC_MAX_BURST];
	unsigned int ns = 0, no = 0, nf = 0, ng = 0, nx = 0, nc = 0;
	/* long jobs for the fused groups (of them opens), small opens, small wide AADs */
	unsigned int nlg = 0, nlo = 0, nfo = 0, wide_aad = 0;
	bool direct, long_fused;
	size_t smax, small_most = 0;
	struct burst b;

	if (n == 0)
		return;
	ls = vecsec_burst_lanes_at(level);
	ci = vecsec_burst_pick_chacha(ls, n);
	if (ci == NULL) {
		run_one_by_one(level, jobs, n);
		return;
	}
	pi = vecsec_burst_pick_poly(ls, n);

	b.jobs = jobs;
	b.ctx = ctx;
	b.xw = xw;
	b.ci = ci;
	b.cl.rounds = 20;
	smax = vecsec_lanes_staged_max();
	direct = ci->xor_lanes_bytes != NULL && vecsec_lanes_direct();
	fused_set(&b, ls, fused_kernels(ci, pi));
	/* (not where a test has lowered the staged path's limit) */
	long_fused = b.fused_max > smax && smax >= SMALL_MAX;
	b.old_staged = false;
	b.keyed = false;
	for (unsigned int j = 0; j < n; j++) {
		/* the order lanes start jobs in: longest first (lengths are public) */
		weight[j] = (uint32_t)(jobs[j]->len / CHACHA_BLOCK_LEN);
		/* ChaCha20 jobs' words come straight from their keys (lane_key()) */
		if (jobs[j]->key->alg != VECSEC_AEAD_CHACHA20_POLY1305) {
			vecsec_chachapoly_words(jobs[j], xw[j].key, xw[j].nonce);
			xjobs[nx++] = (uint16_t)j;
		}
		if (fast_ok(jobs[j], smax)) {
			fast[nf++] = (uint16_t)j;
			wide_aad += jobs[j]->aad_len > SMALL_AAD;
			nfo += jobs[j]->dir == VECSEC_AEAD_OPEN;
			small_most = jobs[j]->len > small_most ? jobs[j]->len : small_most;
		} else if (long_fused && fast_ok(jobs[j], b.fused_max) &&
			   jobs[j]->aad_len <= SMALL_AAD) {
			/* for the fused kernel, if its groups keep busy (below) */
			lng[nlg++] = (uint16_t)j;
			nlo += jobs[j]->dir == VECSEC_AEAD_OPEN;
		} else if (direct && direct_ok(jobs[j]))
			cand[nc++] = (uint16_t)j;
		else
			all[ng++] = (uint16_t)j;
	}

	if (nx > 0)
		xchacha_subkeys(&b, ci, xjobs, nx);

	vecsec_lanes_order(fast, weight, nf);
	/*
	 * Jobs past the staged path's limit join the fused groups only where
	 * those keep busy (fused_long_keep()), and only where every small job
	 * has AAD the fused kernel takes, so that no group holding one falls
	 * back to the staged buffers; the others take the direct path.
	 */
	if (nlg > 0) {
		unsigned int keep[2] = { 0, 0 }, seen[2] = { 0, 0 }, k = 0;

		for (int d = 0; d < 2; d++) {
			unsigned int nl = d == 1 ? nlo : nlg - nlo;
			unsigned int ns = d == 1 ? nfo : nf - nfo;

			if (wide_aad > 0 || nl == 0 ||
			    !fused_long_may(nl, ns, small_most, smax, ci->lanes))
				continue;
			if (k++ == 0)
				vecsec_lanes_order(lng, weight, nlg);
			keep[d] = fused_long_keep(jobs, lng, nlg, fast, nf,
						  d == 0 ? VECSEC_AEAD_SEAL : VECSEC_AEAD_OPEN,
						  ci->lanes);
		}
		/* the kept ones ahead of the small jobs (longest first) */
		if (keep[0] + keep[1] > 0)
			memmove(fast + keep[0] + keep[1], fast, nf * sizeof(fast[0]));
		k = 0;
		for (unsigned int j = 0; j < nlg; j++) {
			const struct vecsec_aead_job *job = jobs[lng[j]];
			unsigned int d = job->dir == VECSEC_AEAD_OPEN;

			if (seen[d]++ < keep[d])
				fast[k++] = lng[j];
			else if (direct && direct_ok(job))
				cand[nc++] = lng[j];
			else
				all[ng++] = lng[j];
		}
		nf += k;
	}
	/* the staged jobs all fit the fused kernel: no group need check again */
	b.fused_all = b.fused != NULL && wide_aad == 0;
	/* longer linear jobs of similar lengths: in place, a ChaCha width at a time */
	if (nc > 0) {
		uint16_t fill[VECSEC_MAX_LANES], orig[VECSEC_MAX_LANES];
		unsigned int nfl = 0;

		/*
		 * The shortest small opens that would make a last staged open
		 * group short of a ChaCha width, where they hold one block at
		 * most: fills that direct open groups may carry in lanes their
		 * block-0 call leaves idle (direct_run()). IMIX opens on
		 * AVX-512: the three 64-byte jobs past a group of 16 took a
		 * group of their own (a 3-job burst of them costs about 1800
		 * TSC cycles on the Zen 5).
		 */
		unsigned int m = 0, seen = 0;

		for (unsigned int j = 0; j < nf; j++)
			m += jobs[fast[j]]->dir == VECSEC_AEAD_OPEN;
		for (unsigned int j = 0; j < nf; j++) {
			const struct vecsec_aead_job *job = jobs[fast[j]];

			if (job->dir != VECSEC_AEAD_OPEN)
				continue;
			if (seen++ >= m - m % ci->lanes && job->len <= FILL_MAX_LEN)
				orig[nfl++] = fast[j];
		}
		unsigned int ng0 = ng;

		memcpy(fill, orig, nfl * sizeof(fill[0]));
		vecsec_lanes_order(cand, weight, nc);
		direct_run(&b, ci, pi, cand, nc, all, &ng, fill, nfl);
		/*
		 * What no direct group took (a few longer jobs the groups
		 * could not keep busy, or a group too small for its Poly1305
		 * lanes, DIRECT_FEW): each through the single-message path,
		 * which runs one about as fast as a full group of lanes runs
		 * each of its jobs, where the general passes would run a
		 * ChaCha and a Poly1305 kernel call for them with most lanes
		 * idle.
		 */
		for (unsigned int j = ng0; j < ng; j++)
			run_one_by_one(level, jobs + all[j], 1);
		ng = ng0;
		/* the fills taken leave the staged path */
		for (unsigned int x = 0; x < nfl; x++) {
			unsigned int w = 0;

			if (fill[x] != UINT16_MAX)
				continue;
			for (unsigned int j = 0; j < nf; j++)
				if (fast[j] != orig[x])
					fast[w++] = fast[j];
			nf = w;
		}
	}

	/*
	 * small linear jobs: a ChaCha width at a time, similar lengths
	 * together; seal in place where the kernel is byte-exact, else staged
	 */
	/*
	 * A last staged group short of a ChaCha width would run its kernel
	 * steps with idle lanes; when the general passes run anyway, its jobs
	 * (the shortest) join them instead, where lanes are refilled as soon
	 * as they run out.
	 */
	if (ng > 0 && nf % ci->lanes != 0) {
		for (unsigned int j = nf - nf % ci->lanes; j < nf; j++)
			all[ng++] = fast[j];
		nf -= nf % ci->lanes;
	}
	/*
	 * Else, on the byte-exact kernels, one or two left over go one by
	 * one: a group of them costs a full width's kernel steps. Zen 4, the
	 * library harness of docs/bursts.md "Mixed bursts" (52/564/1448-byte
	 * jobs), TSC cycles per seal, group / one by one: 18/12/2 of them 483
	 * / 465, 17/12/3 521 / 492, 17/14/1 445 / 417 (AVX-512); 17/12/3 627
	 * / 612 (AVX2); opens level (their last ones ride in direct groups);
	 * three or four left over lost now and then at AVX2 (567 / 589).
	 */
	/*
	 * Where the CPU's tuning has the small-burst rule (vecsec_burst_few()),
	 * a last group too small for it goes one by one too: a group of 3
	 * 64-byte seals after 16 cost 1566 TSC cycles on 16 lanes (fused),
	 * against about 480 each one by one; 5 of 256 B 3536 against 640
	 * each (Zen 4, AVX-512; the last group holds the shortest jobs).
	 */
	if (ci->xor_lanes_bytes != NULL && nf % ci->lanes != 0 &&
	    last_group_alone(level, nf % ci->lanes, jobs[fast[nf - nf % ci->lanes]]->len)) {
		for (unsigned int j = nf - nf % ci->lanes; j < nf; j++)
			run_one_by_one(level, jobs + fast[j], 1);
		nf -= nf % ci->lanes;
	}
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
	pass_poly(&b, vecsec_burst_general_poly(ls, pi), all, ng);

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
		job->status = lane_verify(job, tag);
		if (job->status == VECSEC_JOB_OK)
			open[no++] = (uint16_t)j;
	}
	pass_chacha(&b, open, no);
out:
	/*
	 * The per-job contexts and the Poly1305 lane struct hold r, s and
	 * accumulators; a burst whose small jobs all took the fused kernel
	 * (which keeps them in registers) and has no other has written
	 * neither: 2.5 KiB of wipes less at 32 jobs.
	 */
	if (b.old_staged || nc > 0 || ng > 0) {
		vecsec_memzero(ctx, n * sizeof(ctx[0]));
		vecsec_wipe(b.pl.h, sizeof(b.pl.h));
		vecsec_wipe(b.pl.r, sizeof(b.pl.r));
	}
	if (nx > 0)
		vecsec_memzero(xw, n * sizeof(xw[0]));
	/* the secrets of the ChaCha lane struct: key words */
	vecsec_wipe(b.cl.key, sizeof(b.cl.key));
	/* the general passes' stage and scalar state (the other paths wipe their own) */
	if (ng > 0) {
		vecsec_memzero(&b.pst, sizeof(b.pst.h) + sizeof(b.pst.r));
		vecsec_memzero(b.stage, sizeof(b.stage));
	}
}

/*
 * Whether every job of the burst is a ChaCha20-Poly1305 job the lanes take
 * (lanes_take()), linear, with AAD the fused kernel takes (at most
 * SMALL_AAD), all seals or all opens, all with the ChaCha20 blocks of the
 * first job; and no longer than SMALL_MAX, the staged path's limit, the
 * crossover and the mixed-burst bound (the knobs and the tuning: so that
 * burst_general() would send every job to the fused groups too): the
 * burst small_uniform() runs. Stops at the first job that is not (an IMIX
 * burst: its second or third).
 */
static bool
small_uniform_ok(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	const struct vecsec_aead_job *j0 = jobs[0];
	const size_t blocks = (j0->len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN;
	size_t most = 0, max;

	if (j0->len > SMALL_MAX)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		const struct vecsec_aead_job *job = jobs[i];

		if (job->key->alg != VECSEC_AEAD_CHACHA20_POLY1305 || !lanes_take(job, SIZE_MAX) ||
		    job->dir != j0->dir || job->nb_in_segs != 0 || job->nb_out_segs != 0 ||
		    job->aad_len > SMALL_AAD ||
		    (job->len + CHACHA_BLOCK_LEN - 1) / CHACHA_BLOCK_LEN != blocks)
			return false;
		most = job->len > most ? job->len : most;
	}
	max = vecsec_lanes_staged_max();
	max = vecsec_burst_crossover(level) < max ? vecsec_burst_crossover(level) : max;
	max = vecsec_burst_mixed_max(level) < max ? vecsec_burst_mixed_max(level) : max;
	return most <= SMALL_MAX && most <= max;
}

/*
 * A burst small_uniform_ok() took, through the fused kernel
 * (fused_group()): a ChaCha width of its jobs at a time, in their order,
 * and a last partial group as lanes_run() runs one (one by one where it
 * is too small for the lanes, else a group, on the 8-lane kernel beside
 * the 16-lane one where the tuning says so). lanes_run() would send every
 * job of such a burst to the same kernels in groups as full, each group
 * stepping as many ChaCha blocks (its order may differ: it sorts by whole
 * blocks), after its passes over the jobs: on Zen 4 those cost about a
 * tenth of a 64-byte seal (docs/bursts.md "Uniform bursts"). False,
 * having run nothing, where the burst's kernels have no fused kernel.
 */
static bool
small_uniform(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	const struct lane_set *ls = vecsec_burst_lanes_at(level);
	const struct chacha_impl *ci = vecsec_burst_pick_chacha(ls, n);
	const bool seal = jobs[0]->dir == VECSEC_AEAD_SEAL;
	uint16_t list[VECSEC_MAX_LANES];
	unsigned int whole, rest;
	struct burst b;

	if (ci == NULL || ci->xor_lanes_bytes == NULL)
		return false;
	fused_set(&b, ls, fused_kernels(ci, vecsec_burst_pick_poly(ls, n)));
	if (b.fused == NULL)
		return false;
	rest = n % ci->lanes;
	whole = n - rest;
	b.jobs = jobs;
	b.ci = ci;
	b.cl.rounds = 20;
	b.fused_all = true;
	b.old_staged = false;
	b.keyed = false;
	if (__builtin_expect(atomic_load_explicit(&vecsec_burst_fused_counting,
						  memory_order_relaxed), 0))
		atomic_fetch_add_explicit(&vecsec_burst_uniform, 1, memory_order_relaxed);
	if (rest != 0 && last_group_alone(level, rest, jobs[whole]->len)) {
		run_one_by_one(level, jobs + whole, rest);
		rest = 0;
	}
	for (unsigned int g = 0; g < whole + rest; g += ci->lanes) {
		unsigned int k = whole + rest - g < ci->lanes ? whole + rest - g : ci->lanes;

		for (unsigned int i = 0; i < k; i++)
			list[i] = (uint16_t)(g + i);
		fused_group(&b, ci, list, k, seal);
	}
	/* key words in cl, where a group put them (the 16-lane kernel's seals do not) */
	if (b.keyed)
		vecsec_wipe(b.cl.key, sizeof(b.cl.key));
	return true;
}

/* Any burst: the lanes for the jobs they take, the single-message path for the others. */
static void
burst_general(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	struct vecsec_aead_job *lane_jobs[VECSEC_MAX_BURST];
	size_t crossover = vecsec_burst_crossover(level);
	size_t mixed = vecsec_burst_mixed_max(level);
	const struct lane_set *ls = vecsec_burst_lanes_at(level);
	unsigned int nl = 0, nlong = 0, width = ls->chacha_w[0];
	size_t most = 0;

	/* the longest job: most bursts need no count past it */
	for (unsigned int i = 0; i < n; i++)
		most = jobs[i]->len > most ? jobs[i]->len : most;

	/*
	 * Too few jobs for lanes to pay (vecsec_burst_few()): every lane
	 * steps as long as the longest, so a handful of jobs costs about a
	 * full group's steps, while one by one each costs its own. Zen 4,
	 * bursts of n equal seals in place, TSC cycles per message, one by
	 * one / lanes (8 lanes, byte-exact): AVX-512 64 B n=2 474 / 490,
	 * n=3 474 / 446; 256 B n=4 637 / 672, n=5 637 / 598; 576 B n=6 851 /
	 * 929, n=7 851 / 814; AVX2 256 B n=3 689 / 838, n=4 689 / 648 (the
	 * tuning entry in lib/cpu/cpu.c).
	 */
	if (n < 8 && n < vecsec_burst_few(level, most)) {
		run_one_by_one(level, jobs, n);
		return;
	}
	/*
	 * Mixed bursts (where the CPU has a bound): jobs longer than it, too
	 * few to fill the lanes by themselves, take the single-message path.
	 * Beside shorter jobs a long one keeps its Poly1305 lane running
	 * after the others are done and cuts the group's ChaCha into pieces
	 * (or is left over, to run alone anyway); on its own it runs about as
	 * fast as in lanes. The Zen 4's entry in lib/cpu/cpu.c has the figures.
	 */
	if (mixed < crossover && most > mixed) {
		/* the width a burst of n runs at (8 lanes for 8 jobs on AVX-512) */
		const struct chacha_impl *ci = vecsec_burst_pick_chacha(ls, n);

		for (unsigned int i = 0; i < n; i++)
			nlong += jobs[i]->len > mixed;
		if (nlong == 0 || ci == NULL || nlong >= ci->lanes)
			mixed = SIZE_MAX;
		nlong = 0;
	}
	/*
	 * A few jobs a little past the crossover stay in the lanes: there
	 * they fill lanes the shorter jobs leave idle, while the crossover
	 * was measured on bursts of equal lengths, where they fill all of
	 * them. Measured at AVX2 (8 lanes, crossover 1 KiB; TSC cycles per
	 * message, Sapphire Rapids-class Xeon): IMIX (three 1500-byte jobs in
	 * 32) 911 with them on the single path, 868 in the lanes; bursts of
	 * 32 1420-byte jobs 2166 on the single path, 2621 in the lanes.
	 */
	if (mixed < crossover) {
		crossover = mixed;
	} else if (crossover < SIZE_MAX / 2 && most > crossover) {
		size_t near = crossover + crossover / 2;

		for (unsigned int i = 0; i < n; i++)
			nlong += jobs[i]->len > crossover && jobs[i]->len <= near;
		if (nlong < width)
			crossover = near;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (lanes_take(jobs[i], crossover))
			lane_jobs[nl++] = jobs[i];
		else
			run_one_by_one(level, jobs + i, 1);
	}
	lanes_run(level, lane_jobs, nl);
}

void
vecsec_chachapoly_burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs,
			unsigned int n)
{
	if (n >= 8 && small_uniform_ok(level, jobs, n) && vecsec_lanes_uniform() &&
	    small_uniform(level, jobs, n))
		return;
	burst_general(level, jobs, n);
}
