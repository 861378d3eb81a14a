/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The staged path of ChaCha20-Poly1305 bursts (chachapoly_burst.h): small
 * linear jobs (<= FAST_MAX bytes, AAD <= 64; the knob
 * vecsec_lanes_set_staged_max() lowers the limit), a ChaCha width of them
 * at a time (fast_group): each is copied into its lane's
 * buffer behind a zero block, one kernel run gives block 0 (the one-time
 * Poly1305 key, RFC 8439 2.6) and the data, and the MAC input is laid out
 * contiguously around the ciphertext, so each lane needs one Poly1305 run.
 * Seal with a byte-exact kernel (AVX-512 x16, AVX2 x8) skips the staging of
 * the data: the kernel reads job->in and writes job->out itself, masked
 * at the ragged end (fast_seal_direct); open with it
 * decrypts the first data block with block 0 into a stack buffer and, once
 * the tag matched, copies it out and the rest straight from job->in to
 * job->out.
 * Where the Poly1305 lane kernel has tags_lanes, a group's tags are
 * finished in the lanes too. On AVX-512 with IFMA (16 lanes) and at the
 * AVX2 level (8 lanes) a group whose AAD is at most 16 bytes takes the
 * fused kernel instead (fused_group(), chachapoly_small.h): one call,
 * block 0 kept in registers. Open verifies before any plaintext reaches
 * the caller's buffer. Called once per group from lanes_run(); the
 * per-job helpers are chachapoly_burst.h's inline ones.
 *
 * A file of its own, but a header that chachapoly_burst.c alone includes
 * (as lib/aria's aria_aesni_body.h is), its functions static: lanes_run()
 * must still inline them. Compiled apart and called across object files
 * they cost 2 to 3 % per message on 64- and 256-byte bursts (vecsec-bench
 * --burst-only, AVX-512, interleaved runs, medians).
 */
#ifndef CHACHAPOLY_STAGED_H
#define CHACHAPOLY_STAGED_H

#include <string.h>

#include "chachapoly_burst.h"

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
		uint32_t lo = UINT32_MAX, hi = 0;

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
			lo = c->blocks < lo ? c->blocks : lo;
			hi = c->blocks > hi ? c->blocks : hi;
		}
		/*
		 * Lanes of one length (a burst of equal messages): one kernel
		 * call runs them all to the end, without the scheduler's
		 * passes over the lanes (min, retire) around it.
		 */
		if (lo == hi) {
			pi->blocks_lanes(&b->pl, lo);
			b->pl.active = 0;
		} else {
			drain_poly(b, pi);
		}
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
			vecsec_wipe(s, sizeof(s));
			continue;
		}
		for (unsigned int i = 0; i < kk; i++)
			for (int w = 0; w < 3; w++)
				b->ctx[list[g + i]].h[w] = b->pl.h[w][i];
	}
}

/* True if the group of k jobs (list) fits the fused kernel (chachapoly_small.h). */
static inline bool
fused_fits(const struct burst *b, const uint16_t *list, unsigned int k)
{
	if (b->fused == NULL || k > b->ci->lanes)
		return false;
	if (b->fused_all)
		return true;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];

		if (job->len > b->fused_max || job->aad_len > SMALL_AAD)
			return false;
	}
	return true;
}

/*
 * A group of small linear jobs, all seals or all opens, through the fused
 * kernel: one call gives the tags (seal: into job->tag, with the
 * ciphertext written to job->out; open: computed, into calc) with block 0
 * kept in registers. Open: the call also decrypts each job's first data
 * block into first[] (not job->out: nothing before the tag matched); the
 * jobs whose tag matched (lane_verify(): constant time, a failed job's
 * output zeroed) get that block copied out and the rest decrypted
 * straight from job->in to job->out (counter 2 on); first[] is wiped.
 */
static void
fused_group(struct burst *b, const struct chacha_impl *ci, const uint16_t *list,
	    unsigned int k, bool seal)
{
	/* in the burst: a local one, zeroed for GCC's sake, cost a rep stos a group */
	struct small_mac *m = &b->sm;
	uint32_t *bytes = b->sbytes;
	uint8_t calc[VECSEC_MAX_LANES][POLY1305_TAG_LEN];
	alignas(64) uint8_t first[VECSEC_MAX_LANES][CHACHA_BLOCK_LEN];
	small_kernel_fn kern = b->fused;
	size_t most = 0;
	bool rows;

	for (unsigned int i = 0; i < k; i++)
		most = b->jobs[list[i]]->len > most ? b->jobs[list[i]]->len : most;
	/* 8 or fewer beside 16-lane groups: the 8-lane kernel, if it takes their lengths */
	if (k <= 8 && b->fused8 != NULL && most <= SMALL_MAX)
		kern = b->fused8;
	/* the 16-lane kernel reads keys and nonces where they lie (chachapoly_small.h) */
	rows = kern == b->fused && b->fused_rows;
	/* (and opens below, past their first block) */
	b->keyed |= !rows || !seal;
	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];

		if (rows) {
			lane_key_at(b, list[i], &m->key[i], &m->nonce[i]);
		} else {
			lane_key(b, i, list[i], 0);
		}
		m->aad[i] = job->aad;
		m->aad_len[i] = (uint32_t)job->aad_len;
		m->len[i] = (uint32_t)job->len;
		b->cl.in[i] = job->in;
		if (seal) {
			b->cl.out[i] = job->out;
			m->ct[i] = job->out;
			m->tag[i] = job->tag;
			bytes[i] = (uint32_t)job->len;
		} else {
			b->cl.out[i] = first[i];
			m->ct[i] = job->in;
			m->tag[i] = calc[i];
			bytes[i] = job->len < CHACHA_BLOCK_LEN ? (uint32_t)job->len : CHACHA_BLOCK_LEN;
		}
		b->cl.active |= UINT32_C(1) << i;
	}
	kern(&b->cl, bytes, m);
	vecsec_burst_count_fused(kern != b->fused, most > SMALL_MAX);
	if (seal) {
		for (unsigned int i = 0; i < k; i++)
			b->jobs[list[i]]->status = VECSEC_JOB_OK;
		b->cl.active = 0;
		return;
	}

	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		struct vecsec_aead_job *job = b->jobs[list[i]];

		bytes[i] = 0;   /* an inactive lane: nothing read or written */
		job->status = lane_verify(job, calc[i]);
		if (job->status != VECSEC_JOB_OK)
			continue;
		copy_small(job->out, first[i], job->len < CHACHA_BLOCK_LEN ? job->len :
									   CHACHA_BLOCK_LEN);
		if (job->len > CHACHA_BLOCK_LEN) {
			lane_key(b, i, list[i], 2);
			b->cl.in[i] = job->in + CHACHA_BLOCK_LEN;
			b->cl.out[i] = job->out + CHACHA_BLOCK_LEN;
			bytes[i] = (uint32_t)job->len - CHACHA_BLOCK_LEN;
			b->cl.active |= UINT32_C(1) << i;
		}
	}
	if (b->cl.active != 0)
		ci->xor_lanes_bytes(&b->cl, bytes, NULL);
	b->cl.active = 0;
	vecsec_wipe(first, k * sizeof(first[0]));      /* plaintext of the first blocks */
	vecsec_wipe(calc, k * sizeof(calc[0]));
}

/*
 * The staged path: up to one ChaCha width of small linear jobs, each copied
 * into its lane's buffer behind a zero block. Seal: one kernel run gives
 * block 0 (the Poly1305 key) and the ciphertext together (counter 0 ..).
 * Open: a run of block 0 alone first (with a byte-exact kernel, block 0
 * and the first data block, decrypted aside). Either way the Poly1305 input is then
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
	/* zeroed: GCC cannot see that only active lanes' entries are read */
	uint32_t verified = 0, bytes[VECSEC_MAX_LANES] = { 0 };
	uint8_t calc[VECSEC_MAX_LANES][POLY1305_TAG_LEN];      /* open: computed tags */
	/* open with a byte-exact kernel: each job's first data block, decrypted with block 0 */
	alignas(64) uint8_t first[VECSEC_MAX_LANES][CHACHA_BLOCK_LEN];
	uint8_t *ks0[VECSEC_MAX_LANES] = { NULL };

	if (fused_fits(b, list, k)) {
		fused_group(b, ci, list, k, false);
		return;
	}
	b->old_staged = true;
	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		uint8_t *buf = b->buf[i];

		/* jobs past it come only in fused groups (lanes_run()) */
		VECSEC_ASSERT(job->len <= FAST_MAX);
		lane_key(b, i, list[i], 0);
		if (ci->xor_lanes_bytes == NULL)
			zero_small(buf, CHACHA_BLOCK_LEN);
		copy_small(buf + CHACHA_BLOCK_LEN, job->in, job->len);
		b->cl.in[i] = buf;
		b->cl.out[i] = buf;
		b->cl.blocks_left[i] = 1 + (job->dir == VECSEC_AEAD_SEAL ? job_blocks(job) : 0);
		b->cl.active |= UINT32_C(1) << i;
		/*
		 * Only opens come here with a byte-exact kernel: its call gives
		 * block 0 and, in the same steps, the first data block decrypted
		 * into first[] (not job->out: nothing before the tag matched);
		 * after the verdict that block is a copy, and a job of one block
		 * needs no second call.
		 */
		ks0[i] = buf;
		b->cl.in[i] = job->in;
		b->cl.out[i] = first[i];
		bytes[i] = job->len < CHACHA_BLOCK_LEN ? (uint32_t)job->len : CHACHA_BLOCK_LEN;
	}
	if (ci->xor_lanes_bytes != NULL) {
		ci->xor_lanes_bytes(&b->cl, bytes, ks0);
		b->cl.active = 0;
	} else {
		for (unsigned int i = 0; i < k; i++) {
			b->cl.in[i] = b->buf[i];
			b->cl.out[i] = b->buf[i];
		}
		drain_chacha(b);
	}

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
		job->status = lane_verify(job, tag);
		if (job->status == VECSEC_JOB_OK) {
			/*
			 * Counter 1 on, the lane's key still loaded: with a
			 * byte-exact kernel (the tag matched) the first block from
			 * first[] and the rest, counter 2 on, straight from job->in
			 * to job->out; else in place in the buffer and copied out
			 * below.
			 */
			b->cl.ctr[i] = 1;
			b->cl.in[i] = b->buf[i] + CHACHA_BLOCK_LEN;
			b->cl.out[i] = b->buf[i] + CHACHA_BLOCK_LEN;
			b->cl.blocks_left[i] = job_blocks(job);
			if (ci->xor_lanes_bytes != NULL) {
				copy_small(job->out, first[i], bytes[i]);
				b->cl.blocks_left[i] = 0;
				if (job->len > CHACHA_BLOCK_LEN) {
					b->cl.ctr[i] = 2;
					b->cl.in[i] = job->in + CHACHA_BLOCK_LEN;
					b->cl.out[i] = job->out + CHACHA_BLOCK_LEN;
					bytes[i] = (uint32_t)job->len - CHACHA_BLOCK_LEN;
					b->cl.blocks_left[i] = 1;
				}
			}
			if (b->cl.blocks_left[i] > 0)
				b->cl.active |= UINT32_C(1) << i;
			verified |= UINT32_C(1) << i;
		} else if (ci->xor_lanes_bytes != NULL) {
			bytes[i] = 0;   /* an inactive lane: nothing read or written */
		}
	}
	if (ci->xor_lanes_bytes != NULL) {
		if (b->cl.active != 0)
			ci->xor_lanes_bytes(&b->cl, bytes, NULL);
		verified = 0;           /* nothing left to copy out */
		b->cl.active = 0;
		vecsec_wipe(first, k * sizeof(first[0]));     /* plaintext of the first blocks */
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
		if (ci->xor_lanes_bytes != NULL) {
			vecsec_wipe(b->buf[i], CHACHA_BLOCK_LEN);      /* inline: a constant */
			continue;
		}
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

	if (fused_fits(b, list, k)) {
		fused_group(b, ci, list, k, true);
		return;
	}
	b->old_staged = true;
	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];

		VECSEC_ASSERT(job->len <= FAST_MAX);
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
		vecsec_wipe(b->buf[i], CHACHA_BLOCK_LEN);
	}
}

#endif /* CHACHAPOLY_STAGED_H */
