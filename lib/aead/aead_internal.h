/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal AEAD plumbing (never installed): one ops entry per algorithm,
 * and a segment cursor so every algorithm walks scatter-gather lists the
 * same way. The one-shot API and the burst are built on run(): a one-shot
 * call is a job with linear buffers.
 */
#ifndef VECSEC_AEAD_INTERNAL_H
#define VECSEC_AEAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vecsec/vecsec_aead.h"
#include "cpu_internal.h"

struct aead_ops {
	enum vecsec_aead_alg alg;
	const char *name;
	/* Fill k->opaque from the raw key; -EINVAL for a bad key_len. */
	int (*key_init)(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len);
	/*
	 * Run one job whose generic fields (pointers, lengths within limits,
	 * segment coverage) aead.c has already checked; check what is
	 * algorithm-specific (nonce_len, tag_len), then seal or open.
	 * Returns 0, -EBADMSG (open: output zeroed) or -EINVAL (nothing written).
	 */
	int (*run)(const struct vecsec_aead_job *job);
};

/* One per algorithm, defined next to its implementation. */
extern const struct aead_ops vecsec_aead_ops_chacha20_poly1305;
extern const struct aead_ops vecsec_aead_ops_xchacha20_poly1305;
extern const struct aead_ops vecsec_aead_ops_aria_gcm;
extern const struct aead_ops vecsec_aead_ops_aria_ctr;

/*
 * Bursts of ARIA jobs (aead_aria.c): true if a checked job may join a
 * batch (short, and its ARIA parameters valid); the batch runs jobs
 * grouped by key and sets every job's status.
 */
bool vecsec_aead_aria_batchable(const struct vecsec_aead_job *job);
void vecsec_aead_aria_burst(struct vecsec_aead_job *const *jobs, unsigned int n);

/*
 * Walks a job's source or destination as a sequence of contiguous runs,
 * whether linear or a segment list. Empty segments are skipped.
 */
struct aead_cursor {
	const struct vecsec_seg *segs; /* NULL: linear */
	uint32_t nb_segs;
	uint32_t seg;                  /* current segment */
	size_t off;                    /* offset in it (or in the linear buffer) */
	uint8_t *lin;                  /* linear buffer */
	size_t left;                   /* bytes still to walk */
};

void vecsec_aead_cursor_in(struct aead_cursor *c, const struct vecsec_aead_job *job);
void vecsec_aead_cursor_out(struct aead_cursor *c, const struct vecsec_aead_job *job);
/*
 * Next contiguous run of at most max bytes (0 = no limit): returns its
 * pointer and stores its length in *n (0 at the end).
 */
uint8_t *vecsec_aead_cursor_next(struct aead_cursor *c, size_t max, size_t *n);

/*
 * Zero a job's whole output (after a failed open): linear or segments.
 */
void vecsec_aead_wipe_out(const struct vecsec_aead_job *job);

#endif /* VECSEC_AEAD_INTERNAL_H */
