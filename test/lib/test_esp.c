/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/esp: the RFC 4303 anti-replay window and ESN reconstruction
 * (vecsec_esp.h) against the RFC's own examples and a naive model written
 * from RFC 4303 3.4.3 and Appendix A (a list of the recorded numbers, the
 * reconstruction as "the number in [T - W + 1, T - W + 2^32] with this low
 * half"). Window edges (W - 1, W, W + 1 back), duplicates in both halves of
 * every bitmap word, ESN across 2^32 and 2^63, cases A and B, windows
 * 1 .. 8191 (multiples of 64 and not), jumps past the bitmap, W = 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vecsec/vecsec_esp.h"
#include "vt.h"

#define TWO32 (UINT64_C(1) << 32)

/* Window storage for every size tested here: header + 256 words. */
static uint64_t store[1 + 1024];

static struct vecsec_esp_replay *
win_new(uint32_t w, bool esn, uint64_t top)
{
	struct vecsec_esp_replay *r = (struct vecsec_esp_replay *)store;
	size_t sz = vecsec_esp_replay_size(w);

	VT_EXPECT(sz != 0 && sz <= sizeof(store), "size of W=%u: %zu", w, sz);
	VT_EXPECT(vecsec_esp_replay_init(r, sizeof(store), w, esn, top) == 0, "init W=%u", w);
	return r;
}

/* ---- the model ---------------------------------------------------------- */

struct model {
	uint64_t top;
	uint32_t w;
	bool esn;
	size_t n;
	uint64_t seen[20000];   /* recorded numbers still inside the window */
};

static void
model_init(struct model *m, uint32_t w, bool esn, uint64_t top)
{
	m->top = top;
	m->w = w;
	m->esn = esn;
	m->n = 0;
}

/* RFC 4303 3.4.3: 0, or the error vecsec_esp_replay_check() must give. */
static int
model_check(const struct model *m, uint64_t s)
{
	if (s == 0 || (!m->esn && s > UINT32_MAX))
		return -ERANGE;
	if (s > m->top || m->w == 0)
		return 0;
	if (s + m->w <= m->top)         /* no overflow: s <= top */
		return -ERANGE;
	for (size_t i = 0; i < m->n; i++)
		if (m->seen[i] == s)
			return -EALREADY;
	return 0;
}

static int
model_update(struct model *m, uint64_t s)
{
	int rc = model_check(m, s);
	size_t k = 0;

	if (rc != 0 || m->w == 0) {
		if (rc == 0 && s > m->top)
			m->top = s;
		return rc;
	}
	if (s > m->top)
		m->top = s;
	/* forget what fell out of the window */
	for (size_t i = 0; i < m->n; i++)
		if (m->seen[i] + m->w > m->top)
			m->seen[k++] = m->seen[i];
	m->n = k;
	if (m->n < VT_ARRAY_SIZE(m->seen))
		m->seen[m->n++] = s;
	return 0;
}

/*
 * RFC 4303 A.2: the number with low half lo in [T - W + 1, T - W + 2^32]
 * (W = 0: 2^31), by trying the three candidate high halves; -ERANGE if it
 * lies outside 0 .. 2^64 - 1.
 */
static int
model_recover(uint64_t top, uint32_t w, uint32_t lo, uint64_t *out)
{
	uint64_t wide = w != 0 ? w : UINT64_C(1) << 31;
	/* bottom = T - W + 1 in 65-bit arithmetic: -mag when neg, else mag */
	bool neg = top < wide - 1;
	uint64_t mag = neg ? wide - 1 - top : top - (wide - 1);
	int64_t th = (int64_t)(top >> 32);

	for (int64_t h = th - 1; h <= th + 1; h++) {
		uint64_t c;

		if (h < 0 || h > (int64_t)UINT32_MAX)
			continue;
		c = (uint64_t)h << 32 | lo;
		/* c >= bottom and c - bottom < 2^32 */
		if (neg) {
			if (c + mag < TWO32 && c + mag >= c)
				goto found;
		} else if (c >= mag && c - mag < TWO32) {
			goto found;
		}
		continue;
found:
		*out = c;
		return 0;
	}
	return -ERANGE;
}

/* ---- tests -------------------------------------------------------------- */

static void
test_args(void)
{
	struct vecsec_esp_replay *r = (struct vecsec_esp_replay *)store;
	uint64_t s = 7;

	VT_EXPECT(vecsec_esp_replay_size(VECSEC_ESP_REPLAY_WIN_MAX + 1) == 0, "too large");
	VT_EXPECT(vecsec_esp_replay_size(0) != 0, "W=0 has a size");
	VT_EXPECT(vecsec_esp_replay_size(8128) >= 8128 / 8 + 8, "8128 bits and more");
	VT_EXPECT(vecsec_esp_replay_init(NULL, sizeof(store), 64, true, 0) == -EINVAL, "NULL");
	VT_EXPECT(vecsec_esp_replay_init(r, vecsec_esp_replay_size(64) - 1, 64, true, 0) ==
		  -EINVAL, "short");
	VT_EXPECT(vecsec_esp_replay_init(r, sizeof(store), VECSEC_ESP_REPLAY_WIN_MAX + 1, true,
					 0) == -EINVAL, "W too large");
	VT_EXPECT(vecsec_esp_replay_init(r, sizeof(store), 64, false, TWO32) == -EINVAL,
		  "32-bit top above 2^32 - 1");
	VT_EXPECT(vecsec_esp_replay_init((struct vecsec_esp_replay *)((uint8_t *)store + 4),
					 sizeof(store) - 8, 64, true, 0) == -EINVAL, "misaligned");
	VT_EXPECT(vecsec_esp_replay_init(r, sizeof(store), 64, false, UINT32_MAX) == 0,
		  "32-bit top 2^32 - 1");
	VT_EXPECT(vecsec_esp_replay_check(NULL, 1) == -EINVAL, "check NULL");
	VT_EXPECT(vecsec_esp_replay_update(NULL, 1) == -EINVAL, "update NULL");
	VT_EXPECT(vecsec_esp_replay_recover(NULL, 1, &s) == -EINVAL, "recover NULL");
	VT_EXPECT(vecsec_esp_replay_recover(r, 1, NULL) == -EINVAL, "recover NULL out");
	VT_EXPECT(vecsec_esp_esn_recover(0, 64, 1, NULL) == -EINVAL, "esn_recover NULL");
	VT_EXPECT(vecsec_esp_esn_recover(0, VECSEC_ESP_REPLAY_WIN_MAX + 1, 1, &s) == -EINVAL &&
		  s == 7, "esn_recover W too large, out untouched");
}

/* The examples: duplicates in the upper half of a 64-bit word too. */
static void
test_duplicates(void)
{
	static const struct {
		uint64_t seq[8];
		int want[8];
		unsigned int n;
	} seqs[] = {
		{ { 100, 101, 100 }, { 0, 0, -EALREADY }, 3 },
		{ { 40, 41, 42, 40, 41, 42 }, { 0, 0, 0, -EALREADY, -EALREADY, -EALREADY }, 6 },
		{ { 31, 31, 32, 32 }, { 0, -EALREADY, 0, -EALREADY }, 4 },
		{ { 63, 64, 63, 64, 127, 128 }, { 0, 0, -EALREADY, -EALREADY, 0, 0 }, 6 },
	};

	for (unsigned int t = 0; t < VT_ARRAY_SIZE(seqs); t++) {
		for (int esn = 0; esn < 2; esn++) {
			struct vecsec_esp_replay *r = win_new(1024, esn, 0);

			for (unsigned int i = 0; i < seqs[t].n; i++) {
				int rc = vecsec_esp_replay_update(r, seqs[t].seq[i]);

				VT_EXPECT(rc == seqs[t].want[i], "example %u, %u: %d", t, i, rc);
			}
		}
	}
	/* every bit of several words: each number once, then all are replays */
	{
		struct vecsec_esp_replay *r = win_new(1024, true, 0);

		for (uint64_t s = 1; s <= 1024; s++)
			VT_EXPECT(vecsec_esp_replay_update(r, s) == 0, "seq %llu",
				  (unsigned long long)s);
		for (uint64_t s = 1; s <= 1024; s++)
			VT_EXPECT(vecsec_esp_replay_check(r, s) == -EALREADY &&
				  vecsec_esp_replay_update(r, s) == -EALREADY,
				  "seq %llu again", (unsigned long long)s);
		VT_EXPECT(vecsec_esp_replay_check(r, 1025) == 0, "next");
	}
}

/* W - 1, W and W + 1 numbers back from the top of a window of W from base. */
static void
edges_one(uint32_t w, uint64_t base)
{
	bool esn = base > UINT32_MAX - 20000;
	uint64_t top = base + w + 10;
	struct vecsec_esp_replay *r = win_new(w, esn, base);

	VT_EXPECT(vecsec_esp_replay_update(r, top) == 0, "W=%u top", w);
	VT_EXPECT(vecsec_esp_replay_top(r) == top && vecsec_esp_replay_win(r) == w,
		  "W=%u top/win", w);
	/* top - W + 1 is the oldest inside; top - W is out (RFC 4303 A.1) */
	VT_EXPECT(vecsec_esp_replay_check(r, top - w + 1) == (w == 1 ? -EALREADY : 0),
		  "W=%u: W-1 back", w);
	VT_EXPECT(vecsec_esp_replay_check(r, top - w) == -ERANGE, "W=%u: W back", w);
	VT_EXPECT(vecsec_esp_replay_check(r, top - w - 1) == -ERANGE, "W=%u: W+1 back", w);
	VT_EXPECT(vecsec_esp_replay_update(r, top - w) == -ERANGE, "W=%u: W back", w);
	if (w > 1)
		VT_EXPECT(vecsec_esp_replay_update(r, top - w + 1) == 0, "W=%u: W-1 back", w);
	VT_EXPECT(vecsec_esp_replay_update(r, top - w + 1) == -EALREADY,
		  "W=%u: W-1 back again", w);
	VT_EXPECT(vecsec_esp_replay_check(r, top) == -EALREADY, "W=%u top again", w);
	VT_EXPECT(vecsec_esp_replay_top(r) == top, "W=%u: top unchanged", w);
	/* one step up: top - W + 1 falls out */
	VT_EXPECT(vecsec_esp_replay_update(r, top + 1) == 0, "W=%u: top+1", w);
	VT_EXPECT(vecsec_esp_replay_check(r, top - w + 1) == -ERANGE, "W=%u: now W back", w);
	/* (W <= 2: that is top or top + 1, both recorded) */
	VT_EXPECT(vecsec_esp_replay_check(r, top - w + 2) == (w <= 2 ? -EALREADY : 0),
		  "W=%u: W-1 back", w);
	/* every number of the window remembered after filling it */
	for (uint64_t s = top + 2 - w; s <= top + 1; s++)
		vecsec_esp_replay_update(r, s);
	for (uint64_t s = top + 2 - w; s <= top + 1; s++)
		VT_EXPECT(vecsec_esp_replay_check(r, s) == -EALREADY, "W=%u: %llu below top %llu",
			  w, (unsigned long long)(top + 1 - s), (unsigned long long)top);
}

static void
test_edges(void)
{
	static const uint32_t ws[] = { 1, 2, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 192, 1000,
				       1024, 4096, 8127, 8128, 8191 };
	static const uint64_t bases[] = { 0, 5000, TWO32 - 3000, TWO32 + 7, UINT64_C(1) << 63,
					  UINT64_MAX - 20000 };

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(ws); i++)
		for (unsigned int b = 0; b < VT_ARRAY_SIZE(bases); b++)
			edges_one(ws[i], bases[b]);
}

/* A jump far past the bitmap must not leave old bits that alias new numbers. */
static void
test_jumps(void)
{
	static const uint32_t ws[] = { 32, 64, 100, 128, 8128 };

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(ws); i++) {
		uint32_t w = ws[i];
		size_t words = (vecsec_esp_replay_size(w) - vecsec_esp_replay_size(0)) / 8;

		for (uint64_t jump = 1; jump < 4 * 64 * words; jump = jump * 3 + 1) {
			struct vecsec_esp_replay *r = win_new(w, true, 0);
			uint64_t top = 1000000;

			for (uint64_t s = top - w + 1; s <= top; s++)
				VT_EXPECT(vecsec_esp_replay_update(r, s) == 0, "fill");
			VT_EXPECT(vecsec_esp_replay_update(r, top + jump) == 0, "jump");
			for (uint64_t s = top + jump - w + 1; s < top + jump; s++) {
				int want = s <= top ? -EALREADY : 0;

				VT_EXPECT(vecsec_esp_replay_check(r, s) == want,
					  "W=%u jump %llu: seq %llu", w, (unsigned long long)jump,
					  (unsigned long long)s);
			}
		}
	}
}

/*
 * One random reconstruction against the model: any top and low half, or
 * (i % 4 == 0) around a 2^32 boundary, (i % 4 == 1) near 0 or 2^64 - 1,
 * with the low half near the window.
 */
static void
recover_random(uint64_t *st, unsigned int i)
{
	static const uint32_t ws[] = { 0, 1, 32, 64, 100, 1024, 8128, 1u << 30 };
	uint64_t top = vt_next(st), got = 0, mod = 0;
	uint32_t w = ws[vt_below(st, VT_ARRAY_SIZE(ws))];
	uint32_t lo = (uint32_t)vt_next(st), near = vt_below(st, 3 * w + 100) - w - 50;
	int rc, mrc;

	if (i % 4 == 0) {
		top = (top & ~UINT64_C(0xffffffff)) + (uint32_t)(vt_below(st, 20000) - 10000);
		lo = (uint32_t)top + near;
	} else if (i % 4 == 1) {
		top = (i & 4) ? vt_below(st, 20000) : UINT64_MAX - vt_below(st, 20000);
		lo = (uint32_t)top + near;
	}
	rc = vecsec_esp_esn_recover(top, w, lo, &got);
	mrc = model_recover(top, w, lo, &mod);
	VT_EXPECT(rc == mrc && (rc != 0 || got == mod),
		  "top %#llx W %u lo %#x: %d %#llx, model %d %#llx", (unsigned long long)top, w, lo,
		  rc, (unsigned long long)got, mrc, (unsigned long long)mod);
}

/* RFC 4303 A.2.1, cases A and B, the 2^32 and 2^63 boundaries, the ends of 64 bits. */
static void
test_esn_recover(void)
{
	static const struct {
		uint64_t top;
		uint32_t w, lo;
		int rc;
		uint64_t want;
	} v[] = {
		/* case A: T - W + 1 .. T inside one subspace */
		{ 1000, 64, 1000, 0, 1000 },
		{ 1000, 64, 937, 0, 937 },                       /* Bl */
		{ 1000, 64, 936, 0, TWO32 + 936 },              /* below Bl: next subspace */
		{ TWO32 - 10, 64, 100, 0, TWO32 + 100 },        /* the P1 */
		{ TWO32 - 10, 64, (uint32_t)-16, 0, TWO32 - 16 }, /* its P2, before P1 */
		{ TWO32 + 100, 64, (uint32_t)-16, 0, 2 * TWO32 - 16 }, /* P2 after P1: not P2 */
		/* case B: the window reaches back into the previous subspace */
		{ TWO32 + 10, 64, (uint32_t)-16, 0, TWO32 - 16 },
		{ TWO32 + 10, 64, (uint32_t)-53, 0, TWO32 - 53 },    /* Bl */
		{ TWO32 + 10, 64, (uint32_t)-54, 0, 2 * TWO32 - 54 }, /* below Bl: this subspace */
		{ TWO32 + 10, 64, 11, 0, TWO32 + 11 },
		{ 10, 64, (uint32_t)-16, -ERANGE, 0 },          /* would be below 0 */
		{ 10, 64, 5, 0, 5 },
		{ 0, 64, 1, 0, 1 },
		/* 2^63 */
		{ (UINT64_C(1) << 63) - 5, 1024, 3, 0, (UINT64_C(1) << 63) + 3 },
		{ (UINT64_C(1) << 63) + 5, 1024, (uint32_t)-3, 0, (UINT64_C(1) << 63) - 3 },
		{ (UINT64_C(1) << 63) + 5, 8128, (uint32_t)-8120, 0, (UINT64_C(1) << 63) - 8120 },
		/* the top end */
		{ UINT64_MAX - 100, 64, (uint32_t)-1, 0, UINT64_MAX },
		{ UINT64_MAX - 100, 64, 5, -ERANGE, 0 },         /* would be past 2^64 - 1 */
		/* W = 0: the half space around T */
		{ TWO32 + 10, 0, (uint32_t)-16, 0, TWO32 - 16 },
		{ TWO32 + 10, 0, 0x80000009u, 0, TWO32 + 0x80000009u },
		{ TWO32 + 10, 0, 0x8000000bu, 0, 0x8000000bu },
	};

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(v); i++) {
		uint64_t got = 0, mod = 0;
		int rc = vecsec_esp_esn_recover(v[i].top, v[i].w, v[i].lo, &got);
		int mrc = model_recover(v[i].top, v[i].w, v[i].lo, &mod);

		VT_EXPECT(rc == v[i].rc && (rc != 0 || got == v[i].want),
			  "vector %u: rc %d got %#llx want %d %#llx", i, rc,
			  (unsigned long long)got, v[i].rc, (unsigned long long)v[i].want);
		VT_EXPECT(mrc == v[i].rc && (mrc != 0 || mod == v[i].want), "model, vector %u", i);
	}
	/* a 32-bit window gives the low half back as it is */
	{
		struct vecsec_esp_replay *r = win_new(64, false, 1000);
		uint64_t s = 0;

		VT_EXPECT(vecsec_esp_replay_recover(r, 5, &s) == 0 && s == 5, "32-bit recover");
		VT_EXPECT(vecsec_esp_replay_check(r, TWO32) == -ERANGE, "32-bit: 2^32 is out");
	}
	/* random tops and low halves: equal to the model */
	{
		uint64_t st = vt_seed() ^ 0xe5e5;

		for (unsigned int i = 0; i < 200000; i++)
			recover_random(&st, i);
	}
}

/* The next number of model_run()'s traffic (hist: recent numbers, nh of them). */
static uint64_t
next_seq(uint64_t *st, uint64_t *next, uint32_t w, const uint64_t hist[], unsigned int nh)
{
	uint32_t c = vt_below(st, 100);
	uint64_t s;

	if (c < 60 || nh == 0)
		s = (*next)++;
	else if (c < 75)
		s = hist[vt_below(st, nh)];                     /* duplicate */
	else if (c < 90)
		s = *next - 1 - vt_below(st, 2 * w + 2);        /* reordered */
	else if (c < 97)
		s = *next - 1 - vt_below(st, 1000000);          /* far behind */
	else
		s = *next += 64 * vt_below(st, 300);            /* jump */
	return s > *next ? *next : s;                           /* (below 0: wrapped) */
}

/* 4000 packets of random traffic on a window of W from base, against the model. */
static void
model_run(uint64_t *st, uint32_t w, bool esn, uint64_t base)
{
	static struct model m;
	struct vecsec_esp_replay *r = win_new(w, esn, base);
	uint64_t hist[64], next = base + 1;
	unsigned int nh = 0;

	model_init(&m, w, esn, base);
	for (unsigned int k = 0; k < 4000; k++) {
		uint64_t s = next_seq(st, &next, w, hist, nh), rs = 0;
		int rc, mrc;

		if (!esn)
			s &= 0xffffffffu;
		hist[k % 64] = s;
		nh = k < 64 ? k + 1 : 64;
		if (esn) {
			/* the receiver sees the low half only */
			int rr = vecsec_esp_replay_recover(r, (uint32_t)s, &rs);
			int mr = model_recover(m.top, w, (uint32_t)s, &s);

			VT_EXPECT(rr == mr && (rr != 0 || rs == s), "W=%u base %#llx k=%u: recover",
				  w, (unsigned long long)base, k);
			if (mr != 0)
				continue;
		}
		if (k & 1)
			VT_EXPECT(vecsec_esp_replay_check(r, s) == model_check(&m, s),
				  "W=%u check %llu", w, (unsigned long long)s);
		rc = vecsec_esp_replay_update(r, s);
		mrc = model_update(&m, s);
		VT_EXPECT(rc == mrc, "W=%u esn=%d base %#llx k=%u: seq %#llx: %d, model %d", w, esn,
			  (unsigned long long)base, k, (unsigned long long)s, rc, mrc);
		VT_EXPECT(vecsec_esp_replay_top(r) == m.top, "top");
	}
}

/*
 * Random traffic against the model: mostly ascending, reordered by up to
 * 2W, duplicates, numbers far behind, jumps past the bitmap; ESN numbers
 * pass through the reconstruction from their low half as a receiver does.
 */
static void
test_model(void)
{
	static const uint32_t ws[] = { 0, 1, 32, 64, 65, 96, 128, 200, 1024, 4000, 8128 };
	static const uint64_t bases[] = { 0, TWO32 - 5000, UINT64_C(1) << 63,
					  (UINT64_C(1) << 63) - 3000, UINT64_MAX - 3000000 };
	uint64_t st = vt_seed();

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(ws); i++) {
		for (unsigned int b = 0; b < VT_ARRAY_SIZE(bases); b++) {
			uint64_t base32 = bases[b] & 0xffffffffu;

			model_run(&st, ws[i], true, bases[b]);
			/* 32-bit: the same bases cut to 32 bits, the last ones from 0 */
			model_run(&st, ws[i], false, base32 > UINT32_MAX - 3000000 ? 0 : base32);
		}
	}
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_args),
		VT_TEST(test_duplicates),
		VT_TEST(test_edges),
		VT_TEST(test_jumps),
		VT_TEST(test_esn_recover),
		VT_TEST(test_model),
	};

	return vt_main_once("esp", tests, VT_ARRAY_SIZE(tests));
}
