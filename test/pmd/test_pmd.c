/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec through DPDK's public cryptodev API only: info and
 * capabilities, RFC 8439 2.8.2, in place and out of place on linear and
 * chained mbufs (odd segment sizes, data starting mid-segment, digest in a
 * segment of its own), bursts of 1..256 mixing sessions and directions,
 * forged tags, invalid ops and xforms, session churn, queue pair
 * reconfiguration and a full completion ring, stats, sessionless ops, CPU
 * crypto, devargs. Every result is compared with OpenSSL's
 * EVP_chacha20_poly1305 and with libvecsec's one-shot vecsec_aead_seal().
 *
 * Built twice: test_pmd links the PMD statically and runs once per ISA;
 * test_pmd_dl (VT_PMD_DL) links no PMD and gets it from EAL's -d (dlopen),
 * so the installed-style .so is what runs.
 * EAL args come from the command line; VT_PMD_MODE=probe-fail expects the
 * --vdev given to have failed its probe (bad devargs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <rte_bus_vdev.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_vect.h>

#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_engine.h"
#include "rte_pmd_vecsec.h"
#include "vecsec_eal.h"
#include "vecsec_heap.h"
#include "vt.h"
#ifndef VT_PMD_DL
#include "vecsec_pmd_private.h"         /* the engine of a device: a test hook */
#endif

#define DEV_NAME "crypto_vecsec0"
#define NB_QP 2
#define NB_DESC 2048
#define NB_MBUFS 8191
#define MBUF_ROOM 4096          /* data bytes per mbuf */
#define NB_OPS 2047
#define NB_SESS 1023
#define IV_OFFSET (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define KEY_LEN 32
#define IV_LEN 12
#define TAG_LEN 16
#define MAX_AAD 1024
#define MAX_CASES 256

static struct {
	uint8_t dev_id;
	int socket;
	struct rte_mempool *sess_mp, *op_mp, *mbuf_mp;
	uint64_t seed;
} g;

/* ---------------- oracles ---------------- */

/* Algorithms a test session can use. */
enum talg {
	T_CHACHA = 0,      /* RTE_CRYPTO_AEAD_CHACHA20_POLY1305 */
	T_ARIA_GCM = 1,    /* RTE_PMD_VECSEC_AEAD_ARIA_GCM */
	T_ARIA_CTR = 2,    /* RTE_PMD_VECSEC_CIPHER_ARIA_CTR */
};

static const EVP_CIPHER *
ossl_cipher(enum talg alg, size_t key_len)
{
	switch (alg) {
	case T_CHACHA:
		return EVP_chacha20_poly1305();
	case T_ARIA_GCM:
		return key_len == 16 ? EVP_aria_128_gcm() :
		       key_len == 24 ? EVP_aria_192_gcm() : EVP_aria_256_gcm();
	default:
		return key_len == 16 ? EVP_aria_128_ctr() :
		       key_len == 24 ? EVP_aria_192_ctr() : EVP_aria_256_ctr();
	}
}

/*
 * OpenSSL, the independent oracle: seal linear buffers. ARIA-CTR: the
 * nonce is the 16-byte counter block (OpenSSL counts on all 128 bits, the
 * same as RFC 3686's 32-bit counter while it does not wrap).
 */
static void
ossl_seal(enum talg alg, const uint8_t *key, size_t key_len, const uint8_t *nonce,
	  size_t nonce_len, const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
	  uint8_t *ct, uint8_t *tag, size_t tag_len)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int outl = 0, ok;

	ok = c != NULL && EVP_EncryptInit_ex(c, ossl_cipher(alg, key_len), NULL, NULL, NULL) == 1;
	if (ok && alg != T_ARIA_CTR)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_IVLEN, (int)nonce_len, NULL) == 1;
	ok = ok && EVP_EncryptInit_ex(c, NULL, NULL, key, nonce) == 1;
	if (ok && aad_len != 0)
		ok = EVP_EncryptUpdate(c, NULL, &outl, aad, (int)aad_len) == 1;
	if (ok && len != 0)
		ok = EVP_EncryptUpdate(c, ct, &outl, pt, (int)len) == 1;
	ok = ok && EVP_EncryptFinal_ex(c, ct + len, &outl) == 1;
	if (ok && tag_len != 0)
		ok = EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, (int)tag_len, tag) == 1;
	VT_EXPECT(ok, "openssl alg %d failed", alg);
	EVP_CIPHER_CTX_free(c);
}

static enum vecsec_aead_alg
lib_alg(enum talg alg)
{
	return alg == T_CHACHA ? VECSEC_AEAD_CHACHA20_POLY1305 :
	       alg == T_ARIA_GCM ? VECSEC_AEAD_ARIA_GCM : VECSEC_AEAD_ARIA_CTR;
}

/* libvecsec's one-shot API on the same data must agree with OpenSSL. */
static void
lib_check(enum talg alg, const uint8_t *key, size_t key_len, const uint8_t *nonce,
	  size_t nonce_len, const uint8_t *aad, size_t aad_len, const uint8_t *pt, size_t len,
	  const uint8_t *ct, const uint8_t *tag, size_t tag_len)
{
	struct vecsec_aead_key *k = aligned_alloc(64, sizeof(*k));
	uint8_t *out = malloc(len + 1), t[TAG_LEN];
	int rc;

	VT_EXPECT(k != NULL && out != NULL, "malloc");
	if (k == NULL || out == NULL)
		goto end;
	rc = vecsec_aead_key_init(k, lib_alg(alg), key, key_len);
	VT_EXPECT(rc == 0, "key init %d", rc);
	rc = vecsec_aead_seal(k, out, t, tag_len, pt, len, nonce, nonce_len, aad, aad_len);
	VT_EXPECT(rc == 0, "vecsec_aead_seal %d len %zu", rc, len);
	VT_EXPECT_MEM(out, ct, len, "lib vs openssl ct alg %d len=%zu aad=%zu", alg, len, aad_len);
	VT_EXPECT_MEM(t, tag, tag_len, "lib vs openssl tag alg %d len=%zu aad=%zu", alg, len,
		      aad_len);
	vecsec_aead_key_wipe(k);
end:
	free(k);
	free(out);
}

/* Does the libvecsec linked here implement ARIA? */
static bool
lib_has_aria(void)
{
	struct vecsec_aead_key *k = aligned_alloc(64, sizeof(*k));
	static const uint8_t zk[16];
	bool aria = k != NULL && vecsec_aead_key_init(k, VECSEC_AEAD_ARIA_GCM, zk, 16) == 0;

	free(k);
	return aria;
}

/* ---------------- mbuf chains ---------------- */

/*
 * A chain holding len bytes; segment sizes cycle through sizes[] (NULL or
 * sizes[0] == 0: one linear mbuf). extra > 0 adds a last segment of that
 * many bytes of its own (a digest's home). Filled with fill.
 */
/* Append m to the chain head..last (kept by the caller: no walks); false when full. */
static bool
chain_link(struct rte_mbuf **head, struct rte_mbuf **last, struct rte_mbuf *m)
{
	if (*head == NULL) {
		*head = *last = m;
		return true;
	}
	if ((*head)->nb_segs == UINT16_MAX)
		return false;
	(*last)->next = m;
	(*head)->nb_segs++;
	(*head)->pkt_len += m->pkt_len;
	*last = m;
	return true;
}

static struct rte_mbuf *
chain_new(size_t len, const uint16_t *sizes, size_t nb_sizes, size_t extra, uint8_t fill)
{
	struct rte_mbuf *head = NULL, *last = NULL, *m;
	size_t left = len, i = 0;

	do {
		size_t take = left;

		if (sizes != NULL && nb_sizes != 0 && sizes[0] != 0)
			take = RTE_MIN(left, (size_t)sizes[i++ % nb_sizes]);
		m = rte_pktmbuf_alloc(g.mbuf_mp);
		if (m == NULL)
			goto fail;
		take = RTE_MIN(take, (size_t)rte_pktmbuf_tailroom(m));   /* the pool's room */
		if (take != 0)
			memset(rte_pktmbuf_append(m, (uint16_t)take), fill, take);
		if (!chain_link(&head, &last, m))
			goto fail_m;
		left -= take;
	} while (left != 0);
	if (extra != 0) {
		m = rte_pktmbuf_alloc(g.mbuf_mp);
		if (m == NULL)
			goto fail;
		memset(rte_pktmbuf_append(m, (uint16_t)extra), fill, extra);
		if (!chain_link(&head, &last, m))
			goto fail_m;
	}
	return head;
fail_m:
	rte_pktmbuf_free(m);
fail:
	rte_pktmbuf_free(head);
	return NULL;
}

static void
chain_write(struct rte_mbuf *m, size_t off, const uint8_t *p, size_t len)
{
	for (; m != NULL && len != 0; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		size_t n = RTE_MIN(len, (size_t)m->data_len - off);

		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, off), p, n);
		p += n;
		len -= n;
		off = 0;
	}
}

static void
chain_read(const struct rte_mbuf *m, size_t off, uint8_t *p, size_t len)
{
	const void *q;

	if (len == 0)
		return;   /* rte_pktmbuf_read() walks off the chain for off == pkt_len */
	q = rte_pktmbuf_read(m, (uint32_t)off, (uint32_t)len, p);

	if (q != NULL && q != p)
		memcpy(p, q, len);
}

/* Pointer to the last segment's data (the digest's own segment). */
static uint8_t *
chain_last(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(rte_pktmbuf_lastseg(m), uint8_t *);
}

/* ---------------- sessions ---------------- */

struct tsess {
	enum talg alg;
	uint8_t key[KEY_LEN];
	uint16_t key_len, iv_len, tag_len;
	uint16_t aad_len;
	bool decrypt;
	void *s;
};

static struct rte_crypto_sym_xform
aead_xform(const uint8_t *key, uint16_t key_len, uint16_t iv_len, uint16_t digest_len,
	   uint16_t aad_len, bool decrypt)
{
	struct rte_crypto_sym_xform x;

	memset(&x, 0, sizeof(x));
	x.type = RTE_CRYPTO_SYM_XFORM_AEAD;
	x.aead.op = decrypt ? RTE_CRYPTO_AEAD_OP_DECRYPT : RTE_CRYPTO_AEAD_OP_ENCRYPT;
	x.aead.algo = RTE_CRYPTO_AEAD_CHACHA20_POLY1305;
	x.aead.key.data = key;
	x.aead.key.length = key_len;
	x.aead.iv.offset = IV_OFFSET;
	x.aead.iv.length = iv_len;
	x.aead.digest_length = digest_len;
	x.aead.aad_length = aad_len;
	return x;
}

/* The xform of a test session (also what a sessionless op carries). */
static struct rte_crypto_sym_xform
tsess_xform(const struct tsess *t)
{
	struct rte_crypto_sym_xform x;

	if (t->alg == T_ARIA_CTR) {
		memset(&x, 0, sizeof(x));
		x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		x.cipher.op = t->decrypt ? RTE_CRYPTO_CIPHER_OP_DECRYPT :
			RTE_CRYPTO_CIPHER_OP_ENCRYPT;
		x.cipher.algo = RTE_PMD_VECSEC_CIPHER_ARIA_CTR;
		x.cipher.key.data = t->key;
		x.cipher.key.length = t->key_len;
		x.cipher.iv.offset = IV_OFFSET;
		x.cipher.iv.length = t->iv_len;
		return x;
	}
	x = aead_xform(t->key, t->key_len, t->iv_len, t->tag_len, t->aad_len, t->decrypt);
	if (t->alg == T_ARIA_GCM)
		x.aead.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM;
	return x;
}

static bool
tsess_create_alg(struct tsess *t, uint64_t seed, enum talg alg, uint16_t key_len,
		 uint16_t tag_len, uint16_t aad_len, bool decrypt)
{
	struct rte_crypto_sym_xform x;

	vt_rand(t->key, sizeof(t->key), seed);
	t->alg = alg;
	t->key_len = key_len;
	t->iv_len = alg == T_ARIA_CTR ? 16 : IV_LEN;
	t->tag_len = tag_len;
	t->aad_len = aad_len;
	t->decrypt = decrypt;
	x = tsess_xform(t);
	t->s = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
	VT_EXPECT(t->s != NULL, "session create alg %d: %s", alg, rte_strerror(rte_errno));
	return t->s != NULL;
}

static bool
tsess_create(struct tsess *t, uint64_t seed, uint16_t aad_len, bool decrypt)
{
	return tsess_create_alg(t, seed, T_CHACHA, KEY_LEN, TAG_LEN, aad_len, decrypt);
}

static void
tsess_free(struct tsess *t)
{
	if (t->s != NULL)
		VT_EXPECT(rte_cryptodev_sym_session_free(g.dev_id, t->s) == 0, "session free");
	t->s = NULL;
}

/* ---------------- one op, built and checked ---------------- */

struct tcase {
	/* what to build */
	const struct tsess *sess;
	uint32_t off, len;
	bool oop, digest_in_chain, forge, sessionless;
	bool zero_pkt_len;   /* as dpdk-test-crypto-perf's chains: only segments count */
	uint32_t src_pkt_len, dst_pkt_len;
	const uint16_t *src_segs, *dst_segs;
	size_t nb_src_segs, nb_dst_segs;
	/* built */
	struct rte_crypto_op *op;
	struct rte_mbuf *src, *dst;
	struct rte_crypto_sym_xform xform;   /* sessionless */
	uint8_t nonce[16];
	uint8_t aad[MAX_AAD];
	uint8_t *pt, *ct;
	uint8_t tag[TAG_LEN];
	uint8_t ext_digest[TAG_LEN];
	uint8_t *digest;
};

#define FILL_SRC 0x5a
#define FILL_DST 0xee

static bool
case_build(struct tcase *tc, uint64_t seed)
{
	const struct tsess *s = tc->sess;
	bool dec = s->decrypt;
	struct rte_mbuf *in_chain;

	tc->pt = malloc(tc->len + 1);
	tc->ct = malloc(tc->len + 1);
	if (tc->pt == NULL || tc->ct == NULL)
		return false;
	vt_rand(tc->pt, tc->len, seed);
	vt_rand(tc->nonce, s->iv_len, seed + 1);
	if (s->alg == T_ARIA_CTR)
		memset(tc->nonce + 12, 0, 3);   /* 32-bit block counter far from wrapping */
	vt_rand(tc->aad, s->aad_len, seed + 2);
	ossl_seal(s->alg, s->key, s->key_len, tc->nonce, s->iv_len, tc->aad, s->aad_len, tc->pt,
		  tc->len, tc->ct, tc->tag, s->tag_len);
	if (s->tag_len == 0)
		tc->digest_in_chain = tc->forge = false;

	/* the digest lives in the chain that holds the output (encrypt) or input */
	tc->src = chain_new(tc->off + tc->len, tc->src_segs, tc->nb_src_segs,
			    tc->digest_in_chain && (dec || !tc->oop) ? TAG_LEN : 0, FILL_SRC);
	if (tc->src == NULL)
		return false;
	if (tc->oop) {
		tc->dst = chain_new(tc->off + tc->len, tc->dst_segs, tc->nb_dst_segs,
				    tc->digest_in_chain && !dec ? TAG_LEN : 0, FILL_DST);
		if (tc->dst == NULL)
			return false;
	}
	/* CTR decrypts what it encrypts: the input is the ciphertext either way */
	chain_write(tc->src, tc->off, dec ? tc->ct : tc->pt, tc->len);
	if (tc->digest_in_chain)
		tc->digest = chain_last(dec || !tc->oop ? tc->src : tc->dst);
	else
		tc->digest = tc->ext_digest;
	memset(tc->digest, 0, TAG_LEN);
	if (dec) {
		memcpy(tc->digest, tc->tag, s->tag_len);
		if (tc->forge)
			tc->digest[seed % s->tag_len] ^= (uint8_t)(1u << (seed % 8));
	}
	in_chain = tc->src;
	(void)in_chain;

	tc->op = rte_crypto_op_alloc(g.op_mp, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
	if (tc->op == NULL)
		return false;
	if (tc->sessionless) {
		tc->xform = tsess_xform(s);
		tc->op->sess_type = RTE_CRYPTO_OP_SESSIONLESS;
		tc->op->sym->xform = &tc->xform;
	} else {
		rte_crypto_op_attach_sym_session(tc->op, s->s);
	}
	tc->op->sym->m_src = tc->src;
	tc->op->sym->m_dst = tc->oop ? tc->dst : NULL;
	if (s->alg == T_ARIA_CTR) {
		tc->op->sym->cipher.data.offset = tc->off;
		tc->op->sym->cipher.data.length = tc->len;
	} else {
		tc->op->sym->aead.data.offset = tc->off;
		tc->op->sym->aead.data.length = tc->len;
		tc->op->sym->aead.digest.data = tc->digest;
		tc->op->sym->aead.aad.data = tc->aad;
	}
	memcpy(rte_crypto_op_ctod_offset(tc->op, uint8_t *, IV_OFFSET), tc->nonce, s->iv_len);
	return true;
}

static void
case_check(const struct tcase *tc, const char *what)
{
	const struct tsess *s = tc->sess;
	struct rte_mbuf *out = tc->oop ? tc->dst : tc->src;
	uint8_t *got = malloc(tc->len + 1), *pre = malloc(tc->off + 1);
	uint8_t want_fill = tc->oop ? FILL_DST : FILL_SRC;
	uint8_t want_status = tc->forge ? RTE_CRYPTO_OP_STATUS_AUTH_FAILED :
		RTE_CRYPTO_OP_STATUS_SUCCESS;
	size_t i;

	if (got == NULL || pre == NULL) {
		VT_EXPECT(false, "malloc");
		goto end;
	}
	VT_EXPECT(tc->op->status == want_status,
		  "%s: status %u want %u (alg %d len %u off %u %s %s)", what, tc->op->status,
		  want_status, s->alg, tc->len, tc->off,
		  s->decrypt ? "dec" : "enc", tc->oop ? "oop" : "inplace");
	chain_read(out, tc->off, got, tc->len);
	if (!s->decrypt) {
		VT_EXPECT_MEM(got, tc->ct, tc->len, "%s: ct len %u off %u %s", what, tc->len,
			      tc->off, tc->oop ? "oop" : "inplace");
		VT_EXPECT_MEM(tc->digest, tc->tag, s->tag_len, "%s: tag alg %d len %u", what,
			      s->alg, tc->len);
	} else if (!tc->forge) {
		VT_EXPECT_MEM(got, tc->pt, tc->len, "%s: pt len %u off %u %s", what, tc->len,
			      tc->off, tc->oop ? "oop" : "inplace");
	} else {
		/* libvecsec releases no unauthenticated plaintext */
		VT_EXPECT_ZERO(got, tc->len, "%s: forged op left output (len %u)", what, tc->len);
	}
	/* nothing before the data offset changed; OOP leaves the source alone */
	chain_read(out, 0, pre, tc->off);
	for (i = 0; i < tc->off && pre[i] == want_fill; i++)
		;
	VT_EXPECT(i == tc->off, "%s: byte %zu before the data offset changed", what, i);
	if (tc->oop) {
		chain_read(tc->src, tc->off, got, tc->len);
		VT_EXPECT_MEM(got, s->decrypt ? tc->ct : tc->pt, tc->len, "%s: oop source changed",
			      what);
	}
	lib_check(s->alg, s->key, s->key_len, tc->nonce, s->iv_len, tc->aad, s->aad_len, tc->pt,
		  tc->len, tc->ct, tc->tag, s->tag_len);
end:
	free(got);
	free(pre);
}

static void
case_free(struct tcase *tc)
{
	rte_crypto_op_free(tc->op);
	rte_pktmbuf_free(tc->src);
	rte_pktmbuf_free(tc->dst);
	free(tc->pt);
	free(tc->ct);
	tc->op = NULL;
	tc->src = tc->dst = NULL;
	tc->pt = tc->ct = NULL;
}

/*
 * Enqueue ops[0..n) on qp (retrying while the ring is full, draining it),
 * dequeue them all; they come back in order.
 */
static unsigned int
run_ops(uint16_t qp, struct rte_crypto_op **ops, unsigned int n)
{
	struct rte_crypto_op *back[MAX_CASES * 2];
	unsigned int sent = 0, got = 0, spins = 0;

	while (got < n && spins < 1000000) {
		if (sent < n)
			sent += rte_cryptodev_enqueue_burst(g.dev_id, qp, ops + sent,
							    (uint16_t)(n - sent));
		got += rte_cryptodev_dequeue_burst(g.dev_id, qp, back + got,
						   (uint16_t)(RTE_DIM(back) - got));
		spins++;
	}
	VT_EXPECT(got == n, "dequeued %u of %u", got, n);
	for (unsigned int i = 0; i < got && i < n; i++)
		VT_EXPECT(back[i] == ops[i], "op %u came back out of order", i);
	return got;
}

static void
run_cases(struct tcase *tcs, unsigned int n, uint16_t qp, const char *what)
{
	struct rte_crypto_op *ops[MAX_CASES];
	unsigned int built = 0;

	for (; built < n; built++) {
		if (!case_build(&tcs[built], g.seed + built * 101 + n)) {
			VT_EXPECT(false, "%s: building case %u failed", what, built);
			break;
		}
		ops[built] = tcs[built].op;
	}
	if (built == n) {
		for (unsigned int i = 0; i < n; i++) {
			if (!tcs[i].zero_pkt_len)
				continue;
			tcs[i].src_pkt_len = tcs[i].src->pkt_len;
			tcs[i].src->pkt_len = 0;
			if (tcs[i].dst != NULL) {
				tcs[i].dst_pkt_len = tcs[i].dst->pkt_len;
				tcs[i].dst->pkt_len = 0;
			}
		}
		run_ops(qp, ops, n);
		for (unsigned int i = 0; i < n; i++) {
			if (!tcs[i].zero_pkt_len)
				continue;
			tcs[i].src->pkt_len = tcs[i].src_pkt_len;
			if (tcs[i].dst != NULL)
				tcs[i].dst->pkt_len = tcs[i].dst_pkt_len;
		}
		for (unsigned int i = 0; i < n; i++)
			case_check(&tcs[i], what);
	}
	for (unsigned int i = 0; i < n; i++)
		case_free(&tcs[i]);
}

static void
expect_pools_full(const char *what)
{
	VT_EXPECT(rte_mempool_full(g.mbuf_mp), "%s: mbufs leaked (%u of %u free)", what,
		  rte_mempool_avail_count(g.mbuf_mp), g.mbuf_mp->size);
	VT_EXPECT(rte_mempool_full(g.op_mp), "%s: ops leaked", what);
	VT_EXPECT(rte_mempool_full(g.sess_mp), "%s: sessions leaked (%u of %u free)", what,
		  rte_mempool_avail_count(g.sess_mp), g.sess_mp->size);
}

/* ---------------- tests ---------------- */

/* The level EAL's SIMD bitwidth allows (the PMD's probe limits the process to it). */
static enum vecsec_isa
eal_level(void)
{
	uint16_t bits = rte_vect_get_max_simd_bitwidth();

	if (bits >= RTE_VECT_SIMD_512)
		return VECSEC_ISA_AVX512;
	if (bits >= RTE_VECT_SIMD_256)
		return VECSEC_ISA_AVX2;
	if (bits >= RTE_VECT_SIMD_128)
		return VECSEC_ISA_SSSE3;
	return VECSEC_ISA_SCALAR;
}

/*
 * The process level of the PMD's libvecsec. Linked statically it is ours
 * (the ISA loop forces it); loaded with -d the .so has its own copy, whose
 * level the probe chose: the CPU's, capped by EAL's SIMD bitwidth.
 */
static enum vecsec_isa
proc_level(void)
{
#ifdef VT_PMD_DL
	enum vecsec_isa lvl = vecsec_cpu_max_isa();

	return lvl < eal_level() ? lvl : eal_level();
#else
	return vecsec_isa_cap();
#endif
}

/*
 * After probing another device: isa= is that device's alone, while EAL's
 * SIMD width limits the process at every probe. The ISA loop may have
 * forced this round's level past that limit (EAL's default of 256 bits
 * caps AVX-512): the probe brings it down to the limit, never further;
 * then the level the round is named after is forced again, so that the
 * rest of the round runs at it.
 */
static void
expect_level_kept(enum vecsec_isa before, const char *what)
{
	enum vecsec_isa want = before < eal_level() ? before : eal_level();

#ifdef VT_PMD_DL
	want = before;  /* the .so's own level, which the probe chose with the same limit */
#endif
	VT_EXPECT(proc_level() == want, "process level after %s: %s, want %s", what,
		  vecsec_isa_name(proc_level()), vecsec_isa_name(want));
#ifndef VT_PMD_DL
	if (vecsec_isa_cap() != before)
		VT_EXPECT(vecsec_force_isa(before) == 0, "back to %s", vecsec_isa_name(before));
#endif
}

/* The level a device with isa=want (VECSEC_ISA_DEFAULT: none) runs at. */
static enum vecsec_isa
dev_level(enum vecsec_isa want)
{
	enum vecsec_isa lvl = proc_level();

	return want != VECSEC_ISA_DEFAULT && want < lvl ? want : lvl;
}

/* The level crypto_vecsec0 runs at: its isa= devarg (VT_PMD_ISA tells which). */
static enum vecsec_isa
pmd_level(void)
{
	const char *devarg = getenv("VT_PMD_ISA");
	enum vecsec_isa da;

	if (devarg != NULL && vecsec_isa_parse(devarg, &da) == 0)
		return dev_level(da);
	return dev_level(VECSEC_ISA_DEFAULT);
}

static uint64_t
cpu_flags_of(enum vecsec_isa lvl)
{
	uint64_t f = 0;

	if (lvl >= VECSEC_ISA_SSSE3)
		f |= RTE_CRYPTODEV_FF_CPU_SSE;
	if (lvl >= VECSEC_ISA_AVX2)
		f |= RTE_CRYPTODEV_FF_CPU_AVX | RTE_CRYPTODEV_FF_CPU_AVX2;
	if (lvl >= VECSEC_ISA_AVX512)
		f |= RTE_CRYPTODEV_FF_CPU_AVX512;
	return f;
}

static void
test_info(void)
{
	struct rte_cryptodev_info info;
	const struct rte_cryptodev_capabilities *c;
	const struct rte_cryptodev_symmetric_capability *sc;
	struct rte_cryptodev_sym_capability_idx idx;
	uint64_t want = RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO |
		RTE_CRYPTODEV_FF_SYM_OPERATION_CHAINING |
		RTE_CRYPTODEV_FF_IN_PLACE_SGL | RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT |
		RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT | RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT |
		RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT | RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO |
		RTE_CRYPTODEV_FF_SYM_SESSIONLESS | RTE_CRYPTODEV_FF_SECURITY;
	uint64_t cpu = RTE_CRYPTODEV_FF_CPU_SSE | RTE_CRYPTODEV_FF_CPU_AVX |
		RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX512;
	unsigned int n = 0, chacha = 0;

	rte_cryptodev_info_get(g.dev_id, &info);
	VT_EXPECT(strcmp(info.driver_name, RTE_PMD_VECSEC_DRIVER_NAME) == 0, "driver %s",
		  info.driver_name);
	VT_EXPECT(info.driver_id == rte_cryptodev_driver_id_get(RTE_PMD_VECSEC_DRIVER_NAME),
		  "driver id %u", info.driver_id);
	VT_EXPECT(info.max_nb_queue_pairs == 8, "max qps %u", info.max_nb_queue_pairs);
	VT_EXPECT(info.sym.max_nb_sessions == 0, "max sessions %u", info.sym.max_nb_sessions);
	VT_EXPECT((info.feature_flags & ~cpu) == want, "feature flags 0x%llx want 0x%llx",
		  (unsigned long long)(info.feature_flags & ~cpu), (unsigned long long)want);
	VT_EXPECT(!(info.feature_flags & RTE_CRYPTODEV_FF_SYM_RAW_DP), "raw dp not claimed");
#if defined(__x86_64__)
	VT_EXPECT((info.feature_flags & cpu) == cpu_flags_of(pmd_level()),
		  "cpu flags 0x%llx want 0x%llx (level %s)",
		  (unsigned long long)(info.feature_flags & cpu),
		  (unsigned long long)cpu_flags_of(pmd_level()), vecsec_isa_name(pmd_level()));
#endif
	for (c = info.capabilities; c->op != RTE_CRYPTO_OP_TYPE_UNDEFINED; c++, n++) {
		VT_EXPECT(c->op == RTE_CRYPTO_OP_TYPE_SYMMETRIC, "cap %u op", n);
		if (c->sym.xform_type == RTE_CRYPTO_SYM_XFORM_AEAD &&
		    c->sym.aead.algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305) {
			chacha++;
			VT_EXPECT(c->sym.aead.key_size.min == 32 && c->sym.aead.key_size.max == 32,
				  "key size");
			VT_EXPECT(c->sym.aead.iv_size.min == 12 && c->sym.aead.iv_size.max == 12,
				  "iv size");
			VT_EXPECT(c->sym.aead.digest_size.min == 16 &&
				  c->sym.aead.digest_size.max == 16, "digest size");
			VT_EXPECT(c->sym.aead.aad_size.min == 0 &&
				  c->sym.aead.aad_size.max == 1024 &&
				  c->sym.aead.aad_size.increment == 1, "aad size");
		}
	}
	VT_EXPECT(chacha == 1, "one chacha20-poly1305 capability, got %u", chacha);
	/* ARIA only where libvecsec has it (then 3 entries), else ChaCha alone */
	VT_EXPECT(n == (lib_has_aria() ? 3u : 1u), "%u capabilities, aria %d", n, lib_has_aria());
	idx.type = RTE_CRYPTO_SYM_XFORM_AEAD;
	idx.algo.aead = RTE_CRYPTO_AEAD_CHACHA20_POLY1305;
	sc = rte_cryptodev_sym_capability_get(g.dev_id, &idx);
	VT_EXPECT(sc != NULL, "capability_get chacha");
	if (sc != NULL) {
		static const struct {
			uint16_t key, dig, aad, iv;
			bool ok;
		} chk[] = { { 32, 16, 0, 12, true }, { 32, 16, 1024, 12, true },
			    { 32, 16, 1025, 12, false }, { 16, 16, 0, 12, false },
			    { 32, 12, 0, 12, false }, { 32, 16, 0, 8, false } };

		for (size_t i = 0; i < RTE_DIM(chk); i++)
			VT_EXPECT((rte_cryptodev_sym_capability_check_aead(sc, chk[i].key,
					chk[i].dig, chk[i].aad, chk[i].iv) == 0) == chk[i].ok,
				  "capability check %zu", i);
	}
	idx.algo.aead = RTE_CRYPTO_AEAD_AES_GCM;
	VT_EXPECT(rte_cryptodev_sym_capability_get(g.dev_id, &idx) == NULL, "no AES-GCM");
}

/* RFC 8439, 2.8.2: the AEAD example, through enqueue/dequeue. */
static void
test_rfc8439(void)
{
	static const char *pt_s = "Ladies and Gentlemen of the class of '99: If I could offer "
		"you only one tip for the future, sunscreen would be it.";
	uint8_t key[32], nonce[12], aad[12], ct[114], tag[16], out[114];
	struct rte_crypto_sym_xform x;
	struct rte_crypto_op *op;
	struct rte_mbuf *m;
	void *sess;
	size_t len = strlen(pt_s);

	vt_hex(key, sizeof(key), "80 81 82 83 84 85 86 87 88 89 8a 8b 8c 8d 8e 8f"
	       "90 91 92 93 94 95 96 97 98 99 9a 9b 9c 9d 9e 9f");
	vt_hex(nonce, sizeof(nonce), "07 00 00 00 40 41 42 43 44 45 46 47");
	vt_hex(aad, sizeof(aad), "50 51 52 53 c0 c1 c2 c3 c4 c5 c6 c7");
	vt_hex(ct, sizeof(ct),
	       "d3 1a 8d 34 64 8e 60 db 7b 86 af bc 53 ef 7e c2"
	       "a4 ad ed 51 29 6e 08 fe a9 e2 b5 a7 36 ee 62 d6"
	       "3d be a4 5e 8c a9 67 12 82 fa fb 69 da 92 72 8b"
	       "1a 71 de 0a 9e 06 0b 29 05 d6 a5 b6 7e cd 3b 36"
	       "92 dd bd 7f 2d 77 8b 8c 98 03 ae e3 28 09 1b 58"
	       "fa b3 24 e4 fa d6 75 94 55 85 80 8b 48 31 d7 bc"
	       "3f f4 de f0 8e 4b 7a 9d e5 76 d2 65 86 ce c6 4b"
	       "61 16");
	vt_hex(tag, sizeof(tag), "1a:e1:0b:59:4f:09:e2:6a:7e:90:2e:cb:d0:60:06:91");
	VT_EXPECT(len == sizeof(ct), "rfc text length %zu", len);

	for (int dec = 0; dec <= 1; dec++) {
		uint8_t dig[16];

		x = aead_xform(key, 32, 12, 16, 12, dec);
		sess = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
		VT_EXPECT(sess != NULL, "session");
		m = chain_new(len, NULL, 0, 0, 0);
		op = rte_crypto_op_alloc(g.op_mp, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
		if (sess == NULL || m == NULL || op == NULL)
			goto next;
		chain_write(m, 0, dec ? ct : (const uint8_t *)pt_s, len);
		memcpy(dig, dec ? tag : (const uint8_t *)"xxxxxxxxxxxxxxxx", 16);
		rte_crypto_op_attach_sym_session(op, sess);
		op->sym->m_src = m;
		op->sym->aead.data.offset = 0;
		op->sym->aead.data.length = (uint32_t)len;
		op->sym->aead.digest.data = dig;
		op->sym->aead.aad.data = aad;
		memcpy(rte_crypto_op_ctod_offset(op, uint8_t *, IV_OFFSET), nonce, 12);
		run_ops(0, &op, 1);
		VT_EXPECT(op->status == RTE_CRYPTO_OP_STATUS_SUCCESS, "status %u", op->status);
		chain_read(m, 0, out, len);
		VT_EXPECT_MEM(out, dec ? (const uint8_t *)pt_s : ct, len, "RFC 8439 2.8.2 %s",
			      dec ? "open" : "seal");
		if (!dec)
			VT_EXPECT_MEM(dig, tag, 16, "RFC 8439 2.8.2 tag");
next:
		rte_crypto_op_free(op);
		rte_pktmbuf_free(m);
		if (sess != NULL)
			rte_cryptodev_sym_session_free(g.dev_id, sess);
	}
	expect_pools_full("rfc8439");
}

/* Linear mbufs: lengths around block edges, AAD 0..1024, in place and OOP. */
static void
test_linear(void)
{
	static const uint32_t lens[] = { 0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 255, 256, 257,
					 511, 512, 1000, 1500, 2048, 4000 };
	static const uint16_t aads[] = { 0, 1, 8, 12, 13, 255, 1024 };
	static struct tcase tcs[2 * RTE_DIM(lens)];
	struct tsess ss[2 * RTE_DIM(aads)];

	for (size_t a = 0; a < RTE_DIM(aads); a++)
		for (int d = 0; d <= 1; d++)
			if (!tsess_create(&ss[2 * a + d], g.seed + a, aads[a], d))
				goto out;
	for (size_t s = 0; s < RTE_DIM(ss); s++) {
		unsigned int n = 0;

		for (size_t l = 0; l < RTE_DIM(lens); l++)
			for (int oop = 0; oop <= 1; oop++) {
				uint32_t off = (uint32_t)((l * 7 + s) % 64);

				if (lens[l] + off > MBUF_ROOM)
					off = 0;
				memset(&tcs[n], 0, sizeof(tcs[n]));
				tcs[n].sess = &ss[s];
				tcs[n].len = lens[l];
				tcs[n].off = off;
				tcs[n].oop = oop;
				n++;
			}
		run_cases(tcs, n, 0, "linear");
	}
out:
	for (size_t s = 0; s < RTE_DIM(ss); s++)
		tsess_free(&ss[s]);
	expect_pools_full("linear");
}

/* Chains with odd segment sizes; data starting mid-segment; digest alone. */
static void
test_chained(void)
{
	static const uint16_t p1[] = { 1 }, p3[] = { 3 }, p17[] = { 17 },
		pmix[] = { 1, 3, 17, 0, 64, 5, 255, 2, 1000 }, p7_100[] = { 7, 100 },
		pbig[] = { 1500, 1 };
	static const struct {
		const uint16_t *p;
		size_t n;
	} pats[] = { { NULL, 0 }, { p1, 1 }, { p3, 1 }, { p17, 1 }, { pmix, RTE_DIM(pmix) },
		     { p7_100, 2 }, { pbig, 2 } };
	static const uint32_t lens[] = { 0, 1, 2, 16, 63, 64, 65, 200, 777, 3000 };
	static struct tcase tcs[MAX_CASES];
	struct tsess ss[4];
	uint64_t st = g.seed;

	for (int i = 0; i < 4; i++)
		if (!tsess_create(&ss[i], g.seed + 10 + i, i < 2 ? 12 : 0, i & 1))
			goto out;
	for (size_t si = 0; si < RTE_DIM(pats); si++) {
		for (size_t di = 0; di < RTE_DIM(pats); di++) {
			for (size_t l = 0; l < RTE_DIM(lens); l++) {
				unsigned int n = 0;

				for (int s = 0; s < 4; s++) {
					struct tcase *tc = &tcs[n];
					uint32_t len = lens[l];

					/* tiny segments: keep chains within the mbuf pool */
					if ((pats[si].p == p1 || pats[di].p == p1) && len > 300)
						len = 300;
					if ((pats[si].p == p3 || pats[di].p == p3) && len > 900)
						len = 900;
					memset(tc, 0, sizeof(*tc));
					tc->sess = &ss[s];
					tc->len = len;
					tc->off = vt_below(&st, 40);
					tc->oop = di != 0 || (s & 2);
					tc->digest_in_chain = (l + s) % 2 == 0;
					tc->src_segs = pats[si].p;
					tc->nb_src_segs = pats[si].n;
					tc->dst_segs = pats[di].p;
					tc->nb_dst_segs = pats[di].n;
					n++;
				}
				run_cases(tcs, n, (uint16_t)((si + l) % NB_QP), "chained");
			}
		}
	}
out:
	for (int i = 0; i < 4; i++)
		tsess_free(&ss[i]);
	expect_pools_full("chained");
}

/* Bursts of 1..256 mixing 6 sessions, directions, lengths, layouts. */
static void
test_bursts(void)
{
	static const unsigned int sizes[] = { 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 33, 64, 100, 128,
					      255, 256 };
	static const uint16_t pmix[] = { 33, 1, 400, 3, 17, 90 };
	static struct tcase tcs[MAX_CASES];
	struct tsess ss[6];
	uint64_t st = g.seed ^ 0xb0b;

	for (int i = 0; i < 6; i++)
		if (!tsess_create(&ss[i], g.seed + 20 + i / 2, (uint16_t)(i * 100), i & 1))
			goto out;
	for (size_t b = 0; b < RTE_DIM(sizes); b++) {
		for (unsigned int i = 0; i < sizes[b]; i++) {
			struct tcase *tc = &tcs[i];

			memset(tc, 0, sizeof(*tc));
			tc->sess = &ss[vt_below(&st, 6)];
			tc->len = vt_below(&st, 1600);
			tc->off = vt_below(&st, 64);
			tc->oop = vt_below(&st, 2);
			tc->digest_in_chain = vt_below(&st, 2);
			tc->zero_pkt_len = vt_below(&st, 4) == 0;
			if (vt_below(&st, 2)) {
				tc->src_segs = pmix;
				tc->nb_src_segs = RTE_DIM(pmix);
			}
			if (vt_below(&st, 2)) {
				tc->dst_segs = pmix + 2;
				tc->nb_dst_segs = RTE_DIM(pmix) - 2;
			}
		}
		run_cases(tcs, sizes[b], (uint16_t)(b % NB_QP), "burst");
	}
out:
	for (int i = 0; i < 6; i++)
		tsess_free(&ss[i]);
	expect_pools_full("bursts");
}

/* Forged tags fail alone; the other ops of the burst are intact. */
static void
test_forged(void)
{
	static struct tcase tcs[64];
	struct tsess ss[2];
	uint64_t st = g.seed ^ 0xf00;

	if (!tsess_create(&ss[0], g.seed + 30, 12, true) ||
	    !tsess_create(&ss[1], g.seed + 31, 0, true))
		goto out;
	for (int round = 0; round < 3; round++) {
		for (unsigned int i = 0; i < RTE_DIM(tcs); i++) {
			struct tcase *tc = &tcs[i];

			memset(tc, 0, sizeof(*tc));
			tc->sess = &ss[i % 2];
			tc->len = vt_below(&st, 700);
			tc->off = vt_below(&st, 30);
			tc->oop = round == 1;
			tc->digest_in_chain = round == 2;
			tc->forge = vt_below(&st, 3) == 0;
			if (round == 2) {
				static const uint16_t p[] = { 5, 61 };

				tc->src_segs = p;
				tc->nb_src_segs = 2;
			}
		}
		run_cases(tcs, RTE_DIM(tcs), 1, "forged");
	}
out:
	tsess_free(&ss[0]);
	tsess_free(&ss[1]);
	expect_pools_full("forged");
}

/* Ops the PMD must refuse, each alone in a burst of good ones. */
static void
test_invalid_ops(void)
{
	static struct tcase tcs[8];
	struct rte_crypto_op *ops[8];
	struct tsess s;
	uint8_t want[8];

	if (!tsess_create(&s, g.seed + 40, 0, false))
		return;
	for (unsigned int i = 0; i < 8; i++) {
		memset(&tcs[i], 0, sizeof(tcs[i]));
		tcs[i].sess = &s;
		tcs[i].len = 100;
		tcs[i].off = 4;
		if (!case_build(&tcs[i], g.seed + i)) {
			VT_EXPECT(false, "build");
			goto out;
		}
		ops[i] = tcs[i].op;
		want[i] = RTE_CRYPTO_OP_STATUS_SUCCESS;
	}
	rte_cryptodev_stats_reset(g.dev_id);
	/* data past the end of the packet */
	ops[1]->sym->aead.data.length = 101;
	want[1] = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
	/* no session */
	ops[3]->sym->session = NULL;
	want[3] = RTE_CRYPTO_OP_STATUS_INVALID_SESSION;
	/* no digest */
	ops[5]->sym->aead.digest.data = NULL;
	want[5] = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
	/* offset beyond the packet */
	ops[6]->sym->aead.data.offset = 1000000;
	want[6] = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
	run_ops(0, ops, 8);
	for (unsigned int i = 0; i < 8; i++) {
		VT_EXPECT(ops[i]->status == want[i], "op %u status %u want %u", i, ops[i]->status,
			  want[i]);
		if (want[i] == RTE_CRYPTO_OP_STATUS_SUCCESS)
			case_check(&tcs[i], "neighbour of invalid ops");
	}
	{
		struct rte_cryptodev_stats st;

		VT_EXPECT(rte_cryptodev_stats_get(g.dev_id, &st) == 0 &&
			  st.enqueue_err_count == 4 && st.dequeue_err_count == 4 &&
			  st.enqueued_count == 8, "stats: enqueue_err %llu dequeue_err %llu",
			  (unsigned long long)st.enqueue_err_count,
			  (unsigned long long)st.dequeue_err_count);
	}
out:
	for (unsigned int i = 0; i < 8; i++)
		case_free(&tcs[i]);
	tsess_free(&s);
	expect_pools_full("invalid ops");
}

/* Every xform outside the capabilities is refused with ENOTSUP. */
static void
test_invalid_xforms(void)
{
	static const uint8_t key[32];
	struct rte_crypto_sym_xform x, y;
	struct {
		uint16_t key, iv, dig, aad;
	} bad[] = { { 16, 12, 16, 0 }, { 24, 12, 16, 0 }, { 0, 12, 16, 0 }, { 32, 8, 16, 0 },
		    { 32, 16, 16, 0 }, { 32, 24, 16, 0 }, { 32, 12, 12, 0 }, { 32, 12, 8, 0 },
		    { 32, 12, 0, 0 }, { 32, 12, 16, 1025 }, { 32, 12, 16, 4096 } };
	void *sess;

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		x = aead_xform(key, bad[i].key, bad[i].iv, bad[i].dig, bad[i].aad, i & 1);
		sess = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
		VT_EXPECT(sess == NULL && rte_errno == ENOTSUP, "xform %zu accepted (errno %d)", i,
			  rte_errno);
	}
	/* other AEADs, PMD-private ARIA ids without ARIA, cipher/auth xforms, chains */
	x = aead_xform(key, 32, 12, 16, 0, false);
	x.aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
		  rte_errno == ENOTSUP, "AES-GCM");
	x.aead.algo = RTE_CRYPTO_AEAD_AES_CCM;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
		  rte_errno == ENOTSUP, "AES-CCM");
	memset(&x, 0, sizeof(x));
	x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
	x.cipher.algo = RTE_CRYPTO_CIPHER_AES_CBC;
	x.cipher.key.data = key;
	x.cipher.key.length = 16;
	x.cipher.iv.length = 16;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
		  rte_errno == ENOTSUP, "AES-CBC");
	memset(&x, 0, sizeof(x));
	x.type = RTE_CRYPTO_SYM_XFORM_AUTH;
	x.auth.algo = RTE_CRYPTO_AUTH_SHA256_HMAC;
	x.auth.key.data = key;
	x.auth.key.length = 32;
	x.auth.digest_length = 32;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
		  rte_errno == ENOTSUP, "HMAC");
	x = aead_xform(key, 32, 12, 16, 0, false);
	y = x;
	x.next = &y;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
		  rte_errno == ENOTSUP, "AEAD chain");
	x = aead_xform(key, 32, 12, 16, 0, false);
	x.aead.op = (enum rte_crypto_aead_operation)7;
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL,
		  "bad aead op");
	x = aead_xform(NULL, 32, 12, 16, 0, false);
	VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL,
		  "NULL key");
	x = aead_xform(key, 16, 12, 16, 0, false);
	x.aead.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM;
	sess = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
	VT_EXPECT((sess != NULL) == lib_has_aria(), "ARIA-GCM session %p, lib aria %d", sess,
		  lib_has_aria());
	if (sess != NULL)
		rte_cryptodev_sym_session_free(g.dev_id, sess);
	if (lib_has_aria()) {
		/* ARIA outside its capabilities */
		static const struct {
			uint16_t key, iv, dig, aad;
		} abad[] = { { 20, 12, 16, 0 }, { 16, 16, 16, 0 }, { 16, 12, 6, 0 },
			     { 16, 12, 0, 0 }, { 32, 12, 16, 1025 }, { 64, 12, 16, 0 } };

		for (size_t i = 0; i < RTE_DIM(abad); i++) {
			x = aead_xform(key, abad[i].key, abad[i].iv, abad[i].dig, abad[i].aad, 0);
			x.aead.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM;
			VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) ==
				  NULL && rte_errno == ENOTSUP, "ARIA-GCM xform %zu accepted", i);
		}
		memset(&x, 0, sizeof(x));
		x.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
		x.cipher.algo = RTE_PMD_VECSEC_CIPHER_ARIA_CTR;
		x.cipher.key.data = key;
		x.cipher.key.length = 16;
		x.cipher.iv.offset = IV_OFFSET;
		x.cipher.iv.length = 12;
		VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL &&
			  rte_errno == ENOTSUP, "ARIA-CTR with a 12-byte IV");
	}
	expect_pools_full("invalid xforms");
}

/* Many sessions created and freed: the pool comes back full. */
static void
test_session_churn(void)
{
	static void *sess[NB_SESS];
	uint8_t key[32];
	unsigned int n;

	for (int round = 0; round < 3; round++) {
		for (n = 0; n < NB_SESS; n++) {
			struct rte_crypto_sym_xform x;

			vt_rand(key, sizeof(key), g.seed + n + round);
			x = aead_xform(key, 32, 12, 16, (uint16_t)(n % 1025), n & 1);
			sess[n] = rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp);
			if (sess[n] == NULL)
				break;
		}
		VT_EXPECT(n == NB_SESS, "created %u of %u sessions", n, NB_SESS);
		VT_EXPECT(rte_mempool_empty(g.sess_mp), "pool empty when all are taken");
		while (n-- > 0)
			VT_EXPECT(rte_cryptodev_sym_session_free(g.dev_id, sess[n]) == 0, "free");
		VT_EXPECT(rte_mempool_full(g.sess_mp), "pool full again");
	}
}

/*
 * Sessions sized by their key: the private data of a session is two cache
 * lines ((X)ChaCha20-Poly1305 keys inline); ARIA keys live in rte_malloc
 * memory from configure to clear. Sessions of every algorithm run (OpenSSL
 * as the oracle) and a long create/free loop of ARIA sessions gives every
 * byte of the heap back.
 */
#define SIZE_SESS 200
static void
test_session_size(void)
{
	static const uint16_t kls[] = { 16, 24, 32 };
	static struct tsess ss[SIZE_SESS];
	static struct tcase tcs[MAX_CASES];
	unsigned int sz = rte_cryptodev_sym_get_private_session_size(g.dev_id);
	size_t heap0, heap1, want = 0;
	uint64_t st = g.seed ^ 0x51e;
	unsigned int n = 0;

	printf("\n    crypto_vecsec sym session private data: %u bytes (pool element %u)\n", sz,
	       g.sess_mp->elt_size);
	VT_EXPECT(sz <= 128, "session private data %u bytes, want <= 128", sz);

	heap0 = vecsec_heap_used();
	/* every algorithm and key length, both directions; run against OpenSSL */
	if (lib_has_aria()) {
		for (size_t k = 0; k < RTE_DIM(kls); k++)
			for (int d = 0; d <= 1; d++) {
				if (!tsess_create_alg(&ss[n++], g.seed + 40 + k, T_ARIA_GCM, kls[k],
						      TAG_LEN, 16, d) ||
				    !tsess_create_alg(&ss[n++], g.seed + 50 + k, T_ARIA_CTR, kls[k],
						      0, 0, d))
					goto out;
				want += vecsec_aead_key_size(VECSEC_AEAD_ARIA_GCM, kls[k]) +
					vecsec_aead_key_size(VECSEC_AEAD_ARIA_CTR, kls[k]);
			}
	} else {
		printf("\n    SKIP pmd session_size ARIA part: libvecsec without ARIA\n");
	}
	for (int d = 0; d <= 1; d++)
		if (!tsess_create(&ss[n++], g.seed + 60, 12, d))
			goto out;
	/* the ARIA keys are in the heap (at least their size each) */
	heap1 = vecsec_heap_used();
	VT_EXPECT(heap1 >= heap0 + want, "ARIA keys not in rte_malloc memory: %zu -> %zu, want +%zu",
		  heap0, heap1, want);
	for (unsigned int i = 0; i < MAX_CASES; i++) {
		struct tcase *tc = &tcs[i];

		memset(tc, 0, sizeof(*tc));
		tc->sess = &ss[i < n ? i : vt_below(&st, n)];
		tc->len = i < n ? 64 : vt_below(&st, 1600);
		tc->oop = vt_below(&st, 2);
		tc->forge = tc->sess->decrypt && vt_below(&st, 5) == 0;
		tc->sessionless = vt_below(&st, 6) == 0;
	}
	run_cases(tcs, MAX_CASES, 0, "session size");
	for (unsigned int i = 0; i < n; i++)
		tsess_free(&ss[i]);
	n = 0;
	VT_EXPECT(vecsec_heap_used() == heap0, "heap after free: %zu, before %zu", vecsec_heap_used(),
		  heap0);

	/* create/free churn: ARIA sessions of every kind, refused xforms between */
	if (lib_has_aria()) {
		for (unsigned int round = 0; round < 10; round++) {
			struct rte_crypto_sym_xform x;
			uint8_t key[32] = { 0 };

			for (n = 0; n < SIZE_SESS; n++) {
				enum talg a = (n + round) % 3 == 0 ? T_ARIA_CTR : T_ARIA_GCM;

				if (!tsess_create_alg(&ss[n], g.seed + n * 7 + round, a,
						      kls[(n + round) % 3], a == T_ARIA_CTR ? 0 : 16,
						      0, n & 1))
					goto out;
			}
			/* refused: a bad key length, a bad tag length */
			x = aead_xform(key, 20, 12, 16, 0, false);
			x.aead.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM;
			VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL,
				  "ARIA key of 20 bytes");
			x = aead_xform(key, 16, 12, 3, 0, false);
			x.aead.algo = RTE_PMD_VECSEC_AEAD_ARIA_GCM;
			VT_EXPECT(rte_cryptodev_sym_session_create(g.dev_id, &x, g.sess_mp) == NULL,
				  "ARIA tag of 3 bytes");
			for (unsigned int i = 0; i < n; i++)
				tsess_free(&ss[i]);
			n = 0;
			VT_EXPECT(vecsec_heap_used() == heap0, "round %u: heap %zu, before %zu", round,
				  vecsec_heap_used(), heap0);
		}
	}
out:
	for (unsigned int i = 0; i < n; i++)
		tsess_free(&ss[i]);
	VT_EXPECT(vecsec_heap_used() == heap0, "heap at the end: %zu, before %zu",
		  vecsec_heap_used(), heap0);
	expect_pools_full("session size");
}

/* (Re)configure the device with nb_qp queue pairs of nb_desc and start it. */
static int
dev_setup(uint16_t nb_qp, uint32_t nb_desc)
{
	struct rte_cryptodev_config conf = { .socket_id = g.socket, .nb_queue_pairs = nb_qp };
	struct rte_cryptodev_qp_conf qc = { .nb_descriptors = nb_desc, .mp_session = g.sess_mp };
	int rc;

	rte_cryptodev_stop(g.dev_id);
	rc = rte_cryptodev_configure(g.dev_id, &conf);
	for (uint16_t q = 0; q < nb_qp && rc == 0; q++)
		rc = rte_cryptodev_queue_pair_setup(g.dev_id, q, &qc, g.socket);
	if (rc == 0)
		rc = rte_cryptodev_start(g.dev_id);
	if (rc != 0)
		printf("dev_setup(%u qps, %u descriptors): %d\n", nb_qp, nb_desc, rc);
	return rc;
}

/* Reconfigure qps, a full ring, stats. */
static void
test_qp_and_stats(void)
{
	static struct tcase tcs[40];
	struct rte_crypto_op *ops[40], *back[40];
	struct rte_cryptodev_stats st;
	struct tsess s;
	unsigned int n, got;

	if (!tsess_create(&s, g.seed + 50, 8, false))
		return;
	/* one qp, then four: each works */
	VT_EXPECT(dev_setup(1, 64) == 0, "1 qp");
	for (unsigned int i = 0; i < 4; i++) {
		memset(&tcs[i], 0, sizeof(tcs[i]));
		tcs[i].sess = &s;
		tcs[i].len = 50 + i;
	}
	run_cases(tcs, 4, 0, "1 qp");
	VT_EXPECT(dev_setup(4, 64) == 0, "4 qps");
	for (uint16_t q = 0; q < 4; q++) {
		for (unsigned int i = 0; i < 4; i++) {
			memset(&tcs[i], 0, sizeof(tcs[i]));
			tcs[i].sess = &s;
			tcs[i].len = 33 * i;
		}
		run_cases(tcs, 4, q, "4 qps");
	}
	VT_EXPECT(rte_cryptodev_queue_pair_count(g.dev_id) == 4, "4 qps");
	/* more qps than the device has */
	{
		struct rte_cryptodev_config conf = { .socket_id = g.socket, .nb_queue_pairs = 9 };

		rte_cryptodev_stop(g.dev_id);
		VT_EXPECT(rte_cryptodev_configure(g.dev_id, &conf) != 0, "9 qps refused");
	}
	/* a ring of 8: enqueue takes 8 of 40, never drops the rest */
	VT_EXPECT(dev_setup(1, 8) == 0, "ring of 8");
	rte_cryptodev_stats_reset(g.dev_id);
	for (unsigned int i = 0; i < 40; i++) {
		memset(&tcs[i], 0, sizeof(tcs[i]));
		tcs[i].sess = &s;
		tcs[i].len = 64;
		if (!case_build(&tcs[i], g.seed + i)) {
			VT_EXPECT(false, "build");
			goto free;
		}
		ops[i] = tcs[i].op;
	}
	n = rte_cryptodev_enqueue_burst(g.dev_id, 0, ops, 40);
	VT_EXPECT(n == 8, "ring of 8 took %u", n);
	VT_EXPECT(rte_cryptodev_enqueue_burst(g.dev_id, 0, ops + n, 32) == 0, "full ring");
	got = rte_cryptodev_dequeue_burst(g.dev_id, 0, back, 40);
	VT_EXPECT(got == 8, "dequeued %u", got);
	for (; n < 40; n += got) {
		unsigned int k = rte_cryptodev_enqueue_burst(g.dev_id, 0, ops + n,
							     (uint16_t)(40 - n));

		got = rte_cryptodev_dequeue_burst(g.dev_id, 0, back, 40);
		VT_EXPECT(got == k && k > 0, "enqueued %u dequeued %u", k, got);
		if (k == 0)
			break;
	}
	for (unsigned int i = 0; i < 40; i++)
		case_check(&tcs[i], "small ring");
	VT_EXPECT(rte_cryptodev_stats_get(g.dev_id, &st) == 0, "stats");
	VT_EXPECT(st.enqueued_count == 40 && st.dequeued_count == 40, "stats enq %llu deq %llu",
		  (unsigned long long)st.enqueued_count, (unsigned long long)st.dequeued_count);
	VT_EXPECT(st.enqueue_err_count == 0, "enqueue_err %llu (a full ring is no error)",
		  (unsigned long long)st.enqueue_err_count);
	VT_EXPECT(st.dequeue_err_count == 0, "dequeue_err %llu",
		  (unsigned long long)st.dequeue_err_count);
	rte_cryptodev_stats_reset(g.dev_id);
	VT_EXPECT(rte_cryptodev_stats_get(g.dev_id, &st) == 0 && st.enqueued_count == 0 &&
		  st.dequeued_count == 0 && st.enqueue_err_count == 0, "stats reset");
free:
	for (unsigned int i = 0; i < 40; i++)
		case_free(&tcs[i]);
	tsess_free(&s);
	VT_EXPECT(dev_setup(NB_QP, NB_DESC) == 0, "back to %u qps", NB_QP);
	expect_pools_full("qp and stats");
}

/* A failed op counts in dequeue_err_count. */
static void
test_err_stats(void)
{
	static struct tcase tcs[4];
	struct rte_cryptodev_stats st;
	struct tsess s;

	if (!tsess_create(&s, g.seed + 60, 0, true))
		return;
	rte_cryptodev_stats_reset(g.dev_id);
	for (unsigned int i = 0; i < 4; i++) {
		memset(&tcs[i], 0, sizeof(tcs[i]));
		tcs[i].sess = &s;
		tcs[i].len = 10;
		tcs[i].forge = i == 2;
	}
	run_cases(tcs, 4, 0, "err stats");
	VT_EXPECT(rte_cryptodev_stats_get(g.dev_id, &st) == 0 && st.dequeue_err_count == 1 &&
		  st.enqueued_count == 4, "dequeue_err %llu",
		  (unsigned long long)st.dequeue_err_count);
	tsess_free(&s);
}

static void
test_sessionless(void)
{
	static struct tcase tcs[40];
	struct tsess ss[2];
	uint64_t st = g.seed ^ 0x51;

	/* sessions exist only for the case builder's key/aad/direction */
	for (int i = 0; i < 2; i++)
		if (!tsess_create(&ss[i], g.seed + 70, 12, i))
			goto out;
	for (unsigned int i = 0; i < RTE_DIM(tcs); i++) {
		memset(&tcs[i], 0, sizeof(tcs[i]));
		tcs[i].sess = &ss[i % 2];
		tcs[i].len = vt_below(&st, 500);
		tcs[i].sessionless = i % 3 != 0;
		tcs[i].forge = i % 2 == 1 && i % 7 == 0;
	}
	run_cases(tcs, RTE_DIM(tcs), 0, "sessionless");
out:
	tsess_free(&ss[0]);
	tsess_free(&ss[1]);
	expect_pools_full("sessionless");
}

/* ---- CPU crypto ---- */

struct cpu_case {
	uint8_t *buf, *obuf;            /* linear backing store: head | data | tail */
	struct rte_crypto_vec v[40];
	uint8_t nonce[IV_LEN], aad[MAX_AAD], tag[TAG_LEN], digest[TAG_LEN];
	uint8_t *pt, *ct;
	uint32_t len;
};

/* Split [0, total) of buf into vectors of the sizes in pat (cycling). */
static uint32_t
split(struct rte_crypto_vec *v, uint8_t *buf, uint32_t total, const uint16_t *pat, size_t np)
{
	uint32_t n = 0, off = 0;

	while (off < total && n < 39) {
		uint32_t take = RTE_MIN(total - off, (uint32_t)pat[n % np]);

		v[n].base = buf + off;
		v[n].len = take;
		v[n].tot_len = take;
		v[n].iova = 0;
		off += take;
		n++;
	}
	if (off < total) {
		v[n].base = buf + off;
		v[n].len = total - off;
		v[n].tot_len = total - off;
		v[n].iova = 0;
		n++;
	}
	return n;
}

static void
test_cpu_crypto(void)
{
	static const uint16_t pats[][4] = { { 4096, 4096, 4096, 4096 }, { 1, 3, 17, 64 },
					    { 7, 7, 7, 7 }, { 100, 0, 1, 300 } };
	static struct cpu_case cc[64];
	struct rte_crypto_sgl sgl[64];
	struct rte_crypto_va_iova_ptr iv[64], aad[64], dig[64];
	int32_t status[64];
	struct rte_crypto_sym_vec vec;
	union rte_crypto_sym_ofs ofs;
	struct tsess ss[2];
	uint64_t st = g.seed ^ 0xc9;

	for (int d = 0; d < 2; d++)
		if (!tsess_create(&ss[d], g.seed + 80, 20, d))
			goto out;
	for (int round = 0; round < 8; round++) {
		/* garbage: dest_sgl as rte_ipsec leaves it; CPU crypto is in place */
		bool dec = round & 1, oop = round & 2, heads = round & 4;
		uint32_t num = 1 + vt_below(&st, 64), ok, want_ok = 0;
		uint16_t head = heads ? 13 : 0, tail = heads ? 5 : 0;

		for (uint32_t i = 0; i < num; i++) {
			struct cpu_case *c = &cc[i];
			uint32_t total;

			c->len = vt_below(&st, 1200);
			total = head + c->len + tail;
			c->buf = malloc(total + 1);
			c->obuf = malloc(total + 1);
			c->pt = malloc(c->len + 1);
			c->ct = malloc(c->len + 1);
			if (!c->buf || !c->obuf || !c->pt || !c->ct)
				goto free;
			vt_rand(c->pt, c->len, g.seed + i);
			vt_rand(c->nonce, IV_LEN, g.seed + i + 1000);
			vt_rand(c->aad, 20, g.seed + i + 2000);
			ossl_seal(T_CHACHA, ss[dec].key, KEY_LEN, c->nonce, IV_LEN, c->aad, 20,
				  c->pt, c->len, c->ct, c->tag, TAG_LEN);
			memset(c->buf, FILL_SRC, total);
			memset(c->obuf, FILL_DST, total);
			memcpy(c->buf + head, dec ? c->ct : c->pt, c->len);
			memcpy(c->digest, dec ? c->tag : (const uint8_t *)"0123456789abcdef", 16);
			if (dec && i % 5 == 3)
				c->digest[i % 16] ^= 0x40;      /* forged */
			else
				want_ok++;
			sgl[i].vec = c->v;
			sgl[i].num = split(c->v, c->buf, total, pats[i % 4], 4);
			iv[i].va = c->nonce;
			aad[i].va = c->aad;
			dig[i].va = c->digest;
			status[i] = -1;
		}
		memset(&vec, 0, sizeof(vec));
		vec.num = num;
		vec.src_sgl = sgl;
		vec.dest_sgl = oop ? (struct rte_crypto_sgl *)(uintptr_t)0x10 : NULL;
		vec.iv = iv;
		vec.aad = aad;
		vec.digest = dig;
		vec.status = status;
		ofs.raw = 0;
		ofs.ofs.cipher.head = head;
		ofs.ofs.cipher.tail = tail;
		ofs.ofs.auth.head = head;
		ofs.ofs.auth.tail = tail;
		ok = rte_cryptodev_sym_cpu_crypto_process(g.dev_id, ss[dec].s, ofs, &vec);
		VT_EXPECT(ok == want_ok, "cpu crypto round %d: %u ok, want %u", round, ok, want_ok);
		for (uint32_t i = 0; i < num; i++) {
			struct cpu_case *c = &cc[i];
			const uint8_t *out = c->buf + head;
			bool forged = dec && i % 5 == 3;

			VT_EXPECT(status[i] == (forged ? EBADMSG : 0), "cpu %u status %d", i,
				  status[i]);
			if (forged)
				VT_EXPECT_ZERO(out, c->len, "cpu forged %u output", i);
			else
				VT_EXPECT_MEM(out, dec ? c->pt : c->ct, c->len,
					      "cpu round %d op %u len %u", round, i, c->len);
			if (!dec)
				VT_EXPECT_MEM(c->digest, c->tag, 16, "cpu tag %u", i);
			if (oop)
				VT_EXPECT(c->obuf[head] == FILL_DST &&
					  c->obuf[head + c->len / 2] == FILL_DST,
					  "cpu crypto wrote outside the source");
			/* head and tail bytes untouched */
			VT_EXPECT(head == 0 || out[-1] == FILL_SRC,
				  "cpu head byte changed");
			VT_EXPECT(tail == 0 || out[c->len] == FILL_SRC,
				  "cpu tail byte changed");
		}
free:
		for (uint32_t i = 0; i < num; i++) {
			free(cc[i].buf);
			free(cc[i].obuf);
			free(cc[i].pt);
			free(cc[i].ct);
			memset(&cc[i], 0, sizeof(cc[i]));
		}
	}
	/* a tail longer than the data: EINVAL for that element only */
	{
		uint8_t b[32] = { 0 }, d[16] = { 0 }, n12[12] = { 0 }, a[20] = { 0 };
		struct rte_crypto_vec v1 = { .base = b, .len = 32, .tot_len = 32 };
		struct rte_crypto_sgl s1 = { .vec = &v1, .num = 1 };
		struct rte_crypto_va_iova_ptr piv = { .va = n12 }, pa = { .va = a },
			pd = { .va = d };
		int32_t st1 = 0;

		memset(&vec, 0, sizeof(vec));
		vec.num = 1;
		vec.src_sgl = &s1;
		vec.iv = &piv;
		vec.aad = &pa;
		vec.digest = &pd;
		vec.status = &st1;
		ofs.raw = 0;
		ofs.ofs.cipher.head = 20;
		ofs.ofs.cipher.tail = 20;
		VT_EXPECT(rte_cryptodev_sym_cpu_crypto_process(g.dev_id, ss[0].s, ofs, &vec) == 0 &&
			  st1 == EINVAL, "head+tail > data: status %d", st1);
	}
out:
	tsess_free(&ss[0]);
	tsess_free(&ss[1]);
	expect_pools_full("cpu crypto");
}

/*
 * ARIA-GCM (every key and tag length) and ARIA-CTR through the PMD-private
 * algorithm ids, in bursts shared with ChaCha20-Poly1305 ops; OpenSSL's
 * EVP_aria_*_gcm/ctr and libvecsec's one-shot API are the oracles. Only
 * where libvecsec implements ARIA (else the PMD must not offer it, which
 * test_info and test_invalid_xforms check).
 */
static void
test_aria(void)
{
	static const uint16_t pat[] = { 1, 16, 3, 200, 17 };
	static struct tcase tcs[MAX_CASES];
	struct tsess ss[32];
	unsigned int nb_ss = 0;
	uint64_t st = g.seed ^ 0xa1a;

	if (!lib_has_aria()) {
		printf("\n    SKIP pmd aria: libvecsec without ARIA\n");
		return;
	}
	for (uint16_t kl = 16; kl <= 32; kl += 8) {
		for (uint16_t tl = 4; tl <= 16; tl += 4)
			for (int d = 0; d <= 1; d++)
				if (!tsess_create_alg(&ss[nb_ss++], g.seed + kl + tl, T_ARIA_GCM,
						      kl, tl, (uint16_t)(tl * 3), d))
					goto out;
		for (int d = 0; d <= 1; d++)
			if (!tsess_create_alg(&ss[nb_ss++], g.seed + kl, T_ARIA_CTR, kl, 0, 0, d))
				goto out;
	}
	if (!tsess_create(&ss[nb_ss++], g.seed + 99, 12, false) ||
	    !tsess_create(&ss[nb_ss++], g.seed + 99, 12, true))
		goto out;
	for (unsigned int round = 0; round < 6; round++) {
		unsigned int n = round == 0 ? nb_ss : 1 + vt_below(&st, MAX_CASES);

		for (unsigned int i = 0; i < n; i++) {
			struct tcase *tc = &tcs[i];

			memset(tc, 0, sizeof(*tc));
			tc->sess = &ss[round == 0 ? i : vt_below(&st, nb_ss)];
			tc->len = vt_below(&st, 1100);
			tc->off = vt_below(&st, 50);
			tc->oop = vt_below(&st, 2);
			tc->digest_in_chain = vt_below(&st, 2);
			tc->forge = tc->sess->decrypt && vt_below(&st, 4) == 0;
			tc->sessionless = vt_below(&st, 8) == 0;
			if (vt_below(&st, 2)) {
				tc->src_segs = pat;
				tc->nb_src_segs = RTE_DIM(pat);
			}
			if (tc->oop && vt_below(&st, 2)) {
				tc->dst_segs = pat + 1;
				tc->nb_dst_segs = RTE_DIM(pat) - 1;
			}
		}
		run_cases(tcs, n, (uint16_t)(round % NB_QP), "aria");
	}
out:
	for (unsigned int i = 0; i < nb_ss; i++)
		tsess_free(&ss[i]);
	expect_pools_full("aria");
}

/* Devargs: isa=scalar and max_nb_queue_pairs work; bad values fail probe. */
static void
test_devargs(void)
{
	static const char *const bad[] = { "isa=bogus", "isa=", "max_nb_queue_pairs=0",
					   "max_nb_queue_pairs=x", "socket_id=-1", "max_burst=0",
					   "max_burst=257", "nosuchkey=1" };
	struct rte_cryptodev_info info;
	int id;
#ifndef VT_PMD_DL
	enum vecsec_isa before = vecsec_isa_cap();
#endif

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		VT_EXPECT(rte_vdev_init("crypto_vecsec9", bad[i]) != 0, "'%s' accepted", bad[i]);
		VT_EXPECT(rte_cryptodev_get_dev_id("crypto_vecsec9") < 0, "'%s' made a device",
			  bad[i]);
	}
	VT_EXPECT(rte_vdev_init("crypto_vecsec8", "isa=scalar,max_nb_queue_pairs=2,"
				"socket_id=0,max_burst=3") == 0, "isa=scalar probe");
	id = rte_cryptodev_get_dev_id("crypto_vecsec8");
	VT_EXPECT(id >= 0, "crypto_vecsec8 exists");
	if (id >= 0) {
		uint64_t cpu = RTE_CRYPTODEV_FF_CPU_SSE | RTE_CRYPTODEV_FF_CPU_AVX |
			RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX512;
		struct rte_cryptodev_config conf = { .socket_id = g.socket, .nb_queue_pairs = 2 };
		struct rte_cryptodev_qp_conf qc = { .nb_descriptors = 16 };
		uint8_t saved = g.dev_id;
		static struct tcase tcs[5];
		struct tsess s;

		rte_cryptodev_info_get((uint8_t)id, &info);
		VT_EXPECT(info.max_nb_queue_pairs == 2, "max qps %u", info.max_nb_queue_pairs);
		VT_EXPECT((info.feature_flags & cpu) == 0, "isa=scalar yet cpu flags 0x%llx",
			  (unsigned long long)(info.feature_flags & cpu));
#ifndef VT_PMD_DL
		expect_level_kept(before, "isa=scalar");
#endif
		/* isa= is per device: crypto_vecsec0 keeps its own level */
		rte_cryptodev_info_get(g.dev_id, &info);
		VT_EXPECT((info.feature_flags & cpu) == cpu_flags_of(pmd_level()),
			  "%s now claims 0x%llx", DEV_NAME,
			  (unsigned long long)(info.feature_flags & cpu));
		/* and it computes: 5 ops in engine calls of max_burst=3 */
		g.dev_id = (uint8_t)id;
		VT_EXPECT(rte_cryptodev_configure(g.dev_id, &conf) == 0, "configure");
		VT_EXPECT(rte_cryptodev_queue_pair_setup(g.dev_id, 1, &qc, g.socket) == 0, "qp");
		VT_EXPECT(rte_cryptodev_queue_pair_setup(g.dev_id, 0, &qc, g.socket) == 0, "qp");
		VT_EXPECT(rte_cryptodev_start(g.dev_id) == 0, "start");
		if (tsess_create(&s, g.seed + 90, 12, false)) {
			for (unsigned int i = 0; i < 5; i++) {
				memset(&tcs[i], 0, sizeof(tcs[i]));
				tcs[i].sess = &s;
				tcs[i].len = 100 * i;
			}
			run_cases(tcs, 5, 1, "isa=scalar device");
			tsess_free(&s);
		}
		rte_cryptodev_stop(g.dev_id);
		VT_EXPECT(rte_cryptodev_close(g.dev_id) == 0, "close");
		g.dev_id = saved;
	}
	VT_EXPECT(rte_vdev_uninit("crypto_vecsec8") == 0, "uninit");
	VT_EXPECT(rte_cryptodev_get_dev_id("crypto_vecsec8") < 0, "gone after uninit");
	expect_pools_full("devargs");
}

/*
 * Two devices with different isa= in one process: each reports (feature
 * flags) and runs (its engine, the one its queue pairs hand bursts to) at
 * its own level, the one probed first is not capped by the second, the
 * process's level and crypto_vecsec0 are untouched, and both compute the
 * oracle's results.
 */
static void
test_devargs_two_isa(void)
{
	static const struct {
		const char *name, *args;
		enum vecsec_isa isa;
	} devs[] = {
		{ "crypto_vecsec6", "isa=avx2,max_nb_queue_pairs=1", VECSEC_ISA_AVX2 },
		{ "crypto_vecsec7", "isa=scalar,max_nb_queue_pairs=1", VECSEC_ISA_SCALAR },
	};
	uint64_t cpu = RTE_CRYPTODEV_FF_CPU_SSE | RTE_CRYPTODEV_FF_CPU_AVX |
		RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX512;
	enum vecsec_isa before = proc_level();
	struct rte_cryptodev_info info;
	int ids[RTE_DIM(devs)];

	for (size_t d = 0; d < RTE_DIM(devs); d++) {
		VT_EXPECT(rte_vdev_init(devs[d].name, devs[d].args) == 0, "%s probe", devs[d].name);
		ids[d] = rte_cryptodev_get_dev_id(devs[d].name);
		VT_EXPECT(ids[d] >= 0, "%s exists", devs[d].name);
	}
	for (size_t d = 0; d < RTE_DIM(devs); d++) {
		enum vecsec_isa want = dev_level(devs[d].isa);
		struct rte_cryptodev_config conf = { .socket_id = g.socket, .nb_queue_pairs = 1 };
		struct rte_cryptodev_qp_conf qc = { .nb_descriptors = 16 };
		uint8_t saved = g.dev_id;
		static struct tcase tcs[5];
		struct tsess s;

		if (ids[d] < 0)
			continue;
		rte_cryptodev_info_get((uint8_t)ids[d], &info);
		VT_EXPECT((info.feature_flags & cpu) == cpu_flags_of(want),
			  "%s (%s) claims 0x%llx, want %s", devs[d].name, devs[d].args,
			  (unsigned long long)(info.feature_flags & cpu), vecsec_isa_name(want));
		g.dev_id = (uint8_t)ids[d];
		VT_EXPECT(rte_cryptodev_configure(g.dev_id, &conf) == 0, "configure");
		VT_EXPECT(rte_cryptodev_queue_pair_setup(g.dev_id, 0, &qc, g.socket) == 0, "qp");
#ifndef VT_PMD_DL
		{
			const struct rte_cryptodev *dev = rte_cryptodev_pmd_get_dev(g.dev_id);
			const struct vecsec_pmd_private *priv = dev->data->dev_private;
			const struct vecsec_pmd_qp *qp = dev->data->queue_pairs[0];

			VT_EXPECT(vecsec_engine_isa(&priv->engine) == want, "%s engine runs %s",
				  devs[d].name, vecsec_isa_name(vecsec_engine_isa(&priv->engine)));
			VT_EXPECT(qp->engine == &priv->engine, "%s qp has another engine",
				  devs[d].name);
		}
#endif
		VT_EXPECT(rte_cryptodev_start(g.dev_id) == 0, "start");
		if (tsess_create(&s, g.seed + 93 + d, 12, false)) {
			for (unsigned int i = 0; i < 5; i++) {
				memset(&tcs[i], 0, sizeof(tcs[i]));
				tcs[i].sess = &s;
				tcs[i].len = 100 * i + 64 * (unsigned int)d;
			}
			run_cases(tcs, 5, 0, devs[d].name);
			tsess_free(&s);
		}
		rte_cryptodev_stop(g.dev_id);
		VT_EXPECT(rte_cryptodev_close(g.dev_id) == 0, "close");
		g.dev_id = saved;
	}
	for (size_t d = 0; d < RTE_DIM(devs); d++)
		VT_EXPECT(rte_vdev_uninit(devs[d].name) == 0, "%s uninit", devs[d].name);
	expect_level_kept(before, "isa=avx2 and isa=scalar");
	rte_cryptodev_info_get(g.dev_id, &info);
	VT_EXPECT((info.feature_flags & cpu) == cpu_flags_of(pmd_level()), "%s now claims 0x%llx",
		  DEV_NAME, (unsigned long long)(info.feature_flags & cpu));
	expect_pools_full("two isa");
}

/* ---- long chains ---- */

/*
 * Mbufs of the long-chain tests: two chains of 65535 one-byte segments at
 * once (out of place), each mbuf room enough for a digest of its own.
 */
#define LONG_MBUFS (2 * UINT16_MAX + 64)
#define LONG_ROOM 64

/*
 * Chains of more segments than a burst's shared scratch (1024, the old
 * refusal): source and destination segment counts around it (1023, 1024,
 * 1025, 2048 in all), alone and in a burst between short ops, and 65535
 * bytes in 65535 one-byte segments, in place and out of place, both
 * directions, forged tags too. Every result is compared with OpenSSL and
 * with libvecsec's one-shot API on one linear buffer (case_check).
 */
static void
test_long_chains(void)
{
	static const uint16_t p1[] = { 1 }, p40[] = { 40 }, p42[] = { 42 }, p44[] = { 44 },
		p3[] = { 3 };
	static const struct {
		uint32_t len;
		const uint16_t *src, *dst;   /* dst NULL: in place */
		unsigned int total;          /* segments of source and destination */
	} around[] = {
		{ 1023, p1, NULL, 1023 }, { 1024, p1, NULL, 1024 }, { 1025, p1, NULL, 1025 },
		{ 2048, p1, NULL, 2048 },
		{ 1000, p1, p44, 1023 }, { 1000, p1, p42, 1024 }, { 1000, p40, p1, 1025 },
		{ 1024, p1, p1, 2048 },
	};
	static struct tcase tcs[8];
	struct rte_mempool *keep = g.mbuf_mp, *mp;
	struct tsess ss[4];
	int nss = 0;

	mp = rte_pktmbuf_pool_create("vt_long", LONG_MBUFS, 0, 0,
				     RTE_PKTMBUF_HEADROOM + LONG_ROOM, g.socket);
	VT_EXPECT(mp != NULL, "long-chain mbuf pool: %s", rte_strerror(rte_errno));
	if (mp == NULL)
		return;
	g.mbuf_mp = mp;
	for (; nss < 2; nss++)
		if (!tsess_create(&ss[nss], g.seed + 300 + nss, 12, nss & 1))
			goto out;
	if (lib_has_aria()) {
		for (; nss < 4; nss++)
			if (!tsess_create_alg(&ss[nss], g.seed + 300 + nss, T_ARIA_GCM, 32, TAG_LEN,
					      12, nss & 1))
				goto out;
	}

	/* around the old limit: each alone, then each between two short ops */
	for (unsigned int c = 0; c < RTE_DIM(around); c++) {
		for (int dir = 0; dir < 2; dir++) {
			for (int burst = 0; burst < 2; burst++) {
				unsigned int n = 0, mid = burst ? 1 : 0;

				for (unsigned int k = 0; k < (burst ? 3u : 1u); k++) {
					struct tcase *tc = &tcs[n++];

					memset(tc, 0, sizeof(*tc));
					tc->sess = &ss[dir];
					tc->len = k == mid ? around[c].len : 100 + 7 * k;
					if (k != mid)
						continue;
					tc->src_segs = around[c].src;
					tc->nb_src_segs = 1;
					tc->oop = around[c].dst != NULL;
					tc->dst_segs = around[c].dst;
					tc->nb_dst_segs = around[c].dst != NULL;
					tc->forge = dir == 1 && burst == 1;
				}
				char what[96];

				snprintf(what, sizeof(what),
					 "long chain, %u segments, dir %d, burst %d",
					 around[c].total, dir, burst);
				run_cases(tcs, n, (uint16_t)(c % NB_QP), what);
			}
		}
	}

	/* 65535 bytes in 65535 one-byte segments (digest apart: a chain has at most 65535) */
	for (int s = 0; s < nss; s++) {
		for (int oop = 0; oop < 2; oop++) {
			struct tcase *tc = &tcs[0];

			memset(tc, 0, sizeof(*tc));
			tc->sess = &ss[s];
			tc->len = UINT16_MAX;
			tc->src_segs = p1;
			tc->nb_src_segs = 1;
			tc->oop = oop;
			tc->dst_segs = s < 2 ? p1 : p3;
			tc->nb_dst_segs = 1;
			run_cases(tcs, 1, (uint16_t)(s % NB_QP), "65535 one-byte segments");
		}
	}
	/* in place, a forged tag: refused, output zeroed over all 65535 segments */
	memset(&tcs[0], 0, sizeof(tcs[0]));
	tcs[0].sess = &ss[1];
	tcs[0].len = UINT16_MAX;
	tcs[0].src_segs = p1;
	tcs[0].nb_src_segs = 1;
	tcs[0].forge = true;
	tcs[1] = tcs[0];
	tcs[1].forge = false;
	tcs[1].off = 1;
	tcs[1].len = UINT16_MAX - 1;
	run_cases(tcs, 2, 0, "65535 one-byte segments, forged and offset");
out:
	for (int i = 0; i < nss; i++)
		tsess_free(&ss[i]);
	g.mbuf_mp = keep;
	VT_EXPECT(rte_mempool_full(mp), "long chains: mbufs leaked (%u of %u free)",
		  rte_mempool_avail_count(mp), mp->size);
	rte_mempool_free(mp);
	expect_pools_full("long chains");
}

/*
 * CPU crypto over SGLs of one-byte vectors: 1023..2048 and 65535 of them,
 * both directions, against OpenSSL; RTE_PMD_VECSEC_MAX_SGL_SEGS vectors
 * pass, one more is EINVAL (rte_pmd_vecsec.h says why).
 */
static void
test_cpu_long(void)
{
	static const uint32_t lens[] = {
		1023, 1024, 1025, 2048, UINT16_MAX,
		RTE_PMD_VECSEC_MAX_SGL_SEGS, RTE_PMD_VECSEC_MAX_SGL_SEGS + 1
	};
	const uint32_t max = RTE_PMD_VECSEC_MAX_SGL_SEGS + 1;
	struct rte_crypto_vec *v = calloc(max, sizeof(*v));
	uint8_t *buf = malloc(max), *pt = malloc(max), *ct = malloc(max);
	uint8_t nonce[IV_LEN], aad[12], tag[TAG_LEN], dig[TAG_LEN];
	struct rte_crypto_va_iova_ptr piv = { .va = nonce }, pa = { .va = aad }, pd = { .va = dig };
	struct rte_crypto_sym_vec vec;
	struct rte_crypto_sgl sgl;
	union rte_crypto_sym_ofs ofs = { .raw = 0 };
	struct tsess ss[2];

	memset(ss, 0, sizeof(ss));
	VT_EXPECT(v != NULL && buf != NULL && pt != NULL && ct != NULL, "malloc");
	if (v == NULL || buf == NULL || pt == NULL || ct == NULL)
		goto out;
	for (int d = 0; d < 2; d++)
		if (!tsess_create(&ss[d], g.seed + 320, 12, d))
			goto out;
	for (uint32_t i = 0; i < max; i++) {
		v[i].base = buf + i;
		v[i].len = 1;
		v[i].tot_len = 1;
	}
	for (unsigned int l = 0; l < RTE_DIM(lens); l++) {
		uint32_t len = lens[l];
		bool too_long = len > RTE_PMD_VECSEC_MAX_SGL_SEGS;

		vt_rand(pt, len, g.seed + l);
		vt_rand(nonce, sizeof(nonce), g.seed + l + 1);
		vt_rand(aad, sizeof(aad), g.seed + l + 2);
		ossl_seal(T_CHACHA, ss[0].key, KEY_LEN, nonce, IV_LEN, aad, sizeof(aad), pt, len,
			  ct, tag, TAG_LEN);
		for (int d = 0; d < 2; d++) {
			int32_t st = -1;
			uint32_t ok;

			memcpy(buf, d ? ct : pt, len);
			memcpy(dig, d ? tag : (const uint8_t *)"0123456789abcdef", TAG_LEN);
			sgl.vec = v;
			sgl.num = len;
			memset(&vec, 0, sizeof(vec));
			vec.num = 1;
			vec.src_sgl = &sgl;
			vec.iv = &piv;
			vec.aad = &pa;
			vec.digest = &pd;
			vec.status = &st;
			ok = rte_cryptodev_sym_cpu_crypto_process(g.dev_id, ss[d].s, ofs, &vec);
			if (too_long) {
				VT_EXPECT(ok == 0 && st == EINVAL,
					  "cpu crypto, %u vectors: %u ok, status %d, want EINVAL",
					  len, ok, st);
				continue;
			}
			VT_EXPECT(ok == 1 && st == 0, "cpu crypto, %u one-byte vectors, dir %d: "
				  "%u ok, status %d", len, d, ok, st);
			VT_EXPECT_MEM(buf, d ? pt : ct, len,
				      "cpu crypto %u one-byte vectors dir %d", len, d);
			if (d == 0)
				VT_EXPECT_MEM(dig, tag, TAG_LEN, "cpu crypto tag, %u vectors", len);
		}
	}
out:
	tsess_free(&ss[0]);
	tsess_free(&ss[1]);
	free(v);
	free(buf);
	free(pt);
	free(ct);
}

static const struct vt_test tests[] = {
	VT_TEST(test_info),
	VT_TEST(test_rfc8439),
	VT_TEST(test_linear),
	VT_TEST(test_chained),
	VT_TEST(test_bursts),
	VT_TEST(test_forged),
	VT_TEST(test_invalid_ops),
	VT_TEST(test_invalid_xforms),
	VT_TEST(test_session_churn),
	VT_TEST(test_session_size),
	VT_TEST(test_qp_and_stats),
	VT_TEST(test_err_stats),
	VT_TEST(test_sessionless),
	VT_TEST(test_cpu_crypto),
	VT_TEST(test_aria),
	VT_TEST(test_devargs),
	VT_TEST(test_devargs_two_isa),
	VT_TEST(test_long_chains),
	VT_TEST(test_cpu_long),
};

static int
setup(void)
{
	int id = rte_cryptodev_get_dev_id(DEV_NAME);
	unsigned int sess_sz;

	if (id < 0) {
		printf("no %s: pass --vdev %s (and -d <librte_crypto_vecsec.so> for the dl test)\n",
		       DEV_NAME, DEV_NAME);
		return -1;
	}
	g.dev_id = (uint8_t)id;
	g.socket = (int)rte_socket_id();
	g.seed = vt_seed();
	sess_sz = rte_cryptodev_sym_get_private_session_size(g.dev_id);
	g.sess_mp = rte_cryptodev_sym_session_pool_create("vt_sess", NB_SESS, sess_sz, 0, 0,
							  g.socket);
	g.op_mp = rte_crypto_op_pool_create("vt_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC, NB_OPS, 0,
					    32, g.socket);
	g.mbuf_mp = rte_pktmbuf_pool_create("vt_mbuf", NB_MBUFS, 0, 0,
					    MBUF_ROOM + RTE_PKTMBUF_HEADROOM, g.socket);
	if (g.sess_mp == NULL || g.op_mp == NULL || g.mbuf_mp == NULL) {
		printf("mempools: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return dev_setup(NB_QP, NB_DESC);
}

static void
teardown(void)
{
	rte_cryptodev_stop(g.dev_id);
	rte_cryptodev_close(g.dev_id);
	rte_mempool_free(g.sess_mp);
	rte_mempool_free(g.op_mp);
	rte_mempool_free(g.mbuf_mp);
}

int
main(int argc, char **argv)
{
	const char *mode = getenv("VT_PMD_MODE");
	bool no_pci = false;
	int rc;

	/* DPDK must never probe PCI here: it could take the host's NIC. */
	for (int i = 1; i < argc; i++)
		no_pci |= strcmp(argv[i], "--no-pci") == 0;
	if (!no_pci) {
		printf("refusing to start EAL without --no-pci\n");
		return 2;
	}
	if (rte_eal_init(argc, argv) < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (mode != NULL && strcmp(mode, "probe-fail") == 0) {
		/* EAL carries on after a failed vdev probe: no device may exist */
		rc = rte_cryptodev_get_dev_id(DEV_NAME) < 0 ? 0 : 1;
		printf("%s: probe with bad devargs %s\n", rc == 0 ? "PASS" : "FAIL",
		       rc == 0 ? "failed as it must" : "succeeded");
		vecsec_eal_cleanup();
		return rc;
	}
	if (setup() != 0) {
		vecsec_eal_cleanup();
		return 1;
	}
#ifdef VT_PMD_DL
	rc = vt_main_once("pmd_dl", tests, VT_ARRAY_SIZE(tests));
#else
	rc = vt_main("pmd", tests, VT_ARRAY_SIZE(tests));
#endif
	teardown();
	vecsec_eal_cleanup();
	return rc;
}
