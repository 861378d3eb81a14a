/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Key objects sized by algorithm (vecsec_aead_key_size()): for every
 * algorithm and key length, init and wipe touch exactly the bytes the size
 * names, and a key in an allocation of just that size (ending at a
 * PROT_NONE page, and from aligned_alloc() so that ASan sees its end)
 * seals, opens, bursts and runs on an engine byte for byte as the
 * full-size struct does and as the oracle (OpenSSL; libsodium for
 * XChaCha20) does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"
#include "vecsec/vecsec_esp.h"

#define CANARY 0x5a

struct alg_case {
	enum vecsec_aead_alg alg;
	size_t key_len;
	size_t nonce_len;
	size_t tag_len;
	bool esp;             /* has an ESP form (key || salt) */
};

static const struct alg_case cases[] = {
	{ VECSEC_AEAD_CHACHA20_POLY1305, 32, 12, 16, true },
	{ VECSEC_AEAD_XCHACHA20_POLY1305, 32, 24, 16, false },
	{ VECSEC_AEAD_ARIA_GCM, 16, 12, 16, true },
	{ VECSEC_AEAD_ARIA_GCM, 24, 12, 16, true },
	{ VECSEC_AEAD_ARIA_GCM, 32, 12, 16, true },
	{ VECSEC_AEAD_ARIA_CTR, 16, 16, 0, true },
	{ VECSEC_AEAD_ARIA_CTR, 24, 16, 0, true },
	{ VECSEC_AEAD_ARIA_CTR, 32, 16, 0, true },
};

/* Message lengths: empty, partial blocks, a lanes step, an MTU, beyond the short paths. */
static const size_t lens[] = { 0, 1, 15, 16, 63, 64, 65, 255, 512, 1500, 2049 };

static struct vecsec_aead_key full;   /* the full-size struct (static: 2 KiB) */

static bool
all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void
test_sizes(void)
{
	for (size_t i = 0; i < VT_ARRAY_SIZE(cases); i++) {
		const struct alg_case *c = &cases[i];
		size_t n = vecsec_aead_key_size(c->alg, c->key_len);

		VT_EXPECT(n >= 64 && n % 64 == 0 && n <= sizeof(struct vecsec_aead_key),
			  "%s/%zu: size %zu", vecsec_aead_alg_name(c->alg), c->key_len, n);
		if (c->alg == VECSEC_AEAD_CHACHA20_POLY1305 ||
		    c->alg == VECSEC_AEAD_XCHACHA20_POLY1305)
			VT_EXPECT(n == 64, "%s: one line, not %zu", vecsec_aead_alg_name(c->alg), n);
		else
			VT_EXPECT(n > 64 && n <= 1024, "%s: %zu", vecsec_aead_alg_name(c->alg), n);
		for (size_t bad = 0; bad <= 40; bad++) {
			bool ok = c->alg == VECSEC_AEAD_CHACHA20_POLY1305 ||
					  c->alg == VECSEC_AEAD_XCHACHA20_POLY1305 ?
				  bad == 32 :
				  bad == 16 || bad == 24 || bad == 32;

			if (!ok)
				VT_EXPECT(vecsec_aead_key_size(c->alg, bad) == 0, "%s len %zu",
					  vecsec_aead_alg_name(c->alg), bad);
		}
	}
	VT_EXPECT(vecsec_aead_key_size(VECSEC_AEAD_NONE, 32) == 0, "NONE");
	VT_EXPECT(vecsec_aead_key_size((enum vecsec_aead_alg)99, 32) == 0, "99");
	VT_EXPECT(vecsec_aead_key_size((enum vecsec_aead_alg)-1, 32) == 0, "-1");
	printf("key sizes: chacha20-poly1305 %zu, xchacha20-poly1305 %zu, aria-gcm %zu, "
	       "aria-ctr %zu, struct %zu\n",
	       vecsec_aead_key_size(VECSEC_AEAD_CHACHA20_POLY1305, 32),
	       vecsec_aead_key_size(VECSEC_AEAD_XCHACHA20_POLY1305, 32),
	       vecsec_aead_key_size(VECSEC_AEAD_ARIA_GCM, 16),
	       vecsec_aead_key_size(VECSEC_AEAD_ARIA_CTR, 16), sizeof(struct vecsec_aead_key));
}

/* init (plain and ESP), failed init and wipe on a canary-filled full-size struct */
static void
test_init_wipe_bounds(void)
{
	uint8_t *p = (uint8_t *)&full, key[36];

	vt_rand(key, sizeof(key), 11);
	for (size_t i = 0; i < VT_ARRAY_SIZE(cases); i++) {
		const struct alg_case *c = &cases[i];
		const char *name = vecsec_aead_alg_name(c->alg);
		size_t n = vecsec_aead_key_size(c->alg, c->key_len);

		memset(&full, CANARY, sizeof(full));
		VT_EXPECT(vecsec_aead_key_init(&full, c->alg, key, c->key_len) == 0, "%s init",
			  name);
		VT_EXPECT(all_bytes(p + n, sizeof(full) - n, CANARY),
			  "%s/%zu: init wrote beyond %zu bytes", name, c->key_len, n);
		VT_EXPECT(full.alg == (uint32_t)c->alg && full.key_len == c->key_len, "%s header",
			  name);
		vecsec_aead_key_wipe(&full);
		VT_EXPECT_ZERO(p, n, "%s/%zu: wiped", name, c->key_len);
		VT_EXPECT(all_bytes(p + n, sizeof(full) - n, CANARY),
			  "%s/%zu: wipe wrote beyond %zu bytes", name, c->key_len, n);

		if (c->esp) {
			memset(&full, CANARY, sizeof(full));
			VT_EXPECT(vecsec_esp_key_init(&full, c->alg, key, c->key_len + 4) == 0,
				  "%s ESP init", name);
			VT_EXPECT(memcmp(full.salt, key + c->key_len, 4) == 0, "%s salt", name);
			VT_EXPECT(all_bytes(p + n, sizeof(full) - n, CANARY),
				  "%s/%zu: ESP init wrote beyond %zu bytes", name, c->key_len, n);
			vecsec_aead_key_wipe(&full);
			VT_EXPECT_ZERO(p, n, "%s: ESP key wiped", name);
			VT_EXPECT(all_bytes(p + n, sizeof(full) - n, CANARY),
				  "%s: ESP wipe beyond", name);
		}

		/* a bad length: the header's line zeroed (no algorithm left), nothing else */
		memset(&full, CANARY, sizeof(full));
		VT_EXPECT(vecsec_aead_key_init(&full, c->alg, key, c->key_len + 1) == -EINVAL,
			  "%s bad length", name);
		VT_EXPECT_ZERO(p, 64, "%s: failed init clears the header's line", name);
		VT_EXPECT(all_bytes(p + 64, sizeof(full) - 64, CANARY),
			  "%s: failed init wrote beyond the header's line", name);
		vecsec_aead_key_wipe(&full);
		VT_EXPECT(all_bytes(p + 64, sizeof(full) - 64, CANARY),
			  "%s: wipe of an empty key beyond the header's line", name);
	}
	/* an unknown algorithm touches nothing */
	memset(&full, CANARY, sizeof(full));
	VT_EXPECT(vecsec_aead_key_init(&full, (enum vecsec_aead_alg)99, key, 32) == -ENOTSUP,
		  "99");
	VT_EXPECT(all_bytes(p, sizeof(full), CANARY), "unknown algorithm wrote");
}

static void
nonce_for(const struct alg_case *c, uint8_t nonce[24], uint64_t seed)
{
	vt_rand(nonce, 24, seed);
	if (c->alg == VECSEC_AEAD_ARIA_CTR) {
		/* RFC 3686: the block counter starts at 1 and must not wrap */
		nonce[12] = 0;
		nonce[13] = 0;
		nonce[14] = 0;
		nonce[15] = 1;
	}
}

/* seal/open/burst/engine with exactly-sized keys vs the full struct vs the oracle */
static void
test_exact_size_runs(void)
{
	enum { MAXLEN = 2049 };
	static uint8_t in[MAXLEN], want[MAXLEN], got[MAXLEN], back[MAXLEN];
	uint8_t key[32], nonce[24], aad[20], tag_want[16], tag_got[16];
	struct vecsec_engine *e = vecsec_engine_create(VECSEC_ISA_DEFAULT);

	VT_EXPECT(e != NULL, "engine");
	if (e == NULL)
		return;
	vt_rand(key, sizeof(key), 21);
	vt_rand(aad, sizeof(aad), 22);
	vt_rand(in, sizeof(in), 23);
	for (size_t i = 0; i < VT_ARRAY_SIZE(cases); i++) {
		const struct alg_case *c = &cases[i];
		const char *name = vecsec_aead_alg_name(c->alg);
		size_t n = vecsec_aead_key_size(c->alg, c->key_len);
		size_t aad_len = c->tag_len != 0 ? sizeof(aad) : 0;
		struct vt_page_end pe;
		struct vecsec_aead_key *ka, *kp;

		/* one ends at a PROT_NONE page, one is an allocation ASan sizes exactly */
		vt_page_end_init(&pe, n);
		kp = (struct vecsec_aead_key *)(void *)pe.data;
		ka = aligned_alloc(64, n);
		if (ka == NULL)
			abort();
		VT_EXPECT(((uintptr_t)kp & 63) == 0, "page-end key aligned");
		VT_EXPECT(vecsec_aead_key_init(kp, c->alg, key, c->key_len) == 0, "%s init", name);
		VT_EXPECT(vecsec_aead_key_init(&full, c->alg, key, c->key_len) == 0, "%s full",
			  name);
		memcpy(ka, &full, n);
		VT_EXPECT(memcmp(kp, &full, n) == 0, "%s: same bytes in both", name);

		for (size_t li = 0; li < VT_ARRAY_SIZE(lens); li++) {
			size_t len = lens[li];
			const struct vecsec_aead_key *ks[3] = { &full, kp, ka };

			nonce_for(c, nonce, 100 + li);
			vt_oracle_seal_ex(c->alg, want, tag_want, c->tag_len, in, len, key,
					  c->key_len, nonce, c->nonce_len, aad, aad_len);
			for (int w = 0; w < 3; w++) {
				memset(got, 0, sizeof(got));
				memset(tag_got, 0, sizeof(tag_got));
				VT_EXPECT(vecsec_aead_seal(ks[w], got, tag_got, c->tag_len, in, len,
							   nonce, c->nonce_len, aad,
							   aad_len) == 0,
					  "%s seal %zu key %d", name, len, w);
				VT_EXPECT_MEM(got, want, len, "%s/%zu len %zu key %d: text",
					      name, c->key_len, len, w);
				VT_EXPECT_MEM(tag_got, tag_want, c->tag_len,
					      "%s/%zu len %zu key %d: tag", name, c->key_len, len,
					      w);
				memset(back, 0, sizeof(back));
				VT_EXPECT(vecsec_aead_open(ks[w], back, want, len, tag_want,
							   c->tag_len, nonce, c->nonce_len, aad,
							   aad_len) == 0,
					  "%s open %zu key %d", name, len, w);
				VT_EXPECT_MEM(back, in, len, "%s open %zu key %d", name, len, w);
				memset(got, 0, sizeof(got));
				VT_EXPECT(vecsec_engine_seal(e, ks[w], got, tag_got, c->tag_len, in,
							     len, nonce, c->nonce_len, aad,
							     aad_len) == 0,
					  "%s engine seal", name);
				VT_EXPECT_MEM(got, want, len, "%s engine %zu key %d", name, len,
					      w);
			}
		}

		/* a burst mixing both exactly-sized keys, every length, both directions */
		{
			enum { NJ = 2 * VT_ARRAY_SIZE(lens) };
			static uint8_t outs[NJ][MAXLEN], wants[NJ][MAXLEN];
			uint8_t tags[NJ][16], wtags[NJ][16], nonces[NJ][24];
			struct vecsec_aead_job jobs[NJ], *jp[NJ];

			for (unsigned int j = 0; j < NJ; j++) {
				size_t len = lens[j % VT_ARRAY_SIZE(lens)];
				bool open = j >= VT_ARRAY_SIZE(lens);

				nonce_for(c, nonces[j], 500 + j);
				vt_oracle_seal_ex(c->alg, wants[j], wtags[j], c->tag_len, in, len,
						  key, c->key_len, nonces[j], c->nonce_len, aad,
						  aad_len);
				memcpy(tags[j], wtags[j], 16);
				jobs[j] = (struct vecsec_aead_job){
					.key = (j & 1) ? kp : ka,
					.dir = open ? VECSEC_AEAD_OPEN : VECSEC_AEAD_SEAL,
					.status = VECSEC_JOB_PENDING,
					.nonce = nonces[j],
					.nonce_len = c->nonce_len,
					.aad = aad,
					.aad_len = aad_len,
					.len = len,
					.in = open ? wants[j] : in,
					.out = outs[j],
					.tag = tags[j],
					.tag_len = c->tag_len,
				};
				jp[j] = &jobs[j];
			}
			VT_EXPECT(vecsec_aead_burst(jp, NJ) == NJ, "%s burst", name);
			for (unsigned int j = 0; j < NJ; j++) {
				size_t len = lens[j % VT_ARRAY_SIZE(lens)];
				bool open = j >= VT_ARRAY_SIZE(lens);

				VT_EXPECT(jobs[j].status == VECSEC_JOB_OK, "%s burst job %u: %u",
					  name, j, jobs[j].status);
				VT_EXPECT_MEM(outs[j], open ? in : wants[j], len,
					      "%s burst job %u", name, j);
				if (!open)
					VT_EXPECT_MEM(tags[j], wtags[j], c->tag_len,
						      "%s burst tag %u", name, j);
			}
		}

		vecsec_aead_key_wipe(kp);
		VT_EXPECT_ZERO(kp, n, "%s exact key wiped", name);
		vecsec_aead_key_wipe(ka);
		VT_EXPECT_ZERO(ka, n, "%s allocated key wiped", name);
		vecsec_aead_key_wipe(&full);
		free(ka);
		vt_page_end_free(&pe);
	}
	vecsec_engine_free(e);
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_sizes),
		VT_TEST(test_init_wipe_bounds),
		VT_TEST(test_exact_size_runs),
	};

	return vt_main("keysize", tests, VT_ARRAY_SIZE(tests));
}
