/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ChaCha20-Poly1305 bursts in lanes (lib/chachapoly, lib/lanes) and
 * the lane kernels:
 *   - every ChaCha lane kernel (4/8/16 lanes) the CPU can run == the scalar
 *     reference per lane (20/12/8 rounds, random keys, nonces, counters,
 *     blocks and active masks; inactive lanes untouched);
 *   - every Poly1305 lane kernel (4/8 lanes) == the reference per lane
 *     (random r, h and blocks, all-ones corners);
 *   - bursts of 0, 1, L-1, L, L+1, 2L+1, 64, 128, 256 jobs for every ChaCha
 *     width L and every Poly1305 width: ChaCha20-Poly1305 and XChaCha20-
 *     Poly1305, random keys, nonces, lengths 0..2048 and a few large ones,
 *     AAD 0..64 (8 and 12 often: ESP; now and then up to 300), seal and
 *     open, in place and out of place, linear and scatter-gather (1-byte
 *     segments too): every job == the one-shot API == OpenSSL / libsodium;
 *     forged jobs (tag, AAD or ciphertext bit) fail alone with zeroed
 *     output; invalid jobs are VECSEC_JOB_INVALID and write nothing; with
 *     the staged path for small linear jobs on and off;
 *   - the width chosen per burst; under the scalar ISA (no lanes) bursts
 *     still pass through the per-job fallback;
 *   - mixed bursts (a gateway's IMIX as ESP payloads, every rotation) with
 *     the mixed-burst bound off, at 640 and at 0, every width;
 *   - NULL for every empty buffer (AAD, input, output; vt_null.h) in every
 *     width configuration, staged path on and off, crossover at 0 and at
 *     its maximum, and the one-shot calls in every mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vt.h"
#include "vt_aead.h"
#include "vt_null.h"
#include "vecsec/vecsec_aead.h"
#include "chacha/chacha_internal.h"
#include "poly1305/poly1305_internal.h"
#include "chachapoly/chachapoly_burst.h"
#include "chachapoly/chachapoly_knobs.h"

static bool slow;

/*
 * ---- the lane kernels this build has (the entries of each primitive's
 * table that have one; the Poly1305 reference's lane form is the
 * bursts' scalar fallback, tested through them), and whether the CPU
 * runs them now ----
 */

static const struct chacha_impl *chacha_lane_impls[8];
static const struct poly1305_impl *poly_lane_impls[8];

static void
find_lane_kernels(void)
{
	size_t n = 0;

	const struct lane_set *vl = vecsec_burst_lanes_at(VECSEC_ISA_AVX2);

	for (size_t i = 0; vecsec_chacha_impls[i] != NULL && n < 7; i++)
		if (vecsec_chacha_impls[i]->xor_lanes != NULL)
			chacha_lane_impls[n++] = vecsec_chacha_impls[i];
	/* the AVX2 kernels' VL forms (bursts' copies of the AVX2 entries), where the CPU has them */
	for (unsigned int i = 0; vecsec_avx2_vl_usable() && i < vl->nc && n < 7; i++)
		if (strstr(vl->chacha[i]->lanes_name, "avx2vl") != NULL)
			chacha_lane_impls[n++] = vl->chacha[i];
	n = 0;
	for (size_t i = 0; vecsec_poly1305_impls[i] != NULL && n < 7; i++)
		if (vecsec_poly1305_impls[i]->blocks_lanes != NULL &&
		    vecsec_poly1305_impls[i] != &vecsec_poly1305_impl_ref)
			poly_lane_impls[n++] = vecsec_poly1305_impls[i];
	for (unsigned int i = 0; vecsec_avx2_vl_usable() && i < vl->np && n < 7; i++)
		if (strstr(vl->poly[i]->lanes_name, "avx2vl") != NULL)
			poly_lane_impls[n++] = vl->poly[i];
}

static bool
usable(enum vecsec_isa isa, uint64_t needs)
{
	return isa <= vecsec_isa_cap() && (vecsec_cpu_features() & needs) == needs;
}

/* ---- ChaCha lane kernels vs the reference ---- */

#define KBLOCKS 9          /* blocks per lane buffer */

static void
test_chacha_lane_kernels(void)
{
	uint64_t st = vt_seed() ^ 0xc4ac4a;
	static const uint32_t rounds[] = { 20, 12, 8 };

	for (size_t k = 0; chacha_lane_impls[k] != NULL; k++) {
		const struct chacha_impl *im = chacha_lane_impls[k];
		unsigned int L = im->lanes;
		int iters = slow ? 400 : 60;

		if (!usable(im->isa, im->needs))
			continue;
		for (int it = 0; it < iters; it++) {
			struct chacha_lanes l;
			struct chacha_state ref[VECSEC_MAX_LANES];
			uint8_t in[VECSEC_MAX_LANES][KBLOCKS * 64], out[VECSEC_MAX_LANES][KBLOCKS * 64];
			uint8_t want[VECSEC_MAX_LANES][KBLOCKS * 64];
			uint32_t r = rounds[it % 3], nb = UINT32_MAX;
			bool inplace = it % 4 == 1;

			memset(&l, 0x5c, sizeof(l));
			l.rounds = r;
			l.active = it % 5 == 0 ? (uint32_t)vt_next(&st) & ((1u << L) - 1) :
				   (1u << L) - 1;
			vt_rand(in, sizeof(in), vt_next(&st));
			memset(out, 0x33, sizeof(out));
			memcpy(want, out, sizeof(want));
			for (unsigned int i = 0; i < L; i++) {
				uint8_t key[32], nonce[12];
				uint32_t ctr = (uint32_t)vt_next(&st);

				/* counters near 2^32 too (the lane stops before the wrap) */
				if (it % 7 == 3)
					ctr = UINT32_MAX - KBLOCKS;
				vt_rand(key, 32, vt_next(&st));
				vt_rand(nonce, 12, vt_next(&st));
				chacha_state_init_ietf(&ref[i], key, nonce, ctr, r);
				for (int w = 0; w < 8; w++)
					l.key[w][i] = ref[i].x[4 + w];
				l.ctr[i] = ctr;
				for (int w = 0; w < 3; w++)
					l.nonce[w][i] = ref[i].x[13 + w];
				l.in[i] = in[i];
				l.out[i] = inplace ? in[i] : out[i];
				l.blocks_left[i] = 1 + vt_below(&st, KBLOCKS);
				if ((l.active >> i) & 1 && l.blocks_left[i] < nb)
					nb = l.blocks_left[i];
			}
			if (nb == UINT32_MAX)
				nb = 3;
			if (inplace)
				memcpy(want, in, sizeof(want));
			for (unsigned int i = 0; i < L; i++)
				if ((l.active >> i) & 1)
					vecsec_chacha_xor_blocks_ref(want[i], in[i], nb * 64, &ref[i]);
			{
				struct chacha_lanes before = l;

				im->xor_lanes(&l, nb);
				for (unsigned int i = 0; i < L; i++) {
					bool on = (l.active >> i) & 1;
					const uint8_t *got = inplace ? in[i] : out[i];

					VT_EXPECT_MEM(got, want[i], sizeof(want[i]),
						      "%s lane %u rounds %u nb %u on %d", im->lanes_name, i,
						      r, nb, on);
					VT_EXPECT(l.ctr[i] == (on ? ref[i].x[12] : before.ctr[i]) &&
						  l.blocks_left[i] == before.blocks_left[i] -
						  (on ? nb : 0) &&
						  l.in[i] == before.in[i] + (on ? nb * 64 : 0) &&
						  l.out[i] == before.out[i] + (on ? nb * 64 : 0),
						  "%s lane %u state after the call", im->lanes_name, i);
				}
				/* lanes beyond the kernel's width are never touched */
				for (unsigned int i = L; i < VECSEC_MAX_LANES; i++)
					VT_EXPECT(l.ctr[i] == before.ctr[i] &&
						  l.blocks_left[i] == before.blocks_left[i],
						  "%s touched lane %u", im->lanes_name, i);
			}
		}
		printf("\n    chacha lanes %s: ok", im->lanes_name);
	}
}

/*
 * The byte-exact kernels (xor_lanes_bytes) vs the reference: random lengths
 * 0..KBLOCKS*64 per lane, some lanes off, in place or not, rounds 20/12/8.
 * Active lanes: block ctr's keystream in ks0, then exactly bytes[i] bytes
 * XORed (the byte after them untouched), or with ks0 NULL the data from
 * counter ctr on; inactive lanes: nothing written; the struct unchanged.
 */
static void
test_chacha_lane_bytes(void)
{
	uint64_t st = vt_seed() ^ 0xb17e5;
	static const uint32_t rounds[] = { 20, 12, 8 };
	const size_t cap = KBLOCKS * 64;

	for (size_t k = 0; chacha_lane_impls[k] != NULL; k++) {
		const struct chacha_impl *im = chacha_lane_impls[k];
		unsigned int L = im->lanes;
		int iters = slow ? 400 : 60;

		if (im->xor_lanes_bytes == NULL || !usable(im->isa, im->needs))
			continue;
		for (int it = 0; it < iters; it++) {
			struct chacha_lanes l, before;
			struct chacha_state ref;
			uint8_t in[VECSEC_MAX_LANES][KBLOCKS * 64 + 1];
			uint8_t out[VECSEC_MAX_LANES][KBLOCKS * 64 + 1];
			uint8_t want[KBLOCKS * 64 + 1], ks[VECSEC_MAX_LANES][64], wks[64];
			uint8_t *ks0[VECSEC_MAX_LANES];
			uint32_t bytes[VECSEC_MAX_LANES], r = rounds[it % 3];
			bool inplace = it % 4 == 1, noks = it % 3 == 2;    /* ks0 NULL */
			uint8_t key[VECSEC_MAX_LANES][32], nonce[VECSEC_MAX_LANES][12];

			memset(&l, 0x5c, sizeof(l));
			l.rounds = r;
			l.active = it % 5 == 0 ? (uint32_t)vt_next(&st) & ((1u << L) - 1) :
				   (1u << L) - 1;
			vt_rand(in, sizeof(in), vt_next(&st));
			memset(out, 0x33, sizeof(out));
			memset(ks, 0x77, sizeof(ks));
			for (unsigned int i = 0; i < L; i++) {
				vt_rand(key[i], 32, vt_next(&st));
				vt_rand(nonce[i], 12, vt_next(&st));
				chacha_state_init_ietf(&ref, key[i], nonce[i], 0, r);
				l.ctr[i] = vt_below(&st, 1000);
				for (int w = 0; w < 8; w++)
					l.key[w][i] = ref.x[4 + w];
				for (int w = 0; w < 3; w++)
					l.nonce[w][i] = ref.x[13 + w];
				l.in[i] = in[i];
				l.out[i] = inplace ? in[i] : out[i];
				bytes[i] = it % 9 == 4 ? (uint32_t)(i * 64 % (cap + 64)) :
					   vt_below(&st, (uint32_t)cap + 1);
				ks0[i] = ks[i];
			}
			before = l;
			{
				uint8_t orig[VECSEC_MAX_LANES][KBLOCKS * 64 + 1];

				memcpy(orig, in, sizeof(orig));
				im->xor_lanes_bytes(&l, bytes, noks ? NULL : ks0);
				VT_EXPECT(memcmp(&l, &before, sizeof(l)) == 0, "%s: struct changed",
					  im->lanes_name);
				for (unsigned int i = 0; i < L; i++) {
					bool on = (l.active >> i) & 1;
					const uint8_t *got = inplace ? in[i] : out[i];

					chacha_state_init_ietf(&ref, key[i], nonce[i], l.ctr[i], r);
					memset(wks, 0, 64);
					if (!noks)
						vecsec_chacha_xor_blocks_ref(wks, wks, 64, &ref);
					memcpy(want, inplace ? orig[i] : out[i], sizeof(want));
					if (!inplace)
						memset(want, 0x33, sizeof(want));
					if (on)
						vecsec_chacha_xor_blocks_ref(want, orig[i],
									     bytes[i], &ref);
					VT_EXPECT_MEM(got, want, cap + 1,
						      "%s lane %u bytes %u on %d it %d",
						      im->lanes_name, i, bytes[i], on, it);
					if (on && !noks)
						VT_EXPECT_MEM(ks[i], wks, 64,
							      "%s lane %u ks0 it %d", im->lanes_name, i,
							      it);
					else
						VT_EXPECT(ks[i][0] == 0x77 && ks[i][63] == 0x77,
							  "%s lane %u off wrote ks0", im->lanes_name, i);
				}
			}
		}
	}
}

/* ---- Poly1305 lane kernels vs the reference ---- */

#define PBLOCKS 12

static void
test_poly_lane_kernels(void)
{
	uint64_t st = vt_seed() ^ 0x9017;

	for (size_t k = 0; poly_lane_impls[k] != NULL; k++) {
		const struct poly1305_impl *im = poly_lane_impls[k];
		unsigned int L = im->lanes;
		int iters = slow ? 2000 : 300;

		if (!usable(im->isa, im->needs))
			continue;
		for (int it = 0; it < iters; it++) {
			struct poly1305_lanes l;
			struct poly1305_state ref[VECSEC_MAX_LANES];
			uint8_t msg[VECSEC_MAX_LANES][PBLOCKS * 16];
			uint32_t nb = UINT32_MAX;
			bool ones = it % 11 == 5;

			memset(&l, 0x5c, sizeof(l));
			l.active = it % 5 == 0 ? (uint32_t)vt_next(&st) & ((1u << L) - 1) :
				   (1u << L) - 1;
			vt_rand(msg, sizeof(msg), vt_next(&st));
			if (ones)
				memset(msg, 0xff, sizeof(msg));
			for (unsigned int i = 0; i < L; i++) {
				uint8_t rk[16];

				vt_rand(rk, 16, vt_next(&st));
				if (ones)
					memset(rk, 0xff, 16);
				vecsec_poly1305_core_init(&ref[i], rk);
				/* a running h: absorb a few blocks first */
				vecsec_poly1305_blocks_ref(&ref[i], msg[(i + 1) % L], it % 3, 1);
				for (int w = 0; w < 3; w++) {
					l.h[w][i] = ref[i].h[w];
					l.r[w][i] = ref[i].r[w];
				}
				l.in[i] = msg[i];
				l.blocks_left[i] = 1 + vt_below(&st, PBLOCKS);
				if ((l.active >> i) & 1 && l.blocks_left[i] < nb)
					nb = l.blocks_left[i];
			}
			if (nb == UINT32_MAX)
				nb = 2;
			{
				struct poly1305_lanes before = l;

				im->blocks_lanes(&l, nb);
				for (unsigned int i = 0; i < L; i++) {
					bool on = (l.active >> i) & 1;
					struct poly1305_state got;
					uint8_t a[16], b[16];

					memset(&got, 0, sizeof(got));
					for (int w = 0; w < 3; w++)
						got.h[w] = l.h[w][i];
					if (on)
						vecsec_poly1305_blocks_ref(&ref[i], msg[i], nb, 1);
					vecsec_poly1305_core_emit(&got, a);
					vecsec_poly1305_core_emit(&ref[i], b);
					VT_EXPECT_MEM(a, b, 16, "%s lane %u nb %u on %d it %d", im->lanes_name,
						      i, nb, on, it);
					VT_EXPECT(got.h[0] < (UINT64_C(1) << 45) &&
						  got.h[1] < (UINT64_C(1) << 45) &&
						  got.h[2] < (UINT64_C(1) << 43),
						  "%s lane %u h limbs too large", im->lanes_name, i);
					VT_EXPECT(on || (memcmp(l.h[0] + i, before.h[0] + i, 8) == 0 &&
							 l.in[i] == before.in[i]),
						  "%s touched inactive lane %u", im->lanes_name, i);
					VT_EXPECT(l.blocks_left[i] == before.blocks_left[i] -
						  (on ? nb : 0) &&
						  l.in[i] == before.in[i] + (on ? nb * 16 : 0),
						  "%s lane %u pointers", im->lanes_name, i);
				}
			}
		}
		printf("\n    poly1305 lanes %s: ok", im->lanes_name);
	}
}

/* ---- bursts ---- */

#define NKEYS 32

struct keys {
	struct vecsec_aead_key k[2][NKEYS];
	uint8_t raw[2][NKEYS][32];
};

struct tjob {
	struct vecsec_aead_job job;
	enum vecsec_aead_alg alg;
	int kind;                       /* 0 good, 1 forged, 2 invalid */
	size_t len;                     /* the data length (before any invalid change) */
	bool sg, in_place, open;
	uint8_t *inbuf, *outbuf;        /* linear in/out (each len + 32 with guards) */
	struct vt_sg sgin, sgout;
	uint8_t nonce[24], aad[300], tag[16];
	uint8_t *want, *orig;
	uint8_t want_tag[16];
	uint32_t want_status;
};

/* test_imix_fills(): lengths from this pattern, one direction, linear jobs */
static const size_t *len_pattern;
static unsigned int len_pattern_n, len_pattern_next;
static int force_open = -1;

static size_t
pick_len(uint64_t *st)
{
	uint32_t r = vt_below(st, 64);

	if (len_pattern != NULL)
		return len_pattern[len_pattern_next++ % len_pattern_n];

	if (r == 0)
		return 0;
	if (r == 1)                                 /* a few large ones */
		return 2049 + vt_below(st, slow ? 70000 : 9000);
	if (r < 20)
		return vt_below(st, 80);
	return vt_below(st, 2049);
}

static size_t
pick_aad(uint64_t *st)
{
	uint32_t r = vt_below(st, 16);

	/* ESP's 8 and 12 often; now and then more than the staged path takes */
	return r < 4 ? 8 : r < 8 ? 12 : r == 8 ? 65 + vt_below(st, 236) : vt_below(st, 65);
}

#define GUARD 16

static void
tjob_make(struct tjob *t, struct keys *ks, uint64_t *st, bool allow_bad)
{
	int a = (int)vt_below(st, 2), ki = (int)vt_below(st, NKEYS);
	enum vecsec_aead_alg alg = a ? VECSEC_AEAD_XCHACHA20_POLY1305 :
				   VECSEC_AEAD_CHACHA20_POLY1305;
	size_t len = pick_len(st), aad_len = pick_aad(st), nl = vt_nonce_len(alg);
	struct vecsec_aead_job *j = &t->job;
	uint8_t *pt = malloc(len + 1), *ct = malloc(len + 1), otag[16], ctag[16];
	uint8_t *oc = malloc(len + 1);
	uint32_t x = allow_bad ? vt_below(st, 12) : 99;

	memset(t, 0, sizeof(*t));
	t->alg = alg;
	t->len = len;
	t->open = vt_below(st, 2);
	t->in_place = vt_below(st, 3) == 0;
	t->sg = vt_below(st, 4) == 0;
	if (force_open >= 0) {
		t->open = force_open;
		t->sg = false;
	}
	t->kind = x == 0 ? 2 : (x < 3 && t->open) ? 1 : 0;
	vt_rand(t->nonce, sizeof(t->nonce), vt_next(st));
	vt_rand(t->aad, sizeof(t->aad), vt_next(st));
	vt_rand(pt, len, vt_next(st));

	/* what the job must give: the one-shot API, itself == the oracle */
	VT_EXPECT(vecsec_aead_seal(&ks->k[a][ki], ct, ctag, 16, pt, len, t->nonce, nl, t->aad,
				   aad_len) == 0, "one-shot seal");
	vt_oracle_seal(alg, oc, otag, pt, len, ks->raw[a][ki], t->nonce, t->aad, aad_len);
	VT_EXPECT(memcmp(oc, ct, len) == 0 && memcmp(otag, ctag, 16) == 0,
		  "one-shot %s vs oracle len %zu", vecsec_aead_alg_name(alg), len);
	free(oc);

	t->inbuf = malloc(len + 2 * GUARD);
	t->outbuf = malloc(len + 2 * GUARD);
	memset(t->inbuf, VT_GUARD_BYTE, len + 2 * GUARD);
	memset(t->outbuf, VT_GUARD_BYTE, len + 2 * GUARD);
	memcpy(t->inbuf + GUARD, t->open ? ct : pt, len);
	memset(t->tag, 0xee, 16);
	if (t->open)
		memcpy(t->tag, ctag, 16);

	j->key = &ks->k[a][ki];
	j->dir = t->open ? VECSEC_AEAD_OPEN : VECSEC_AEAD_SEAL;
	j->status = VECSEC_JOB_PENDING;
	j->nonce = t->nonce;
	j->nonce_len = nl;
	j->aad = aad_len > 0 || vt_below(st, 2) ? t->aad : NULL;
	j->aad_len = aad_len;
	j->len = len;
	j->in = t->inbuf + GUARD;
	j->out = t->in_place ? t->inbuf + GUARD : t->outbuf + GUARD;
	j->tag = t->tag;
	j->tag_len = 16;
	j->user = t;
	if (t->sg) {
		vt_sg_make(&t->sgin, len, vt_below(st, 3) == 0 ? VT_SG_ONES : VT_SG_RANDOM, st);
		vt_sg_make(&t->sgout, len, vt_below(st, 4) == 0 ? VT_SG_ONES : VT_SG_RANDOM, st);
		vt_sg_scatter(&t->sgin, t->inbuf + GUARD);
		j->in_segs = t->sgin.segs;
		j->nb_in_segs = t->sgin.nb;
		j->out_segs = t->in_place ? t->sgin.segs : t->sgout.segs;
		j->nb_out_segs = t->in_place ? t->sgin.nb : t->sgout.nb;
	}

	t->want = malloc(len + 1);
	memcpy(t->want, t->open ? pt : ct, len);
	memcpy(t->want_tag, t->open ? t->tag : ctag, 16);
	t->want_status = VECSEC_JOB_OK;
	if (t->kind == 1) {
		/* flip one bit: ciphertext, tag or AAD */
		uint32_t where = vt_below(st, 3);

		if (where == 0 && len > 0) {
			t->inbuf[GUARD + vt_below(st, (uint32_t)len)] ^= (uint8_t)(1u << vt_below(st, 8));
			if (t->sg)
				vt_sg_scatter(&t->sgin, t->inbuf + GUARD);
		} else if (where == 1 && aad_len > 0) {
			t->aad[vt_below(st, (uint32_t)aad_len)] ^= (uint8_t)(1u << vt_below(st, 8));
		} else {
			t->tag[vt_below(st, 16)] ^= (uint8_t)(1u << vt_below(st, 8));
		}
		memcpy(t->want_tag, t->tag, 16);
		memset(t->want, 0, len);
		t->want_status = VECSEC_JOB_AUTH_FAILED;
	} else if (t->kind == 2) {
		switch (vt_below(st, 4)) {
		case 0:
			j->nonce_len = nl == 12 ? 24 : 12;
			break;
		case 1:
			j->tag_len = 12;
			break;
		case 2:
			j->aad = NULL;
			j->aad_len = 1 + aad_len;
			break;
		default:
			/*
			 * more than the input covers (a list of no segments, as
			 * for len 0, means the linear pointer: make that NULL)
			 */
			j->len = len + 100;
			j->in = NULL;
			break;
		}
		memcpy(t->want_tag, t->tag, 16);
		t->want_status = VECSEC_JOB_INVALID;
	}
	t->orig = malloc(len + 1);
	memcpy(t->orig, t->inbuf + GUARD, len);
	free(pt);
	free(ct);
}

static bool
guards_ok(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < GUARD; i++)
		if (buf[i] != VT_GUARD_BYTE || buf[GUARD + len + i] != VT_GUARD_BYTE)
			return false;
	return true;
}

static void
tjob_check(struct tjob *t, unsigned int idx, unsigned int n, const char *cfg)
{
	struct vecsec_aead_job *j = &t->job;
	size_t len = t->len;
	uint8_t *got = malloc(len + 1);
	VT_EXPECT(j->status == t->want_status,
		  "%s burst %u job %u (%s %s kind %d len %zu aad %zu sg %d inpl %d): status %u want %u",
		  cfg, n, idx, vecsec_aead_alg_name(t->alg), t->open ? "open" : "seal", t->kind, len,
		  j->aad_len, t->sg, t->in_place, j->status, t->want_status);
	VT_EXPECT(j->user == t, "user untouched");
	VT_EXPECT_MEM(t->tag, t->want_tag, 16, "%s burst %u job %u tag (kind %d len %zu)", cfg, n,
		      idx, t->kind, len);
	if (t->kind == 2) {
		/* nothing written */
		if (t->sg)
			vt_sg_gather(&t->sgin, got);
		else
			memcpy(got, t->inbuf + GUARD, len);
		VT_EXPECT_MEM(got, t->orig, len, "%s invalid job %u changed its input", cfg, idx);
		if (!t->in_place) {
			bool untouched = true;

			for (size_t i = 0; i < len + 2 * GUARD; i++)
				untouched &= t->outbuf[i] == VT_GUARD_BYTE;
			if (t->sg)
				for (size_t i = 0; i < t->sgout.mem_len; i++)
					untouched &= t->sgout.mem[i] == VT_GUARD_BYTE;
			VT_EXPECT(untouched, "%s invalid job %u wrote output", cfg, idx);
		}
		free(got);
		return;
	}
	if (t->sg)
		vt_sg_gather(t->in_place ? &t->sgin : &t->sgout, got);
	else
		memcpy(got, j->out, len);
	VT_EXPECT_MEM(got, t->want, len, "%s burst %u job %u %s %s kind %d len %zu aad %zu sg %d "
		      "inpl %d", cfg, n, idx, vecsec_aead_alg_name(t->alg),
		      t->open ? "open" : "seal", t->kind, len, j->aad_len, t->sg, t->in_place);
	if (t->sg)
		VT_EXPECT(vt_sg_guards_ok(&t->sgin) && vt_sg_guards_ok(&t->sgout),
			  "%s job %u: sg write outside", cfg, idx);
	else
		VT_EXPECT(guards_ok(t->inbuf, len) && guards_ok(t->outbuf, t->in_place ? 0 : len),
			  "%s job %u: guards", cfg, idx);
	free(got);
}

static void
tjob_free(struct tjob *t)
{
	free(t->inbuf);
	free(t->outbuf);
	if (t->sg) {
		vt_sg_free(&t->sgin);
		vt_sg_free(&t->sgout);
	}
	free(t->want);
	free(t->orig);
}

static void
keys_init(struct keys *ks, uint64_t seed)
{
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < NKEYS; i++) {
			vt_rand(ks->raw[a][i], 32, seed + 64 * a + i);
			VT_EXPECT(vecsec_aead_key_init(&ks->k[a][i], a ? VECSEC_AEAD_XCHACHA20_POLY1305 :
						       VECSEC_AEAD_CHACHA20_POLY1305,
						       ks->raw[a][i], 32) == 0, "key init");
		}
}

static void
one_burst(unsigned int n, struct keys *ks, uint64_t seed, bool bad, const char *cfg)
{
	struct tjob *t = calloc(n + 1, sizeof(*t));
	struct vecsec_aead_job **jp = calloc(n + 1, sizeof(*jp));
	uint64_t st = seed;

	for (unsigned int i = 0; i < n; i++) {
		tjob_make(&t[i], ks, &st, bad);
		jp[i] = &t[i].job;
	}
	VT_EXPECT(vecsec_aead_burst(jp, n) == n, "%s burst of %u", cfg, n);
	for (unsigned int i = 0; i < n; i++) {
		tjob_check(&t[i], i, n, cfg);
		tjob_free(&t[i]);
	}
	free(t);
	free(jp);
}

/* Every burst size for one configuration of widths. */
static void
bursts_for(unsigned int L, struct keys *ks, uint64_t seed, const char *cfg)
{
	const unsigned int sizes[] = { 0, 1, L > 1 ? L - 1 : 2, L, L + 1, 2 * L + 1, 64, 128, 256 };

	unsigned int reps = slow ? 10 : 2;
	size_t staged = vecsec_lanes_staged_max();

	/* round 0 with the staged path off: every job through the general passes */
	for (unsigned int r = 0; r < reps; r++) {
		vecsec_lanes_set_staged_max(r == 0 ? 0 : staged);
		for (size_t i = 0; i < VT_ARRAY_SIZE(sizes); i++) {
			one_burst(sizes[i], ks, seed + 7919 * i + 104729 * r, false, cfg);
			one_burst(sizes[i], ks, seed + 7919 * i + 104729 * r + 1, true, cfg);
		}
	}
	vecsec_lanes_set_staged_max(staged);
}

static void
test_bursts_every_width(void)
{
	static const int cws[] = { 16, 8, 4 }, pws[] = { 16, 8, 4, 1 };
	struct keys *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0x1a4e5;
	int configs = 0;

	keys_init(ks, seed);
	for (size_t c = 0; c < VT_ARRAY_SIZE(cws); c++) {
		for (size_t p = 0; p < VT_ARRAY_SIZE(pws); p++) {
			char cfg[64];

			if (vecsec_lanes_force(cws[c], pws[p]) != 0)
				continue;
			snprintf(cfg, sizeof(cfg), "chacha x%d poly x%d", cws[c], pws[p]);
			bursts_for((unsigned int)cws[c], ks, seed + 100003 * configs, cfg);
			configs++;
		}
	}
	VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");
	printf("\n    %d width configurations", configs);
	/* automatic choice, and lanes off (the per-job loop), whatever this ISA has */
	bursts_for(16, ks, seed ^ 0xa070, "auto");
	VT_EXPECT(vecsec_lanes_force(0, -1) == 0, "lanes off");
	bursts_for(4, ks, seed ^ 0x0ff, "off");
	VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");
	free(ks);
}

/*
 * IMIX bursts (64, 576 and 1500 bytes, 7:4:1, as a link interleaves them)
 * of one direction, linear: on a byte-exact kernel the 64-byte opens past
 * a whole staged group ride in a direct group's block-0 call (fills: their
 * one block decrypted with block 0), some of them forged or invalid; seals
 * beside them; at every width and several burst sizes.
 */
static void
test_imix_fills(void)
{
	static const size_t imix[12] = { 64, 576, 64, 64, 1500, 64, 576, 64, 576, 64, 64, 576 };
	static const int cws[] = { 16, 8, 4 };
	static const unsigned int sizes[] = { 12, 19, 24, 29, 32, 35, 44, 64 };
	struct keys *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0x1e1f;
	unsigned int reps = slow ? 40 : 6;

	keys_init(ks, seed);
	len_pattern = imix;
	len_pattern_n = 12;
	for (size_t c = 0; c < VT_ARRAY_SIZE(cws); c++) {
		char cfg[64];

		if (vecsec_lanes_force(cws[c], -1) != 0)
			continue;
		for (int open = 0; open < 2; open++) {
			force_open = open;
			snprintf(cfg, sizeof(cfg), "imix chacha x%d %s", cws[c], open ? "open" : "seal");
			for (size_t i = 0; i < VT_ARRAY_SIZE(sizes); i++)
				for (unsigned int r = 0; r < reps; r++) {
					len_pattern_next = r;
					one_burst(sizes[i], ks, seed + 131 * i + 7 * r + open, r & 1,
						  cfg);
				}
		}
	}
	force_open = -1;
	len_pattern = NULL;
	VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");
	free(ks);
}

static void test_few_rule(const struct lanes_choice *c);

/*
 * Mixed bursts as a gateway sees them: IMIX frames (64, 576, 1460 bytes)
 * as ESP payloads (52, 564, 1448 bytes of ciphertext), in the order a
 * link interleaves them, every rotation of the pattern (so the number of
 * long jobs in a burst varies), one direction at a time; at every ChaCha
 * width and with the mixed-burst bound off (the long jobs stay in the
 * lanes: a group too ragged for one piece size takes the jobs whose
 * pieces fit, the rest go one by one), at 640 (the few long ones one by
 * one) and at 0 (every job past 0 one by one where fewer than a width of
 * them): every job == the one-shot API, forged ones fail alone. And the
 * knob: the default is the CPU's bound on 8 and 16 lanes, none while the
 * crossover is pinned.
 */
static void
test_mixed_bursts(void)
{
	static const size_t esp_imix[12] = { 52, 52, 52, 52, 52, 52, 52, 564, 564, 564, 564, 1448 };
	static const size_t mixed[] = { SIZE_MAX, 640, 0 };
	static const int cws[] = { 16, 8, 4 };
	static const unsigned int sizes[] = { 7, 20, 32, 45 };
	struct keys *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0x313e;
	struct lanes_choice c;

	keys_init(ks, seed);
	len_pattern = esp_imix;
	len_pattern_n = 12;
	for (size_t m = 0; m < VT_ARRAY_SIZE(mixed); m++) {
		vecsec_lanes_set_mixed_max(mixed[m]);
		for (size_t w = 0; w < VT_ARRAY_SIZE(cws); w++) {
			if (vecsec_lanes_force(cws[w], -1) != 0)
				continue;
			for (int open = 0; open < 2; open++) {
				char cfg[80];

				force_open = open;
				snprintf(cfg, sizeof(cfg), "mixed bound %zd chacha x%d %s",
					 mixed[m] == SIZE_MAX ? (ssize_t)-1 : (ssize_t)mixed[m],
					 cws[w], open ? "open" : "seal");
				for (size_t i = 0; i < VT_ARRAY_SIZE(sizes); i++)
					for (unsigned int r = 0; r < 12; r++) {
						len_pattern_next = r;
						one_burst(sizes[i], ks, seed + 977 * i + 13 * r + open,
							  (r & 3) == 1, cfg);
					}
			}
		}
	}
	force_open = -1;
	len_pattern = NULL;
	VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");

	vecsec_lanes_set_mixed_max(900);
	VT_EXPECT(vecsec_lanes_mixed_max() == 900, "mixed bound pinned: %zu",
		  vecsec_lanes_mixed_max());
	vecsec_lanes_reset_mixed_max();
	vecsec_lanes_choose(32, &c);
	if (c.chacha_lanes >= 16 || (c.chacha_lanes >= 8 && vecsec_tune()->lanes_mixed_max_x8 == 0))
		VT_EXPECT(vecsec_lanes_mixed_max() == vecsec_tune()->lanes_mixed_max,
			  "default mixed bound %zu", vecsec_lanes_mixed_max());
	else if (c.chacha_lanes >= 8)
		VT_EXPECT(vecsec_lanes_mixed_max() == vecsec_tune()->lanes_mixed_max_x8,
			  "default mixed bound at 8 lanes %zu", vecsec_lanes_mixed_max());
	else
		VT_EXPECT(vecsec_lanes_mixed_max() == SIZE_MAX, "no mixed bound on %u lanes",
			  c.chacha_lanes);
	vecsec_lanes_set_crossover(4096);
	VT_EXPECT(vecsec_lanes_mixed_max() == SIZE_MAX, "no mixed bound beside a pinned crossover");
	vecsec_lanes_reset_crossover();
	test_few_rule(&c);
	free(ks);
}

/*
 * Small bursts (vecsec_lanes_few()): the CPU's rule at the cap's lane
 * width (c: the choice for a burst of 32), off while widths are forced or
 * the crossover is pinned; and bursts of 1..8 jobs of every size around
 * the rule's steps come out right whichever path they take.
 */
static void
test_few_rule(const struct lanes_choice *c)
{
	size_t step = c->chacha_lanes >= 16 ? vecsec_tune()->lanes_few_x16 :
		      c->chacha_lanes >= 8 ? vecsec_tune()->lanes_few_x8 : 0;
	static const size_t lens[] = { 0, 1, 64, 127, 128, 256, 511, 576, 1024, 1500 };
	struct keys *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0xfe3;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t need = step == 0 ? 0 : 3 + lens[i] / step;

		VT_EXPECT(vecsec_lanes_few(lens[i]) == (need < 8 ? need : 8),
			  "few(%zu) = %u (step %zu)", lens[i], vecsec_lanes_few(lens[i]), step);
	}
	printf("\n    %s: small bursts run one by one below %u jobs of 64 B, %u of 576 B",
	       vt_isa(), vecsec_lanes_few(64), vecsec_lanes_few(576));
	vecsec_lanes_set_crossover(4096);
	VT_EXPECT(vecsec_lanes_few(576) == 0, "no small-burst rule beside a pinned crossover");
	vecsec_lanes_reset_crossover();
	if (c->chacha_lanes > 0 && vecsec_lanes_force((int)c->chacha_lanes, -1) == 0) {
		VT_EXPECT(vecsec_lanes_few(576) == 0, "no small-burst rule with forced widths");
		VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");
	}
	keys_init(ks, seed);
	for (unsigned int n = 1; n <= 8; n++)
		one_burst(n, ks, seed + n, true, "small burst");
	free(ks);
}

/* Long jobs through the lanes too (crossover raised), and through the single path. */
static void
test_crossover(void)
{
	struct keys *ks = malloc(sizeof(*ks));
	uint64_t seed = vt_seed() ^ 0xc205;
	keys_init(ks, seed);
	vecsec_lanes_set_crossover(SIZE_MAX);
	one_burst(40, ks, seed, true, "crossover max");
	vecsec_lanes_set_crossover(0);
	one_burst(40, ks, seed + 1, true, "crossover 0");
	vecsec_lanes_set_crossover(64);
	one_burst(40, ks, seed + 2, true, "crossover 64");
	vecsec_lanes_reset_crossover();
	/* 0 only where the CPU's entry keeps jobs off 4 lanes (SSSE3 on a Zen 4) */
	VT_EXPECT(vecsec_lanes_crossover() >= 64 ||
			  vecsec_lanes_crossover() == vecsec_tune()->lanes_crossover_ssse3,
		  "default crossover %zu", vecsec_lanes_crossover());
	free(ks);
}

static void
test_width_choice(void)
{
	struct lanes_choice c;
	bool any = false;

	for (size_t k = 0; chacha_lane_impls[k] != NULL; k++)
		any |= usable(chacha_lane_impls[k]->isa, chacha_lane_impls[k]->needs);
	vecsec_lanes_choose(1, &c);
	VT_EXPECT(c.chacha_lanes == 0, "a burst of 1 goes one by one (got %u)", c.chacha_lanes);
	vecsec_lanes_choose(3, &c);
	VT_EXPECT(!any || (c.chacha_lanes >= 4 && c.chacha_lanes <= 8), "3 jobs: %u lanes (%s)",
		  c.chacha_lanes, c.chacha_name);
	VT_EXPECT(any || c.chacha_lanes == 0, "no lane kernels: per-job (%s)", c.chacha_name);
	vecsec_lanes_choose(32, &c);
	printf("\n    %s: 3 jobs -> ", vt_isa());
	{
		struct lanes_choice c3;

		vecsec_lanes_choose(3, &c3);
		printf("%s/%s, 32 jobs -> %s/%s", c3.chacha_name, c3.poly_name, c.chacha_name,
		       c.poly_name);
	}
	for (size_t k = 0; chacha_lane_impls[k] != NULL; k++)
		if (usable(chacha_lane_impls[k]->isa, chacha_lane_impls[k]->needs)) {
			VT_EXPECT(c.chacha_lanes == chacha_lane_impls[k]->lanes,
				  "32 jobs take the widest (%u)", c.chacha_lanes);
			break;
		}
	VT_EXPECT(vecsec_lanes_staged_max() > 0, "the staged path is on by default");
	/*
	 * Where the level has a byte-exact ChaCha kernel, small bursts take
	 * it (the narrowest one) rather than a narrower kernel without.
	 */
	{
		unsigned int bx = 0;

		for (size_t k = 0; chacha_lane_impls[k] != NULL; k++)
			if (usable(chacha_lane_impls[k]->isa, chacha_lane_impls[k]->needs) &&
			    chacha_lane_impls[k]->xor_lanes_bytes != NULL &&
			    (bx == 0 || chacha_lane_impls[k]->lanes < bx))
				bx = chacha_lane_impls[k]->lanes;
		for (unsigned int n = 2; bx > 0 && n <= bx; n++) {
			vecsec_lanes_choose(n, &c);
			VT_EXPECT(c.chacha_lanes == bx, "%u jobs: the %u-lane byte-exact kernel (got %s)",
				  n, bx, c.chacha_name);
		}
	}
	VT_EXPECT(vecsec_lanes_force(5, -1) == -ENOTSUP, "no 5-lane kernel");
	VT_EXPECT(vecsec_lanes_force(-1, 3) == -ENOTSUP, "no 3-lane poly kernel");
}

/*
 * NULL for every empty buffer (vt_null.h), ChaCha20-Poly1305 and
 * XChaCha20-Poly1305: bursts of L and L + 1 jobs (two keys, scatter-gather
 * and forged tags among them) in every lane width configuration this ISA
 * runs and with lanes off, the staged path on and off, the crossover at 0
 * and at its maximum; the one-shot calls in every mode (stitched, two-pass).
 */
#define NULL_SHAPES VT_ARRAY_SIZE(vt_null_shapes)

struct null_wants {
	uint8_t ct[2][NULL_SHAPES][2][VT_NULL_MAX];     /* alg, shape, key */
	uint8_t tag[2][NULL_SHAPES][2][16];
};

static void
null_bursts(const struct keys *ks, const struct null_wants *w, unsigned int L,
	    const char *cfg, uint64_t seed)
{
	struct vt_null_spec sp[2 * VECSEC_MAX_LANES + 1];
	const unsigned int sizes[] = { L, L + 1 };

	for (int a = 0; a < 2; a++) {
		for (size_t si = 0; si < NULL_SHAPES; si++) {
			for (size_t z = 0; z < VT_ARRAY_SIZE(sizes); z++) {
				unsigned int n = sizes[z];

				for (unsigned int i = 0; i < n; i++) {
					unsigned int ki = (i / 2) % 2;

					sp[i] = (struct vt_null_spec){
						.v = &vt_null_variants[a], .key = &ks->k[a][ki],
						.aad_len = vt_null_shapes[si].aad_len,
						.len = vt_null_shapes[si].len,
						.sg = i % 5 == 4, .forge = i % 2 == 1,
						.want_ct = w->ct[a][si][ki],
						.want_tag = w->tag[a][si][ki],
					};
				}
				vt_null_burst(sp, n, seed + 1000 * si + n, cfg);
			}
		}
	}
}

static void
test_null_every_width(void)
{
	static const int cws[] = { 16, 8, 4 }, pws[] = { 16, 8, 4, 1 };
	static const enum chachapoly_mode modes[] = {
		CHACHAPOLY_AUTO, CHACHAPOLY_STITCH, CHACHAPOLY_TWOPASS,
	};
	struct keys *ks = malloc(sizeof(*ks));
	struct null_wants *w = malloc(sizeof(*w));
	size_t staged = vecsec_lanes_staged_max();
	uint64_t seed = vt_seed() ^ 0x6e756c6c;
	int configs = 0;

	if (ks == NULL || w == NULL)
		abort();
	VT_EXPECT(vt_null_variants[0].alg == VECSEC_AEAD_CHACHA20_POLY1305 &&
		  vt_null_variants[1].alg == VECSEC_AEAD_XCHACHA20_POLY1305, "variants");
	keys_init(ks, seed);
	vt_null_init(seed);
	for (int a = 0; a < 2; a++)
		for (size_t si = 0; si < NULL_SHAPES; si++)
			for (int ki = 0; ki < 2; ki++)
				vt_null_want(&vt_null_variants[a], ks->raw[a][ki], 32,
					     vt_null_shapes[si].aad_len, vt_null_shapes[si].len,
					     w->ct[a][si][ki], w->tag[a][si][ki]);
	for (size_t c = 0; c <= VT_ARRAY_SIZE(cws); c++) {
		for (size_t p = 0; p < VT_ARRAY_SIZE(pws); p++) {
			/* the last round: lanes off (the per-job loop) */
			bool off = c == VT_ARRAY_SIZE(cws);
			unsigned int L = off ? 4 : (unsigned int)cws[c];
			char cfg[80];

			if (off && p > 0)
				break;
			if (vecsec_lanes_force(off ? 0 : cws[c], off ? -1 : pws[p]) != 0)
				continue;
			for (int r = 0; r < 2; r++) {
				vecsec_lanes_set_staged_max(r == 0 ? 0 : staged);
				snprintf(cfg, sizeof(cfg), "chacha x%d poly x%d staged %s",
					 off ? 0 : cws[c], off ? 0 : pws[p], r == 0 ? "off" : "on");
				null_bursts(ks, w, L, cfg, seed + 7 * (uint64_t)configs + r);
			}
			vecsec_lanes_set_staged_max(staged);
			configs++;
		}
	}
	VT_EXPECT(vecsec_lanes_force(-1, -1) == 0, "back to automatic");
	printf("\n    %d width configurations", configs);
	/* long jobs in the lanes too, and every job through the single path */
	vecsec_lanes_set_crossover(SIZE_MAX);
	null_bursts(ks, w, 16, "crossover max", seed ^ 1);
	vecsec_lanes_set_crossover(0);
	null_bursts(ks, w, 16, "crossover 0", seed ^ 2);
	vecsec_lanes_reset_crossover();
	for (size_t m = 0; m < VT_ARRAY_SIZE(modes); m++) {
		char cfg[40];

		vecsec_chachapoly_set_mode(modes[m]);
		snprintf(cfg, sizeof(cfg), "one-shot mode %d", (int)modes[m]);
		for (int a = 0; a < 2; a++)
			for (size_t si = 0; si < NULL_SHAPES; si++)
				for (int ki = 0; ki < 2; ki++)
					vt_null_oneshot(&vt_null_variants[a], &ks->k[a][ki],
							vt_null_shapes[si].aad_len,
							vt_null_shapes[si].len, w->ct[a][si][ki],
							w->tag[a][si][ki], cfg);
	}
	vecsec_chachapoly_set_mode(CHACHAPOLY_AUTO);
	free(ks);
	free(w);
}

#define M44_T ((UINT64_C(1) << 44) - 1)
#define M42_T ((UINT64_C(1) << 42) - 1)

/*
 * tags_lanes vs the reference emit + add_s: random partly reduced h (limbs
 * as the kernels leave them), and the edges of the final reduction: h = p,
 * p - 1, p + 1, p + 4, 2^130 - 1 and the like, plus s near 2^128 (the
 * carry out of the low word), some lanes off (their tag not written).
 */
static void
test_poly_lane_tags(void)
{
	static const uint64_t edges[][3] = {
		{ M44_T - 4, M44_T, M42_T },            /* p */
		{ M44_T - 5, M44_T, M42_T },            /* p - 1 */
		{ M44_T - 3, M44_T, M42_T },            /* p + 1 */
		{ M44_T, M44_T, M42_T },                /* 2^130 - 1 = p + 4 */
		{ 0, 0, M42_T + 1 },                    /* 2^130 == 5 */
		{ M44_T + 6, M44_T, M42_T },            /* over 2^130 in limb 0 */
		{ 0, M44_T + 1, M42_T },                /* limb 1 just over */
		{ 0, 0, 0 },
	};
	uint64_t st = vt_seed() ^ 0x7a95;

	for (size_t k = 0; poly_lane_impls[k] != NULL; k++) {
		const struct poly1305_impl *im = poly_lane_impls[k];

		if (im->tags_lanes == NULL || !usable(im->isa, im->needs))
			continue;
		for (int it = 0; it < (slow ? 400 : 60); it++) {
			struct poly1305_lanes l;
			uint64_t s[2][VECSEC_MAX_LANES];
			uint8_t got[VECSEC_MAX_LANES][16], *tp[VECSEC_MAX_LANES];

			memset(&l, 0, sizeof(l));
			memset(got, 0x99, sizeof(got));
			l.active = it % 3 == 0 ? (uint32_t)vt_next(&st) & 0xffff : 0xffff;
			for (unsigned int i = 0; i < 16; i++) {
				uint32_t e = vt_below(&st, 2 * VT_ARRAY_SIZE(edges));

				if (e < VT_ARRAY_SIZE(edges)) {
					for (int w = 0; w < 3; w++)
						l.h[w][i] = edges[e][w];
				} else {
					l.h[0][i] = vt_next(&st) & M44_T;
					l.h[1][i] = (vt_next(&st) & M44_T) +
						    vt_below(&st, 1u << 20);
					l.h[2][i] = vt_next(&st) & M42_T;
				}
				s[0][i] = it % 4 == 1 ? UINT64_MAX - vt_below(&st, 3) :
					  vt_next(&st);
				s[1][i] = vt_next(&st);
				tp[i] = got[i];
			}
			im->tags_lanes(&l, s, tp);
			for (unsigned int i = 0; i < 16; i++) {
				struct poly1305_state ps;
				uint8_t want[16], sb[16];

				if (!((l.active >> i) & 1)) {
					VT_EXPECT(got[i][0] == 0x99 && got[i][15] == 0x99,
						  "%s lane %u off: tag written", im->lanes_name, i);
					continue;
				}
				memset(&ps, 0, sizeof(ps));
				for (int w = 0; w < 3; w++)
					ps.h[w] = l.h[w][i];
				vecsec_poly1305_core_emit(&ps, want);
				for (int b = 0; b < 8; b++) {
					sb[b] = (uint8_t)(s[0][i] >> (8 * b));
					sb[8 + b] = (uint8_t)(s[1][i] >> (8 * b));
				}
				vecsec_poly1305_add_s(want, want, sb);
				VT_EXPECT_MEM(got[i], want, 16,
					      "%s lane %u tag (h %llx %llx %llx) it %d",
					      im->lanes_name, i,
					      (unsigned long long)l.h[0][i],
					      (unsigned long long)l.h[1][i],
					      (unsigned long long)l.h[2][i], it);
			}
		}
	}
}

/*
 * Every length 0..2048 (the staged path up to its maximum, the direct
 * path or the general passes beyond), at odd offsets, in bursts of
 * 17..32 with AAD of 0..64: each buffer is exactly as long as the job, so
 * a copy past either end trips ASan. Consecutive lengths in one burst put
 * lanes that end mid-block (at every byte of a ChaCha and a Poly1305
 * block) beside lanes that go on. Seal must equal the one-shot seal, open
 * must give the plaintext back, and one forged job per burst fails with
 * its output zeroed and nothing else touched. In place (in == out, seal
 * and open) or out of place.
 */
#define SL_BURST 32

static void
lengths_alignments(bool in_place, const char *cfg)
{
	struct vecsec_aead_key key;
	uint8_t rawkey[32], nonce[12], aad[SL_BURST][64], tag[SL_BURST][16], want_tag[16];
	uint8_t *pt[SL_BURST], *ct[SL_BURST], *back[SL_BURST], *want;
	struct vecsec_aead_job jobs[SL_BURST], *jp[SL_BURST];
	size_t off[SL_BURST], len[SL_BURST];
	uint64_t seed = vt_seed();

	vt_rand(rawkey, sizeof(rawkey), seed);
	vt_rand(nonce, sizeof(nonce), seed + 1);
	VT_EXPECT(vecsec_aead_key_init(&key, VECSEC_AEAD_CHACHA20_POLY1305, rawkey, 32) == 0,
		  "key init");
	want = malloc(2048 + 1);
	for (size_t first = 0, n = SL_BURST; first <= 2048; first += n) {
		/* 17..32 jobs: the last group of 16 is short (a narrower kernel) */
		unsigned int forged;

		n = 17 + (first / 7) % 16;
		forged = (unsigned int)(first / 3) % n;
		for (unsigned int i = 0; i < n; i++) {
			len[i] = first + i <= 2048 ? first + i : 2048 - i;
			off[i] = (first + 3 * i) % 15 + 1;          /* never 16-aligned */
			pt[i] = malloc(off[i] + len[i]);
			ct[i] = malloc(off[i] + len[i] + 1);
			back[i] = malloc(off[i] + len[i] + 2);
			vt_rand(pt[i] + off[i], len[i], seed + first + i);
			vt_rand(aad[i], sizeof(aad[i]), seed + 7 * i);
			jobs[i] = (struct vecsec_aead_job){
				.key = &key, .dir = VECSEC_AEAD_SEAL, .nonce = nonce,
				.nonce_len = 12, .aad = aad[i], .aad_len = (first + i) % 65,
				.len = len[i], .in = pt[i] + off[i], .out = ct[i] + off[i] + 1,
				.tag = tag[i], .tag_len = 16,
			};
			if (in_place) {
				memcpy(ct[i] + off[i] + 1, pt[i] + off[i], len[i]);
				jobs[i].in = ct[i] + off[i] + 1;
			}
			jp[i] = &jobs[i];
		}
		VT_EXPECT(vecsec_aead_burst(jp, (unsigned int)n) == n, "%s seal burst at %zu", cfg, first);
		for (unsigned int i = 0; i < n; i++) {
			VT_EXPECT(jobs[i].status == VECSEC_JOB_OK, "%s seal len %zu off %zu", cfg,
				  len[i], off[i]);
			VT_EXPECT(vecsec_aead_seal(&key, want, want_tag, 16, pt[i] + off[i], len[i],
						   nonce, 12, aad[i], jobs[i].aad_len) == 0,
				  "one-shot seal len %zu", len[i]);
			VT_EXPECT_MEM(ct[i] + off[i] + 1, want, len[i],
				      "%s ciphertext len %zu off %zu", cfg, len[i], off[i]);
			VT_EXPECT_MEM(tag[i], want_tag, 16, "%s tag len %zu off %zu", cfg, len[i],
				      off[i]);
			/* open from an odd offset into another odd offset */
			jobs[i].dir = VECSEC_AEAD_OPEN;
			jobs[i].in = ct[i] + off[i] + 1;
			jobs[i].out = back[i] + off[i] + 2;
			memset(back[i], 0xa5, off[i] + len[i] + 2);
			if (in_place) {
				memcpy(back[i] + off[i] + 2, ct[i] + off[i] + 1, len[i]);
				jobs[i].in = jobs[i].out;
			}
		}
		tag[forged][len[forged] % 16] ^= 0x10;
		VT_EXPECT(vecsec_aead_burst(jp, (unsigned int)n) == n, "%s open burst at %zu", cfg, first);
		for (unsigned int i = 0; i < n; i++) {
			bool pad_ok = true;

			for (size_t k = 0; k < off[i] + 2; k++)
				pad_ok &= back[i][k] == 0xa5;
			VT_EXPECT(pad_ok, "open len %zu wrote before its output", len[i]);
			if (i == forged) {
				bool zero = true;

				for (size_t k = 0; k < len[i]; k++)
					zero &= back[i][off[i] + 2 + k] == 0;
				VT_EXPECT(jobs[i].status == VECSEC_JOB_AUTH_FAILED && zero,
					  "%s forged len %zu: status %d, output zeroed %d", cfg, len[i],
					  (int)jobs[i].status, (int)zero);
			} else {
				VT_EXPECT(jobs[i].status == VECSEC_JOB_OK, "%s open len %zu off %zu",
					  cfg, len[i], off[i]);
				VT_EXPECT_MEM(back[i] + off[i] + 2, pt[i] + off[i], len[i],
					      "%s plaintext len %zu off %zu", cfg, len[i], off[i]);
			}
			free(pt[i]);
			free(ct[i]);
			free(back[i]);
		}
	}
	free(want);
}

/*
 * lengths_alignments() in place and out of place, with the direct path on
 * (its default) and off, with the staged path off (the direct path then
 * takes the small jobs too), and with the crossover at its maximum (every
 * length in the lanes at every level).
 */
static void
test_staged_lengths_alignments(void)
{
	size_t staged = vecsec_lanes_staged_max();
	bool direct = vecsec_lanes_set_direct(true);

	for (int inpl = 0; inpl < 2; inpl++) {
		char cfg[64];

		for (int d = 0; d < 2; d++) {
			vecsec_lanes_set_direct(d == 0);
			snprintf(cfg, sizeof(cfg), "%s direct %s",
				 inpl ? "in place" : "out of place", d == 0 ? "on" : "off");
			lengths_alignments(inpl, cfg);
		}
		vecsec_lanes_set_direct(true);
		vecsec_lanes_set_staged_max(0);
		snprintf(cfg, sizeof(cfg), "%s staged off", inpl ? "in place" : "out of place");
		lengths_alignments(inpl, cfg);
		vecsec_lanes_set_staged_max(staged);
		/* every length in the lanes, whatever this level's crossover */
		vecsec_lanes_set_crossover(SIZE_MAX);
		snprintf(cfg, sizeof(cfg), "%s crossover max", inpl ? "in place" : "out of place");
		lengths_alignments(inpl, cfg);
		vecsec_lanes_reset_crossover();
	}
	vecsec_lanes_set_direct(direct);
}

/*
 * Every CPU tuning entry (lib/cpu: thresholds and kernel forms measured
 * per CPU model) pinned in turn, whatever this CPU is: the lane kernels
 * (the AVX-512 ones run one or two blocks a step by it) and the bursts
 * again, and the default crossover is the entry's.
 */
static void
test_every_tuning(void)
{
	const struct vecsec_tune *mine = vecsec_tune();

	for (size_t t = 0; vecsec_tunes[t] != NULL; t++) {
		const struct vecsec_tune *tu = vecsec_tunes[t];
		struct lanes_choice c;

		vecsec_tune_force(tu);
		VT_EXPECT(vecsec_tune() == tu, "tuning %s pinned", tu->cpu);
		printf("\n    tuning %s:", tu->cpu);
		test_chacha_lane_kernels();
		test_chacha_lane_bytes();
		test_bursts_every_width();
		vecsec_lanes_reset_crossover();
		vecsec_lanes_choose(32, &c);
		if (c.chacha_lanes == 16)
			VT_EXPECT(vecsec_lanes_crossover() == tu->lanes_crossover_x16,
				  "%s: crossover %zu", tu->cpu, vecsec_lanes_crossover());
#if defined(__x86_64__)
		if (c.chacha_lanes == 4)
			VT_EXPECT(vecsec_lanes_crossover() == tu->lanes_crossover_ssse3,
				  "%s: crossover %zu", tu->cpu, vecsec_lanes_crossover());
#endif
	}
	vecsec_tune_force(NULL);
	VT_EXPECT(vecsec_tune() == mine, "tuning back to this CPU's");
}

/*
 * The AVX2 lane kernels in both forms: bursts run the VL ones by default
 * on a CPU with AVX-512VL/BW (every test above), the plain ones with the
 * knob off (the bursts again here); a CPU without VL says so loudly.
 */
static void
test_avx2_both_forms(void)
{
	struct lanes_choice c;
	bool was;

#if defined(__x86_64__)
	if (!vecsec_avx2_vl_usable()) {
		const char *req = getenv("VECSEC_TEST_REQUIRE_ISA");

		printf("\nSKIP lanes: the AVX2 lane kernels' VL forms not run (CPU lacks AVX-512VL/BW)\n");
		fprintf(stderr, "SKIP lanes: the AVX2 lane kernels' VL forms not run (CPU lacks AVX-512VL/BW)\n");
		VT_EXPECT(req == NULL || strstr(req, "avx512") == NULL,
			  "VECSEC_TEST_REQUIRE_ISA=%s and no VL forms", req);
	}
#endif
	vecsec_lanes_choose(8, &c);
	if (vecsec_avx2_vl_usable() && vecsec_isa_cap() >= VECSEC_ISA_AVX2)
		VT_EXPECT(strcmp(c.chacha_name, "x8-avx2vl") == 0 &&
			  (vecsec_isa_cap() > VECSEC_ISA_AVX2 || strcmp(c.poly_name, "x4-avx2vl") == 0),
			  "8 jobs on %s / %s", c.chacha_name, c.poly_name);
	was = vecsec_avx2_vl_set(false);
	VT_EXPECT(was, "VL forms allowed by default");
	vecsec_lanes_choose(8, &c);
	VT_EXPECT(strstr(c.chacha_name, "avx2vl") == NULL && strstr(c.poly_name, "avx2vl") == NULL,
		  "knob off: 8 jobs on %s / %s", c.chacha_name, c.poly_name);
	test_bursts_every_width();
	test_staged_lengths_alignments();
	test_null_every_width();
	VT_EXPECT(!vecsec_avx2_vl_set(was), "knob back");
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_chacha_lane_kernels),
		VT_TEST(test_chacha_lane_bytes),
		VT_TEST(test_poly_lane_kernels),
		VT_TEST(test_poly_lane_tags),
		VT_TEST(test_width_choice),
		VT_TEST(test_bursts_every_width),
		VT_TEST(test_imix_fills),
		VT_TEST(test_mixed_bursts),
		VT_TEST(test_crossover),
		VT_TEST(test_staged_lengths_alignments),
		VT_TEST(test_null_every_width),
		VT_TEST(test_every_tuning),
		VT_TEST(test_avx2_both_forms),
	};
	const char *s = getenv("VT_SLOW");

	slow = s != NULL && *s != '\0' && *s != '0';
	find_lane_kernels();
	return vt_main("lanes", tests, VT_ARRAY_SIZE(tests));
}
