/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Jobs: the generic checks, the segment cursor and its paired walk, the
 * output wipe (job_internal.h). Portable C, no algorithm.
 */
#include <errno.h>
#include <string.h>

#include "job_internal.h"

/* Segments must cover len bytes; a segment that gives bytes needs data. */
bool
vecsec_job_segs_ok(const struct vecsec_seg *segs, uint32_t nb, size_t len)
{
	size_t sum = 0;

	if (segs == NULL)
		return false;
	for (uint32_t i = 0; i < nb && sum < len; i++) {
		if (segs[i].len > 0 && segs[i].data == NULL)
			return false;
		if (segs[i].len > SIZE_MAX - sum)
			return true;            /* covers anything */
		sum += segs[i].len;
	}
	return sum >= len;
}

static void
cursor_init(struct job_cursor *c, const uint8_t *lin, const struct vecsec_seg *segs,
	    uint32_t nb, size_t len)
{
	c->segs = nb > 0 ? segs : NULL;
	c->nb_segs = nb;
	c->seg = 0;
	c->off = 0;
	c->lin = (uint8_t *)(uintptr_t)lin;  /* a source is only read through the cursor */
	c->left = len;
}

void
vecsec_job_cursor_in(struct job_cursor *c, const struct vecsec_aead_job *job)
{
	cursor_init(c, job->in, job->in_segs, job->nb_in_segs, job->len);
}

void
vecsec_job_cursor_out(struct job_cursor *c, const struct vecsec_aead_job *job)
{
	cursor_init(c, job->out, job->out_segs, job->nb_out_segs, job->len);
}

uint8_t *
vecsec_job_cursor_next(struct job_cursor *c, size_t max, size_t *n)
{
	uint8_t *p;
	size_t k;

	if (c->left == 0) {
		*n = 0;
		return NULL;
	}
	if (c->segs == NULL) {
		p = c->lin + c->off;
		k = c->left;
	} else {
		/* skip used-up and empty segments; the checks made sure they cover left */
		while (c->seg < c->nb_segs && c->off == c->segs[c->seg].len) {
			c->seg++;
			c->off = 0;
		}
		if (c->seg == c->nb_segs) {
			*n = 0;
			return NULL;
		}
		p = c->segs[c->seg].data + c->off;
		k = c->segs[c->seg].len - c->off;
		if (k > c->left)
			k = c->left;
	}
	if (max != 0 && k > max)
		k = max;
	c->off += k;
	c->left -= k;
	*n = k;
	return p;
}

void
vecsec_job_pair_start(struct job_pair *w, const struct vecsec_aead_job *job)
{
	vecsec_job_cursor_in(&w->in, job);
	vecsec_job_cursor_out(&w->out, job);
	w->pi = NULL;
	w->po = NULL;
	w->ni = 0;
	w->no = 0;
}

size_t
vecsec_job_pair_next(struct job_pair *w, const uint8_t **in, uint8_t **out)
{
	size_t n;

	if (w->ni == 0)
		w->pi = vecsec_job_cursor_next(&w->in, 0, &w->ni);
	if (w->no == 0)
		w->po = vecsec_job_cursor_next(&w->out, 0, &w->no);
	n = w->ni < w->no ? w->ni : w->no;
	if (n == 0)
		return 0;
	*in = w->pi;
	*out = w->po;
	w->pi += n;
	w->ni -= n;
	w->po += n;
	w->no -= n;
	return n;
}

void
vecsec_job_wipe_out(const struct vecsec_aead_job *job)
{
	struct job_cursor c;
	uint8_t *p;
	size_t n;

	vecsec_job_cursor_out(&c, job);
	while ((p = vecsec_job_cursor_next(&c, 0, &n)) != NULL)
		vecsec_memzero(p, n);
}
