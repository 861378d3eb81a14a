/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARIA-GCM (NIST SP 800-38D 7.1-7.2 with ARIA as the block cipher): the
 * GCM state machine shared with lib/aead, the streaming and one-shot API
 * (its ESP form, RFC 4106's layout, is lib/esp's).
 * Portable: the block work goes through the ARIA and GHASH tables.
 */
#include <errno.h>
#include <string.h>

#include "aria_internal.h"

/* Text is processed in pieces of this size: encrypt then hash while hot. */
#define GCM_CHUNK 4096

static inline void
ghash_blocks(struct aria_gcm *g, const uint8_t *p, size_t nblocks)
{
	vecsec_ghash_impl_at(g->level)->update(g->x, &g->key->ghash, p, nblocks);
}

/*
 * SP 800-38D 6.2: add one to the last 32 bits, modulo 2^32. Without
 * branches: for a long IV, J0 = GHASH_H(IV) and its timing would tell
 * about H.
 */
static inline void
inc32(uint8_t ctr[16])
{
	unsigned int carry = 1;

	for (int i = 15; i >= 12; i--) {
		carry += ctr[i];
		ctr[i] = (uint8_t)carry;
		carry >>= 8;
	}
}

void
vecsec_aria_gcm_start(struct aria_gcm *g, enum vecsec_isa level, const struct aria_gcm_key *k,
		      const uint8_t *iv, size_t iv_len)
{
	memset(g, 0, sizeof(*g));
	g->key = k;
	g->level = (uint32_t)level;
	if (iv_len == 12) {
		/* 7.1 step 2: J0 = IV || 0^31 || 1 */
		memcpy(g->j0, iv, 12);
		g->j0[15] = 1;
	} else {
		/* J0 = GHASH(IV || 0^(s+64) || [len(IV)]64) */
		uint8_t last[16] = { 0 };
		uint64_t bits = (uint64_t)iv_len * 8;
		size_t whole = iv_len / 16;

		ghash_blocks(g, iv, whole);
		if (iv_len % 16 != 0) {
			memcpy(last, iv + whole * 16, iv_len % 16);
			ghash_blocks(g, last, 1);
			memset(last, 0, sizeof(last));
		}
		for (int i = 0; i < 8; i++)
			last[15 - i] = (uint8_t)(bits >> (8 * i));
		ghash_blocks(g, last, 1);
		memcpy(g->j0, g->x, 16);
		memset(g->x, 0, 16);
	}
	/* step 3: the text starts at inc32(J0) */
	memcpy(g->ctr, g->j0, 16);
	inc32(g->ctr);
}

void
vecsec_aria_gcm_hash(struct aria_gcm *g, const uint8_t *p, size_t len)
{
	size_t n;

	if (g->text)
		g->len += len;
	else
		g->aad_len += len;
	if (len == 0)
		return;
	if (g->buf_len != 0) {
		n = 16 - g->buf_len < len ? 16 - g->buf_len : len;
		memcpy(g->buf + g->buf_len, p, n);
		g->buf_len += (uint32_t)n;
		p += n;
		len -= n;
		if (g->buf_len < 16)
			return;
		ghash_blocks(g, g->buf, 1);
		g->buf_len = 0;
	}
	n = len / 16;
	ghash_blocks(g, p, n);
	p += n * 16;
	len -= n * 16;
	if (len != 0) {
		memcpy(g->buf, p, len);
		g->buf_len = (uint32_t)len;
	}
}

void
vecsec_aria_gcm_hash_pad(struct aria_gcm *g)
{
	if (g->buf_len != 0) {
		memset(g->buf + g->buf_len, 0, 16 - g->buf_len);
		ghash_blocks(g, g->buf, 1);
		g->buf_len = 0;
	}
	g->text = 1;
}

/*
 * A final partial block goes to the kernel with the whole blocks (one
 * call); its keystream is only needed if more text follows, so ks keeps
 * that block's counter and *ks_left says KS_PENDING until a later call
 * encrypts it. One-shot callers never pay for it.
 */
#define KS_PENDING 0x100u

void
vecsec_aria_ctr32_stream(const struct aria_impl *impl, const struct aria_key *k, uint8_t ctr[16],
			 uint8_t ks[16], uint32_t *ks_left, uint8_t *out, const uint8_t *in,
			 size_t len)
{
	size_t n, tail;

	if (len == 0)
		return;
	if ((*ks_left & KS_PENDING) != 0) {
		impl->encrypt_blocks(ks, ks, 1, k);
		*ks_left &= ~KS_PENDING;
	}
	if (*ks_left != 0) {
		const uint8_t *left = ks + 16 - *ks_left;

		n = len < *ks_left ? len : *ks_left;
		for (size_t i = 0; i < n; i++)
			out[i] = in[i] ^ left[i];
		*ks_left -= (uint32_t)n;
		in += n;
		out += n;
		len -= n;
	}
	tail = len % 16;
	if (tail != 0) {
		/* the partial block's counter: ctr + len / 16, mod 2^32 (inc32) */
		uint32_t c = (uint32_t)ctr[12] << 24 | (uint32_t)ctr[13] << 16 |
			     (uint32_t)ctr[14] << 8 | ctr[15];

		c += (uint32_t)(len / 16);
		memcpy(ks, ctr, 12);
		ks[12] = (uint8_t)(c >> 24);
		ks[13] = (uint8_t)(c >> 16);
		ks[14] = (uint8_t)(c >> 8);
		ks[15] = (uint8_t)c;
		*ks_left = (uint32_t)(16 - tail) | KS_PENDING;
	}
	impl->ctr32_xor(out, in, len, k, ctr);
}

void
vecsec_aria_gcm_ctr(struct aria_gcm *g, uint8_t *out, const uint8_t *in, size_t len)
{
	vecsec_aria_ctr32_stream(vecsec_aria_impl_at(g->level), &g->key->aria, g->ctr, g->ks,
				 &g->ks_left, out, in, len);
}

void
vecsec_aria_gcm_tag_ej0(struct aria_gcm *g, uint8_t tag[16], const uint8_t ej0[16])
{
	uint8_t lens[16];
	uint64_t abits = g->aad_len * 8, cbits = g->len * 8;

	vecsec_aria_gcm_hash_pad(g);
	/* 7.1 step 5: S = GHASH(A || pad || C || pad || [len(A)]64 || [len(C)]64) */
	for (int i = 0; i < 8; i++) {
		lens[7 - i] = (uint8_t)(abits >> (8 * i));
		lens[15 - i] = (uint8_t)(cbits >> (8 * i));
	}
	ghash_blocks(g, lens, 1);
	/* step 6: T = MSB_t(GCTR(J0, S)) = E(J0) ^ S */
	for (int i = 0; i < 16; i++)
		tag[i] = ej0[i] ^ g->x[i];
}

void
vecsec_aria_gcm_tag(struct aria_gcm *g, uint8_t tag[16])
{
	uint8_t ek[16];

	vecsec_aria_impl_at(g->level)->encrypt_blocks(ek, g->j0, 1, &g->key->aria);
	vecsec_aria_gcm_tag_ej0(g, tag, ek);
	vecsec_memzero(ek, sizeof(ek));
}

void
vecsec_aria_gcm_tail_ks(const struct aria_gcm *g, uint8_t ks[ARIA_GCM_TAIL + 16], size_t skip,
			size_t len)
{
	uint8_t cb[ARIA_GCM_TAIL / 16 + 1][16];
	size_t nb = (len + 15) / 16;
	uint32_t c = (uint32_t)g->ctr[12] << 24 | (uint32_t)g->ctr[13] << 16 |
		     (uint32_t)g->ctr[14] << 8 | g->ctr[15];

	c += (uint32_t)skip;    /* inc32, mod 2^32 */
	memcpy(cb[0], g->j0, 16);
	for (size_t i = 1; i <= nb; i++, c++) {
		memcpy(cb[i], g->ctr, 12);
		cb[i][12] = (uint8_t)(c >> 24);
		cb[i][13] = (uint8_t)(c >> 16);
		cb[i][14] = (uint8_t)(c >> 8);
		cb[i][15] = (uint8_t)c;
	}
	vecsec_aria_impl_at(g->level)->encrypt_blocks(ks, cb[0], nb + 1, &g->key->aria);
}

static inline void
xor_bytes(uint8_t *out, const uint8_t *in, const uint8_t *ks, size_t len)
{
	for (size_t i = 0; i < len; i++)
		out[i] = in[i] ^ ks[i];
}

/* ---- keys ---- */

static inline const struct aria_gcm_key *
gkey_of(const struct vecsec_aria_gcm_key *k)
{
	return (const struct aria_gcm_key *)(const void *)k->opaque;
}

void
vecsec_aria_gcm_key_setup(struct aria_gcm_key *gk, const uint8_t *key, size_t key_len)
{
	uint8_t h[16] = { 0 };

	vecsec_aria_key_schedule_ref(&gk->aria, key, key_len);
	/* 7.1 step 1: H = CIPH_K(0^128) */
	vecsec_aria_impl()->encrypt_blocks(h, h, 1, &gk->aria);
	vecsec_ghash_key_init_ref(&gk->ghash, h);
	vecsec_memzero(h, sizeof(h));
}

VECSEC_API int
vecsec_aria_gcm_key_init(struct vecsec_aria_gcm_key *k, const uint8_t *key, size_t key_len)
{
	if (k == NULL || key == NULL || (key_len != 16 && key_len != 24 && key_len != 32))
		return -EINVAL;
	memset(k, 0, sizeof(*k));
	vecsec_aria_gcm_key_setup((struct aria_gcm_key *)(void *)k->opaque, key, key_len);
	return 0;
}

VECSEC_API void
vecsec_aria_gcm_key_wipe(struct vecsec_aria_gcm_key *k)
{
	if (k != NULL)
		vecsec_memzero(k, sizeof(*k));
}

/* ---- streaming ---- */

enum gcm_phase {
	GCM_NONE = 0, /* zeroed, finished or never started */
	GCM_AAD,
	GCM_ENC,
	GCM_DEC,
};

struct gcm_ctx {
	struct aria_gcm g;
	uint32_t phase;
};

_Static_assert(sizeof(struct gcm_ctx) <= sizeof(struct vecsec_aria_gcm_ctx),
	       "struct vecsec_aria_gcm_ctx too small");

static inline struct gcm_ctx *
ctx_of(struct vecsec_aria_gcm_ctx *ctx)
{
	return (struct gcm_ctx *)(void *)ctx->opaque;
}

static bool
tag_len_ok(size_t tag_len)
{
	return tag_len >= 4 && tag_len <= 16;
}

VECSEC_API int
vecsec_aria_gcm_init(struct vecsec_aria_gcm_ctx *ctx, const struct vecsec_aria_gcm_key *k,
		     const uint8_t *iv, size_t iv_len)
{
	struct gcm_ctx *c;

	if (ctx == NULL || k == NULL || iv == NULL || iv_len == 0)
		return -EINVAL;
	c = ctx_of(ctx);
	vecsec_aria_gcm_start(&c->g, vecsec_isa_cap(), gkey_of(k), iv, iv_len);
	c->phase = GCM_AAD;
	return 0;
}

VECSEC_API int
vecsec_aria_gcm_aad(struct vecsec_aria_gcm_ctx *ctx, const uint8_t *aad, size_t aad_len)
{
	struct gcm_ctx *c;

	if (ctx == NULL || (aad == NULL && aad_len != 0))
		return -EINVAL;
	c = ctx_of(ctx);
	/* SP 800-38D 5.2.1.1: len(A) <= 2^64 - 1 bits */
	if (c->phase != GCM_AAD || aad_len >= (UINT64_C(1) << 61) - c->g.aad_len)
		return -EINVAL;
	vecsec_aria_gcm_hash(&c->g, aad, aad_len);
	return 0;
}

static int
gcm_update(struct vecsec_aria_gcm_ctx *ctx, uint8_t *out, const uint8_t *in, size_t len,
	   enum gcm_phase dir)
{
	struct gcm_ctx *c;

	if (ctx == NULL || (len != 0 && (out == NULL || in == NULL)))
		return -EINVAL;
	c = ctx_of(ctx);
	if (c->phase == GCM_AAD) {
		vecsec_aria_gcm_hash_pad(&c->g);
		c->phase = dir;
	}
	if (c->phase != dir || len > VECSEC_ARIA_GCM_MAX_LEN - c->g.len)
		return -EINVAL;
	while (len > 0) {
		size_t n = len < GCM_CHUNK ? len : GCM_CHUNK;

		if (dir == GCM_ENC) {
			vecsec_aria_gcm_ctr(&c->g, out, in, n);
			vecsec_aria_gcm_hash(&c->g, out, n);
		} else {
			/* hash first: out may be in */
			vecsec_aria_gcm_hash(&c->g, in, n);
			vecsec_aria_gcm_ctr(&c->g, out, in, n);
		}
		in += n;
		out += n;
		len -= n;
	}
	return 0;
}

VECSEC_API int
vecsec_aria_gcm_encrypt_update(struct vecsec_aria_gcm_ctx *ctx, uint8_t *out, const uint8_t *in,
			       size_t len)
{
	return gcm_update(ctx, out, in, len, GCM_ENC);
}

VECSEC_API int
vecsec_aria_gcm_decrypt_update(struct vecsec_aria_gcm_ctx *ctx, uint8_t *out, const uint8_t *in,
			       size_t len)
{
	return gcm_update(ctx, out, in, len, GCM_DEC);
}

VECSEC_API int
vecsec_aria_gcm_final(struct vecsec_aria_gcm_ctx *ctx, uint8_t *tag, size_t tag_len)
{
	struct gcm_ctx *c;
	uint8_t full[16];

	if (ctx == NULL || tag == NULL || !tag_len_ok(tag_len))
		return -EINVAL;
	c = ctx_of(ctx);
	if (c->phase != GCM_AAD && c->phase != GCM_ENC)
		return -EINVAL;
	vecsec_aria_gcm_tag(&c->g, full);
	memcpy(tag, full, tag_len);
	vecsec_memzero(full, sizeof(full));
	vecsec_memzero(ctx, sizeof(*ctx));
	return 0;
}

VECSEC_API int
vecsec_aria_gcm_check(struct vecsec_aria_gcm_ctx *ctx, const uint8_t *tag, size_t tag_len)
{
	struct gcm_ctx *c;
	uint8_t full[16];
	bool ok;

	if (ctx == NULL || tag == NULL || !tag_len_ok(tag_len))
		return -EINVAL;
	c = ctx_of(ctx);
	if (c->phase != GCM_AAD && c->phase != GCM_DEC)
		return -EINVAL;
	vecsec_aria_gcm_tag(&c->g, full);
	ok = vecsec_ct_eq(full, tag, tag_len);
	vecsec_memzero(full, sizeof(full));
	vecsec_memzero(ctx, sizeof(*ctx));
	return ok ? 0 : -EBADMSG;
}

/* ---- one shot ---- */

static bool
oneshot_args_ok(const struct vecsec_aria_gcm_key *k, const uint8_t *out, const uint8_t *in,
		size_t len, const uint8_t *tag, size_t tag_len, const uint8_t *iv,
		size_t iv_len, const uint8_t *aad, size_t aad_len)
{
	return k != NULL && tag != NULL && tag_len_ok(tag_len) && iv != NULL && iv_len != 0 &&
	       (len == 0 || (out != NULL && in != NULL)) && (aad != NULL || aad_len == 0) &&
	       (uint64_t)len <= VECSEC_ARIA_GCM_MAX_LEN;
}

VECSEC_API int
vecsec_aria_gcm_seal(const struct vecsec_aria_gcm_key *k, uint8_t *out, uint8_t *tag,
		     size_t tag_len, const uint8_t *in, size_t len, const uint8_t *iv,
		     size_t iv_len, const uint8_t *aad, size_t aad_len)
{
	struct aria_gcm g;
	uint8_t full[16];
	size_t tail;

	if (!oneshot_args_ok(k, out, in, len, tag, tag_len, iv, iv_len, aad, aad_len))
		return -EINVAL;
	vecsec_aria_gcm_start(&g, vecsec_isa_cap(), gkey_of(k), iv, iv_len);
	vecsec_aria_gcm_hash(&g, aad, aad_len);
	vecsec_aria_gcm_hash_pad(&g);
	/* whole kernel steps first; the rest carries E(J0) in one more call */
	tail = len % ARIA_GCM_TAIL;
	len -= tail;
	while (len > 0) {
		size_t n = len < GCM_CHUNK ? len : GCM_CHUNK;

		vecsec_aria_gcm_ctr(&g, out, in, n);
		vecsec_aria_gcm_hash(&g, out, n);
		in += n;
		out += n;
		len -= n;
	}
	if (tail != 0) {
		uint8_t ks[ARIA_GCM_TAIL + 16];

		vecsec_aria_gcm_tail_ks(&g, ks, 0, tail);
		xor_bytes(out, in, ks + 16, tail);
		vecsec_aria_gcm_hash(&g, out, tail);
		vecsec_aria_gcm_tag_ej0(&g, full, ks);
		vecsec_memzero(ks, sizeof(ks));
	} else {
		vecsec_aria_gcm_tag(&g, full);
	}
	memcpy(tag, full, tag_len);
	vecsec_memzero(full, sizeof(full));
	vecsec_memzero(&g, sizeof(g));
	return 0;
}

VECSEC_API int
vecsec_aria_gcm_open(const struct vecsec_aria_gcm_key *k, uint8_t *out, const uint8_t *in,
		     size_t len, const uint8_t *tag, size_t tag_len, const uint8_t *iv,
		     size_t iv_len, const uint8_t *aad, size_t aad_len)
{
	struct aria_gcm g;
	uint8_t full[16];
	size_t tail;
	bool ok;

	if (!oneshot_args_ok(k, out, in, len, tag, tag_len, iv, iv_len, aad, aad_len))
		return -EINVAL;
	vecsec_aria_gcm_start(&g, vecsec_isa_cap(), gkey_of(k), iv, iv_len);
	vecsec_aria_gcm_hash(&g, aad, aad_len);
	vecsec_aria_gcm_hash_pad(&g);
	/* 7.2: authenticate the whole ciphertext before releasing plaintext */
	vecsec_aria_gcm_hash(&g, in, len);
	tail = len % ARIA_GCM_TAIL;
	if (tail != 0) {
		/* E(J0) with the keystream of the last tail bytes (see seal) */
		uint8_t ks[ARIA_GCM_TAIL + 16];
		size_t main = len - tail;

		vecsec_aria_gcm_tail_ks(&g, ks, main / 16, tail);
		vecsec_aria_gcm_tag_ej0(&g, full, ks);
		ok = vecsec_ct_eq(full, tag, tag_len);
		if (ok) {
			vecsec_aria_gcm_ctr(&g, out, in, main);
			xor_bytes(out + main, in + main, ks + 16, tail);
		}
		vecsec_memzero(ks, sizeof(ks));
	} else {
		vecsec_aria_gcm_tag(&g, full);
		ok = vecsec_ct_eq(full, tag, tag_len);
		if (ok)
			vecsec_aria_gcm_ctr(&g, out, in, len);
	}
	vecsec_memzero(full, sizeof(full));
	if (!ok) {
		vecsec_memzero(&g, sizeof(g));
		vecsec_memzero(out, len);
		return -EBADMSG;
	}
	vecsec_memzero(&g, sizeof(g));
	return 0;
}
