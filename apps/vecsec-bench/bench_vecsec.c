/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-bench: libvecsec itself, one impl per ISA level (pinned with
 * vecsec_force_isa() before each use). AEADs go through the public AEAD API
 * (vecsec_aead_seal/open, and vecsec_aead_burst in burst mode) when it has
 * the algorithm, else through the primitive's own API (vecsec_aria.h);
 * ChaCha20, Poly1305, ARIA-CTR/ECB, Adiantum and NHPoly1305 through theirs.
 * A primitive whose public header this libvecsec lacks is n/a, never faked.
 *
 * Variants (bench_vecsec_variant(): --two-pass, --lanes, --crossover,
 * --staged, --novl, --mixed) pin one path of (X)ChaCha20-Poly1305 with
 * lib/'s test and benchmark knobs (chachapoly_knobs.h, the one internal
 * header a program outside lib/ may use): the two-pass code instead of the
 * stitched kernel, a pair of lane widths, per-job bursts, bursts that never
 * leave the lanes, the staged path on or off, the AVX2 lane kernels' plain
 * forms, the mixed-burst bound off. Every impl's select() sets all
 * knobs, so one variant never leaks into the next measurement.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "bench.h"
#ifdef BENCH_HAVE_VECSEC_AEAD
#include "chachapoly/chachapoly_knobs.h"
#endif

#if __has_include("vecsec/vecsec_chacha.h")
#include "vecsec/vecsec_chacha.h"
#define VS_HAVE_CHACHA 1
#endif
#if __has_include("vecsec/vecsec_poly1305.h")
#include "vecsec/vecsec_poly1305.h"
#define VS_HAVE_POLY1305 1
#endif
#if __has_include("vecsec/vecsec_aria.h")
#include "vecsec/vecsec_aria.h"
#define VS_HAVE_ARIA 1
#endif
#if __has_include("vecsec/vecsec_adiantum.h")
#include "vecsec/vecsec_adiantum.h"
#define VS_HAVE_ADIANTUM 1
#endif

/* A variant's knobs (priv of its impl), or NULL for plain vecsec. */
static const struct bench_vecsec_knobs *
knobs_of(const struct bench_impl *im)
{
	return im->priv;
}

struct vs_ctx {
	struct vecsec_aead_key aead;   /* first: 64-byte aligned */
	bool use_aead;                 /* the AEAD API has this algorithm */
#ifdef VS_HAVE_ARIA
	struct vecsec_aria_key aria;
	struct vecsec_aria_gcm_key gcm;
#endif
#ifdef VS_HAVE_ADIANTUM
	struct vecsec_adiantum_key adiantum;
	struct vecsec_nhpoly1305_key nh;
#endif
	uint8_t raw[32];               /* ChaCha20, Poly1305: the key itself */
	const struct bench_case *c;
};

/* Which algorithms vecsec_aead_key_init() accepts: probed once. */
static bool aead_has[CASE_COUNT];
static bool aead_probed;

#ifdef BENCH_HAVE_VECSEC_AEAD
static enum vecsec_aead_alg
vs_alg(const struct bench_case *c)
{
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
		return VECSEC_AEAD_CHACHA20_POLY1305;
	case CASE_XCHACHA20_POLY1305:
		return VECSEC_AEAD_XCHACHA20_POLY1305;
	case CASE_ARIA128_GCM:
		return VECSEC_AEAD_ARIA_GCM;
	default:
		return VECSEC_AEAD_NONE;
	}
}
#endif

static void
probe_aead(void)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	struct vecsec_aead_key *k = bench_alloc(sizeof(*k));
	uint8_t key[32] = {0};

	for (unsigned int i = 0; i < CASE_COUNT; i++) {
		const struct bench_case *c = &bench_cases[i];

		aead_has[i] = vs_alg(c) != VECSEC_AEAD_NONE &&
			      vecsec_aead_key_init(k, vs_alg(c), key, c->key_len) == 0;
	}
	vecsec_aead_key_wipe(k);
	free(k);
#endif
	aead_probed = true;
}

/* Has this libvecsec the case's primitive (single messages)? */
static bool
has_primitive(const struct bench_case *c)
{
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
	case CASE_XCHACHA20_POLY1305:
		return aead_has[c->id];
	case CASE_CHACHA20:
#ifdef VS_HAVE_CHACHA
		return true;
#else
		return false;
#endif
	case CASE_POLY1305:
#ifdef VS_HAVE_POLY1305
		return true;
#else
		return false;
#endif
	case CASE_ARIA128_CTR:
	case CASE_ARIA256_CTR:
	case CASE_ARIA128_GCM:
	case CASE_ARIA128_ECB:
#ifdef VS_HAVE_ARIA
		return true;
#else
		return aead_has[c->id];
#endif
	case CASE_ADIANTUM_XCHACHA12:
	case CASE_ADIANTUM_XCHACHA20:
	case CASE_NHPOLY1305:
#ifdef VS_HAVE_ADIANTUM
		return true;
#else
		return false;
#endif
	default:
		return false;
	}
}

bool
bench_vecsec_has(const struct bench_case *c)
{
	if (!aead_probed)
		probe_aead();
	return has_primitive(c);
}

static const char *
vs_lacks(const struct bench_impl *im, const struct bench_case *c, bool burst)
{
	const struct bench_vecsec_knobs *k = knobs_of(im);

	if (!aead_probed)
		probe_aead();
	if (burst && !aead_has[c->id])
		return "vecsec_aead has no such algorithm yet";
	if (k != NULL && c->id != CASE_CHACHA20_POLY1305 && c->id != CASE_XCHACHA20_POLY1305)
		return "a (X)ChaCha20-Poly1305 path only";
	if (k != NULL && k->burst_only && !burst)
		return "a lanes setting: bursts only";
	return has_primitive(c) ? NULL : "not in this libvecsec yet";
}

#ifdef BENCH_HAVE_VECSEC_AEAD
/* The staged path's limit as built, read before any variant changes it. */
static size_t staged_default;
static bool staged_read;
#endif

/*
 * Pin the ISA, then every knob: a variant's values, else the defaults.
 * Returns 0, or -ENOTSUP when a lane width has no kernel under this ISA.
 */
static int
vs_apply(const struct bench_impl *im)
{
	int rc = vecsec_force_isa((enum vecsec_isa)im->isa);
#ifdef BENCH_HAVE_VECSEC_AEAD
	const struct bench_vecsec_knobs *k = knobs_of(im);

	if (rc != 0)
		return rc;
	if (!staged_read) {
		staged_default = vecsec_lanes_staged_max();
		staged_read = true;
	}
	vecsec_chachapoly_set_mode(k != NULL && k->twopass ? CHACHAPOLY_TWOPASS :
				   CHACHAPOLY_AUTO);
	if (k != NULL && k->all_lanes)
		vecsec_lanes_set_crossover(SIZE_MAX);
	else
		vecsec_lanes_reset_crossover();
	vecsec_lanes_set_staged_max(k == NULL || k->staged < 0 ? staged_default :
				    k->staged == 0 ? 0 : SIZE_MAX);
	vecsec_avx2_vl_set(k == NULL || !k->avx2_plain);
	if (k != NULL && k->no_mixed)
		vecsec_lanes_set_mixed_max(SIZE_MAX);
	else
		vecsec_lanes_reset_mixed_max();
	rc = k != NULL ? vecsec_lanes_force(k->chacha_w, k->poly_w) : vecsec_lanes_force(-1, -1);
#endif
	return rc;
}

bool
bench_vecsec_vl_usable(void)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	return vecsec_avx2_vl_usable();
#else
	return false;
#endif
}

static void
vs_select(const struct bench_impl *im)
{
	int rc = vs_apply(im);

	if (rc != 0) {
		fprintf(stderr, "vecsec-bench: selecting %s failed: %d\n", im->name, rc);
		exit(2);
	}
}

/* The kernels dispatch picked now (call after select). */
static const char *
vs_detail(const struct bench_impl *im, const struct bench_case *c)
{
	static char buf[96];
	const char *cha = "?", *poly = "?";

	(void)im;
#ifdef VS_HAVE_CHACHA
	cha = vecsec_chacha_impl_name();
#endif
#ifdef VS_HAVE_POLY1305
	poly = vecsec_poly1305_impl_name();
#endif
	switch (c->id) {
	case CASE_CHACHA20_POLY1305:
	case CASE_XCHACHA20_POLY1305:
		snprintf(buf, sizeof(buf), "chacha:%s poly1305:%s", cha, poly);
		break;
	case CASE_CHACHA20:
		snprintf(buf, sizeof(buf), "chacha:%s", cha);
		break;
	case CASE_POLY1305:
		snprintf(buf, sizeof(buf), "poly1305:%s", poly);
		break;
	case CASE_ADIANTUM_XCHACHA12:
	case CASE_ADIANTUM_XCHACHA20:
	case CASE_NHPOLY1305:
		snprintf(buf, sizeof(buf), "chacha:%s poly1305:%s", cha, poly);
		break;
	default:
#ifdef VS_HAVE_ARIA
		snprintf(buf, sizeof(buf), "aria:%s", vecsec_aria_impl_name());
#else
		snprintf(buf, sizeof(buf), "%s", vecsec_isa_name(vecsec_isa_cap()));
#endif
		break;
	}
	return buf;
}

static bool
vs_init(struct bench_impl *im)
{
	if (!aead_probed)
		probe_aead();
	if (knobs_of(im) != NULL && vs_apply(im) != 0) {
		snprintf(im->version, sizeof(im->version), "no such lanes under %s",
			 vecsec_isa_name((enum vecsec_isa)im->isa));
		return false;
	}
	snprintf(im->version, sizeof(im->version), "libvecsec %s", vecsec_version());
	return true;
}

static void
vs_free(void *p)
{
	struct vs_ctx *x = p;

	if (x == NULL)
		return;
	vecsec_memzero(x, sizeof(*x));
	free(x);
}

static void *
vs_new(const struct bench_impl *im, const struct bench_case *c, const uint8_t *key)
{
	struct vs_ctx *x = bench_alloc(sizeof(*x));
	int rc = -ENOTSUP;

	(void)im;
	x->c = c;
	if (c->key_len <= sizeof(x->raw))
		memcpy(x->raw, key, c->key_len);
#ifdef BENCH_HAVE_VECSEC_AEAD
	if (aead_has[c->id]) {
		rc = vecsec_aead_key_init(&x->aead, vs_alg(c), key, c->key_len);
		x->use_aead = rc == 0;
	}
#endif
	switch (c->id) {
	case CASE_CHACHA20:
	case CASE_POLY1305:
		rc = 0;
		break;
#ifdef VS_HAVE_ARIA
	case CASE_ARIA128_CTR:
	case CASE_ARIA256_CTR:
	case CASE_ARIA128_ECB:
		rc = vecsec_aria_key_init(&x->aria, key, c->key_len);
		break;
	case CASE_ARIA128_GCM:
		if (!x->use_aead)
			rc = vecsec_aria_gcm_key_init(&x->gcm, key, c->key_len);
		break;
#endif
#ifdef VS_HAVE_ADIANTUM
	case CASE_ADIANTUM_XCHACHA12:
		rc = vecsec_adiantum_key_init(&x->adiantum, key, c->key_len,
					      VECSEC_ADIANTUM_XCHACHA12);
		break;
	case CASE_ADIANTUM_XCHACHA20:
		rc = vecsec_adiantum_key_init(&x->adiantum, key, c->key_len,
					      VECSEC_ADIANTUM_XCHACHA20);
		break;
	case CASE_NHPOLY1305:
		rc = vecsec_nhpoly1305_key_init(&x->nh, key, c->key_len);
		break;
#endif
	default:
		break;
	}
	if (rc == 0)
		return x;
	vs_free(x);
	return NULL;
}

static int
vs_run(void *p, enum bench_op op, uint8_t *out, uint8_t *tag, const uint8_t *in, size_t len,
       const uint8_t *nonce, const uint8_t *aad)
{
	struct vs_ctx *x = p;
	const struct bench_case *c = x->c;

#ifdef BENCH_HAVE_VECSEC_AEAD
	if (x->use_aead) {
		if (op == BENCH_ENC)
			return vecsec_aead_seal(&x->aead, out, tag, c->tag_len, in, len, nonce,
						c->nonce_len, aad, c->aad_len);
		return vecsec_aead_open(&x->aead, out, in, len, tag, c->tag_len, nonce,
					c->nonce_len, aad, c->aad_len);
	}
#endif
	(void)op, (void)out, (void)tag, (void)in, (void)len, (void)nonce, (void)aad;
	switch (c->id) {
#ifdef VS_HAVE_CHACHA
	case CASE_CHACHA20:
		return vecsec_chacha_xor(out, in, len, x->raw, nonce, 1, 20);
#endif
#ifdef VS_HAVE_POLY1305
	case CASE_POLY1305:
		return vecsec_poly1305(tag, in, len, x->raw);
#endif
#ifdef VS_HAVE_ARIA
	case CASE_ARIA128_CTR:
	case CASE_ARIA256_CTR:
		return vecsec_aria_ctr32_xor(&x->aria, out, in, len, nonce);
	case CASE_ARIA128_ECB:
		return vecsec_aria_ecb_encrypt(&x->aria, out, in, len);
	case CASE_ARIA128_GCM:
		if (op == BENCH_ENC)
			return vecsec_aria_gcm_seal(&x->gcm, out, tag, c->tag_len, in, len, nonce,
						    c->nonce_len, aad, c->aad_len);
		return vecsec_aria_gcm_open(&x->gcm, out, in, len, tag, c->tag_len, nonce,
					    c->nonce_len, aad, c->aad_len);
#endif
#ifdef VS_HAVE_ADIANTUM
	case CASE_ADIANTUM_XCHACHA12:
	case CASE_ADIANTUM_XCHACHA20:
		if (op == BENCH_DEC)
			return vecsec_adiantum_decrypt(&x->adiantum, out, in, len, nonce);
		return vecsec_adiantum_encrypt(&x->adiantum, out, in, len, nonce);
	case CASE_NHPOLY1305:
		return vecsec_nhpoly1305(tag, in, len, &x->nh);
#endif
	default:
		return -ENOTSUP;
	}
}

static unsigned int
vs_burst(const struct bench_case *c, enum bench_op op, struct bench_msg *msgs, unsigned int n)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	static struct vecsec_aead_job jobs[VECSEC_MAX_BURST];
	static struct vecsec_aead_job *ptrs[VECSEC_MAX_BURST];
	unsigned int bad = 0;

	if (n > VECSEC_MAX_BURST)
		return n;
	for (unsigned int i = 0; i < n; i++) {
		struct vs_ctx *x = msgs[i].ctx;

		if (!x->use_aead)
			return n;
		jobs[i] = (struct vecsec_aead_job){
			.key = &x->aead,
			.dir = op == BENCH_ENC ? VECSEC_AEAD_SEAL : VECSEC_AEAD_OPEN,
			.status = VECSEC_JOB_PENDING,
			.nonce = msgs[i].nonce, .nonce_len = c->nonce_len,
			.aad = msgs[i].aad, .aad_len = c->aad_len,
			.len = msgs[i].len, .in = msgs[i].in, .out = msgs[i].out,
			.tag = msgs[i].tag, .tag_len = c->tag_len,
		};
		ptrs[i] = &jobs[i];
	}
	if (vecsec_aead_burst(ptrs, n) != n)
		return n;
	for (unsigned int i = 0; i < n; i++) {
		msgs[i].status = jobs[i].status != VECSEC_JOB_OK;
		bad += msgs[i].status != 0;
	}
	return bad;
#else
	(void)c, (void)op, (void)msgs;
	return n;
#endif
}

#ifdef BENCH_HAVE_VECSEC_AEAD
/* "x16-avx512" as "avx512 x16"; names without a width ("per-job") as they are */
static void
lane_name(char *buf, size_t len, const char *prim, const char *name)
{
	const char *dash = strchr(name, '-');

	if (name[0] == 'x' && dash != NULL)
		snprintf(buf, len, "%s %s %.*s", prim, dash + 1, (int)(dash - name), name);
	else
		snprintf(buf, len, "%s %s", prim, name);
}
#endif

const char *
bench_vecsec_lanes(unsigned int n)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	static char buf[96];
	char cha[40], poly[48];
	struct lanes_choice lc;

	vecsec_lanes_choose(n, &lc);
	lane_name(cha, sizeof(cha), "chacha", lc.chacha_name);
	lane_name(poly, sizeof(poly), "poly1305", lc.poly_name);
	snprintf(buf, sizeof(buf), "%s, %s", cha, poly);
	return buf;
#else
	(void)n;
	return NULL;
#endif
}

struct bench_impl *
bench_vecsec_impl(int isa)
{
	struct bench_impl *im = calloc(1, sizeof(*im));
	char *name = malloc(32);

	if (im == NULL || name == NULL) {
		fprintf(stderr, "vecsec-bench: out of memory\n");
		exit(2);
	}
	snprintf(name, 32, "vecsec-%s", vecsec_isa_name((enum vecsec_isa)isa));
	im->name = name;
	im->is_vecsec = true;
	im->isa = isa;
	im->init = vs_init;
	im->lacks = vs_lacks;
	im->select = vs_select;
	im->detail = vs_detail;
	im->ctx_new = vs_new;
	im->ctx_free = vs_free;
	im->run = vs_run;
	im->burst = vs_burst;
	return im;
}

struct bench_impl *
bench_vecsec_variant(int isa, const struct bench_vecsec_knobs *k)
{
#ifdef BENCH_HAVE_VECSEC_AEAD
	struct bench_impl *im = bench_vecsec_impl(isa);

	free((char *)(uintptr_t)im->name);
	im->name = k->name;
	im->priv = (void *)(uintptr_t)k;
	return im;
#else
	(void)isa, (void)k;
	return NULL;
#endif
}
