/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fused kernels for small ChaCha20-Poly1305 bursts (lib/chachapoly
 * chachapoly_small.h: AVX-512 + IFMA, groups of up to 16 linear jobs of at
 * most SMALL_LONG_MAX bytes and AAD of at most SMALL_AAD; AVX2, groups of up to
 * 8, in its plain and its AVX-512VL form), each of them:
 *   - the kernel itself, called directly: random active masks (one lane up
 *     to all of its lanes, sparse), ragged and equal lengths
 *     0..SMALL_LONG_MAX (the 16-lane kernel reads keys and nonces where
 *     they lie, inactive lanes' pointers NULL), AAD
 *     0..SMALL_AAD; the ciphertext and tag == the one-shot API == OpenSSL
 *     / libsodium, open's tag and first block aside likewise; nothing
 *     written outside the outputs, inactive lanes never read or written
 *     (their pointers lead to guarded buffers);
 *   - bursts: groups of 1..16 jobs (a group of 16 longer ones first), every
 *     length 0..SMALL_MAX + 64 ragged and equal, AAD 0..SMALL_AAD + 1 (the
 *     last falls back to the staged path), ChaCha20 and XChaCha20 jobs
 *     mixed, in place and out of place at odd offsets; seal == the
 *     one-shot API == OpenSSL / libsodium, open gives the plaintext back,
 *     one forged job a burst fails with its output zeroed; the same with
 *     the kernel switched off (the A/B knob);
 *   - jobs past SMALL_MAX in the fused groups (the limits forced to
 *     SMALL_LONG_MAX), at AVX-512 (16 lanes) and AVX2 (8, both forms):
 *     bursts of 16 with 1..16 long jobs beside short ones, every long
 *     length at a stride, the AAD of one job past SMALL_AAD or not; they
 *     run fused exactly where a model of the busy rule says;
 *   - where it runs: at the AVX-512 level on a CPU with IFMA the groups
 *     that qualify go through the AVX-512 kernel, at the AVX2 level
 *     through the AVX2 kernel's VL form on a CPU with AVX-512VL/BW and
 *     through its plain form with the VL knob off (the lane kernels named
 *     by vecsec_lanes_choose() say which; the per-thread counter grows),
 *     at every other level or with the knob off never; the stack wipe
 *     always reached the kernel's frame. A CPU without IFMA, or without
 *     VL, says so loudly, and fails the run under VECSEC_TEST_REQUIRE_ISA
 *     naming avx512.
 */
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vt_avx2vl.h"
#include "vecsec/vecsec_aead.h"
#include "chacha/chacha_internal.h"
#include "cpu/cpu_internal.h"
#include "chachapoly/chachapoly_burst.h"
#include "chachapoly/chachapoly_knobs.h"
#include "chachapoly/chachapoly_small.h"

static bool slow;

#define GUARD 32
#define MAXLEN (SMALL_MAX + 64)
/* the longest job a burst here holds (test_fused_long()) */
#define JOBMAX (SMALL_LONG_MAX + 64)

static bool
cpu_has_fused(void)
{
	const uint64_t need = VECSEC_CPU_AVX512F | VECSEC_CPU_AVX512VL | VECSEC_CPU_AVX512BW |
			      VECSEC_CPU_AVX512IFMA;

#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
	return (vecsec_cpu_features() & need) == need;
#else
	(void)need;
	return false;
#endif
}

/*
 * True where bursts may take a fused kernel now (this ISA level, this CPU,
 * the VL knob): the AVX-512 one with 16 ChaCha lanes and IFMA Poly1305,
 * the AVX2 one with 8 and AVX2 Poly1305 (form: "avx2vl" or "avx2", the
 * lane kernels' names, set to the form bursts run).
 */
static bool
fused_expected(const char **form)
{
	struct lanes_choice c;

	vecsec_lanes_choose(32, &c);
	*form = "none";
	if (cpu_has_fused() && vecsec_isa_cap() >= VECSEC_ISA_AVX512 && c.chacha_lanes == 16 &&
	    strstr(c.poly_name, "avx512ifma") != NULL) {
		*form = "avx512ifma";
		return true;
	}
#if defined(VECSEC_HAVE_AVX2)
	if (vecsec_isa_cap() == VECSEC_ISA_AVX2 && c.chacha_lanes == 8 &&
	    strstr(c.chacha_name, "avx2") != NULL && strstr(c.poly_name, "avx2") != NULL) {
		*form = strstr(c.chacha_name, "avx2vl") != NULL ? "avx2vl" : "avx2";
		VT_EXPECT(strcmp(*form, strstr(c.poly_name, "avx2vl") != NULL ? "avx2vl" :
					"avx2") == 0, "ChaCha %s with Poly1305 %s", c.chacha_name,
			  c.poly_name);
		return true;
	}
#endif
	return false;
}

/* a CPU without the kernel: loud, and a failure where the run requires AVX-512 */
static bool
require_cpu(void)
{
	if (cpu_has_fused())
		return true;
	vt_skip_lacking("fused", "the fused small-burst kernel", "AVX-512 IFMA");
	return false;
}

/* ---- the kernel, called directly ---- */

struct lane_bufs {
	uint8_t key[32], nonce[12], aad[SMALL_AAD + 2 * GUARD];
	uint8_t pt[SMALL_LONG_MAX + 2 * GUARD], ct[SMALL_LONG_MAX + 2 * GUARD];
	uint8_t aside[CHACHA_BLOCK_LEN + 2 * GUARD], tag[16 + 2 * GUARD];
	size_t len, aad_len;
};

static bool
guards_are(const uint8_t *b, size_t body, uint8_t v)
{
	for (size_t i = 0; i < GUARD; i++)
		if (b[i] != v || b[GUARD + body + i] != v)
			return false;
	return true;
}

static bool
all_are(const uint8_t *b, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/* a fused kernel, its lanes and the longest job it takes */
struct kern {
	const char *name;
	small_kernel_fn fn;
	unsigned int lanes;
	size_t max;
};

static void
kernel_round(struct lane_bufs *lb, uint32_t active, bool equal, uint64_t *st,
	     const struct kern *kk)
{
	struct chacha_lanes l;
	struct small_mac m;
	uint32_t bytes[16];
	size_t common = vt_below(st, kk->max + 1);

	memset(&l, 0x5a, sizeof(l));
	memset(&m, 0, sizeof(m));
	memset(bytes, 0xff, sizeof(bytes));
	l.rounds = 20;
	l.active = active;
	for (int i = 0; i < 16; i++) {
		struct lane_bufs *b = &lb[i];

		memset(b, 0xc3, sizeof(*b));
		if (!((active >> i) & 1)) {
			/* an inactive lane: pointers into guarded buffers, lengths at the most */
			l.in[i] = b->pt + GUARD;
			l.out[i] = b->ct + GUARD;
			m.ct[i] = b->ct + GUARD;
			m.aad[i] = b->aad + GUARD;
			m.tag[i] = b->tag + GUARD;
			m.len[i] = (uint32_t)kk->max;
			m.aad_len[i] = SMALL_AAD;
			bytes[i] = (uint32_t)kk->max;
			m.key[i] = NULL;        /* never read (masked loads) */
			m.nonce[i] = NULL;
			continue;
		}
		b->len = equal ? common : vt_below(st, kk->max + 1);
		b->aad_len = vt_below(st, SMALL_AAD + 1);
		vt_rand(b->key, 32, vt_next(st));
		vt_rand(b->nonce, 12, vt_next(st));
		vt_rand(b->aad + GUARD, b->aad_len, vt_next(st));
		vt_rand(b->pt + GUARD, b->len, vt_next(st));
		/*
		 * the 16-lane kernel reads the key and nonce where they lie, the
		 * 8-lane ones the lane struct's words (left at 0x5a for the other)
		 */
		m.key[i] = b->key;
		m.nonce[i] = b->nonce;
		for (int w = 0; w < 8 && kk->lanes == 8; w++)
			l.key[w][i] = vecsec_load_le32(b->key + 4 * w);
		for (int w = 0; w < 3 && kk->lanes == 8; w++)
			l.nonce[w][i] = vecsec_load_le32(b->nonce + 4 * w);
		l.ctr[i] = 0;
		l.in[i] = b->pt + GUARD;
		l.out[i] = b->ct + GUARD;
		bytes[i] = (uint32_t)b->len;
		m.ct[i] = b->ct + GUARD;
		m.aad[i] = b->aad + GUARD;
		m.tag[i] = b->tag + GUARD;
		m.len[i] = (uint32_t)b->len;
		m.aad_len[i] = (uint32_t)b->aad_len;
	}
	kk->fn(&l, bytes, &m);
	for (int i = 0; i < 16; i++) {
		struct lane_bufs *b = &lb[i];
		uint8_t want[SMALL_LONG_MAX], wtag[16], otag[16], oct[SMALL_LONG_MAX];

		if (!((active >> i) & 1)) {
			VT_EXPECT(all_are(b->ct, sizeof(b->ct), 0xc3) &&
				  all_are(b->tag, sizeof(b->tag), 0xc3),
				  "%s: inactive lane %d (mask %04x) written", kk->name, i,
				  (unsigned)active);
			continue;
		}
		{
			struct vecsec_aead_key k;

			VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, b->key,
						       32) == 0, "key init");
			VT_EXPECT(vecsec_aead_seal(&k, want, wtag, 16, b->pt + GUARD, b->len,
						   b->nonce, 12, b->aad + GUARD, b->aad_len) == 0,
				  "one-shot seal");
			vecsec_aead_key_wipe(&k);
		}
		vt_oracle_seal(VECSEC_AEAD_CHACHA20_POLY1305, oct, otag, b->pt + GUARD, b->len,
			       b->key, b->nonce, b->aad + GUARD, b->aad_len);
		VT_EXPECT_MEM(b->ct + GUARD, want, b->len, "%s seal lane %d len %zu aad %zu",
			      kk->name, i, b->len, b->aad_len);
		VT_EXPECT_MEM(b->tag + GUARD, wtag, 16, "%s tag lane %d len %zu aad %zu", kk->name,
			      i, b->len, b->aad_len);
		VT_EXPECT_MEM(want, oct, b->len, "one-shot vs oracle len %zu", b->len);
		VT_EXPECT_MEM(wtag, otag, 16, "one-shot tag vs oracle len %zu", b->len);
		VT_EXPECT(guards_are(b->ct, b->len, 0xc3) && guards_are(b->tag, 16, 0xc3),
			  "%s seal lane %d len %zu wrote outside", kk->name, i, b->len);
	}

	/* open: the MAC over the ciphertext, the first block decrypted aside */
	for (int i = 0; i < 16; i++) {
		struct lane_bufs *b = &lb[i];

		if (!((active >> i) & 1))
			continue;
		memset(b->tag, 0xc3, sizeof(b->tag));
		l.in[i] = b->ct + GUARD;
		l.out[i] = b->aside + GUARD;
		bytes[i] = b->len < CHACHA_BLOCK_LEN ? (uint32_t)b->len : CHACHA_BLOCK_LEN;
	}
	kk->fn(&l, bytes, &m);
	for (int i = 0; i < 16; i++) {
		struct lane_bufs *b = &lb[i];
		struct vecsec_aead_key k;
		uint8_t wtag[16], want[SMALL_LONG_MAX];
		size_t first = b->len < CHACHA_BLOCK_LEN ? b->len : CHACHA_BLOCK_LEN;

		if (!((active >> i) & 1))
			continue;
		VT_EXPECT(vecsec_aead_key_init(&k, VECSEC_AEAD_CHACHA20_POLY1305, b->key, 32) == 0,
			  "key init");
		VT_EXPECT(vecsec_aead_seal(&k, want, wtag, 16, b->pt + GUARD, b->len, b->nonce, 12,
					   b->aad + GUARD, b->aad_len) == 0, "one-shot seal");
		vecsec_aead_key_wipe(&k);
		VT_EXPECT_MEM(b->tag + GUARD, wtag, 16, "%s open tag lane %d len %zu", kk->name, i,
			      b->len);
		VT_EXPECT_MEM(b->aside + GUARD, b->pt + GUARD, first,
			      "%s open first block lane %d len %zu", kk->name, i, b->len);
		VT_EXPECT(guards_are(b->aside, first, 0xc3) &&
			  all_are(b->aside + GUARD + first, CHACHA_BLOCK_LEN - first, 0xc3),
			  "%s open lane %d len %zu wrote past its first block", kk->name, i, b->len);
	}
}

/* rounds of kernel kk: one lane each in turn, all lanes, then random (sparse) masks */
static void
kernel_rounds(const struct kern *kk, struct lane_bufs *lb, uint64_t *st)
{
	const uint32_t all = (uint32_t)((UINT64_C(1) << kk->lanes) - 1);
	unsigned int rounds = slow ? 3000 : 300;

	for (unsigned int r = 0; r < rounds; r++) {
		uint32_t active = r < kk->lanes ? UINT32_C(1) << r : r < kk->lanes + 4 ? all :
				  (uint32_t)vt_next(st) & all;

		if (active == 0)
			active = 1;
		kernel_round(lb, active, r % 3 == 0, st, kk);
	}
}

/* Each kernel of this build and CPU at its level, once (it does not depend on the level). */
static void
test_fused_kernel(void)
{
	struct kern ks[3];
	unsigned int nk = 0;

	if (strcmp(vt_isa(), "avx512") == 0) {
		if (!require_cpu())
			return;
#if defined(VECSEC_HAVE_AVX512_IFMA) && defined(VECSEC_HAVE_AVX512)
		ks[nk++] = (struct kern){ "avx512ifma x16", vecsec_chachapoly_small_x16_avx512ifma,
					  16, SMALL_LONG_MAX };
#endif
	} else if (strcmp(vt_isa(), "avx2") == 0) {
#if defined(VECSEC_HAVE_AVX2)
		ks[nk++] = (struct kern){ "avx2 x8", vecsec_chachapoly_small_x8_avx2, 8,
					  SMALL_LONG_MAX };
#endif
#if defined(VECSEC_HAVE_AVX2_VL)
		if (vecsec_chacha_avx2_vl_cpu()) {
			ks[nk++] = (struct kern){ "avx2vl x8", vecsec_chachapoly_small_x8_avx2vl, 8,
						  SMALL_LONG_MAX };
		} else {
			bool was;

			(void)vt_avx2_plain_begin("fused (the AVX2 kernel's VL form)", &was);
		}
#else
		printf("\nSKIP fused: the AVX2 kernel's VL form not built\n");
		fprintf(stderr, "SKIP fused: the AVX2 kernel's VL form not built\n");
#endif
	}
	if (nk == 0)
		return;
	{
		struct lane_bufs *lb = malloc(16 * sizeof(*lb));
		uint64_t st = vt_seed() ^ 0xf05ed;

		VT_EXPECT(lb != NULL, "malloc");
		for (unsigned int k = 0; k < nk && lb != NULL; k++)
			kernel_rounds(&ks[k], lb, &st);
		free(lb);
	}
	VT_EXPECT(vecsec_chachapoly_small_burn_short() == 0,
		  "the stack wipe fell short of the kernel's frame %llu times",
		  (unsigned long long)vecsec_chachapoly_small_burn_short());
}

/* ---- bursts ---- */

#define FILL 16
#define NB (FILL + 16)
/* jobs of SMALL_MAX bytes before a burst's group (FILL; 0: the group alone) */
static unsigned int fill = FILL;

struct bjob {
	uint8_t *pt, *ct, *back;
	size_t off, len;
	uint8_t aad[SMALL_AAD + 1], tag[16], nonce[24];
	int alg;        /* 0 ChaCha20, 1 XChaCha20 */
};

struct bkeys {
	uint8_t raw[2][32];
	struct vecsec_aead_key k[2];
};

/* a ChaCha20 and an XChaCha20 key from seed (step apart) */
static void
bkeys_init(struct bkeys *ks, uint64_t seed, uint64_t step)
{
	for (int a = 0; a < 2; a++) {
		vt_rand(ks->raw[a], 32, seed + step * (uint64_t)a);
		VT_EXPECT(vecsec_aead_key_init(&ks->k[a], a ? VECSEC_AEAD_XCHACHA20_POLY1305 :
					       VECSEC_AEAD_CHACHA20_POLY1305, ks->raw[a], 32) == 0,
			  "key init");
	}
}

/* A seal of len bytes from pt into ct (in place: ct first holds a copy of pt). */
static void
seal_job(struct vecsec_aead_job *job, const struct vecsec_aead_key *k, const uint8_t *nonce,
	 size_t nl, const uint8_t *aad, size_t aad_len, const uint8_t *pt, uint8_t *ct,
	 size_t len, uint8_t *tag, bool in_place)
{
	*job = (struct vecsec_aead_job){
		.key = k, .dir = VECSEC_AEAD_SEAL, .nonce = nonce, .nonce_len = nl, .aad = aad,
		.aad_len = aad_len, .len = len, .in = pt, .out = ct, .tag = tag, .tag_len = 16,
	};
	if (in_place) {
		memcpy(ct, pt, len);
		job->in = ct;
	}
}

/*
 * The sealed job turned into its open: from ct into back + before (back
 * set to 0xa5 first, before + len bytes; in place: the ciphertext copied
 * there).
 */
static void
open_job(struct vecsec_aead_job *job, const uint8_t *ct, uint8_t *back, size_t before,
	 bool in_place)
{
	job->dir = VECSEC_AEAD_OPEN;
	job->in = ct;
	job->out = back + before;
	memset(back, 0xa5, before + job->len);
	if (in_place) {
		memcpy(back + before, ct, job->len);
		job->in = job->out;
	}
}

/*
 * A sealed burst job (key k from raw, alg: 1 XChaCha20) against the
 * one-shot API and the oracle: its status, ciphertext at ct and tag.
 */
static void
check_sealed(const struct vecsec_aead_key *k, const uint8_t raw[32], int alg,
	     const struct vecsec_aead_job *job, const uint8_t *pt, const uint8_t *ct,
	     const uint8_t *tag, const char *cfg)
{
	uint8_t want[JOBMAX], wtag[16], oct[JOBMAX], otag[16];

	VT_EXPECT(job->status == VECSEC_JOB_OK, "%s seal status len %zu", cfg, job->len);
	VT_EXPECT(vecsec_aead_seal(k, want, wtag, 16, pt, job->len, job->nonce, job->nonce_len,
				   job->aad, job->aad_len) == 0, "one-shot");
	vt_oracle_seal(alg ? VECSEC_AEAD_XCHACHA20_POLY1305 : VECSEC_AEAD_CHACHA20_POLY1305, oct,
		       otag, pt, job->len, raw, job->nonce, job->aad, job->aad_len);
	VT_EXPECT_MEM(ct, want, job->len, "%s ciphertext len %zu aad %zu alg %d", cfg, job->len,
		      job->aad_len, alg);
	VT_EXPECT_MEM(tag, wtag, 16, "%s tag len %zu aad %zu alg %d", cfg, job->len,
		      job->aad_len, alg);
	VT_EXPECT_MEM(want, oct, job->len, "%s one-shot vs oracle len %zu", cfg, job->len);
	VT_EXPECT_MEM(wtag, otag, 16, "%s one-shot tag vs oracle len %zu", cfg, job->len);
}

/*
 * An opened burst job whose output buffer is back (before bytes of 0xa5
 * ahead of the output): nothing written ahead; forged: status
 * AUTH_FAILED and the output zeroed, else the plaintext pt back.
 */
static void
check_opened(const struct vecsec_aead_job *job, const uint8_t *back, size_t before,
	     const uint8_t *pt, bool forged, const char *cfg)
{
	VT_EXPECT(all_are(back, before, 0xa5), "%s open len %zu wrote before", cfg, job->len);
	if (forged) {
		VT_EXPECT(job->status == VECSEC_JOB_AUTH_FAILED, "%s forged len %zu status %d",
			  cfg, job->len, (int)job->status);
		VT_EXPECT_ZERO(back + before, job->len, "%s forged len %zu not zeroed", cfg,
			       job->len);
	} else {
		VT_EXPECT(job->status == VECSEC_JOB_OK, "%s open len %zu aad %zu status %d", cfg,
			  job->len, job->aad_len, (int)job->status);
		VT_EXPECT_MEM(back + before, pt, job->len, "%s plaintext len %zu aad %zu", cfg,
			      job->len, job->aad_len);
	}
}

/*
 * One burst: FILL longer jobs (a group of their own: the longest go first)
 * and g test jobs of length len_of(i); seal, check, open with one job
 * forged, check. in_place: in == out for both.
 */
static void
one_burst(struct bkeys *ks, unsigned int g, const size_t *lens, size_t aad0, bool in_place,
	  uint64_t seed, const char *cfg)
{
	struct bjob b[NB];
	struct vecsec_aead_job jobs[NB], *jp[NB];
	unsigned int n = fill + g, forged = (unsigned int)(seed % g) + fill;
	uint64_t st = seed;

	for (unsigned int i = 0; i < n; i++) {
		struct bjob *x = &b[i];
		size_t nl;

		x->len = i < fill ? SMALL_MAX : lens[i - fill];
		x->off = 1 + (seed + 3 * i) % 15;                 /* never 16-aligned */
		x->alg = (int)((seed + i) % 3 == 0);
		nl = x->alg ? 24 : 12;
		x->pt = malloc(x->off + x->len + 1);
		x->ct = malloc(x->off + x->len + 1);
		x->back = malloc(x->off + x->len + 2);
		vt_rand(x->pt + x->off, x->len, vt_next(&st));
		vt_rand(x->nonce, sizeof(x->nonce), vt_next(&st));
		vt_rand(x->aad, sizeof(x->aad), vt_next(&st));
		seal_job(&jobs[i], &ks->k[x->alg], x->nonce, nl, x->aad,
			 i < fill ? 8 : (aad0 + i) % (SMALL_AAD + 2), x->pt + x->off,
			 x->ct + x->off + 1, x->len, x->tag, in_place);
		jp[i] = &jobs[i];
	}
	VT_EXPECT(vecsec_aead_burst(jp, n) == n, "%s seal burst", cfg);
	for (unsigned int i = 0; i < n; i++) {
		struct bjob *x = &b[i];

		check_sealed(&ks->k[x->alg], ks->raw[x->alg], x->alg, &jobs[i], x->pt + x->off,
			     x->ct + x->off + 1, x->tag, cfg);
		open_job(&jobs[i], x->ct + x->off + 1, x->back, x->off + 2, in_place);
	}
	b[forged].tag[seed % 16] ^= (uint8_t)(1u << (seed % 8));
	VT_EXPECT(vecsec_aead_burst(jp, n) == n, "%s open burst", cfg);
	for (unsigned int i = 0; i < n; i++) {
		struct bjob *x = &b[i];

		check_opened(&jobs[i], x->back, x->off + 2, x->pt + x->off, i == forged, cfg);
		free(x->pt);
		free(x->ct);
		free(x->back);
	}
}

/* every length 0..MAXLEN in groups of g, ragged (consecutive) and equal */
static void
bursts_of(struct bkeys *ks, unsigned int g, bool in_place, uint64_t seed, const char *cfg)
{
	size_t lens[16];
	char c[160];

	for (size_t first = 0; first <= MAXLEN; first += g) {
		for (unsigned int i = 0; i < g; i++)
			lens[i] = first + i <= MAXLEN ? first + i : MAXLEN - i;
		snprintf(c, sizeof(c), "%s g %u ragged from %zu", cfg, g, first);
		one_burst(ks, g, lens, first, in_place, seed + first, c);
	}
	/* equal: every length for a few group sizes, a stride for the rest */
	for (size_t len = 0; len <= MAXLEN; len += slow || g == 16 || g == 3 ? 1 : 13) {
		for (unsigned int i = 0; i < g; i++)
			lens[i] = len;
		snprintf(c, sizeof(c), "%s g %u equal %zu", cfg, g, len);
		one_burst(ks, g, lens, len * 7, in_place, seed + 977 * len, c);
	}
}

/*
 * The bursts with the kernel on (every group size) and off (a few): it
 * runs where expected (want_form: the form it must be, NULL: any), and
 * only there.
 */
static void
bursts_on_off(struct bkeys *ks, uint64_t seed, const char *want_form)
{
	const char *form;
	bool expect = fused_expected(&form);

	vecsec_lanes_count_fused(true);
	if (want_form != NULL)
		VT_EXPECT(expect && strcmp(form, want_form) == 0,
			  "bursts at %s take the fused kernel's %s form, not %s", vt_isa(),
			  want_form, form);
	for (int on = 1; on >= 0; on--) {
		for (unsigned int g = 1; g <= 16; g++) {
			uint64_t before = vecsec_lanes_fused_groups();
			char cfg[96];

			if (on == 0 && !slow && g % 5 != 0)
				continue;       /* the A/B: a few group sizes without it */
			vecsec_lanes_set_fused(on == 1);
			snprintf(cfg, sizeof(cfg), "fused %s (%s) %s", on ? "on" : "off", form,
				 g % 2 ? "in place" : "out of place");
			bursts_of(ks, g, g % 2 == 1, seed + 1000003 * g, cfg);
			if (on && expect)
				VT_EXPECT(vecsec_lanes_fused_groups() > before,
					  "groups of %u: the fused kernel (%s) never ran", g, form);
			else
				VT_EXPECT(vecsec_lanes_fused_groups() == before,
					  "groups of %u: the fused kernel ran %llu times (%s, %s)", g,
					  (unsigned long long)(vecsec_lanes_fused_groups() - before),
					  on ? "on" : "off", vt_isa());
		}
	}
	vecsec_lanes_set_fused(true);
}

/*
 * AVX-512 bursts of 5-8 alone: their x8 ChaCha with the x8 IFMA Poly1305
 * take the x8 VL fused kernel up to SMALL_MAX, the staged path above.
 */
static void
test_fused_x8_at_avx512(void)
{
	struct lanes_choice c;
	struct bkeys ks;
	uint64_t seed = vt_seed();
	const char *form;
	struct vecsec_tune tune;

	if (vecsec_isa_cap() < VECSEC_ISA_AVX512) {
		printf("fused x8 at AVX-512: not this run's level (%s)\n", vt_isa());
		return;
	}
	if (!require_cpu())
		return;
	VT_EXPECT(fused_expected(&form) && strcmp(form, "avx512ifma") == 0,
		  "bursts at %s take the AVX-512 fused kernel (form %s)", vt_isa(), form);
	bkeys_init(&ks, seed, 13);
	vecsec_lanes_count_fused(true);
	fill = 0;
	/* the 512-byte bound (test_fused_long() has the tuning's longer jobs) */
	tune = *vecsec_tune();
	tune.fused_x8_max = 0;
	tune.fused_x16_max = 0;
	vecsec_tune_force(&tune);
	for (unsigned int g = 5; g <= 8; g++) {
		for (size_t first = 0; first + g <= SMALL_MAX + 40; first += 11) {
			size_t lens[16];
			bool fits = first + g - 1 <= SMALL_MAX;
			uint64_t before = vecsec_lanes_fused_groups();
			char cfg[96];

			vecsec_lanes_choose(g, &c);
			VT_EXPECT(c.chacha_lanes == 8 && strstr(c.chacha_name, "avx2vl") != NULL &&
				  strstr(c.poly_name, "avx512ifma") != NULL,
				  "a burst of %u at AVX-512 runs ChaCha %s with Poly1305 %s", g,
				  c.chacha_name, c.poly_name);
			for (unsigned int i = 0; i < g; i++) {
				lens[i] = first + i;
				/* one_burst's AAD lengths run to SMALL_AAD + 1: too long for it */
				fits = fits && (first + i) % (SMALL_AAD + 2) <= SMALL_AAD;
			}
			snprintf(cfg, sizeof(cfg), "burst of %u alone, %zu..%zu B", g, first,
				 first + g - 1);
			one_burst(&ks, g, lens, first, g % 2 == 0, seed + first * 31 + g, cfg);
			/*
			 * a burst this small may run one by one (vecsec_lanes_few());
			 * one straddling SMALL_MAX runs its short jobs through the kernel
			 */
			if (g < vecsec_lanes_few(first + g - 1) ||
			    (first <= SMALL_MAX && first + g - 1 > SMALL_MAX))
				continue;
			VT_EXPECT(fits ? vecsec_lanes_fused_groups() > before :
					 vecsec_lanes_fused_groups() == before,
				  "%s: the fused kernel %s", cfg, fits ? "never ran" : "ran");
		}
	}
	fill = FILL;
	vecsec_tune_force(NULL);
	vecsec_aead_key_wipe(&ks.k[0]);
	vecsec_aead_key_wipe(&ks.k[1]);
}

/*
 * A model of the rule for jobs past SMALL_MAX (chachapoly_burst.c
 * fused_long_keep()) for a burst of n jobs of one direction, none with
 * AAD past SMALL_AAD but possibly a long one (it takes the direct path):
 * the long jobs by whole blocks, longest first, then the short ones
 * likewise (each stable), cut in groups of lanes; the long jobs run fused
 * when the first group holds at least 2/3 of its longest job's length
 * times lanes, in bytes.
 */
static bool
model_long_fused(const size_t *lens, const size_t *aad, unsigned int n, unsigned int lanes)
{
	unsigned int order[16], m = 0;
	uint64_t sum = 0, most = 0;

	for (int pass = 0; pass < 2; pass++) {
		unsigned int first = m;

		for (unsigned int i = 0; i < n; i++) {
			bool lng = lens[i] > SMALL_MAX;

			if (lng != (pass == 0) || (lng && aad[i] > SMALL_AAD))
				continue;
			/* insertion, stable: after every job of as many whole blocks or more */
			unsigned int at = m;

			while (at > first && lens[order[at - 1]] / CHACHA_BLOCK_LEN <
						 lens[i] / CHACHA_BLOCK_LEN)
				at--;
			memmove(order + at + 1, order + at, (m - at) * sizeof(order[0]));
			order[at] = i;
			m++;
		}
	}
	if (m == 0 || lens[order[0]] <= SMALL_MAX)
		return false;
	for (unsigned int k = 0; k < m && k < lanes; k++) {
		sum += lens[order[k]];
		most = lens[order[k]] > most ? lens[order[k]] : most;
	}
	return 3 * sum >= 2 * (uint64_t)lanes * most;
}

/*
 * Jobs past SMALL_MAX, up to the tuning's fused_x16_max / fused_x8_max
 * (forced here to SMALL_LONG_MAX so that every CPU with the kernel runs
 * them, and the crossover pinned there so that none leaves for the
 * single path), join the fused groups that keep at least 2/3 of their bytes busy,
 * and only those: at the AVX-512 level (16 lanes) and at AVX2 (8 lanes,
 * the VL form and the plain one). Bursts of 16: nl long jobs (ragged,
 * past SMALL_MAX) beside 16 - nl short ones, every long length at a
 * stride (each one with VT_SLOW); seal == the one-shot API == the oracle,
 * open with one job forged (one_burst()); a fused group held long jobs
 * where the model above says and never elsewhere, nor beside a short job
 * with AAD past SMALL_AAD.
 */
static void
long_bursts(struct bkeys *ks, uint64_t seed, const char *form)
{
	static const unsigned int nls[] = { 16, 12, 11, 10, 8, 6, 5, 4, 1 };
	struct lanes_choice c;
	unsigned int runs[2] = { 0, 0 };

	vecsec_lanes_choose(16, &c);
	printf("fused long jobs: %s, %u lanes\n", form, c.chacha_lanes);
	for (size_t len = SMALL_MAX + 1; len <= SMALL_LONG_MAX; len += slow ? 1 : 29) {
		for (unsigned int x = 0; x < VT_ARRAY_SIZE(nls) * 2; x++) {
			unsigned int nl = nls[x / 2];
			/* x odd: AAD lengths 2..17, the last job's past SMALL_AAD */
			bool wide = x % 2 == 1, kept;
			size_t lens[16], aad[16], aad0 = wide ? 2 : 0;
			uint64_t before = vecsec_lanes_fused_long_groups();
			char cfg[128];

			for (unsigned int i = 0; i < 16; i++) {
				size_t l = len + i % 3, sh = (nl + len) % 2 ? 64 - i : 448 - 7 * i;

				lens[i] = i < nl ? (l < SMALL_LONG_MAX ? l : SMALL_LONG_MAX) : sh;
				aad[i] = (aad0 + i) % (SMALL_AAD + 2);          /* one_burst()'s */
			}
			kept = model_long_fused(lens, aad, 16, c.chacha_lanes) &&
			       (!wide || nl == 16);
			snprintf(cfg, sizeof(cfg), "fused long (%s): %u of %zu..%zu B beside %u short%s",
				 form, nl, len, len + 2, 16 - nl, wide ? ", AAD to 17" : "");
			one_burst(ks, 16, lens, aad0, x % 4 < 2, seed + 131 * len + x, cfg);
			VT_EXPECT(kept ? vecsec_lanes_fused_long_groups() > before :
					 vecsec_lanes_fused_long_groups() == before,
				  "%s: a fused group held the long jobs %llu times, expected %s", cfg,
				  (unsigned long long)(vecsec_lanes_fused_long_groups() - before),
				  kept ? "some" : "none");
			runs[kept]++;
		}
	}
	printf("fused long jobs (%s): %u bursts with them fused, %u without\n", form, runs[1],
	       runs[0]);
	VT_EXPECT(runs[0] > 0 && runs[1] > 0, "%s: both ways ran (%u, %u)", form, runs[0],
		  runs[1]);
}

static void
test_fused_long(void)
{
	struct vecsec_tune t;
	struct bkeys ks;
	uint64_t seed = vt_seed() ^ 0x10e6;
	const char *form;
	bool vl_was;

	if (vecsec_isa_cap() >= VECSEC_ISA_AVX512 && !require_cpu())
		return;
	if (!fused_expected(&form)) {
		printf("fused long jobs: no fused kernel at this run's level (%s)\n", vt_isa());
		return;
	}
	t = *vecsec_tune();
	printf("fused long jobs: this CPU's tuning (%s) takes them to %zu B (16 lanes), %zu B "
	       "(8); forced to %d\n", t.cpu, t.fused_x16_max, t.fused_x8_max, SMALL_LONG_MAX);
	t.fused_x16_max = SMALL_LONG_MAX;
	t.fused_x8_max = SMALL_LONG_MAX;
	t.lanes_mixed_max = SIZE_MAX;
	t.lanes_mixed_max_x8 = 0;
	vecsec_tune_force(&t);
	/* every length here in the lanes (a pinned crossover: no mixed-burst bound either) */
	vecsec_lanes_set_crossover(SMALL_LONG_MAX);
	bkeys_init(&ks, seed, 17);
	vecsec_lanes_count_fused(true);
	fill = 0;
	long_bursts(&ks, seed, form);
	if (vt_avx2_plain_begin("fused (long jobs)", &vl_was)) {
		long_bursts(&ks, seed ^ 0x5eed, "avx2");
		vt_avx2_plain_end(vl_was);
	}
	fill = FILL;
	vecsec_lanes_reset_crossover();
	vecsec_tune_force(NULL);
	vecsec_aead_key_wipe(&ks.k[0]);
	vecsec_aead_key_wipe(&ks.k[1]);
	VT_EXPECT(vecsec_chachapoly_small_burn_short() == 0,
		  "the stack wipe fell short of the kernel's frame");
}

static void
test_fused_bursts(void)
{
	struct bkeys ks;
	uint64_t seed = vt_seed();
	bool was = vecsec_lanes_set_fused(true), vl_was;

	VT_EXPECT(was, "the fused kernel on by default");
	if (vecsec_isa_cap() >= VECSEC_ISA_AVX512)
		(void)require_cpu();
	bkeys_init(&ks, seed, 11);
	/* at the AVX2 level: the VL form by default on a CPU with VL, then the plain form */
	bursts_on_off(&ks, seed, vecsec_isa_cap() != VECSEC_ISA_AVX2 ? NULL :
				  vecsec_chacha_avx2_vl_cpu() ? "avx2vl" : "avx2");
	if (vt_avx2_plain_begin("fused", &vl_was)) {
		bursts_on_off(&ks, seed ^ 0x5eed, "avx2");
		vt_avx2_plain_end(vl_was);
	}
	/*
	 * At AVX-512 the groups of 8 or fewer beside 16-lane ones (FILL + g,
	 * g <= 8) take the 8-lane kernel where the CPU's tuning says so
	 * (fused_narrow_groups): run them the other way too, so that both
	 * kernels ran for those groups whatever this CPU's entry holds.
	 */
	if (vecsec_isa_cap() >= VECSEC_ISA_AVX512 && cpu_has_fused()) {
		struct vecsec_tune flip = *vecsec_tune();

		flip.fused_narrow_groups = !flip.fused_narrow_groups;
		printf("fused: the bursts again with fused_narrow_groups %s\n",
		       flip.fused_narrow_groups ? "on" : "off");
		for (int t = 0; t < 2; t++) {
			uint64_t before = vecsec_lanes_fused_narrow_groups();
			bool narrow;

			if (t == 1)
				vecsec_tune_force(&flip);
			narrow = vecsec_tune()->fused_narrow_groups;
			if (t == 0)     /* the bursts above, once more, counted */
				bursts_of(&ks, 8, false, seed ^ 0x8a11, "fused, groups of 8 after 16");
			else
				bursts_on_off(&ks, seed ^ 0x7a11, "avx512ifma");
			VT_EXPECT(narrow ? vecsec_lanes_fused_narrow_groups() > before :
					   vecsec_lanes_fused_narrow_groups() == before,
				  "fused_narrow_groups %s: the 8-lane kernel ran %llu times beside the "
				  "16-lane one", narrow ? "on" : "off",
				  (unsigned long long)(vecsec_lanes_fused_narrow_groups() - before));
		}
		vecsec_tune_force(NULL);
	}
	vecsec_aead_key_wipe(&ks.k[0]);
	vecsec_aead_key_wipe(&ks.k[1]);
	VT_EXPECT(vecsec_chachapoly_small_burn_short() == 0,
		  "the stack wipe fell short of the kernel's frame");
}

/* ---- uniform bursts (chachapoly_burst.c small_uniform()) ---- */

#define UMAX 48

struct ujob {
	uint8_t raw[32], nonce[24], aad[SMALL_AAD + 1], tag[16];
	struct vecsec_aead_key k;
	uint8_t *pt, *ct, *back;
	size_t off, len;
	int alg;        /* 0 ChaCha20, 1 XChaCha20 */
};

/*
 * One burst of n ChaCha20 jobs of `blocks` ChaCha20 blocks each (lengths
 * at random within them, AAD 0..SMALL_AAD, each its own key, in place or
 * not at odd offsets); variant 1: job n/2 is XChaCha20, 2: the last job's
 * AAD is SMALL_AAD + 1, 3: job 0 has one block more. Seal, then open with
 * one job forged: the ciphertext and tags == the one-shot API == the
 * oracle, the plaintext back, the forged job's output zeroed. The burst
 * went straight to the fused kernel (the counter grew) exactly where
 * want says, where want is 0 or 1 (-1: not checked).
 */
static void
uniform_burst(unsigned int n, size_t blocks, int variant, bool in_place, uint64_t seed,
	      int want, const char *cfg)
{
	static struct ujob u[UMAX];
	struct vecsec_aead_job jobs[UMAX], *jp[UMAX];
	unsigned int forged = (unsigned int)(seed % n);
	uint64_t st = seed;

	for (unsigned int i = 0; i < n; i++) {
		struct ujob *x = &u[i];
		size_t b = blocks + (variant == 3 && i == 0 && blocks < SMALL_MAX / 64);
		size_t nl;

		x->len = b == 0 ? 0 : 64 * (b - 1) + 1 + vt_below(&st, 64);
		x->off = 1 + (seed + 5 * i) % 15;
		x->alg = variant == 1 && i == n / 2;
		nl = x->alg ? 24 : 12;
		vt_rand(x->raw, 32, vt_next(&st));
		VT_EXPECT(vecsec_aead_key_init(&x->k, x->alg ? VECSEC_AEAD_XCHACHA20_POLY1305 :
					       VECSEC_AEAD_CHACHA20_POLY1305, x->raw, 32) == 0,
			  "key init");
		x->pt = malloc(x->off + x->len + 1);
		x->ct = malloc(x->off + x->len + 1);
		x->back = malloc(x->off + x->len + 2);
		vt_rand(x->pt + x->off, x->len, vt_next(&st));
		vt_rand(x->nonce, sizeof(x->nonce), vt_next(&st));
		vt_rand(x->aad, sizeof(x->aad), vt_next(&st));
		seal_job(&jobs[i], &x->k, x->nonce, nl, x->aad,
			 variant == 2 && i == n - 1 ? SMALL_AAD + 1 : vt_below(&st, SMALL_AAD + 1),
			 x->pt + x->off, x->ct + x->off + 1, x->len, x->tag, in_place);
		jp[i] = &jobs[i];
	}
	for (int dir = 0; dir < 2; dir++) {
		uint64_t before = vecsec_lanes_uniform_bursts();

		VT_EXPECT(vecsec_aead_burst(jp, n) == n, "%s burst", cfg);
		if (want >= 0)
			VT_EXPECT((vecsec_lanes_uniform_bursts() > before) == (want == 1),
				  "%s %s: went straight to the fused kernel %llu times, expected %s",
				  cfg, dir ? "open" : "seal",
				  (unsigned long long)(vecsec_lanes_uniform_bursts() - before),
				  want ? "once" : "never");
		for (unsigned int i = 0; i < n && dir == 0; i++) {
			struct ujob *x = &u[i];

			check_sealed(&x->k, x->raw, x->alg, &jobs[i], x->pt + x->off,
				     x->ct + x->off + 1, x->tag, cfg);
			open_job(&jobs[i], x->ct + x->off + 1, x->back, x->off + 2, in_place);
		}
		if (dir == 0)
			u[forged].tag[seed % 16] ^= (uint8_t)(1u << (seed % 8));
	}
	for (unsigned int i = 0; i < n; i++) {
		struct ujob *x = &u[i];

		check_opened(&jobs[i], x->back, x->off + 2, x->pt + x->off, i == forged, cfg);
		vecsec_aead_key_wipe(&x->k);
		free(x->pt);
		free(x->ct);
		free(x->back);
	}
}

/*
 * Bursts of 8 to 48 jobs of one ChaCha20 block count, 0 to 8 blocks (0 to
 * SMALL_MAX bytes), whole ChaCha widths and not (17, 24 at AVX-512: a last
 * group of 1 one by one, of 8 on the 8-lane kernel): at a level with a
 * fused kernel they go straight to it, and nothing else: not a burst
 * with one XChaCha20 job, one AAD past SMALL_AAD, one job a block longer,
 * nor with the knob off, nor with the staged path's limit below the
 * jobs; every one of them gives the right bytes.
 */
static void
test_fused_uniform(void)
{
	static const unsigned int ns[] = { 8, 16, 17, 24, 32, 48 };
	const char *form;
	bool expect, vl_was, was = vecsec_lanes_set_uniform(true);
	uint64_t seed = vt_seed() ^ 0x0f1f;
	unsigned int straight = 0;

	VT_EXPECT(was, "uniform bursts straight to the fused kernel by default");
	if (vecsec_isa_cap() >= VECSEC_ISA_AVX512 && !require_cpu())
		return;
	expect = fused_expected(&form);
	vecsec_lanes_count_fused(true);
	for (int knob = 1; knob >= 0; knob--) {
		vecsec_lanes_set_uniform(knob == 1);
		for (unsigned int x = 0; x < VT_ARRAY_SIZE(ns); x++) {
			struct lanes_choice c;
			unsigned int n = ns[x];

			vecsec_lanes_choose(n, &c);
			for (size_t blocks = 0; blocks <= SMALL_MAX / 64; blocks++) {
				for (int v = 0; v < 4; v++) {
					/* n = 8 at AVX-512: the 8-lane kernel where the tuning has one */
					int want = !expect || knob == 0 || v != 0 ? 0 :
						   n < 16 && c.chacha_lanes == 8 &&
						   vecsec_isa_cap() >= VECSEC_ISA_AVX512 ? -1 : 1;
					char cfg[128];

					if (v == 3 && blocks == SMALL_MAX / 64)
						continue;
					snprintf(cfg, sizeof(cfg), "uniform (%s, knob %s): %u jobs of %zu "
						 "blocks, variant %d", form, knob ? "on" : "off", n, blocks,
						 v);
					uniform_burst(n, blocks, v, (blocks + v) % 2 == 0,
						      seed + 7919 * blocks + 131 * n + (uint64_t)v, want,
						      cfg);
					straight += want == 1;
				}
			}
		}
	}
	vecsec_lanes_set_uniform(true);
	/* the plain AVX2 kernel (the VL knob off) likewise */
	if (vt_avx2_plain_begin("fused (uniform bursts)", &vl_was)) {
		for (size_t blocks = 0; blocks <= SMALL_MAX / 64; blocks++) {
			char cfg[96];

			snprintf(cfg, sizeof(cfg), "uniform (avx2): 16 jobs of %zu blocks", blocks);
			uniform_burst(16, blocks, 0, blocks % 2 == 0, seed ^ (0xa2 + blocks), 1, cfg);
		}
		vt_avx2_plain_end(vl_was);
	}
	/* the staged path's limit below the jobs: the general scheduler takes them */
	vecsec_lanes_set_staged_max(100);
	uniform_burst(16, 2, 0, true, seed ^ 0x5a, 0, "uniform, staged limit 100 B, 128 B jobs");
	uniform_burst(16, 1, 0, false, seed ^ 0x5b, expect ? 1 : 0,
		      "uniform, staged limit 100 B, 64 B jobs");
	vecsec_lanes_set_staged_max(FAST_MAX);
	printf("uniform bursts (%s): %u went straight to the fused kernel\n", form, straight);
	VT_EXPECT(!expect || straight > 0, "no uniform burst went straight (%s)", form);
	VT_EXPECT(vecsec_chachapoly_small_burn_short() == 0,
		  "the stack wipe fell short of the kernel's frame");
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_fused_kernel),
		VT_TEST(test_fused_bursts),
		VT_TEST(test_fused_x8_at_avx512),
		VT_TEST(test_fused_long),
		VT_TEST(test_fused_uniform),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	return vt_main("fused", tests, VT_ARRAY_SIZE(tests));
}
