/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AEAD ops for ChaCha20-Poly1305 (RFC 8439 2.8) and XChaCha20-Poly1305
 * (draft-irtf-cfrg-xchacha-03 2.3: HChaCha20 subkey, ChaCha20 with nonce
 * 00000000 || nonce[16..24]; the construction of libsodium's
 * crypto_aead_xchacha20poly1305_ietf). Portable C over the dispatched ChaCha
 * and Poly1305 kernels, streaming over the segment cursors so scatter-gather
 * lists with segments of any size (one byte, empty) give the linear result.
 * Open MACs the ciphertext first and decrypts only after the tag matched.
 */
#include <errno.h>
#include <string.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_poly1305.h"
#include "aead_internal.h"
#include "chacha/chacha_internal.h"

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

/*
 * Walk input and output together in runs contiguous in both; a copy of a
 * cursor peeks at how long its current run is.
 */
static void
run_crypt(struct chachapoly_run *r, const struct vecsec_aead_job *job, bool mac_out)
{
	struct aead_cursor ci, co;

	vecsec_aead_cursor_in(&ci, job);
	vecsec_aead_cursor_out(&co, job);
	for (;;) {
		struct aead_cursor pi = ci, po = co;
		size_t ni, no, n;
		uint8_t *in, *out;

		if (vecsec_aead_cursor_next(&pi, 0, &ni) == NULL ||
		    vecsec_aead_cursor_next(&po, 0, &no) == NULL)
			break;
		n = ni < no ? ni : no;
		in = vecsec_aead_cursor_next(&ci, n, &ni);
		out = vecsec_aead_cursor_next(&co, n, &no);
		run_xor(r, out, in, n);
		if (mac_out)
			vecsec_poly1305_update(&r->mac, out, n);
	}
}

static int
chachapoly_run(const struct vecsec_aead_job *job, bool xchacha)
{
	struct chachapoly_run r;
	uint8_t tag[VECSEC_AEAD_TAG_LEN];
	int rc = 0;

	if (job->nonce_len != (xchacha ? VECSEC_XCHACHAPOLY_NONCE_LEN :
					 VECSEC_CHACHAPOLY_NONCE_LEN) ||
	    job->tag_len != VECSEC_AEAD_TAG_LEN)
		return -EINVAL;
	if (!xchacha && (uint64_t)job->len > CHACHAPOLY_MAX_LEN)
		return -EINVAL;

	run_start(&r, job, xchacha);
	if (job->dir == VECSEC_AEAD_SEAL) {
		run_crypt(&r, job, true);
		run_finish(&r, job, job->tag);
	} else {
		struct aead_cursor ci;
		const uint8_t *p;
		size_t n;

		/* pass 1: MAC the ciphertext, release nothing before the tag matched */
		vecsec_aead_cursor_in(&ci, job);
		while ((p = vecsec_aead_cursor_next(&ci, 0, &n)) != NULL)
			vecsec_poly1305_update(&r.mac, p, n);
		run_finish(&r, job, tag);
		if (!vecsec_ct_eq(tag, job->tag, VECSEC_AEAD_TAG_LEN)) {
			vecsec_aead_wipe_out(job);
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
