/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/chacha: RFC 8439 and draft-irtf-cfrg-xchacha known answers, the
 * reduced-round keystreams of draft-strombergson-chacha-test-vectors, the
 * selected kernel against the reference and against OpenSSL (EVP_chacha20)
 * and libsodium (chacha20_ietf, xchacha20, hchacha20) on every length
 * 0..1024 and random lengths to 64 KiB, offsets 0..63, in place and out of
 * place, guard bytes and a PROT_NONE page end, counter limits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "vt.h"
#include "vt_avx2vl.h"
#include "vt_chacha.h"
#include "vecsec/vecsec_chacha.h"
#include "chacha/chacha_internal.h"
#include "rfc8439.h"
#include "xchacha.h"
#include "chacha_reduced.h"

#define MAXLEN (64 * 1024)

static bool slow;

static size_t
hex(uint8_t *out, size_t cap, const char *h)
{
	return vt_hex(out, cap, h);
}

static void
test_rfc8439_kat(void)
{
	const struct chacha_impl *impl = vecsec_chacha_impl();

	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_chacha); v++) {
		const struct rfc8439_chacha_vec *t = &rfc8439_chacha[v];
		uint8_t key[32], nonce[12], pt[512], ct[512], out[512];
		struct chacha_state st;
		size_t n;

		hex(key, sizeof(key), t->key);
		hex(nonce, sizeof(nonce), t->nonce);
		n = vt_hex_or_text(pt, sizeof(pt), t->pt_hex, t->pt_text);
		VT_EXPECT(n == t->len, "%s: plaintext length %zu", t->name, n);
		VT_EXPECT(hex(ct, sizeof(ct), t->ct) == t->len, "%s: ciphertext length", t->name);

		VT_EXPECT(vecsec_chacha_xor(out, pt, n, key, nonce, t->counter, 20) == 0, "%s",
			  t->name);
		VT_EXPECT_MEM(out, ct, n, "%s: encrypt", t->name);
		/* in place, decrypt */
		VT_EXPECT(vecsec_chacha_xor(out, out, n, key, nonce, t->counter, 20) == 0, "%s",
			  t->name);
		VT_EXPECT_MEM(out, pt, n, "%s: decrypt in place", t->name);

		/* the selected kernel directly, in two calls split at a block boundary */
		chacha_state_init_ietf(&st, key, nonce, t->counter, 20);
		impl->xor_blocks(out, pt, n > 64 ? 64 : n, &st);
		if (n > 64)
			impl->xor_blocks(out + 64, pt + 64, n - 64, &st);
		VT_EXPECT_MEM(out, ct, n, "%s: %s kernel", t->name, impl->name);
		VT_EXPECT(st.x[12] == t->counter + (uint32_t)((n + 63) / 64),
			  "%s: counter advanced", t->name);
		/* the reference too (it is every other path's oracle) */
		chacha_state_init_ietf(&st, key, nonce, t->counter, 20);
		vecsec_chacha_xor_blocks_ref(out, pt, n, &st);
		VT_EXPECT_MEM(out, ct, n, "%s: ref", t->name);
	}
}

static void
test_rfc8439_keygen(void)
{
	/* RFC 8439 2.6.2 and A.4: the one-time key is block 0's first 32 bytes */
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_keygen); v++) {
		const struct rfc8439_keygen_vec *t = &rfc8439_keygen[v];
		uint8_t key[32], nonce[12], otk[32], zero[64] = { 0 }, blk[64];

		hex(key, sizeof(key), t->key);
		hex(nonce, sizeof(nonce), t->nonce);
		hex(otk, sizeof(otk), t->otk);
		VT_EXPECT(vecsec_chacha_xor(blk, zero, 64, key, nonce, 0, 20) == 0, "%s", t->name);
		VT_EXPECT_MEM(blk, otk, 32, "%s", t->name);
	}
}

static void
test_reduced_rounds_kat(void)
{
	const struct chacha_impl *impl = vecsec_chacha_impl();

	for (size_t v = 0; v < VT_ARRAY_SIZE(chacha_orig); v++) {
		const struct chacha_orig_vec *t = &chacha_orig[v];
		uint8_t key[32], nonce[8], ks[128], zero[128] = { 0 }, out[128];
		struct chacha_state st;
		size_t n;

		hex(key, sizeof(key), t->key);
		hex(nonce, sizeof(nonce), t->nonce);
		n = hex(ks, sizeof(ks), t->keystream);
		chacha_state_init_64(&st, key, nonce, 0, t->rounds);
		impl->xor_blocks(out, zero, n, &st);
		VT_EXPECT_MEM(out, ks, n, "%s: %s kernel", t->name, impl->name);
		chacha_state_init_64(&st, key, nonce, 0, t->rounds);
		vecsec_chacha_xor_blocks_ref(out, zero, n, &st);
		VT_EXPECT_MEM(out, ks, n, "%s: ref", t->name);
		chacha_state_init_64(&st, key, nonce, 0, t->rounds);
		vecsec_chacha_xor_state(&st, out, zero, n);
		VT_EXPECT_MEM(out, ks, n, "%s: dispatched", t->name);
	}
}

static void
test_hchacha(void)
{
	uint8_t key[32], nonce[16], want[32], got[32];
	uint64_t seed = vt_seed();

	hex(key, sizeof(key), xchacha_hchacha_key);
	hex(nonce, sizeof(nonce), xchacha_hchacha_nonce);
	hex(want, sizeof(want), xchacha_hchacha_out);
	VT_EXPECT(vecsec_hchacha(got, key, nonce, 20) == 0, "hchacha20");
	VT_EXPECT_MEM(got, want, 32, "draft-irtf-cfrg-xchacha 2.2.1");
	/* libsodium's crypto_core_hchacha20 on random inputs */
	for (int i = 0; i < 200; i++) {
		vt_rand(key, sizeof(key), seed + 2 * i);
		vt_rand(nonce, sizeof(nonce), seed + 2 * i + 1);
		crypto_core_hchacha20(want, nonce, key, NULL);
		vecsec_hchacha(got, key, nonce, 20);
		VT_EXPECT_MEM(got, want, 32, "hchacha20 vs libsodium i=%d seed=%llu", i,
			      (unsigned long long)seed);
	}
	VT_EXPECT(vecsec_hchacha(got, key, nonce, 10) == -EINVAL, "bad rounds");
	VT_EXPECT(vecsec_hchacha(NULL, key, nonce, 20) == -EINVAL, "NULL out");
	VT_EXPECT(vecsec_hchacha(got, key, nonce, 12) == 0, "hchacha12");
	VT_EXPECT(vecsec_hchacha(got, key, nonce, 8) == 0, "hchacha8");
}

static void
test_xchacha_kat(void)
{
	uint8_t key[32], nonce[24], pt[512], ct[512], out[512];
	size_t n;

	hex(key, sizeof(key), xchacha_stream_key);
	hex(nonce, sizeof(nonce), xchacha_stream_nonce);
	n = hex(pt, sizeof(pt), xchacha_stream_pt);
	VT_EXPECT(n == 304, "plaintext length %zu", n);
	VT_EXPECT(hex(ct, sizeof(ct), xchacha_stream_ct0) == n, "ct0 length");
	VT_EXPECT(vecsec_xchacha_xor(out, pt, n, key, nonce, 0, 20) == 0, "xchacha20 ctr 0");
	VT_EXPECT_MEM(out, ct, n, "draft-irtf-cfrg-xchacha A.3.2.1");
	VT_EXPECT(hex(ct, sizeof(ct), xchacha_stream_ct1) == n, "ct1 length");
	VT_EXPECT(vecsec_xchacha_xor(out, pt, n, key, nonce, 1, 20) == 0, "xchacha20 ctr 1");
	VT_EXPECT_MEM(out, ct, n, "draft-irtf-cfrg-xchacha A.3.2.2");
	VT_EXPECT(vecsec_xchacha_xor(out, out, n, key, nonce, 1, 20) == 0, "in place");
	VT_EXPECT_MEM(out, pt, n, "A.3.2.2 decrypt in place");
}

/*
 * One length/offset case of the IETF cipher: vecsec == OpenSSL == libsodium,
 * out of place into a guarded buffer at offset off, then in place.
 */
static void
ietf_case(struct vt_buf *g, const uint8_t *src, size_t len, size_t off, uint64_t seed)
{
	uint8_t key[32], nonce[12];
	uint8_t *want = malloc(len + 1), *want2 = malloc(len + 1);
	uint32_t ctr = (uint32_t)(seed >> 7) & 0xffffff;

	vt_rand(key, sizeof(key), seed);
	vt_rand(nonce, sizeof(nonce), seed ^ 0x5a5a);
	vt_ossl_chacha20(want, src, len, key, nonce, ctr);
	crypto_stream_chacha20_ietf_xor_ic(want2, src, len, nonce, ctr, key);
	VT_EXPECT_MEM(want2, want, len, "openssl vs libsodium len=%zu", len);

	vt_buf_reset(g);
	VT_EXPECT(vecsec_chacha_xor(g->data + off, src, len, key, nonce, ctr, 20) == 0, "len=%zu",
		  len);
	VT_EXPECT_MEM(g->data + off, want, len, "out of place len=%zu off=%zu seed=%llu", len, off,
		      (unsigned long long)seed);
	VT_EXPECT_GUARDS(g, off, len);

	vt_buf_reset(g);
	memcpy(g->data + off, src, len);
	VT_EXPECT(vecsec_chacha_xor(g->data + off, g->data + off, len, key, nonce, ctr, 20) == 0,
		  "len=%zu", len);
	VT_EXPECT_MEM(g->data + off, want, len, "in place len=%zu off=%zu seed=%llu", len, off,
		      (unsigned long long)seed);
	VT_EXPECT_GUARDS(g, off, len);
	free(want);
	free(want2);
}

static void
test_ietf_vs_oracles(void)
{
	struct vt_buf small, big;
	uint64_t seed = vt_seed(), st = seed;
	uint8_t *src = malloc(MAXLEN);
	unsigned int nrand = slow ? 200 : 16;

	vt_buf_init(&small, 1024 + 64);
	vt_buf_init(&big, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t len = 0; len <= 1024; len++)
		ietf_case(&small, src + (len % 13), len, (len * 7) % 64, seed + len);
	for (unsigned int i = 0; i < nrand; i++) {
		size_t len = vt_below(&st, MAXLEN + 1);

		ietf_case(&big, src, len, vt_below(&st, 64), seed + 7919 * i);
	}
	vt_buf_free(&small);
	vt_buf_free(&big);
	free(src);
}

/* Selected kernel == reference, every round count, lengths 0..1024, split calls */
static void
test_kernel_vs_ref(void)
{
	const struct chacha_impl *impl = vecsec_chacha_impl();
	static const unsigned int rounds[] = { 20, 12, 8 };
	uint64_t seed = vt_seed();
	uint8_t src[1024 + 64], ref[1024 + 64];
	struct vt_buf g;

	vt_buf_init(&g, 1024 + 64);
	vt_rand(src, sizeof(src), seed);
	for (size_t r = 0; r < VT_ARRAY_SIZE(rounds); r++) {
		for (size_t len = 0; len <= 1024; len += (slow ? 1 : 3)) {
			size_t off = (len * 7) % 64, cut = (len / 64) / 2 * 64;
			struct chacha_state a, b;
			uint8_t key[32], nonce[12];

			vt_rand(key, sizeof(key), seed + len);
			vt_rand(nonce, sizeof(nonce), seed + len + 1);
			chacha_state_init_ietf(&a, key, nonce, (uint32_t)len, rounds[r]);
			a.ctr64 = (uint32_t)(len & 1);
			b = a;
			vecsec_chacha_xor_blocks_ref(ref, src, len, &a);
			vt_buf_reset(&g);
			impl->xor_blocks(g.data + off, src, cut, &b);
			impl->xor_blocks(g.data + off + cut, src + cut, len - cut, &b);
			VT_EXPECT_MEM(g.data + off, ref, len, "%s r=%u len=%zu off=%zu", impl->name,
				      rounds[r], len, off);
			VT_EXPECT_GUARDS(&g, off, len);
			VT_EXPECT(memcmp(&a, &b, sizeof(a)) == 0, "state after len=%zu", len);
		}
	}
	vt_buf_free(&g);
}

static void
test_xchacha_vs_libsodium(void)
{
	struct vt_buf g;
	uint64_t seed = vt_seed(), st = seed;
	uint8_t *src = malloc(MAXLEN), *want = malloc(MAXLEN);
	unsigned int nrand = slow ? 200 : 16;

	vt_buf_init(&g, MAXLEN + 64);
	vt_rand(src, MAXLEN, seed);
	for (size_t i = 0; i <= 1024 + nrand; i++) {
		size_t len = i <= 1024 ? i : vt_below(&st, MAXLEN + 1);
		size_t off = (len * 5) % 64;
		uint8_t key[32], nonce[24];
		/* counters near the word 12 -> 13 carry and anywhere else */
		uint64_t ctr = (i % 3 == 0) ? 0xffffffffULL - (i % 5) : vt_next(&st) >> 8;

		vt_rand(key, sizeof(key), seed + i);
		vt_rand(nonce, sizeof(nonce), seed + i + 99);
		crypto_stream_xchacha20_xor_ic(want, src, len, nonce, ctr, key);
		vt_buf_reset(&g);
		VT_EXPECT(vecsec_xchacha_xor(g.data + off, src, len, key, nonce, ctr, 20) == 0,
			  "len=%zu", len);
		VT_EXPECT_MEM(g.data + off, want, len,
			      "xchacha20 len=%zu ctr=%llx off=%zu seed=%llu", len,
			      (unsigned long long)ctr, off, (unsigned long long)seed);
		VT_EXPECT_GUARDS(&g, off, len);
	}
	vt_buf_free(&g);
	free(src);
	free(want);
}

/* Outputs and inputs that end exactly at a PROT_NONE page */
static void
test_page_end(void)
{
	uint8_t key[32], nonce[24], src[300], want[300];

	vt_rand(key, sizeof(key), 1);
	vt_rand(nonce, sizeof(nonce), 2);
	vt_rand(src, sizeof(src), 3);
	for (size_t len = 0; len <= 300; len++) {
		struct vt_page_end po, pi;

		vt_page_end_init(&po, len);
		vt_page_end_init(&pi, len);
		memcpy(pi.data, src, len);
		vt_ossl_chacha20(want, src, len, key, nonce, 7);
		VT_EXPECT(vecsec_chacha_xor(po.data, pi.data, len, key, nonce, 7, 20) == 0, "len");
		VT_EXPECT_MEM(po.data, want, len, "page end len=%zu", len);
		crypto_stream_xchacha20_xor_ic(want, src, len, nonce, 3, key);
		VT_EXPECT(vecsec_xchacha_xor(po.data, pi.data, len, key, nonce, 3, 20) == 0, "len");
		VT_EXPECT_MEM(po.data, want, len, "xchacha page end len=%zu", len);
		vt_page_end_free(&po);
		vt_page_end_free(&pi);
	}
}

static void
test_counter_limits(void)
{
	uint8_t key[32], nonce[24], src[256], want[256], out[256];
	const uint32_t top = 0xffffffffu;

	vt_rand(key, sizeof(key), 11);
	vt_rand(nonce, sizeof(nonce), 12);
	vt_rand(src, sizeof(src), 13);
	/* IETF: the last block 2^32 - 1 is usable, one byte more wraps */
	vt_ossl_chacha20(want, src, 64, key, nonce, top);
	VT_EXPECT(vecsec_chacha_xor(out, src, 64, key, nonce, top, 20) == 0, "last block");
	VT_EXPECT_MEM(out, want, 64, "block 0xffffffff");
	vt_ossl_chacha20(want, src, 128, key, nonce, top - 1);
	VT_EXPECT(vecsec_chacha_xor(out, src, 128, key, nonce, top - 1, 20) == 0, "two last");
	VT_EXPECT_MEM(out, want, 128, "blocks 0xfffffffe-f");
	memset(out, 0x77, sizeof(out));
	VT_EXPECT(vecsec_chacha_xor(out, src, 65, key, nonce, top, 20) == -EINVAL, "wrap");
	VT_EXPECT(vecsec_chacha_xor(out, src, 129, key, nonce, top - 1, 20) == -EINVAL, "wrap 2");
	VT_EXPECT(out[0] == 0x77 && out[64] == 0x77, "nothing written on -EINVAL");
	VT_EXPECT(vecsec_chacha_xor(out, src, 0, key, nonce, top, 20) == 0, "len 0 at top");
	VT_EXPECT(vecsec_chacha_xor(NULL, NULL, 0, key, nonce, 0, 20) == 0, "len 0 NULL bufs");
	/* XChaCha: 64-bit counter, crossing word 12 -> 13 is covered above; the top */
	crypto_stream_xchacha20_xor_ic(want, src, 64, nonce, UINT64_MAX, key);
	VT_EXPECT(vecsec_xchacha_xor(out, src, 64, key, nonce, UINT64_MAX, 20) == 0, "x top");
	VT_EXPECT_MEM(out, want, 64, "xchacha block 2^64-1");
	VT_EXPECT(vecsec_xchacha_xor(out, src, 65, key, nonce, UINT64_MAX, 20) == -EINVAL,
		  "xchacha wrap");
	crypto_stream_xchacha20_xor_ic(want, src, 256, nonce, 0xfffffffeULL, key);
	VT_EXPECT(vecsec_xchacha_xor(out, src, 256, key, nonce, 0xfffffffeULL, 20) == 0, "cross");
	VT_EXPECT_MEM(out, want, 256, "xchacha crossing word 12 -> 13");
}

static void
test_args(void)
{
	uint8_t key[32] = { 0 }, nonce[24] = { 0 }, buf[64] = { 0 };

	VT_EXPECT(vecsec_chacha_xor(buf, buf, 64, NULL, nonce, 0, 20) == -EINVAL, "NULL key");
	VT_EXPECT(vecsec_chacha_xor(buf, buf, 64, key, NULL, 0, 20) == -EINVAL, "NULL nonce");
	VT_EXPECT(vecsec_chacha_xor(NULL, buf, 64, key, nonce, 0, 20) == -EINVAL, "NULL out");
	VT_EXPECT(vecsec_chacha_xor(buf, NULL, 64, key, nonce, 0, 20) == -EINVAL, "NULL in");
	VT_EXPECT(vecsec_chacha_xor(buf, buf, 64, key, nonce, 0, 16) == -EINVAL, "16 rounds");
	VT_EXPECT(vecsec_chacha_xor(buf, buf, 64, key, nonce, 0, 12) == 0, "12 rounds");
	VT_EXPECT(vecsec_chacha_xor(buf, buf, 64, key, nonce, 0, 8) == 0, "8 rounds");
	VT_EXPECT(vecsec_xchacha_xor(buf, buf, 64, key, nonce, 0, 8) == -EINVAL, "xchacha8");
	VT_EXPECT(vecsec_xchacha_xor(buf, buf, 64, key, nonce, 0, 12) == 0, "xchacha12");
	VT_EXPECT(vecsec_xchacha_xor(buf, buf, 64, NULL, nonce, 0, 20) == -EINVAL, "NULL key");
	printf("\n    chacha impl: %s\n", vecsec_chacha_impl_name());
	VT_EXPECT(strcmp(vecsec_chacha_impl_name(), vecsec_chacha_impl()->name) == 0, "name");
}

/*
 * The AVX2 kernels' plain forms: on a CPU with AVX-512VL/BW the AVX2 run
 * above took the single-message assembly's VL form (chacha_avx2.S
 * assembled again with -mavx512vl); here the same tests with the knob
 * off (vecsec_avx2_vl_set()'s knob, lib/chacha's side of it). A CPU
 * without VL says so loudly, a failure where VECSEC_TEST_REQUIRE_ISA asks
 * for avx512 (or all).
 */
static void
test_avx2_plain_forms(void)
{
#if defined(__x86_64__)
	bool was;

	if (!vt_avx2_plain_begin("chacha", &was))
		return;
	test_rfc8439_kat();
	test_ietf_vs_oracles();
	test_kernel_vs_ref();
	test_xchacha_vs_libsodium();
	test_page_end();
	test_counter_limits();
	vt_avx2_plain_end(was);
#endif
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_rfc8439_kat),
		VT_TEST(test_rfc8439_keygen),
		VT_TEST(test_reduced_rounds_kat),
		VT_TEST(test_hchacha),
		VT_TEST(test_xchacha_kat),
		VT_TEST(test_ietf_vs_oracles),
		VT_TEST(test_kernel_vs_ref),
		VT_TEST(test_xchacha_vs_libsodium),
		VT_TEST(test_page_end),
		VT_TEST(test_counter_limits),
		VT_TEST(test_args),
		VT_TEST(test_avx2_plain_forms),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	if (sodium_init() < 0)
		return 2;
	return vt_main("chacha", tests, VT_ARRAY_SIZE(tests));
}
