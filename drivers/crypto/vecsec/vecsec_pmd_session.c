/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec symmetric sessions from xforms (checked against the
 * capability array) and the key storage every session uses: inline when
 * small, else a sessionless slot or rte_malloc memory, wiped on release.
 * Below the control path (vecsec_pmd_ops.c, vecsec_pmd_sec.c) and the data
 * path (vecsec_pmd_dp.c, for sessionless ops), which all call it.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_malloc.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"

#include "vecsec_pmd_private.h"

struct vecsec_aead_key *
vecsec_pmd_key_storage(void *line, void *slot, size_t slot_len, int socket,
		       enum vecsec_aead_alg alg, size_t key_len, uint8_t *heap)
{
	size_t n = vecsec_aead_key_size(alg, key_len);
	void *k;

	*heap = 0;
	if (n == 0)
		return NULL;
	if (n <= VECSEC_PMD_KEY_INLINE)
		return line;
	if (slot != NULL)
		return n <= slot_len ? slot : NULL;
	/* the device's socket first, then any: a session may be made anywhere */
	k = rte_zmalloc_socket("crypto_vecsec key", n, 64, socket);
	if (k == NULL && socket != SOCKET_ID_ANY)
		k = rte_zmalloc_socket("crypto_vecsec key", n, 64, SOCKET_ID_ANY);
	if (k != NULL)
		*heap = 1;
	return k;
}

void
vecsec_pmd_key_release(const struct vecsec_aead_key *key, uint8_t heap)
{
	/* the PMD's own storage, handed out read-only to jobs */
	struct vecsec_aead_key *k = (struct vecsec_aead_key *)(uintptr_t)key;

	if (k == NULL)
		return;
	vecsec_aead_key_wipe(k);
	if (heap)
		rte_free(k);
}

void
vecsec_pmd_session_wipe(struct vecsec_pmd_session *s)
{
	vecsec_pmd_key_release(s->key, s->key_heap);
	vecsec_memzero(s, sizeof(*s));
}

/* The capability entry for an xform's algorithm, or NULL. */
static const struct rte_cryptodev_symmetric_capability *
find_cap(const struct rte_crypto_sym_xform *x, bool aria)
{
	const struct rte_cryptodev_capabilities *c = vecsec_pmd_capabilities(aria);

	for (; c->op != RTE_CRYPTO_OP_TYPE_UNDEFINED; c++) {
		if (c->sym.xform_type != x->type)
			continue;
		if (x->type == RTE_CRYPTO_SYM_XFORM_AEAD && c->sym.aead.algo == x->aead.algo)
			return &c->sym;
		if (x->type == RTE_CRYPTO_SYM_XFORM_CIPHER &&
		    c->sym.cipher.algo == x->cipher.algo)
			return &c->sym;
	}
	return NULL;
}

int
vecsec_pmd_session_set(struct vecsec_pmd_session *s, const struct rte_crypto_sym_xform *x,
		       bool aria, void *slot, size_t slot_len, int socket)
{
	const struct rte_cryptodev_symmetric_capability *cap;
	struct vecsec_aead_key *k;
	enum vecsec_aead_alg alg;
	const uint8_t *key;
	size_t key_len;
	int rc;

	if (s == NULL || x == NULL)
		return -EINVAL;
	if (x->next != NULL)
		return -ENOTSUP;   /* AEAD (or ARIA-CTR) alone: no chains */
	cap = find_cap(x, aria);
	if (cap == NULL)
		return -ENOTSUP;
	memset(s, 0, sizeof(*s));
	if (x->type == RTE_CRYPTO_SYM_XFORM_AEAD) {
		const struct rte_crypto_aead_xform *a = &x->aead;

		if (rte_cryptodev_sym_capability_check_aead(cap, a->key.length,
				a->digest_length, a->aad_length, a->iv.length) != 0)
			return -ENOTSUP;
		if (a->op == RTE_CRYPTO_AEAD_OP_ENCRYPT)
			s->dir = VECSEC_AEAD_SEAL;
		else if (a->op == RTE_CRYPTO_AEAD_OP_DECRYPT)
			s->dir = VECSEC_AEAD_OPEN;
		else
			return -EINVAL;
		alg = a->algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305 ?
			VECSEC_AEAD_CHACHA20_POLY1305 : VECSEC_AEAD_ARIA_GCM;
		key = a->key.data;
		key_len = a->key.length;
		s->iv_offset = a->iv.offset;
		s->iv_len = a->iv.length;
		s->aad_len = a->aad_length;
		s->digest_len = a->digest_length;
	} else {
		const struct rte_crypto_cipher_xform *c = &x->cipher;

		if (rte_cryptodev_sym_capability_check_cipher(cap, c->key.length,
				c->iv.length) != 0)
			return -ENOTSUP;
		/* CTR: both directions are the same keystream xor */
		if (c->op == RTE_CRYPTO_CIPHER_OP_ENCRYPT)
			s->dir = VECSEC_AEAD_SEAL;
		else if (c->op == RTE_CRYPTO_CIPHER_OP_DECRYPT)
			s->dir = VECSEC_AEAD_OPEN;
		else
			return -EINVAL;
		alg = VECSEC_AEAD_ARIA_CTR;
		key = c->key.data;
		key_len = c->key.length;
		s->iv_offset = c->iv.offset;
		s->iv_len = c->iv.length;
		s->cipher_only = 1;
	}
	if (key == NULL)
		return -EINVAL;
	k = vecsec_pmd_key_storage(s->key_line, slot, slot_len, socket, alg, key_len,
				   &s->key_heap);
	if (k == NULL) {
		rc = vecsec_aead_key_size(alg, key_len) == 0 ? -EINVAL : -ENOMEM;
		vecsec_memzero(s, sizeof(*s));
		return rc;
	}
	rc = vecsec_aead_key_init(k, alg, key, key_len);
	s->key = k;
	if (rc != 0) {
		vecsec_pmd_session_wipe(s);
		return rc;
	}
	s->configured = 1;
	return 0;
}
