/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal AEAD plumbing (never installed): one ops entry per algorithm.
 * The one-shot API and the burst are built on run(): a one-shot call is a
 * job with linear buffers. Jobs themselves (checks, cursor, wipe) are
 * lib/job's.
 */
#ifndef VECSEC_AEAD_INTERNAL_H
#define VECSEC_AEAD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vecsec/vecsec_aead.h"
#include "cpu_internal.h"
#include "job/job_internal.h"

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

#endif /* VECSEC_AEAD_INTERNAL_H */
