/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA: RFC 5794 known answers and s-boxes; ECB, CTR (128-bit counter and
 * the 32-bit ESP counter), GCM (one shot, streaming, forgeries) and the
 * ESP layouts (RFC 4106, RFC 3686) against OpenSSL 3's EVP aria-*-ecb,
 * -ctr and -gcm, with offsets, in place and out of place, guard bytes and
 * outputs ending at a PROT_NONE page; run once per ISA (vt_main).
 * The portable reference is slow (about 25 us a block), so the `fast` run
 * spreads the key sizes over the lengths (and an ISA that still selects
 * the reference sweeps to 256 only); VT_SLOW=1 runs every length with
 * every key size, in place and out of place, at every ISA.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "vt.h"
#include "rfc5794.h"
#include "vecsec/vecsec_aria.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_esp.h"
#include "aria/aria_internal.h"
#include "gf256.h"

#define MAX_LEN (64 * 1024)

static bool slow;
static const size_t key_lens[3] = {16, 24, 32};

/* ---- OpenSSL oracles ---- */

static const EVP_CIPHER *
ossl_cipher(const char *mode, size_t key_len)
{
	char name[32];

	snprintf(name, sizeof(name), "aria-%zu-%s", key_len * 8, mode);
	return EVP_get_cipherbyname(name);
}

/* ECB (no padding) or CTR with OpenSSL; returns false on any error. */
static bool
ossl_crypt(const char *mode, bool enc, const uint8_t *key, size_t key_len, const uint8_t *iv,
	   uint8_t *out, const uint8_t *in, size_t len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, m = 0;
	bool ok;

	ok = c != NULL && EVP_CipherInit_ex(c, ossl_cipher(mode, key_len), NULL, key, iv, enc) == 1;
	ok = ok && EVP_CIPHER_CTX_set_padding(c, 0) == 1;
	ok = ok && EVP_CipherUpdate(c, out, &n, in, (int)len) == 1;
	ok = ok && EVP_CipherFinal_ex(c, out + n, &m) == 1 && (size_t)(n + m) == len;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

static bool
ossl_gcm_seal(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
	      const uint8_t *aad, size_t aad_len, uint8_t *out, const uint8_t *in, size_t len,
	      uint8_t *tag, size_t tag_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, m = 0;
	bool ok;

	ok = c != NULL && EVP_EncryptInit_ex(c, ossl_cipher("gcm", key_len), NULL, NULL, NULL) == 1;
	ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) == 1;
	ok = ok && EVP_EncryptInit_ex(c, NULL, NULL, key, iv) == 1;
	if (ok && aad_len != 0)
		ok = EVP_EncryptUpdate(c, NULL, &n, aad, (int)aad_len) == 1;
	ok = ok && EVP_EncryptUpdate(c, out, &n, in, (int)len) == 1;
	ok = ok && EVP_EncryptFinal_ex(c, out + n, &m) == 1 && (size_t)(n + m) == len;
	ok = ok && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, (int)tag_len, tag) == 1;
	EVP_CIPHER_CTX_free(c);
	return ok;
}

/* ---- helpers ---- */

static void
hex(uint8_t *out, size_t cap, const char *s, size_t want)
{
	size_t n = vt_hex(out, cap, s);

	VT_EXPECT(n == want, "hex length %zu != %zu", n, want);
}

static uint8_t *
xmalloc(size_t n)
{
	uint8_t *p = malloc(n != 0 ? n : 1);

	if (p == NULL) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* Length sweep: every length up to `top`, then a few random ones up to 64 KiB. */
struct sweep {
	size_t len, top, extra, i;
	uint64_t rng;
};

static void
sweep_init(struct sweep *s, size_t top, size_t extra, uint64_t seed)
{
	s->top = top;
	s->extra = extra;
	s->i = 0;
	s->rng = seed;
}

/*
 * Every length to 1024; in the fast run, an ISA that still selects the
 * reference kernels (already swept at scalar) sweeps to 256 only.
 */
static size_t
sweep_top(void)
{
	bool ref_again = vecsec_isa_cap() != VECSEC_ISA_SCALAR &&
			 vecsec_aria_impl() == &vecsec_aria_impl_ref &&
			 vecsec_ghash_impl() == &vecsec_ghash_impl_ref;

	return !slow && ref_again ? 256 : 1024;
}

/* after the linear part: lengths around the kernels' 1 KiB tail split and chunk sizes */
static const size_t sweep_fixed[] = {1025, 1040, 2047, 2048, 2049, 4113, 5000, 8191};

static bool
sweep_next(struct sweep *s, size_t step)
{
	size_t lin = s->top / step + 1, nfixed = VT_ARRAY_SIZE(sweep_fixed);

	if (s->i < lin) {
		s->len = s->i++ * step;
		return true;
	}
	if (s->i < lin + nfixed) {
		s->len = sweep_fixed[s->i++ - lin] / step * step;
		return true;
	}
	if (s->i++ >= lin + nfixed + s->extra)
		return false;
	s->len = vt_below(&s->rng, MAX_LEN / step + 1) * step;
	return true;
}

/* ---- known answers ---- */

static void
test_rfc5794_kat(void)
{
	printf("\n    aria impl %s, ghash impl %s\n", vecsec_aria_impl_name(),
	       vecsec_ghash_impl()->name);
	for (size_t i = 0; i < VT_ARRAY_SIZE(rfc5794_kats); i++) {
		const struct rfc5794_kat *v = &rfc5794_kats[i];
		uint8_t key[32], pt[16], ct[16], out[16];
		size_t key_len = vt_hex(key, sizeof(key), v->key);
		struct vecsec_aria_key k;

		hex(pt, sizeof(pt), v->pt, 16);
		hex(ct, sizeof(ct), v->ct, 16);
		VT_EXPECT(vecsec_aria_key_init(&k, key, key_len) == 0, "%s key", v->name);
		vecsec_aria_encrypt_block(&k, out, pt);
		VT_EXPECT_MEM(out, ct, 16, "RFC 5794 %s encrypt", v->name);
		vecsec_aria_decrypt_block(&k, out, ct);
		VT_EXPECT_MEM(out, pt, 16, "RFC 5794 %s decrypt", v->name);
		/* in place */
		memcpy(out, pt, 16);
		vecsec_aria_encrypt_block(&k, out, out);
		VT_EXPECT_MEM(out, ct, 16, "RFC 5794 %s in place", v->name);
		/* every impl this CPU can run, directly */
		for (size_t j = 0; vecsec_aria_impls[j] != NULL; j++) {
			const struct aria_impl *impl = vecsec_aria_impls[j];

			if (!vecsec_impl_usable(impl->isa, impl->needs, vecsec_isa_cap(),
						vecsec_cpu_features()))
				continue;
			impl->encrypt_blocks(out, pt, 1,
					     (const struct aria_key *)(const void *)k.opaque);
			VT_EXPECT_MEM(out, ct, 16, "%s impl %s", v->name, impl->name);
		}
		vecsec_aria_key_wipe(&k);
		VT_EXPECT_ZERO(&k, sizeof(k), "key wiped");
	}
}

static void
test_sboxes(void)
{
	uint8_t sb2[256];

	hex(sb2, sizeof(sb2), rfc5794_sb2, 256);
	for (unsigned int x = 0; x < 256; x++) {
		uint8_t s1 = vecsec_aria_sbox_ref(1, (uint8_t)x);
		uint8_t s2 = vecsec_aria_sbox_ref(2, (uint8_t)x);

		VT_EXPECT(s2 == sb2[x], "SB2(%02x) = %02x, RFC %02x", x, s2, sb2[x]);
		VT_EXPECT(vecsec_aria_sbox_ref(3, s1) == x, "SB3(SB1(%02x))", x);
		VT_EXPECT(vecsec_aria_sbox_ref(4, s2) == x, "SB4(SB2(%02x))", x);
		VT_EXPECT(s1 == vecsec_aes_sbox_ct((uint8_t)x), "SB1 is the AES s-box");
	}
	VT_EXPECT(vecsec_aria_sbox_ref(1, 0x23) == RFC5794_SB1_23, "SB1(0x23)");
	VT_EXPECT(vecsec_aria_sbox_ref(4, 0xef) == RFC5794_SB4_EF, "SB4(0xef)");
}

/*
 * The one-call short GHASH (A || pad || C || pad || lengths from zero)
 * against the reference update over the same blocks gathered by hand, for
 * every pair of lengths it takes (AAD lengths sampled); odd source offsets.
 */
static void
test_hash_short(const struct ghash_impl *impl, const struct ghash_key *hk, const uint8_t *aad,
		const uint8_t *c)
{
	uint8_t hb[GHASH_POWERS * 16], want[16], got[16];

	if (impl->hash_short == NULL)
		return;
	for (size_t al = 0; al <= GHASH_SHORT_MAX; al += al < 20 ? 1 : 7) {
		for (size_t len = 0; al + len <= GHASH_SHORT_MAX; len++) {
			size_t a = (al + 15) / 16 * 16, cl = (len + 15) / 16 * 16;
			uint64_t abits = (uint64_t)al * 8, cbits = (uint64_t)len * 8;

			memset(hb, 0, sizeof(hb));
			memcpy(hb, aad, al);
			memcpy(hb + a, c, len);
			for (int i = 0; i < 8; i++) {
				hb[a + cl + 7 - i] = (uint8_t)(abits >> (8 * i));
				hb[a + cl + 15 - i] = (uint8_t)(cbits >> (8 * i));
			}
			memset(want, 0, 16);
			vecsec_ghash_impl_ref.update(want, hk, hb, (a + cl) / 16 + 1);
			memset(got, 0xa5, 16);
			impl->hash_short(got, hk, aad, al, c, len);
			VT_EXPECT_MEM(got, want, 16, "%s hash_short aad %zu len %zu", impl->name,
				      al, len);
		}
	}
}

/*
 * Every kernel this CPU can run (at the current cap) against the reference,
 * called directly: ECB both ways, both CTR forms including the counter each
 * leaves behind, GHASH; block counts around every width 1..64.
 */
static void
test_impls_vs_ref(void)
{
	const struct aria_impl *ref = &vecsec_aria_impl_ref;
	const struct ghash_impl *gref = &vecsec_ghash_impl_ref;
	static uint8_t src[200 * 16], want[4][200 * 16], got[200 * 16];
	uint8_t key[32], c0[16], cw[2][16], c2[16];
	const struct aria_impl *impls[16];
	size_t nimpls = 0;
	struct vecsec_aria_gcm_key gk;
	const struct aria_gcm_key *k = (const struct aria_gcm_key *)(const void *)gk.opaque;
	uint64_t rng = vt_seed() + 81;
	size_t tested = 0;

	vt_rand(key, 32, rng);
	vt_rand(src, sizeof(src), rng + 1);
	for (size_t i = 0; vecsec_aria_impls[i] != NULL && nimpls < 16; i++) {
		const struct aria_impl *impl = vecsec_aria_impls[i];

		if (impl != ref && vecsec_impl_usable(impl->isa, impl->needs, vecsec_isa_cap(),
						      vecsec_cpu_features()))
			impls[nimpls++] = impl;
	}
	tested = nimpls;
	/*
	 * 0 bytes with NULL buffers, as the public ECB and CTR calls of 0 bytes
	 * pass them on (vecsec_aria.h allows NULL then): nothing read or
	 * written, the counter left as it was
	 */
	vecsec_aria_gcm_key_init(&gk, key, 16);
	for (size_t i = 0; i <= nimpls; i++) {
		const struct aria_impl *impl = i < nimpls ? impls[i] : ref;

		memset(c2, 0x5c, 16);
		memcpy(cw[0], c2, 16);
		impl->encrypt_blocks(NULL, NULL, 0, &k->aria);
		impl->decrypt_blocks(NULL, NULL, 0, &k->aria);
		impl->ctr128_xor(NULL, NULL, 0, &k->aria, cw[0]);
		impl->ctr32_xor(NULL, NULL, 0, &k->aria, cw[0]);
		VT_EXPECT_MEM(cw[0], c2, 16, "%s: 0 bytes moved the counter", impl->name);
	}
	/* the reference once per case (it is slow), then every kernel against it */
	for (size_t ki = 0; ki < 3 && nimpls > 0; ki++) {
		vecsec_aria_gcm_key_init(&gk, key, key_lens[ki]);
		for (size_t nb = 0; nb <= (slow ? 200 : 130); nb++) {
			size_t len = nb * 16 - (nb != 0 && nb % 3 == 0 ? 5 : 0);

			vt_rand(c0, 16, rng + nb + ki);
			if (nb % 2 == 0)
				memset(c0 + 8, 0xff, 7); /* carries, wraps */
			if (nb % 4 == 2)
				memset(c0 + 12, 0xff, 4); /* the 32-bit counter wraps */
			if (nb % 8 == 6)
				memset(c0, 0xff, 15);     /* the 128-bit counter wraps */
			ref->encrypt_blocks(want[0], src, nb, &k->aria);
			ref->decrypt_blocks(want[1], src, nb, &k->aria);
			for (int w = 0; w < 2; w++) {
				memcpy(cw[w], c0, 16);
				if (w == 0)
					ref->ctr128_xor(want[2], src, len, &k->aria, cw[w]);
				else
					ref->ctr32_xor(want[3], src, len, &k->aria, cw[w]);
			}
			for (size_t i = 0; i < nimpls; i++) {
				const struct aria_impl *impl = impls[i];

				impl->encrypt_blocks(got, src, nb, &k->aria);
				VT_EXPECT_MEM(got, want[0], nb * 16, "%s ecb enc nb %zu",
					      impl->name, nb);
				impl->decrypt_blocks(got, src, nb, &k->aria);
				VT_EXPECT_MEM(got, want[1], nb * 16, "%s ecb dec nb %zu",
					      impl->name, nb);
				for (int w = 0; w < 2; w++) {
					memcpy(c2, c0, 16);
					if (w == 0)
						impl->ctr128_xor(got, src, len, &k->aria, c2);
					else
						impl->ctr32_xor(got, src, len, &k->aria, c2);
					VT_EXPECT_MEM(got, want[2 + w], len, "%s ctr%s len %zu",
						      impl->name, w == 0 ? "128" : "32", len);
					VT_EXPECT_MEM(c2, cw[w], 16,
						      "%s ctr%s counter after len %zu", impl->name,
						      w == 0 ? "128" : "32", len);
				}
				/* in place */
				memcpy(got, src, len);
				memcpy(c2, c0, 16);
				impl->ctr32_xor(got, got, len, &k->aria, c2);
				VT_EXPECT_MEM(got, want[3], len, "%s ctr32 in place len %zu",
					      impl->name, len);
			}
		}
	}
	/* many keys (same length), a key per block: every impl that has it */
	for (size_t ki = 0; ki < 3 && nimpls > 0; ki++) {
		static struct aria_key mk[3];
		const struct aria_key *kp[130];
		uint8_t mkey[32];

		for (int m = 0; m < 3; m++) {
			vt_rand(mkey, key_lens[ki], rng + 700 + 3 * ki + (uint64_t)m);
			vecsec_aria_key_schedule_ref(&mk[m], mkey, key_lens[ki]);
		}
		/* runs of one key (some of 4 aligned blocks: a broadcast key), then random */
		for (size_t b = 0; b < 130; b++)
			kp[b] = b < 40 ? &mk[(b / 4 + (b == 21)) % 3] : &mk[vt_below(&rng, 3)];
		for (size_t b = 0; b < 130; b++)
			ref->encrypt_blocks(want[0] + 16 * b, src + 16 * b, 1, kp[b]);
		for (size_t i = 0; i < nimpls; i++) {
			const struct aria_impl *impl = impls[i];

			if (impl->encrypt_blocks_multi == NULL)
				continue;
			for (size_t nb = 0; nb <= 130; nb += nb < 40 ? 1 : 13) {
				memset(got, 0, sizeof(got));
				impl->encrypt_blocks_multi(got, src, nb, kp);
				VT_EXPECT_MEM(got, want[0], nb * 16, "%s multi-key nb %zu key %zu",
					      impl->name, nb, key_lens[ki]);
				VT_EXPECT_ZERO(got + nb * 16, 16, "%s multi-key writes past nb %zu",
					       impl->name, nb);
			}
		}
	}
	for (size_t i = 0; vecsec_ghash_impls[i] != NULL; i++) {
		const struct ghash_impl *impl = vecsec_ghash_impls[i];

		if (impl == gref || !vecsec_impl_usable(impl->isa, impl->needs, vecsec_isa_cap(),
							vecsec_cpu_features()))
			continue;
		tested++;
		vecsec_aria_gcm_key_init(&gk, key, 16);
		for (size_t nb = 0; nb <= 130; nb++) {
			uint8_t x1[16], x2[16];

			vt_rand(x1, 16, rng + 500 + nb);
			memcpy(x2, x1, 16);
			gref->update(x1, &k->ghash, src, nb);
			impl->update(x2, &k->ghash, src, nb);
			VT_EXPECT_MEM(x2, x1, 16, "%s ghash nb %zu", impl->name, nb);
		}
		test_hash_short(impl, &k->ghash, src + 7, src + 1001);
	}
	printf("\n    %zu SIMD kernel tables checked against the reference\n", tested);
	VT_EXPECT(true, "reference always present");
}

/* ---- ECB ---- */

static void
test_ecb_vs_openssl(void)
{
	uint8_t *src = xmalloc(MAX_LEN), *want = xmalloc(MAX_LEN);
	struct vt_buf g;
	struct sweep s;
	uint64_t seed = vt_seed();

	vt_buf_init(&g, MAX_LEN + 64);
	sweep_init(&s, sweep_top(), slow ? 32 : 4, seed);
	while (sweep_next(&s, 16)) {
		size_t len = s.len, off = (len / 16 * 7) % 64;

		for (size_t ki = 0; ki < 3; ki++) {
			uint8_t key[32];
			struct vecsec_aria_key k;
			bool inplace = (len / 16 + ki) % 2 == 1;

			if (!slow && ki != (len / 16) % 3 && len > 64)
				continue;
			vt_rand(key, key_lens[ki], seed + len + ki);
			vt_rand(src, len, seed ^ len);
			VT_EXPECT(ossl_crypt("ecb", true, key, key_lens[ki], NULL, want, src, len),
				  "openssl ecb");
			vecsec_aria_key_init(&k, key, key_lens[ki]);
			vt_buf_reset(&g);
			if (inplace)
				memcpy(g.data + off, src, len);
			VT_EXPECT(vecsec_aria_ecb_encrypt(&k, g.data + off,
							  inplace ? g.data + off : src, len) == 0,
				  "ecb rc");
			VT_EXPECT_MEM(g.data + off, want, len,
				      "ecb enc key %zu len %zu off %zu%s seed %llu", key_lens[ki],
				      len, off, inplace ? " in place" : "",
				      (unsigned long long)seed);
			VT_EXPECT_GUARDS(&g, off, len);
			VT_EXPECT(vecsec_aria_ecb_decrypt(&k, g.data + off, g.data + off, len) == 0,
				  "ecb dec rc");
			VT_EXPECT_MEM(g.data + off, src, len, "ecb dec key %zu len %zu",
				      key_lens[ki], len);
			VT_EXPECT_GUARDS(&g, off, len);
		}
	}
	/* lengths that are no multiple of 16: -EINVAL, nothing written */
	{
		struct vecsec_aria_key k;
		uint8_t key[16] = {0};

		vecsec_aria_key_init(&k, key, 16);
		for (size_t len = 1; len < 48; len += (len % 16 == 15) ? 2 : 1) {
			vt_buf_reset(&g);
			VT_EXPECT(vecsec_aria_ecb_encrypt(&k, g.data, src, len) == -EINVAL,
				  "ecb len %zu", len);
			VT_EXPECT(vecsec_aria_ecb_decrypt(&k, g.data, src, len) == -EINVAL,
				  "ecb dec len %zu", len);
			VT_EXPECT_GUARDS(&g, 0, 0);
		}
		VT_EXPECT(vecsec_aria_key_init(&k, key, 15) == -EINVAL, "key 15");
		VT_EXPECT(vecsec_aria_key_init(&k, key, 0) == -EINVAL, "key 0");
		VT_EXPECT(vecsec_aria_key_init(NULL, key, 16) == -EINVAL, "key NULL");
	}
	vt_buf_free(&g);
	free(src);
	free(want);
}

/* ---- CTR ---- */

static void
test_ctr_vs_openssl(void)
{
	uint8_t *src = xmalloc(MAX_LEN), *want = xmalloc(MAX_LEN);
	struct vt_buf g;
	struct sweep s;
	uint64_t seed = vt_seed() + 1;

	vt_buf_init(&g, MAX_LEN + 64);
	sweep_init(&s, sweep_top(), slow ? 32 : 3, seed);
	while (sweep_next(&s, 1)) {
		size_t len = s.len, off = (len * 7) % 64;

		for (size_t ki = 0; ki < 3; ki++) {
			uint8_t key[32], iv[16];
			struct vecsec_aria_key k;
			bool inplace = (len + ki) % 2 == 1;

			if (!slow && ki != len % 3)
				continue;
			vt_rand(key, key_lens[ki], seed + len + ki);
			vt_rand(iv, 16, seed * 3 + len);
			vt_rand(src, len, seed ^ len);
			VT_EXPECT(ossl_crypt("ctr", true, key, key_lens[ki], iv, want, src, len),
				  "openssl ctr");
			vecsec_aria_key_init(&k, key, key_lens[ki]);
			vt_buf_reset(&g);
			if (inplace)
				memcpy(g.data + off, src, len);
			VT_EXPECT(vecsec_aria_ctr_xor(&k, g.data + off,
						      inplace ? g.data + off : src, len, iv) == 0,
				  "ctr rc");
			VT_EXPECT_MEM(g.data + off, want, len,
				      "ctr key %zu len %zu off %zu%s seed %llu", key_lens[ki], len,
				      off, inplace ? " in place" : "", (unsigned long long)seed);
			VT_EXPECT_GUARDS(&g, off, len);
		}
	}
	vt_buf_free(&g);
	free(src);
	free(want);
}

/* Counter carries: the OpenSSL layout carries through all 128 bits. */
static void
test_ctr_carries(void)
{
	static const char *const ivs[] = {
		"000102030405060708090a0bfffffffe", /* 32-bit carry */
		"0001020304050607fffffffffffffffd", /* 64-bit carry */
		"fffffffffffffffffffffffffffffffe", /* 128-bit wrap to zero */
		"00000000000000ffffffffffffffffff", /* carry through 9 bytes */
	};
	uint8_t key[32], iv[16], src[100], want[100], got[100];
	struct vecsec_aria_key k;

	for (size_t i = 0; i < VT_ARRAY_SIZE(ivs); i++) {
		size_t kl = key_lens[i % 3];

		hex(iv, sizeof(iv), ivs[i], 16);
		vt_rand(key, kl, vt_seed() + i);
		vt_rand(src, sizeof(src), vt_seed() + 10 + i);
		vecsec_aria_key_init(&k, key, kl);
		VT_EXPECT(ossl_crypt("ctr", true, key, kl, iv, want, src, sizeof(src)), "openssl");
		VT_EXPECT(vecsec_aria_ctr_xor(&k, got, src, sizeof(src), iv) == 0, "rc");
		VT_EXPECT_MEM(got, want, sizeof(src), "carry iv %s", ivs[i]);
	}
}

/* The ESP 32-bit counter: right up to its end, never across. */
static void
test_ctr32_esp(void)
{
	uint8_t key[32], blk[16], src[80], want[80];
	struct vecsec_aria_key k;
	struct vt_buf g;

	vt_buf_init(&g, 128);
	for (size_t ki = 0; ki < 3; ki++) {
		vt_rand(key, key_lens[ki], vt_seed() + 77 + ki);
		vt_rand(blk, 12, vt_seed() + 99 + ki);
		vt_rand(src, sizeof(src), vt_seed() + 55);
		vecsec_aria_key_init(&k, key, key_lens[ki]);
		/* counter fffffffb: 5 blocks (65..80 bytes) end exactly at ffffffff */
		blk[12] = blk[13] = blk[14] = 0xff;
		blk[15] = 0xfb;
		for (size_t len = 0; len <= sizeof(src); len++) {
			vt_buf_reset(&g);
			VT_EXPECT(ossl_crypt("ctr", true, key, key_lens[ki], blk, want, src, len),
				  "openssl");
			VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, len, blk) == 0,
				  "ctr32 len %zu", len);
			VT_EXPECT_MEM(g.data, want, len, "ctr32 up to the end, len %zu", len);
			VT_EXPECT_GUARDS(&g, 0, len);
		}
		/* one byte more would need counter 0x100000000: refused, nothing written */
		vt_buf_reset(&g);
		VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, 81, blk) == -EINVAL, "wrap");
		VT_EXPECT_GUARDS(&g, 0, 0);
		blk[15] = 0xff;
		VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, 16, blk) == 0, "last block");
		VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, 17, blk) == -EINVAL, "wrap 2");

		/* RFC 3686 layout: nonce || IV || 00000001 built by hand, and by lib/esp */
		{
			uint8_t nonce[4], iv[8], block[16] = {0}, keymat[36], eblk[16];
			struct vecsec_aead_key ek;

			vt_rand(nonce, 4, vt_seed() + 5);
			vt_rand(iv, 8, vt_seed() + 6);
			memcpy(block, nonce, 4);
			memcpy(block + 4, iv, 8);
			block[15] = 1;
			memcpy(keymat, key, key_lens[ki]);
			memcpy(keymat + key_lens[ki], nonce, 4);
			VT_EXPECT(vecsec_esp_key_init(&ek, VECSEC_AEAD_ARIA_CTR, keymat,
						      key_lens[ki] + 4) == 0, "esp ctr key");
			vecsec_esp_ctr_block(eblk, &ek, iv);
			vecsec_aead_key_wipe(&ek);
			VT_EXPECT_MEM(eblk, block, 16, "esp ctr block");
			for (size_t len = 0; len <= sizeof(src); len += 7) {
				vt_buf_reset(&g);
				VT_EXPECT(ossl_crypt("ctr", true, key, key_lens[ki], block, want,
						     src, len),
					  "openssl");
				VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, len, eblk) == 0,
					  "esp ctr");
				VT_EXPECT_MEM(g.data, want, len, "esp ctr len %zu", len);
				VT_EXPECT_GUARDS(&g, 0, len);
			}
			/* 2^32 - 1 blocks fit, one byte more does not (checked before any work) */
#if SIZE_MAX > UINT32_MAX
			VT_EXPECT(vecsec_aria_ctr32_xor(&k, g.data, src, ((size_t)1 << 36) - 16 + 1,
							eblk) == -EINVAL,
				  "esp ctr too long");
#endif
		}
	}
	vt_buf_free(&g);
}

/*
 * The ctr32 kernel wraps modulo 2^32 without a carry into byte 11 (GCM's
 * inc32: J0 from a long IV may sit anywhere); checked block by block with ECB.
 */
static void
test_ctr32_kernel_wrap(void)
{
	const struct aria_impl *impl = vecsec_aria_impl();
	uint8_t key[32], ctr[16], blocks[6][16], ks[96], src[90], got[90], want[90];
	struct vecsec_aria_key k;

	vt_rand(key, 32, vt_seed() + 71);
	vt_rand(ctr, 12, vt_seed() + 72);
	vt_rand(src, sizeof(src), vt_seed() + 73);
	memset(ctr + 12, 0xff, 3);
	ctr[15] = 0xfd;
	vecsec_aria_key_init(&k, key, 32);
	for (unsigned int i = 0; i < 6; i++) {
		uint32_t c = 0xfffffffdu + i;

		memcpy(blocks[i], ctr, 12);
		blocks[i][12] = (uint8_t)(c >> 24);
		blocks[i][13] = (uint8_t)(c >> 16);
		blocks[i][14] = (uint8_t)(c >> 8);
		blocks[i][15] = (uint8_t)c;
	}
	VT_EXPECT(vecsec_aria_ecb_encrypt(&k, ks, &blocks[0][0], sizeof(ks)) == 0, "ecb");
	for (size_t i = 0; i < sizeof(src); i++)
		want[i] = src[i] ^ ks[i];
	impl->ctr32_xor(got, src, sizeof(src), (const struct aria_key *)(const void *)k.opaque,
			ctr);
	VT_EXPECT_MEM(got, want, sizeof(src), "%s ctr32 wrap", impl->name);
	VT_EXPECT_MEM(ctr, blocks[5], 12, "no carry into the nonce");
	VT_EXPECT(ctr[12] == 0 && ctr[13] == 0 && ctr[14] == 0 && ctr[15] == 3,
		  "counter after 6 blocks");
}

/* Output (and input) ending at a PROT_NONE page: no byte read or written past the end. */
static void
test_page_end(void)
{
	uint8_t key[32], iv[16], tag[16], want[200], wtag[16];
	struct vecsec_aria_key k;
	struct vecsec_aria_gcm_key gk;

	vt_rand(key, 32, vt_seed() + 3);
	vt_rand(iv, 16, vt_seed() + 4);
	vecsec_aria_key_init(&k, key, 32);
	vecsec_aria_gcm_key_init(&gk, key, 32);
	for (size_t len = 0; len <= 200; len += (len < 40 ? 1 : 23)) {
		struct vt_page_end in, out;

		vt_page_end_init(&in, len);
		vt_page_end_init(&out, len);
		vt_rand(in.data, len, vt_seed() + len);
		VT_EXPECT(ossl_crypt("ctr", true, key, 32, iv, want, in.data, len), "openssl");
		VT_EXPECT(vecsec_aria_ctr_xor(&k, out.data, in.data, len, iv) == 0, "ctr");
		VT_EXPECT_MEM(out.data, want, len, "ctr page end len %zu", len);
		if (len % 16 == 0) {
			VT_EXPECT(ossl_crypt("ecb", true, key, 32, NULL, want, in.data, len),
				  "ossl");
			VT_EXPECT(vecsec_aria_ecb_encrypt(&k, out.data, in.data, len) == 0, "ecb");
			VT_EXPECT_MEM(out.data, want, len, "ecb page end len %zu", len);
		}
		VT_EXPECT(ossl_gcm_seal(key, 32, iv, 12, NULL, 0, want, in.data, len, wtag, 16),
			  "ossl gcm");
		VT_EXPECT(vecsec_aria_gcm_seal(&gk, out.data, tag, 16, in.data, len, iv, 12, NULL,
					       0) == 0,
			  "gcm seal");
		VT_EXPECT_MEM(out.data, want, len, "gcm page end len %zu", len);
		VT_EXPECT_MEM(tag, wtag, 16, "gcm tag page end len %zu", len);
		VT_EXPECT(vecsec_aria_gcm_open(&gk, in.data, out.data, len, tag, 16, iv, 12, NULL,
					       0) == 0,
			  "gcm open page end len %zu", len);
		vt_page_end_free(&in);
		vt_page_end_free(&out);
	}
}

/* ---- GCM ---- */

static const size_t iv_lens[] = {12, 1, 8, 16, 60};

static void
test_gcm_vs_openssl(void)
{
	uint8_t *src = xmalloc(MAX_LEN), *want = xmalloc(MAX_LEN), aad[256];
	struct vt_buf g, t;
	struct sweep s;
	uint64_t seed = vt_seed() + 2;

	vt_buf_init(&g, MAX_LEN + 64);
	vt_buf_init(&t, 16);
	sweep_init(&s, sweep_top(), slow ? 32 : 3, seed);
	while (sweep_next(&s, 1)) {
		size_t len = s.len, off = (len * 7) % 64;

		for (size_t ki = 0; ki < 3; ki++) {
			uint8_t key[32], iv[60], wtag[16];
			struct vecsec_aria_gcm_key k;
			size_t iv_len = iv_lens[(len / 3) % VT_ARRAY_SIZE(iv_lens)];
			size_t aad_len = len % 5 == 0 ? 256 : (len * 13) % 65;
			size_t tag_len = 4 + len % 13;
			bool inplace = (len + ki) % 2 == 1;
			int rc;

			if (!slow && ki != len % 3)
				continue;
			vt_rand(key, key_lens[ki], seed + len + ki);
			vt_rand(iv, iv_len, seed * 5 + len);
			vt_rand(aad, aad_len, seed * 7 + len);
			vt_rand(src, len, seed ^ len);
			VT_EXPECT(ossl_gcm_seal(key, key_lens[ki], iv, iv_len, aad, aad_len, want,
						src, len, wtag, tag_len),
				  "openssl gcm");
			vecsec_aria_gcm_key_init(&k, key, key_lens[ki]);
			vt_buf_reset(&g);
			vt_buf_reset(&t);
			if (inplace)
				memcpy(g.data + off, src, len);
			rc = vecsec_aria_gcm_seal(&k, g.data + off, t.data, tag_len,
						  inplace ? g.data + off : src, len, iv, iv_len,
						  aad, aad_len);
			VT_EXPECT(rc == 0, "seal rc %d", rc);
			VT_EXPECT_MEM(g.data + off, want, len,
				      "gcm key %zu len %zu iv %zu aad %zu off %zu%s seed %llu",
				      key_lens[ki], len, iv_len, aad_len, off,
				      inplace ? " in place" : "", (unsigned long long)seed);
			VT_EXPECT_MEM(t.data, wtag, tag_len,
				      "gcm tag key %zu len %zu iv %zu aad %zu tag %zu",
				      key_lens[ki], len, iv_len, aad_len, tag_len);
			VT_EXPECT_GUARDS(&g, off, len);
			VT_EXPECT_GUARDS(&t, 0, tag_len);
			/* open, in place */
			rc = vecsec_aria_gcm_open(&k, g.data + off, g.data + off, len, wtag,
						  tag_len, iv, iv_len, aad, aad_len);
			VT_EXPECT(rc == 0, "open rc %d len %zu", rc, len);
			VT_EXPECT_MEM(g.data + off, src, len, "gcm open len %zu", len);
			VT_EXPECT_GUARDS(&g, off, len);
		}
	}
	vt_buf_free(&g);
	vt_buf_free(&t);
	free(src);
	free(want);
}

/* Every IV length 1..60, AAD length 0..64 and tag length 4..16 at least once. */
static void
test_gcm_params(void)
{
	uint8_t key[32], iv[64], aad[64], src[40], ct[40], want[40], tag[16], wtag[16];
	struct vecsec_aria_gcm_key k;

	for (size_t i = 1; i <= 64; i++) {
		size_t iv_len = i <= 60 ? i : 12, aad_len = i, tag_len = 4 + i % 13;
		size_t kl = key_lens[i % 3], len = (i * 5) % 41;

		vt_rand(key, kl, vt_seed() + i);
		vt_rand(iv, iv_len, vt_seed() + 100 + i);
		vt_rand(aad, aad_len, vt_seed() + 200 + i);
		vt_rand(src, len, vt_seed() + 300 + i);
		VT_EXPECT(ossl_gcm_seal(key, kl, iv, iv_len, aad, aad_len, want, src, len, wtag,
					tag_len),
			  "openssl");
		vecsec_aria_gcm_key_init(&k, key, kl);
		VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, tag_len, src, len, iv, iv_len, aad,
					       aad_len) == 0,
			  "seal");
		VT_EXPECT_MEM(ct, want, len, "iv %zu aad %zu", iv_len, aad_len);
		VT_EXPECT_MEM(tag, wtag, tag_len, "tag iv %zu aad %zu tag %zu", iv_len, aad_len,
			      tag_len);
		/* AAD 0 with this IV too */
		VT_EXPECT(ossl_gcm_seal(key, kl, iv, iv_len, NULL, 0, want, src, len, wtag, 16),
			  "openssl");
		VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, 16, src, len, iv, iv_len, NULL, 0) == 0,
			  "seal");
		VT_EXPECT_MEM(tag, wtag, 16, "tag iv %zu no aad", iv_len);
	}
	/* bad arguments: -EINVAL, nothing written */
	memset(ct, 0x5a, sizeof(ct));
	VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, 3, src, 8, iv, 12, NULL, 0) == -EINVAL,
		  "tag 3");
	VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, 17, src, 8, iv, 12, NULL, 0) == -EINVAL, "17");
	VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, 16, src, 8, iv, 0, NULL, 0) == -EINVAL, "iv 0");
	VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, 16, src, 8, iv, 12, NULL, 4) == -EINVAL, "aad");
	VT_EXPECT(vecsec_aria_gcm_open(&k, ct, src, 8, tag, 2, iv, 12, NULL, 0) == -EINVAL, "open");
	for (size_t i = 0; i < sizeof(ct); i++)
		VT_EXPECT(ct[i] == 0x5a, "nothing written on -EINVAL");
}

/* Streaming at random split points (AAD and text) == one shot. */
static void
test_gcm_streaming(void)
{
	uint8_t key[32], iv[60], aad[300], *src = xmalloc(4096), *want = xmalloc(4096),
					   *got = xmalloc(4096), wtag[16], tag[16];
	uint64_t rng = vt_seed() + 9;
	struct vecsec_aria_gcm_key k;
	unsigned int rounds = slow ? 200 : 24;

	for (unsigned int r = 0; r < rounds; r++) {
		size_t kl = key_lens[r % 3], len = vt_below(&rng, r < 12 ? 100 : 2049);
		size_t aad_len = vt_below(&rng, 300), iv_len = iv_lens[r % 5];
		size_t tag_len = 4 + vt_below(&rng, 13);
		struct vecsec_aria_gcm_ctx c;
		size_t done;
		bool dec = r % 2 == 1;
		int rc;

		vt_rand(key, kl, rng + 1);
		vt_rand(iv, iv_len, rng + 2);
		vt_rand(aad, aad_len, rng + 3);
		vt_rand(src, len, rng + 4);
		vecsec_aria_gcm_key_init(&k, key, kl);
		VT_EXPECT(vecsec_aria_gcm_seal(&k, want, wtag, tag_len, src, len, iv, iv_len, aad,
					       aad_len) == 0,
			  "one shot");
		VT_EXPECT(vecsec_aria_gcm_init(&c, &k, iv, iv_len) == 0, "init");
		for (done = 0; done < aad_len;) {
			size_t n = vt_below(&rng, (uint32_t)(aad_len - done) + 1);

			VT_EXPECT(vecsec_aria_gcm_aad(&c, aad + done, n) == 0, "aad");
			done += n;
		}
		for (done = 0; done < len;) {
			size_t n = vt_below(&rng, 4) == 0
					   ? vt_below(&rng, 17)
					   : vt_below(&rng, (uint32_t)(len - done) + 1);

			n = n > len - done ? len - done : n;
			if (dec)
				rc = vecsec_aria_gcm_decrypt_update(&c, got + done, want + done, n);
			else
				rc = vecsec_aria_gcm_encrypt_update(&c, got + done, src + done, n);
			VT_EXPECT(rc == 0, "update");
			done += n;
		}
		if (dec) {
			VT_EXPECT_MEM(got, src, len, "stream decrypt len %zu round %u", len, r);
			VT_EXPECT(vecsec_aria_gcm_check(&c, wtag, tag_len) == 0, "check round %u",
				  r);
		} else {
			VT_EXPECT_MEM(got, want, len, "stream encrypt len %zu round %u", len, r);
			VT_EXPECT(vecsec_aria_gcm_final(&c, tag, tag_len) == 0, "final");
			VT_EXPECT_MEM(tag, wtag, tag_len, "stream tag len %zu aad %zu round %u",
				      len, aad_len, r);
		}
		VT_EXPECT_ZERO(&c, sizeof(c), "context wiped after final");
	}
	/* state machine: AAD after text, wrong direction, bad tag, unstarted */
	{
		struct vecsec_aria_gcm_ctx c;

		memset(&c, 0, sizeof(c));
		VT_EXPECT(vecsec_aria_gcm_aad(&c, aad, 1) == -EINVAL, "unstarted");
		VT_EXPECT(vecsec_aria_gcm_init(&c, &k, iv, 0) == -EINVAL, "iv 0");
		VT_EXPECT(vecsec_aria_gcm_init(&c, &k, iv, 12) == 0, "init");
		VT_EXPECT(vecsec_aria_gcm_encrypt_update(&c, got, src, 5) == 0, "enc");
		VT_EXPECT(vecsec_aria_gcm_aad(&c, aad, 1) == -EINVAL, "aad after text");
		VT_EXPECT(vecsec_aria_gcm_decrypt_update(&c, got, src, 5) == -EINVAL, "direction");
		VT_EXPECT(vecsec_aria_gcm_check(&c, tag, 16) == -EINVAL, "check on encrypt");
		VT_EXPECT(vecsec_aria_gcm_final(&c, tag, 3) == -EINVAL, "tag 3");
		VT_EXPECT(vecsec_aria_gcm_final(&c, tag, 16) == 0, "final");
		VT_EXPECT(vecsec_aria_gcm_final(&c, tag, 16) == -EINVAL, "final twice");
	}
	free(src);
	free(want);
	free(got);
}

/*
 * NULL for each empty buffer where vecsec_aria.h allows it (the AEAD
 * layer's jobs are test_burst's): ECB and CTR of 0 bytes; GCM one-shot and
 * streaming with NULL AAD
 * (aad_len 0) or NULL text (len 0), against OpenSSL; lengths on both sides
 * of the kernels' steps and of the one-shot tail.
 */
static void
null_gcm_case(const struct vecsec_aria_gcm_key *k, const uint8_t *key, size_t kl,
	      const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
	      const uint8_t *src, size_t len, uint8_t *want, uint8_t *got)
{
	const uint8_t *a = aad_len > 0 ? aad : NULL, *in = len > 0 ? src : NULL;
	uint8_t *out = len > 0 ? got : NULL, wtag[16], tag[16];
	struct vecsec_aria_gcm_ctx c;

	VT_EXPECT(ossl_gcm_seal(key, kl, iv, iv_len, aad, aad_len, want, src, len, wtag, 16),
		  "ossl gcm");
	VT_EXPECT(vecsec_aria_gcm_seal(k, out, tag, 16, in, len, iv, iv_len, a, aad_len) == 0,
		  "seal, NULL for empty: key %zu iv %zu aad %zu len %zu", kl, iv_len, aad_len, len);
	VT_EXPECT_MEM(got, want, len, "seal aad %zu len %zu", aad_len, len);
	VT_EXPECT_MEM(tag, wtag, 16, "seal tag key %zu iv %zu aad %zu len %zu", kl, iv_len,
		      aad_len, len);
	VT_EXPECT(vecsec_aria_gcm_open(k, out, len > 0 ? want : NULL, len, wtag, 16, iv, iv_len,
				       a, aad_len) == 0,
		  "open, NULL for empty: aad %zu len %zu", aad_len, len);
	VT_EXPECT_MEM(got, src, len, "open aad %zu len %zu", aad_len, len);
	wtag[15] ^= 1;
	VT_EXPECT(vecsec_aria_gcm_open(k, out, len > 0 ? want : NULL, len, wtag, 16, iv, iv_len,
				       a, aad_len) == -EBADMSG,
		  "forged open, NULL for empty: aad %zu len %zu", aad_len, len);
	VT_EXPECT_ZERO(got, len, "forged open: output not zeroed");
	wtag[15] ^= 1;

	/* streaming, with empty NULL updates around the real ones */
	VT_EXPECT(vecsec_aria_gcm_init(&c, k, iv, iv_len) == 0, "init");
	VT_EXPECT(vecsec_aria_gcm_aad(&c, NULL, 0) == 0, "aad NULL, 0");
	VT_EXPECT(vecsec_aria_gcm_aad(&c, a, aad_len) == 0, "aad");
	VT_EXPECT(vecsec_aria_gcm_aad(&c, NULL, 0) == 0, "aad NULL, 0 again");
	VT_EXPECT(vecsec_aria_gcm_encrypt_update(&c, NULL, NULL, 0) == 0, "encrypt NULL, 0");
	VT_EXPECT(vecsec_aria_gcm_encrypt_update(&c, out, in, len) == 0, "encrypt");
	VT_EXPECT(vecsec_aria_gcm_encrypt_update(&c, NULL, NULL, 0) == 0, "encrypt NULL, 0 again");
	VT_EXPECT(vecsec_aria_gcm_final(&c, tag, 16) == 0, "final");
	VT_EXPECT_MEM(got, want, len, "stream encrypt aad %zu len %zu", aad_len, len);
	VT_EXPECT_MEM(tag, wtag, 16, "stream tag aad %zu len %zu", aad_len, len);
	VT_EXPECT(vecsec_aria_gcm_init(&c, k, iv, iv_len) == 0, "init");
	VT_EXPECT(vecsec_aria_gcm_aad(&c, a, aad_len) == 0, "aad");
	VT_EXPECT(vecsec_aria_gcm_decrypt_update(&c, NULL, NULL, 0) == 0, "decrypt NULL, 0");
	VT_EXPECT(vecsec_aria_gcm_decrypt_update(&c, out, len > 0 ? want : NULL, len) == 0,
		  "decrypt");
	VT_EXPECT(vecsec_aria_gcm_decrypt_update(&c, NULL, NULL, 0) == 0, "decrypt NULL, 0 again");
	VT_EXPECT(vecsec_aria_gcm_check(&c, wtag, 16) == 0, "stream check aad %zu len %zu",
		  aad_len, len);
	VT_EXPECT_MEM(got, src, len, "stream decrypt aad %zu len %zu", aad_len, len);
}

static void
test_gcm_null_empty(void)
{
	static const size_t lens[] = {1, 15, 16, 100, 208, 209, 480, 481, 1024, 1025, 2049};
	static const size_t aad_lens[] = {0, 1, 16, 208, 209, 300};
	static const size_t null_iv_lens[] = {12, 8};
	uint8_t key[32], iv[16], aad[300], *src = xmalloc(2049), *want = xmalloc(2049),
					   *got = xmalloc(2049);
	uint64_t seed = vt_seed() + 0x4e554c4c;
	struct vecsec_aria_gcm_key k;

	vt_rand(key, sizeof(key), seed + 1);
	vt_rand(iv, sizeof(iv), seed + 2);
	vt_rand(aad, sizeof(aad), seed + 3);
	vt_rand(src, 2049, seed + 4);
	for (size_t ki = 0; ki < 3; ki++) {
		size_t kl = key_lens[ki];
		struct vecsec_aria_key ak;

		/* ECB and CTR of nothing */
		VT_EXPECT(vecsec_aria_key_init(&ak, key, kl) == 0, "key");
		VT_EXPECT(vecsec_aria_ecb_encrypt(&ak, NULL, NULL, 0) == 0, "ECB encrypt NULL, 0");
		VT_EXPECT(vecsec_aria_ecb_decrypt(&ak, NULL, NULL, 0) == 0, "ECB decrypt NULL, 0");
		VT_EXPECT(vecsec_aria_ctr_xor(&ak, NULL, NULL, 0, iv) == 0, "CTR NULL, 0");
		VT_EXPECT(vecsec_aria_ctr32_xor(&ak, NULL, NULL, 0, iv) == 0, "CTR32 NULL, 0");
		vecsec_aria_key_wipe(&ak);
		VT_EXPECT(vecsec_aria_gcm_key_init(&k, key, kl) == 0, "gcm key");
		for (size_t v = 0; v < VT_ARRAY_SIZE(null_iv_lens); v++) {
			/* AAD NULL: text of each length; text NULL: AAD of each length */
			for (size_t i = 0; i < VT_ARRAY_SIZE(lens); i++)
				null_gcm_case(&k, key, kl, iv, null_iv_lens[v], aad, 0, src,
					      lens[i], want, got);
			for (size_t i = 0; i < VT_ARRAY_SIZE(aad_lens); i++)
				null_gcm_case(&k, key, kl, iv, null_iv_lens[v], aad, aad_lens[i],
					      src, 0, want, got);
		}
		vecsec_aria_gcm_key_wipe(&k);
	}
	free(src);
	free(want);
	free(got);
}

/* Every single-bit flip in tag, AAD and ciphertext: -EBADMSG and zeroed output. */
static void
test_gcm_forgery(void)
{
	uint8_t key[32], iv[12], aad[20], src[33], ct[33], tag[16];
	struct vecsec_aria_gcm_key k;
	struct vt_buf g;
	size_t tag_len = 16;

	vt_buf_init(&g, sizeof(src));
	vt_rand(key, 24, vt_seed() + 21);
	vt_rand(iv, sizeof(iv), vt_seed() + 22);
	vt_rand(aad, sizeof(aad), vt_seed() + 23);
	vt_rand(src, sizeof(src), vt_seed() + 24);
	vecsec_aria_gcm_key_init(&k, key, 24);
	VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, tag, tag_len, src, sizeof(src), iv, sizeof(iv), aad,
				       sizeof(aad)) == 0,
		  "seal");
	for (int part = 0; part < 3; part++) {
		uint8_t *p = part == 0 ? tag : part == 1 ? aad : ct;
		size_t n = part == 0 ? tag_len : part == 1 ? sizeof(aad) : sizeof(ct);

		for (size_t bit = 0; bit < 8 * n; bit++) {
			int rc;

			p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			vt_buf_reset(&g);
			rc = vecsec_aria_gcm_open(&k, g.data, ct, sizeof(ct), tag, tag_len, iv,
						  sizeof(iv), aad, sizeof(aad));
			VT_EXPECT(rc == -EBADMSG, "part %d bit %zu rc %d", part, bit, rc);
			VT_EXPECT_ZERO(g.data, sizeof(ct), "output zeroed part %d bit %zu", part,
				       bit);
			VT_EXPECT_GUARDS(&g, 0, sizeof(ct));
			p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
	}
	/* truncated tags: a flip in the kept bytes is caught */
	for (size_t tl = 4; tl <= 16; tl++) {
		uint8_t t[16];

		VT_EXPECT(vecsec_aria_gcm_seal(&k, ct, t, tl, src, sizeof(src), iv, sizeof(iv), aad,
					       sizeof(aad)) == 0,
			  "seal");
		VT_EXPECT(vecsec_aria_gcm_open(&k, g.data, ct, sizeof(ct), t, tl, iv, sizeof(iv),
					       aad, sizeof(aad)) == 0,
			  "open tag %zu", tl);
		t[tl - 1] ^= 0x80;
		VT_EXPECT(vecsec_aria_gcm_open(&k, g.data, ct, sizeof(ct), t, tl, iv, sizeof(iv),
					       aad, sizeof(aad)) == -EBADMSG,
			  "forged tag %zu", tl);
	}
	/* streaming check says -EBADMSG too */
	{
		struct vecsec_aria_gcm_ctx c;

		tag[0] ^= 1;
		vecsec_aria_gcm_init(&c, &k, iv, sizeof(iv));
		vecsec_aria_gcm_aad(&c, aad, sizeof(aad));
		vecsec_aria_gcm_decrypt_update(&c, g.data, ct, sizeof(ct));
		VT_EXPECT(vecsec_aria_gcm_check(&c, tag, 16) == -EBADMSG, "stream forgery");
	}
	vt_buf_free(&g);
}

/*
 * RFC 4106 layout against OpenSSL with nonce and AAD built by hand: lib/esp's
 * key material, nonce and AAD through the AEAD API, ICVs of 8, 12 and 16.
 */
static void
test_esp_gcm(void)
{
	uint8_t key[36], iv[8], nonce[12], aad[12], src[300], want[300], got[300];
	uint8_t enonce[12], eaad[12], wtag[16], tag[16];
	struct vecsec_aead_key k;

	for (size_t i = 0; i < 12; i++) {
		size_t kl = key_lens[i % 3], icv_len = 8 + 4 * (i % 3), len = i * 23 % 300;
		uint32_t spi = 0x01020304u * (uint32_t)(i + 1);
		uint64_t seq = UINT64_C(0x1122334455667788) + i;
		bool esn = i % 2 == 1;
		size_t aad_len;

		vt_rand(key, kl, vt_seed() + 40 + i);
		vt_rand(key + kl, 4, vt_seed() + 41 + i);       /* the salt */
		vt_rand(iv, 8, vt_seed() + 42 + i);
		vt_rand(src, len, vt_seed() + 43 + i);
		memcpy(nonce, key + kl, 4);
		memcpy(nonce + 4, iv, 8);
		aad[0] = (uint8_t)(spi >> 24);
		aad[1] = (uint8_t)(spi >> 16);
		aad[2] = (uint8_t)(spi >> 8);
		aad[3] = (uint8_t)spi;
		if (esn) {
			for (int b = 0; b < 8; b++)
				aad[4 + b] = (uint8_t)(seq >> (56 - 8 * b));
			aad_len = 12;
		} else {
			for (int b = 0; b < 4; b++)
				aad[4 + b] = (uint8_t)(seq >> (24 - 8 * b));
			aad_len = 8;
		}
		VT_EXPECT(ossl_gcm_seal(key, kl, nonce, 12, aad, aad_len, want, src, len, wtag,
					icv_len),
			  "openssl");
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_ARIA_GCM, key, kl + 4) == 0,
			  "esp key");
		vecsec_esp_nonce(enonce, &k, iv);
		VT_EXPECT(vecsec_esp_aad(eaad, spi, seq, esn) == aad_len, "esp aad len");
		VT_EXPECT_MEM(enonce, nonce, 12, "esp nonce");
		VT_EXPECT_MEM(eaad, aad, aad_len, "esp aad");
		VT_EXPECT(vecsec_aead_seal(&k, got, tag, icv_len, src, len, enonce, 12, eaad,
					   aad_len) == 0,
			  "esp seal");
		VT_EXPECT_MEM(got, want, len, "esp gcm len %zu esn %d", len, esn);
		VT_EXPECT_MEM(tag, wtag, icv_len, "esp icv len %zu esn %d", len, esn);
		VT_EXPECT(vecsec_aead_open(&k, got, got, len, tag, icv_len, enonce, 12, eaad,
					   aad_len) == 0,
			  "esp open");
		VT_EXPECT_MEM(got, src, len, "esp open len %zu", len);
		/* a different sequence number is a forgery */
		vecsec_esp_aad(eaad, spi, seq + (esn ? UINT64_C(1) << 32 : 1), esn);
		VT_EXPECT(vecsec_aead_open(&k, got, want, len, tag, icv_len, enonce, 12, eaad,
					   aad_len) == -EBADMSG,
			  "esp seq");
	}
	vecsec_aead_key_wipe(&k);
}

/* ---- through vecsec_aead ---- */

/* Linear seal/open and CTR through the generic API against OpenSSL. */
static void
test_aead_aria(void)
{
	uint8_t key[32], nonce[60], aad[100], src[400], want[400], got[400], tag[16], wtag[16];
	struct vecsec_aead_key k;

	for (size_t i = 0; i < 60; i++) {
		size_t kl = key_lens[i % 3], len = (i * 37) % 400, aad_len = (i * 11) % 100;
		size_t nonce_len = iv_lens[i % 5], tag_len = 4 + i % 13;
		int rc;

		vt_rand(key, kl, vt_seed() + 500 + i);
		vt_rand(nonce, 60, vt_seed() + 600 + i);
		vt_rand(aad, aad_len, vt_seed() + 700 + i);
		vt_rand(src, len, vt_seed() + 800 + i);
		/* GCM */
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_ARIA_GCM, key, kl) == 0, "key");
		VT_EXPECT(ossl_gcm_seal(key, kl, nonce, nonce_len, aad, aad_len, want, src, len,
					wtag, tag_len),
			  "openssl");
		rc = vecsec_aead_seal(&k, got, tag, tag_len, src, len, nonce, nonce_len, aad,
				      aad_len);
		VT_EXPECT(rc == 0, "aead seal rc %d", rc);
		VT_EXPECT_MEM(got, want, len, "aead gcm len %zu", len);
		VT_EXPECT_MEM(tag, wtag, tag_len, "aead gcm tag len %zu", len);
		rc = vecsec_aead_open(&k, got, got, len, tag, tag_len, nonce, nonce_len, aad,
				      aad_len);
		VT_EXPECT(rc == 0 && memcmp(got, src, len) == 0, "aead open len %zu rc %d", len,
			  rc);
		tag[i % tag_len] ^= 4;
		memcpy(got, want, len);
		VT_EXPECT(vecsec_aead_open(&k, got, got, len, tag, tag_len, nonce, nonce_len, aad,
					   aad_len) == -EBADMSG,
			  "aead forgery");
		VT_EXPECT_ZERO(got, len, "aead forgery zeroes");
		VT_EXPECT(vecsec_aead_seal(&k, got, tag, 3, src, len, nonce, nonce_len, aad,
					   aad_len) == -EINVAL,
			  "tag 3");
		VT_EXPECT(vecsec_aead_seal(&k, got, tag, 16, src, len, nonce, 0, aad, aad_len) ==
				  -EINVAL,
			  "nonce 0");
		/* CTR: the nonce is the counter block; seal and open are the same xor */
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_ARIA_CTR, key, kl) == 0, "ctr key");
		nonce[12] = 0; /* keep clear of the 32-bit end */
		VT_EXPECT(ossl_crypt("ctr", true, key, kl, nonce, want, src, len), "openssl");
		VT_EXPECT(vecsec_aead_seal(&k, got, NULL, 0, src, len, nonce, 16, NULL, 0) == 0,
			  "ctr seal");
		VT_EXPECT_MEM(got, want, len, "aead ctr len %zu", len);
		VT_EXPECT(vecsec_aead_open(&k, got, got, len, NULL, 0, nonce, 16, NULL, 0) == 0,
			  "ctr open");
		VT_EXPECT_MEM(got, src, len, "aead ctr open len %zu", len);
		VT_EXPECT(vecsec_aead_seal(&k, got, tag, 16, src, len, nonce, 16, NULL, 0) ==
				  -EINVAL,
			  "ctr tag_len 16");
		VT_EXPECT(vecsec_aead_seal(&k, got, NULL, 0, src, len, nonce, 12, NULL, 0) ==
				  -EINVAL,
			  "ctr nonce 12");
		/* counter ending at ffffffff fits, one block more does not */
		memset(nonce + 12, 0xff, 4);
		VT_EXPECT(vecsec_aead_seal(&k, got, NULL, 0, src, 16, nonce, 16, NULL, 0) == 0,
			  "ctr last block");
		VT_EXPECT(vecsec_aead_seal(&k, got, NULL, 0, src, 17, nonce, 16, NULL, 0) ==
				  -EINVAL,
			  "ctr wrap");
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_ARIA_GCM, key, 20) == -EINVAL,
			  "key 20");
	}
	VT_EXPECT(strcmp(vecsec_aead_alg_name(VECSEC_AEAD_ARIA_GCM), "aria-gcm") == 0, "name");
	vecsec_aead_key_wipe(&k);
}

/* ESP keys (key || salt) and the helpers' layouts against OpenSSL. */
static void
test_aead_esp(void)
{
	uint8_t keymat[36], iv[8], nonce[12], block[16], aad[12], src[200], want[200], got[200];
	uint8_t tag[16], wtag[16];
	struct vecsec_aead_key k;

	for (size_t i = 0; i < 12; i++) {
		size_t kl = key_lens[i % 3], len = (i * 29) % 200, aad_len;
		uint32_t spi = 0xc0de0000u + (uint32_t)i;
		uint64_t seq = (UINT64_C(7) << 32) + 1000 * i;
		bool esn = i % 2 == 0;

		vt_rand(keymat, kl + 4, vt_seed() + 900 + i);
		vt_rand(iv, 8, vt_seed() + 950 + i);
		vt_rand(src, len, vt_seed() + 990 + i);
		/* ARIA-GCM, RFC 4106 */
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_ARIA_GCM, keymat, kl + 4) == 0,
			  "esp");
		vecsec_esp_nonce(nonce, &k, iv);
		aad_len = vecsec_esp_aad(aad, spi, seq, esn);
		{
			uint8_t hn[12], ha[12];

			memcpy(hn, keymat + kl, 4);
			memcpy(hn + 4, iv, 8);
			VT_EXPECT_MEM(nonce, hn, 12, "esp nonce = salt || iv");
			ha[0] = 0xc0;
			ha[1] = 0xde;
			ha[2] = 0;
			ha[3] = (uint8_t)i;
			memcpy(ha + 4, esn ? "\x00\x00\x00\x07" : "", esn ? 4 : 0);
			ha[esn ? 8 : 4] = (uint8_t)((1000 * i) >> 24);
			ha[esn ? 9 : 5] = (uint8_t)((1000 * i) >> 16);
			ha[esn ? 10 : 6] = (uint8_t)((1000 * i) >> 8);
			ha[esn ? 11 : 7] = (uint8_t)(1000 * i);
			VT_EXPECT(aad_len == (esn ? 12u : 8u), "aad len");
			VT_EXPECT_MEM(aad, ha, aad_len, "esp aad");
		}
		VT_EXPECT(ossl_gcm_seal(keymat, kl, nonce, 12, aad, aad_len, want, src, len, wtag,
					16),
			  "openssl");
		VT_EXPECT(vecsec_aead_seal(&k, got, tag, 16, src, len, nonce, 12, aad, aad_len) ==
				  0,
			  "seal");
		VT_EXPECT_MEM(got, want, len, "esp gcm via aead len %zu", len);
		VT_EXPECT_MEM(tag, wtag, 16, "esp gcm tag via aead");
		/* ARIA-CTR, RFC 3686 */
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_ARIA_CTR, keymat, kl + 4) == 0,
			  "esp");
		vecsec_esp_ctr_block(block, &k, iv);
		{
			uint8_t hb[16] = {0};

			memcpy(hb, keymat + kl, 4);
			memcpy(hb + 4, iv, 8);
			hb[15] = 1;
			VT_EXPECT_MEM(block, hb, 16, "ctr block = nonce || iv || 1");
			VT_EXPECT(ossl_crypt("ctr", true, keymat, kl, hb, want, src, len),
				  "openssl");
		}
		VT_EXPECT(vecsec_aead_seal(&k, got, NULL, 0, src, len, block, 16, NULL, 0) == 0,
			  "ctr seal");
		VT_EXPECT_MEM(got, want, len, "esp ctr via aead len %zu", len);
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_ARIA_GCM, keymat, 16) == -EINVAL,
			  "keymat 16");
		VT_EXPECT(vecsec_esp_key_init(&k, VECSEC_AEAD_ARIA_CTR, keymat, 21) == -EINVAL,
			  "keymat 21");
	}
	vecsec_aead_key_wipe(&k);
}

/* Cut [0, len) of buf into up to 6 segments (empty ones too) placed apart in store. */
static uint32_t
make_segs(struct vecsec_seg *segs, uint8_t *store, const uint8_t *src, size_t len, uint64_t *rng)
{
	uint32_t nb = 0;
	size_t done = 0, at = 0;

	while (done < len || nb == 0) {
		size_t n = nb == 5 ? len - done : vt_below(rng, (uint32_t)(len - done) + 1);

		if (nb < 5 && vt_below(rng, 5) == 0)
			n = 0;
		segs[nb].data = store + at;
		segs[nb].len = n;
		if (src != NULL)
			memcpy(store + at, src + done, n);
		at += n + 3; /* a gap between segments */
		done += n;
		nb++;
	}
	return nb;
}

static void
gather(uint8_t *out, const struct vecsec_seg *segs, uint32_t nb)
{
	for (uint32_t i = 0; i < nb; i++) {
		memcpy(out, segs[i].data, segs[i].len);
		out += segs[i].len;
	}
}

/* Scatter-gather == linear, for both algorithms, both directions, in place too. */
static void
test_aead_sgl(void)
{
	uint8_t key[32], nonce[16], aad[40], src[600], lin[600], tag[16], ltag[16];
	uint8_t *sin = xmalloc(1000), *sout = xmalloc(1000), got[600];
	struct vecsec_seg isegs[6], osegs[6];
	uint64_t rng = vt_seed() + 31;
	struct vecsec_aead_key k;
	unsigned int rounds = slow ? 200 : 30;

	for (unsigned int r = 0; r < rounds; r++) {
		enum vecsec_aead_alg alg = r % 3 == 2 ? VECSEC_AEAD_ARIA_CTR : VECSEC_AEAD_ARIA_GCM;
		size_t kl = key_lens[r % 3], len = vt_below(&rng, 600);
		size_t tag_len = alg == VECSEC_AEAD_ARIA_GCM ? 16 : 0;
		size_t nonce_len = alg == VECSEC_AEAD_ARIA_GCM ? 12 : 16;
		bool inplace = r % 4 == 1;
		struct vecsec_aead_job job = {0}, *jp = &job;

		vt_rand(key, kl, rng + 1);
		vt_rand(nonce, 16, rng + 2);
		nonce[12] = 0;
		vt_rand(aad, sizeof(aad), rng + 3);
		vt_rand(src, len, rng + 4);
		vecsec_aead_key_init(&k, alg, key, kl);
		VT_EXPECT(vecsec_aead_seal(&k, lin, ltag, tag_len, src, len, nonce, nonce_len,
					   alg == VECSEC_AEAD_ARIA_GCM ? aad : NULL,
					   alg == VECSEC_AEAD_ARIA_GCM ? sizeof(aad) : 0) == 0,
			  "linear");
		job.key = &k;
		job.dir = VECSEC_AEAD_SEAL;
		job.nonce = nonce;
		job.nonce_len = nonce_len;
		job.aad = alg == VECSEC_AEAD_ARIA_GCM ? aad : NULL;
		job.aad_len = alg == VECSEC_AEAD_ARIA_GCM ? sizeof(aad) : 0;
		job.len = len;
		job.tag = tag;
		job.tag_len = tag_len;
		job.in_segs = isegs;
		job.nb_in_segs = make_segs(isegs, sin, src, len, &rng);
		if (inplace) {
			job.out_segs = isegs;
			job.nb_out_segs = job.nb_in_segs;
		} else {
			job.out_segs = osegs;
			job.nb_out_segs = make_segs(osegs, sout, NULL, len, &rng);
		}
		VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 && job.status == VECSEC_JOB_OK,
			  "sgl seal status %u", job.status);
		gather(got, job.out_segs, job.nb_out_segs);
		VT_EXPECT_MEM(got, lin, len, "sgl %s len %zu round %u%s", vecsec_aead_alg_name(alg),
			      len, r, inplace ? " in place" : "");
		VT_EXPECT_MEM(tag, ltag, tag_len, "sgl tag round %u", r);
		/* open from segments back to segments */
		job.dir = VECSEC_AEAD_OPEN;
		job.in_segs = job.out_segs;
		job.nb_in_segs = job.nb_out_segs;
		if (!inplace) {
			job.out_segs = isegs;
			job.nb_out_segs = make_segs(isegs, sin, NULL, len, &rng);
		}
		VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 && job.status == VECSEC_JOB_OK,
			  "sgl open status %u", job.status);
		gather(got, job.out_segs, job.nb_out_segs);
		VT_EXPECT_MEM(got, src, len, "sgl open round %u", r);
		if (alg == VECSEC_AEAD_ARIA_GCM && len > 0) {
			/* forged: every output segment zeroed */
			gather(got, job.in_segs, job.nb_in_segs);
			tag[0] ^= 1;
			VT_EXPECT(vecsec_aead_burst(&jp, 1) == 1 &&
					  job.status == VECSEC_JOB_AUTH_FAILED,
				  "sgl forgery");
			gather(got, job.out_segs, job.nb_out_segs);
			VT_EXPECT_ZERO(got, len, "sgl forgery zeroes round %u", r);
		}
	}
	free(sin);
	free(sout);
}

/* ARIA jobs in bursts mixed with ChaCha20-Poly1305 jobs == one shot per job. */
static void
test_aead_burst_mixed(void)
{
	static const unsigned int sizes[] = {0, 1, 7, 17, 33, VECSEC_MAX_BURST};
	struct vecsec_aead_key keys[6];
	uint8_t *bufs = xmalloc(VECSEC_MAX_BURST * 2 * 80);
	uint8_t nonces[VECSEC_MAX_BURST][16], aads[VECSEC_MAX_BURST][20];
	uint8_t tags[VECSEC_MAX_BURST][16], wtags[VECSEC_MAX_BURST][16];
	struct vecsec_aead_job jobs[VECSEC_MAX_BURST], *jp[VECSEC_MAX_BURST];
	uint64_t rng = vt_seed() + 41;

	for (int i = 0; i < 6; i++) {
		uint8_t key[32];
		enum vecsec_aead_alg alg = i < 3   ? VECSEC_AEAD_ARIA_GCM
					   : i < 5 ? VECSEC_AEAD_ARIA_CTR
						   : VECSEC_AEAD_CHACHA20_POLY1305;
		size_t kl = alg == VECSEC_AEAD_CHACHA20_POLY1305 ? 32 : key_lens[i % 3];

		vt_rand(key, kl, vt_seed() + 60 + (uint64_t)i);
		VT_EXPECT(vecsec_aead_key_init(&keys[i], alg, key, kl) == 0, "key %d", i);
	}
	for (size_t si = 0; si < VT_ARRAY_SIZE(sizes); si++) {
		unsigned int n = sizes[si];

		for (unsigned int j = 0; j < n; j++) {
			struct vecsec_aead_job *jb = &jobs[j];
			const struct vecsec_aead_key *k = &keys[vt_below(&rng, 6)];
			uint8_t *in = bufs + j * 160, *want = in + 80;
			size_t len = vt_below(&rng, 65);
			bool gcm = k->alg == VECSEC_AEAD_ARIA_GCM;
			bool ctr = k->alg == VECSEC_AEAD_ARIA_CTR;
			size_t tag_len = ctr ? 0 : gcm ? 4 + vt_below(&rng, 13) : 16;
			size_t nonce_len = ctr ? 16 : 12;
			size_t aad_len = ctr ? 0 : vt_below(&rng, 21);
			uint8_t pt[80];

			vt_rand(pt, len, rng + j);
			vt_rand(nonces[j], 16, rng + 1000 + j);
			nonces[j][12] = 0;
			vt_rand(aads[j], aad_len, rng + 2000 + j);
			memset(jb, 0, sizeof(*jb));
			jb->key = k;
			jb->nonce = nonces[j];
			jb->nonce_len = nonce_len;
			jb->aad = aads[j];
			jb->aad_len = aad_len;
			jb->len = len;
			jb->in = in;
			jb->out = in; /* in place */
			jb->tag = tags[j];
			jb->tag_len = tag_len;
			jb->status = VECSEC_JOB_PENDING;
			/* the expected result, one shot */
			VT_EXPECT(vecsec_aead_seal(k, want, wtags[j], tag_len, pt, len, nonces[j],
						   nonce_len, aads[j], aad_len) == 0,
				  "one shot");
			switch (j % 4) {
			case 0: /* seal */
				jb->dir = VECSEC_AEAD_SEAL;
				memcpy(in, pt, len);
				break;
			case 1: /* open: want becomes the plaintext */
				jb->dir = VECSEC_AEAD_OPEN;
				memcpy(in, want, len);
				memcpy(tags[j], wtags[j], tag_len);
				memcpy(want, pt, len);
				break;
			case 2: /* forged open (CTR has no tag: a plain open) */
				jb->dir = VECSEC_AEAD_OPEN;
				memcpy(in, want, len);
				memcpy(tags[j], wtags[j], tag_len);
				if (tag_len != 0)
					tags[j][0] ^= 0x10;
				if (tag_len != 0)
					memset(want, 0, len);
				else
					memcpy(want, pt, len);
				break;
			default: /* invalid: bad tag length; nothing written */
				jb->dir = VECSEC_AEAD_SEAL;
				jb->tag_len = ctr ? 16 : 2;
				memcpy(in, pt, len);
				memcpy(want, pt, len);
				break;
			}
			jp[j] = jb;
		}
		VT_EXPECT(vecsec_aead_burst(jp, n) == n, "burst %u taken", n);
		for (unsigned int j = 0; j < n; j++) {
			struct vecsec_aead_job *jb = &jobs[j];
			uint32_t want_status = j % 4 == 3 ? VECSEC_JOB_INVALID
					       : (j % 4 == 2 && jb->tag_len != 0)
						       ? VECSEC_JOB_AUTH_FAILED
						       : VECSEC_JOB_OK;

			VT_EXPECT(jb->status == want_status,
				  "burst %u job %u (%s) status %u want %u", n, j,
				  vecsec_aead_alg_name(jb->key->alg), jb->status, want_status);
			VT_EXPECT_MEM(jb->out, bufs + j * 160 + 80, jb->len, "burst %u job %u %s",
				      n, j, vecsec_aead_alg_name(jb->key->alg));
			if (j % 4 == 0)
				VT_EXPECT_MEM(jb->tag, wtags[j], jb->tag_len, "burst tag job %u",
					      j);
		}
	}
	VT_EXPECT(vecsec_aead_burst(NULL, 1) == 0, "NULL burst");
	for (int i = 0; i < 6; i++)
		vecsec_aead_key_wipe(&keys[i]);
	free(bufs);
}

/*
 * aria_gcm.c's tail keystream (E(J0) || keystream from ctr + skip) where
 * the 32-bit counter wraps inside the skipped part and inside the tail.
 */
static void
test_gcm_tail_ks(void)
{
	const struct aria_impl *ref = &vecsec_aria_impl_ref;
	struct vecsec_aria_gcm_key gk;
	const struct aria_gcm_key *k = (const struct aria_gcm_key *)(const void *)gk.opaque;
	uint8_t key[16], zero[ARIA_GCM_TAIL] = { 0 }, want[ARIA_GCM_TAIL + 16];
	uint8_t ks[ARIA_GCM_TAIL + 16], c[16];
	static const size_t cases[][3] = {
		/* counter low word, skip, len */
		{ 0xfffffff0u, 10, 100 }, { 0xfffffff0u, 20, 1000 }, { 0xffffffffu, 0, 1024 },
		{ 0xfffffc00u, 64, 17 }, { 5, 3, 1 },
	};
	struct aria_gcm g;

	vt_rand(key, 16, vt_seed() + 5);
	vecsec_aria_gcm_key_init(&gk, key, 16);
	for (size_t i = 0; i < VT_ARRAY_SIZE(cases); i++) {
		uint32_t lo = (uint32_t)cases[i][0];
		size_t skip = cases[i][1], len = cases[i][2];

		memset(&g, 0, sizeof(g));
		g.key = k;
		g.level = vecsec_isa_cap();
		vt_rand(g.j0, 16, vt_seed() + 6 + i);
		vt_rand(g.ctr, 12, vt_seed() + 16 + i);
		g.ctr[12] = (uint8_t)(lo >> 24);
		g.ctr[13] = (uint8_t)(lo >> 16);
		g.ctr[14] = (uint8_t)(lo >> 8);
		g.ctr[15] = (uint8_t)lo;
		vecsec_aria_gcm_tail_ks(&g, ks, skip, len);
		ref->encrypt_blocks(want, g.j0, 1, &k->aria);
		memcpy(c, g.ctr, 16);
		lo += (uint32_t)skip;
		c[12] = (uint8_t)(lo >> 24);
		c[13] = (uint8_t)(lo >> 16);
		c[14] = (uint8_t)(lo >> 8);
		c[15] = (uint8_t)lo;
		ref->ctr32_xor(want + 16, zero, len, &k->aria, c);
		VT_EXPECT_MEM(ks, want, 16 + len, "tail keystream case %zu (%s)", i,
			      vecsec_aria_impl_name());
	}
}

/*
 * Bursts of ARIA jobs batched by key (aria_aead.c): many jobs per key,
 * lengths on both sides of the batch limit (2048), GCM IV lengths other
 * than 12, CTR counters ending exactly at the 32-bit end, in place and out
 * of place, scatter-gather, seal, open and forged open == one shot per job.
 */
#define BB_SLOT 2112

static void
test_aead_burst_batch(void)
{
	static const unsigned int sizes[] = {1, 2, 5, 64, 65, 200, VECSEC_MAX_BURST};
	static const size_t gcm_ivs[] = {12, 12, 12, 1, 16, 60};
	struct vecsec_aead_key keys[5];
	uint8_t *in = xmalloc(VECSEC_MAX_BURST * BB_SLOT);
	uint8_t *out = xmalloc(VECSEC_MAX_BURST * BB_SLOT);
	uint8_t *want = xmalloc(VECSEC_MAX_BURST * BB_SLOT);
	static uint8_t nonces[VECSEC_MAX_BURST][64], aads[VECSEC_MAX_BURST][20];
	static uint8_t tags[VECSEC_MAX_BURST][16], wtags[VECSEC_MAX_BURST][16];
	static struct vecsec_seg segs[VECSEC_MAX_BURST][4];
	static struct vecsec_aead_job jobs[VECSEC_MAX_BURST];
	struct vecsec_aead_job *jp[VECSEC_MAX_BURST];
	uint64_t rng = vt_seed() + 77;

	for (int i = 0; i < 5; i++) {
		uint8_t key[32];
		enum vecsec_aead_alg alg = i < 3 ? VECSEC_AEAD_ARIA_GCM : VECSEC_AEAD_ARIA_CTR;

		vt_rand(key, 32, vt_seed() + 90 + (uint64_t)i);
		VT_EXPECT(vecsec_aead_key_init(&keys[i], alg, key, key_lens[i % 3]) == 0, "key %d",
			  i);
	}
	for (size_t si = 0; si < VT_ARRAY_SIZE(sizes); si++) {
		unsigned int n = sizes[si];

		for (unsigned int j = 0; j < n; j++) {
			struct vecsec_aead_job *jb = &jobs[j];
			const struct vecsec_aead_key *k = &keys[vt_below(&rng, 5)];
			bool gcm = k->alg == VECSEC_AEAD_ARIA_GCM;
			size_t len = j % 7 == 0 ? vt_below(&rng, 2101) : vt_below(&rng, 300);
			size_t tag_len = gcm ? 4 + vt_below(&rng, 13) : 0;
			size_t nonce_len = gcm ? gcm_ivs[vt_below(&rng, 6)] : 16;
			size_t aad_len = gcm ? vt_below(&rng, 21) : 0;
			uint8_t *ji = in + j * BB_SLOT, *jo = out + j * BB_SLOT;
			uint8_t *jw = want + j * BB_SLOT, pt[BB_SLOT];
			bool inplace = j % 2 == 1, forged = gcm && j % 4 == 2;

			vt_rand(pt, len, rng + j);
			vt_rand(nonces[j], nonce_len, rng + 1000 + j);
			if (!gcm) {
				/* the counter ends exactly at 2^32 - 1, or starts low */
				uint32_t c = j % 3 == 0 ? (uint32_t)(0 - (len + 15) / 16) : 1;

				nonces[j][12] = (uint8_t)(c >> 24);
				nonces[j][13] = (uint8_t)(c >> 16);
				nonces[j][14] = (uint8_t)(c >> 8);
				nonces[j][15] = (uint8_t)c;
			}
			vt_rand(aads[j], aad_len, rng + 2000 + j);
			memset(jb, 0, sizeof(*jb));
			jb->key = k;
			jb->nonce = nonces[j];
			jb->nonce_len = nonce_len;
			jb->aad = aads[j];
			jb->aad_len = aad_len;
			jb->len = len;
			jb->in = ji;
			jb->out = inplace ? ji : jo;
			jb->tag = tags[j];
			jb->tag_len = tag_len;
			jb->status = VECSEC_JOB_PENDING;
			VT_EXPECT(vecsec_aead_seal(k, jw, wtags[j], tag_len, pt, len, nonces[j],
						   nonce_len, aads[j], aad_len) == 0,
				  "one shot seal job %u", j);
			if (j % 2 == 0) {
				jb->dir = VECSEC_AEAD_SEAL;
				memcpy(ji, pt, len);
			} else {
				jb->dir = VECSEC_AEAD_OPEN;
				memcpy(ji, jw, len);
				memcpy(tags[j], wtags[j], tag_len);
				memcpy(jw, pt, len);
			}
			if (forged) {
				jb->dir = VECSEC_AEAD_OPEN;
				memcpy(ji, jw, len);
				VT_EXPECT(vecsec_aead_seal(k, ji, tags[j], tag_len, pt, len,
							   nonces[j], nonce_len, aads[j],
							   aad_len) == 0, "one shot");
				tags[j][tag_len - 1] ^= 0x01;
				memset(jw, 0, len);
			}
			if (j % 5 == 4 && len > 2) {
				/* two input and two output segments, split differently */
				size_t a = 1 + vt_below(&rng, len - 1);
				size_t b = 1 + vt_below(&rng, len - 1);

				segs[j][0] = (struct vecsec_seg){ ji, a };
				segs[j][1] = (struct vecsec_seg){ ji + a, len - a };
				segs[j][2] = (struct vecsec_seg){ (uint8_t *)jb->out, b };
				segs[j][3] = (struct vecsec_seg){ (uint8_t *)jb->out + b, len - b };
				jb->in_segs = segs[j];
				jb->nb_in_segs = 2;
				jb->out_segs = segs[j] + 2;
				jb->nb_out_segs = 2;
			}
			jp[j] = jb;
		}
		VT_EXPECT(vecsec_aead_burst(jp, n) == n, "burst %u taken", n);
		for (unsigned int j = 0; j < n; j++) {
			struct vecsec_aead_job *jb = &jobs[j];
			bool forged = jb->key->alg == VECSEC_AEAD_ARIA_GCM && j % 4 == 2;

			VT_EXPECT(jb->status == (forged ? VECSEC_JOB_AUTH_FAILED : VECSEC_JOB_OK),
				  "burst %u job %u status %u", n, j, jb->status);
			VT_EXPECT_MEM(jb->out, want + j * BB_SLOT, jb->len,
				      "burst %u job %u %s len %zu dir %u iv %zu", n, j,
				      vecsec_aead_alg_name(jb->key->alg), jb->len, jb->dir,
				      jb->nonce_len);
			if (jb->dir == VECSEC_AEAD_SEAL)
				VT_EXPECT_MEM(jb->tag, wtags[j], jb->tag_len, "burst %u tag job %u",
					      n, j);
		}
	}
	for (int i = 0; i < 5; i++)
		vecsec_aead_key_wipe(&keys[i]);
	free(in);
	free(out);
	free(want);
}

/*
 * The ESP shape of vecsec-bench's bursts: 32 GCM jobs, each under its own
 * key (all three key lengths), 8-byte AAD, 12-byte IV, lengths of 0..80
 * with 64 (four blocks: a one-key vector of the many-key kernel) most
 * common, in place for some; seal, then open of the result and a forged
 * open, against one-shot calls.
 */
static void
test_aead_burst_many_keys(void)
{
	enum { NJ = 32 };
	static struct vecsec_aead_key keys[NJ];
	static uint8_t pt[NJ][80], ct[NJ][80], buf[NJ][80], wct[NJ][80];
	static uint8_t nonce[NJ][12], aad[NJ][8], tag[NJ][16], wtag[NJ][16];
	static struct vecsec_aead_job jobs[NJ];
	struct vecsec_aead_job *jp[NJ];
	size_t lens[NJ];
	uint64_t rng = vt_seed() + 4242;

	for (unsigned int j = 0; j < NJ; j++) {
		uint8_t key[32];

		vt_rand(key, 32, rng + j);
		VT_EXPECT(vecsec_aead_key_init(&keys[j], VECSEC_AEAD_ARIA_GCM, key,
					       key_lens[j % 3]) == 0, "key %u", j);
		lens[j] = j % 4 == 3 ? vt_below(&rng, 81) : 64;
		vt_rand(pt[j], lens[j], rng + 100 + j);
		vt_rand(nonce[j], 12, rng + 200 + j);
		vt_rand(aad[j], 8, rng + 300 + j);
		VT_EXPECT(vecsec_aead_seal(&keys[j], wct[j], wtag[j], 16, pt[j], lens[j], nonce[j],
					   12, aad[j], 8) == 0, "one shot %u", j);
	}
	for (int pass = 0; pass < 3; pass++) {
		for (unsigned int j = 0; j < NJ; j++) {
			bool in_place = j % 5 == 1;
			const uint8_t *src = pass == 0 ? pt[j] : wct[j];

			memcpy(buf[j], src, lens[j]);
			memcpy(tag[j], wtag[j], 16);
			if (pass == 2 && j % 3 == 0)
				tag[j][j % 16] ^= 0x40;
			memset(ct[j], 0xee, sizeof(ct[j]));
			jobs[j] = (struct vecsec_aead_job){
				.key = &keys[j],
				.dir = pass == 0 ? VECSEC_AEAD_SEAL : VECSEC_AEAD_OPEN,
				.status = VECSEC_JOB_PENDING, .nonce = nonce[j], .nonce_len = 12,
				.aad = aad[j], .aad_len = 8, .len = lens[j],
				.in = in_place ? ct[j] : buf[j], .out = ct[j], .tag = tag[j],
				.tag_len = 16,
			};
			if (in_place)
				memcpy(ct[j], src, lens[j]);
			jp[j] = &jobs[j];
		}
		VT_EXPECT(vecsec_aead_burst(jp, NJ) == NJ, "burst taken");
		for (unsigned int j = 0; j < NJ; j++) {
			bool bad = pass == 2 && j % 3 == 0;

			VT_EXPECT(jobs[j].status == (bad ? VECSEC_JOB_AUTH_FAILED : VECSEC_JOB_OK),
				  "pass %d job %u status %u", pass, j, jobs[j].status);
			if (pass == 0) {
				VT_EXPECT_MEM(ct[j], wct[j], lens[j], "seal job %u len %zu", j,
					      lens[j]);
				VT_EXPECT_MEM(tag[j], wtag[j], 16, "seal tag job %u", j);
			} else if (!bad) {
				VT_EXPECT_MEM(ct[j], pt[j], lens[j], "open job %u len %zu", j,
					      lens[j]);
			} else {
				VT_EXPECT_ZERO(ct[j], lens[j], "forged open job %u wiped", j);
			}
		}
	}
	for (unsigned int j = 0; j < NJ; j++)
		vecsec_aead_key_wipe(&keys[j]);
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_rfc5794_kat),    VT_TEST(test_sboxes),
		VT_TEST(test_impls_vs_ref),   VT_TEST(test_ecb_vs_openssl),
		VT_TEST(test_ctr_vs_openssl), VT_TEST(test_ctr_carries),
		VT_TEST(test_ctr32_esp),      VT_TEST(test_ctr32_kernel_wrap),
		VT_TEST(test_page_end),	      VT_TEST(test_gcm_vs_openssl),
		VT_TEST(test_gcm_params),     VT_TEST(test_gcm_streaming),
		VT_TEST(test_gcm_null_empty),
		VT_TEST(test_gcm_forgery),    VT_TEST(test_gcm_tail_ks),    VT_TEST(test_esp_gcm),
		VT_TEST(test_aead_aria),      VT_TEST(test_aead_esp),
		VT_TEST(test_aead_sgl),	      VT_TEST(test_aead_burst_mixed),
		VT_TEST(test_aead_burst_batch),
		VT_TEST(test_aead_burst_many_keys),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && strcmp(s, "0") != 0;
	return vt_main("aria", tests, VT_ARRAY_SIZE(tests));
}
