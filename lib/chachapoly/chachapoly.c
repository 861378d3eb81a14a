/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha-03 2.3: HChaCha20 subkey, ChaCha20 with nonce
 * 00000000 || nonce[16..24]; the construction of libsodium's
 * crypto_aead_xchacha20poly1305_ietf): the steps every form shares (key
 * and nonce words, the one subkey derivation, the verdict on open), the
 * one-shot path and its stitched variant. Portable C over the dispatched
 * ChaCha and Poly1305 kernels, streaming over the segment cursors so
 * scatter-gather lists with segments of any size (one byte, empty) give
 * the linear result. Open MACs the ciphertext first and decrypts only
 * after the tag matched. Linear jobs go through a stitched one-pass
 * kernel when the dispatch has one (chachapoly_internal.h); its open
 * decrypts while it MACs and wipes the output if the tag then fails.
 * A step-form kernel's short path (short_run) takes whole short jobs.
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_poly1305.h"
#include "job/job_internal.h"
#include "chachapoly_internal.h"

struct chachapoly_run {
	const struct chacha_impl *ci;
	struct chacha_state st;
	struct vecsec_poly1305_ctx mac;
	uint8_t ks[CHACHA_BLOCK_LEN];   /* keystream of the current partial block */
	size_t ks_used;                 /* bytes of ks already used (64: none left) */
};

_Static_assert(sizeof(((struct vecsec_aead_key *)0)->small) >= VECSEC_CHACHAPOLY_KEY_LEN,
	       "the ChaCha20 key fits the header's line");

size_t
vecsec_chachapoly_key_size(size_t key_len)
{
	/* the header's line alone: the key is its small schedule */
	return key_len == VECSEC_CHACHAPOLY_KEY_LEN ? offsetof(struct vecsec_aead_key, opaque) : 0;
}

int
vecsec_chachapoly_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len)
{
	if (key_len != VECSEC_CHACHAPOLY_KEY_LEN)
		return -EINVAL;
	memcpy(k->small, key, VECSEC_CHACHAPOLY_KEY_LEN);
	return 0;
}

static const uint8_t zeros[CHACHA_BLOCK_LEN];

/* ---- the shared steps ---- */

bool
vecsec_chachapoly_words(const struct vecsec_aead_job *job, uint32_t key[8], uint32_t nonce[3])
{
	const uint8_t *k = (const uint8_t *)job->key->small;

	for (int w = 0; w < 8; w++)
		key[w] = vecsec_load_le32(k + 4 * w);
	if (job->key->alg == VECSEC_AEAD_XCHACHA20_POLY1305) {
		/*
		 * Words 12-13 as a 64-bit counter: the same as the draft's 4
		 * zero bytes while the counter is below 2^32, and like
		 * libsodium (which carries into word 13) above it.
		 */
		nonce[0] = 0;
		nonce[1] = vecsec_load_le32(job->nonce + 16);
		nonce[2] = vecsec_load_le32(job->nonce + 20);
		return true;
	}
	for (int w = 0; w < 3; w++)
		nonce[w] = vecsec_load_le32(job->nonce + 4 * w);
	return false;
}

/* HChaCha20 of up to one lane kernel's width of jobs in its lanes */
static void
subkeys_lanes(uint32_t (*key)[8], const uint8_t *const *nonce, unsigned int n,
	      const struct chacha_impl *li)
{
	static const uint32_t sigma[4] = { CHACHA_C0, CHACHA_C1, CHACHA_C2, CHACHA_C3 };
	struct chacha_lanes cl;
	alignas(64) uint8_t out[VECSEC_MAX_LANES][CHACHA_BLOCK_LEN];

	cl.rounds = 20;
	cl.active = 0;
	for (unsigned int i = 0; i < n; i++) {
		for (int w = 0; w < 8; w++)
			cl.key[w][i] = key[i][w];
		cl.ctr[i] = vecsec_load_le32(nonce[i]);
		for (int w = 0; w < 3; w++)
			cl.nonce[w][i] = vecsec_load_le32(nonce[i] + 4 + 4 * w);
		cl.in[i] = zeros;
		cl.out[i] = out[i];
		cl.blocks_left[i] = 1;
		cl.active |= UINT32_C(1) << i;
	}
	li->xor_lanes(&cl, 1);
	for (unsigned int i = 0; i < n; i++) {
		for (int w = 0; w < 4; w++) {
			key[i][w] = vecsec_load_le32(out[i] + 4 * w) - sigma[w];
			key[i][4 + w] = vecsec_load_le32(out[i] + 48 + 4 * w) -
					vecsec_load_le32(nonce[i] + 4 * w);
		}
	}
	vecsec_memzero(&cl, sizeof(cl));
	vecsec_memzero(out, n * sizeof(out[0]));
}

void
vecsec_xchacha_subkeys(uint32_t (*key)[8], const uint8_t *const *nonce, unsigned int n,
		       const struct chacha_impl *li)
{
	uint8_t kb[CHACHA_KEY_LEN], sub[CHACHA_KEY_LEN];

	if (li != NULL && li->xor_lanes != NULL) {
		for (unsigned int i = 0; i < n; i += li->lanes)
			subkeys_lanes(key + i, nonce + i, n - i < li->lanes ? n - i : li->lanes,
				      li);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (int w = 0; w < 8; w++)
			chacha_st32(kb + 4 * w, key[i][w]);
		vecsec_hchacha_impl(li != NULL ? li : &vecsec_chacha_impl_ref, sub, kb, nonce[i],
				    20);
		for (int w = 0; w < 8; w++)
			key[i][w] = vecsec_load_le32(sub + 4 * w);
	}
	vecsec_memzero(kb, sizeof(kb));
	vecsec_memzero(sub, sizeof(sub));
}

/* A job's ChaCha20 state at block counter 0 (key, nonce, subkey as above). */
static void
job_state(struct chacha_state *st, const struct vecsec_aead_job *job)
{
	uint32_t key[1][8], nonce[3];
	bool x = vecsec_chachapoly_words(job, key[0], nonce);

	if (x)
		vecsec_xchacha_subkeys(key, &job->nonce, 1, NULL);
	st->x[0] = CHACHA_C0;
	st->x[1] = CHACHA_C1;
	st->x[2] = CHACHA_C2;
	st->x[3] = CHACHA_C3;
	for (int w = 0; w < 8; w++)
		st->x[4 + w] = key[0][w];
	st->x[12] = 0;
	for (int w = 0; w < 3; w++)
		st->x[13 + w] = nonce[w];
	st->rounds = 20;
	st->ctr64 = x;          /* XChaCha: words 12-13 are one 64-bit counter */
	vecsec_wipe(key, sizeof(key));
}

/* ---- the stitched kernels: table and selection ---- */

/*
 * Widest first; within a level the entry for long jobs first, its min_len
 * the measured length from which it beats the one after it (below the
 * last one of a level: the two-pass code).
 */
const struct chachapoly_impl *const vecsec_chachapoly_impls[] = {
#ifdef VECSEC_HAVE_AVX512_IFMA
	&vecsec_chachapoly_impl_avx512ifma,
#endif
#ifdef VECSEC_HAVE_AVX2
	&vecsec_chachapoly_impl_avx2,
#endif
#ifdef VECSEC_HAVE_SSSE3
	&vecsec_chachapoly_impl_ssse3,
#endif
	NULL,
};

static _Atomic uint64_t stitch_chain[VECSEC_NB_LEVELS];
VECSEC_CHAIN_BUILD(stitch_chain_build, vecsec_chachapoly_impls, stitch_chain)
static _Atomic int chachapoly_mode = CHACHAPOLY_AUTO;     /* a knob: tests, bench */

/*
 * The stitched impl for a linear job of len bytes at a level, or NULL:
 * none there, or two passes asked for (TWOPASS mode,
 * VECSEC_CHACHAPOLY=twopass).
 */
static inline const struct chachapoly_impl *
stitch_at(enum vecsec_isa level, size_t len)
{
	if (__builtin_expect(atomic_load_explicit(&chachapoly_mode, memory_order_relaxed) ==
			     CHACHAPOLY_TWOPASS, 0) || vecsec_dispatch_twopass())
		return NULL;
	return VECSEC_SELECT_LEN(vecsec_chachapoly_impls, stitch_chain, stitch_chain_build,
				 level, len);
}

const struct chachapoly_impl *
vecsec_chachapoly_impl_for(size_t len)
{
	return stitch_at(vecsec_level(), len);
}

static _Atomic size_t short_cap = SIZE_MAX;       /* a knob: tests, bench */

/*
 * The longest job sk's short path takes now (0: none): the knob's cap when
 * one is set, else the bound measured on this CPU (vecsec_tune(); AVX-512
 * IFMA's is the only short path), never more than the kernel's own bound.
 */
static inline size_t
short_max_of(const struct chachapoly_impl *sk)
{
	size_t cap = atomic_load_explicit(&short_cap, memory_order_relaxed);

	if (sk == NULL || sk->short_run == NULL)
		return 0;
	if (cap == SIZE_MAX)
		cap = vecsec_tune()->chachapoly_short_max;
	return sk->short_max < cap ? sk->short_max : cap;
}

size_t
vecsec_chachapoly_short_max(void)
{
	return short_max_of(stitch_at(vecsec_level(), 0));
}

size_t
vecsec_chachapoly_set_short_max(size_t len)
{
	return atomic_exchange(&short_cap, len);
}

static _Atomic unsigned int int_cap = UINT_MAX; /* a knob: tests, bench */

unsigned int
vecsec_chachapoly_int_blocks(void)
{
	unsigned int q = atomic_load_explicit(&int_cap, memory_order_relaxed);

	if (q == UINT_MAX)
		q = vecsec_tune()->chachapoly_int_blocks;
	return q < 64 ? q : 64;
}

unsigned int
vecsec_chachapoly_set_int_blocks(unsigned int q)
{
	return atomic_exchange(&int_cap, q);
}

enum chachapoly_mode
vecsec_chachapoly_set_mode(enum chachapoly_mode mode)
{
	return (enum chachapoly_mode)atomic_exchange(&chachapoly_mode, (int)mode);
}

/* ---- one shot, two passes, any segmentation ---- */

static void
mac_pad16(struct vecsec_poly1305_ctx *mac, size_t len)
{
	if (len % 16 != 0)
		vecsec_poly1305_update(mac, zeros, 16 - len % 16);
}

/*
 * Set up the cipher state (counter 0), take the one-time Poly1305 key from
 * block 0 (RFC 8439 2.6) leaving the counter at 1, MAC the padded AAD.
 */
static void
run_start(struct chachapoly_run *r, const struct vecsec_aead_job *job,
	  const struct chacha_impl *ci, enum vecsec_isa level)
{
	uint8_t otk[CHACHA_BLOCK_LEN];

	r->ci = ci;
	job_state(&r->st, job);
	vecsec_chacha_xor_impl(ci, &r->st, otk, zeros, sizeof(otk));
	vecsec_poly1305_init_level(&r->mac, otk, level);
	vecsec_memzero(otk, sizeof(otk));
	r->ks_used = CHACHA_BLOCK_LEN;
	if (job->aad_len > 0)
		vecsec_poly1305_update(&r->mac, job->aad, job->aad_len);
	mac_pad16(&r->mac, job->aad_len);
}

/* RFC 8439 2.8: pad16(ct), then le64(aad_len) || le64(ct_len); tag */
static void
run_finish(struct chachapoly_run *r, const struct vecsec_aead_job *job,
	   uint8_t tag[VECSEC_AEAD_TAG_LEN])
{
	uint8_t lens[16];

	mac_pad16(&r->mac, job->len);
	vecsec_chachapoly_lengths(lens, job->aad_len, job->len);
	vecsec_poly1305_update(&r->mac, lens, sizeof(lens));
	vecsec_poly1305_final(&r->mac, tag);
}

/* out = in ^ keystream for n bytes, the keystream continuing across calls */
static void
run_xor(struct chachapoly_run *r, uint8_t *out, const uint8_t *in, size_t n)
{
	size_t k;

	if (r->ks_used < CHACHA_BLOCK_LEN) {
		k = CHACHA_BLOCK_LEN - r->ks_used;
		if (k > n)
			k = n;
		for (size_t i = 0; i < k; i++)
			out[i] = in[i] ^ r->ks[r->ks_used + i];
		r->ks_used += k;
		out += k;
		in += k;
		n -= k;
	}
	k = n - n % CHACHA_BLOCK_LEN;
	if (k > 0) {
		vecsec_chacha_xor_impl(r->ci, &r->st, out, in, k);
		out += k;
		in += k;
		n -= k;
	}
	if (n > 0) {
		vecsec_chacha_xor_impl(r->ci, &r->st, r->ks, zeros, CHACHA_BLOCK_LEN);
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ r->ks[i];
		r->ks_used = n;
	}
}

/* Input and output walked together in runs contiguous in both (lib/job). */
static void
run_crypt(struct chachapoly_run *r, const struct vecsec_aead_job *job, bool mac_out)
{
	struct job_pair w;
	const uint8_t *in;
	uint8_t *out;
	size_t n;

	vecsec_job_pair_start(&w, job);
	while ((n = vecsec_job_pair_next(&w, &in, &out)) != 0) {
		run_xor(r, out, in, n);
		if (mac_out)
			vecsec_poly1305_update(&r->mac, out, n);
	}
}

/* Jobs up to this long (below a stitched step) are done in one ChaCha call. */
#define SHORT_MAX 1024

/*
 * blk = the n (1..15) bytes at p, zero-padded (RFC 8439 2.8 pad16), as two
 * 8-byte stores: Poly1305 loads the block 8 bytes at a time, and a load
 * across a short copy's smaller stores would wait for them to retire.
 */
static inline void
pad_block(uint8_t blk[16], const uint8_t *p, size_t n)
{
	uint64_t w[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++)
		w[i / 8] |= (uint64_t)p[i] << (8 * (i % 8));
	vecsec_store_le64(blk, w[0]);
	vecsec_store_le64(blk + 8, w[1]);
}

/* Absorb len bytes zero-padded to whole blocks (RFC 8439 2.8 pad16). */
static void
mac_padded(struct poly1305_state *ps, const struct poly1305_impl *pi, const uint8_t *p,
	   size_t len)
{
	uint8_t blk[16];
	size_t nb = len / 16;

	if (nb > 0)
		pi->blocks(ps, p, nb, 1);
	if (len % 16 != 0) {
		pad_block(blk, p + 16 * nb, len % 16);
		pi->blocks(ps, blk, 1, 1);
		vecsec_wipe(blk, sizeof(blk));
	}
}

/*
 * RFC 8439 2.8 end: the last len bytes of the data at p (pad16) and the
 * lengths block, the partial block and the lengths in one call.
 */
static void
mac_last(struct poly1305_state *ps, const struct poly1305_impl *pi, const uint8_t *p,
	 size_t len, uint64_t aad_len, uint64_t total)
{
	uint8_t blk[32];
	size_t nb = len / 16, k = 1;

	if (nb > 0)
		pi->blocks(ps, p, nb, 1);
	if (len % 16 != 0) {
		pad_block(blk, p + 16 * nb, len % 16);
		k = 2;
	}
	vecsec_chachapoly_lengths(blk + 16 * (k - 1), aad_len, total);
	pi->blocks(ps, blk, k, 1);
	vecsec_wipe(blk, sizeof(blk));
}

/*
 * A linear job through a stitched kernel (sk): the same RFC 8439 2.8
 * steps as run_start()/run_crypt()/run_finish(), on the Poly1305 core;
 * jobs shorter than the kernel's step are two passes here (one ChaCha
 * call for the one-time key and all the data, one Poly1305 pass),
 * cheaper than the generic streaming code.
 * Open: the kernel MACs each 1 KiB (AVX2: 512 B) of ciphertext just
 * before decrypting it, so that part of the plaintext reaches out before
 * the tag is checked, and out is wiped whenever the check fails: nothing
 * unauthenticated is released by a failed call. The rest, and all of a
 * job shorter than a step, is released only after the tag matched. A
 * tail the kernel's otk_tail() takes is computed with the one-time key in
 * one pass, both ways (open: decrypted into sbuf, copied out on a match).
 */
static int
chachapoly_run_stitched(const struct chachapoly_impl *sk, const struct chacha_impl *ci,
			const struct poly1305_impl *pi, const struct vecsec_aead_job *job)
{
	struct chacha_state st;
	struct poly1305_state ps;
	uint8_t otk[CHACHA_BLOCK_LEN], tag[VECSEC_AEAD_TAG_LEN];
	uint8_t sbuf[CHACHA_BLOCK_LEN + SHORT_MAX] __attribute__((aligned(64)));
	const uint8_t *rest = NULL;
	size_t done = 0, sbuf_len = 0, tail = 0, body;
	bool short_job = false, tail_staged = false;
	int rc = 0;

	job_state(&st, job);
	if (job->len < sk->step && job->len <= SHORT_MAX) {
		/*
		 * Short job: one ChaCha call makes the one-time key (block 0) and
		 * the data's blocks together, on a copy of the input behind 64
		 * zero bytes. Open MACs the ciphertext, and only a matching tag
		 * copies the plaintext out.
		 */
		memset(sbuf, 0, CHACHA_BLOCK_LEN);
		if (job->len > 0)       /* in and out may be NULL then */
			memcpy(sbuf + CHACHA_BLOCK_LEN, job->in, job->len);
		sbuf_len = CHACHA_BLOCK_LEN + job->len;
		vecsec_chacha_xor_impl(ci, &st, sbuf, sbuf, sbuf_len);
		memcpy(otk, sbuf, sizeof(otk));
		vecsec_poly1305_core_init(&ps, otk);
		if (job->aad_len > 0)
			mac_padded(&ps, pi, job->aad, job->aad_len);
		if (job->dir == VECSEC_AEAD_SEAL) {
			rest = sbuf + CHACHA_BLOCK_LEN;
			if (job->len > 0)
				memcpy(job->out, sbuf + CHACHA_BLOCK_LEN, job->len);
		} else {
			rest = job->in;
		}
		short_job = true;
		goto lengths;
	}
	tail = job->len % sk->step;
	body = job->len - tail;
	if (sk->otk_tail != NULL && tail != 0 && tail <= sk->max_tail && tail <= SHORT_MAX) {
		/*
		 * One-time key and tail in one pass; the kernel does the body.
		 * Open decrypts the tail into sbuf, released once the tag matched.
		 */
		const bool seal = job->dir == VECSEC_AEAD_SEAL;

		sk->otk_tail(job, &st, otk, seal ? job->out + body : sbuf, job->in + body, tail,
			     body);
		vecsec_poly1305_core_init(&ps, otk);
		if (job->aad_len > 0)
			mac_padded(&ps, pi, job->aad, job->aad_len);
		if (seal) {
			done = sk->seal(&st, &ps, job->out, job->in, body);
			rest = job->out + done;
		} else {
			sbuf_len = tail;
			done = sk->open(&st, &ps, job->out, job->in, body);
			rest = job->in + done;
			tail_staged = true;
		}
		goto lengths;
	}
	vecsec_chacha_xor_impl(ci, &st, otk, zeros, sizeof(otk));
	vecsec_poly1305_core_init(&ps, otk);
	if (job->aad_len > 0)
		mac_padded(&ps, pi, job->aad, job->aad_len);
	if (job->dir == VECSEC_AEAD_SEAL) {
		/* the kernel encrypts all of it, and MACs done bytes */
		done = sk->seal(&st, &ps, job->out, job->in, job->len);
		rest = job->out + done;
	} else {
		done = sk->open(&st, &ps, job->out, job->in, job->len);
		/* the rest is decrypted only once the tag matched */
		rest = job->in + done;
	}
lengths:
	/* the data's last len - done bytes at rest, padded, and the lengths block */
	mac_last(&ps, pi, rest, job->len - done, job->aad_len, job->len);
	vecsec_poly1305_tag(tag, ps.h, otk + 16);
	if (job->dir == VECSEC_AEAD_SEAL) {
		memcpy(job->tag, tag, VECSEC_AEAD_TAG_LEN);
	} else {
		rc = vecsec_chachapoly_verify(job, tag);     /* wipes the kernel's part too */
		if (rc == 0 && tail_staged)
			memcpy(job->out + done, sbuf, tail);
		else if (rc == 0 && short_job && job->len > 0)
			memcpy(job->out, sbuf + CHACHA_BLOCK_LEN, job->len);
		else if (rc == 0 && !short_job && !tail_staged)
			vecsec_chacha_xor_impl(ci, &st, job->out + done, job->in + done,
					       job->len - done);
	}
	vecsec_memzero(&st, sizeof(st));
	vecsec_memzero(&ps, sizeof(ps));
	vecsec_memzero(otk, sizeof(otk));
	vecsec_memzero(tag, sizeof(tag));
	vecsec_memzero(sbuf, sbuf_len);
	return rc;
}

static int
run(enum vecsec_isa level, const struct vecsec_aead_job *job, bool xchacha)
{
	const struct chachapoly_impl *sk;
	const struct chacha_impl *ci;
	struct chachapoly_run r;
	uint8_t tag[VECSEC_AEAD_TAG_LEN];
	int rc = 0;

	if (job->nonce_len != (xchacha ? VECSEC_XCHACHAPOLY_NONCE_LEN :
					 VECSEC_CHACHAPOLY_NONCE_LEN) ||
	    job->tag_len != VECSEC_AEAD_TAG_LEN)
		return -EINVAL;
	if (!xchacha && (uint64_t)job->len > CHACHAPOLY_MAX_LEN)
		return -EINVAL;
	/* linear, and (XChaCha) the 32-bit word 12 cannot wrap */
	if (vecsec_job_linear(job) && (uint64_t)job->len <= CHACHAPOLY_MAX_LEN &&
	    (sk = stitch_at(level, job->len)) != NULL) {
		const bool short_job = sk->short_run != NULL && job->len <= short_max_of(sk);

		/* IETF: the short path takes its state from the key and nonce */
		if (short_job && !xchacha)
			return sk->short_run(job, NULL);
		if (sk->linear != NULL || short_job) {
			struct chacha_state st;

			job_state(&st, job);
			rc = short_job ? sk->short_run(job, &st) : sk->linear(job, &st);
			vecsec_wipe(&st, sizeof(st));
			return rc;
		}
		return chachapoly_run_stitched(sk, vecsec_chacha_impl_at(level),
					       vecsec_poly1305_impl_at(level), job);
	}
	ci = vecsec_chacha_impl_at(level);

	run_start(&r, job, ci, level);
	if (job->dir == VECSEC_AEAD_SEAL) {
		run_crypt(&r, job, true);
		run_finish(&r, job, job->tag);
	} else {
		struct job_cursor c;
		const uint8_t *p;
		size_t n;

		/* pass 1: MAC the ciphertext, release nothing before the tag matched */
		vecsec_job_cursor_in(&c, job);
		while ((p = vecsec_job_cursor_next(&c, 0, &n)) != NULL)
			vecsec_poly1305_update(&r.mac, p, n);
		run_finish(&r, job, tag);
		rc = vecsec_chachapoly_verify(job, tag);
		if (rc == 0)
			run_crypt(&r, job, false);      /* pass 2: decrypt */
	}
	vecsec_memzero(&r, sizeof(r));
	vecsec_memzero(tag, sizeof(tag));
	return rc;
}

int
vecsec_chachapoly_run(enum vecsec_isa level, const struct vecsec_aead_job *job)
{
	return run(level, job, false);
}

int
vecsec_xchachapoly_run(enum vecsec_isa level, const struct vecsec_aead_job *job)
{
	return run(level, job, true);
}
