/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA-GCM (SP 800-38D; RFC 4106 layout in ESP) and ARIA-CTR
 * (RFC 3686 layout: the nonce is the 16-byte counter block whose 32-bit
 * big-endian counter must not wrap; no tag) on AEAD jobs: the entry points
 * the AEAD router's ops table lists. Jobs are walked through lib/job's
 * segment cursors, so linear buffers and scatter-gather lists take the
 * same path. Open hashes the whole ciphertext and checks the tag before it
 * writes any plaintext.
 *
 * Bursts: jobs up to BATCH_MAX_LEN bytes (with valid parameters) are
 * grouped by key, the others run one by one; and the
 * counter blocks of a whole group (each GCM job's J0 too) go through one
 * ECB call of the wide kernel, which a short packet alone could not fill;
 * keys with only a few blocks share a many-key ECB call (a key per block)
 * where the kernel has one (the text blocks first, the J0s after, so that
 * a 64-byte job fills a 4-block vector under one key); then each job
 * xors, hashes and tags on its own, a short linear GCM job with one GHASH
 * call over AAD, text and lengths (the kernel's hash_short where it has one).
 */
#include <errno.h>
#include <stdalign.h>
#include <string.h>

#include "job/job_internal.h"
#include "aria_internal.h"

_Static_assert(sizeof(struct aria_gcm_key) <= sizeof(((struct vecsec_aead_key *)0)->opaque),
	       "ARIA-GCM key does not fit struct vecsec_aead_key");

static inline const struct aria_gcm_key *
gcm_key_of(const struct vecsec_aead_key *k)
{
	return (const struct aria_gcm_key *)(const void *)k->opaque;
}

/* Bytes from the key object's start to the end of n bytes of large schedule, whole lines. */
static inline size_t
key_bytes(size_t n)
{
	return (offsetof(struct vecsec_aead_key, opaque) + n + 63) & ~(size_t)63;
}

size_t
vecsec_aria_gcm_key_size(size_t key_len)
{
	if (key_len != 16 && key_len != 24 && key_len != 32)
		return 0;
	return key_bytes(sizeof(struct aria_gcm_key));
}

/* CTR keeps the schedule alone: its jobs read only the aria part of the GCM key. */
size_t
vecsec_aria_ctr_key_size(size_t key_len)
{
	if (key_len != 16 && key_len != 24 && key_len != 32)
		return 0;
	return key_bytes(sizeof(struct aria_key));
}

int
vecsec_aria_aead_key_init(struct vecsec_aead_key *k, const uint8_t *key, size_t key_len)
{
	struct aria_gcm_key *gk = (struct aria_gcm_key *)(void *)k->opaque;

	if (key_len != 16 && key_len != 24 && key_len != 32)
		return -EINVAL;
	if (k->alg == VECSEC_AEAD_ARIA_GCM)
		vecsec_aria_gcm_key_setup(gk, key, key_len);
	else
		vecsec_aria_key_schedule_ref(&gk->aria, key, key_len);
	return 0;
}

static void xor_ks(const struct vecsec_aead_job *job, const uint8_t *ks, struct aria_gcm *g);

int
vecsec_aria_gcm_run(enum vecsec_isa level, const struct vecsec_aead_job *job)
{
	struct aria_gcm g;
	struct job_pair w;
	const uint8_t *in;
	uint8_t *out, tag[16];
	size_t n;
	int rc = 0;

	if (job->nonce_len == 0 || job->tag_len < 4 || job->tag_len > 16 ||
	    (uint64_t)job->len > VECSEC_ARIA_GCM_MAX_LEN)
		return -EINVAL;
	vecsec_aria_gcm_start(&g, level, gcm_key_of(job->key), job->nonce, job->nonce_len);
	vecsec_aria_gcm_hash(&g, job->aad, job->aad_len);
	vecsec_aria_gcm_hash_pad(&g);
	if (job->len <= ARIA_GCM_TAIL) {
		/* one kernel call for E(J0) and the keystream */
		uint8_t ks[ARIA_GCM_TAIL + 16];

		vecsec_aria_gcm_tail_ks(&g, ks, 0, job->len);
		if (job->dir == VECSEC_AEAD_SEAL) {
			xor_ks(job, ks + 16, &g);
			vecsec_aria_gcm_tag_ej0(&g, tag, ks);
			memcpy(job->tag, tag, job->tag_len);
		} else {
			struct job_cursor c;
			const uint8_t *p;

			vecsec_job_cursor_in(&c, job);
			while ((p = vecsec_job_cursor_next(&c, 0, &n)) != NULL)
				vecsec_aria_gcm_hash(&g, p, n);
			vecsec_aria_gcm_tag_ej0(&g, tag, ks);
			if (vecsec_ct_eq(tag, job->tag, job->tag_len)) {
				xor_ks(job, ks + 16, NULL);
			} else {
				vecsec_job_wipe_out(job);
				rc = -EBADMSG;
			}
		}
		vecsec_memzero(ks, sizeof(ks));
	} else if (job->dir == VECSEC_AEAD_SEAL) {
		vecsec_job_pair_start(&w, job);
		while ((n = vecsec_job_pair_next(&w, &in, &out)) != 0) {
			vecsec_aria_gcm_ctr(&g, out, in, n);
			vecsec_aria_gcm_hash(&g, out, n);
		}
		vecsec_aria_gcm_tag(&g, tag);
		memcpy(job->tag, tag, job->tag_len);
	} else {
		struct job_cursor c;
		const uint8_t *p;

		/* SP 800-38D 7.2: the tag over all the ciphertext first */
		vecsec_job_cursor_in(&c, job);
		while ((p = vecsec_job_cursor_next(&c, 0, &n)) != NULL)
			vecsec_aria_gcm_hash(&g, p, n);
		vecsec_aria_gcm_tag(&g, tag);
		if (!vecsec_ct_eq(tag, job->tag, job->tag_len)) {
			vecsec_job_wipe_out(job);
			rc = -EBADMSG;
		} else {
			vecsec_job_pair_start(&w, job);
			while ((n = vecsec_job_pair_next(&w, &in, &out)) != 0)
				vecsec_aria_gcm_ctr(&g, out, in, n);
		}
	}
	vecsec_memzero(tag, sizeof(tag));
	vecsec_memzero(&g, sizeof(g));
	return rc;
}

int
vecsec_aria_ctr_run(enum vecsec_isa level, const struct vecsec_aead_job *job)
{
	const struct aria_impl *impl = vecsec_aria_impl_at(level);
	const struct aria_key *k = &gcm_key_of(job->key)->aria;
	struct job_pair w;
	const uint8_t *in;
	uint8_t *out, ctr[16], ks[16];
	uint32_t ks_left = 0;
	size_t n;

	/* RFC 3686 4 layout: the whole counter block; the counter must not wrap */
	if (job->nonce_len != VECSEC_ARIA_CTR_NONCE_LEN || job->tag_len != 0 ||
	    !vecsec_aria_ctr32_fits(job->nonce, job->len))
		return -EINVAL;
	memcpy(ctr, job->nonce, 16);
	vecsec_job_pair_start(&w, job);
	while ((n = vecsec_job_pair_next(&w, &in, &out)) != 0)
		vecsec_aria_ctr32_stream(impl, k, ctr, ks, &ks_left, out, in, n);
	vecsec_memzero(ks, sizeof(ks));
	return 0;
}

/* ---- bursts: one keystream call per key group ---- */

#define BATCH_BLOCKS 256             /* keystream blocks per ECB call */
#define BATCH_JOBS 64                /* jobs per ECB call */
#define BATCH_MAX_LEN (BATCH_BLOCKS / 2 * 16)

static bool
aria_job_ok(const struct vecsec_aead_job *job)
{
	if (job->key->alg == VECSEC_AEAD_ARIA_GCM)
		return job->nonce_len != 0 && job->tag_len >= 4 && job->tag_len <= 16;
	return job->nonce_len == VECSEC_ARIA_CTR_NONCE_LEN && job->tag_len == 0 &&
	       vecsec_aria_ctr32_fits(job->nonce, job->len);
}

static bool
batchable(const struct vecsec_aead_job *job)
{
	return (job->key->alg == VECSEC_AEAD_ARIA_GCM || job->key->alg == VECSEC_AEAD_ARIA_CTR) &&
	       job->len <= BATCH_MAX_LEN && aria_job_ok(job);
}

/* nb counter blocks from start, the last 32 bits counting (inc32) */
static void
fill_ctr32(uint8_t (*cb)[16], const uint8_t start[16], size_t nb)
{
	uint32_t c = (uint32_t)start[12] << 24 | (uint32_t)start[13] << 16 |
		     (uint32_t)start[14] << 8 | start[15];

	for (size_t i = 0; i < nb; i++, c++) {
		memcpy(cb[i], start, 12);
		cb[i][12] = (uint8_t)(c >> 24);
		cb[i][13] = (uint8_t)(c >> 16);
		cb[i][14] = (uint8_t)(c >> 8);
		cb[i][15] = (uint8_t)c;
	}
}

/* out = in ^ ks, n bytes, linear buffers (in == out allowed) */
static inline void
xor_lin(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t a, b;

		memcpy(&a, in + i, 8);
		memcpy(&b, ks + i, 8);
		a ^= b;
		memcpy(out + i, &a, 8);
	}
	for (; i < n; i++)
		out[i] = in[i] ^ ks[i];
}

/* out = in ^ ks along the job's runs; hash the output into g if given */
static void
xor_ks(const struct vecsec_aead_job *job, const uint8_t *ks, struct aria_gcm *g)
{
	struct job_pair w;
	const uint8_t *in;
	uint8_t *out;
	size_t n;

	vecsec_job_pair_start(&w, job);
	while ((n = vecsec_job_pair_next(&w, &in, &out)) != 0) {
		xor_lin(out, in, ks, n);
		if (g != NULL)
			vecsec_aria_gcm_hash(g, out, n);
		ks += n;
	}
}

/* Short GCM jobs on linear buffers hash AAD, text and lengths in one kernel call. */
#define SHORT_HASH_LEN 512

static inline bool
short_linear(const struct vecsec_aead_job *job)
{
	return job->nb_in_segs == 0 && job->nb_out_segs == 0 &&
	       job->aad_len + job->len <= SHORT_HASH_LEN - 32;
}

/* S = GHASH(A || pad || C || pad || lengths) (SP 800-38D 7.1 step 5), one update call */
static void
hash_gathered(uint8_t x[16], const struct ghash_impl *ghash, const struct ghash_key *hk,
	      const uint8_t *aad, size_t aad_len, const uint8_t *c, size_t len)
{
	alignas(16) uint8_t hb[SHORT_HASH_LEN];
	size_t a = (aad_len + 15) & ~(size_t)15, cl = (len + 15) & ~(size_t)15;
	uint64_t abits = (uint64_t)aad_len * 8, cbits = (uint64_t)len * 8;

	if (ghash->hash_short != NULL && aad_len + len <= GHASH_SHORT_MAX) {
		ghash->hash_short(x, hk, aad, aad_len, c, len);
		return;
	}
	/*
	 * An empty side may be NULL (vecsec_aead.h allows it for AAD, input
	 * and output): memcpy() from NULL is undefined even for 0 bytes.
	 */
	memset(hb + a - 16 * (a != 0), 0, 16);
	if (aad_len > 0)
		memcpy(hb, aad, aad_len);
	memset(hb + a + cl - 16 * (cl != 0), 0, 16);
	if (len > 0)
		memcpy(hb + a, c, len);
	for (int i = 0; i < 8; i++) {
		hb[a + cl + 7 - i] = (uint8_t)(abits >> (8 * i));
		hb[a + cl + 15 - i] = (uint8_t)(cbits >> (8 * i));
	}
	memset(x, 0, 16);
	ghash->update(x, hk, hb, (a + cl) / 16 + 1);
}

/*
 * One short linear GCM job, given E(J0) and its keystream: the whole GHASH
 * input in one kernel call. Returns 0 or -EBADMSG.
 */
static int
gcm_short(const struct vecsec_aead_job *job, const uint8_t *ej0, const uint8_t *ks,
	  const struct ghash_impl *ghash)
{
	const struct ghash_key *hk = &gcm_key_of(job->key)->ghash;
	uint8_t x[16], tag[16];
	int rc = 0;

	if (job->dir == VECSEC_AEAD_SEAL) {
		xor_lin(job->out, job->in, ks, job->len);
		hash_gathered(x, ghash, hk, job->aad, job->aad_len, job->out, job->len);
	} else {
		hash_gathered(x, ghash, hk, job->aad, job->aad_len, job->in, job->len);
	}
	/* step 6: T = E(J0) ^ S */
	for (int i = 0; i < 16; i++)
		tag[i] = ej0[i] ^ x[i];
	if (job->dir == VECSEC_AEAD_SEAL) {
		memcpy(job->tag, tag, job->tag_len);
	} else if (vecsec_ct_eq(tag, job->tag, job->tag_len)) {
		xor_lin(job->out, job->in, ks, job->len);
	} else {
		vecsec_job_wipe_out(job);
		rc = -EBADMSG;
	}
	vecsec_memzero(tag, sizeof(tag));
	vecsec_memzero(x, sizeof(x));
	return rc;
}

/*
 * Jobs whose keystream fits BATCH_BLOCKS, all under one key (byte-sliced
 * ECB), or under several keys of one length when `multi` (the kernel's
 * key-per-block ECB); sets each job's status.
 */
static void
batch_run(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n, bool multi)
{
	const struct aria_impl *impl = vecsec_aria_impl_at(level);
	const struct ghash_impl *ghash = vecsec_ghash_impl_at(level);
	alignas(64) uint8_t cb[BATCH_BLOCKS][16];
	alignas(64) uint8_t ks[BATCH_BLOCKS * 16];
	const struct aria_key *kp[BATCH_BLOCKS];
	struct aria_gcm g[BATCH_JOBS];
	size_t first[BATCH_JOBS], ej0[BATCH_JOBS], t = 0, e;
	bool slow = false;

	/*
	 * Counter blocks: each job's text blocks (GCM from inc32(J0), CTR from
	 * the nonce block) back to back, then the GCM jobs' J0s: jobs of four
	 * blocks fill a many-key kernel's 4-block vectors with one key each.
	 */
	for (unsigned int i = 0; i < n; i++)
		t += (jobs[i]->len + 15) / 16;
	e = t;
	t = 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct vecsec_aead_job *job = jobs[i];
		const struct aria_gcm_key *gk = gcm_key_of(job->key);
		size_t nb = (job->len + 15) / 16;
		uint8_t c1[16];

		first[i] = t;
		ej0[i] = 0;
		if (job->key->alg == VECSEC_AEAD_ARIA_GCM && job->nonce_len == 12) {
			/* SP 800-38D 7.1 step 2: J0 = IV || 0^31 || 1, the text from inc32(J0) */
			static const uint8_t be1[4] = { 0, 0, 0, 1 }, be2[4] = { 0, 0, 0, 2 };

			/* built from the nonce, not read back (a store-forwarding stall) */
			memcpy(cb[e], job->nonce, 12);
			memcpy(cb[e] + 12, be1, 4);
			memcpy(c1, job->nonce, 12);
			memcpy(c1 + 12, be2, 4);
			fill_ctr32(cb + t, c1, nb);
			ej0[i] = e;
			kp[e++] = &gk->aria;
		} else if (job->key->alg == VECSEC_AEAD_ARIA_GCM) {
			vecsec_aria_gcm_start(&g[i], level, gk, job->nonce, job->nonce_len);
			memcpy(cb[e], g[i].j0, 16);
			fill_ctr32(cb + t, g[i].ctr, nb);
			ej0[i] = e;
			kp[e++] = &gk->aria;
		} else {
			fill_ctr32(cb + t, job->nonce, nb);
		}
		for (size_t b = 0; b < nb; b++)
			kp[t + b] = &gk->aria;
		t += nb;
	}
	t = e;
	if (multi && impl->encrypt_blocks_multi != NULL) {
		impl->encrypt_blocks_multi(ks, cb[0], t, kp);
	} else {
		/* runs of one key (a single run unless the impl changed under us) */
		for (size_t b = 0, b1; b < t; b = b1) {
			for (b1 = b + 1; b1 < t && kp[b1] == kp[b]; b1++)
				;
			impl->encrypt_blocks(ks + 16 * b, cb[b], b1 - b, kp[b]);
		}
	}

	for (unsigned int i = 0; i < n; i++) {
		struct vecsec_aead_job *job = jobs[i];
		const uint8_t *kt = ks + 16 * first[i], *k0 = ks + 16 * ej0[i];
		uint8_t tag[16];
		int rc = 0;

		if (job->key->alg == VECSEC_AEAD_ARIA_CTR) {
			xor_ks(job, kt, NULL);
		} else if (short_linear(job)) {
			rc = gcm_short(job, k0, kt, ghash);
		} else {
			slow = true;
			if (job->nonce_len == 12)
				vecsec_aria_gcm_start(&g[i], level, gcm_key_of(job->key),
						      job->nonce, 12);
			vecsec_aria_gcm_hash(&g[i], job->aad, job->aad_len);
			vecsec_aria_gcm_hash_pad(&g[i]);
			if (job->dir == VECSEC_AEAD_SEAL) {
				xor_ks(job, kt, &g[i]);
				vecsec_aria_gcm_tag_ej0(&g[i], tag, k0);
				memcpy(job->tag, tag, job->tag_len);
			} else {
				struct job_cursor c;
				const uint8_t *p;
				size_t len;

				/* SP 800-38D 7.2: the tag over all the ciphertext first */
				vecsec_job_cursor_in(&c, job);
				while ((p = vecsec_job_cursor_next(&c, 0, &len)) != NULL)
					vecsec_aria_gcm_hash(&g[i], p, len);
				vecsec_aria_gcm_tag_ej0(&g[i], tag, k0);
				if (vecsec_ct_eq(tag, job->tag, job->tag_len)) {
					xor_ks(job, kt, NULL);
				} else {
					vecsec_job_wipe_out(job);
					rc = -EBADMSG;
				}
			}
			vecsec_memzero(tag, sizeof(tag));
		}
		job->status = vecsec_job_status(rc);
	}
	vecsec_memzero(ks, 16 * t);
	if (slow)
		vecsec_memzero(g, sizeof(g));
}

static inline size_t
job_blocks(const struct vecsec_aead_job *job)
{
	return (job->len + 15) / 16 + (job->key->alg == VECSEC_AEAD_ARIA_GCM);
}

/* Run jobs in order, in chunks of at most BATCH_JOBS jobs and BATCH_BLOCKS blocks. */
static void
run_chunks(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n,
	   bool multi)
{
	unsigned int start = 0, i;
	size_t blocks = 0;

	for (i = 0; i < n; i++) {
		size_t need = job_blocks(jobs[i]);

		if (i - start == BATCH_JOBS || blocks + need > BATCH_BLOCKS) {
			batch_run(level, jobs + start, i - start, multi);
			start = i;
			blocks = 0;
		}
		blocks += need;
	}
	if (i > start)
		batch_run(level, jobs + start, i - start, multi);
}

/*
 * A key whose jobs need fewer blocks than this joins the many-key batch of
 * its key length (when the kernel has one): alone it would leave a
 * byte-sliced step mostly empty.
 */
#define MIX_BLOCKS 16

/* Key groups: a hash of the key pointers (public), twice the burst's slots. */
#define GROUP_SLOTS (2 * VECSEC_MAX_BURST)

/* Batchable jobs: grouped by key, a keystream call per group. */
static void
burst_batched(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	bool multi = vecsec_aria_impl_at(level)->encrypt_blocks_multi != NULL;
	struct vecsec_aead_job *group[VECSEC_MAX_BURST], *mixed[3][VECSEC_MAX_BURST];
	const struct vecsec_aead_key *slot_key[GROUP_SLOTS];
	uint16_t slot_grp[GROUP_SLOTS], head[VECSEC_MAX_BURST], tail[VECSEC_MAX_BURST];
	uint16_t next[VECSEC_MAX_BURST];
	size_t blocks[VECSEC_MAX_BURST];
	unsigned int nm[3] = { 0, 0, 0 }, ngr = 0, mask = 1, shift = 64;

	/* groups in order of first appearance, each a list of its jobs in order */
	while (mask + 1 < 2 * n)
		mask = 2 * mask + 1;
	for (unsigned int m = mask + 1; m > 1; m >>= 1)
		shift--;
	memset(slot_key, 0, (mask + 1) * sizeof(slot_key[0]));
	for (unsigned int i = 0; i < n; i++) {
		const struct vecsec_aead_key *key = jobs[i]->key;
		unsigned int h = (unsigned int)(((uintptr_t)key * 0x9e3779b97f4a7c15ull) >> shift) &
				 mask;

		while (slot_key[h] != NULL && slot_key[h] != key)
			h = (h + 1) & mask;
		if (slot_key[h] == NULL) {
			slot_key[h] = key;
			slot_grp[h] = (uint16_t)ngr;
			head[ngr] = (uint16_t)i;
			blocks[ngr++] = 0;
		} else {
			next[tail[slot_grp[h]]] = (uint16_t)i;
		}
		tail[slot_grp[h]] = (uint16_t)i;
		next[i] = UINT16_MAX;
		blocks[slot_grp[h]] += job_blocks(jobs[i]);
	}
	for (unsigned int gi = 0; gi < ngr; gi++) {
		const struct vecsec_aead_key *key = jobs[head[gi]]->key;
		unsigned int ng = 0;

		if (multi && blocks[gi] < MIX_BLOCKS) {
			/* 12, 14 or 16 rounds: one many-key batch per key length */
			unsigned int c = (gcm_key_of(key)->aria.rounds - 12) / 2;

			for (unsigned int j = head[gi]; j != UINT16_MAX; j = next[j])
				mixed[c][nm[c]++] = jobs[j];
		} else {
			for (unsigned int j = head[gi]; j != UINT16_MAX; j = next[j])
				group[ng++] = jobs[j];
			run_chunks(level, group, ng, false);
		}
	}
	for (unsigned int c = 0; c < 3; c++)
		run_chunks(level, mixed[c], nm[c], true);
}

void
vecsec_aria_burst(enum vecsec_isa level, struct vecsec_aead_job *const *jobs, unsigned int n)
{
	struct vecsec_aead_job *batch[VECSEC_MAX_BURST];
	unsigned int nb = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct vecsec_aead_job *job = jobs[i];

		if (batchable(job))
			batch[nb++] = job;
		else
			job->status = vecsec_job_status(job->key->alg == VECSEC_AEAD_ARIA_GCM ?
							vecsec_aria_gcm_run(level, job) :
							vecsec_aria_ctr_run(level, job));
	}
	burst_batched(level, batch, nb);
}
