/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RFC 4303 anti-replay window (3.4.3, A.1) and ESN reconstruction (A.2.1),
 * portable C. The window is a ring of 64-bit words in RFC 6479's layout:
 * number S is bit S mod 64 of word (S / 64) mod words; words are cleared
 * as the top moves past them. words is a power of two of at least
 * ceil(W / 64) + 1, so the W numbers T - W + 1 .. T never share a word
 * with a number above T that would have to be cleared first: every one of
 * them is remembered (a ring of exactly ceil(W / 64) words loses the
 * oldest block each time the top enters a new word).
 *
 * The top and the bitmap are C11 atomics read and written relaxed (plain
 * moves on x86 and arm64): a check may run beside an update on another
 * thread and see a stale but never a torn value (vecsec_esp.h says who may
 * call what at once).
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

struct vecsec_esp_replay {
	_Atomic uint64_t top;   /* T: highest number recorded */
	uint32_t win;           /* W, 0: anti-replay off */
	uint32_t words;         /* bitmap words, a power of two (0 when W = 0) */
	uint8_t esn;
	_Atomic uint64_t bits[];
};

/* the size promised by VECSEC_ESP_REPLAY_SIZE_WORDS() covers the header */
_Static_assert(sizeof(struct vecsec_esp_replay) <= VECSEC_ESP_REPLAY_SIZE_WORDS(0),
	       "replay window header larger than VECSEC_ESP_REPLAY_SIZE_WORDS(0)");
_Static_assert(sizeof(_Atomic uint64_t) == 8, "64-bit atomics must be lock-free words");

#define RELAXED memory_order_relaxed

static inline uint64_t
top_of(const struct vecsec_esp_replay *r)
{
	return atomic_load_explicit(&r->top, RELAXED);
}

static uint32_t
bitmap_words(uint32_t win)
{
	uint32_t need, words = 1;

	if (win == 0)
		return 0;
	need = (win + 63) / 64 + 1;
	while (words < need)
		words <<= 1;
	return words;
}

size_t
vecsec_esp_replay_size(uint32_t win)
{
	if (win > VECSEC_ESP_REPLAY_WIN_MAX)
		return 0;
	return VECSEC_ESP_REPLAY_SIZE_WORDS(bitmap_words(win));
}

int
vecsec_esp_replay_init(struct vecsec_esp_replay *r, size_t size, uint32_t win, bool esn,
		       uint64_t top)
{
	size_t need = vecsec_esp_replay_size(win);

	if (r == NULL || need == 0 || size < need || ((uintptr_t)r & 7) != 0 ||
	    (!esn && top > UINT32_MAX))
		return -EINVAL;
	memset(r, 0, need);
	atomic_init(&r->top, top);
	r->win = win;
	r->words = bitmap_words(win);
	r->esn = esn;
	for (uint32_t w = 0; w < r->words; w++)
		atomic_init(&r->bits[w], 0);
	return 0;
}

int
vecsec_esp_esn_recover(uint64_t top, uint32_t win, uint32_t lo, uint64_t *seq)
{
	uint32_t tl = (uint32_t)top, th = (uint32_t)(top >> 32);
	uint32_t w, bl;
	uint64_t hi;

	if (seq == NULL || win > VECSEC_ESP_REPLAY_WIN_MAX)
		return -EINVAL;
	/* without a window: the 2^32 numbers around T, half behind and half ahead */
	w = win != 0 ? win : UINT32_C(1) << 31;
	bl = tl - w + 1;                /* Bl, modulo 2^32 */
	if (tl >= w - 1) {
		/* case A: T - W + 1 .. T in one subspace; below Bl means the next one */
		if (lo >= bl) {
			hi = th;
		} else {
			if (th == UINT32_MAX)
				return -ERANGE;
			hi = (uint64_t)th + 1;
		}
	} else {
		/* case B: the window starts in the previous subspace; at or above Bl is there */
		if (lo >= bl) {
			if (th == 0)
				return -ERANGE;
			hi = (uint64_t)th - 1;
		} else {
			hi = th;
		}
	}
	*seq = hi << 32 | lo;
	return 0;
}

int
vecsec_esp_replay_recover(const struct vecsec_esp_replay *r, uint32_t lo, uint64_t *seq)
{
	if (r == NULL || seq == NULL)
		return -EINVAL;
	if (!r->esn) {
		*seq = lo;
		return 0;
	}
	return vecsec_esp_esn_recover(top_of(r), r->win, lo, seq);
}

/* The bitmap word that holds number seq. */
static inline uint32_t
word_of(const struct vecsec_esp_replay *r, uint64_t seq)
{
	return (uint32_t)((seq >> 6) & (r->words - 1));
}

/* The check against a given top (read once by the caller). */
static inline int
check_at(const struct vecsec_esp_replay *r, uint64_t top, uint64_t seq)
{
	if (seq == 0 || (!r->esn && seq > UINT32_MAX))
		return -ERANGE;
	if (seq > top || r->win == 0)
		return 0;
	if (top - seq >= r->win)
		return -ERANGE;         /* at or below T - W */
	if ((atomic_load_explicit(&r->bits[word_of(r, seq)], RELAXED) >> (seq & 63)) & 1)
		return -EALREADY;
	return 0;
}

int
vecsec_esp_replay_check(const struct vecsec_esp_replay *r, uint64_t seq)
{
	if (r == NULL)
		return -EINVAL;
	return check_at(r, top_of(r), seq);
}

int
vecsec_esp_replay_update(struct vecsec_esp_replay *r, uint64_t seq)
{
	uint64_t top;
	int rc;

	if (r == NULL)
		return -EINVAL;
	top = top_of(r);
	rc = check_at(r, top, seq);
	if (rc != 0)
		return rc;
	if (r->win == 0) {
		/* no bitmap: the top is all there is, an atomic maximum (any writers) */
		while (seq > top && !atomic_compare_exchange_weak_explicit(&r->top, &top, seq,
									   RELAXED, RELAXED))
			;
		return 0;
	}
	/* one writer (the caller's lock): plain read-modify-write of relaxed atomics */
	if (seq > top) {
		/* clear the words the top enters, each at most once */
		uint64_t from = (top >> 6) + 1, to = seq >> 6;

		if (to >= from && to - from >= r->words)
			from = to - r->words + 1;
		for (uint64_t w = from; w <= to; w++)
			atomic_store_explicit(&r->bits[w & (r->words - 1)], 0, RELAXED);
		atomic_store_explicit(&r->top, seq, RELAXED);
	}
	atomic_store_explicit(&r->bits[word_of(r, seq)],
			      atomic_load_explicit(&r->bits[word_of(r, seq)], RELAXED) |
			      UINT64_C(1) << (seq & 63), RELAXED);
	return 0;
}

uint64_t
vecsec_esp_replay_top(const struct vecsec_esp_replay *r)
{
	return top_of(r);
}

uint32_t
vecsec_esp_replay_win(const struct vecsec_esp_replay *r)
{
	return r->win;
}

int
vecsec_esp_replay_floor(struct vecsec_esp_replay *r, uint64_t floor)
{
	uint64_t top, lo, s;

	if (r == NULL || (!r->esn && floor > UINT32_MAX))
		return -EINVAL;
	top = top_of(r);
	if (r->win == 0) {
		if (floor > top)
			atomic_store_explicit(&r->top, floor, RELAXED);
		return 0;
	}
	if (floor > top) {
		/* the top moves up to the floor: every word the ring keeps is below it */
		for (uint32_t w = 0; w < r->words; w++)
			atomic_store_explicit(&r->bits[w], ~UINT64_C(0), RELAXED);
		/* except the floor's own word above the floor */
		atomic_store_explicit(&r->bits[word_of(r, floor)],
				      (floor & 63) == 63 ? ~UINT64_C(0) :
				      (UINT64_C(1) << ((floor & 63) + 1)) - 1, RELAXED);
		atomic_store_explicit(&r->top, floor, RELAXED);
		return 0;
	}
	/* the floor within the window: mark T - W + 1 .. floor */
	lo = top >= r->win ? top - r->win + 1 : 1;
	for (s = lo; s <= floor && s != 0; s++) {
		uint32_t w = word_of(r, s);

		if ((s & 63) == 0 && floor - s >= 63) {
			atomic_store_explicit(&r->bits[w], ~UINT64_C(0), RELAXED);
			s += 63;
			continue;
		}
		atomic_store_explicit(&r->bits[w], atomic_load_explicit(&r->bits[w], RELAXED) |
				      UINT64_C(1) << (s & 63), RELAXED);
	}
	return 0;
}
