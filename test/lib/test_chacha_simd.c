/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SIMD kernels called directly from their tables (each impl in the run
 * of the ISA loop that matches its level; an impl whose extra features the
 * CPU lacks prints a loud SKIP): ChaCha xor_blocks == reference ==
 * OpenSSL on every length 0..1024 and random lengths to 64 KiB, all 64
 * input and output offsets, in place and out of place, guard bytes,
 * PROT_NONE page ends, counters ending exactly at 2^32, RFC 8439 2.3.2/
 * 2.4.2/A.2 vectors; HChaCha kernels == reference (20/12/8 rounds) and
 * draft-irtf-cfrg-xchacha 2.2.1; Poly1305 blocks == reference (split calls, impls
 * mixed on one state, pad 0 and 1, all-ones data and r) == libsodium, RFC
 * 8439 2.5.2/A.3 vectors; the 64-bit counter carry of the XChaCha form ==
 * libsodium; the stitched ChaCha20-Poly1305 kernels == the two-pass
 * reference, and through the AEAD API stitched == two-pass == OpenSSL /
 * libsodium, RFC 8439 2.8.2/A.5 through the stitched wrapper, forgeries
 * on the stitched path give -EBADMSG and a zeroed output, and the
 * two-pass switch (VECSEC_CHACHAPOLY=twopass, modes) works; the
 * single-message short path is reached where the level has one and
 * matches the oracle both ways at every length up to it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "vt.h"
#include "vt_avx2vl.h"
#include "vt_chacha.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_chacha.h"
#include "chacha/chacha_internal.h"
#include "poly1305/poly1305_internal.h"
#include "chachapoly/chachapoly_internal.h"
#include "rfc8439.h"
#include "xchacha.h"

#define MAXLEN (64 * 1024)

static bool slow;

/*
 * True if impl (level isa, extra features needs) belongs to this run of
 * the ISA loop and the CPU has what it needs; a missing feature is a loud
 * SKIP.
 */
static bool
impl_here(const char *prim, const char *name, enum vecsec_isa isa, uint64_t needs)
{
	if (isa != vecsec_isa_cap())
		return false;
	if ((vecsec_cpu_features() & needs) != needs) {
		const char *req = getenv("VECSEC_TEST_REQUIRE_ISA");

		printf("\n    SKIP chacha_simd/%s/%s: CPU lacks features 0x%llx\n", prim, name,
		       (unsigned long long)(needs & ~vecsec_cpu_features()));
		fprintf(stderr, "SKIP chacha_simd/%s/%s: CPU lacks features 0x%llx\n", prim, name,
			(unsigned long long)(needs & ~vecsec_cpu_features()));
		/* a required level must have all its kernels (comma list or "all") */
		VT_EXPECT(req == NULL || (strcmp(req, "all") != 0 &&
					  strstr(req, vecsec_isa_name(isa)) == NULL),
			  "VECSEC_TEST_REQUIRE_ISA=%s but %s/%s cannot run", req, prim, name);
		return false;
	}
	printf("\n    %s impl %s", prim, name);
	return true;
}

/* ---- ChaCha ---- */

struct chacha_bufs {
	struct vt_buf g;      /* output, guarded */
	uint8_t *in;          /* input copy at an offset */
	uint8_t *want;
	uint8_t *ossl;
};

static void
chacha_case(const struct chacha_impl *im, struct chacha_bufs *b, const uint8_t *src, size_t len,
	    size_t in_off, size_t out_off, bool inplace, uint32_t ctr, unsigned int rounds,
	    uint64_t seed)
{
	struct chacha_state a, s;
	uint8_t key[32], nonce[12];
	uint8_t *out = b->g.data + out_off;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	chacha_state_init_ietf(&a, key, nonce, ctr, rounds);
	s = a;
	vecsec_chacha_xor_blocks_ref(b->want, src, len, &a);
	vt_buf_reset(&b->g);
	if (inplace) {
		memcpy(out, src, len);
		im->xor_blocks(out, out, len, &s);
	} else {
		memcpy(b->in + in_off, src, len);
		im->xor_blocks(out, b->in + in_off, len, &s);
		VT_EXPECT_MEM(b->in + in_off, src, len, "%s input changed len=%zu", im->name, len);
	}
	VT_EXPECT_MEM(out, b->want, len, "%s r=%u len=%zu in_off=%zu out_off=%zu inplace=%d ctr=%u",
		      im->name, rounds, len, in_off, out_off, inplace, ctr);
	VT_EXPECT_GUARDS(&b->g, out_off, len);
	VT_EXPECT(memcmp(&a, &s, sizeof(a)) == 0, "%s state after len=%zu ctr=%u", im->name, len,
		  ctr);
	if (rounds == 20) {
		vt_ossl_chacha20(b->ossl, src, len, key, nonce, ctr);
		VT_EXPECT_MEM(out, b->ossl, len, "%s vs OpenSSL len=%zu ctr=%u", im->name, len,
			      ctr);
	}
}

static void
test_chacha_kernels(void)
{
	static const unsigned int rounds[] = { 20, 12, 8 };
	uint64_t seed = vt_seed(), st = seed ^ 0x51dull;
	uint8_t *src = malloc(MAXLEN);
	struct chacha_bufs b;

	vt_buf_init(&b.g, MAXLEN + 64);
	b.in = malloc(MAXLEN + 64);
	b.want = malloc(MAXLEN);
	b.ossl = malloc(MAXLEN);
	vt_rand(src, MAXLEN, seed);
	for (size_t i = 0; vecsec_chacha_impls[i] != NULL; i++) {
		const struct chacha_impl *im = vecsec_chacha_impls[i];

		if (!impl_here("chacha", im->name, im->isa, im->needs))
			continue;
		for (size_t len = 0; len <= 1024; len++) {
			uint32_t nb = (uint32_t)((len + 63) / 64);
			/* every fifth length ends exactly at counter 2^32 (word 12 back to 0) */
			uint32_t ctr = len % 5 == 0 ? (uint32_t)(0 - nb) :
						      (uint32_t)(len * 2654435761u);

			chacha_case(im, &b, src + len % 13, len, len % 64, (len * 7) % 64,
				    len % 2 == 1, ctr, rounds[len % 3], seed + len);
		}
		for (unsigned int k = 0; k < (slow ? 100u : 8u); k++) {
			size_t len = vt_below(&st, MAXLEN + 1);
			uint32_t ctr = k % 2 ? (uint32_t)(0 - (uint32_t)((len + 63) / 64)) : 1;

			chacha_case(im, &b, src, len, vt_below(&st, 64), vt_below(&st, 64),
				    k % 3 == 0, ctr, rounds[k % 3], seed + 999 * k);
		}
		/* RFC 8439 2.3.2, 2.4.2, A.1, A.2 through the kernel itself */
		for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_chacha); v++) {
			const struct rfc8439_chacha_vec *t = &rfc8439_chacha[v];
			uint8_t key[32], nonce[12], pt[512], ct[512], out[512];
			struct chacha_state s;
			size_t n;

			vt_hex(key, sizeof(key), t->key);
			vt_hex(nonce, sizeof(nonce), t->nonce);
			n = vt_hex_or_text(pt, sizeof(pt), t->pt_hex, t->pt_text);
			vt_hex(ct, sizeof(ct), t->ct);
			chacha_state_init_ietf(&s, key, nonce, t->counter, 20);
			im->xor_blocks(out, pt, n, &s);
			VT_EXPECT_MEM(out, ct, n, "%s RFC 8439 %s", im->name, t->name);
		}
	}
	vt_buf_free(&b.g);
	free(b.in);
	free(b.want);
	free(b.ossl);
	free(src);
}

/* Input and output ending exactly at a PROT_NONE page: masked tails only. */
static void
test_chacha_page_end(void)
{
	uint8_t key[32], nonce[12], src[1100], want[1100];

	vt_rand(key, sizeof(key), 11);
	vt_rand(nonce, sizeof(nonce), 12);
	vt_rand(src, sizeof(src), 13);
	for (size_t i = 0; vecsec_chacha_impls[i] != NULL; i++) {
		const struct chacha_impl *im = vecsec_chacha_impls[i];

		if (!impl_here("chacha", im->name, im->isa, im->needs))
			continue;
		for (size_t len = 0; len <= sizeof(src); len += len < 300 ? 1 : 7) {
			struct vt_page_end pi, po;
			struct chacha_state a, s;

			chacha_state_init_ietf(&a, key, nonce, 7, 20);
			s = a;
			vecsec_chacha_xor_blocks_ref(want, src, len, &a);
			vt_page_end_init(&pi, len);
			vt_page_end_init(&po, len);
			memcpy(pi.data, src, len);
			im->xor_blocks(po.data, pi.data, len, &s);
			VT_EXPECT_MEM(po.data, want, len, "%s page end len=%zu", im->name, len);
			vt_page_end_free(&pi);
			vt_page_end_free(&po);
		}
	}
}

/*
 * The XChaCha/original form (64-bit counter in words 12-13) through the
 * dispatched kernel of this ISA: the carry into word 13 == libsodium.
 */
static void
test_chacha_ctr64_carry(void)
{
	static const uint64_t ctrs[] = { 0xfffffff0ull, 0xffffffffull, 0x1fffffffbull,
					 0xfffffffffffffff0ull };
	uint8_t key[32], nonce[24], *src = malloc(4096), *got = malloc(4096), *want = malloc(4096);

	vt_rand(key, sizeof(key), 21);
	vt_rand(nonce, sizeof(nonce), 22);
	vt_rand(src, 4096, 23);
	for (size_t c = 0; c < VT_ARRAY_SIZE(ctrs); c++) {
		for (size_t len = 0; len <= 4096; len += 1 + len / 3) {
			/* the 2^64 counter must not wrap: keep within */
			if (ctrs[c] + (len + 63) / 64 < ctrs[c])
				continue;
			crypto_stream_xchacha20_xor_ic(want, src, len, nonce, ctrs[c], key);
			VT_EXPECT(vecsec_xchacha_xor(got, src, len, key, nonce, ctrs[c], 20) == 0,
				  "xchacha rc");
			VT_EXPECT_MEM(got, want, len, "%s xchacha ctr=%llx len=%zu",
				      vecsec_chacha_impl()->name, (unsigned long long)ctrs[c], len);
		}
	}
	free(src);
	free(got);
	free(want);
}

/*
 * The HChaCha kernel of every impl that has one == the reference, rounds
 * 20, 12 and 8, at unaligned key, nonce and output addresses; the
 * draft-irtf-cfrg-xchacha 2.2.1 vector for 20 rounds.
 */
static void
test_hchacha_kernels(void)
{
	static const unsigned int rounds[] = { 20, 12, 8 };
	uint8_t kbuf[32 + 16], nbuf[16 + 16], obuf[32 + 16], want[32];
	uint64_t seed = vt_seed() ^ 0x4c4cull;

	for (size_t i = 0; vecsec_chacha_impls[i] != NULL; i++) {
		const struct chacha_impl *im = vecsec_chacha_impls[i];

		if (im->hchacha == NULL || !impl_here("hchacha", im->name, im->isa, im->needs))
			continue;
		for (unsigned int k = 0; k < 300; k++) {
			size_t ko = k % 16, no = (k * 5) % 16, oo = (k * 7) % 16;
			unsigned int r = rounds[k % 3];

			vt_rand(kbuf + ko, 32, seed + 2 * k);
			vt_rand(nbuf + no, 16, seed + 2 * k + 1);
			vecsec_hchacha_ref(want, kbuf + ko, nbuf + no, r);
			memset(obuf, 0x5a, sizeof(obuf));
			im->hchacha(obuf + oo, kbuf + ko, nbuf + no, r);
			VT_EXPECT_MEM(obuf + oo, want, 32, "%s hchacha r=%u k=%u", im->name, r, k);
		}
		vt_hex(kbuf, 32, xchacha_hchacha_key);
		vt_hex(nbuf, 16, xchacha_hchacha_nonce);
		vt_hex(want, 32, xchacha_hchacha_out);
		im->hchacha(obuf, kbuf, nbuf, 20);
		VT_EXPECT_MEM(obuf, want, 32, "%s draft-irtf-cfrg-xchacha 2.2.1", im->name);
	}
}

/* ---- Poly1305 ---- */

static void
poly_emit(const struct poly1305_state *s, uint8_t out[16])
{
	vecsec_poly1305_core_emit(s, out);
}

/*
 * nblocks blocks through the reference in one call and through im in
 * random pieces (one of them by the reference: impls mix on one state),
 * the last block with pad 0 when last_pad0.
 */
static void
poly_case(const struct poly1305_impl *im, const uint8_t *msg, size_t nblocks, const uint8_t r[16],
	  bool last_pad0, uint64_t *st)
{
	struct poly1305_state a, s;
	uint8_t ha[16], hs[16];
	size_t full = last_pad0 && nblocks > 0 ? nblocks - 1 : nblocks, done = 0;
	unsigned int piece = 0;

	vecsec_poly1305_core_init(&a, r);
	vecsec_poly1305_core_init(&s, r);
	vecsec_poly1305_blocks_ref(&a, msg, full, 1);
	while (done < full) {
		size_t n = 1 + vt_below(st, (uint32_t)(full - done < 400 ? full - done : 400));

		if (piece++ == 1)
			vecsec_poly1305_blocks_ref(&s, msg + 16 * done, n, 1);
		else
			im->blocks(&s, msg + 16 * done, n, 1);
		done += n;
	}
	if (full < nblocks) {
		vecsec_poly1305_blocks_ref(&a, msg + 16 * full, 1, 0);
		im->blocks(&s, msg + 16 * full, 1, 0);
	}
	VT_EXPECT(s.h[0] < (UINT64_C(1) << 45) && s.h[1] < (UINT64_C(1) << 45) &&
		  s.h[2] < (UINT64_C(1) << 43), "%s limbs out of range nblocks=%zu", im->name,
		  nblocks);
	poly_emit(&a, ha);
	poly_emit(&s, hs);
	VT_EXPECT_MEM(hs, ha, 16, "%s nblocks=%zu pad0=%d", im->name, nblocks, last_pad0);
	vecsec_memzero(&a, sizeof(a));
	vecsec_memzero(&s, sizeof(s));
}

/* RFC 8439 2.5 on the core with im: the whole tag, for libsodium and KATs */
static void
poly_tag(const struct poly1305_impl *im, uint8_t tag[16], const uint8_t *msg, size_t len,
	 const uint8_t key[32])
{
	struct poly1305_state s;
	uint8_t last[16] = { 0 }, h[16];

	vecsec_poly1305_core_init(&s, key);
	im->blocks(&s, msg, len / 16, 1);
	if (len % 16 != 0) {
		memcpy(last, msg + len - len % 16, len % 16);
		last[len % 16] = 1;
		im->blocks(&s, last, 1, 0);
	}
	vecsec_poly1305_core_emit(&s, h);
	vecsec_poly1305_add_s(tag, h, key + 16);
}

static void
test_poly1305_kernels(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0x9011ull;
	uint8_t *msg = malloc(MAXLEN + 16), *ones = malloc(MAXLEN + 16), key[32], tag[16],
		want[16];

	vt_rand(msg, MAXLEN + 16, seed);
	memset(ones, 0xff, MAXLEN + 16);
	for (size_t i = 0; vecsec_poly1305_impls[i] != NULL; i++) {
		const struct poly1305_impl *im = vecsec_poly1305_impls[i];

		if (!impl_here("poly1305", im->name, im->isa, im->needs))
			continue;
		for (size_t nb = 0; nb <= 300; nb++) {
			vt_rand(key, sizeof(key), seed + nb);
			poly_case(im, msg + nb % 16, nb, key, nb % 2 == 1, &st);
			memset(key, 0xff, sizeof(key));
			poly_case(im, ones, nb, key, nb % 3 == 0, &st);
		}
		for (unsigned int k = 0; k < (slow ? 60u : 6u); k++) {
			size_t nb = vt_below(&st, MAXLEN / 16 + 1);

			vt_rand(key, sizeof(key), seed + 7 * k);
			poly_case(im, k % 2 ? ones : msg, nb, key, k % 3 == 0, &st);
		}
		for (size_t len = 0; len <= 1024 + 300; len += len < 600 ? 1 : 11) {
			vt_rand(key, sizeof(key), seed + len + 3);
			poly_tag(im, tag, msg, len, key);
			crypto_onetimeauth_poly1305(want, msg, len, key);
			VT_EXPECT_MEM(tag, want, 16, "%s vs libsodium len=%zu", im->name, len);
		}
		for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_poly); v++) {
			const struct rfc8439_poly_vec *t = &rfc8439_poly[v];
			uint8_t m[1024];
			size_t n;

			vt_hex(key, sizeof(key), t->key);
			n = vt_hex_or_text(m, sizeof(m), t->msg_hex, t->msg_text);
			vt_hex(want, sizeof(want), t->tag);
			poly_tag(im, tag, m, n, key);
			VT_EXPECT_MEM(tag, want, 16, "%s RFC 8439 %s", im->name, t->name);
		}
	}
	free(msg);
	free(ones);
}

/* ---- stitched ChaCha20-Poly1305 ---- */

/*
 * The kernel against the two-pass reference: ChaCha20 from counter 1 and
 * Poly1305 over the ciphertext on a state that already absorbed a few
 * blocks (as after the AAD).
 */
static void
stitch_case(const struct chachapoly_impl *im, bool open, struct vt_buf *g, uint8_t *inbuf,
	    uint8_t *want, const uint8_t *src, size_t len, size_t in_off, size_t out_off,
	    bool inplace, uint64_t seed)
{
	struct chacha_state ca, cs;
	struct poly1305_state pa, ps;
	uint8_t key[32], nonce[12], r[16], ha[16], hs[16], pre[48];
	const size_t want_done = len - len % im->step;
	uint8_t *out = g->data + out_off;
	const uint8_t *in;
	size_t done, want_enc, npre = seed % 4;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(r, sizeof(r), seed + 2);
	vt_rand(pre, sizeof(pre), seed + 3);
	chacha_state_init_ietf(&ca, key, nonce, 1, 20);
	cs = ca;
	vecsec_poly1305_core_init(&pa, r);
	vecsec_poly1305_blocks_ref(&pa, pre, npre, 1);
	ps = pa;

	/*
	 * reference: two passes; seal encrypts all len bytes (when a step was
	 * done) and MACs want_done of them, open does want_done bytes
	 */
	if (open)
		vecsec_poly1305_blocks_ref(&pa, src, want_done / 16, 1);
	want_enc = open || want_done == 0 ? want_done : len;
	vecsec_chacha_xor_blocks_ref(want, src, want_enc, &ca);
	if (!open)
		vecsec_poly1305_blocks_ref(&pa, want, want_done / 16, 1);

	vt_buf_reset(g);
	if (inplace) {
		memcpy(out, src, len);
		in = out;
	} else {
		memcpy(inbuf + in_off, src, len);
		in = inbuf + in_off;
	}
	done = open ? im->open(&cs, &ps, out, in, len) : im->seal(&cs, &ps, out, in, len);
	VT_EXPECT(done == want_done, "%s returned %zu for len=%zu", im->name, done, len);
	VT_EXPECT_MEM(out, want, want_enc, "%s %s len=%zu in_off=%zu out_off=%zu inplace=%d",
		      im->name, open ? "open" : "seal", len, in_off, out_off, inplace);
	if (inplace)
		VT_EXPECT_MEM(out + want_enc, src + want_enc, len - want_enc, "%s tail touched",
			      im->name);
	VT_EXPECT_GUARDS(g, out_off, inplace ? len : want_enc);
	VT_EXPECT(memcmp(&ca, &cs, sizeof(ca)) == 0, "%s chacha state len=%zu", im->name, len);
	poly_emit(&pa, ha);
	poly_emit(&ps, hs);
	VT_EXPECT_MEM(hs, ha, 16, "%s %s poly len=%zu", im->name, open ? "open" : "seal", len);
	vecsec_memzero(&cs, sizeof(cs));
	vecsec_memzero(&ps, sizeof(ps));
}

static void
test_stitch_kernels(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0x57ull;
	uint8_t *src = malloc(MAXLEN), *inbuf = malloc(MAXLEN + 64), *want = malloc(MAXLEN);
	struct vt_buf g;

	vt_buf_init(&g, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t i = 0; vecsec_chachapoly_impls[i] != NULL; i++) {
		const struct chachapoly_impl *im = vecsec_chachapoly_impls[i];

		if (im->seal == NULL)
			continue;       /* the linear form: test_stitch_linear */
		if (!impl_here("chachapoly", im->name, im->isa, im->needs))
			continue;
		for (size_t len = 0; len <= 5 * 1024 + 100; len += slow ? 1 : 1 + len % 29) {
			for (int open = 0; open < 2; open++) {
				size_t out_off = (len * 7 + 3 * (size_t)open) % 64;

				stitch_case(im, open, &g, inbuf, want, src, len, len % 64, out_off,
					    (len + open) % 3 == 0, seed + len);
			}
		}
		for (unsigned int k = 0; k < (slow ? 60u : 6u); k++)
			stitch_case(im, k % 2, &g, inbuf, want, src, vt_below(&st, MAXLEN + 1),
				    vt_below(&st, 64), vt_below(&st, 64), k % 3 == 0,
				    seed + 77 * k);
	}
	vt_buf_free(&g);
	free(src);
	free(inbuf);
	free(want);
}

/*
 * A linear-form kernel (whole jobs: AVX2, SSSE3, step and row entries)
 * called directly on one job: seal == OpenSSL (bytes and tag), nothing
 * written outside out, the input unchanged out of place; open restores
 * the plaintext; a flipped tag bit (forge) gives -EBADMSG and a zeroed
 * output. In place when inplace; in and out at the offsets given.
 */
static void
linear_case(const struct chachapoly_impl *im, struct vt_buf *g, uint8_t *inbuf, uint8_t *want,
	    const uint8_t *src, size_t len, size_t aad_len, size_t in_off, size_t out_off,
	    bool inplace, bool forge, uint64_t seed)
{
	uint8_t key[32], nonce[12], aad[300], tag[16], wtag[16];
	struct vecsec_aead_job job = { 0 };
	struct chacha_state st;
	uint8_t *out = g->data + out_off, *in = inplace ? out : inbuf + in_off;
	int rc;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(aad, sizeof(aad), seed + 2);
	vt_oracle_seal(VECSEC_AEAD_CHACHA20_POLY1305, want, wtag, src, len, key, nonce, aad,
		       aad_len);
	job.nonce = nonce;
	job.nonce_len = 12;
	job.aad = aad_len > 0 ? aad : NULL;
	job.aad_len = aad_len;
	job.len = len;
	job.tag = tag;
	job.tag_len = 16;

	/* seal */
	vt_buf_reset(g);
	memcpy(in, src, len);
	job.dir = VECSEC_AEAD_SEAL;
	job.in = in;
	job.out = out;
	chacha_state_init_ietf(&st, key, nonce, 0, 20);
	memset(tag, 0, sizeof(tag));
	rc = im->linear(&job, &st);
	VT_EXPECT(rc == 0, "%s seal rc %d len=%zu", im->name, rc, len);
	VT_EXPECT_MEM(out, want, len, "%s seal len=%zu aad=%zu in_off=%zu out_off=%zu inplace=%d",
		      im->name, len, aad_len, in_off, out_off, inplace);
	VT_EXPECT_MEM(tag, wtag, 16, "%s tag len=%zu aad=%zu", im->name, len, aad_len);
	VT_EXPECT_GUARDS(g, out_off, len);
	if (!inplace)
		VT_EXPECT_MEM(in, src, len, "%s seal changed its input len=%zu", im->name, len);

	/* open: the ciphertext back to src (in place: out holds it already) */
	vt_buf_reset(g);
	memcpy(in, want, len);
	if (forge)
		tag[seed % 16] ^= (uint8_t)(1u << (seed % 8));
	job.dir = VECSEC_AEAD_OPEN;
	chacha_state_init_ietf(&st, key, nonce, 0, 20);
	rc = im->linear(&job, &st);
	if (forge) {
		VT_EXPECT(rc == -EBADMSG, "%s forged tag opened: rc %d len=%zu", im->name, rc,
			  len);
		VT_EXPECT_ZERO(out, len, "%s forged open left output len=%zu", im->name, len);
	} else {
		VT_EXPECT(rc == 0, "%s open rc %d len=%zu aad=%zu", im->name, rc, len, aad_len);
		VT_EXPECT_MEM(out, src, len, "%s open len=%zu aad=%zu in_off=%zu out_off=%zu "
			      "inplace=%d", im->name, len, aad_len, in_off, out_off, inplace);
	}
	VT_EXPECT_GUARDS(g, out_off, len);
	if (!inplace)
		VT_EXPECT_MEM(in, want, len, "%s open changed its input len=%zu", im->name, len);
	vecsec_memzero(&st, sizeof(st));
}

/*
 * Every linear-form entry of this level on every length 0..1024 (all 64
 * input and output offsets occur, in place and out of place, AAD 0..36
 * and 256 bytes, a forged tag on every fifth length) and random lengths
 * to 64 KiB; then input and output ending at a PROT_NONE page.
 */
static void
test_stitch_linear(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0x11eull;
	uint8_t *src = malloc(MAXLEN), *inbuf = malloc(MAXLEN + 64), *want = malloc(MAXLEN);
	struct vt_buf g;

	vt_buf_init(&g, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t i = 0; vecsec_chachapoly_impls[i] != NULL; i++) {
		const struct chachapoly_impl *im = vecsec_chachapoly_impls[i];

		if (im->linear == NULL)
			continue;       /* the step form: test_stitch_kernels */
		if (!impl_here("chachapoly", im->name, im->isa, im->needs))
			continue;
		for (size_t len = 0; len <= 1024; len++)
			linear_case(im, &g, inbuf, want, src, len, len % 11 == 0 ? 256 : len % 37,
				    len % 64, (len * 7) % 64, len % 3 == 0, len % 5 == 4,
				    seed + len);
		for (unsigned int k = 0; k < (slow ? 80u : 8u); k++)
			linear_case(im, &g, inbuf, want, src, vt_below(&st, MAXLEN + 1),
				    vt_below(&st, 40), vt_below(&st, 64), vt_below(&st, 64),
				    k % 3 == 0, k % 4 == 3, seed + 101 * k);
		for (size_t len = 0; len <= 1100; len += len < 300 ? 1 : 13) {
			uint8_t key[32], nonce[12], tag[16], wtag[16];
			struct vecsec_aead_job job = { 0 };
			struct vt_page_end pi, po;
			struct chacha_state cs;
			int rc;

			vt_rand(key, sizeof(key), seed + 3 * len);
			vt_rand(nonce, sizeof(nonce), seed + 3 * len + 1);
			vt_oracle_seal(VECSEC_AEAD_CHACHA20_POLY1305, want, wtag, src, len, key,
				       nonce, NULL, 0);
			vt_page_end_init(&pi, len);
			vt_page_end_init(&po, len);
			memcpy(pi.data, src, len);
			job.nonce = nonce;
			job.nonce_len = 12;
			job.len = len;
			job.in = pi.data;
			job.out = po.data;
			job.tag = tag;
			job.tag_len = 16;
			job.dir = VECSEC_AEAD_SEAL;
			chacha_state_init_ietf(&cs, key, nonce, 0, 20);
			rc = im->linear(&job, &cs);
			VT_EXPECT(rc == 0, "%s page end seal rc %d", im->name, rc);
			VT_EXPECT_MEM(po.data, want, len, "%s page end seal len=%zu", im->name, len);
			VT_EXPECT_MEM(tag, wtag, 16, "%s page end tag len=%zu", im->name, len);
			memcpy(pi.data, want, len);
			job.dir = VECSEC_AEAD_OPEN;
			chacha_state_init_ietf(&cs, key, nonce, 0, 20);
			rc = im->linear(&job, &cs);
			VT_EXPECT(rc == 0, "%s page end open rc %d", im->name, rc);
			VT_EXPECT_MEM(po.data, src, len, "%s page end open len=%zu", im->name, len);
			vt_page_end_free(&pi);
			vt_page_end_free(&po);
		}
	}
	vt_buf_free(&g);
	free(src);
	free(inbuf);
	free(want);
}

static const enum vecsec_aead_alg algs[] = {
	VECSEC_AEAD_CHACHA20_POLY1305,
	VECSEC_AEAD_XCHACHA20_POLY1305,
};

/*
 * Through the AEAD API at this ISA: seal in STITCH mode == TWOPASS mode
 * == the oracle; open (in place) restores in both modes.
 */
static void
api_case(enum vecsec_aead_alg alg, struct vt_buf *g, uint8_t *want, uint8_t *two,
	 const uint8_t *src, size_t len, size_t aad_len, size_t off, uint64_t seed)
{
	uint8_t key[32], nonce[24], aad[300], tag[16], tag2[16], wtag[16];
	struct vecsec_aead_key k;
	size_t nl = vt_nonce_len(alg);
	uint8_t *out = g->data + off;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(aad, sizeof(aad), seed + 2);
	VT_EXPECT(vecsec_aead_key_init(&k, alg, key, 32) == 0, "key");
	vt_oracle_seal(alg, want, wtag, src, len, key, nonce, aad, aad_len);

	vecsec_chachapoly_set_mode(CHACHAPOLY_TWOPASS);
	VT_EXPECT(vecsec_aead_seal(&k, two, tag2, 16, src, len, nonce, nl, aad, aad_len) == 0,
		  "seal two-pass");
	vecsec_chachapoly_set_mode(CHACHAPOLY_STITCH);
	vt_buf_reset(g);
	VT_EXPECT(vecsec_aead_seal(&k, out, tag, 16, src, len, nonce, nl, aad, aad_len) == 0,
		  "seal stitched");
	VT_EXPECT_MEM(out, want, len, "%s stitched seal len=%zu aad=%zu", vecsec_aead_alg_name(alg),
		      len, aad_len);
	VT_EXPECT_MEM(tag, wtag, 16, "%s stitched tag len=%zu aad=%zu", vecsec_aead_alg_name(alg),
		      len, aad_len);
	VT_EXPECT_MEM(two, want, len, "two-pass seal len=%zu", len);
	VT_EXPECT_MEM(tag2, wtag, 16, "two-pass tag len=%zu", len);
	VT_EXPECT_GUARDS(g, off, len);
	/* open in place, stitched then two-pass */
	VT_EXPECT(vecsec_aead_open(&k, out, out, len, tag, 16, nonce, nl, aad, aad_len) == 0,
		  "open stitched len=%zu", len);
	VT_EXPECT_MEM(out, src, len, "stitched open len=%zu", len);
	vecsec_chachapoly_set_mode(CHACHAPOLY_TWOPASS);
	VT_EXPECT(vecsec_aead_open(&k, two, two, len, tag, 16, nonce, nl, aad, aad_len) == 0,
		  "open two-pass len=%zu", len);
	VT_EXPECT_MEM(two, src, len, "two-pass open len=%zu", len);
	vecsec_chachapoly_set_mode(CHACHAPOLY_AUTO);
	vecsec_aead_key_wipe(&k);
}

static void
test_stitch_api(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0xa11ull;
	uint8_t *src = malloc(MAXLEN), *want = malloc(MAXLEN), *two = malloc(MAXLEN);
	struct vt_buf g;

	printf("\n    stitched at this ISA: %s",
	       vecsec_chachapoly_impl_for(SIZE_MAX) ? vecsec_chachapoly_impl_for(SIZE_MAX)->name :
						      "none (two-pass)");
	vt_buf_init(&g, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
		for (size_t len = 0; len <= 3 * 1024 + 64; len += slow ? 1 : 1 + len % 37)
			api_case(algs[a], &g, want, two, src, len, len % 7 == 0 ? 256 : len % 33,
				 len % 64, seed + len);
		for (unsigned int k = 0; k < (slow ? 40u : 4u); k++)
			api_case(algs[a], &g, want, two, src, vt_below(&st, MAXLEN + 1),
				 vt_below(&st, 65), vt_below(&st, 64), seed + 31 * k);
	}
	vt_buf_free(&g);
	free(src);
	free(want);
	free(two);
}

/* RFC 8439 2.8.2 and A.5 through the stitched wrapper (STITCH mode) */
static void
test_stitch_rfc8439(void)
{
	vecsec_chachapoly_set_mode(CHACHAPOLY_STITCH);
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_aead); v++) {
		const struct rfc8439_aead_vec *t = &rfc8439_aead[v];
		uint8_t key[32], nonce[12], aad[16], pt[512], ct[512], out[512], tag[16], want[16];
		struct vecsec_aead_key k;
		size_t n, alen;

		vt_hex(key, sizeof(key), t->key);
		vt_hex(nonce, sizeof(nonce), t->nonce);
		alen = vt_hex(aad, sizeof(aad), t->aad);
		n = vt_hex_or_text(pt, sizeof(pt), t->pt_hex, t->pt_text);
		vt_hex(ct, sizeof(ct), t->ct);
		vt_hex(want, sizeof(want), t->tag);
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0,
			  "key");
		VT_EXPECT(vecsec_aead_seal(&k, out, tag, 16, pt, n, nonce, 12, aad, alen) == 0,
			  "seal");
		VT_EXPECT_MEM(out, ct, n, "RFC 8439 %s ct (stitched wrapper)", t->name);
		VT_EXPECT_MEM(tag, want, 16, "RFC 8439 %s tag (stitched wrapper)", t->name);
		VT_EXPECT(vecsec_aead_open(&k, out, ct, n, want, 16, nonce, 12, aad, alen) == 0,
			  "open");
		VT_EXPECT_MEM(out, pt, n, "RFC 8439 %s open (stitched wrapper)", t->name);
		vecsec_aead_key_wipe(&k);
	}
	vecsec_chachapoly_set_mode(CHACHAPOLY_AUTO);
}

/*
 * Forgeries on the stitched path (lengths of whole and partial 1 KiB
 * steps): a flipped bit in the tag, the AAD or the ciphertext (first
 * step, last step, tail) gives -EBADMSG and a zeroed output, in place and
 * out of place.
 */
/* flip one bit of tag, AAD or ciphertext (what 0, 1, 2): open must fail and wipe */
static void
forge_case(const struct vecsec_aead_key *k, uint8_t *ct, uint8_t *out, size_t len,
	   uint8_t tag[16], const uint8_t nonce[12], uint8_t aad[20], int what, size_t bit,
	   bool inplace)
{
	uint8_t *p = what == 0 ? tag : what == 1 ? aad : ct;
	const uint8_t *in = ct;
	int rc;

	p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	memset(out, 0x5a, len);
	if (inplace) {
		memcpy(out, ct, len);
		in = out;
	}
	rc = vecsec_aead_open(k, out, in, len, tag, 16, nonce, 12, aad, 20);
	VT_EXPECT(rc == -EBADMSG, "forgery %d bit %zu len %zu in place %d: rc %d", what, bit, len,
		  inplace, rc);
	VT_EXPECT_ZERO(out, len, "output not wiped: %d bit %zu len %zu", what, bit, len);
	p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

static void
test_stitch_forgery(void)
{
	static const size_t lens[] = { 1024, 2048 + 17, 4096 + 1023 };
	uint8_t key[32], nonce[12], aad[20], tag[16];
	uint8_t *pt = malloc(8192), *ct = malloc(8192), *out = malloc(8192);
	struct vecsec_aead_key k;

	vt_rand(key, sizeof(key), 41);
	vt_rand(nonce, sizeof(nonce), 42);
	vt_rand(aad, sizeof(aad), 43);
	vt_rand(pt, 8192, 44);
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0, "key");
	for (size_t l = 0; l < VT_ARRAY_SIZE(lens); l++) {
		size_t len = lens[l];
		const size_t flips[] = { 0, 1023, len / 2, len - 1 };

		VT_EXPECT(vecsec_aead_seal(&k, ct, tag, 16, pt, len, nonce, 12, aad,
					   sizeof(aad)) == 0, "seal");
		for (int what = 0; what < 3; what++) {
			size_t nbits = what == 0 ? 128 : what == 1 ? 160 : len * 8;

			for (size_t f = 0; f < VT_ARRAY_SIZE(flips); f++) {
				size_t bit = (flips[f] * 8 + f) % nbits;

				forge_case(&k, ct, out, len, tag, nonce, aad, what, bit, false);
				forge_case(&k, ct, out, len, tag, nonce, aad, what, bit, true);
			}
		}
		VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, 12, aad,
					   sizeof(aad)) == 0, "genuine opens");
		VT_EXPECT_MEM(out, pt, len, "genuine open len=%zu", len);
	}
	vecsec_aead_key_wipe(&k);
	free(pt);
	free(ct);
	free(out);
}

/*
 * One job on the single-message path as it is dispatched now: seal == the
 * oracle (out of place and in place), open restores it out of place
 * (where the short path decrypts straight into out) and in place (where
 * it stages), nothing written outside the output.
 */
static void
single_case(enum vecsec_aead_alg alg, struct vt_buf *g, uint8_t *want, const uint8_t *src,
	    size_t len, size_t aad_len, size_t off, uint64_t seed)
{
	uint8_t key[32], nonce[24], aad[64], tag[16], wtag[16];
	struct vecsec_aead_key k;
	size_t nl = vt_nonce_len(alg);
	const char *an = vecsec_aead_alg_name(alg);
	uint8_t *out = g->data + off;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	vt_rand(aad, sizeof(aad), seed + 2);
	VT_EXPECT(vecsec_aead_key_init(&k, alg, key, 32) == 0, "key");
	vt_oracle_seal(alg, want, wtag, src, len, key, nonce, aad, aad_len);
	vt_buf_reset(g);
	VT_EXPECT(vecsec_aead_seal(&k, out, tag, 16, src, len, nonce, nl, aad, aad_len) == 0,
		  "%s seal len=%zu", an, len);
	VT_EXPECT_MEM(out, want, len, "%s seal len=%zu aad=%zu off=%zu", an, len, aad_len, off);
	VT_EXPECT_MEM(tag, wtag, 16, "%s tag len=%zu aad=%zu", an, len, aad_len);
	VT_EXPECT_GUARDS(g, off, len);
	vt_buf_reset(g);
	VT_EXPECT(vecsec_aead_open(&k, out, want, len, wtag, 16, nonce, nl, aad, aad_len) == 0,
		  "%s open len=%zu", an, len);
	VT_EXPECT_MEM(out, src, len, "%s open out of place len=%zu off=%zu", an, len, off);
	VT_EXPECT_GUARDS(g, off, len);
	memcpy(out, want, len);
	VT_EXPECT(vecsec_aead_open(&k, out, out, len, wtag, 16, nonce, nl, aad, aad_len) == 0,
		  "%s open in place len=%zu", an, len);
	VT_EXPECT_MEM(out, src, len, "%s open in place len=%zu off=%zu", an, len, off);
	VT_EXPECT(vecsec_aead_seal(&k, out, tag, 16, out, len, nonce, nl, aad, aad_len) == 0,
		  "%s seal in place", an);
	VT_EXPECT_MEM(out, want, len, "%s seal in place len=%zu", an, len);
	VT_EXPECT_MEM(tag, wtag, 16, "%s seal in place tag len=%zu", an, len);
	VT_EXPECT_GUARDS(g, off, len);
	vecsec_aead_key_wipe(&k);
}

/*
 * The single-message short path (a whole job up to short_max bytes in one
 * ChaCha20 pass, chachapoly_avx512ifma.c) and the one-time key computed
 * with a tail (open too): reached at AVX-512 IFMA (the kernel takes up to
 * 4800 bytes, dispatch 960, 3520 or 4095 by CPU; 0 where the level has no
 * short path), == the oracle for every length 0..4800 + 80 with the short path
 * at the kernel's bound on every CPU, and for tails 1..1023 after 1 KiB
 * (odd offsets, AAD 0..64), both directions, out of place and in place,
 * also with the short path switched off, and to 16 blocks with every CPU
 * tuning entry pinned (the rows / 16-block bound); forgeries at the thresholds give
 * -EBADMSG and a zeroed output.
 */
static void
test_single_short(void)
{
	static const size_t forged[] = { 0, 1, 15, 16, 63, 64, 65, 191, 192, 193, 255, 256,
					 447, 448, 449, 959, 960, 961, 1025, 1087, 1088, 1419,
					 1420, 1727, 1728, 1729, 1984, 1985, 2751, 2752,
					 2753, 3007, 3008, 3009, 3519, 3520, 3521, 3776,
					 3777, 4032, 4033, 4095, 4096, 4288, 4289, 4544,
					 4545, 4799, 4800, 4801 };
	const struct chachapoly_impl *sk = vecsec_chachapoly_impl_for(0);
	uint64_t seed = vt_seed();
	uint8_t *src = malloc(8192), *want = malloc(8192), *ct = malloc(8192);
	uint8_t *out = malloc(8192), key[32], nonce[12], aad[20], tag[16];
	size_t smax = vecsec_chachapoly_short_max(), top;
	struct vecsec_aead_key k;
	struct vt_buf g;

	size_t kmax = sk != NULL && sk->short_run != NULL ? sk->short_max : 0;
	size_t tuned = vecsec_tune()->chachapoly_short_max;

	printf("\n    short path at this ISA: %zu bytes (kernel %zu, %s)", smax, kmax,
	       vecsec_tune()->cpu);
	VT_EXPECT(smax == (kmax < tuned ? kmax : tuned), "short_max %zu", smax);
#ifdef VECSEC_HAVE_AVX512_IFMA
	if (sk == &vecsec_chachapoly_impl_avx512ifma)
		VT_EXPECT(kmax == 4800 && smax >= 960, "avx512ifma short path %zu", smax);
#endif
	VT_EXPECT(vecsec_chachapoly_set_short_max(0) == SIZE_MAX, "cap");
	VT_EXPECT(vecsec_chachapoly_short_max() == 0, "short path off");
	VT_EXPECT(vecsec_chachapoly_set_short_max(SIZE_MAX) == 0, "cap back");
	VT_EXPECT(vecsec_chachapoly_short_max() == smax, "cap back: %zu", smax);
	top = kmax + 80;
	vt_buf_init(&g, 8192 + 64);
	vt_rand(src, 8192, seed);
	for (int off_path = 0; off_path < 2; off_path++) {
		/* off_path 1: the same lengths with the short path off; 0: its whole range */
		vecsec_chachapoly_set_short_max(off_path ? 0 : kmax);
		VT_EXPECT(vecsec_chachapoly_short_max() == (off_path ? 0 : kmax), "cap %zu",
			  vecsec_chachapoly_short_max());
		for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
			for (size_t len = 0; len <= top; len += off_path || a ? 1 + len % 13 : 1)
				single_case(algs[a], &g, want, src + len % 7, len, len % 65,
					    (len * 7 + 1) % 64, seed + len);
			for (size_t t = 1; t <= 1023; t += off_path || a ? 1 + t % 29 : 1)
				single_case(algs[a], &g, want, src, 1024 + t, t % 65,
					    (t * 5 + 3) % 64, seed + 5000 + t);
		}
	}
	/* every tuning entry pinned: its rows / 16-block bound, lengths to 16 blocks */
	vecsec_chachapoly_set_short_max(kmax);
	for (size_t t = 0; vecsec_tunes[t] != NULL && kmax > 0; t++) {
		vecsec_tune_force(vecsec_tunes[t]);
		for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++)
			for (size_t len = 0; len <= 16 * 64 + 80; len += 1 + len % 5)
				single_case(algs[a], &g, want, src + len % 7, len, len % 65,
					    (len * 3 + 1) % 64, seed + 9000 + len);
	}
	vecsec_tune_force(NULL);
	vt_buf_free(&g);

	vt_rand(key, sizeof(key), seed ^ 41);
	vt_rand(nonce, sizeof(nonce), 42);
	vt_rand(aad, sizeof(aad), 43);
	VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0, "key");
	vecsec_chachapoly_set_short_max(kmax);
	for (size_t l = 0; l < VT_ARRAY_SIZE(forged); l++) {
		size_t len = forged[l];

		VT_EXPECT(vecsec_aead_seal(&k, ct, tag, 16, src, len, nonce, 12, aad,
					   sizeof(aad)) == 0, "seal");
		for (int what = 0; what < 3; what++) {
			size_t nbits = what == 0 ? 128 : what == 1 ? 160 : len * 8;

			if (nbits == 0)
				continue;
			for (size_t bit = 0; bit < nbits; bit += nbits / 3 + 1) {
				forge_case(&k, ct, out, len, tag, nonce, aad, what, bit, false);
				forge_case(&k, ct, out, len, tag, nonce, aad, what, bit, true);
			}
			forge_case(&k, ct, out, len, tag, nonce, aad, what, nbits - 1, false);
		}
		VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, 12, aad,
					   sizeof(aad)) == 0, "genuine opens len=%zu", len);
		VT_EXPECT_MEM(out, src, len, "genuine open len=%zu", len);
	}
	vecsec_chachapoly_set_short_max(SIZE_MAX);
	vecsec_aead_key_wipe(&k);
	free(src);
	free(want);
	free(ct);
	free(out);
}

/* test_single_int()'s ChaCha20-Poly1305 key (k initialised), nonce and 300 bytes of AAD */
static void
int_key(struct vecsec_aead_key *k, uint8_t key[32], uint8_t nonce[12], uint8_t aad[300],
	uint64_t seed)
{
	vt_rand(key, 32, seed);
	vt_rand(nonce, 12, seed + 1);
	vt_rand(aad, 300, seed + 2);
	VT_EXPECT(vecsec_aead_key_init(k, VECSEC_AEAD_CHACHA20_POLY1305, key, 32) == 0, "key");
}

/*
 * The stitched kernel's integer Poly1305 chain (AVX-512 IFMA,
 * chachapoly_avx512ifma.c: up to q blocks of each 1 KiB step beside the
 * ChaCha20 rounds, the IFMA kernel the rest; open cuts the message in two
 * and joins the halves by a power of r): with the short path off, == the
 * oracle for whole KiB and tails around the one-time key's forms (row
 * form to 704 bytes, 16-block form to 960, the lone key block past it)
 * from 1 to 8 KiB and at 16 KiB, both directions, out of place and in
 * place, both nonce sizes, for q = 0 (IFMA pairs only), 1, 9, the
 * tuning's, 63 and 64 (open's first part from all of it to one KiB); 65
 * KiB at q = 1 (open's chain one KiB) and with 300 bytes of AAD (the
 * chain starting from an IFMA-built h); forgeries give -EBADMSG and a
 * zeroed output. Elsewhere the same lengths check whatever stitched
 * kernel the level has; a CPU without AVX-512 IFMA says so at its top
 * level (a failure under VECSEC_TEST_REQUIRE_ISA=avx512 or all).
 */
static void
test_single_int(void)
{
	static const size_t tails[] = { 0, 1, 15, 16, 17, 63, 64, 703, 704, 705, 959, 960,
					961, 1023 };
	static const size_t forged[] = { 1024, 3072 + 5, 5120, 8192 + 705, 16384 };
	const struct chachapoly_impl *sk = vecsec_chachapoly_impl_for(0);
	const unsigned int tuned = vecsec_chachapoly_int_blocks();
	const unsigned int qs[] = { 0, 1, 9, tuned, 63, 64 };
	uint64_t seed = vt_seed();
	const size_t cap = 65 * 1024 + 1024;
	uint8_t *src = malloc(cap), *want = malloc(cap), *ct = malloc(cap), *out = malloc(cap);
	uint8_t key[32], nonce[12], aad[300], tag[16], wtag[16];
	struct vecsec_aead_key k;
	bool ifma = false, cpu = false;
	struct vt_buf g;

#ifdef VECSEC_HAVE_AVX512_IFMA
	const uint64_t need = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
			      VECSEC_CPU_AVX512IFMA;

	ifma = sk == &vecsec_chachapoly_impl_avx512ifma;
	cpu = (vecsec_cpu_features() & need) == need;
#endif
	printf("\n    integer Poly1305 chain: %u blocks a step (%s), %s (stitched: %s)", tuned,
	       vecsec_tune()->cpu,
	       ifma ? "the AVX-512 IFMA kernel here" : "not at this level",
	       sk != NULL ? sk->name : "none");
	if (!cpu && vecsec_isa_cap() == vecsec_cpu_max_isa())
		vt_skip_lacking("chacha_simd", "the integer Poly1305 chain", "AVX-512 IFMA");
	VT_EXPECT(!cpu || vecsec_isa_cap() < VECSEC_ISA_AVX512 || ifma,
		  "AVX-512 IFMA CPU at the AVX-512 level: the IFMA stitched kernel");
	VT_EXPECT(vecsec_chachapoly_set_int_blocks(5) == UINT_MAX, "knob unset");
	VT_EXPECT(vecsec_chachapoly_int_blocks() == 5, "knob 5");
	VT_EXPECT(vecsec_chachapoly_set_int_blocks(1000) == 5, "knob back");
	VT_EXPECT(vecsec_chachapoly_int_blocks() == 64, "knob capped");
	VT_EXPECT(vecsec_chachapoly_set_int_blocks(UINT_MAX) == 1000, "knob to the tuning");
	VT_EXPECT(vecsec_chachapoly_int_blocks() == tuned, "tuning again");
	vt_buf_init(&g, cap + 64);
	vt_rand(src, cap, seed);
	vecsec_chachapoly_set_short_max(0);
	for (size_t qi = 0; qi < VT_ARRAY_SIZE(qs); qi++) {
		vecsec_chachapoly_set_int_blocks(qs[qi]);
		for (size_t a = 0; a < VT_ARRAY_SIZE(algs); a++) {
			for (size_t kib = 1; kib <= 16; kib += kib < 8 ? 1 : 8) {
				for (size_t t = 0; t < VT_ARRAY_SIZE(tails); t++) {
					size_t len = 1024 * kib + tails[t];

					if (kib == 16 && t > 3)
						break;
					single_case(algs[a], &g, want, src + len % 7, len,
						    (len + qi) % 65, (len * 7 + qi) % 64,
						    seed + len * 11 + qi);
				}
			}
		}
	}
	vt_buf_free(&g);

	/* 65 KiB + 5 (q = 1: open's chain takes the last KiB), 300 bytes of AAD */
	int_key(&k, key, nonce, aad, seed ^ 76);
	for (size_t qi = 0; qi < VT_ARRAY_SIZE(qs); qi++) {
		const size_t len = 65 * 1024 + 5;

		if (qs[qi] != 1 && qs[qi] != tuned)
			continue;
		vecsec_chachapoly_set_int_blocks(qs[qi]);
		vt_oracle_seal(VECSEC_AEAD_CHACHA20_POLY1305, want, wtag, src, len, key, nonce, aad,
			       sizeof(aad));
		VT_EXPECT(vecsec_aead_seal(&k, ct, tag, 16, src, len, nonce, 12, aad,
					   sizeof(aad)) == 0, "65 KiB seal q=%u", qs[qi]);
		VT_EXPECT_MEM(ct, want, len, "65 KiB seal q=%u", qs[qi]);
		VT_EXPECT_MEM(tag, wtag, 16, "65 KiB tag q=%u", qs[qi]);
		VT_EXPECT(vecsec_aead_open(&k, ct, ct, len, tag, 16, nonce, 12, aad,
					   sizeof(aad)) == 0, "65 KiB open in place q=%u", qs[qi]);
		VT_EXPECT_MEM(ct, src, len, "65 KiB open q=%u", qs[qi]);
		tag[0] ^= 1;
		memcpy(ct, want, len);
		VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, 12, aad,
					   sizeof(aad)) == -EBADMSG, "65 KiB forgery q=%u", qs[qi]);
		VT_EXPECT_ZERO(out, len, "65 KiB forgery wiped q=%u", qs[qi]);
	}
	vecsec_aead_key_wipe(&k);

	int_key(&k, key, nonce, aad, seed ^ 77);
	for (size_t qi = 0; qi < VT_ARRAY_SIZE(qs); qi++) {
		vecsec_chachapoly_set_int_blocks(qs[qi]);
		for (size_t l = 0; l < VT_ARRAY_SIZE(forged); l++) {
			const size_t len = forged[l];
			/* bits in the first KiB (the IFMA part), the middle and the last block */
			const size_t at[] = { 5, len * 4 + 3, len * 8 - 1 };

			/* 20 bytes of AAD: forge_case() opens with 20 */
			VT_EXPECT(vecsec_aead_seal(&k, ct, tag, 16, src, len, nonce, 12, aad,
						   20) == 0, "seal");
			for (size_t i = 0; i < VT_ARRAY_SIZE(at); i++) {
				forge_case(&k, ct, out, len, tag, nonce, aad, 2, at[i], false);
				forge_case(&k, ct, out, len, tag, nonce, aad, 2, at[i], true);
			}
			forge_case(&k, ct, out, len, tag, nonce, aad, 0, 77, true);
			forge_case(&k, ct, out, len, tag, nonce, aad, 1, 9, false);
			VT_EXPECT(vecsec_aead_open(&k, out, ct, len, tag, 16, nonce, 12, aad,
						   20) == 0, "genuine open len=%zu q=%u",
				  len, qs[qi]);
			VT_EXPECT_MEM(out, src, len, "genuine open len=%zu q=%u", len, qs[qi]);
		}
	}
	vecsec_chachapoly_set_int_blocks(UINT_MAX);
	vecsec_chachapoly_set_short_max(SIZE_MAX);
	vecsec_aead_key_wipe(&k);
	free(src);
	free(want);
	free(ct);
	free(out);
}

/*
 * VECSEC_CHACHAPOLY=twopass (read when the selectors run) and the modes.
 * x86-64 has a stitched kernel from SSSE3 up; aarch64 has none (two
 * passes at every level).
 */
static void
test_stitch_selection(void)
{
	enum vecsec_isa cap = vecsec_isa_cap();
	const struct chachapoly_impl *now = vecsec_chachapoly_impl_for(SIZE_MAX);
#if defined(__x86_64__)
	bool want = cap >= VECSEC_ISA_SSSE3;
#else
	bool want = false;
#endif

	VT_EXPECT((now != NULL) == want, "stitched impl at %s: %s",
		  vecsec_isa_name(cap), now != NULL ? now->name : "none");
	setenv("VECSEC_CHACHAPOLY", "twopass", 1);
	VT_EXPECT(vecsec_force_isa(cap) == 0, "reselect");
	VT_EXPECT(vecsec_chachapoly_impl_for(SIZE_MAX) == NULL, "env twopass ignored");
	unsetenv("VECSEC_CHACHAPOLY");
	VT_EXPECT(vecsec_force_isa(cap) == 0, "reselect");
	VT_EXPECT(vecsec_chachapoly_impl_for(SIZE_MAX) == now, "env unset: back");
	VT_EXPECT(vecsec_chachapoly_set_mode(CHACHAPOLY_TWOPASS) == CHACHAPOLY_AUTO, "mode");
	VT_EXPECT(vecsec_chachapoly_impl_for(SIZE_MAX) == NULL, "TWOPASS mode");
	VT_EXPECT(vecsec_chachapoly_set_mode(CHACHAPOLY_AUTO) == CHACHAPOLY_TWOPASS, "mode");
	VT_EXPECT(vecsec_chachapoly_impl_for(SIZE_MAX) == now, "AUTO mode");
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

	if (!vt_avx2_plain_begin("chacha_simd", &was))
		return;
	test_chacha_kernels();
	test_chacha_page_end();
	test_chacha_ctr64_carry();
	test_stitch_linear();
	test_stitch_api();
	test_stitch_rfc8439();
	test_stitch_forgery();
	test_single_short();
	vt_avx2_plain_end(was);
#endif
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_chacha_kernels),
		VT_TEST(test_chacha_page_end),
		VT_TEST(test_chacha_ctr64_carry),
		VT_TEST(test_hchacha_kernels),
		VT_TEST(test_poly1305_kernels),
		VT_TEST(test_stitch_kernels),
		VT_TEST(test_stitch_linear),
		VT_TEST(test_stitch_api),
		VT_TEST(test_stitch_rfc8439),
		VT_TEST(test_stitch_forgery),
		VT_TEST(test_stitch_selection),
		VT_TEST(test_single_short),
		VT_TEST(test_single_int),
		VT_TEST(test_avx2_plain_forms),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	unsetenv("VECSEC_CHACHAPOLY");  /* the tests pick the paths themselves */
	if (sodium_init() < 0)
		return 2;
	return vt_main("chacha_simd", tests, VT_ARRAY_SIZE(tests));
}
