/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/esp (vecsec_esp.h), without EAL or packets I/O:
 *  - the RFC 4303 anti-replay window and ESN reconstruction against the
 *    RFC's own examples and a naive model written from RFC 4303 3.4.3 and
 *    Appendix A (a list of the recorded numbers, the reconstruction as "the
 *    number in [T - W + 1, T - W + 2^32] with this low half"). Window edges
 *    (W - 1, W, W + 1 back), duplicates in both halves of every bitmap
 *    word, ESN across 2^32 and 2^63, cases A and B, windows 1 .. 8191
 *    (multiples of 64 and not), jumps past the bitmap, W = 0 (also with
 *    threads updating at once);
 *  - outbound sequence numbers: the ceilings 2^32 - 1 and 2^64 - 1, runs
 *    cut short there, threads reserving at once (no number twice, none
 *    skipped);
 *  - the ESP header and trailer: padding lengths, the bytes built, the
 *    check of padding (every wrong byte), pad lengths that do not fit,
 *    dummy packets, tunnel inner versions;
 *  - the IPv4/IPv6 walks: RFC 8200 chains (Hop-by-Hop first only, Routing
 *    and Destination Options in any order and number, Fragment and AH end
 *    the walk), the length limit, truncation at every byte, walks to a
 *    given l3_len; ESP located in IPv4/IPv6 datagrams; the RFC 1624
 *    header update.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
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

/*
 * vecsec_esp_replay_floor(): afterwards every number up to the floor is
 * refused, every number above it answers as before (or, with the top
 * moved up to the floor, is fresh), and the window goes on as usual.
 */
static void
floor_one(uint32_t w, uint64_t base, int64_t rel)
{
	struct vecsec_esp_replay *r;
	uint64_t top = base + 3 * (uint64_t)w + 100, f = top + (uint64_t)rel, lo, hi;
	bool esn = base > UINT32_MAX - 100000;
	static int before[20000];

	r = win_new(w, esn, base);
	/* some numbers recorded: every third below the top, and the top */
	for (uint64_t s = top - 2 * (uint64_t)w; s < top; s += 3)
		VT_EXPECT(vecsec_esp_replay_update(r, s) == 0, "update %" PRIu64, s);
	VT_EXPECT(vecsec_esp_replay_update(r, top) == 0, "update top");
	lo = f > 2 * (uint64_t)w + 10 ? f - 2 * (uint64_t)w - 10 : 1;
	hi = f + 2 * (uint64_t)w + 10;
	VT_EXPECT(hi - lo < VT_ARRAY_SIZE(before), "range");
	for (uint64_t s = lo; s <= hi; s++)
		before[s - lo] = vecsec_esp_replay_check(r, s);
	VT_EXPECT(vecsec_esp_replay_floor(r, f) == 0, "floor W=%u at top%+" PRId64, w, rel);
	VT_EXPECT(vecsec_esp_replay_top(r) == (f > top ? f : top), "top after the floor");
	for (uint64_t s = lo; s <= hi; s++) {
		int rc = vecsec_esp_replay_check(r, s), want = s <= f ? 1 : f > top ? 0 :
			before[s - lo] != 0;

		VT_EXPECT((rc != 0) == (want != 0), "W=%u floor top%+" PRId64 ": %" PRIu64
			  " check %d, want %s", w, rel, s, rc, want ? "refused" : "accepted");
	}
	/* on as usual: the next number in, then refused; a later one, the gap still fresh */
	VT_EXPECT(vecsec_esp_replay_update(r, f + 1) == (f + 1 <= top &&
		  before[f + 1 - lo] != 0 ? before[f + 1 - lo] : 0), "update floor + 1");
	VT_EXPECT(vecsec_esp_replay_check(r, f + 1) != 0, "floor + 1 seen");
	hi = (hi > top ? hi : top) + w + 10;
	VT_EXPECT(vecsec_esp_replay_update(r, hi) == 0, "update past the range");
	VT_EXPECT(w < 2 || vecsec_esp_replay_check(r, hi - 1) == 0, "the number below it fresh");
}

static void
test_floor(void)
{
	static const uint32_t ws[] = { 1, 63, 64, 65, 100, 128, 1024 };
	static const int64_t rels[] = { -5000, -200, -64, -63, -10, -1, 0, 1, 2, 62, 63, 64,
					100, 1000, 100000 };
	static const uint64_t bases[] = { 0, 70000, TWO32 + 7 };

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(ws); i++)
		for (unsigned int b = 0; b < VT_ARRAY_SIZE(bases); b++)
			for (unsigned int k = 0; k < VT_ARRAY_SIZE(rels); k++)
				if ((int64_t)(bases[b] + 3 * (uint64_t)ws[i] + 100) + rels[k] > 0)
					floor_one(ws[i], bases[b], rels[k]);
	/* the argument checks, and W = 0: only the top */
	VT_EXPECT(vecsec_esp_replay_floor(NULL, 5) == -EINVAL, "NULL");
	VT_EXPECT(vecsec_esp_replay_floor(win_new(64, false, 0), TWO32) == -EINVAL,
		  "32-bit SA, floor above 2^32 - 1");
	VT_EXPECT(vecsec_esp_replay_floor(win_new(0, false, 10), 500) == 0 &&
		  vecsec_esp_replay_top((struct vecsec_esp_replay *)store) == 500, "W = 0: the top");
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

/* ---- outbound sequence numbers ------------------------------------------ */

static void
test_seq(void)
{
	struct vecsec_esp_seq s;
	uint64_t first = 0;

	VT_EXPECT(vecsec_esp_seq_init(NULL, true, 0) == -EINVAL, "NULL");
	VT_EXPECT(vecsec_esp_seq_init(&s, false, TWO32) == -EINVAL, "32-bit last above 2^32 - 1");
	VT_EXPECT(vecsec_esp_seq_init(&s, false, UINT32_MAX) == 0, "32-bit last 2^32 - 1");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 0, "32-bit: exhausted at once");
	/* a new SA starts at 1 */
	VT_EXPECT(vecsec_esp_seq_init(&s, false, 0) == 0, "init");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 0, &first) == 0, "n = 0");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, NULL) == 0, "NULL first");
	VT_EXPECT(vecsec_esp_seq_reserve(NULL, 1, &first) == 0, "NULL counter");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 1 && first == 1, "first is 1");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 5, &first) == 5 && first == 2, "run of 5 from 2");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 1 && first == 7, "then 7");
	/* RFC 4303 3.3.3: the last 32-bit number is 2^32 - 1, then nothing */
	VT_EXPECT(vecsec_esp_seq_init(&s, false, UINT32_MAX - 3) == 0, "near 2^32");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 10, &first) == 3 && first == TWO32 - 3,
		  "run cut at 2^32 - 1");
	first = 5;
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 0 && first == 5,
		  "32-bit: no wrap, first untouched");
	/* ESN: 2^32 - 1 is not the end; 2^64 - 1 is */
	VT_EXPECT(vecsec_esp_seq_init(&s, true, UINT32_MAX - 1) == 0, "ESN near 2^32");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 4, &first) == 4 && first == TWO32 - 1,
		  "ESN across 2^32");
	VT_EXPECT(vecsec_esp_seq_init(&s, true, (UINT64_C(1) << 63) - 2) == 0, "ESN near 2^63");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 4, &first) == 4 && first == (UINT64_C(1) << 63) - 1,
		  "ESN across 2^63");
	VT_EXPECT(vecsec_esp_seq_init(&s, true, UINT64_MAX - 2) == 0, "ESN near 2^64");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 64, &first) == 2 && first == UINT64_MAX - 1,
		  "ESN run cut at 2^64 - 1");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 0, "ESN: no wrap");
	VT_EXPECT(vecsec_esp_seq_init(&s, true, UINT64_MAX) == 0, "ESN last 2^64 - 1");
	VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == 0, "ESN: exhausted at once");
}

/*
 * vecsec_esp_seq_reserve_excl() hands out exactly what vecsec_esp_seq_reserve()
 * does: two counters from the same start, the same requests (random sizes,
 * 0 included), at the start and near 2^32 - 1 and 2^64 - 1.
 */
static void
test_seq_excl(void)
{
	static const struct { bool esn; uint64_t last; } start[] = {
		{ false, 0 }, { false, UINT32_MAX - 300 }, { true, UINT32_MAX - 300 },
		{ true, UINT64_MAX - 300 }, { false, UINT32_MAX }, { true, UINT64_MAX },
	};
	uint64_t rng = 0x243f6a8885a308d3ull, first = 0;
	unsigned int bad = 0, got = 0;

	for (unsigned int t = 0; t < sizeof(start) / sizeof(start[0]); t++) {
		struct vecsec_esp_seq a, b;

		if (vecsec_esp_seq_init(&a, start[t].esn, start[t].last) != 0 ||
		    vecsec_esp_seq_init(&b, start[t].esn, start[t].last) != 0) {
			bad++;
			continue;
		}
		for (unsigned int i = 0; i < 400; i++) {
			uint64_t fa = 7, fb = 7;
			uint32_t n, ka, kb;

			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			n = (uint32_t)(rng % 40);
			ka = vecsec_esp_seq_reserve(&a, n, &fa);
			kb = vecsec_esp_seq_reserve_excl(&b, n, &fb);
			bad += ka != kb || fa != fb;
			got += kb;
		}
	}
	VT_EXPECT(bad == 0 && got > 0,
		  "exclusive reserve: the same numbers as the atomic one (%u requests differ, "
		  "%u numbers)", bad, got);
	VT_EXPECT(vecsec_esp_seq_reserve_excl(NULL, 1, &first) == 0 &&
		  vecsec_esp_seq_reserve_excl(NULL, 0, NULL) == 0, "exclusive reserve: NULL");
}

#define SEQ_THREADS 4
#define SEQ_RUNS 20000

struct seq_thread {
	struct vecsec_esp_seq *s;
	unsigned int id;
	uint64_t got;           /* numbers reserved */
	uint64_t sum;           /* their sum */
	uint64_t bad;           /* runs out of order within this thread */
};

static void *
seq_thread_run(void *arg)
{
	struct seq_thread *t = arg;
	uint64_t prev = 0, first;

	for (unsigned int i = 0; i < SEQ_RUNS; i++) {
		uint32_t n = vecsec_esp_seq_reserve(t->s, 1 + (i + t->id) % 7, &first);

		if (n == 0)
			break;
		if (first <= prev)
			t->bad++;
		prev = first + n - 1;
		t->got += n;
		for (uint32_t k = 0; k < n; k++)
			t->sum += first + k;
	}
	return NULL;
}

/* Threads taking runs at once: every number 1..N exactly once, N = the ceiling. */
static void
test_seq_threads(void)
{
	static const uint64_t lasts[] = { 0, UINT32_MAX - 30000 };
	struct vecsec_esp_seq s;
	struct seq_thread t[SEQ_THREADS];
	pthread_t th[SEQ_THREADS];

	for (unsigned int l = 0; l < VT_ARRAY_SIZE(lasts); l++) {
		uint64_t got = 0, sum = 0, bad = 0, first = 0, top;

		VT_EXPECT(vecsec_esp_seq_init(&s, false, lasts[l]) == 0, "init");
		for (unsigned int i = 0; i < SEQ_THREADS; i++) {
			t[i] = (struct seq_thread){ .s = &s, .id = i };
			VT_EXPECT(pthread_create(&th[i], NULL, seq_thread_run, &t[i]) == 0,
				  "thread");
		}
		for (unsigned int i = 0; i < SEQ_THREADS; i++) {
			pthread_join(th[i], NULL);
			got += t[i].got;
			sum += t[i].sum;
			bad += t[i].bad;
		}
		top = lasts[l] + got;
		VT_EXPECT(bad == 0, "a thread's runs ascend");
		/* distinct numbers lasts + 1 .. top: count and sum say so */
		VT_EXPECT(sum == (top * (top + 1) - lasts[l] * (lasts[l] + 1)) / 2 &&
			  top <= UINT32_MAX, "last %llu: %llu numbers, sum %llu",
			  (unsigned long long)lasts[l], (unsigned long long)got,
			  (unsigned long long)sum);
		VT_EXPECT(vecsec_esp_seq_reserve(&s, 1, &first) == (top < UINT32_MAX) &&
			  (top == UINT32_MAX || first == top + 1), "next after the threads");
	}
}

/* ---- the window with W = 0 and threads ---------------------------------- */

#define TOP_THREADS 4

struct top_thread {
	struct vecsec_esp_replay *r;
	uint64_t seed, max;
};

static void *
top_thread_run(void *arg)
{
	struct top_thread *t = arg;

	for (unsigned int i = 0; i < 50000; i++) {
		uint64_t s = 1 + vt_below(&t->seed, 1000000) + (uint64_t)i * 16;

		if (vecsec_esp_replay_update(t->r, s) == 0 && s > t->max)
			t->max = s;
	}
	return NULL;
}

/* W = 0: threads update at once, the top ends at the largest number of all. */
static void
test_top_threads(void)
{
	struct vecsec_esp_replay *r = win_new(0, true, 0);
	struct top_thread t[TOP_THREADS];
	pthread_t th[TOP_THREADS];
	uint64_t max = 0;

	for (unsigned int i = 0; i < TOP_THREADS; i++) {
		t[i] = (struct top_thread){ .r = r, .seed = vt_seed() + i, .max = 0 };
		VT_EXPECT(pthread_create(&th[i], NULL, top_thread_run, &t[i]) == 0, "thread");
	}
	for (unsigned int i = 0; i < TOP_THREADS; i++) {
		pthread_join(th[i], NULL);
		if (t[i].max > max)
			max = t[i].max;
	}
	VT_EXPECT(vecsec_esp_replay_top(r) == max, "top %llu, largest %llu",
		  (unsigned long long)vecsec_esp_replay_top(r), (unsigned long long)max);
	VT_EXPECT(vecsec_esp_replay_update(r, 0) == -ERANGE && vecsec_esp_replay_check(r, 1) == 0,
		  "W = 0: 0 is never a number, everything else passes");
}

/* ---- ESP header and trailer --------------------------------------------- */

static void
test_hdr_trailer_build(void)
{
	static const uint8_t want_hdr[16] = { 0xc0, 0xde, 0x00, 0x01, 0x55, 0x66, 0x77, 0x88,
					      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	uint8_t b[VT_GUARD + 300], hdr[16];

	vecsec_esp_hdr_build(hdr, 0xc0de0001u, UINT64_C(0x1122334455667788));
	VT_EXPECT_MEM(hdr, want_hdr, 16, "SPI, seq low half, IV = the 64-bit number");
	/* RFC 4303 2.4: payload + padding + 2 is a multiple of 4, padding minimal */
	for (uint32_t len = 0; len < 100; len++) {
		uint32_t pad = vecsec_esp_pad_len(len);

		VT_EXPECT(pad <= 3 && (len + pad + 2) % 4 == 0, "len %u: pad %u", len, pad);
	}
	VT_EXPECT(vecsec_esp_pad_len(UINT32_MAX - 1) == 0, "no overflow near 2^32");
	for (uint32_t pad = 0; pad <= 255; pad++) {
		memset(b, 0xee, sizeof(b));
		vecsec_esp_trailer_build(b + 1, pad, (uint8_t)(pad * 7));
		VT_EXPECT(b[0] == 0xee && b[pad + 3] == 0xee, "pad %u: nothing around", pad);
		for (uint32_t i = 0; i < pad; i++)
			VT_EXPECT(b[1 + i] == i + 1, "pad %u: byte %u", pad, i);
		VT_EXPECT(b[1 + pad] == pad && b[2 + pad] == (uint8_t)(pad * 7),
			  "pad %u: pad length and next header", pad);
	}
}

/* A plaintext of len payload bytes (first byte v) with a trailer of pad, nh. */
static uint32_t
plain(uint8_t *pt, uint32_t len, uint8_t v, uint32_t pad, uint8_t nh)
{
	memset(pt, 0, len);
	if (len != 0)
		pt[0] = v;
	vecsec_esp_trailer_build(pt + len, pad, nh);
	return len + pad + 2;
}

static int
check_plain(const uint8_t *pt, uint32_t ct_len, bool tunnel)
{
	const uint8_t *trl = pt + ct_len - 2;
	uint32_t pad = trl[0];

	return vecsec_esp_trailer_check(trl, pad != 0 && pad + 2 <= ct_len ? trl - pad : NULL,
					ct_len, tunnel, ct_len > pad + 2 ? pt : NULL);
}

static void
test_trailer_check(void)
{
	uint8_t pt[600];
	uint32_t n;

	/* every pad length, transport and tunnel, IPv4 and IPv6 inside */
	for (uint32_t pad = 0; pad <= 255; pad++) {
		n = plain(pt, 40, 0x45, pad, 17);
		VT_EXPECT(check_plain(pt, n, false) == 17, "transport pad %u", pad);
		n = plain(pt, 40, 0x45, pad, 4);
		VT_EXPECT(check_plain(pt, n, true) == 4, "tunnel IPv4 pad %u", pad);
		n = plain(pt, 40, 0x60, pad, 41);
		VT_EXPECT(check_plain(pt, n, true) == 41, "tunnel IPv6 pad %u", pad);
		/* every padding byte wrong in turn */
		for (uint32_t i = 0; i < pad; i++) {
			n = plain(pt, 40, 0x45, pad, 4);
			pt[40 + i] ^= 0x80;
			VT_EXPECT(check_plain(pt, n, true) == -EBADMSG &&
				  check_plain(pt, n, false) == -EBADMSG, "pad %u: byte %u wrong",
				  pad, i);
		}
	}
	/* padding of zeros (RFC 4303 2.4 says 1, 2, 3, ...) */
	n = plain(pt, 10, 0x45, 2, 17);
	pt[10] = 0;
	pt[11] = 0;
	VT_EXPECT(check_plain(pt, n, false) == -EBADMSG, "zero padding");
	/* a pad length that does not fit in the plaintext */
	n = plain(pt, 0, 0, 0, 17);
	pt[0] = 1;
	VT_EXPECT(vecsec_esp_trailer_check(pt, NULL, n, false, NULL) == -EBADMSG,
		  "pad 1 in a 2-byte plaintext");
	pt[0] = 255;
	VT_EXPECT(vecsec_esp_trailer_check(pt, pt, n, false, NULL) == -EBADMSG, "pad 255 in 2");
	n = plain(pt, 5, 0x45, 3, 17);
	VT_EXPECT(vecsec_esp_trailer_check(pt + n - 2, NULL, n, false, pt) == -EBADMSG,
		  "padding bytes not given");
	/* RFC 4303 2.6: a dummy packet, any mode, any payload; its padding still checked */
	n = plain(pt, 33, 0x99, 1, 59);
	VT_EXPECT(check_plain(pt, n, false) == 59 && check_plain(pt, n, true) == 59, "dummy");
	n = plain(pt, 0, 0, 2, 59);
	VT_EXPECT(check_plain(pt, n, true) == 59, "empty tunnel dummy");
	n = plain(pt, 33, 0x99, 1, 59);
	pt[33] = 7;
	VT_EXPECT(check_plain(pt, n, false) == -EBADMSG, "dummy with bad padding");
	/* tunnel: the next header names IPv4 or IPv6 and the inner packet agrees */
	n = plain(pt, 40, 0x60, 2, 4);
	VT_EXPECT(check_plain(pt, n, true) == -EBADMSG, "tunnel: 4 but version 6");
	n = plain(pt, 40, 0x45, 2, 41);
	VT_EXPECT(check_plain(pt, n, true) == -EBADMSG, "tunnel: 41 but version 4");
	n = plain(pt, 40, 0x45, 2, 17);
	VT_EXPECT(check_plain(pt, n, true) == -EBADMSG, "tunnel: UDP");
	VT_EXPECT(check_plain(pt, n, false) == 17, "transport: UDP");
	n = plain(pt, 0, 0, 2, 4);
	VT_EXPECT(check_plain(pt, n, true) == -EBADMSG, "tunnel: empty inner packet");
	VT_EXPECT(check_plain(pt, n, false) == 4, "transport: empty payload is fine");
}

/* ---- IPv4 / IPv6 headers ------------------------------------------------ */

/* RFC 1071: the ones' complement sum of a header, 0xffff when its checksum is right. */
static uint16_t
ip4_sum(const uint8_t *h, uint32_t hl)
{
	uint32_t sum = 0;

	for (uint32_t i = 0; i < hl; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* An IPv4 header of hl bytes, protocol proto, total length tl, right checksum. */
static void
ip4(uint8_t *p, uint32_t hl, uint8_t proto, uint32_t tl, uint16_t frag)
{
	uint16_t ck;

	memset(p, 0, hl);
	p[0] = (uint8_t)(0x40 | hl / 4);
	p[2] = (uint8_t)(tl >> 8);
	p[3] = (uint8_t)tl;
	p[6] = (uint8_t)(frag >> 8);
	p[7] = (uint8_t)frag;
	p[8] = 64;
	p[9] = proto;
	for (uint32_t i = 20; i < hl; i++)
		p[i] = 1;               /* NOP options */
	ck = (uint16_t)~ip4_sum(p, hl);
	p[10] = (uint8_t)(ck >> 8);
	p[11] = (uint8_t)ck;
}

/*
 * An IPv6 packet: fixed header, then one extension header per exts[] entry
 * (type, length in 8-octet units past the first 8), then next header last,
 * then pl bytes; returns the offset after the extensions.
 */
static uint32_t
ip6(uint8_t *p, const uint8_t (*exts)[2], unsigned int n, uint8_t last, uint32_t pl)
{
	uint32_t off = 40, nh_off = 6;

	memset(p, 0, 40);
	p[0] = 0x60;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t el = ((uint32_t)exts[i][1] + 1) * 8;

		p[nh_off] = exts[i][0];
		memset(p + off, 0, el);
		p[off + 1] = exts[i][1];
		nh_off = off;
		off += el;
	}
	p[nh_off] = last;
	memset(p + off, 0xab, pl);
	p[4] = (uint8_t)((off - 40 + pl) >> 8);
	p[5] = (uint8_t)(off - 40 + pl);
	return off;
}

static void
test_ip6_walk(void)
{
	static const struct {
		uint8_t exts[8][2];
		unsigned int n;
		uint8_t last;
		int want;               /* walked bytes, or -EBADMSG */
		uint8_t nh;             /* next header after the walk */
		uint32_t nh_off;
		const char *what;
	} v[] = {
		{ { { 0 } }, 0, 50, 40, 50, 6, "no extensions" },
		{ { { 0, 0 } }, 1, 50, 48, 50, 40, "Hop-by-Hop" },
		{ { { 0, 0 }, { 60, 1 }, { 43, 2 }, { 60, 0 } }, 4, 50, 40 + 8 + 16 + 24 + 8, 50,
		  88, "HBH, DO, RT, DO (RFC 8200 4.1 order)" },
		{ { { 43, 0 }, { 43, 0 }, { 60, 0 }, { 60, 0 }, { 60, 0 } }, 5, 50, 80, 50, 72,
		  "any order, any number of times" },
		{ { { 60, 0 }, { 0, 0 } }, 2, 50, -EBADMSG, 0, 0, "Hop-by-Hop second" },
		{ { { 0, 0 }, { 0, 0 } }, 2, 50, -EBADMSG, 0, 0, "Hop-by-Hop twice" },
		{ { { 0, 0 }, { 44, 0 } }, 2, 50, 48, 44, 40, "Fragment ends the walk" },
		{ { { 51, 1 } }, 1, 50, 40, 51, 6, "AH ends the walk" },
		{ { { 60, 0 } }, 1, 59, 48, 59, 40, "No Next Header" },
		{ { { 60, 0 } }, 1, 6, 48, 6, 40, "TCP after DO" },
		/* 40 + 7 * 64 = 488; + 8 = 496 is the limit, + 16 beyond it */
		{ { { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 },
		    { 60, 0 } }, 8, 50, VECSEC_ESP_IP6_HDR_MAX, 50, 488, "496 bytes: the limit" },
		{ { { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 }, { 60, 7 },
		    { 60, 1 } }, 8, 50, -EBADMSG, 0, 0, "504 bytes: beyond the limit" },
		{ { { 43, 255 } }, 1, 50, -EBADMSG, 0, 0, "one header beyond the limit" },
	};
	static uint8_t p[4096];

	for (unsigned int i = 0; i < VT_ARRAY_SIZE(v); i++) {
		uint32_t end = ip6(p, v[i].exts, v[i].n, v[i].last, 100), nh_off = 0;
		uint8_t nh = 0;
		int rc = vecsec_esp_ip6_walk(p, end + 100, 0, &nh, &nh_off);

		VT_EXPECT(rc == v[i].want, "%s: %d, want %d", v[i].what, rc, v[i].want);
		if (rc >= 0)
			VT_EXPECT(nh == v[i].nh && nh_off == v[i].nh_off && p[nh_off] == nh,
				  "%s: next header %u at %u", v[i].what, nh, nh_off);
		if (rc < 0)
			continue;
		/* cut anywhere inside a walked header: refused; at its end: the same walk */
		for (uint32_t len = 0; len < (uint32_t)rc + 2; len++) {
			int c = vecsec_esp_ip6_walk(p, len, 0, NULL, NULL);

			VT_EXPECT(len >= (uint32_t)rc ? c == rc : c == -EBADMSG,
				  "%s cut to %u: %d", v[i].what, len, c);
		}
		/* walks to every l3_len: the end of each walked header, nothing else */
		for (uint32_t e = 1; e <= (uint32_t)rc + 8; e++) {
			uint32_t at = 40;
			bool boundary = false;
			int c;

			for (unsigned int k = 0; k <= v[i].n && at <= e; k++) {
				if (at == e)
					boundary = true;
				if (k < v[i].n)
					at += ((uint32_t)v[i].exts[k][1] + 1) * 8;
			}
			boundary = boundary && e <= (uint32_t)rc;
			c = vecsec_esp_ip6_walk(p, end + 100, e, &nh, &nh_off);
			VT_EXPECT(boundary ? c == (int)e && p[nh_off] == nh : c == -EBADMSG,
				  "%s: walk to %u gives %d", v[i].what, e, c);
		}
	}
	VT_EXPECT(vecsec_esp_ip6_walk(p, 39, 0, NULL, NULL) == -EBADMSG, "short fixed header");
	VT_EXPECT(vecsec_esp_ip6_walk(NULL, 100, 0, NULL, NULL) == -EBADMSG, "NULL");
}

static void
test_ip_len(void)
{
	uint8_t p[200];
	uint32_t l = 7;

	ip4(p, 24, 50, 100, 0);
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 200, &l) == 4 && l == 100, "IPv4, link padding");
	VT_EXPECT(vecsec_esp_ip_len(p, 24, 100, &l) == 4, "IPv4 header alone in place");
	l = 7;
	VT_EXPECT(vecsec_esp_ip_len(p, 23, 100, &l) == -EBADMSG && l == 7,
		  "IPv4 options cut off, length untouched");
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 99, &l) == -EBADMSG, "IPv4 longer than the packet");
	ip4(p, 20, 50, 19, 0);
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 200, &l) == -EBADMSG, "total length < header");
	p[0] = 0x44;
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 200, &l) == -EBADMSG, "IHL 4");
	ip6(p, NULL, 0, 50, 60);
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 200, &l) == 6 && l == 100, "IPv6");
	VT_EXPECT(vecsec_esp_ip_len(p, 39, 200, &l) == -EBADMSG, "IPv6 header cut off");
	VT_EXPECT(vecsec_esp_ip_len(p, 100, 99, &l) == -EBADMSG, "IPv6 longer than the packet");
	p[0] = 0x50;
	VT_EXPECT(vecsec_esp_ip_len(p, 200, 200, &l) == -EBADMSG, "version 5");
	VT_EXPECT(vecsec_esp_ip_len(p, 0, 200, &l) == -EBADMSG, "nothing");
}

static void
test_in_parse(void)
{
	static const uint8_t chain[2][2] = { { 0, 0 }, { 60, 1 } };
	static const uint8_t frag[1][2] = { { 44, 0 } };
	uint8_t p[400];
	struct vecsec_esp_in in;
	uint32_t hl;

	/* IPv4 with options: header, ESP header + IV, 8 bytes of ciphertext, ICV */
	ip4(p, 28, 50, 28 + 16 + 8 + 16, 0);
	vecsec_esp_hdr_build(p + 28, 0xabcdef01u, 0x1234);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == 0 && in.ver == 4 && in.hlen == 28 &&
		  in.ip_len == 68 && in.ct_len == 8 && in.nh_off == 9 &&
		  in.spi == 0xabcdef01u && in.seq_lo == 0x1234, "IPv4 ESP");
	VT_EXPECT(vecsec_esp_in_parse(p, 28 + 16, 68, &in) == 0, "header and IV in place suffice");
	VT_EXPECT(vecsec_esp_in_parse(p, 28 + 15, 68, &in) == -EBADMSG, "IV cut off");
	ip4(p, 20, 50, 20 + 16 + 6 + 16, 0);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "ciphertext not 4-aligned");
	ip4(p, 20, 50, 20 + 16 + 0 + 16, 0);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "no room for a trailer");
	ip4(p, 20, 50, 20 + 16 + 4 + 16, 0);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == 0 && in.ct_len == 4, "smallest");
	ip4(p, 20, 17, 20 + 16 + 4 + 16, 0);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "UDP, not ESP");
	ip4(p, 20, 50, 20 + 16 + 4 + 16, 0x2000);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "IPv4 MF");
	ip4(p, 20, 50, 20 + 16 + 4 + 16, 0x0001);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "IPv4 offset");
	ip4(p, 20, 50, 20 + 16 + 4 + 16, 0x4000);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == 0, "IPv4 DF is fine");
	/* IPv6 with Hop-by-Hop and Destination Options before ESP */
	hl = ip6(p, chain, 2, 50, 16 + 12 + 16);
	vecsec_esp_hdr_build(p + hl, 7, UINT64_C(0x500000009));
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == 0 && in.ver == 6 && in.hlen == 64 &&
		  in.ct_len == 12 && in.nh_off == 48 && in.spi == 7 && in.seq_lo == 9,
		  "IPv6 ESP after extensions");
	VT_EXPECT(vecsec_esp_in_parse(p, 400, hl + 43, &in) == -EBADMSG,
		  "IPv6 longer than the packet");
	ip6(p, frag, 1, 50, 8 + 16 + 12 + 16);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "IPv6 fragment");
	ip6(p, chain, 2, 51, 16 + 12 + 16);
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, &in) == -EBADMSG, "AH, not ESP");
	VT_EXPECT(vecsec_esp_in_parse(p, 400, 400, NULL) == -EBADMSG, "NULL");
}

static void
test_transport_hdr(void)
{
	static const uint8_t chain[3][2] = { { 0, 0 }, { 43, 1 }, { 60, 0 } };
	uint8_t p[400];
	uint32_t hlen = 0, nh_off = 0;

	ip4(p, 32, 17, 100, 0);
	VT_EXPECT(vecsec_esp_transport_hdr(p, 100, 0, &hlen, &nh_off) == 0 && hlen == 32 &&
		  nh_off == 9, "IPv4 with options");
	VT_EXPECT(vecsec_esp_transport_hdr(p, 100, 32, &hlen, &nh_off) == 0, "IPv4 l3_len");
	VT_EXPECT(vecsec_esp_transport_hdr(p, 100, 20, &hlen, &nh_off) == -EBADMSG,
		  "IPv4 l3_len not the header");
	VT_EXPECT(vecsec_esp_transport_hdr(p, 31, 0, &hlen, &nh_off) == -EBADMSG,
		  "IPv4 options cut off");
	ip6(p, chain, 3, 17, 20);
	VT_EXPECT(vecsec_esp_transport_hdr(p, 200, 0, &hlen, &nh_off) == 0 && hlen == 72 &&
		  nh_off == 64, "IPv6: after HBH, RT, DO");
	VT_EXPECT(vecsec_esp_transport_hdr(p, 200, 64, &hlen, &nh_off) == 0 && hlen == 64 &&
		  nh_off == 48, "IPv6: to l3_len, DO after ESP");
	VT_EXPECT(vecsec_esp_transport_hdr(p, 200, 60, &hlen, &nh_off) == -EBADMSG,
		  "IPv6: l3_len inside a header");
	p[0] = 0x70;
	VT_EXPECT(vecsec_esp_transport_hdr(p, 200, 0, &hlen, &nh_off) == -EBADMSG, "version 7");
}

/* RFC 1624: a right checksum stays right, a wrong one stays wrong by as much. */
static void
test_ip_update(void)
{
	uint8_t p[60], q[60];
	uint64_t st = vt_seed() ^ 0x1624;

	for (unsigned int i = 0; i < 20000; i++) {
		uint32_t hl = 20 + 4 * vt_below(&st, 11), len = vt_below(&st, 65536);
		uint8_t nh = (uint8_t)vt_next(&st);
		bool wrong = i & 1;

		vt_rand(p, sizeof(p), st);
		ip4(q, hl, p[9], (uint32_t)p[2] << 8 | p[3], 0);
		memcpy(q + 12, p + 12, hl - 12);        /* random addresses and options */
		q[10] = q[11] = 0;
		{
			uint16_t ck = (uint16_t)~ip4_sum(q, hl);

			q[10] = (uint8_t)(ck >> 8);
			q[11] = (uint8_t)ck;
		}
		if (wrong)
			q[11] ^= 0x10;
		vecsec_esp_ip_update(q, 4, 9, nh, len);
		VT_EXPECT(q[9] == nh && (uint32_t)(q[2] << 8 | q[3]) == len, "fields");
		VT_EXPECT((ip4_sum(q, hl) == 0xffff) == !wrong, "checksum %s after the update",
			  wrong ? "still wrong" : "right");
	}
	ip6(p, NULL, 0, 50, 0);
	vecsec_esp_ip_update(p, 6, 6, 17, 40 + 1234);
	VT_EXPECT(p[6] == 17 && p[4] == 1234 >> 8 && p[5] == (1234 & 0xff), "IPv6 payload length");
}

int
main(void)
{
	static const struct vt_test tests[] = {
		VT_TEST(test_args),
		VT_TEST(test_duplicates),
		VT_TEST(test_edges),
		VT_TEST(test_jumps),
		VT_TEST(test_floor),
		VT_TEST(test_esn_recover),
		VT_TEST(test_model),
		VT_TEST(test_seq),
		VT_TEST(test_seq_excl),
		VT_TEST(test_seq_threads),
		VT_TEST(test_top_threads),
		VT_TEST(test_hdr_trailer_build),
		VT_TEST(test_trailer_check),
		VT_TEST(test_ip6_walk),
		VT_TEST(test_ip_len),
		VT_TEST(test_in_parse),
		VT_TEST(test_transport_hdr),
		VT_TEST(test_ip_update),
	};

	return vt_main_once("esp", tests, VT_ARRAY_SIZE(tests));
}
