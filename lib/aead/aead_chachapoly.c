/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AEAD ops for ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha-03 2.3: HChaCha20 subkey, ChaCha20 with nonce
 * 00000000 || nonce[16..24]; the construction of libsodium's
 * crypto_aead_xchacha20poly1305_ietf). Portable C over the dispatched ChaCha
 * and Poly1305 kernels, streaming over the segment cursors so scatter-gather
 * lists with segments of any size (one byte, empty) give the linear result.
 * Open MACs the ciphertext first and decrypts only after the tag matched.
 * Linear jobs go through a stitched one-pass kernel when the dispatch has
 * one (chachapoly_internal.h); its open decrypts while it MACs and wipes
 * the output if the tag then fails.
 */
#include <errno.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_poly1305.h"
#include "aead_internal.h"
#include "chacha/chacha_internal.h"
#include "chachapoly_internal.h"

/* RFC 8439 2.8: counter 1..2^32-1 for the data, block 0 gives the MAC key */
#define CHACHAPOLY_MAX_LEN (((UINT64_C(1) << 32) - 1) * CHACHA_BLOCK_LEN)

struct chachapoly_run {
	struct chacha_state st;
	struct vecsec_poly1305_ctx mac;
	uint8_t ks[CHACHA_BLOCK_LEN];   /* keystream of the current partial block */
	size_t ks_used;                 /* bytes of ks already used (64: none left) */
};

static int
chachapoly_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len)
{
	if (key_len != VECSEC_CHACHAPOLY_KEY_LEN)
		return -EINVAL;
	memcpy(k->opaque, key, VECSEC_CHACHAPOLY_KEY_LEN);
	return 0;
}

static const uint8_t zeros[CHACHA_BLOCK_LEN];

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
run_start(struct chachapoly_run *r, const struct vecsec_aead_job *job, bool xchacha)
{
	const uint8_t *key = (const uint8_t *)job->key->opaque;
	uint8_t otk[CHACHA_BLOCK_LEN];

	if (xchacha) {
		uint8_t subkey[CHACHA_KEY_LEN];

		/*
		 * draft-irtf-cfrg-xchacha 2.3. Words 12-13 as a 64-bit counter: the
		 * same as the draft's 4 zero bytes while the counter is below 2^32,
		 * and like libsodium (which carries into word 13) above it.
		 */
		vecsec_hchacha_ref(subkey, key, job->nonce, 20);
		chacha_state_init_64(&r->st, subkey, job->nonce + HCHACHA_NONCE_LEN, 0, 20);
		vecsec_memzero(subkey, sizeof(subkey));
	} else {
		chacha_state_init_ietf(&r->st, key, job->nonce, 0, 20);
	}
	vecsec_chacha_xor_state(&r->st, otk, zeros, sizeof(otk));
	vecsec_poly1305_init(&r->mac, otk);
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
	uint64_t a = job->aad_len, c = job->len;

	mac_pad16(&r->mac, job->len);
	for (int i = 0; i < 8; i++) {
		lens[i] = (uint8_t)(a >> (8 * i));
		lens[8 + i] = (uint8_t)(c >> (8 * i));
	}
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
		vecsec_chacha_xor_state(&r->st, out, in, k);
		out += k;
		in += k;
		n -= k;
	}
	if (n > 0) {
		vecsec_chacha_xor_state(&r->st, r->ks, zeros, CHACHA_BLOCK_LEN);
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

/* Absorb len bytes zero-padded to whole blocks (RFC 8439 2.8 pad16). */
static void
mac_padded(struct poly1305_state *ps, const struct poly1305_impl *pi, const uint8_t *p,
	   size_t len)
{
	uint8_t blk[16] = { 0 };
	size_t nb = len / 16;

	if (nb > 0)
		pi->blocks(ps, p, nb, 1);
	if (len % 16 != 0) {
		memcpy(blk, p + 16 * nb, len % 16);
		pi->blocks(ps, blk, 1, 1);
		vecsec_memzero(blk, sizeof(blk));
	}
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
 * job shorter than a step, is released only after the tag matched.
 */
static int
chachapoly_run_stitched(const struct chachapoly_impl *sk, const struct vecsec_aead_job *job,
			bool xchacha)
{
	const struct poly1305_impl *pi = vecsec_poly1305_impl();
	struct chacha_state st;
	struct poly1305_state ps;
	uint8_t otk[CHACHA_BLOCK_LEN], lens[16], tag[VECSEC_AEAD_TAG_LEN];
	uint8_t sbuf[CHACHA_BLOCK_LEN + SHORT_MAX] __attribute__((aligned(64)));
	uint64_t a = job->aad_len, c = job->len;
	size_t done = 0, sbuf_len = 0, tail, body;
	bool short_job = false;
	int rc = 0;

	if (xchacha) {
		uint8_t subkey[CHACHA_KEY_LEN];

		/* as run_start(): draft-irtf-cfrg-xchacha 2.3 */
		vecsec_hchacha_ref(subkey, (const uint8_t *)job->key->opaque, job->nonce, 20);
		chacha_state_init_64(&st, subkey, job->nonce + HCHACHA_NONCE_LEN, 0, 20);
		vecsec_memzero(subkey, sizeof(subkey));
	} else {
		chacha_state_init_ietf(&st, (const uint8_t *)job->key->opaque, job->nonce, 0, 20);
	}
	if (job->len < sk->min_len && job->len <= SHORT_MAX) {
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
		vecsec_chacha_xor_state(&st, sbuf, sbuf, sbuf_len);
		memcpy(otk, sbuf, sizeof(otk));
		vecsec_poly1305_core_init(&ps, otk);
		if (job->aad_len > 0)
			mac_padded(&ps, pi, job->aad, job->aad_len);
		if (job->dir == VECSEC_AEAD_SEAL) {
			mac_padded(&ps, pi, sbuf + CHACHA_BLOCK_LEN, job->len);
			if (job->len > 0)
				memcpy(job->out, sbuf + CHACHA_BLOCK_LEN, job->len);
		} else {
			mac_padded(&ps, pi, job->in, job->len);
		}
		short_job = true;
		goto lengths;
	}
	tail = job->len % sk->min_len;
	body = job->len - tail;
	if (job->dir == VECSEC_AEAD_SEAL && sk->otk_tail != NULL && tail != 0 &&
	    tail <= sk->max_tail) {
		/* one-time key and tail in one pass; the kernel does the body */
		sk->otk_tail(&st, otk, job->out + body, job->in + body, tail, body);
		vecsec_poly1305_core_init(&ps, otk);
		if (job->aad_len > 0)
			mac_padded(&ps, pi, job->aad, job->aad_len);
		done = sk->seal(&st, &ps, job->out, job->in, body);
		mac_padded(&ps, pi, job->out + done, job->len - done);
		goto lengths;
	}
	vecsec_chacha_xor_state(&st, otk, zeros, sizeof(otk));
	vecsec_poly1305_core_init(&ps, otk);
	if (job->aad_len > 0)
		mac_padded(&ps, pi, job->aad, job->aad_len);
	if (job->dir == VECSEC_AEAD_SEAL) {
		/* the kernel encrypts all of it, and MACs done bytes */
		done = sk->seal(&st, &ps, job->out, job->in, job->len);
		mac_padded(&ps, pi, job->out + done, job->len - done);
	} else {
		done = sk->open(&st, &ps, job->out, job->in, job->len);
		/* the rest is decrypted only once the tag matched */
		mac_padded(&ps, pi, job->in + done, job->len - done);
	}
lengths:
	for (int i = 0; i < 8; i++) {
		lens[i] = (uint8_t)(a >> (8 * i));
		lens[8 + i] = (uint8_t)(c >> (8 * i));
	}
	pi->blocks(&ps, lens, 1, 1);
	vecsec_poly1305_core_emit(&ps, tag);
	vecsec_poly1305_add_s(tag, tag, otk + 16);
	if (job->dir == VECSEC_AEAD_SEAL) {
		memcpy(job->tag, tag, VECSEC_AEAD_TAG_LEN);
	} else if (!vecsec_ct_eq(tag, job->tag, VECSEC_AEAD_TAG_LEN)) {
		vecsec_memzero(job->out, job->len);     /* the kernel's part too */
		rc = -EBADMSG;
	} else if (short_job) {
		if (job->len > 0)
			memcpy(job->out, sbuf + CHACHA_BLOCK_LEN, job->len);
	} else {
		vecsec_chacha_xor_state(&st, job->out + done, job->in + done, job->len - done);
	}
	vecsec_memzero(&st, sizeof(st));
	vecsec_memzero(&ps, sizeof(ps));
	vecsec_memzero(otk, sizeof(otk));
	vecsec_memzero(tag, sizeof(tag));
	vecsec_memzero(sbuf, sbuf_len);
	return rc;
}

static int
chachapoly_run(const struct vecsec_aead_job *job, bool xchacha)
{
	const struct chachapoly_impl *sk;
	struct chachapoly_run r;
	uint8_t tag[VECSEC_AEAD_TAG_LEN];
	int rc = 0;

	if (job->nonce_len != (xchacha ? VECSEC_XCHACHAPOLY_NONCE_LEN :
					 VECSEC_CHACHAPOLY_NONCE_LEN) ||
	    job->tag_len != VECSEC_AEAD_TAG_LEN)
		return -EINVAL;
	if (!xchacha && (uint64_t)job->len > CHACHAPOLY_MAX_LEN)
		return -EINVAL;
	sk = vecsec_chachapoly_impl_for(job->len);
	/* linear, and (XChaCha) the 32-bit word 12 cannot wrap */
	if (sk != NULL && job->nb_in_segs == 0 && job->nb_out_segs == 0 &&
	    (uint64_t)job->len <= CHACHAPOLY_MAX_LEN)
		return chachapoly_run_stitched(sk, job, xchacha);

	run_start(&r, job, xchacha);
	if (job->dir == VECSEC_AEAD_SEAL) {
		run_crypt(&r, job, true);
		run_finish(&r, job, job->tag);
	} else {
		struct job_cursor ci;
		const uint8_t *p;
		size_t n;

		/* pass 1: MAC the ciphertext, release nothing before the tag matched */
		vecsec_job_cursor_in(&ci, job);
		while ((p = vecsec_job_cursor_next(&ci, 0, &n)) != NULL)
			vecsec_poly1305_update(&r.mac, p, n);
		run_finish(&r, job, tag);
		if (!vecsec_ct_eq(tag, job->tag, VECSEC_AEAD_TAG_LEN)) {
			vecsec_job_wipe_out(job);
			rc = -EBADMSG;
		} else {
			/* pass 2: decrypt */
			run_crypt(&r, job, false);
		}
	}
	vecsec_memzero(&r, sizeof(r));
	vecsec_memzero(tag, sizeof(tag));
	return rc;
}

static int
chacha20_poly1305_run(const struct vecsec_aead_job *job)
{
	return chachapoly_run(job, false);
}

static int
xchacha20_poly1305_run(const struct vecsec_aead_job *job)
{
	return chachapoly_run(job, true);
}

const struct aead_ops vecsec_aead_ops_chacha20_poly1305 = {
	.alg = VECSEC_AEAD_CHACHA20_POLY1305,
	.name = "chacha20-poly1305",
	.key_init = chachapoly_key_init,
	.run = chacha20_poly1305_run,
};

const struct aead_ops vecsec_aead_ops_xchacha20_poly1305 = {
	.alg = VECSEC_AEAD_XCHACHA20_POLY1305,
	.name = "xchacha20-poly1305",
	.key_init = chachapoly_key_init,
	.run = xchacha20_poly1305_run,
};
