/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw SAs: each configured SA becomes an rte_ipsec SA plus one
 * cryptodev session on a device chosen by capability (the preferred driver,
 * crypto_vecsec by default, first), bound together in an rte_ipsec_session
 * of type lookaside-none or cpu-crypto. Inbound SAs go into rte_ipsec_sad:
 * tunnel SAs keyed by SPI + destination + source, transport SAs by SPI.
 */
#include "gw_dp.h"
#include "vecsec_heap.h"
#include "gw_log.h"
#include "ha.h"
#include "sa_native.h"
#include "hasync.h"
#include "seqstate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_pmd_vecsec.h>
#include <rte_security.h>

#include <vecsec/vecsec_aead.h>
#include <vecsec/vecsec_esp.h>

#define GW_CDEV_DESC 2048

/* Software cryptodevs tried, in this order, when no probed device can serve an SA. */
static const char *const auto_vdevs[] = {
	"crypto_vecsec",    "crypto_aesni_mb", "crypto_chacha20_poly1305",
	"crypto_aesni_gcm", "crypto_null",     "crypto_openssl",
};

static void
fill_xforms(const struct gw_sa_conf *c, struct rte_crypto_sym_xform xf[2])
{
	bool in = c->dir == GW_DIR_IN;

	memset(xf, 0, 2 * sizeof(xf[0]));
	if (c->aead) {
		xf[0].type = RTE_CRYPTO_SYM_XFORM_AEAD;
		xf[0].aead.op = in ? RTE_CRYPTO_AEAD_OP_DECRYPT : RTE_CRYPTO_AEAD_OP_ENCRYPT;
		xf[0].aead.algo = (enum rte_crypto_aead_algorithm)c->aead_algo;
		xf[0].aead.key.data = c->cipher_key;
		xf[0].aead.key.length = c->cipher_key_len;
		xf[0].aead.iv.offset = GW_IV_OFFSET;
		xf[0].aead.iv.length = c->iv_len;
		xf[0].aead.digest_length = c->digest_len;
		xf[0].aead.aad_length = c->aad_len;
		return;
	}
	if (c->auth_algo == RTE_CRYPTO_AUTH_AES_GMAC) {
		xf[0].type = RTE_CRYPTO_SYM_XFORM_AUTH;
		xf[0].auth.op = in ? RTE_CRYPTO_AUTH_OP_VERIFY : RTE_CRYPTO_AUTH_OP_GENERATE;
		xf[0].auth.algo = RTE_CRYPTO_AUTH_AES_GMAC;
		xf[0].auth.key.data = c->auth_key;
		xf[0].auth.key.length = c->auth_key_len;
		xf[0].auth.iv.offset = GW_IV_OFFSET;
		xf[0].auth.iv.length = c->iv_len;
		xf[0].auth.digest_length = c->digest_len;
		return;
	}
	/* rte_ipsec wants cipher then auth outbound, auth then cipher inbound */
	struct rte_crypto_sym_xform *ci = &xf[in ? 1 : 0], *au = &xf[in ? 0 : 1];

	ci->type = RTE_CRYPTO_SYM_XFORM_CIPHER;
	ci->cipher.op = in ? RTE_CRYPTO_CIPHER_OP_DECRYPT : RTE_CRYPTO_CIPHER_OP_ENCRYPT;
	ci->cipher.algo = (enum rte_crypto_cipher_algorithm)c->cipher_algo;
	ci->cipher.key.data = c->cipher_key;
	ci->cipher.key.length = c->cipher_key_len;
	ci->cipher.iv.offset = GW_IV_OFFSET;
	ci->cipher.iv.length = c->iv_len;
	au->type = RTE_CRYPTO_SYM_XFORM_AUTH;
	au->auth.op = in ? RTE_CRYPTO_AUTH_OP_VERIFY : RTE_CRYPTO_AUTH_OP_GENERATE;
	au->auth.algo = (enum rte_crypto_auth_algorithm)c->auth_algo;
	au->auth.key.data = c->auth_key;
	au->auth.key.length = c->auth_key_len;
	au->auth.digest_length = c->digest_len;
	xf[0].next = &xf[1];
}

/* ---- vecsec: ARIA SAs (crypto_vecsec's private algorithm ids) ------------ */

/* struct gw_sa's lines as gw_dp.h describes them: line 1 must not spill */
_Static_assert(offsetof(struct gw_sa, rw) == RTE_CACHE_LINE_SIZE &&
	       offsetof(struct gw_sa, direct) < 2 * RTE_CACHE_LINE_SIZE &&
	       offsetof(struct gw_sa, life) == 2 * RTE_CACHE_LINE_SIZE,
	       "struct gw_sa: the per-burst fields fill more than line 1");
_Static_assert(GW_AEAD_ARIA_GCM == (int)RTE_PMD_VECSEC_AEAD_ARIA_GCM &&
	       GW_CIPHER_ARIA_CTR == (int)RTE_PMD_VECSEC_CIPHER_ARIA_CTR,
	       "gw.h's ARIA ids differ from rte_pmd_vecsec.h's");

static bool
sa_is_aria(const struct gw_sa_conf *c)
{
	return c->aead ? c->aead_algo == GW_AEAD_ARIA_GCM : c->cipher_algo == GW_CIPHER_ARIA_CTR;
}

/*
 * The xforms rte_ipsec_sa_init() is given for an ARIA SA: a copy of the
 * real ones (fill_xforms) with AES-GCM for ARIA-GCM and AES-CTR for
 * ARIA-CTR, same key length. rte_ipsec (22.11) knows no ARIA, but it reads
 * the xform only for the ESP layout (lib/ipsec/sa.c, esp_sa_init: 8-byte
 * ESP IV, ICV and AAD length, padding, iv.offset), never to compute: ESP
 * ARIA-GCM has the layout of AES-GCM (RFC 4106), ARIA-CTR that of AES-CTR
 * (RFC 3686). So it writes salt || IV || be32(1) (GCM: the session reads
 * 12 bytes) or nonce || IV || be32(1) (CTR: the 16-byte counter block) at
 * iv.offset of each op, or in the IV it hands to CPU crypto, and SPI || SQN
 * (8 or 12 bytes) as GCM's AAD. The session is made with the real ARIA
 * xform (sess_xform), which only crypto_vecsec accepts.
 */
static struct rte_crypto_sym_xform *
ipsec_xform(const struct gw_sa_conf *c, struct rte_crypto_sym_xform xf[2],
	    struct rte_crypto_sym_xform ix[2])
{
	if (!sa_is_aria(c))
		return xf;
	memcpy(ix, xf, 2 * sizeof(ix[0]));
	if (ix[0].next != NULL)
		ix[0].next = &ix[1];
	for (unsigned int i = 0; i < 2; i++) {
		if (ix[i].type == RTE_CRYPTO_SYM_XFORM_AEAD)
			ix[i].aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
		else if (ix[i].type == RTE_CRYPTO_SYM_XFORM_CIPHER)
			ix[i].cipher.algo = RTE_CRYPTO_CIPHER_AES_CTR;
	}
	return ix;
}

/*
 * The xform chain of the cryptodev session (and of the capability check).
 * ARIA-CTR runs its cipher xform alone: the parser allows only auth null
 * with it, and crypto_vecsec chains nothing. Changes xf for that case; call
 * ipsec_xform() first.
 */
static struct rte_crypto_sym_xform *
sess_xform(const struct gw_sa_conf *c, struct rte_crypto_sym_xform xf[2])
{
	struct rte_crypto_sym_xform *ci;

	if (c->aead || c->cipher_algo != GW_CIPHER_ARIA_CTR)
		return xf;
	ci = xf[0].type == RTE_CRYPTO_SYM_XFORM_CIPHER ? &xf[0] : &xf[1];
	ci->next = NULL;
	return ci;
}

/*
 * -e turns ESN on for every SA, and rte_ipsec then builds the 12-byte AAD of
 * RFC 4106/4309/7634 (SPI || SQN high || SQN low) for AEAD SAs: the session
 * must take 12 AAD bytes, not the 8 the parser set for an SA without `esn N`.
 */
static void
esn_aad_fix(const struct gw_dp *dp, const struct gw_sa_conf *c, struct rte_crypto_sym_xform *xf)
{
	if (dp->esn && !c->esn && xf[0].type == RTE_CRYPTO_SYM_XFORM_AEAD)
		xf[0].aead.aad_length = (uint16_t)(c->aad_len + 4);
}

/* Can device id run every xform of the chain (and CPU crypto if asked)? */
static bool
cdev_supports(uint8_t id, const struct rte_crypto_sym_xform *xf, bool cpu)
{
	struct rte_cryptodev_info info;

	rte_cryptodev_info_get(id, &info);
	if (cpu && !(info.feature_flags & RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO))
		return false;
	for (; xf != NULL; xf = xf->next) {
		struct rte_cryptodev_sym_capability_idx idx = { .type = xf->type };
		const struct rte_cryptodev_symmetric_capability *cap;

		if (xf->type == RTE_CRYPTO_SYM_XFORM_AEAD)
			idx.algo.aead = xf->aead.algo;
		else if (xf->type == RTE_CRYPTO_SYM_XFORM_CIPHER)
			idx.algo.cipher = xf->cipher.algo;
		else
			idx.algo.auth = xf->auth.algo;
		cap = rte_cryptodev_sym_capability_get(id, &idx);
		if (cap == NULL)
			return false;
		if (xf->type == RTE_CRYPTO_SYM_XFORM_AEAD &&
				rte_cryptodev_sym_capability_check_aead(cap, xf->aead.key.length,
					xf->aead.digest_length, xf->aead.aad_length,
					xf->aead.iv.length) != 0)
			return false;
		if (xf->type == RTE_CRYPTO_SYM_XFORM_CIPHER &&
		    rte_cryptodev_sym_capability_check_cipher(cap, xf->cipher.key.length,
							      xf->cipher.iv.length) != 0)
			return false;
		if (xf->type == RTE_CRYPTO_SYM_XFORM_AUTH &&
				rte_cryptodev_sym_capability_check_auth(cap, xf->auth.key.length,
					xf->auth.digest_length, xf->auth.iv.length) != 0)
			return false;
	}
	return true;
}

/* ---- vecsec: lookaside-protocol SAs (rte_security ESP sessions) ---------- */

uint64_t gw_sec_replay_flag;
uint64_t gw_sec_dummy_flag;
int gw_seq_dynfield = -1;

/*
 * Session mempools. A mempool cannot grow, so sessions come from a set of
 * them: the first sized for the configuration's SAs (and some headroom),
 * then, as the control socket adds SAs, one more of half the sessions so
 * far (at least 1024) whenever all are empty, up to the SA table's size.
 * Nothing is reserved for SAs that may never come (a crypto_vecsec session
 * is over 2 KiB), and n SAs take O(log n) pools.
 */
#define GW_MAX_POOLS 48

struct sess_pools {
	const char *kind;               /* "gw_sess<cdev>_" (cryptodev), "gw_sec" (rte_security) */
	char name[16];                  /* the cryptodev ones' kind */
	struct rte_mempool *mp[GW_MAX_POOLS];
	unsigned int n;
	unsigned int total;             /* sessions in all the pools */
	unsigned int elt;               /* private (cryptodev) or whole (security) session */
};

/* one set per cryptodev (sized for its driver's sessions), one for rte_security */
static struct sess_pools cpools[GW_MAX_CDEV];
static struct sess_pools spools = { .kind = "gw_sec" };

static int
pools_add(struct sess_pools *p, unsigned int count)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	if (p->n == GW_MAX_POOLS || count == 0)
		return -ENOSPC;
	snprintf(name, sizeof(name), "%s%u", p->kind, p->n);
	if (p != &spools)
		mp = rte_cryptodev_sym_session_pool_create(name, count, p->elt, 0, 0,
							   SOCKET_ID_ANY);
	else
		mp = rte_mempool_create(name, count, p->elt, 0, 0, NULL, NULL, NULL, NULL,
					SOCKET_ID_ANY, 0);
	if (mp == NULL) {
		fprintf(stderr, "vecsec-gw: cannot create a session pool of %u: %s\n", count,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	p->mp[p->n++] = mp;
	p->total += count;
	return 0;
}

/* A pool with a free session, adding one when every pool is empty; NULL if none may be. */
static struct rte_mempool *
pools_pick(const struct gw_dp *dp, struct sess_pools *p)
{
	unsigned int cap = dp->max_sa + 64, more;

	for (unsigned int i = 0; i < p->n; i++)
		if (rte_mempool_avail_count(p->mp[i]) != 0)
			return p->mp[i];
	if (p->total >= cap || p->elt == 0)
		return NULL;
	more = RTE_MIN(RTE_MAX(p->total / 2, 1024u), cap - p->total);
	return pools_add(p, more) == 0 ? p->mp[p->n - 1] : NULL;
}

/* The bytes a session of pool set p takes (object, header and trailer). */
static size_t
pools_obj_size(const struct sess_pools *p)
{
	const struct rte_mempool *mp = p->n != 0 ? p->mp[0] : NULL;

	return mp == NULL ? 0 : mp->header_size + mp->elt_size + mp->trailer_size;
}

static void
pools_free(struct sess_pools *p)
{
	for (unsigned int i = 0; i < p->n; i++)
		rte_mempool_free(p->mp[i]);
	p->n = 0;
	p->total = 0;
	p->elt = 0;
}

/*
 * A cryptodev whose rte_security context offers lookaside-protocol ESP for
 * this SA: mode, direction, ESN, window, and the AEAD with this key length
 * among its crypto capabilities (crypto_vecsec: ChaCha20-Poly1305, ARIA-GCM).
 */
static bool
sec_cdev_supports(uint8_t id, const struct gw_sa_conf *c, const struct rte_security_ipsec_xform *ix,
		const struct rte_crypto_sym_xform *xf)
{
	struct rte_security_capability_idx idx = {
		.action = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL,
		.protocol = RTE_SECURITY_PROTOCOL_IPSEC,
		.ipsec = { .proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP, .mode = ix->mode,
			   .direction = ix->direction },
	};
	const struct rte_cryptodev_capabilities *cc;
	const struct rte_security_capability *cap;
	struct rte_cryptodev_info info;
	void *ctx;

	rte_cryptodev_info_get(id, &info);
	if (!(info.feature_flags & RTE_CRYPTODEV_FF_SECURITY))
		return false;
	ctx = rte_cryptodev_get_sec_ctx(id);
	if (ctx == NULL || xf->type != RTE_CRYPTO_SYM_XFORM_AEAD || xf->next != NULL)
		return false;
	cap = rte_security_capability_get(ctx, &idx);
	if (cap == NULL || (ix->options.esn && !cap->ipsec.options.esn) ||
	    (c->udp_encap && !cap->ipsec.options.udp_encap) ||
	    ix->replay_win_sz > cap->ipsec.replay_win_sz_max)
		return false;
	for (cc = cap->crypto_capabilities; cc != NULL && cc->op != RTE_CRYPTO_OP_TYPE_UNDEFINED;
	     cc++) {
		const struct rte_crypto_param_range *k = &cc->sym.aead.key_size;

		if (cc->sym.xform_type != RTE_CRYPTO_SYM_XFORM_AEAD ||
		    cc->sym.aead.algo != xf->aead.algo)
			continue;
		if (xf->aead.key.length >= k->min && xf->aead.key.length <= k->max &&
		    (k->increment == 0 ? xf->aead.key.length == k->min :
		     (xf->aead.key.length - k->min) % k->increment == 0))
			return true;
	}
	return false;
}

/* What an SA needs of a cryptodev: a protocol session when ix is set, else xf (cpu: CPU crypto). */
struct cdev_want {
	const struct gw_sa_conf *c;
	const struct rte_security_ipsec_xform *ix;
	const struct rte_crypto_sym_xform *xf;
	bool cpu;
};

/* The first cryptodev that fits, or the preferred driver's if it fits too; -1 if none. */
static int
pick_cdev(struct gw_dp *dp, const struct cdev_want *w, bool only_used)
{
	int best = -1;

	for (uint8_t id = 0; id < GW_MAX_CDEV; id++) {
		struct rte_cryptodev_info info;
		bool fits;

		if (!rte_cryptodev_is_valid_dev(id))
			continue;
		fits = w->ix != NULL ? sec_cdev_supports(id, w->c, w->ix, w->xf) :
			cdev_supports(id, w->xf, w->cpu);

		if ((only_used && !dp->cdev[id].used) || !fits)
			continue;
		rte_cryptodev_info_get(id, &info);
		if (best < 0)
			best = id;
		if (dp->prefer_driver != NULL && info.driver_name != NULL &&
				strcmp(info.driver_name, dp->prefer_driver) == 0)
			return id;
	}
	return best;
}

/* rte_security's tunnel end points from the SA's addresses (rte_ipsec takes a header). */
static void
sec_tunnel(const struct gw_sa_conf *c, struct rte_security_ipsec_xform *ix)
{
	memset(&ix->tunnel, 0, sizeof(ix->tunnel));
	if (c->mode == GW_MODE_TUN4) {
		ix->tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV4;
		memcpy(&ix->tunnel.ipv4.src_ip, c->src.b, 4);
		memcpy(&ix->tunnel.ipv4.dst_ip, c->dst.b, 4);
		ix->tunnel.ipv4.ttl = 64;
	} else if (c->mode == GW_MODE_TUN6) {
		ix->tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV6;
		memcpy(&ix->tunnel.ipv6.src_addr, c->src.b, 16);
		memcpy(&ix->tunnel.ipv6.dst_addr, c->dst.b, 16);
		ix->tunnel.ipv6.hlimit = 64;
	}
}

/*
 * The security session pools, once the first device with rte_security is
 * up: sized for the largest rte_security session of the devices up then,
 * made on first need and grown (pools_pick).
 */
static int
sec_pool_create(struct gw_dp *dp)
{
	unsigned int max = 0;

	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		void *ctx;

		if (!dp->cdev[id].used)
			continue;
		ctx = rte_cryptodev_get_sec_ctx((uint8_t)id);
		if (ctx != NULL)
			max = RTE_MAX(max, rte_security_session_get_size(ctx));
	}
	if (max == 0 || spools.elt != 0)
		return 0;
	spools.elt = max;
	/* crypto_vecsec marks replayed ESP with this flag (rte_pmd_vecsec.h) */
	int bit = rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_REPLAY_NAME, NULL);

	gw_sec_replay_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
	/* and dummy packets (next header 59, discarded) with this one */
	bit = rte_mbuf_dynflag_lookup(RTE_PMD_VECSEC_DYNFLAG_DUMMY_NAME, NULL);
	gw_sec_dummy_flag = bit >= 0 ? RTE_BIT64(bit) : 0;
	return 0;
}

/*
 * The rte_security session of a lookaside-protocol SA, from the same
 * ipsec xform rte_ipsec was given (the PMD does ESP, rte_ipsec only checks
 * the mbuf flags: lib/ipsec/sa.c, lksd_proto_prepare, pkt_flag_process).
 * ARIA SAs get their real xform here, not rte_ipsec's AES stand-in.
 */
static int
sec_session(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct rte_security_session_conf conf = {
		.action_type = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL,
		.protocol = RTE_SECURITY_PROTOCOL_IPSEC,
	};
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	struct rte_crypto_sym_xform xf[2];
	void *ctx = rte_cryptodev_get_sec_ctx(s->cdev_id);
	struct rte_mempool *mp = ctx != NULL ? pools_pick(dp, &spools) : NULL;
	struct rte_ipsec_sa *isa = s->ss.sa;
	int rc;

	if (mp == NULL)
		return ctx == NULL ? -ENOTSUP : -ENOMEM;
	fill_xforms(c, xf);
	esn_aad_fix(dp, c, xf);
	conf.ipsec = cold->sa_ix;
	conf.crypto_xform = sess_xform(c, xf);
	cold->cses = rte_security_session_create(ctx, &conf, mp);
	if (cold->cses == NULL) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): cannot create an rte_security session "
			"on %s\n", c->spi, c->line, rte_cryptodev_name_get(s->cdev_id));
		return -EINVAL;
	}
	cold->sess_size = pools_obj_size(&spools);
	memset(&s->ss, 0, sizeof(s->ss));
	s->ss.sa = isa;
	s->ss.type = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL;
	s->ss.security.ses = cold->cses;
	s->ss.security.ctx = ctx;
	rc = rte_ipsec_session_prepare(&s->ss);
	if (rc != 0)
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec_session_prepare: %s\n",
			c->spi, c->line, strerror(-rc));
	return rc;
}

/*
 * Anti-replay of an inbound rte_ipsec SA (lookaside-none, CPU crypto):
 * DPDK 22.11's window lets about half of all replays through, counts W + 1
 * numbers, and can record a genuine ESN packet 2^32 too high, after which
 * the SA fails every ICV (docs/dpdk-ipsec-replay.md). The worker keeps an
 * exact RFC 4303 window of W numbers in front of it (esp_in.h). Without
 * ESN rte_ipsec's window is off (size 0): ours alone decides, and a packet
 * neither reads nor writes rte_ipsec's copy (two cache lines, W/8 + 64
 * bytes of the SA less). With ESN rte_ipsec's window stays on, because its
 * top gives the ESN high half rte_ipsec authenticates with, and is kept
 * equal to ours. An ESN SA needs a window (rte_ipsec makes one of 64
 * without): 64 then.
 *
 * With ESN rte_ipsec's own window is given W + 64: its bitmap (W rounded up to a
 * power of two of 64-bit words, no spare word) forgets the oldest word of a
 * window that spans one more word than that, and lets a late number alias
 * one above the top, so that a genuine packet later looks seen; W + 64
 * gives it the spare word RFC 6479 asks for. Only our window decides what
 * is a replay; rte_ipsec's, wider, never refuses what ours takes. Its W is
 * also the one it rebuilds ESNs with (rw_recover).
 */
static int
replay_setup(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, uint32_t w,
	     bool esn, void *mem, size_t sz)
{
	s->rw = mem;
	if (vecsec_esp_replay_init(s->rw, sz, w, esn, c->esn_init) != 0) {
		fprintf(stderr, "vecsec-gw: SA in %u (line %d): the last sequence number seen "
			"(%" PRIu64 ") needs ESN\n", c->spi, c->line, c->esn_init);
		return -EINVAL;
	}
	s->rw_esn = esn;
	s->rw_recover = w + 64;
	s->rw_shared = dp->nb_workers > 1;
	rte_rwlock_init(&s->rw_lock);
	return 0;
}

/*
 * Outbound: the SA sends numbers from its first (`esn N` / `seq N`, at
 * least 1) up to 2^64 - 1 with ESN, 2^32 - 2 without (rte_ipsec 22.11
 * never sends 2^32 - 1; lookaside-protocol SAs stop there too, so every
 * type behaves alike). That count is a hard packet limit: past it packets
 * are dropped as expired and the hard expire event goes out, instead of
 * numbers (and IVs) starting over at 0.
 */
static int
seq_limit(struct gw_sa *s, const struct gw_sa_conf *c, bool esn, uint64_t first)
{
	uint64_t last = esn ? UINT64_MAX : UINT32_MAX - 1;
	uint64_t left, hard = c->life[GW_LIFE_HARD_PKTS];

	if (first > last) {
		fprintf(stderr, "vecsec-gw: SA out %u (line %d): first sequence number %" PRIu64
			" leaves none to send without ESN\n", c->spi, c->line, c->esn_init);
		return -EINVAL;
	}
	left = last - first + 1;
	s->hard_pkts = hard != 0 && hard < left ? hard : left;
	return 0;
}

/* Free what the SA's cold part points to (rte_ipsec SA, window; session apart). */
static void
blk_free(struct gw_dp *dp, struct gw_sa *s)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];

	if (s->ss.sa != NULL)
		rte_ipsec_sa_fini(s->ss.sa);
	if (cold->blk != NULL) {
		dp->mem_blk -= cold->blk_size;
		rte_free(cold->blk);
	}
	cold->blk = NULL;
	cold->blk_size = 0;
	explicit_bzero(&cold->salt, sizeof(cold->salt));
	s->ss.sa = NULL;
	s->rw = NULL;
}

/* The SA's mode, and a tunnel's outer header template in *h4 or *h6. */
static void
sa_prm_mode(const struct gw_sa_conf *c, int fam, struct rte_ipsec_sa_prm *prm,
	    struct rte_ipv4_hdr *h4, struct rte_ipv6_hdr *h6)
{
	if (c->mode == GW_MODE_TRANS) {
		prm->ipsec_xform.mode = RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT;
		prm->trs.proto = fam ? IPPROTO_IPV6 : IPPROTO_IPIP;
	} else {
		prm->ipsec_xform.mode = RTE_SECURITY_IPSEC_SA_MODE_TUNNEL;
		prm->tun.next_proto = fam ? IPPROTO_IPV6 : IPPROTO_IPIP;
		if (c->mode == GW_MODE_TUN4) {
			prm->ipsec_xform.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV4;
			memset(h4, 0, sizeof(*h4));
			h4->version_ihl = RTE_IPV4_VHL_DEF;
			h4->time_to_live = 64;
			h4->next_proto_id = IPPROTO_ESP;
			memcpy(&h4->src_addr, c->src.b, 4);
			memcpy(&h4->dst_addr, c->dst.b, 4);
			prm->tun.hdr = h4;
			prm->tun.hdr_len = sizeof(*h4);
		} else {
			prm->ipsec_xform.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV6;
			memset(h6, 0, sizeof(*h6));
			h6->vtc_flow = rte_cpu_to_be_32(6u << 28);
			h6->proto = IPPROTO_ESP;
			h6->hop_limits = 64;
			memcpy(h6->src_addr, c->src.b, 16);
			memcpy(h6->dst_addr, c->dst.b, 16);
			prm->tun.hdr = h6;
			prm->tun.hdr_len = sizeof(*h6);
		}
	}
}

/* NAT-T: the SA's ports, and outbound tunnels' UDP header from the template. */
static void
sa_prm_natt(struct gw_sa *s, const struct gw_sa_conf *c, struct rte_ipsec_sa_prm *prm,
	    struct rte_ipv4_hdr *h4, struct rte_ipv6_hdr *h6)
{
	if (c->udp_encap) {
		/*
		 * NAT-T (RFC 3948), tunnel mode: rte_ipsec 22.11 adds the UDP header
		 * outbound (from the template) but cannot init an inbound SA with
		 * it, so inbound the worker steps over the UDP header itself.
		 * Transport mode: rte_ipsec has no UDP header for it at all; natt.c
		 * adds it after outbound and removes it before inbound processing.
		 */
		s->natt = true;
		s->natt_sport = c->natt_sport != 0 ? c->natt_sport : GW_NATT_PORT;
		s->natt_dport = c->natt_dport != 0 ? c->natt_dport : GW_NATT_PORT;
		if (c->dir == GW_DIR_OUT && c->mode != GW_MODE_TRANS) {
			prm->ipsec_xform.options.udp_encap = 1;
			prm->ipsec_xform.udp.sport = s->natt_sport;
			prm->ipsec_xform.udp.dport = s->natt_dport;
			h4->next_proto_id = IPPROTO_UDP;
			h6->proto = IPPROTO_UDP;
		}
	}
}

/* What a packet reads of SA slot s (its hot lines) and what views show (cold). */
static void
sa_fill(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, int fam)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];

	s->spi = c->spi;
	s->dir = c->dir;
	s->mode = c->mode;
	s->inner_v6 = (uint8_t)fam;
	s->ha_seg = gw_ha_sa_seg(c);
	cold->src = c->src;
	cold->dst = c->dst;
	cold->algo_name = c->algo_name;
	cold->integ_name = c->integ_name != NULL ? c->integ_name : "aead";
	cold->line = c->line;
	cold->owner = c->owner;
	memcpy(s->life, c->life, sizeof(s->life));
	s->has_life = (c->life[0] | c->life[1] | c->life[2] | c->life[3]) != 0;
	s->life_more = (c->life[GW_LIFE_SOFT_PKTS] | c->life[GW_LIFE_SOFT_BYTES] |
			c->life[GW_LIFE_HARD_BYTES]) != 0;
	s->used_pkts = 0;
	s->used_bytes = 0;
	s->soft_sent = 0;
	s->hard_sent = 0;
	if (c->dir == GW_DIR_IN)
		s->hard_pkts = c->life[GW_LIFE_HARD_PKTS];
	else
		gw_seq_state_cap(s);    /* capped at the numbers reserved */
	gw_hasync_sa_bind(s, c);        /* --cluster-sync: gated from the start */
	if (c->aead || c->auth_algo == RTE_CRYPTO_AUTH_AES_GMAC ||
			c->cipher_algo == RTE_CRYPTO_CIPHER_AES_CTR)
		s->esp_fixed = 8 + 8 + c->digest_len;
	else if (c->cipher_algo == RTE_CRYPTO_CIPHER_AES_CBC)
		s->esp_fixed = 8 + 16 + c->digest_len;
	else if (c->cipher_algo == RTE_CRYPTO_CIPHER_NULL)
		s->esp_fixed = 8 + c->digest_len;
	else
		s->esp_fixed = 8 + 8 + c->digest_len;
	s->pad_align = c->cipher_algo == RTE_CRYPTO_CIPHER_AES_CBC && !c->aead ? 16 :
		(c->cipher_algo == RTE_CRYPTO_CIPHER_3DES_CBC ||
		 c->cipher_algo == RTE_CRYPTO_CIPHER_DES_CBC) && !c->aead ? 8 : 4;
	s->tail_need = 16 + 4;
	/* rte_ipsec keeps the ESN high half between trailer and ICV (lib/ipsec: sqh_len) */
	s->nh_from_end = (uint16_t)(c->digest_len + ((c->esn || dp->esn) ? 4 : 0) + 1);
}

/* The cryptodev for SA slot s (its id), or -ENOTSUP, said unless quiet. */
static int
sa_pick_dev(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c,
	    struct rte_crypto_sym_xform *xf, const struct rte_ipsec_sa_prm *prm, bool quiet,
	    bool only_used)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	int rc;

	if (s->action == GW_SA_LOOKASIDE_PROTOCOL) {
		/* the PMD frames ESP itself: tunnel end points as addresses, not a header */
		cold->sa_ix = prm->ipsec_xform;
		sec_tunnel(c, &cold->sa_ix);
		rc = pick_cdev(dp, &(struct cdev_want){ .c = c, .ix = &cold->sa_ix,
			.xf = sess_xform(c, xf) }, only_used);
	} else {
		rc = pick_cdev(dp, &(struct cdev_want){ .c = c, .xf = sess_xform(c, xf),
			.cpu = s->action == GW_SA_CPU_CRYPTO }, only_used);
	}
	if (rc < 0 && s->action == GW_SA_LOOKASIDE_PROTOCOL) {
		if (quiet)
			return -ENOTSUP;
		fprintf(stderr, "vecsec-gw: SA %s %u (line %d, %s): no cryptodev offers it as "
			"lookaside-protocol ESP%s (crypto_vecsec: ChaCha20-Poly1305 and ARIA-GCM, "
			"tunnel or transport, no udp-encap)\n",
			c->dir == GW_DIR_IN ? "in" : "out", c->spi, c->line, c->algo_name,
			c->udp_encap ? " with udp-encap" : "");
		return -ENOTSUP;
	}
	if (rc < 0) {
		if (quiet)
			return -ENOTSUP;
		GW_LOG(ERR, "SA %s %u (line %d, %s): no cryptodev supports it%s; %s",
		       c->dir == GW_DIR_IN ? "in" : "out", c->spi, c->line, c->algo_name,
		       s->action == GW_SA_CPU_CRYPTO ? " with CPU crypto" : "",
		       sa_is_aria(c) ? "ARIA needs crypto_vecsec built with ARIA "
		       "(--vdev crypto_vecsec0; installed in DPDK's plugin folder, or -d "
		       "librte_crypto_vecsec.so)" :
		       "add one with --vdev (software PMDs need no PCI: --no-pci)");
		return -ENOTSUP;
	}
	return rc;
}

/*
 * A native SA (sa_native.c): what every type shares (the outbound numbers
 * and --seq-state, NAT-T's ports, sa_fill), then its own lines; no
 * cryptodev, session or rte_ipsec SA.
 */
static int
sa_init_native(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, int fam,
	       uint32_t win, bool esn)
{
	struct rte_ipsec_sa_prm prm;
	struct rte_ipv4_hdr h4;
	struct rte_ipv6_hdr h6;
	uint64_t first = c->esn_init;
	int rc;

	memset(&prm, 0, sizeof(prm));
	if (c->dir == GW_DIR_OUT) {
		first = gw_seq_state_bind(s->idx, c, esn ? UINT64_MAX : UINT32_MAX - 1);
		first = first > 1 ? first : 1;
		rc = seq_limit(s, c, esn, first);
		if (rc != 0)
			return rc;
	}
	sa_prm_mode(c, fam, &prm, &h4, &h6);
	sa_prm_natt(s, c, &prm, &h4, &h6);
	sa_fill(dp, s, c, fam);
	return gw_sa_native_init(dp, s, c, first, win, esn);
}

/*
 * Everything of SA slot s but its session: the device, and one allocation
 * for its rte_ipsec SA and, inbound, the exact replay window right after it
 * (lines a packet reads next to each other). fam: its inner family.
 */
static int
sa_init_one(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, int fam, bool quiet,
		bool only_used)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	struct rte_crypto_sym_xform xf[2], ix[2];
	struct rte_crypto_sym_xform *ipx;
	struct rte_ipsec_sa_prm prm;
	struct rte_ipv4_hdr h4;
	struct rte_ipv6_hdr h6;
	uint32_t win = c->window >= 0 ? (uint32_t)c->window : dp->window;
	uint32_t rw_win = 0;    /* the exact window's size, 0: none */
	bool esn = c->esn || dp->esn;
	uint64_t first = c->esn_init;   /* outbound: the first number sent (--seq-state) */
	size_t rw_sz = 0, ofs;
	int sz, rc;

	blk_free(dp, s);        /* a second try (after -ENOTSUP) */
	if (gw_sa_native_want(dp, c))
		return sa_init_native(dp, s, c, fam, win, esn);
	fill_xforms(c, xf);
	esn_aad_fix(dp, c, xf);
	ipx = ipsec_xform(c, xf, ix);
	memset(&prm, 0, sizeof(prm));
	prm.userdata = (uintptr_t)s;
	s->action = dp->force_cpu_crypto && c->action != GW_SA_LOOKASIDE_PROTOCOL ?
		GW_SA_CPU_CRYPTO : c->action;
	/*
	 * Workers share the SA's sequence state: atomic outbound numbers. The
	 * inbound window of an rte_ipsec SA is guarded by the SA's rw_lock
	 * (replay_setup), which also covers rte_ipsec's own window: one
	 * writer at a time, as rte_ipsec_pkt_process() requires even with
	 * SQN_ATOM, so that flag is not needed there.
	 */
	if (dp->nb_workers > 1 && c->dir == GW_DIR_OUT)
		prm.flags = RTE_IPSEC_SAFLAG_SQN_ATOM;
	if (c->dir == GW_DIR_IN && s->action != GW_SA_LOOKASIDE_PROTOCOL && (win != 0 || esn)) {
		rw_win = win != 0 ? win : 64;
		rw_sz = vecsec_esp_replay_size(rw_win);
		if (rw_sz == 0)
			return -EINVAL;
	} else if (c->dir == GW_DIR_OUT) {
		/* above every number a former run may have sent with these keys */
		first = gw_seq_state_bind(s->idx, c, esn ? UINT64_MAX : UINT32_MAX - 1);
		rc = seq_limit(s, c, esn, first > 1 ? first : 1);
		if (rc != 0)
			return rc;
	}
	prm.ipsec_xform.spi = c->spi;
	prm.ipsec_xform.salt = c->salt;
	prm.ipsec_xform.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP;
	prm.ipsec_xform.direction = c->dir == GW_DIR_IN ? RTE_SECURITY_IPSEC_SA_DIR_INGRESS
		: RTE_SECURITY_IPSEC_SA_DIR_EGRESS;
	prm.ipsec_xform.options.esn = esn;
	prm.ipsec_xform.esn.value = first;     /* every SA type starts there (rte_ipsec, PMD) */
	if (c->dir == GW_DIR_IN)
		prm.ipsec_xform.replay_win_sz = rw_win == 0 ? win : esn ? rw_win + 64 : 0;
	prm.crypto_xform = ipx;
	sa_prm_mode(c, fam, &prm, &h4, &h6);
	sa_prm_natt(s, c, &prm, &h4, &h6);

	sa_fill(dp, s, c, fam);
	rc = sa_pick_dev(dp, s, c, xf, &prm, quiet, only_used);
	if (rc < 0)
		return rc;
	s->cdev_id = (uint8_t)rc;
	dp->cdev[rc].used = true;

	sz = rte_ipsec_sa_size(&prm);
	if (sz < 0) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec refuses it: %s\n", c->spi,
			c->line, strerror(-sz));
		return sz;
	}
	ofs = RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE);
	cold->blk_size = ofs + rw_sz;
	cold->blk = rte_zmalloc("gw_sa", cold->blk_size, RTE_CACHE_LINE_SIZE);
	if (cold->blk == NULL) {
		cold->blk_size = 0;
		return -ENOMEM;
	}
	dp->mem_blk += cold->blk_size;
	cold->salt = c->salt;
	rc = rte_ipsec_sa_init(cold->blk, &prm, sz);
	if (rc < 0) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec_sa_init: %s\n", c->spi,
			c->line, strerror(-rc));
		return rc;
	}
	s->ss.sa = cold->blk;
	gw_sa_telemetry(dp, s, c->telemetry);
	if (rw_win != 0)
		return replay_setup(dp, s, c, rw_win, esn, (uint8_t *)cold->blk + ofs, rw_sz);
	return 0;
}

static int
sa_session(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	struct rte_crypto_sym_xform xf[2];
	struct rte_ipsec_sa *isa = s->ss.sa;
	struct rte_mempool *mp;
	int rc;

	if (s->action == GW_SA_NATIVE)
		return 0;       /* its key is in its own lines (sa_native.c) */
	if (s->action == GW_SA_LOOKASIDE_PROTOCOL)
		return sec_session(dp, s, c);
	mp = pools_pick(dp, &cpools[s->cdev_id]);
	if (mp == NULL) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): no session left (--max-sa %u)\n",
			c->spi, c->line, dp->max_sa);
		return -ENOMEM;
	}
	fill_xforms(c, xf);
	esn_aad_fix(dp, c, xf);
	cold->cses = rte_cryptodev_sym_session_create(s->cdev_id, sess_xform(c, xf), mp);
	if (cold->cses == NULL) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): cannot create a session on %s: %s\n",
			c->spi, c->line, rte_cryptodev_name_get(s->cdev_id),
			rte_strerror(rte_errno));
		return -rte_errno ? -rte_errno : -EINVAL;
	}
	cold->sess_size = pools_obj_size(&cpools[s->cdev_id]);
	rte_cryptodev_sym_session_opaque_data_set(cold->cses, (uint64_t)(uintptr_t)&s->ss);
	memset(&s->ss, 0, sizeof(s->ss));
	s->ss.sa = isa;
	s->ss.type = s->action == GW_SA_CPU_CRYPTO ? RTE_SECURITY_ACTION_TYPE_CPU_CRYPTO
		: RTE_SECURITY_ACTION_TYPE_NONE;
	s->ss.crypto.ses = cold->cses;
	s->ss.crypto.dev_id = s->cdev_id;
	rc = rte_ipsec_session_prepare(&s->ss);
	if (rc != 0)
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec_session_prepare: %s\n",
			c->spi, c->line, strerror(-rc));
	return rc;
}

/*
 * Start cryptodev cd for the workers: its session pool (sized for its own
 * sessions), one queue pair per worker, then the security session pool if
 * it is the first device with rte_security. At start-up for every device
 * an SA picked; at run time (control socket, reload) for a device an SA
 * added then needs: no worker touches it before an SA that uses it is
 * published.
 */
static int
cdev_up(struct gw_dp *dp, struct gw_cdev *cd)
{
	struct rte_cryptodev_config cfg = {
		.socket_id = rte_cryptodev_socket_id(cd->id),
		.nb_queue_pairs = (uint16_t)dp->nb_workers,
	};
	struct rte_cryptodev_qp_conf qp = { .nb_descriptors = GW_CDEV_DESC };
	struct rte_cryptodev_info info;
	struct sess_pools *p = &cpools[cd->id];
	unsigned int count = 64;
	int rc;

	if (cfg.socket_id < 0)
		cfg.socket_id = 0;
	rte_cryptodev_info_get(cd->id, &info);
	snprintf(cd->name, sizeof(cd->name), "%s", rte_cryptodev_name_get(cd->id));
	snprintf(cd->driver, sizeof(cd->driver), "%s", info.driver_name);
	cd->cpu_crypto = (info.feature_flags & RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO) != 0;
	if (info.max_nb_queue_pairs != 0 && info.max_nb_queue_pairs < dp->nb_workers) {
		GW_LOG(ERR, "%s has %u queue pairs, %u workers need one each", cd->name,
		       info.max_nb_queue_pairs, dp->nb_workers);
		return -ENOTSUP;
	}
	/* its sessions: the SAs that picked it so far and 64 more, then pools that grow */
	snprintf(p->name, sizeof(p->name), "gw_sess%u_", cd->id);
	p->kind = p->name;
	p->elt = rte_cryptodev_sym_get_private_session_size(cd->id);
	for (unsigned int i = 0; i < dp->nb_sa; i++)
		count += dp->sa[i].active && dp->sa[i].cdev_id == cd->id &&
			dp->sa[i].action != GW_SA_LOOKASIDE_PROTOCOL;
	rc = pools_add(p, RTE_MIN(count, dp->max_sa + 64));
	if (rc != 0)
		return rc;
	cd->sess_pool = p->mp[0];
	qp.mp_session = cd->sess_pool;
	rc = rte_cryptodev_configure(cd->id, &cfg);
	for (uint16_t q = 0; rc == 0 && q < dp->nb_workers; q++)
		rc = rte_cryptodev_queue_pair_setup(cd->id, q, &qp, cfg.socket_id);
	if (rc == 0)
		rc = rte_cryptodev_start(cd->id);
	if (rc != 0) {
		GW_LOG(ERR, "cannot start cryptodev %s: %s", cd->name, strerror(-rc));
		return rc;
	}
	cd->used = true;
	return sec_pool_create(dp);
}

/*
 * The software cryptodevs made on demand, in auto_vdevs[] order with the
 * preferred driver (--prefer) first: the next one not made yet, created;
 * *next says where to go on. Its id, or -1 when none is left.
 */
static int
cdev_create_next(struct gw_dp *dp, unsigned int *next)
{
	for (; *next <= RTE_DIM(auto_vdevs); (*next)++) {
		unsigned int v = *next;
		char name[64];
		int id;

		/* round 0: the preferred driver, when it is one of ours */
		if (v == 0) {
			for (v = 0; v < RTE_DIM(auto_vdevs); v++)
				if (dp->prefer_driver != NULL &&
				    strcmp(auto_vdevs[v], dp->prefer_driver) == 0)
					break;
			if (v == RTE_DIM(auto_vdevs))
				continue;
		} else {
			v--;
			if (dp->prefer_driver != NULL &&
			    strcmp(auto_vdevs[v], dp->prefer_driver) == 0)
				continue;
		}
		snprintf(name, sizeof(name), "%s_gw%u", auto_vdevs[v], v);
		if (rte_cryptodev_get_dev_id(name) >= 0 || rte_vdev_init(name, NULL) != 0)
			continue;
		id = rte_cryptodev_get_dev_id(name);
		if (id < 0)
			continue;
		if (id >= GW_MAX_CDEV) {
			rte_vdev_uninit(name);
			continue;
		}
		memset(&dp->cdev[id], 0, sizeof(dp->cdev[id]));
		dp->cdev[id].id = (uint8_t)id;
		dp->cdev[id].made = true;
		snprintf(dp->cdev[id].name, sizeof(dp->cdev[id].name), "%s", name);
		(*next)++;
		return id;
	}
	return -1;
}

/* A device cdev_create_next() made that no SA took after all: removed again. */
static void
cdev_drop_unused(struct gw_dp *dp, int id)
{
	char name[RTE_CRYPTODEV_NAME_MAX_LEN];

	if (id < 0 || !dp->cdev[id].made || dp->cdev[id].used)
		return;
	snprintf(name, sizeof(name), "%s", dp->cdev[id].name);
	memset(&dp->cdev[id], 0, sizeof(dp->cdev[id]));
	rte_vdev_uninit(name);
}

/*
 * sa_init_one() on a cryptodev that can run the SA: a probed one (--vdev,
 * PCI), else a software PMD made for it, one driver at a time; one that
 * cannot run it is removed again, so a configuration gets only the
 * cryptodevs its SAs need. at_run: the control path, where a device the SA
 * picks is started now. quiet: no message (the caller reports).
 */
static int
sa_init_cdev(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, int fam, bool quiet,
	     bool at_run)
{
	unsigned int next = 0;
	int rc, made;

	rc = sa_init_one(dp, s, c, fam, true, false);
	while (rc == -ENOTSUP && (made = cdev_create_next(dp, &next)) >= 0) {
		blk_free(dp, s);
		dp->cdev[made].used = false;
		rc = sa_init_one(dp, s, c, fam, true, false);
		if (rc != 0)
			dp->cdev[made].used = false;    /* made for this SA alone */
		if (rc != 0 || s->cdev_id != made)
			cdev_drop_unused(dp, made);
	}
	if (rc == -ENOTSUP && !quiet)
		rc = sa_init_one(dp, s, c, fam, false, false);         /* says why */
	if (rc == 0)
		gw_hasync_sa_ready(dp, s, c);
	if (rc == 0 && at_run && s->action != GW_SA_NATIVE &&
	    dp->cdev[s->cdev_id].sess_pool == NULL) {
		rc = cdev_up(dp, &dp->cdev[s->cdev_id]);
		if (rc == 0)
			GW_LOG(NOTICE, "cryptodev %u: %s (driver %s%s) started for SA %s %u",
			       s->cdev_id, dp->cdev[s->cdev_id].name, dp->cdev[s->cdev_id].driver,
			       dp->cdev[s->cdev_id].cpu_crypto ? ", cpu-crypto" : "",
			       c->dir == GW_DIR_IN ? "in" : "out", c->spi);
	}
	return rc;
}

/*
 * --cluster-sync (hasync.c): outbound SA s (conf c, not lookaside-protocol)
 * sends next as its next number; its numbers so far count as used from
 * first (used_pkts, which the caps and views count from). The caller makes
 * sure no worker sends on it meanwhile (its segment is inactive, or it is
 * not active yet). Native SAs: their counter (lib/esp) set again; rte_ipsec
 * SAs: rte_ipsec_sa_init() again on the same memory with the new first
 * number (its one way to set it), everything else as when it was made.
 * 0, or -errno.
 */
int
gw_sa_out_seq_set(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c,
		  uint64_t first, uint64_t next)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	struct rte_crypto_sym_xform xf[2], ix[2];
	struct rte_ipsec_sa_prm prm;
	struct rte_ipv4_hdr h4;
	struct rte_ipv6_hdr h6;
	bool esn = c->esn || dp->esn;
	int sz, rc;

	if (s->dir != GW_DIR_OUT || c->dir != GW_DIR_OUT || c->spi != s->spi || next < first ||
	    (!esn && next > UINT32_MAX - 1))
		return -EINVAL;
	if (s->action == GW_SA_NATIVE) {
		rc = vecsec_esp_seq_init(&s->nsa0.seq, s->nsa0.esn != 0, next - 1);
		if (rc != 0)
			return rc;
	} else {
		if (s->action == GW_SA_LOOKASIDE_PROTOCOL || s->ss.sa == NULL)
			return -ENOTSUP;
		fill_xforms(c, xf);
		esn_aad_fix(dp, c, xf);
		memset(&prm, 0, sizeof(prm));
		prm.userdata = (uintptr_t)s;
		if (dp->nb_workers > 1)
			prm.flags = RTE_IPSEC_SAFLAG_SQN_ATOM;
		prm.ipsec_xform.spi = c->spi;
		/* not c->salt: wiped in the conf once the SA is up (cp.c) */
		prm.ipsec_xform.salt = cold->salt;
		prm.ipsec_xform.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP;
		prm.ipsec_xform.direction = RTE_SECURITY_IPSEC_SA_DIR_EGRESS;
		prm.ipsec_xform.options.esn = esn;
		prm.ipsec_xform.esn.value = next;
		prm.crypto_xform = ipsec_xform(c, xf, ix);
		sa_prm_mode(c, s->inner_v6, &prm, &h4, &h6);
		sa_prm_natt(s, c, &prm, &h4, &h6);
		sz = rte_ipsec_sa_size(&prm);
		if (sz < 0)
			return sz;
		if ((size_t)sz > cold->blk_size)
			return -ENOSPC;
		rc = rte_ipsec_sa_init(cold->blk, &prm, (uint32_t)sz);
		if (rc < 0)
			return rc;
	}
	__atomic_store_n(&s->used_pkts, next - first, __ATOMIC_RELAXED);
	return 0;
}

/*
 * DPDK's /ipsec/sa/list, stats and details (rte_ipsec telemetry) show the
 * SA when on: marked `telemetry` (as ipsec-secgw), or every SA with
 * --ipsec-telemetry all. Registered at most once.
 */
void
gw_sa_telemetry(const struct gw_dp *dp, struct gw_sa *s, bool marked)
{
	bool listed = marked || dp->ipsec_telemetry_all;

	if (s->ss.sa == NULL)
		return;
	rte_ipsec_telemetry_sa_del(s->ss.sa);
	if (listed)
		rte_ipsec_telemetry_sa_add(s->ss.sa);
	/*
	 * rte_ipsec's SA counts what its process call sees: a listed SA's packets
	 * go through it. Either way is right for the packets (for this SA type
	 * rte_ipsec only attaches the session and checks the outcome), so a
	 * change while packets are in flight needs no care.
	 */
	__atomic_store_n(&s->direct, s->action == GW_SA_LOOKASIDE_PROTOCOL && !listed,
			 __ATOMIC_RELAXED);
}

static void
sad_key(const struct gw_dp *dp, const struct gw_sa *s, union rte_ipsec_sad_key *k, int *type,
	bool *v6)
{
	const struct gw_sa_cold *cold = &dp->sa_cold[s->idx];

	memset(k, 0, sizeof(*k));
	if (s->mode == GW_MODE_TUN4) {
		k->v4.spi = rte_cpu_to_be_32(s->spi);
		memcpy(&k->v4.dip, cold->dst.b, 4);
		memcpy(&k->v4.sip, cold->src.b, 4);
		*type = RTE_IPSEC_SAD_SPI_DIP_SIP;
		*v6 = false;
	} else if (s->mode == GW_MODE_TUN6) {
		k->v6.spi = rte_cpu_to_be_32(s->spi);
		memcpy(k->v6.dip, cold->dst.b, 16);
		memcpy(k->v6.sip, cold->src.b, 16);
		*type = RTE_IPSEC_SAD_SPI_DIP_SIP;
		*v6 = true;
	} else {
		k->v4.spi = rte_cpu_to_be_32(s->spi);
		*type = RTE_IPSEC_SAD_SPI_ONLY;
		*v6 = s->inner_v6;
	}
}

static int
sad_add(struct gw_dp *dp, struct gw_sa *s)
{
	union rte_ipsec_sad_key k;
	int type, rc;
	bool v6;

	sad_key(dp, s, &k, &type, &v6);
	rc = rte_ipsec_sad_add(v6 ? dp->sad6 : dp->sad4, &k, type, s);
	/* after the change: the workers' SAD caches answer from it only (fcache.h) */
	__atomic_add_fetch(&dp->sad_gen, 1, __ATOMIC_RELEASE);
	return rc;
}

int
gw_sa_sad_del(struct gw_dp *dp, struct gw_sa *s)
{
	union rte_ipsec_sad_key k;
	int type, rc;
	bool v6;

	if (s->dir != GW_DIR_IN)
		return 0;
	sad_key(dp, s, &k, &type, &v6);
	rc = rte_ipsec_sad_del(v6 ? dp->sad6 : dp->sad4, &k, type);
	__atomic_add_fetch(&dp->sad_gen, 1, __ATOMIC_RELEASE);
	return rc;
}

/*
 * One SAD per family, each table sized for the inbound SAs of the
 * configuration that go there, plus room for every SA the control socket
 * may still add; twice that: rte_hash (cuckoo, no extension table) refuses
 * keys ("no space") long before it is full when they differ in a few bits
 * only. Tunnels that share their end points and take consecutive SPIs
 * fail at half of the table (its CRC spreads 17 varying bits over pairs of
 * buckets that are not independent): 65,541 of 100,000 in a table of 2^17.
 */
static int
sad_setup(struct gw_dp *dp, const int8_t *fam)
{
	unsigned int n[2][2] = { { 0, 0 }, { 0, 0 } };     /* [v6][tunnel] */
	unsigned int room = dp->ctrl ? dp->max_sa - dp->nb_sa : 0;
	size_t heap0 = vecsec_heap_used();

	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		const struct gw_sa *s = &dp->sa[i];

		if (!s->active || s->dir != GW_DIR_IN)
			continue;
		if (s->mode == GW_MODE_TRANS)
			n[fam[i] == 1][0]++;
		else
			n[s->mode == GW_MODE_TUN6][1]++;
	}
	for (int v6 = 0; v6 < 2; v6++) {
		struct rte_ipsec_sad_conf sc = { .socket_id = SOCKET_ID_ANY };
		struct rte_ipsec_sad *sad;

		for (int t = 0; t < 2; t++) {
			unsigned int k = n[v6][t] + room;

			sc.max_sa[t ? RTE_IPSEC_SAD_SPI_DIP_SIP : RTE_IPSEC_SAD_SPI_ONLY] =
				2 * k + 64;
		}
		/* lookups while the control socket adds and deletes */
		if (dp->ctrl)
			sc.flags = RTE_IPSEC_SAD_FLAG_RW_CONCURRENCY;
		if (v6)
			sc.flags |= RTE_IPSEC_SAD_FLAG_IPV6;
		sad = rte_ipsec_sad_create(v6 ? "gw_sad6" : "gw_sad4", &sc);
		if (sad == NULL) {
			fprintf(stderr, "vecsec-gw: cannot create the SAD: %s\n",
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
		if (v6)
			dp->sad6 = sad;
		else
			dp->sad4 = sad;
	}
	dp->mem_sad = vecsec_heap_used() - heap0;   /* the keys come later: room counts */
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct gw_sa *s = &dp->sa[i];
		int rc;

		if (!s->active || s->dir != GW_DIR_IN)
			continue;
		rc = sad_add(dp, s);
		if (rc != 0) {
			fprintf(stderr,
				"vecsec-gw: SA in %u (line %d): cannot add to the SAD: %s\n",
				s->spi, dp->sa_cold[i].line, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/*
 * Run time (control socket, reload): slot i of conf; its cryptodev is
 * started if it is not yet. fam < 0: no SP rule names the SA yet (the
 * control socket's parser wants the SA first): its `inner`, else the
 * tunnel's family.
 */
int
gw_sa_add(struct gw_dp *dp, const struct gw_conf *conf, unsigned int i, int fam, char *err,
		size_t err_len)
{
	const struct gw_sa_conf *c = &conf->sa[i];
	struct gw_sa *s;
	int rc;

	if (i >= dp->max_sa) {
		snprintf(err, err_len, "the SA table is full (%u SAs: --max-sa)", dp->max_sa);
		return -ENOSPC;
	}
	s = &dp->sa[i];
	if (fam < 0)
		fam = c->inner >= 0 ? c->inner : c->mode == GW_MODE_TUN6;
	memset(s, 0, sizeof(*s));
	s->idx = i;
	rc = sa_init_cdev(dp, s, c, fam, true, true);
	if (rc == 0)
		rc = sa_session(dp, s, c);
	if (rc == 0 && s->dir == GW_DIR_IN)
		rc = sad_add(dp, s);
	if (rc != 0) {
		snprintf(err, err_len, "SA %s %u: %s%s", c->dir == GW_DIR_IN ? "in" : "out", c->spi,
			rc == -ENOTSUP ? "no cryptodev supports it" : strerror(-rc),
			rc == -ENOTSUP && sa_is_aria(c) ? " (ARIA needs crypto_vecsec)" : "");
		gw_sa_free(dp, s);
		return rc;
	}
	for (unsigned int w = 0; w < dp->nb_workers; w++) {
		memset(&dp->worker[w].sa_st[i], 0, sizeof(dp->worker[w].sa_st[i]));
		memset(dp->worker[w].sa_drops[i], 0, sizeof(dp->worker[w].sa_drops[i]));
	}
	if (i >= dp->nb_sa)
		dp->nb_sa = i + 1;
	__atomic_store_n(&s->active, true, __ATOMIC_RELEASE);
	return 0;
}

/* Free what slot s holds; no worker may reach it any more. */
void
gw_sa_free(struct gw_dp *dp, struct gw_sa *s)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];

	s->active = false;
	gw_seq_state_unbind(s->idx);
	gw_hasync_sa_unbind(s->idx);
	if (cold->cses != NULL && s->action == GW_SA_LOOKASIDE_PROTOCOL)
		rte_security_session_destroy(rte_cryptodev_get_sec_ctx(s->cdev_id), cold->cses);
	else if (cold->cses != NULL)
		rte_cryptodev_sym_session_free(s->cdev_id, cold->cses);   /* wipes the key */
	cold->cses = NULL;
	cold->sess_size = 0;
	if (s->ss.sa != NULL)
		rte_ipsec_telemetry_sa_del(s->ss.sa);
	gw_sa_native_wipe(dp, s);       /* its key, before its block goes */
	blk_free(dp, s);
}

/*
 * The SA table's size: --max-sa, else the configuration's SAs, and with
 * the control socket (on by default) a quarter more, at least 4096 more (an
 * IKE daemon's 1000 CHILD_SAs are 2000 SAs, twice that while they are
 * rekeyed), for it to add; a reload reuses the slots it frees.
 */
static unsigned int
default_max_sa(const struct gw_dp *dp, const struct gw_conf *conf)
{
	unsigned int n = conf->nb_sa;

	if (dp->ctrl)
		n += RTE_MAX(n / 4, 4096u);
	return RTE_MAX(n, 1u);
}

int
gw_sa_setup(struct gw_dp *dp, const struct gw_conf *conf)
{
	int8_t *fam = NULL;
	int rc;

	static const struct rte_mbuf_dynfield seq_field = {
		.name = "vecsec_gw_esp_seq",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};

	if (dp->max_sa == 0)
		dp->max_sa = default_max_sa(dp, conf);
	if (conf->nb_sa > dp->max_sa) {
		fprintf(stderr, "vecsec-gw: %u SAs in the configuration, the table has room for "
			"%u (--max-sa)\n", conf->nb_sa, dp->max_sa);
		return -ENOSPC;
	}
	dp->sa = rte_zmalloc("gw_sa_tab", (size_t)dp->max_sa * sizeof(*dp->sa),
			     RTE_CACHE_LINE_SIZE);
	dp->sa_cold = calloc(dp->max_sa, sizeof(*dp->sa_cold));
	fam = malloc(conf->nb_sa + 1);
	if (dp->sa == NULL || dp->sa_cold == NULL || fam == NULL) {
		fprintf(stderr, "vecsec-gw: no memory for an SA table of %u\n", dp->max_sa);
		rc = -ENOMEM;
		goto out;
	}
	gw_seq_dynfield = rte_mbuf_dynfield_register(&seq_field);
	if (gw_seq_dynfield < 0) {
		fprintf(stderr, "vecsec-gw: cannot register an mbuf field: %s\n",
			rte_strerror(rte_errno));
		rc = -ENOSPC;
		goto out;
	}
	if (gw_conf_families(conf, fam) != 0) {
		rc = -EINVAL;           /* gw_conf_validate() refused it already */
		goto out;
	}
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		if (!rte_cryptodev_is_valid_dev((uint8_t)id))
			continue;
		dp->cdev[id].id = (uint8_t)id;
		snprintf(dp->cdev[id].name, sizeof(dp->cdev[id].name), "%s",
			rte_cryptodev_name_get((uint8_t)id));
	}
	for (unsigned int i = 0; i < conf->nb_sa; i++) {
		const struct gw_sa_conf *c = &conf->sa[i];
		struct gw_sa *s = &dp->sa[i];

		if (fam[i] < 0) {       /* gw_conf_validate() refused it already */
			GW_LOG(ERR, "SA %u (line %d): SP rules send both IPv4 and IPv6 through it; "
			       "one SA carries one family", c->spi, c->line);
			rc = -EINVAL;
			goto out;
		}
		s->idx = i;
		rc = sa_init_cdev(dp, s, c, fam[i], false, false);
		if (rc < 0)
			goto out;
		s->active = true;
		dp->nb_sa = i + 1;
	}
	/* only the devices an SA picked; SAs added later start theirs (sa_init_cdev) */
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		if (dp->cdev[id].used) {
			rc = cdev_up(dp, &dp->cdev[id]);
			if (rc != 0)
				goto out;
		}
	}
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		rc = sa_session(dp, &dp->sa[i], &conf->sa[i]);
		if (rc != 0)
			goto out;
	}
	rc = sad_setup(dp, fam);
out:
	free(fam);
	return rc;
}

void
gw_sa_teardown(struct gw_dp *dp)
{
	for (unsigned int i = 0; dp->sa != NULL && i < dp->nb_sa; i++)
		gw_sa_free(dp, &dp->sa[i]);
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		if (dp->cdev[id].sess_pool != NULL)
			rte_cryptodev_stop(dp->cdev[id].id);
		pools_free(&cpools[id]);        /* sess_pool is its first */
		dp->cdev[id].sess_pool = NULL;
	}
	rte_ipsec_sad_destroy(dp->sad4);
	rte_ipsec_sad_destroy(dp->sad6);
	pools_free(&spools);
	rte_free(dp->sa);
	free(dp->sa_cold);
	dp->sa = NULL;
	dp->sa_cold = NULL;
	dp->nb_sa = 0;
}

/* What the SA table takes: gw_dp.h's struct gw_mem. */
void
gw_sa_mem(const struct gw_dp *dp, struct gw_mem *m)
{
	memset(m, 0, sizeof(*m));
	m->max_sa = dp->max_sa;
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		const struct gw_sa_cold *cold = &dp->sa_cold[i];

		if (!dp->sa[i].active)
			continue;
		m->nb_sa++;
		m->ipsec_sa += cold->blk_size;
		m->session += cold->sess_size;
		/*
		 * crypto_vecsec keeps an ARIA key schedule outside the session, in
		 * DPDK's heap (vecsec_aead_key_size() bytes; a ChaCha20 key is
		 * inline); ARIA SAs run on crypto_vecsec only
		 */
		if (dp->conf != NULL && i < dp->conf->nb_sa && sa_is_aria(&dp->conf->sa[i]) &&
		    dp->sa[i].action != GW_SA_NATIVE)  /* native: its key is in blk */
			m->session_heap += vecsec_aead_key_size(dp->conf->sa[i].aead ?
				VECSEC_AEAD_ARIA_GCM : VECSEC_AEAD_ARIA_CTR,
				dp->conf->sa[i].cipher_key_len);
		m->nb_chacha += dp->sa[i].action != GW_SA_LOOKASIDE_PROTOCOL &&
			dp->sa[i].action != GW_SA_NATIVE &&
			cold->algo_name != NULL && strcmp(cold->algo_name, "chacha20-poly1305") == 0;
	}
	m->sa_hot = (size_t)dp->max_sa * sizeof(dp->sa[0]);
	m->sa_cold = (size_t)dp->max_sa * sizeof(dp->sa_cold[0]);
	m->stats = (size_t)dp->max_sa * dp->nb_workers *
		(sizeof(dp->worker[0].sa_st[0]) + sizeof(dp->worker[0].sa_drops[0]));
	m->sec_session_obj = pools_obj_size(&spools);
	m->session_pools = (size_t)spools.total * m->sec_session_obj;
	m->nb_sessions = spools.total;
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		size_t obj = pools_obj_size(&cpools[id]);

		/* the largest one (sessions are sized per driver) */
		m->session_obj = RTE_MAX(m->session_obj, obj);
		m->session_pools += (size_t)cpools[id].total * obj;
		m->nb_sessions += cpools[id].total;
	}
}
