/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/aead with ChaCha20-Poly1305 and XChaCha20-Poly1305: RFC 8439 (2.8.2,
 * A.5), the ESP form (RFC 7634: key || salt, salt || IV, SPI || seq AAD) and
 * draft-irtf-cfrg-xchacha A.3.1 known answers; seal == OpenSSL / libsodium
 * on every length 0..1024 and random lengths to 64 KiB with AAD 0..64 and
 * 256, offsets, in place and out of place, guard bytes, PROT_NONE page
 * ends; open restores; every single-bit forgery fails with a zeroed
 * output; scatter-gather (one-byte, odd, empty segments) == linear;
 * argument and length checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_avx2vl.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_esp.h"
#include "job/job_internal.h"
#include "chacha/chacha_internal.h"
#include "chachapoly/chachapoly_knobs.h"
#include "rfc8439.h"
#include "rfc7634.h"
#include "xchacha.h"

#define MAXLEN (64 * 1024)

static bool slow;

static const enum vecsec_aead_alg algs[] = {
	VECSEC_AEAD_CHACHA20_POLY1305,
	VECSEC_AEAD_XCHACHA20_POLY1305,
};

/*
 * A known answer through the one-shot API: seal pt (n bytes) into out and
 * tag == ct and want, then open ct (in place: out, holding ct) == pt.
 */
static void
kat_seal_open(const char *name, const struct vecsec_aead_key *k, uint8_t *out,
	      const uint8_t *pt, const uint8_t *ct, const uint8_t want[16], size_t n,
	      const uint8_t *nonce, size_t nl, const uint8_t *aad, size_t alen, bool in_place)
{
	uint8_t tag[16];

	VT_EXPECT(vecsec_aead_seal(k, out, tag, 16, pt, n, nonce, nl, aad, alen) == 0,
		  "%s: seal", name);
	VT_EXPECT_MEM(out, ct, n, "%s: ciphertext", name);
	VT_EXPECT_MEM(tag, want, 16, "%s: tag", name);
	if (in_place) {
		VT_EXPECT(vecsec_aead_open(k, out, out, n, tag, 16, nonce, nl, aad, alen) == 0,
			  "%s: open in place", name);
	} else {
		memset(out, 0, n);
		VT_EXPECT(vecsec_aead_open(k, out, ct, n, want, 16, nonce, nl, aad, alen) == 0,
			  "%s: open", name);
	}
	VT_EXPECT_MEM(out, pt, n, "%s: decrypted", name);
}

static void
test_rfc8439_kat(void)
{
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_aead); v++) {
		const struct rfc8439_aead_vec *t = &rfc8439_aead[v];
		uint8_t key[32], nonce[12], aad[16], pt[512], ct[512], out[512], want[16];
		struct vecsec_aead_key k;
		size_t n, alen;

		vt_hex(key, sizeof(key), t->key);
		vt_hex(nonce, sizeof(nonce), t->nonce);
		alen = vt_hex(aad, sizeof(aad), t->aad);
		n = vt_hex_or_text(pt, sizeof(pt), t->pt_hex, t->pt_text);
		VT_EXPECT(n == t->len, "%s: plaintext length %zu", t->name, n);
		vt_hex(ct, sizeof(ct), t->ct);
		vt_hex(want, sizeof(want), t->tag);
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0,
			  "key");
		kat_seal_open(t->name, &k, out, pt, ct, want, n, nonce, 12, aad, alen, false);
		vecsec_aead_key_wipe(&k);
	}
}

/* RFC 7634: the same vectors through vecsec_esp_key_init/_nonce/_aad */
static void
test_rfc7634_esp(void)
{
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc7634_esp); v++) {
		const struct rfc7634_esp_vec *e = &rfc7634_esp[v];
		const struct rfc8439_aead_vec *t = e->aead;
		uint8_t keymat[36], iv[8], nonce[12], aad[12], want_nonce[12], want_aad[16];
		uint8_t pt[512], ct[512], out[512], want[16];
		struct vecsec_aead_key k;
		size_t n, alen;

		VT_EXPECT(vt_hex(keymat, sizeof(keymat), e->keymat) == 36, "%s keymat", e->name);
		vt_hex(iv, sizeof(iv), e->iv);
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, keymat, 36) == 0,
			  "%s: esp key", e->name);
		vecsec_esp_nonce(nonce, &k, iv);
		vt_hex(want_nonce, sizeof(want_nonce), t->nonce);
		VT_EXPECT_MEM(nonce, want_nonce, 12, "%s: salt || IV", e->name);
		alen = vecsec_esp_aad(aad, e->spi, e->seq, e->esn);
		VT_EXPECT(alen == vt_hex(want_aad, sizeof(want_aad), t->aad), "%s: aad len",
			  e->name);
		VT_EXPECT_MEM(aad, want_aad, alen, "%s: SPI || seq-hi || seq-lo", e->name);

		n = vt_hex_or_text(pt, sizeof(pt), t->pt_hex, t->pt_text);
		vt_hex(ct, sizeof(ct), t->ct);
		vt_hex(want, sizeof(want), t->tag);
		kat_seal_open(e->name, &k, out, pt, ct, want, n, nonce, 12, aad, alen, true);
		vecsec_aead_key_wipe(&k);
	}
}

/* RFC 7634 Appendix B (ESP) and C (IKEv2) */
static void
test_rfc7634_appendix(void)
{
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc7634_appendix); v++) {
		const struct rfc7634_vec *t = &rfc7634_appendix[v];
		uint8_t keymat[36], iv[8], nonce[12], aad[64], pt[128], ct[128], out[128];
		uint8_t want[16];
		struct vecsec_aead_key k;
		size_t n, alen;

		VT_EXPECT(vt_hex(keymat, sizeof(keymat), t->keymat) == 36, "%s keymat", t->name);
		vt_hex(iv, sizeof(iv), t->iv);
		n = vt_hex(pt, sizeof(pt), t->pt);
		VT_EXPECT(vt_hex(ct, sizeof(ct), t->ct) == n, "%s lengths", t->name);
		vt_hex(want, sizeof(want), t->tag);
		if (t->aad_hex != NULL)
			alen = vt_hex(aad, sizeof(aad), t->aad_hex);
		else
			alen = vecsec_esp_aad(aad, t->spi, t->seq, false);
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, keymat, 36) == 0,
			  "%s key", t->name);
		vecsec_esp_nonce(nonce, &k, iv);
		kat_seal_open(t->name, &k, out, pt, ct, want, n, nonce, 12, aad, alen, false);
		vecsec_aead_key_wipe(&k);
	}
}

static void
test_xchacha_kat(void)
{
	uint8_t key[32], nonce[24], aad[16], pt[256], ct[256], out[256], tag[16], want[16];
	struct vecsec_aead_key k;
	size_t n, alen;

	vt_hex(key, sizeof(key), xchacha_aead_key);
	vt_hex(nonce, sizeof(nonce), xchacha_aead_nonce);
	alen = vt_hex(aad, sizeof(aad), xchacha_aead_aad);
	n = vt_hex(pt, sizeof(pt), xchacha_aead_pt);
	VT_EXPECT(vt_hex(ct, sizeof(ct), xchacha_aead_ct) == n && n == 114, "lengths");
	vt_hex(want, sizeof(want), xchacha_aead_tag);
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_XCHACHA20_POLY1305, key, 32) == 0, "key");
	VT_EXPECT(vecsec_aead_seal(&k, out, tag, 16, pt, n, nonce, 24, aad, alen) == 0, "seal");
	VT_EXPECT_MEM(out, ct, n, "draft-irtf-cfrg-xchacha A.3.1 ciphertext");
	VT_EXPECT_MEM(tag, want, 16, "draft-irtf-cfrg-xchacha A.3.1 tag");
	VT_EXPECT(vecsec_aead_open(&k, out, ct, n, want, 16, nonce, 24, aad, alen) == 0, "open");
	VT_EXPECT_MEM(out, pt, n, "A.3.1 decrypted");
	vecsec_aead_key_wipe(&k);
}

/* One case: seal == oracle (out of place and in place), open restores. */
static void
oracle_case(enum vecsec_aead_alg alg, struct vt_buf *g, const uint8_t *src, size_t len,
	    size_t aad_len, size_t off, uint64_t seed)
{
	uint8_t key[32], nonce[24], aad[256], tag[16], wtag[16];
	uint8_t *want = malloc(len + 1);
	struct vecsec_aead_key k;
	size_t nl = vt_nonce_len(alg);
	const char *an = vecsec_aead_alg_name(alg);

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(aad, sizeof(aad), seed + 2);
	vt_oracle_seal(alg, want, wtag, src, len, key, nonce, aad, aad_len);
	vecsec_aead_key_init(&k, alg, key, 32);

	vt_buf_reset(g);
	VT_EXPECT(vecsec_aead_seal(&k, g->data + off, tag, 16, src, len, nonce, nl, aad,
				   aad_len) == 0, "%s seal len=%zu", an, len);
	VT_EXPECT_MEM(g->data + off, want, len, "%s ct len=%zu aad=%zu off=%zu seed=%llu", an, len,
		      aad_len, off, (unsigned long long)seed);
	VT_EXPECT_MEM(tag, wtag, 16, "%s tag len=%zu aad=%zu seed=%llu", an, len, aad_len,
		      (unsigned long long)seed);
	VT_EXPECT_GUARDS(g, off, len);
	/* open in place */
	VT_EXPECT(vecsec_aead_open(&k, g->data + off, g->data + off, len, tag, 16, nonce, nl, aad,
				   aad_len) == 0, "%s open len=%zu", an, len);
	VT_EXPECT_MEM(g->data + off, src, len, "%s open len=%zu off=%zu", an, len, off);
	VT_EXPECT_GUARDS(g, off, len);
	/* seal in place */
	VT_EXPECT(vecsec_aead_seal(&k, g->data + off, tag, 16, g->data + off, len, nonce, nl, aad,
				   aad_len) == 0, "%s seal in place", an);
	VT_EXPECT_MEM(g->data + off, want, len, "%s in-place ct len=%zu", an, len);
	VT_EXPECT_MEM(tag, wtag, 16, "%s in-place tag len=%zu", an, len);
	vecsec_aead_key_wipe(&k);
	free(want);
}

static void
test_vs_oracles(void)
{
	struct vt_buf small, big;
	uint64_t seed = vt_seed(), st = seed;
	uint8_t *src = malloc(MAXLEN);
	unsigned int nrand = slow ? 100 : 8;

	vt_buf_init(&small, 1024 + 64);
	vt_buf_init(&big, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
		for (size_t len = 0; len <= 1024; len++) {
			size_t aad_len = len % 11 == 0 ? 256 : len % 65;

			oracle_case(algs[a], &small, src + len % 17, len, aad_len, (len * 7) % 64,
				    seed + len + 5000 * a);
		}
		for (unsigned int i = 0; i < nrand; i++)
			oracle_case(algs[a], &big, src, vt_below(&st, MAXLEN + 1),
				    vt_below(&st, 65), vt_below(&st, 64), seed + 77 * i);
	}
	vt_buf_free(&small);
	vt_buf_free(&big);
	free(src);
}

/*
 * Forgeries: every single-bit flip of tag, AAD and ciphertext must give
 * -EBADMSG and a zeroed output (out of place and in place).
 */
static void
test_forgery(void)
{
	enum { len = 67, aad_len = 13 };

	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
		uint8_t key[32], nonce[24], aad[aad_len], pt[len], ct[len], tag[16], out[len];
		struct vecsec_aead_key k;
		size_t nl = vt_nonce_len(algs[a]);
		const char *an = vecsec_aead_alg_name(algs[a]);

		vt_rand(key, sizeof(key), 41 + a);
		vt_rand(nonce, sizeof(nonce), 42);
		vt_rand(aad, sizeof(aad), 43);
		vt_rand(pt, sizeof(pt), 44);
		vecsec_aead_key_init(&k, algs[a], key, 32);
		vecsec_aead_seal(&k, ct, tag, 16, pt, len, nonce, nl, aad, aad_len);
		for (size_t bit = 0; bit < 8 * (16 + aad_len + len); bit++) {
			uint8_t *p;
			size_t i;
			int rc;

			if (bit < 128) {
				p = tag;
				i = bit;
			} else if (bit < 128 + 8 * aad_len) {
				p = aad;
				i = bit - 128;
			} else {
				p = ct;
				i = bit - 128 - 8 * aad_len;
			}
			p[i / 8] ^= (uint8_t)(1u << (i % 8));
			memset(out, 0x5a, sizeof(out));
			rc = vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, nl, aad, aad_len);
			VT_EXPECT(rc == -EBADMSG, "%s bit %zu accepted (rc %d)", an, bit, rc);
			VT_EXPECT_ZERO(out, len, "%s bit %zu: output not zeroed", an, bit);
			p[i / 8] ^= (uint8_t)(1u << (i % 8));
		}
		/* in place: the buffer is zeroed too */
		tag[5] ^= 0x10;
		memcpy(out, ct, len);
		VT_EXPECT(vecsec_aead_open(&k, out, out, len, tag, 16, nonce, nl, aad, aad_len) ==
			  -EBADMSG, "%s in place forgery", an);
		VT_EXPECT_ZERO(out, len, "%s in place zeroed", an);
		tag[5] ^= 0x10;
		/* wrong nonce, wrong key */
		nonce[nl - 1] ^= 1;
		VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, nl, aad, aad_len) ==
			  -EBADMSG, "%s nonce", an);
		nonce[nl - 1] ^= 1;
		key[0] ^= 1;
		vecsec_aead_key_init(&k, algs[a], key, 32);
		VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, nl, aad, aad_len) ==
			  -EBADMSG, "%s key", an);
		/* truncated AAD, empty message */
		VT_EXPECT(vecsec_aead_open(&k, out, ct, 0, tag, 16, nonce, nl, aad, 0) == -EBADMSG,
			  "%s empty", an);
		vecsec_aead_key_wipe(&k);
	}
}

/* Scatter-gather (both directions, in place and not) == linear */
static void
test_scatter_gather(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0x9e37;
	unsigned int iters = slow ? 600 : 120;
	uint8_t *src = malloc(4096), *lin = malloc(4096), *got = malloc(4096);

	vt_rand(src, 4096, seed);
	for (unsigned int it = 0; it < iters; it++) {
		enum vecsec_aead_alg alg = algs[it % 2];
		size_t len = it < 40 ? it * 3 : vt_below(&st, it % 7 == 0 ? 4096 : 700);
		size_t aad_len = vt_below(&st, 40), nl = vt_nonce_len(alg);
		enum vt_sg_style sin = vt_below(&st, 3) == 0 ? VT_SG_ONES : VT_SG_RANDOM;
		enum vt_sg_style sout = vt_below(&st, 3) == 0 ? VT_SG_ONES : VT_SG_RANDOM;
		uint8_t key[32], nonce[24], aad[40], tag[16], ltag[16];
		struct vecsec_aead_key k;
		struct vt_sg in, out;
		struct vecsec_aead_job job;
		struct vecsec_aead_job *jp = &job;
		bool in_place = it % 3 == 0;

		vt_rand(key, sizeof(key), seed + it);
		vt_rand(nonce, sizeof(nonce), seed + it + 1);
		vt_rand(aad, sizeof(aad), seed + it + 2);
		vecsec_aead_key_init(&k, alg, key, 32);
		vecsec_aead_seal(&k, lin, ltag, 16, src, len, nonce, nl, aad, aad_len);

		vt_sg_make(&in, len, sin, &st);
		vt_sg_make(&out, len, sout, &st);
		vt_sg_scatter(&in, src);
		memset(&job, 0, sizeof(job));
		job.key = &k;
		job.dir = VECSEC_AEAD_SEAL;
		job.nonce = nonce;
		job.nonce_len = nl;
		job.aad = aad;
		job.aad_len = aad_len;
		job.len = len;
		job.in_segs = in.segs;
		job.nb_in_segs = in.nb;
		job.out_segs = in_place ? in.segs : out.segs;
		job.nb_out_segs = in_place ? in.nb : out.nb;
		job.tag = tag;
		job.tag_len = 16;
		VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 && job.status == VECSEC_JOB_OK,
			  "sg seal status %u", job.status);
		vt_sg_gather(in_place ? &in : &out, got);
		VT_EXPECT_MEM(got, lin, len, "%s sg seal len=%zu it=%u in_place=%d",
			      vecsec_aead_alg_name(alg), len, it, in_place);
		VT_EXPECT_MEM(tag, ltag, 16, "sg seal tag len=%zu it=%u", len, it);
		VT_EXPECT(vt_sg_guards_ok(&out), "out segs: write outside, it=%u", it);
		VT_EXPECT(vt_sg_guards_ok(&in), "in segs: write outside, it=%u", it);

		/* open it back: ciphertext scattered as input, plaintext out */
		vt_sg_scatter(&in, lin);
		job.dir = VECSEC_AEAD_OPEN;
		memcpy(tag, ltag, 16);
		VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 && job.status == VECSEC_JOB_OK,
			  "sg open status %u it=%u", job.status, it);
		vt_sg_gather(in_place ? &in : &out, got);
		VT_EXPECT_MEM(got, src, len, "sg open len=%zu it=%u", len, it);
		/* a forged sg open zeroes every output segment */
		if (len > 0) {
			vt_sg_scatter(&in, lin);
			tag[0] ^= 1;
			VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 &&
				  job.status == VECSEC_JOB_AUTH_FAILED, "sg forged it=%u", it);
			vt_sg_gather(in_place ? &in : &out, got);
			VT_EXPECT_ZERO(got, len, "sg forged output zeroed it=%u", it);
			VT_EXPECT(vt_sg_guards_ok(in_place ? &in : &out), "forged: outside, it=%u",
				  it);
		}
		vt_sg_free(&in);
		vt_sg_free(&out);
		vecsec_aead_key_wipe(&k);
	}
	free(src);
	free(lin);
	free(got);
}

/* The segment cursor (aead_internal.h) every algorithm walks jobs with */
static void
test_cursor(void)
{
	uint8_t mem[64];
	struct vecsec_seg segs[6] = {
		{ NULL, 0 }, { mem, 3 }, { mem + 10, 0 }, { mem + 20, 5 }, { NULL, 0 },
		{ mem + 40, 9 },
	};
	struct vecsec_aead_job job;
	struct job_cursor c;
	uint8_t *p;
	size_t n;

	memset(&job, 0, sizeof(job));
	job.in_segs = segs;
	job.nb_in_segs = 6;
	job.len = 12;                   /* ends 4 bytes into the last segment */
	vecsec_job_cursor_in(&c, &job);
	p = vecsec_job_cursor_next(&c, 2, &n);
	VT_EXPECT(p == mem && n == 2, "first run capped at max");
	p = vecsec_job_cursor_next(&c, 0, &n);
	VT_EXPECT(p == mem + 2 && n == 1, "rest of segment 1");
	p = vecsec_job_cursor_next(&c, 0, &n);
	VT_EXPECT(p == mem + 20 && n == 5, "empty segment skipped");
	p = vecsec_job_cursor_next(&c, 100, &n);
	VT_EXPECT(p == mem + 40 && n == 4, "last run stops at len");
	p = vecsec_job_cursor_next(&c, 0, &n);
	VT_EXPECT(p == NULL && n == 0, "end");

	/* linear */
	memset(&job, 0, sizeof(job));
	job.out = mem;
	job.len = 7;
	vecsec_job_cursor_out(&c, &job);
	p = vecsec_job_cursor_next(&c, 4, &n);
	VT_EXPECT(p == mem && n == 4, "linear 4");
	p = vecsec_job_cursor_next(&c, 4, &n);
	VT_EXPECT(p == mem + 4 && n == 3, "linear 3");
	VT_EXPECT(vecsec_job_cursor_next(&c, 4, &n) == NULL && n == 0, "linear end");

	/* wipe_out zeroes exactly the covered output */
	memset(mem, 0xa5, sizeof(mem));
	memset(&job, 0, sizeof(job));
	job.out_segs = segs;
	job.nb_out_segs = 6;
	job.len = 12;
	vecsec_job_wipe_out(&job);
	for (size_t i = 0; i < sizeof(mem); i++) {
		bool in = i < 3 || (i >= 20 && i < 25) || (i >= 40 && i < 44);

		VT_EXPECT(mem[i] == (in ? 0 : 0xa5), "wipe_out byte %zu", i);
	}
}

static void
test_page_end(void)
{
	uint8_t key[32], nonce[24], aad[16], src[200], want[200], wtag[16];

	vt_rand(key, sizeof(key), 7);
	vt_rand(nonce, sizeof(nonce), 8);
	vt_rand(aad, sizeof(aad), 9);
	vt_rand(src, sizeof(src), 10);
	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
		struct vecsec_aead_key k;
		size_t nl = vt_nonce_len(algs[a]);

		vecsec_aead_key_init(&k, algs[a], key, 32);
		for (size_t len = 0; len <= 200; len += 1 + len / 16) {
			struct vt_page_end pi, po, pt;

			vt_page_end_init(&pi, len);
			vt_page_end_init(&po, len);
			vt_page_end_init(&pt, 16);
			memcpy(pi.data, src, len);
			vt_oracle_seal(algs[a], want, wtag, src, len, key, nonce, aad, len % 17);
			VT_EXPECT(vecsec_aead_seal(&k, po.data, pt.data, 16, pi.data, len, nonce,
						   nl, aad, len % 17) == 0, "seal");
			VT_EXPECT_MEM(po.data, want, len, "page end ct len=%zu", len);
			VT_EXPECT_MEM(pt.data, wtag, 16, "page end tag len=%zu", len);
			VT_EXPECT(vecsec_aead_open(&k, pi.data, po.data, len, pt.data, 16, nonce,
						   nl, aad, len % 17) == 0, "open");
			VT_EXPECT_MEM(pi.data, src, len, "page end open len=%zu", len);
			vt_page_end_free(&pi);
			vt_page_end_free(&po);
			vt_page_end_free(&pt);
		}
		vecsec_aead_key_wipe(&k);
	}
}

static void
test_args(void)
{
	uint8_t key[36] = { 1 }, nonce[24] = { 0 }, buf[64] = { 0 }, tag[16] = { 0 };
	uint8_t aad[12];
	struct vecsec_aead_key k;

	VT_EXPECT(vecsec_aead_key_init(NULL, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == -EINVAL,
		  "NULL k");
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, NULL, 32) == -EINVAL,
		  "NULL key");
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 16) == -EINVAL,
		  "16-byte key");
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_NONE, key, 32) == -ENOTSUP, "NONE");
	VT_EXPECT(vecsec_aead_key_init(&k, (enum vecsec_aead_alg)99, key, 32) == -ENOTSUP, "99");
	VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_XCHACHA20_POLY1305, key, 36) == -ENOTSUP,
		  "xchacha has no ESP form");
	VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == -EINVAL,
		  "ESP keymat 32");
	VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 36) == 0, "ESP 36");
	VT_EXPECT(memcmp(k.salt, key + 32, 4) == 0, "salt kept");
	vecsec_aead_key_wipe(&k);
	/* the bytes a ChaCha20-Poly1305 key has (the header's line) */
	VT_EXPECT_ZERO(&k, vecsec_aead_key_size(VECSEC_AEAD_CHACHA20_POLY1305, 32), "key wiped");
	vecsec_aead_key_wipe(NULL);

	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0, "key");
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, 64, nonce, 24, NULL, 0) == -EINVAL,
		  "nonce 24 for chacha");
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 12, buf, 64, nonce, 12, NULL, 0) == -EINVAL,
		  "tag 12");
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, 64, NULL, 12, NULL, 0) == -EINVAL,
		  "NULL nonce");
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, 64, nonce, 12, NULL, 1) == -EINVAL,
		  "NULL aad");
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, 64, nonce, 12, buf,
				   VECSEC_AEAD_MAX_AAD_LEN + 1) == -EINVAL, "aad too long");
	VT_EXPECT(vecsec_aead_seal(&k, NULL, tag, 16, buf, 64, nonce, 12, NULL, 0) == -EINVAL,
		  "NULL out");
	VT_EXPECT(vecsec_aead_seal(&k, buf, NULL, 16, buf, 64, nonce, 12, NULL, 0) == -EINVAL,
		  "NULL tag");
	VT_EXPECT(vecsec_aead_seal(NULL, buf, tag, 16, buf, 64, nonce, 12, NULL, 0) == -EINVAL,
		  "NULL key object");
	/* RFC 8439 2.8: at most 2^32 - 1 blocks; checked before any byte is read */
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, (size_t)1 << 38, nonce, 12, NULL, 0) ==
		  -EINVAL, "2^38 bytes");
	VT_EXPECT(vecsec_aead_seal(&k, NULL, tag, 16, NULL, 0, nonce, 12, NULL, 0) == 0,
		  "empty message, NULL buffers");
	VT_EXPECT(vecsec_aead_open(&k, NULL, NULL, 0, tag, 16, nonce, 12, NULL, 0) == 0,
		  "empty open");
	VT_EXPECT(vecsec_aead_open(&k, buf, buf, 64, tag, 16, nonce, 11, NULL, 0) == -EINVAL,
		  "open nonce 11");
	vecsec_aead_key_wipe(&k);
	VT_EXPECT(vecsec_aead_seal(&k, buf, tag, 16, buf, 64, nonce, 12, NULL, 0) == -EINVAL,
		  "wiped key");

	/* ESP AAD without ESN: SPI || low 32 bits of seq */
	VT_EXPECT(vecsec_esp_aad(aad, 0x01020304, 0xaabbccdd11223344ULL, false) == 8, "aad 8");
	VT_EXPECT(memcmp(aad, "\x01\x02\x03\x04\x11\x22\x33\x44", 8) == 0, "SPI || seq");
	VT_EXPECT(vecsec_esp_aad(aad, 0x01020304, 0xaabbccdd11223344ULL, true) == 12, "aad 12");
	VT_EXPECT(memcmp(aad, "\x01\x02\x03\x04\xaa\xbb\xcc\xdd\x11\x22\x33\x44", 12) == 0, "ESN");
	VT_EXPECT(strcmp(vecsec_aead_alg_name(VECSEC_AEAD_CHACHA20_POLY1305),
			 "chacha20-poly1305") == 0, "name");
	VT_EXPECT(strcmp(vecsec_aead_alg_name(VECSEC_AEAD_XCHACHA20_POLY1305),
			 "xchacha20-poly1305") == 0, "name");
	VT_EXPECT(strcmp(vecsec_aead_alg_name(VECSEC_AEAD_ARIA_GCM), "aria-gcm") == 0, "name");
	VT_EXPECT(strcmp(vecsec_aead_alg_name((enum vecsec_aead_alg)42), "unknown") == 0, "name");
	{
		uint8_t blk[16], iv[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

		vecsec_esp_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 36);
		vecsec_esp_ctr_block(blk, &k, iv);
		VT_EXPECT(memcmp(blk, key + 32, 4) == 0 && memcmp(blk + 4, iv, 8) == 0 &&
			  memcmp(blk + 12, "\0\0\0\1", 4) == 0, "RFC 3686 counter block");
		vecsec_aead_key_wipe(&k);
	}
}

/*
 * The AVX2 kernels' plain forms: on a CPU with AVX-512VL/BW the AVX2 run
 * above took the single-message assembly's VL form (chacha_avx2.S, chachapoly_avx2.S
 * assembled again with -mavx512vl); here the same tests with the knob
 * off. A CPU without VL says so loudly, a failure where
 * VECSEC_TEST_REQUIRE_ISA asks for avx512 (or all).
 */
static void
test_avx2_plain_forms(void)
{
#if defined(__x86_64__)
	bool was;

	if (!vt_avx2_plain_begin("chachapoly", &was))
		return;
	test_rfc8439_kat();
	test_xchacha_kat();
	test_vs_oracles();
	test_forgery();
	test_scatter_gather();
	test_page_end();
	vt_avx2_plain_end(was);
#endif
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_rfc8439_kat),
		VT_TEST(test_rfc7634_esp),
		VT_TEST(test_rfc7634_appendix),
		VT_TEST(test_xchacha_kat),
		VT_TEST(test_vs_oracles),
		VT_TEST(test_forgery),
		VT_TEST(test_scatter_gather),
		VT_TEST(test_cursor),
		VT_TEST(test_page_end),
		VT_TEST(test_args),
		VT_TEST(test_avx2_plain_forms),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	if (sodium_init() < 0)
		return 2;
	return vt_main("chachapoly", tests, VT_ARRAY_SIZE(tests));
}
