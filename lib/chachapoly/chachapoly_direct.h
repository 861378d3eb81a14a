/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct path of ChaCha20-Poly1305 bursts (chachapoly_burst.h): linear
 * jobs longer than the staged path takes (AAD at most FAST_AAD bytes), a
 * ChaCha width of similar lengths at a time, with a byte-exact ChaCha lane
 * kernel (xor_lanes_bytes: AVX-512, AVX2). Nothing is staged or copied but the
 * few bytes Poly1305 needs padded:
 *   seal: one ChaCha kernel call gives block 0 (the one-time key, RFC 8439
 *         2.6) into the lane's buffer and the ciphertext from job->in
 *         straight to job->out (masked stores at the ragged end); Poly1305
 *         runs over the ciphertext where it lies;
 *   open: block 0 alone, Poly1305 over job->in where it lies, the tags of
 *         all lanes in vectors (tags_lanes) and vecsec_ct_eq() per job,
 *         then one ChaCha call decrypts, job->in to job->out, only the
 *         lanes whose tag matched; a forged job's output is zeroed.
 * Each lane's Poly1305 input is three runs of whole blocks (RFC 8439 2.8):
 * the AAD padded to 16 (in the lane's buffer, where block 0 was), the
 * ciphertext's whole blocks in place, then its short last block padded
 * and the lengths block (in the buffer after it). In step lanes (equal
 * lengths) make one Poly1305 kernel call per run.
 *
 * Why: at 1420 bytes the general passes spent about a fifth of a job's
 * cycles outside the ChaCha and Poly1305 lane kernels (a scheduler per
 * pass, the staged last block, three scalar Poly1305 blocks per job).
 *
 * A header that chachapoly_burst.c alone includes, after
 * chachapoly_staged.h (its drain helpers), so that lanes_run() inlines it.
 */
#ifndef CHACHAPOLY_DIRECT_H
#define CHACHAPOLY_DIRECT_H

#include <string.h>

#include "chachapoly_burst.h"
#include "chachapoly_staged.h"

/* the three Poly1305 runs of a lane: padded AAD, ciphertext, tail and lengths */
#define DIRECT_RUNS 3

/*
 * True if a job may take the direct path: linear, AAD that fits the
 * block-0 slot, a length the kernel's 32-bit byte counts hold.
 */
static inline bool
direct_ok(const struct vecsec_aead_job *job)
{
	return job->nb_in_segs == 0 && job->nb_out_segs == 0 && job->aad_len <= FAST_AAD &&
	       job->len <= UINT32_MAX - CHACHA_BLOCK_LEN;
}

/*
 * Poly1305 of k jobs (list), pi->lanes at a time: for lane i the runs
 * in[0..2][i] of nb[0..2][i] whole blocks, one after the other, then the
 * tags into tagp[i] (tags_lanes where the kernel has it, else
 * vecsec_poly1305_tag() per job).
 */
static void
mac_runs(struct burst *b, const struct poly1305_impl *pi, const uint16_t *list, unsigned int k,
	 const uint8_t *const in[DIRECT_RUNS][VECSEC_MAX_LANES],
	 const uint32_t nb[DIRECT_RUNS][VECSEC_MAX_LANES], uint8_t *const *tagp)
{
	for (unsigned int g = 0; g < k; g += pi->lanes) {
		unsigned int kk = k - g < pi->lanes ? k - g : pi->lanes;

		for (unsigned int i = 0; i < kk; i++) {
			const struct job_ctx *c = &b->ctx[list[g + i]];

			for (int w = 0; w < 3; w++) {
				b->pl.h[w][i] = 0;
				b->pl.r[w][i] = c->r[w];
			}
		}
		for (int run = 0; run < DIRECT_RUNS; run++) {
			b->pl.active = 0;
			for (unsigned int i = 0; i < kk; i++) {
				if (nb[run][g + i] == 0)
					continue;
				b->pl.in[i] = in[run][g + i];
				b->pl.blocks_left[i] = nb[run][g + i];
				b->pl.active |= UINT32_C(1) << i;
			}
			drain_poly(b, pi);
		}
		if (pi->tags_lanes != NULL) {
			uint64_t s[2][VECSEC_MAX_LANES];

			for (unsigned int i = 0; i < kk; i++) {
				s[0][i] = vecsec_load_le64(b->ctx[list[g + i]].s);
				s[1][i] = vecsec_load_le64(b->ctx[list[g + i]].s + 8);
			}
			b->pl.active = (UINT32_C(1) << kk) - 1;
			pi->tags_lanes(&b->pl, s, tagp + g);
			b->pl.active = 0;
			vecsec_wipe(s, sizeof(s));
			continue;
		}
		for (unsigned int i = 0; i < kk; i++) {
			struct job_ctx *c = &b->ctx[list[g + i]];

			for (int w = 0; w < 3; w++)
				c->h[w] = b->pl.h[w][i];
			vecsec_poly1305_tag(tagp[g + i], c->h, c->s);
		}
	}
}

/*
 * The data of k jobs (list) in pieces of at most piece blocks, one piece
 * per lane (at most ci->lanes pieces in all), in one call of the
 * byte-exact kernel: lane counters start at each piece's first block.
 * ks0 true (seal): the call gives block 0 of each job into b->buf[i] (i
 * its place in list) before its data, the lanes of later pieces a block
 * into their stage slot (unused: all lanes step together); only the jobs
 * whose bit is set in run take part.
 */
static void
direct_chacha(struct burst *b, const struct chacha_impl *ci, const uint16_t *list, unsigned int k,
	      uint32_t piece, uint32_t run, bool ks0)
{
	uint32_t bytes[VECSEC_MAX_LANES];
	uint8_t *k0[VECSEC_MAX_LANES];
	unsigned int lane = 0;

	b->cl.active = 0;
	for (unsigned int i = 0; i < k; i++) {
		const struct vecsec_aead_job *job = b->jobs[list[i]];
		uint32_t first = 0;

		if (!((run >> i) & 1))
			continue;
		do {
			size_t off = (size_t)first * CHACHA_BLOCK_LEN;
			size_t n = job->len - off;

			if (n > (size_t)piece * CHACHA_BLOCK_LEN)
				n = (size_t)piece * CHACHA_BLOCK_LEN;
			/* RFC 8439 2.8: data block m at counter 1 + m */
			lane_key(b, lane, list[i], first + (ks0 ? 0 : 1));
			/* no arithmetic on the NULL that an empty job may pass */
			b->cl.in[lane] = off != 0 ? job->in + off : job->in;
			b->cl.out[lane] = off != 0 ? job->out + off : job->out;
			bytes[lane] = (uint32_t)n;
			k0[lane] = first == 0 ? b->buf[i] : b->stage[lane];
			b->cl.active |= UINT32_C(1) << lane;
			lane++;
			first += piece;
		} while (piece != 0 && (size_t)first * CHACHA_BLOCK_LEN < job->len);
	}
	VECSEC_ASSERT(lane <= ci->lanes);
	if (b->cl.active != 0)
		ci->xor_lanes_bytes(&b->cl, bytes, ks0 ? k0 : NULL);
	b->cl.active = 0;
}

/*
 * Fills: open jobs of one data block at most (FILL_MAX_LEN) from the
 * staged path's last, short group, carried by a direct open group
 * instead, so that their group's kernel calls, Poly1305 call and tags are
 * not run for a few lanes: a fill takes a free lane of the group's block-0
 * call, which decrypts its one block with block 0 in the same step (into
 * the lane's stage slot), copied out once its tag matched. Seal fills were
 * tried too (a lane freed where the shortest piece ends, the rest of the
 * longer pieces in a second call beside them): IMIX seals on the Zen 5
 * came out level, within the machine's spread, for two kernel calls and
 * a second lane layout; not kept.
 */
#define FILL_MAX_LEN CHACHA_BLOCK_LEN

/*
 * Up to one ChaCha width (ci->lanes) of direct_ok() jobs, all seal or all
 * open (seal true or false), their data cut into pieces of at most piece
 * blocks that fit the lanes (direct_pieces()).
 */
static void
direct_group(struct burst *b, const struct chacha_impl *ci, const struct poly1305_impl *pi,
	     const uint16_t *list, unsigned int k, unsigned int nfill, bool seal, uint32_t piece)
{
	uint32_t nb[DIRECT_RUNS][VECSEC_MAX_LANES], all = (UINT32_C(1) << k) - 1, ok = 0;
	const uint8_t *in[DIRECT_RUNS][VECSEC_MAX_LANES];
	uint8_t *tagp[VECSEC_MAX_LANES];
	uint8_t calc[VECSEC_MAX_LANES][POLY1305_TAG_LEN];      /* open: computed tags */
	/*
	 * open fills: their one block, decrypted with block 0 into the stage
	 * slot of their lane (not used otherwise before the data call, and
	 * wiped after it), copied out once verified
	 */
	uint8_t (*first)[CHACHA_BLOCK_LEN] = b->stage;
	unsigned int kt = k + nfill;

	VECSEC_ASSERT(kt <= ci->lanes);
	/*
	 * seal: block 0 and the ciphertext; open: block 0 alone (a piece of
	 * 0 blocks: the call stops after it, and takes one lane per job)
	 */
	if (nfill == 0) {
		direct_chacha(b, ci, list, k, seal ? piece : 0, all, true);
	} else {
		uint32_t bytes[VECSEC_MAX_LANES];
		uint8_t *k0[VECSEC_MAX_LANES];

		b->cl.active = 0;
		for (unsigned int i = 0; i < kt; i++) {
			const struct vecsec_aead_job *job = b->jobs[list[i]];

			lane_key(b, i, list[i], 0);
			b->cl.in[i] = job->in;
			b->cl.out[i] = first[i];
			bytes[i] = i < k ? 0 : (uint32_t)job->len;
			k0[i] = b->buf[i];
			b->cl.active |= UINT32_C(1) << i;
		}
		ci->xor_lanes_bytes(&b->cl, bytes, k0);
		b->cl.active = 0;
	}

	/* RFC 8439 2.8: AAD || pad16 || ciphertext || pad16 || lengths */
	for (unsigned int i = 0; i < kt; i++) {
		struct vecsec_aead_job *job = b->jobs[list[i]];
		const uint8_t *text = seal ? job->out : job->in;
		uint8_t *buf = b->buf[i];
		size_t a16 = pad16(job->aad_len), whole = job->len & ~(size_t)15;
		size_t rest = job->len - whole;
		uint8_t *head = buf + CHACHA_BLOCK_LEN - a16, *tail = buf + CHACHA_BLOCK_LEN;

		take_otk(&b->ctx[list[i]], buf);
		if (a16 > 0)
			mv16(head + a16 - 16, zero_block);
		copy_small(head, job->aad, job->aad_len);
		if (rest > 0) {
			mv16(tail, zero_block);
			copy_small(tail, text + whole, rest);
		}
		vecsec_chachapoly_lengths(tail + (rest > 0 ? 16 : 0), job->aad_len, job->len);
		in[0][i] = head;
		nb[0][i] = (uint32_t)(a16 / POLY1305_BLOCK_LEN);
		in[1][i] = text;
		nb[1][i] = (uint32_t)(whole / POLY1305_BLOCK_LEN);
		in[2][i] = tail;
		nb[2][i] = rest > 0 ? 2 : 1;
		tagp[i] = seal ? job->tag : calc[i];
	}
	mac_runs(b, pi, list, kt, in, nb, tagp);

	for (unsigned int i = 0; i < kt; i++) {
		struct vecsec_aead_job *job = b->jobs[list[i]];

		/* the buffer's secrets: what is left of block 0, the last bytes */
		vecsec_wipe(b->buf[i], CHACHA_BLOCK_LEN + 2 * POLY1305_BLOCK_LEN);
		if (seal) {
			job->status = VECSEC_JOB_OK;
			continue;
		}
		/* constant-time compare; a forged job's output is zeroed */
		job->status = lane_verify(job, calc[i]);
		if (job->status != VECSEC_JOB_OK || job->len == 0)
			continue;
		if (i < k)
			ok |= UINT32_C(1) << i;
		else
			copy_small(job->out, first[i], job->len);       /* a fill: all its data */
	}
	if (!seal && ok != 0)
		direct_chacha(b, ci, list, k, piece, ok, false);
	/* keystream of unused blocks; open fills' plaintext */
	if (piece < UINT32_MAX || nfill > 0)
		vecsec_memzero(b->stage, sizeof(b->stage));
	vecsec_memzero(calc, sizeof(calc));
}

/*
 * The piece size (in blocks) for jobs list[0..k) (longest first, k at most
 * lanes) so that all their pieces fit lanes lanes with the fewest kernel
 * steps; UINT32_MAX when no job needs cutting.
 */
static uint32_t
direct_pieces(struct burst *b, const uint16_t *list, unsigned int k, unsigned int lanes,
	      uint64_t total)
{
	uint32_t most = job_blocks(b->jobs[list[0]]), piece;

	if (k == lanes || most <= 1)
		return UINT32_MAX;
	piece = (uint32_t)((total + lanes - 1) / lanes);
	for (piece = piece > 0 ? piece : 1; piece < most; piece++) {
		unsigned int pieces = 0;

		for (unsigned int i = 0; i < k; i++) {
			uint32_t nbk = job_blocks(b->jobs[list[i]]);

			pieces += nbk == 0 ? 1 : (nbk + piece - 1) / piece;
		}
		if (pieces <= lanes)
			return piece;
	}
	return UINT32_MAX;
}

/*
 * Lanes a job takes when its data is cut into pieces of piece blocks (an
 * empty job still takes one: its block 0).
 */
static inline uint32_t
direct_lanes(const struct vecsec_aead_job *job, uint32_t piece)
{
	uint32_t nb = job_blocks(job);

	return nb == 0 ? 1 : (nb + piece - 1) / piece;
}

/*
 * The next direct group from list[0..*n) (longest first): into gl (*k
 * jobs, at most lanes of them), its piece size into *piece; the jobs taken
 * leave list. A group keeps at least 3/4 of its lane steps busy (the
 * kernel steps every lane as long as the longest piece). First the
 * longest jobs as they come, a ChaCha width of them or fewer cut into
 * pieces (direct_pieces()); where that group is too ragged (a few long
 * jobs beside many shorter ones, whose pieces do not fit the lanes), the
 * piece sizes that cut the longest job into 1..lanes pieces are tried,
 * each taking jobs longest first while their pieces fit, and the one that
 * puts the most blocks in busy lanes is run. Returns false when no group
 * keeps 3/4 busy: what is left goes one by one (direct_run()).
 */
static bool
direct_pick(struct burst *b, uint16_t *list, unsigned int *n, unsigned int lanes, uint16_t *gl,
	    unsigned int *k, uint32_t *piece)
{
	unsigned int kk = *n < lanes ? *n : lanes, w = 0;
	uint64_t sum = 0, best = 0;
	uint32_t p, most, best_p = 0, b0 = 0, taken = 0;

	for (unsigned int i = 0; i < kk; i++)
		sum += job_blocks(b->jobs[list[i]]);
	p = direct_pieces(b, list, kk, lanes, sum);
	most = p < UINT32_MAX ? p : job_blocks(b->jobs[list[0]]);
	if (4 * sum >= 3 * (uint64_t)most * lanes) {
		memcpy(gl, list, kk * sizeof(gl[0]));
		memmove(list, list + kk, (*n - kk) * sizeof(list[0]));
		*n -= kk;
		*k = kk;
		*piece = p;
		return true;
	}
	for (unsigned int i = 0; i < *n; i++)
		if (job_blocks(b->jobs[list[i]]) > b0)
			b0 = job_blocks(b->jobs[list[i]]);
	for (unsigned int m = 1; m <= lanes && b0 > 1; m++) {
		uint32_t cand = (b0 + m - 1) / m, used = 0, steps = 0, mask = 0;
		uint64_t blocks = 0;

		if (m > 1 && cand == (b0 + m - 2) / (m - 1))
			continue;       /* the same piece as m - 1 */
		for (unsigned int i = 0; i < *n && i < 32; i++) {
			const struct vecsec_aead_job *job = b->jobs[list[i]];
			uint32_t c = direct_lanes(job, cand), nb = job_blocks(job);

			if (used + c > lanes)
				continue;
			used += c;
			blocks += nb;
			mask |= UINT32_C(1) << i;
			if ((nb < cand ? nb : cand) > steps)
				steps = nb < cand ? nb : cand;
			if (used == lanes)
				break;
		}
		if (4 * blocks >= 3 * (uint64_t)steps * lanes && blocks > best) {
			best = blocks;
			best_p = cand;
			taken = mask;
		}
	}
	if (best == 0)
		return false;
	*k = 0;
	most = 0;
	for (unsigned int i = 0; i < *n; i++) {
		if (i < 32 && ((taken >> i) & 1)) {
			gl[(*k)++] = list[i];
			if (job_blocks(b->jobs[list[i]]) > most)
				most = job_blocks(b->jobs[list[i]]);
		} else {
			list[w++] = list[i];
		}
	}
	*n = w;
	*piece = best_p < most ? best_p : UINT32_MAX;
	return true;
}

/*
 * The direct_ok() jobs in cand[0..nc) (longest first) in direct groups
 * (direct_pick()), all seal or all open; what no group takes, and the
 * jobs of a group of DIRECT_FEW or fewer without fills, are appended to
 * rest[] (*nr), which lanes_run() runs one by one. An open group takes
 * open fills from fill[0..nfill) while its block-0 call has free lanes;
 * each fill taken becomes UINT16_MAX.
 */
/*
 * A direct group of this many jobs or fewer, with no open fills, goes one
 * by one instead (through rest[]: lanes_run() sends what no direct group
 * took to the single-message path). Its pieces keep the ChaCha lanes busy,
 * but its Poly1305 runs one lane a job over the whole length: at the
 * AVX2 level (4 Poly1305 lanes) an IMIX burst's two 576-byte jobs left
 * after a fused group of eight cost about 1400 TSC cycles each in their
 * direct group, 1212 one by one. Zen 4, library harness, AVX2, before /
 * after, medians of 9 to 15 alternated pairs, seal: IMIX 609 -> 587 cycles
 * a message, two 576-byte jobs beside eight of 64 B 467 -> 424, two of
 * 600 B beside fourteen 64-byte ones 387 -> 354; AVX-512 IMIX level (its
 * fused groups take those jobs). Three: level with two; four: 4 x 576 B
 * beside 8 x 64 B 22 % slower.
 */
#define DIRECT_FEW 2

static void
direct_run(struct burst *b, const struct chacha_impl *ci, const struct poly1305_impl *pi,
	   const uint16_t *cand, unsigned int nc, uint16_t *rest, unsigned int *nr,
	   uint16_t *fill, unsigned int nfill)
{
	uint16_t dl[2][VECSEC_MAX_BURST];
	unsigned int nd[2] = { 0, 0 };

	for (unsigned int j = 0; j < nc; j++) {
		int d = b->jobs[cand[j]]->dir == VECSEC_AEAD_SEAL;

		dl[d][nd[d]++] = cand[j];
	}
	for (int d = 0; d < 2; d++) {
		uint16_t gl[VECSEC_MAX_LANES];
		unsigned int k, room, nf;
		uint32_t piece;

		while (nd[d] > 0 && direct_pick(b, dl[d], &nd[d], ci->lanes, gl, &k, &piece)) {
			/* open: one job a lane in the block-0 call */
			room = d == 0 ? ci->lanes - k : 0;
			nf = 0;
			/* the fills of this direction, while the group has room */
			for (unsigned int x = 0; x < nfill && nf < room; x++) {
				if (fill[x] == UINT16_MAX ||
				    (b->jobs[fill[x]]->dir == VECSEC_AEAD_SEAL) != (d == 1))
					continue;
				gl[k + nf++] = fill[x];
				fill[x] = UINT16_MAX;
			}
			if (k <= DIRECT_FEW && nf == 0) {
				for (unsigned int g = 0; g < k; g++)
					rest[(*nr)++] = gl[g];
				continue;
			}
			direct_group(b, ci, pi, gl, k, nf, d == 1, piece);
		}
		/* too ragged: the rest one by one (lanes_run()) */
		for (unsigned int g = 0; g < nd[d]; g++)
			rest[(*nr)++] = dl[d][g];
	}
}

#endif /* CHACHAPOLY_DIRECT_H */
