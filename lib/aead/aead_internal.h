/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AEAD router's ops table (never installed): one entry per algorithm,
 * each a set of function pointers into the layer that implements it
 * (lib/chachapoly, lib/aria). Key init validates the algorithm, and its id
 * in the key selects the entry from then on, as DPDK's lib/ipsec chooses
 * per-SA function pointers once. The key keeps the id, not a pointer, so
 * that a key in memory shared between processes (a DPDK session) stays
 * valid wherever the library is mapped.
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
	/*
	 * Bytes of struct vecsec_aead_key (header line included, a multiple
	 * of 64) a key of key_len bytes needs; 0 for a bad key_len. Every
	 * other entry point reads and writes no key byte beyond them.
	 */
	size_t (*key_size)(size_t key_len);
	/*
	 * Fill k's schedule (k->small or k->opaque) from the raw key; the
	 * router has checked key_len with key_size(), zeroed that many bytes
	 * and set the header.
	 */
	int (*key_init)(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len);
	/*
	 * Run one job whose generic fields (pointers, lengths within limits,
	 * segment coverage) lib/job has already checked, on the kernels of a
	 * dispatch level; check what is algorithm-specific (nonce_len,
	 * tag_len), then seal or open.
	 * Returns 0, -EBADMSG (open: output zeroed) or -EINVAL (nothing written).
	 */
	int (*run)(enum vecsec_isa level, const struct vecsec_aead_job *job);
	/*
	 * Run n checked jobs of this entry's algorithm (or of another entry
	 * with the same burst function: they are handed over together) and
	 * set every job's status, each as run() would have left it.
	 */
	void (*burst)(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n);
};

#endif /* VECSEC_AEAD_INTERNAL_H */
