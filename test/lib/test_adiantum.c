/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/adiantum: AES-256 (FIPS 197 C.3 and OpenSSL, every AES impl the CPU
 * can run; dispatch picks AES-NI or the ARMv8 Cryptography Extensions where
 * the CPU has them), NH (every impl the CPU runs == the reference: every
 * length, offsets, carries, guards, page ends), NHPoly1305 (Linux testmgr.h up to
 * 2048 bytes, incremental == one-shot == its definition), the XChaCha
 * stream Adiantum runs (every ChaCha impl across the 64-bit counter carry)
 * and Adiantum (Linux testmgr.h for XChaCha12 and XChaCha20 up to 4096
 * bytes; no other library implements it, so beyond the known answers:
 * decrypt(encrypt(x)) == x at every length 16..1024 and random ones to 64
 * KiB, offsets, in place, guard bytes, == the scalar build, and a one-bit
 * change anywhere changing the whole output). The program runs once per
 * ISA level, so NHPoly1305 and Adiantum run on each level's kernels.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "vt.h"
#include "adiantum.h"
#include "adiantum_long.h"
#include "adiantum/adiantum_internal.h"
#include "chacha/chacha_internal.h"
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
#ifdef VECSEC_HAVE_ARMV8CE
	else if (vecsec_cpu_features() & VECSEC_CPU_ARM_AES)
		VT_EXPECT(cur == &vecsec_aes256_impl_armv8ce, "cap %s picks %s",
			  vecsec_isa_name(vecsec_isa_cap()), cur->name);
#endif
#if defined(__aarch64__)
	else
		VT_EXPECT(cur == &vecsec_aes256_impl_ref, "no HWCAP_AES, cap %s picks %s",
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

/*
 * testmgr.h vectors 2-5 (19, 1024, 1040, 2048 bytes): one-shot, and fed
 * in random pieces of 0..100 bytes or up to 1100 (crossing units and
 * 1024-byte chunks).
 */
static void
test_nhpoly1305_long_kat(void)
{
	uint64_t st = vt_seed() ^ 0x10ad;

	for (size_t i = 0; i < VT_ARRAY_SIZE(nhpoly1305_long_tvs); i++) {
		const struct nhpoly1305_long_tv *tv = &nhpoly1305_long_tvs[i];
		const uint8_t *msg = (const uint8_t *)tv->msg;
		struct vecsec_nhpoly1305_key k;
		struct vecsec_nhpoly1305_ctx ctx;
		uint8_t d[16];
		size_t done = 0;

		VT_EXPECT(vecsec_nhpoly1305_key_init(&k, (const uint8_t *)tv->key,
						     VECSEC_NHPOLY1305_KEY_LEN) == 0, "key init");
		VT_EXPECT(vecsec_nhpoly1305(d, msg, tv->len, &k) == 0, "one-shot");
		VT_EXPECT_MEM(d, tv->digest, 16, "testmgr nhpoly1305 vector %zu (len %zu)", i + 2,
			      tv->len);
		VT_EXPECT(vecsec_nhpoly1305_init(&ctx, &k) == 0, "init");
		while (done < tv->len) {
			size_t n = vt_below(&st, 4) == 0 ? vt_below(&st, 1100) : vt_below(&st, 101);

			if (n > tv->len - done)
				n = tv->len - done;
			VT_EXPECT(vecsec_nhpoly1305_update(&ctx, msg + done, n) == 0, "update");
			done += n;
		}
		VT_EXPECT(vecsec_nhpoly1305_final(&ctx, d) == 0, "final");
		VT_EXPECT_MEM(d, tv->digest, 16, "vector %zu (len %zu) in pieces", i + 2, tv->len);
		vecsec_nhpoly1305_key_wipe(&k);
	}
}


/*
 * Every NH impl the CPU runs == the reference: every length 0..1024 by
 * units, message offsets 0..63 and key offsets 0..7 words, random data and
 * all-ones data (every 32-bit add carries, the 64-bit sums wrap), nothing
 * written but hash[] (guards). Then message and key ending where a
 * PROT_NONE page starts: no kernel reads past len bytes of message or
 * len / 4 + 12 words of key.
 */
static void
test_nh_impls(void)
{
	static const size_t page_lens[] = { 0, 16, 32, 48, 64, 80, 1008, 1024 };
	uint64_t st = vt_seed() ^ 0x4e48;
	static uint32_t key[NH_KEY_WORDS + 8];
	static uint8_t msg[NH_MESSAGE_BYTES + 64];
	uint64_t want[NH_NUM_PASSES];
	struct vt_buf out;

	vt_buf_init(&out, 8 + NH_HASH_BYTES);
	printf("\n    nh dispatch: %s\n", vecsec_nh_impl()->name);
	for (size_t i = 0; vecsec_nh_impls[i] != NULL; i++) {
		const struct nh_impl *p = vecsec_nh_impls[i];

		if (!impl_runs(p->isa, p->needs)) {
			printf("    SKIP nh/%s: CPU lacks it\n", p->name);
			continue;
		}
		for (int ones = 0; ones < 2; ones++) {
			for (size_t len = 0; len <= NH_MESSAGE_BYTES; len += NH_MESSAGE_UNIT) {
				size_t moff = (len / 16 * 7 + (size_t)ones * 3) % 64;
				size_t koff = (len / 16) % 8;

				if (ones) {
					memset(key, 0xff, sizeof(key));
					memset(msg, 0xff, sizeof(msg));
				} else {
					vt_rand(key, sizeof(key), vt_next(&st));
					vt_rand(msg, sizeof(msg), vt_next(&st));
				}
				vecsec_nh_ref(key + koff, msg + moff, len, want);
				vt_buf_reset(&out);
				p->nh(key + koff, msg + moff, len, (uint64_t *)(void *)(out.data + 8));
				VT_EXPECT_MEM(out.data + 8, want, sizeof(want),
					      "nh %s len %zu msg off %zu key off %zu ones %d", p->name,
					      len, moff, koff, ones);
				VT_EXPECT_GUARDS(&out, 8, NH_HASH_BYTES);
			}
		}
		for (size_t j = 0; j < VT_ARRAY_SIZE(page_lens); j++) {
			size_t len = page_lens[j], kbytes = (len / 4 + NH_KEY_EXTRA_WORDS) * 4;
			struct vt_page_end m, k;
			uint64_t got[NH_NUM_PASSES];

			vt_page_end_init(&m, len);
			vt_page_end_init(&k, kbytes);
			vt_rand(m.data, len, vt_next(&st));
			vt_rand(k.data, kbytes, vt_next(&st));
			vecsec_nh_ref((const uint32_t *)(void *)k.data, m.data, len, want);
			p->nh((const uint32_t *)(void *)k.data, m.data, len, got);
			VT_EXPECT_MEM(got, want, sizeof(want), "nh %s len %zu at a page end", p->name,
				      len);
			vt_page_end_free(&m);
			vt_page_end_free(&k);
		}
	}
	vt_buf_free(&out);
}

/*
 * NHPoly1305 by its definition, written apart from lib's buffering: pad
 * the message with zeros to whole units, NH each 1024-byte chunk with the
 * reference, Poly1305 (reference) over the 32-byte values, emit h.
 */
static void
nhpoly1305_oracle(uint8_t out[16], const uint8_t *msg, size_t len, const uint8_t raw[1088])
{
	struct poly1305_state st;
	uint32_t key[NH_KEY_WORDS];
	uint8_t chunk[NH_MESSAGE_BYTES], v[NH_HASH_BYTES];
	uint64_t h[NH_NUM_PASSES];

	for (size_t i = 0; i < NH_KEY_WORDS; i++)
		key[i] = adiantum_le32(raw + 16 + 4 * i);
	vecsec_poly1305_core_init(&st, raw);
	for (size_t off = 0; off < len; off += NH_MESSAGE_BYTES) {
		size_t n = len - off < NH_MESSAGE_BYTES ? len - off : NH_MESSAGE_BYTES;
		size_t padded = (n + NH_MESSAGE_UNIT - 1) / NH_MESSAGE_UNIT * NH_MESSAGE_UNIT;

		memset(chunk, 0, sizeof(chunk));
		memcpy(chunk, msg + off, n);
		vecsec_nh_ref(key, chunk, padded, h);
		for (int i = 0; i < NH_NUM_PASSES; i++)
			adiantum_st64(v + 8 * i, h[i]);
		vecsec_poly1305_blocks_ref(&st, v, 2, 1);
	}
	vecsec_poly1305_core_emit(&st, out);
}

/* one-shot == oracle == incremental at random split points, up to 3 chunks */
static void
test_nhpoly1305_incremental(void)
{
	uint64_t st = vt_seed() ^ 0x1305;
	uint8_t raw[VECSEC_NHPOLY1305_KEY_LEN], want[16], got[16], inc[16];
	static uint8_t msg[3 * NH_MESSAGE_BYTES + 100];
	struct vecsec_nhpoly1305_key k;

	vt_rand(raw, sizeof(raw), vt_next(&st));
	vt_rand(msg, sizeof(msg), vt_next(&st));
	VT_EXPECT(vecsec_nhpoly1305_key_init(&k, raw, sizeof(raw)) == 0, "key init");
	for (size_t len = 0; len <= sizeof(msg); len += (len < 80 ? 1 : 1 + vt_below(&st, 61))) {
		struct vecsec_nhpoly1305_ctx ctx;
		size_t done = 0;

		nhpoly1305_oracle(want, msg, len, raw);
		VT_EXPECT(vecsec_nhpoly1305(got, msg, len, &k) == 0, "one-shot");
		VT_EXPECT_MEM(got, want, 16, "one-shot vs definition, len %zu", len);
		VT_EXPECT(vecsec_nhpoly1305_init(&ctx, &k) == 0, "init");
		while (done < len) {
			/* pieces of 0..40 bytes or up to 1100: crossing units and chunks */
			size_t n = vt_below(&st, 4) == 0 ? vt_below(&st, 1100) : vt_below(&st, 41);

			if (n > len - done)
				n = len - done;
			VT_EXPECT(vecsec_nhpoly1305_update(&ctx, msg + done, n) == 0, "update");
			done += n;
		}
		VT_EXPECT(vecsec_nhpoly1305_final(&ctx, inc) == 0, "final");
		VT_EXPECT_MEM(inc, want, 16, "incremental vs one-shot, len %zu", len);
		VT_EXPECT_ZERO(&ctx, sizeof(ctx), "final wipes the state");
	}
	vecsec_nhpoly1305_key_wipe(&k);
	VT_EXPECT_ZERO(&k, sizeof(k), "key wipe");
}

/* ---- Adiantum ---- */

/*
 * One testmgr.h vector, both streams: encrypt and decrypt, out of place
 * and in place.
 */
static void
check_adiantum_tv(const char *key, const char *tweak, const char *ptext, const char *ctext12,
		  const char *ctext20, size_t len, size_t idx)
{
	static uint8_t buf[4096];

	VT_EXPECT(len <= sizeof(buf), "vector %zu: len %zu", idx, len);
	if (len > sizeof(buf))
		return;
	for (size_t s = 0; s < VT_ARRAY_SIZE(streams); s++) {
		struct vecsec_adiantum_key k;
		const char *ct = streams[s] == VECSEC_ADIANTUM_XCHACHA12 ? ctext12 : ctext20;
		int x = (int)streams[s];

		VT_EXPECT(vecsec_adiantum_key_init(&k, (const uint8_t *)key, 32, streams[s]) == 0,
			  "key init");
		VT_EXPECT(vecsec_adiantum_encrypt(&k, buf, (const uint8_t *)ptext, len,
						  (const uint8_t *)tweak) == 0, "encrypt");
		VT_EXPECT_MEM(buf, ct, len, "xchacha%d vector %zu (len %zu) encrypt", x, idx, len);
		VT_EXPECT(vecsec_adiantum_decrypt(&k, buf, buf, len, (const uint8_t *)tweak) == 0,
			  "decrypt");
		VT_EXPECT_MEM(buf, ptext, len, "xchacha%d vector %zu (len %zu) decrypt in place", x,
			      idx, len);
		VT_EXPECT(vecsec_adiantum_decrypt(&k, buf, (const uint8_t *)ct, len,
						  (const uint8_t *)tweak) == 0, "decrypt");
		VT_EXPECT_MEM(buf, ptext, len, "xchacha%d vector %zu (len %zu) decrypt", x, idx,
			      len);
		memcpy(buf, ptext, len);
		VT_EXPECT(vecsec_adiantum_encrypt(&k, buf, buf, len, (const uint8_t *)tweak) == 0,
			  "encrypt");
		VT_EXPECT_MEM(buf, ct, len, "xchacha%d vector %zu (len %zu) encrypt in place", x,
			      idx, len);
		vecsec_adiantum_key_wipe(&k);
	}
}

/* testmgr.h vectors 1-4 (16, 31, 128, 512 bytes) and 5-6 (1536, 4096) */
static void
test_adiantum_kat(void)
{
	for (size_t i = 0; i < VT_ARRAY_SIZE(adiantum_tvs); i++) {
		const struct adiantum_tv *tv = &adiantum_tvs[i];

		check_adiantum_tv(tv->key, tv->tweak, tv->ptext, tv->ctext12, tv->ctext20, tv->len,
				  i + 1);
	}
	for (size_t i = 0; i < VT_ARRAY_SIZE(adiantum_long_tvs); i++) {
		const struct adiantum_tv *tv = &adiantum_long_tvs[i];

		check_adiantum_tv(tv->key, tv->tweak, tv->ptext, tv->ctext12, tv->ctext20, tv->len,
				  VT_ARRAY_SIZE(adiantum_tvs) + i + 1);
	}
}

/*
 * The XChaCha12/20 stream Adiantum runs (vecsec_chacha_xor_impl() on a
 * 64-bit-counter state), through every ChaCha impl the CPU runs, across
 * the carry from word 12 into word 13: == the reference, continued by a
 * second call (the state after the carry), and each block == the block
 * computed from a state whose words 12-13 are set to that counter
 * directly (so the carry itself is checked, not only impl == reference).
 */
static void
test_xchacha_ctr64_carry(void)
{
	static const uint64_t ctrs[] = { 0xffffffffull, 0xfffffffdull, 0xfffffff8ull,
					 0xfffffff1ull, 0x1fffffffbull };
	static const size_t lens[] = { 1, 63, 64, 65, 200, 511, 512, 513, 1000, 4080 };
	static uint8_t src[4096 + 64], ref[4096 + 64], got[4096 + 64], ks[CHACHA_BLOCK_LEN];
	uint64_t st = vt_seed() ^ 0xca77;
	uint8_t key[CHACHA_KEY_LEN], nonce[8];

	for (size_t i = 0; vecsec_chacha_impls[i] != NULL; i++) {
		const struct chacha_impl *p = vecsec_chacha_impls[i];

		if (!impl_runs(p->isa, p->needs)) {
			printf("    SKIP chacha/%s: CPU lacks it\n", p->name);
			continue;
		}
		for (size_t c = 0; c < VT_ARRAY_SIZE(ctrs); c++) {
			for (size_t l = 0; l < VT_ARRAY_SIZE(lens); l++) {
				unsigned int rounds = (l + c) % 2 == 0 ? 12 : 20;
				size_t len = lens[l];
				struct chacha_state a, b;

				vt_rand(key, sizeof(key), vt_next(&st));
				vt_rand(nonce, sizeof(nonce), vt_next(&st));
				vt_rand(src, len + 64, vt_next(&st));
				chacha_state_init_64(&a, key, nonce, ctrs[c], rounds);
				b = a;
				vecsec_chacha_xor_impl(&vecsec_chacha_impl_ref, &a, ref, src, len);
				vecsec_chacha_xor_impl(p, &b, got, src, len);
				VT_EXPECT_MEM(got, ref, len, "xchacha%u %s ctr %#llx len %zu", rounds,
					      p->name, (unsigned long long)ctrs[c], len);
				/* one more block from the state each call left */
				vecsec_chacha_xor_impl(&vecsec_chacha_impl_ref, &a, ref + len, src + len,
						       64);
				vecsec_chacha_xor_impl(p, &b, got + len, src + len, 64);
				VT_EXPECT_MEM(got + len, ref + len, 64,
					      "xchacha%u %s ctr %#llx len %zu: next call", rounds,
					      p->name, (unsigned long long)ctrs[c], len);
				/* every whole block == its counter's block, carry set by hand */
				for (size_t blk = 0; (blk + 1) * CHACHA_BLOCK_LEN <= len; blk++) {
					struct chacha_state x;
					uint64_t ctr = ctrs[c] + blk;

					chacha_state_init_64(&x, key, nonce, ctr, rounds);
					vecsec_chacha_block_ref(ks, &x);
					for (size_t j = 0; j < CHACHA_BLOCK_LEN; j++)
						ks[j] ^= src[blk * CHACHA_BLOCK_LEN + j];
					VT_EXPECT_MEM(got + blk * CHACHA_BLOCK_LEN, ks,
						      CHACHA_BLOCK_LEN,
						      "xchacha%u %s block at ctr %#llx", rounds, p->name,
						      (unsigned long long)ctr);
				}
			}
		}
	}
}

static void
key_from(struct vecsec_adiantum_key *k, uint64_t seed, enum vecsec_adiantum_stream stream)
{
	uint8_t raw[VECSEC_ADIANTUM_KEY_LEN];

	vt_rand(raw, sizeof(raw), seed);
	VT_EXPECT(vecsec_adiantum_key_init(k, raw, sizeof(raw), stream) == 0, "key init");
}

/* Lengths 16..1024, then random ones to 64 KiB (more with VT_SLOW=1). */
static size_t
nb_lengths(void)
{
	return 1024 - 16 + 1 + (getenv("VT_SLOW") != NULL ? 600 : 24);
}

static size_t
length_at(size_t i, uint64_t *st)
{
	return i <= 1024 - 16 ? 16 + i : 16 + vt_below(st, 65536 - 16 + 1);
}

/*
 * decrypt(encrypt(x)) == x, out of place at in/out offsets 0..63 with
 * guard bytes, and in place (same ciphertext); the ciphertext equals the
 * scalar build's (every kernel == reference).
 */
static void
test_adiantum_roundtrip(void)
{
	enum vecsec_isa cap = vecsec_isa_cap();

	for (size_t s = 0; s < VT_ARRAY_SIZE(streams); s++) {
		uint64_t st = vt_seed() ^ (0xad1a0000 + streams[s]);
		struct vecsec_adiantum_key k;

		key_from(&k, vt_next(&st), streams[s]);
		for (size_t i = 0; i < nb_lengths(); i++) {
			size_t len = length_at(i, &st);
			size_t in_off = (len * 13) % 64, out_off = (len * 7) % 64;
			struct vt_buf src, ct, pt, ip;
			uint8_t tweak[VECSEC_ADIANTUM_TWEAK_LEN];
			int x = (int)streams[s];

			vt_buf_init(&src, len + 64);
			vt_buf_init(&ct, len + 64);
			vt_buf_init(&pt, len + 64);
			vt_buf_init(&ip, len + 64);
			vt_rand(tweak, sizeof(tweak), vt_next(&st));
			vt_rand(src.data + in_off, len, vt_next(&st));

			VT_EXPECT(vecsec_adiantum_encrypt(&k, ct.data + out_off, src.data + in_off,
							  len, tweak) == 0, "encrypt len %zu", len);
			VT_EXPECT_GUARDS(&ct, out_off, len);
			VT_EXPECT(memcmp(ct.data + out_off, src.data + in_off, len) != 0,
				  "xchacha%d len %zu: ciphertext == plaintext", x, len);
			VT_EXPECT(vecsec_adiantum_decrypt(&k, pt.data + out_off, ct.data + out_off,
							  len, tweak) == 0, "decrypt len %zu", len);
			VT_EXPECT_MEM(pt.data + out_off, src.data + in_off, len,
				      "xchacha%d len %zu in_off %zu out_off %zu: roundtrip", x, len,
				      in_off, out_off);
			VT_EXPECT_GUARDS(&pt, out_off, len);

			memcpy(ip.data + in_off, src.data + in_off, len);
			VT_EXPECT(vecsec_adiantum_encrypt(&k, ip.data + in_off, ip.data + in_off,
							  len, tweak) == 0, "encrypt in place");
			VT_EXPECT_MEM(ip.data + in_off, ct.data + out_off, len,
				      "xchacha%d len %zu off %zu: in place == out of place", x, len,
				      in_off);
			VT_EXPECT(vecsec_adiantum_decrypt(&k, ip.data + in_off, ip.data + in_off,
							  len, tweak) == 0, "decrypt in place");
			VT_EXPECT_MEM(ip.data + in_off, src.data + in_off, len,
				      "xchacha%d len %zu: in-place roundtrip", x, len);
			VT_EXPECT_GUARDS(&ip, in_off, len);

			if (cap != VECSEC_ISA_SCALAR) {
				VT_EXPECT(vecsec_force_isa(VECSEC_ISA_SCALAR) == 0, "force scalar");
				VT_EXPECT(vecsec_adiantum_encrypt(&k, pt.data, src.data + in_off,
								  len, tweak) == 0, "encrypt");
				VT_EXPECT(vecsec_force_isa(cap) == 0, "restore isa");
				VT_EXPECT_MEM(ct.data + out_off, pt.data, len,
					      "xchacha%d len %zu: %s != scalar", x, len,
					      vecsec_isa_name(cap));
			}
			vt_buf_free(&src);
			vt_buf_free(&ct);
			vt_buf_free(&pt);
			vt_buf_free(&ip);
		}
		vecsec_adiantum_key_wipe(&k);
	}
}

/* Inputs and outputs that end where a PROT_NONE page starts: no overread. */
static void
test_adiantum_page_end(void)
{
	static const size_t big[] = { 1023, 1024, 1025, 1040, 1041, 4096, 4111, 65536 };
	uint64_t st = vt_seed() ^ 0x9a9e;
	struct vecsec_adiantum_key k;

	key_from(&k, vt_next(&st), VECSEC_ADIANTUM_XCHACHA12);
	for (size_t i = 0; i < 100 + VT_ARRAY_SIZE(big); i++) {
		size_t len = i < 100 ? 16 + i : big[i - 100];
		struct vt_page_end a, b;
		uint8_t tweak[32];
		uint8_t *x = malloc(len);

		VT_EXPECT(x != NULL, "malloc");
		if (x == NULL)
			break;
		vt_page_end_init(&a, len);
		vt_page_end_init(&b, len);
		vt_rand(tweak, sizeof(tweak), vt_next(&st));
		vt_rand(a.data, len, vt_next(&st));
		memcpy(x, a.data, len);
		VT_EXPECT(vecsec_adiantum_encrypt(&k, b.data, a.data, len, tweak) == 0, "enc");
		VT_EXPECT(vecsec_adiantum_decrypt(&k, b.data, b.data, len, tweak) == 0, "dec");
		VT_EXPECT_MEM(b.data, x, len, "page end, len %zu", len);
		vt_page_end_free(&a);
		vt_page_end_free(&b);
		free(x);
	}
	vecsec_adiantum_key_wipe(&k);
}

/*
 * A wide-block cipher: a one-bit change in the tweak or anywhere in the
 * input changes the whole output. Each byte stays equal by chance with
 * probability 1/256, so: every whole 16-byte block must change, and at
 * least 99% of the bytes, less a slack of 10 (short messages would
 * otherwise fail by chance; 4 KiB messages still need 98.8%).
 */
static void
expect_all_changed(const uint8_t *a, const uint8_t *b, size_t len, const char *what, int x,
		   size_t pos)
{
	size_t same = 0, blocks_same = 0;

	for (size_t i = 0; i < len; i++)
		same += a[i] == b[i];
	for (size_t i = 0; i + 16 <= len; i += 16)
		blocks_same += memcmp(a + i, b + i, 16) == 0;
	VT_EXPECT(blocks_same == 0, "xchacha%d len %zu, %s bit %zu: %zu blocks unchanged", x, len,
		  what, pos, blocks_same);
	VT_EXPECT(same * 100 <= len + 1000, "xchacha%d len %zu, %s bit %zu: %zu bytes unchanged",
		  x, len, what, pos, same);
}

static void
test_adiantum_diffusion(void)
{
	static const size_t lens[] = { 16, 17, 31, 32, 33, 48, 64, 65, 100, 128, 511, 1040, 4096 };
	uint8_t *in = malloc(4096), *c0 = malloc(4096), *c1 = malloc(4096);

	VT_EXPECT(in != NULL && c0 != NULL && c1 != NULL, "malloc");
	if (in == NULL || c0 == NULL || c1 == NULL)
		goto out;
	for (size_t s = 0; s < VT_ARRAY_SIZE(streams); s++) {
		uint64_t st = vt_seed() ^ (0xd1ff0000 + streams[s]);
		struct vecsec_adiantum_key k;
		int x = (int)streams[s];

		key_from(&k, vt_next(&st), streams[s]);
		for (size_t li = 0; li < VT_ARRAY_SIZE(lens); li++) {
			size_t len = lens[li];
			uint8_t tweak[32];
			size_t bits[8];

			vt_rand(in, len, vt_next(&st));
			vt_rand(tweak, sizeof(tweak), vt_next(&st));
			vecsec_adiantum_encrypt(&k, c0, in, len, tweak);
			/* first, last, in the right part, in the left part, random */
			bits[0] = 0;
			bits[1] = 8 * len - 1;
			bits[2] = 8 * (len - 16) + 3;
			bits[3] = 8 * ((len - 16) / 2) + 5;
			for (int j = 4; j < 8; j++)
				bits[j] = vt_below(&st, (uint32_t)(8 * len));
			for (int j = 0; j < 8; j++) {
				in[bits[j] / 8] ^= (uint8_t)(1u << (bits[j] % 8));
				vecsec_adiantum_encrypt(&k, c1, in, len, tweak);
				expect_all_changed(c0, c1, len, "plaintext", x, bits[j]);
				in[bits[j] / 8] ^= (uint8_t)(1u << (bits[j] % 8));
				/* and backwards: a flipped ciphertext bit garbles the plaintext */
				c0[bits[j] / 8] ^= (uint8_t)(1u << (bits[j] % 8));
				vecsec_adiantum_decrypt(&k, c1, c0, len, tweak);
				expect_all_changed(in, c1, len, "ciphertext", x, bits[j]);
				c0[bits[j] / 8] ^= (uint8_t)(1u << (bits[j] % 8));
			}
			for (size_t bit = 0; bit < 8 * sizeof(tweak); bit += 37) {
				tweak[bit / 8] ^= (uint8_t)(1u << (bit % 8));
				vecsec_adiantum_encrypt(&k, c1, in, len, tweak);
				expect_all_changed(c0, c1, len, "tweak", x, bit);
				tweak[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			}
		}
		/* another key, same input: unrelated output */
		{
			struct vecsec_adiantum_key k2;
			uint8_t tweak[32] = { 0 };

			key_from(&k2, vt_next(&st), streams[s]);
			vecsec_adiantum_encrypt(&k, c0, in, 4096, tweak);
			vecsec_adiantum_encrypt(&k2, c1, in, 4096, tweak);
			expect_all_changed(c0, c1, 4096, "key", x, 0);
			vecsec_adiantum_key_wipe(&k2);
		}
		vecsec_adiantum_key_wipe(&k);
	}
out:
	free(in);
	free(c0);
	free(c1);
}

/* Arguments: -EINVAL and nothing written; wipes; both streams differ. */
static void
test_adiantum_errors(void)
{
	struct vecsec_adiantum_key k, k20;
	uint8_t raw[32] = { 1, 2, 3 }, tweak[32] = { 0 }, in[64] = { 0 }, a[64], b[64];
	struct vt_buf g;

	VT_EXPECT(vecsec_adiantum_key_init(NULL, raw, 32, VECSEC_ADIANTUM_XCHACHA12) == -EINVAL,
		  "NULL key");
	VT_EXPECT(vecsec_adiantum_key_init(&k, NULL, 32, VECSEC_ADIANTUM_XCHACHA12) == -EINVAL,
		  "NULL raw");
	VT_EXPECT(vecsec_adiantum_key_init(&k, raw, 31, VECSEC_ADIANTUM_XCHACHA12) == -EINVAL,
		  "short key");
	VT_EXPECT(vecsec_adiantum_key_init(&k, raw, 32, (enum vecsec_adiantum_stream)8) == -EINVAL,
		  "xchacha8 is not an Adiantum stream");
	VT_EXPECT(vecsec_adiantum_key_init(&k, raw, 32, VECSEC_ADIANTUM_XCHACHA12) == 0, "12");
	VT_EXPECT(vecsec_adiantum_key_init(&k20, raw, 32, VECSEC_ADIANTUM_XCHACHA20) == 0, "20");

	vt_buf_init(&g, 64);
	for (size_t len = 0; len < VECSEC_ADIANTUM_MIN_LEN; len++) {
		vt_buf_reset(&g);
		VT_EXPECT(vecsec_adiantum_encrypt(&k, g.data, in, len, tweak) == -EINVAL,
			  "encrypt len %zu", len);
		VT_EXPECT(vecsec_adiantum_decrypt(&k, g.data, in, len, tweak) == -EINVAL,
			  "decrypt len %zu", len);
		VT_EXPECT_GUARDS(&g, 0, 0);
	}
	VT_EXPECT(vecsec_adiantum_encrypt(NULL, a, in, 16, tweak) == -EINVAL, "NULL key");
	VT_EXPECT(vecsec_adiantum_encrypt(&k, NULL, in, 16, tweak) == -EINVAL, "NULL out");
	VT_EXPECT(vecsec_adiantum_encrypt(&k, a, NULL, 16, tweak) == -EINVAL, "NULL in");
	VT_EXPECT(vecsec_adiantum_encrypt(&k, a, in, 16, NULL) == -EINVAL, "NULL tweak");
	VT_EXPECT(vecsec_adiantum_decrypt(&k, a, in, 16, NULL) == -EINVAL, "NULL tweak");
	vt_buf_free(&g);

	VT_EXPECT(vecsec_adiantum_encrypt(&k, a, in, 64, tweak) == 0, "12");
	VT_EXPECT(vecsec_adiantum_encrypt(&k20, b, in, 64, tweak) == 0, "20");
	expect_all_changed(a, b, 64, "stream 12 vs 20", 12, 0);

	vecsec_adiantum_key_wipe(&k);
	VT_EXPECT_ZERO(&k, sizeof(k), "wipe");
	vecsec_adiantum_key_wipe(&k20);
	vecsec_adiantum_key_wipe(NULL);

	{
		struct vecsec_nhpoly1305_key nk;
		struct vecsec_nhpoly1305_ctx ctx;
		uint8_t nraw[VECSEC_NHPOLY1305_KEY_LEN] = { 0 }, d[16];

		VT_EXPECT(vecsec_nhpoly1305_key_init(&nk, nraw, 1087) == -EINVAL, "short key");
		VT_EXPECT(vecsec_nhpoly1305_key_init(NULL, nraw, 1088) == -EINVAL, "NULL");
		VT_EXPECT(vecsec_nhpoly1305_key_init(&nk, NULL, 1088) == -EINVAL, "NULL");
		VT_EXPECT(vecsec_nhpoly1305_key_init(&nk, nraw, 1088) == 0, "key");
		VT_EXPECT(vecsec_nhpoly1305_init(NULL, &nk) == -EINVAL, "NULL ctx");
		VT_EXPECT(vecsec_nhpoly1305_init(&ctx, NULL) == -EINVAL, "NULL key");
		VT_EXPECT(vecsec_nhpoly1305_init(&ctx, &nk) == 0, "init");
		VT_EXPECT(vecsec_nhpoly1305_update(&ctx, NULL, 1) == -EINVAL, "NULL in");
		VT_EXPECT(vecsec_nhpoly1305_update(&ctx, NULL, 0) == 0, "NULL in, len 0");
		VT_EXPECT(vecsec_nhpoly1305_final(&ctx, NULL) == -EINVAL, "NULL out");
		VT_EXPECT(vecsec_nhpoly1305_final(&ctx, d) == 0, "final");
		VT_EXPECT(vecsec_nhpoly1305(d, NULL, 1, &nk) == -EINVAL, "NULL in");
		VT_EXPECT(vecsec_nhpoly1305(NULL, in, 1, &nk) == -EINVAL, "NULL out");
		VT_EXPECT(vecsec_nhpoly1305(d, in, 1, NULL) == -EINVAL, "NULL key");
		vecsec_nhpoly1305_key_wipe(&nk);
		vecsec_nhpoly1305_key_wipe(NULL);
	}
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_aes_fips197),
		VT_TEST(test_aes_openssl),
		VT_TEST(test_nh_impls),
		VT_TEST(test_nhpoly1305_kat),
		VT_TEST(test_nhpoly1305_long_kat),
		VT_TEST(test_nhpoly1305_incremental),
		VT_TEST(test_xchacha_ctr64_carry),
		VT_TEST(test_adiantum_kat),
		VT_TEST(test_adiantum_roundtrip),
		VT_TEST(test_adiantum_page_end),
		VT_TEST(test_adiantum_diffusion),
		VT_TEST(test_adiantum_errors),
	};

	return vt_main("adiantum", tests, VT_ARRAY_SIZE(tests));
}
