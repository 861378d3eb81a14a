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
 */
#include "vecsec/vecsec_esp.h"

#include <errno.h>
#include <string.h>

struct vecsec_esp_replay {
	uint64_t top;           /* T: highest number recorded */
	uint32_t win;           /* W, 0: anti-replay off */
	uint32_t words;         /* bitmap words, a power of two (0 when W = 0) */
	uint8_t esn;
	uint64_t bits[];
};

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
	return sizeof(struct vecsec_esp_replay) + (size_t)bitmap_words(win) * sizeof(uint64_t);
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
	r->top = top;
	r->win = win;
	r->words = bitmap_words(win);
	r->esn = esn;
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
	return vecsec_esp_esn_recover(r->top, r->win, lo, seq);
}

/* The bitmap word that holds number seq. */
static inline uint32_t
word_of(const struct vecsec_esp_replay *r, uint64_t seq)
{
	return (uint32_t)((seq >> 6) & (r->words - 1));
}

int
vecsec_esp_replay_check(const struct vecsec_esp_replay *r, uint64_t seq)
{
	if (r == NULL)
		return -EINVAL;
	if (seq == 0 || (!r->esn && seq > UINT32_MAX))
		return -ERANGE;
	if (seq > r->top || r->win == 0)
		return 0;
	if (r->top - seq >= r->win)
		return -ERANGE;         /* at or below T - W */
	if ((r->bits[word_of(r, seq)] >> (seq & 63)) & 1)
		return -EALREADY;
	return 0;
}

int
vecsec_esp_replay_update(struct vecsec_esp_replay *r, uint64_t seq)
{
	int rc = vecsec_esp_replay_check(r, seq);

	if (rc != 0)
		return rc;
	if (seq > r->top) {
		if (r->win != 0) {
			/* clear the words the top enters, each at most once */
			uint64_t from = (r->top >> 6) + 1, to = seq >> 6;

			if (to >= from && to - from >= r->words)
				from = to - r->words + 1;
			for (uint64_t w = from; w <= to; w++)
				r->bits[w & (r->words - 1)] = 0;
		}
		r->top = seq;
	}
	if (r->win != 0)
		r->bits[word_of(r, seq)] |= UINT64_C(1) << (seq & 63);
	return 0;
}

uint64_t
vecsec_esp_replay_top(const struct vecsec_esp_replay *r)
{
	return r->top;
}

uint32_t
vecsec_esp_replay_win(const struct vecsec_esp_replay *r)
{
	return r->win;
}
