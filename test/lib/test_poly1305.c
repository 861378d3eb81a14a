/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/poly1305: RFC 8439 2.5.2 and A.3 known answers (including the
 * reduction corner cases #5-#11), one-shot == incremental at random splits,
 * the selected kernel == the reference, vecsec == OpenSSL (EVP_MAC
 * "POLY1305") == libsodium (crypto_onetimeauth_poly1305) on every length
 * 0..1024 and random lengths to 64 KiB, the core API Adiantum uses (emit
 * without s, add s), the x86-64 AEAD MAC in one call, wiping, arguments.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "vt.h"
#include "vecsec/vecsec_poly1305.h"
#include "poly1305/poly1305_internal.h"
#include "poly1305/poly1305_64.h"
#include "rfc8439.h"

#define MAXLEN (64 * 1024)

static bool slow;
static EVP_MAC *ossl_mac;

static void
ossl_poly1305(uint8_t tag[16], const uint8_t *in, size_t len, const uint8_t key[32])
{
	EVP_MAC_CTX *c = EVP_MAC_CTX_new(ossl_mac);
	size_t outl = 0;

	if (c == NULL || EVP_MAC_init(c, key, 32, NULL) != 1 ||
	    (len > 0 && EVP_MAC_update(c, in, len) != 1) ||
	    EVP_MAC_final(c, tag, &outl, 16) != 1 || outl != 16) {
		fprintf(stderr, "OpenSSL POLY1305 failed\n");
		exit(2);
	}
	EVP_MAC_CTX_free(c);
}

static void
test_rfc8439_kat(void)
{
	for (size_t v = 0; v < VT_ARRAY_SIZE(rfc8439_poly); v++) {
		const struct rfc8439_poly_vec *t = &rfc8439_poly[v];
		uint8_t key[32], msg[512], want[16], tag[16];
		struct vecsec_poly1305_ctx ctx;
		size_t n;

		VT_EXPECT(vt_hex(key, sizeof(key), t->key) == 32, "%s key", t->name);
		n = vt_hex_or_text(msg, sizeof(msg), t->msg_hex, t->msg_text);
		VT_EXPECT(n == t->len, "%s: length %zu", t->name, n);
		vt_hex(want, sizeof(want), t->tag);
		VT_EXPECT(vecsec_poly1305(tag, msg, n, key) == 0, "%s", t->name);
		VT_EXPECT_MEM(tag, want, 16, "%s one-shot", t->name);
		/* one byte at a time */
		vecsec_poly1305_init(&ctx, key);
		for (size_t i = 0; i < n; i++)
			vecsec_poly1305_update(&ctx, msg + i, 1);
		vecsec_poly1305_final(&ctx, tag);
		VT_EXPECT_MEM(tag, want, 16, "%s bytewise", t->name);
		/* the libraries agree with the RFC too (oracle sanity) */
		ossl_poly1305(tag, msg, n, key);
		VT_EXPECT_MEM(tag, want, 16, "%s OpenSSL", t->name);
	}
}

/* vecsec one-shot == OpenSSL == libsodium, input at an offset */
static void
oracle_case(const uint8_t *src, size_t len, uint64_t seed)
{
	uint8_t key[32], a[16], b[16], c[16];

	vt_rand(key, sizeof(key), seed);
	ossl_poly1305(a, src, len, key);
	crypto_onetimeauth_poly1305(b, src, len, key);
	VT_EXPECT_MEM(b, a, 16, "openssl vs libsodium len=%zu", len);
	VT_EXPECT(vecsec_poly1305(c, src, len, key) == 0, "len=%zu", len);
	VT_EXPECT_MEM(c, a, 16, "poly1305 len=%zu seed=%llu", len, (unsigned long long)seed);
}

static void
test_vs_oracles(void)
{
	uint64_t seed = vt_seed(), st = seed;
	uint8_t *src = malloc(MAXLEN + 64);
	unsigned int nrand = slow ? 300 : 24;

	vt_rand(src, MAXLEN + 64, seed);
	for (size_t len = 0; len <= 1024; len++)
		oracle_case(src + (len * 7) % 64, len, seed + len);
	for (unsigned int i = 0; i < nrand; i++)
		oracle_case(src + vt_below(&st, 64), vt_below(&st, MAXLEN + 1), seed + 31 * i);
	/*
	 * All-ones data and the largest clamped r: every carry path, and the
	 * widest limbs of the SIMD kernels' unreduced last products (lengths
	 * past 300 reach the IFMA and AVX2 kernels at every CPU's bound).
	 */
	memset(src, 0xff, MAXLEN);
	for (size_t len = 0; len <= 4400; len += len < 300 ? 1 : 23) {
		uint8_t key[32], a[16], c[16];

		memset(key, 0xff, sizeof(key));
		key[16 + len % 16] = (uint8_t)len;
		crypto_onetimeauth_poly1305(a, src, len, key);
		vecsec_poly1305(c, src, len, key);
		VT_EXPECT_MEM(c, a, 16, "all-ones len=%zu", len);
	}
	free(src);
}

static void
test_incremental(void)
{
	uint64_t seed = vt_seed(), st = seed ^ 0x1234;
	uint8_t *src = malloc(4096);
	unsigned int rounds = slow ? 2000 : 200;

	vt_rand(src, 4096, seed);
	for (unsigned int i = 0; i < rounds; i++) {
		size_t len = vt_below(&st, 4097), pos = 0;
		uint8_t key[32], a[16], b[16];
		struct vecsec_poly1305_ctx ctx;

		vt_rand(key, sizeof(key), seed + i);
		vecsec_poly1305(a, src, len, key);
		vecsec_poly1305_init(&ctx, key);
		while (pos < len) {
			/* small and odd pieces mostly, sometimes big ones */
			size_t n = vt_below(&st, 4) == 0 ? vt_below(&st, 700) : vt_below(&st, 40);

			if (n > len - pos)
				n = len - pos;
			vecsec_poly1305_update(&ctx, src + pos, n);
			pos += n;
		}
		vecsec_poly1305_update(&ctx, NULL, 0);
		vecsec_poly1305_final(&ctx, b);
		VT_EXPECT_MEM(b, a, 16, "split len=%zu i=%u seed=%llu", len, i,
			      (unsigned long long)seed);
		VT_EXPECT_ZERO(&ctx, sizeof(ctx), "final wipes the context");
	}
	free(src);
}

/* The core API (poly1305_internal.h): selected kernel == reference, h without s */
static void
test_core(void)
{
	const struct poly1305_impl *impl = vecsec_poly1305_impl();
	uint64_t seed = vt_seed();
	uint8_t *src = malloc(16 * 300);

	vt_rand(src, 16 * 300, seed);
	for (size_t nb = 0; nb <= 300; nb++) {
		struct poly1305_state a, b;
		uint8_t key[32], ha[16], hb[16], tag[16], want[16];

		vt_rand(key, sizeof(key), seed + nb);
		vecsec_poly1305_core_init(&a, key);
		b = a;
		vecsec_poly1305_blocks_ref(&a, src, nb, 1);
		impl->blocks(&b, src, nb / 3, 1);
		impl->blocks(&b, src + 16 * (nb / 3), nb - nb / 3, 1);
		vecsec_poly1305_core_emit(&a, ha);
		vecsec_poly1305_core_emit(&b, hb);
		VT_EXPECT_MEM(hb, ha, 16, "%s blocks nb=%zu", impl->name, nb);
		/* with s added it is Poly1305 of the whole blocks */
		vecsec_poly1305_add_s(tag, ha, key + 16);
		crypto_onetimeauth_poly1305(want, src, 16 * nb, key);
		VT_EXPECT_MEM(tag, want, 16, "core + s nb=%zu", nb);
		/* emit leaves s out: a key with s = 0 gives the bare h */
		memset(key + 16, 0, 16);
		crypto_onetimeauth_poly1305(want, src, 16 * nb, key);
		VT_EXPECT_MEM(ha, want, 16, "emit has no s nb=%zu", nb);
		/* pad 0: the caller-padded last block (RFC 8439 2.5) */
		if (nb > 0) {
			uint8_t last[16];
			size_t tail = 1 + nb % 15;      /* a short block: 1..15 bytes */

			vecsec_poly1305_core_init(&a, key);
			vecsec_poly1305_blocks_ref(&a, src, nb - 1, 1);
			memcpy(last, src + 16 * (nb - 1), tail);
			last[tail] = 1;
			memset(last + tail + 1, 0, 15 - tail);
			b = a;
			impl->blocks(&b, last, 1, 0);
			vecsec_poly1305_core_emit(&b, hb);
			crypto_onetimeauth_poly1305(want, src, 16 * (nb - 1) + tail, key);
			VT_EXPECT_MEM(hb, want, 16, "pad 0 block nb=%zu tail=%zu", nb, tail);
		}
	}
	/* add_s wraps mod 2^128 (RFC 8439 A.3 #6) and may alias */
	{
		uint8_t h[16], s[16], want[16] = { 0 };

		memset(h, 0xff, 16);
		memset(s, 0, 16);
		s[0] = 1;
		vecsec_poly1305_add_s(h, h, s);
		VT_EXPECT_MEM(h, want, 16, "add_s carry out of bit 127");
	}
	free(src);
}

/*
 * The AEAD MAC in one assembly call (the AVX-512 short path's): every
 * count of each of its four runs against libsodium over the same blocks
 * laid end to end, random and all-ones (every carry, the largest r).
 */
static void
test_aead64(void)
{
#if defined(__x86_64__)
	uint64_t seed = vt_seed();
	uint8_t *src = malloc(16 * 48), *cat = malloc(16 * 48);

	for (int ones = 0; ones < 2; ones++) {
		if (ones)
			memset(src, 0xff, 16 * 48);
		else
			vt_rand(src, 16 * 48, seed);
		for (size_t naad = 0; naad <= 2; naad++)
		for (size_t npre = 0; npre <= 1; npre++)
		for (size_t nc = 0; nc <= 40; nc++)
		for (size_t npost = 1; npost <= 2; npost++) {
			struct p64_aead m;
			uint8_t key[32], tag[16], want[16];
			size_t n = 0;

			if (ones)
				memset(key, 0xff, sizeof(key));
			else
				vt_rand(key, sizeof(key), seed + nc + 100 * naad);
			m.aad = src;
			m.naad = naad;
			m.c = src + 16 * 3;
			m.nc = nc;
			m.npre = npre;
			m.npost = npost;
			memcpy(m.pre, src + 16 * 44, 16);
			memcpy(m.post, src + 16 * 45, 32);
			memcpy(cat, m.aad, 16 * naad);
			n += 16 * naad;
			memcpy(cat + n, m.pre, 16 * npre);
			n += 16 * npre;
			memcpy(cat + n, m.c, 16 * nc);
			n += 16 * nc;
			memcpy(cat + n, m.post, 16 * npost);
			n += 16 * npost;
			vecsec_poly1305_aead64_x86_64(tag, &m, key);
			crypto_onetimeauth_poly1305(want, cat, n, key);
			VT_EXPECT_MEM(tag, want, 16, "aead64 aad %zu pre %zu c %zu post %zu ones %d",
				      naad, npre, nc, npost, ones);
		}
	}
	free(src);
	free(cat);
#endif
}

static void
test_page_end(void)
{
	uint8_t key[32], src[200], want[16], tag[16];

	vt_rand(key, sizeof(key), 5);
	vt_rand(src, sizeof(src), 6);
	for (size_t len = 0; len <= 200; len++) {
		struct vt_page_end p;
		struct vecsec_poly1305_ctx ctx;

		vt_page_end_init(&p, len);
		memcpy(p.data, src, len);
		crypto_onetimeauth_poly1305(want, src, len, key);
		vecsec_poly1305(tag, p.data, len, key);
		VT_EXPECT_MEM(tag, want, 16, "page end len=%zu", len);
		vecsec_poly1305_init(&ctx, key);
		vecsec_poly1305_update(&ctx, p.data, len / 2);
		vecsec_poly1305_update(&ctx, p.data + len / 2, len - len / 2);
		vecsec_poly1305_final(&ctx, tag);
		VT_EXPECT_MEM(tag, want, 16, "page end split len=%zu", len);
		vt_page_end_free(&p);
	}
}

static void
test_args(void)
{
	struct vecsec_poly1305_ctx ctx;
	uint8_t key[32] = { 0 }, tag[16];

	VT_EXPECT(vecsec_poly1305_init(NULL, key) == -EINVAL, "NULL ctx");
	VT_EXPECT(vecsec_poly1305_init(&ctx, NULL) == -EINVAL, "NULL key");
	VT_EXPECT(vecsec_poly1305_init(&ctx, key) == 0, "init");
	VT_EXPECT(vecsec_poly1305_update(&ctx, NULL, 1) == -EINVAL, "NULL data");
	VT_EXPECT(vecsec_poly1305_update(NULL, key, 1) == -EINVAL, "NULL ctx update");
	VT_EXPECT(vecsec_poly1305_final(&ctx, NULL) == -EINVAL, "NULL tag");
	VT_EXPECT(vecsec_poly1305_final(&ctx, tag) == 0, "final");
	VT_EXPECT(vecsec_poly1305(NULL, key, 1, key) == -EINVAL, "one-shot NULL tag");
	VT_EXPECT(vecsec_poly1305(tag, NULL, 1, key) == -EINVAL, "one-shot NULL data");
	VT_EXPECT(vecsec_poly1305(tag, NULL, 0, key) == 0, "one-shot empty");
	VT_EXPECT(vecsec_poly1305(tag, key, 1, NULL) == -EINVAL, "one-shot NULL key");
	printf("\n    poly1305 impl: %s\n", vecsec_poly1305_impl_name());
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_rfc8439_kat),
		VT_TEST(test_vs_oracles),
		VT_TEST(test_incremental),
		VT_TEST(test_core),
		VT_TEST(test_aead64),
		VT_TEST(test_page_end),
		VT_TEST(test_args),
	};
	const char *s = getenv("VT_SLOW");
	int rc;

	slow = s != NULL && *s != '\0' && *s != '0';
	if (sodium_init() < 0)
		return 2;
	ossl_mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
	if (ossl_mac == NULL) {
		fprintf(stderr, "OpenSSL has no POLY1305 MAC\n");
		return 2;
	}
	rc = vt_main("poly1305", tests, VT_ARRAY_SIZE(tests));
	EVP_MAC_free(ossl_mac);
	return rc;
}
