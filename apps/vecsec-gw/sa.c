/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw SAs: each configured SA becomes an rte_ipsec SA plus one
 * cryptodev session on a device chosen by capability (the preferred driver,
 * crypto_vecsec by default, first), bound together in an rte_ipsec_session
 * of type lookaside-none or cpu-crypto. Inbound SAs go into rte_ipsec_sad:
 * tunnel SAs keyed by SPI + destination + source, transport SAs by SPI.
 */
#include "gw_dp.h"
#include "gw_log.h"

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
static struct rte_mempool *sec_pool;    /* rte_security sessions, made on first need */
int gw_seq_dynfield = -1;

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

/* The session pool, sized for the largest security session of the used devices. */
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
	if (max == 0 || sec_pool != NULL)
		return 0;
	sec_pool = rte_mempool_create("gw_sec_sess", GW_MAX_SA + 63, max, 0, 0, NULL, NULL, NULL,
				      NULL, SOCKET_ID_ANY, 0);
	if (sec_pool == NULL) {
		fprintf(stderr, "vecsec-gw: cannot create the security session pool: %s\n",
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
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
	struct rte_crypto_sym_xform xf[2];
	void *ctx = rte_cryptodev_get_sec_ctx(s->cdev_id);
	int rc;

	if (ctx == NULL || sec_pool == NULL)
		return -ENOTSUP;
	fill_xforms(c, xf);
	esn_aad_fix(dp, c, xf);
	conf.ipsec = s->sa_ix;
	conf.crypto_xform = sess_xform(c, xf);
	s->cses = rte_security_session_create(ctx, &conf, sec_pool);
	if (s->cses == NULL) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): cannot create an rte_security session "
			"on %s\n", c->spi, c->line, rte_cryptodev_name_get(s->cdev_id));
		return -EINVAL;
	}
	memset(&s->ss, 0, sizeof(s->ss));
	s->ss.sa = s->sa;
	s->ss.type = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL;
	s->ss.security.ses = s->cses;
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
 * exact RFC 4303 window of W numbers in front of it (worker.c); rte_ipsec's
 * window stays on, because its top gives the ESN high half rte_ipsec
 * authenticates with, and is kept equal to ours. An ESN SA needs a window
 * (rte_ipsec makes one of 64 without): 64 then.
 *
 * rte_ipsec's own window is given W + 64: its bitmap (W rounded up to a
 * power of two of 64-bit words, no spare word) forgets the oldest word of a
 * window that spans one more word than that, and lets a late number alias
 * one above the top, so that a genuine packet later looks seen; W + 64
 * gives it the spare word RFC 6479 asks for. Only our window decides what
 * is a replay; rte_ipsec's, wider, never refuses what ours takes. Its W is
 * also the one it rebuilds ESNs with (rw_recover).
 */
static int
replay_setup(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, uint32_t win,
	     bool esn)
{
	uint32_t w = win != 0 ? win : 64;
	size_t sz;

	rte_free(s->rw);        /* a second try (sa_init_one after -ENOTSUP) */
	s->rw = NULL;
	if (win == 0 && !esn)
		return 0;       /* anti-replay off and 32-bit numbers: no state at all */
	sz = vecsec_esp_replay_size(w);
	s->rw = sz != 0 ? rte_zmalloc("gw_replay", sz, RTE_CACHE_LINE_SIZE) : NULL;
	if (s->rw == NULL)
		return -ENOMEM;
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
seq_limit(struct gw_sa *s, const struct gw_sa_conf *c, bool esn)
{
	uint64_t first = c->esn_init > 1 ? c->esn_init : 1;
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

static int
sa_init_one(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, int fam, bool quiet,
		bool only_used)
{
	struct rte_crypto_sym_xform xf[2], ix[2];
	struct rte_crypto_sym_xform *ipx;
	struct rte_ipsec_sa_prm prm;
	struct rte_ipv4_hdr h4;
	struct rte_ipv6_hdr h6;
	uint32_t win = c->window >= 0 ? (uint32_t)c->window : dp->window;
	bool esn = c->esn || dp->esn;
	int sz, rc;

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
	if (c->dir == GW_DIR_IN && s->action != GW_SA_LOOKASIDE_PROTOCOL) {
		rc = replay_setup(dp, s, c, win, esn);
		if (rc != 0)
			return rc;
	} else if (c->dir == GW_DIR_OUT) {
		rc = seq_limit(s, c, esn);
		if (rc != 0)
			return rc;
	}
	prm.ipsec_xform.spi = c->spi;
	prm.ipsec_xform.salt = c->salt;
	prm.ipsec_xform.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP;
	prm.ipsec_xform.direction = c->dir == GW_DIR_IN ? RTE_SECURITY_IPSEC_SA_DIR_INGRESS
		: RTE_SECURITY_IPSEC_SA_DIR_EGRESS;
	prm.ipsec_xform.options.esn = esn;
	prm.ipsec_xform.esn.value = c->esn_init;
	if (c->dir == GW_DIR_IN)
		prm.ipsec_xform.replay_win_sz = s->rw != NULL ? s->rw_recover : win;
	prm.crypto_xform = ipx;
	if (c->mode == GW_MODE_TRANS) {
		prm.ipsec_xform.mode = RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT;
		prm.trs.proto = fam ? IPPROTO_IPV6 : IPPROTO_IPIP;
	} else {
		prm.ipsec_xform.mode = RTE_SECURITY_IPSEC_SA_MODE_TUNNEL;
		prm.tun.next_proto = fam ? IPPROTO_IPV6 : IPPROTO_IPIP;
		if (c->mode == GW_MODE_TUN4) {
			prm.ipsec_xform.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV4;
			memset(&h4, 0, sizeof(h4));
			h4.version_ihl = RTE_IPV4_VHL_DEF;
			h4.time_to_live = 64;
			h4.next_proto_id = IPPROTO_ESP;
			memcpy(&h4.src_addr, c->src.b, 4);
			memcpy(&h4.dst_addr, c->dst.b, 4);
			prm.tun.hdr = &h4;
			prm.tun.hdr_len = sizeof(h4);
		} else {
			prm.ipsec_xform.tunnel.type = RTE_SECURITY_IPSEC_TUNNEL_IPV6;
			memset(&h6, 0, sizeof(h6));
			h6.vtc_flow = rte_cpu_to_be_32(6u << 28);
			h6.proto = IPPROTO_ESP;
			h6.hop_limits = 64;
			memcpy(h6.src_addr, c->src.b, 16);
			memcpy(h6.dst_addr, c->dst.b, 16);
			prm.tun.hdr = &h6;
			prm.tun.hdr_len = sizeof(h6);
		}
	}
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
			prm.ipsec_xform.options.udp_encap = 1;
			prm.ipsec_xform.udp.sport = s->natt_sport;
			prm.ipsec_xform.udp.dport = s->natt_dport;
			h4.next_proto_id = IPPROTO_UDP;
			h6.proto = IPPROTO_UDP;
		}
	}

	s->spi = c->spi;
	s->dir = c->dir;
	s->mode = c->mode;
	s->inner_v6 = (uint8_t)fam;
	s->src = c->src;
	s->dst = c->dst;
	s->algo_name = c->algo_name;
	s->owner = c->owner;
	s->last_tsc = 0;
	s->line = c->line;
	memcpy(s->life, c->life, sizeof(s->life));
	s->has_life = (c->life[0] | c->life[1] | c->life[2] | c->life[3]) != 0;
	s->used_pkts = 0;
	s->used_bytes = 0;
	s->soft_sent = 0;
	s->hard_sent = 0;
	if (c->dir == GW_DIR_IN)
		s->hard_pkts = c->life[GW_LIFE_HARD_PKTS];
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

	if (s->action == GW_SA_LOOKASIDE_PROTOCOL) {
		/* the PMD frames ESP itself: tunnel end points as addresses, not a header */
		s->sa_ix = prm.ipsec_xform;
		sec_tunnel(c, &s->sa_ix);
		rc = pick_cdev(dp, &(struct cdev_want){ .c = c, .ix = &s->sa_ix,
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
	s->cdev_id = (uint8_t)rc;
	dp->cdev[rc].used = true;

	sz = rte_ipsec_sa_size(&prm);
	if (sz < 0) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec refuses it: %s\n", c->spi,
			c->line, strerror(-sz));
		return sz;
	}
	s->sa = rte_zmalloc("gw_sa", sz, RTE_CACHE_LINE_SIZE);
	if (s->sa == NULL)
		return -ENOMEM;
	rc = rte_ipsec_sa_init(s->sa, &prm, sz);
	if (rc < 0) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): rte_ipsec_sa_init: %s\n", c->spi,
			c->line, strerror(-rc));
		return rc;
	}
	gw_sa_telemetry(dp, s, c->telemetry);
	return 0;
}

static int
sa_session(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct rte_crypto_sym_xform xf[2];
	int rc;

	if (s->action == GW_SA_LOOKASIDE_PROTOCOL)
		return sec_session(dp, s, c);
	fill_xforms(c, xf);
	esn_aad_fix(dp, c, xf);
	s->cses = rte_cryptodev_sym_session_create(s->cdev_id, sess_xform(c, xf),
		dp->cdev[s->cdev_id].sess_pool);
	if (s->cses == NULL) {
		fprintf(stderr, "vecsec-gw: SA %u (line %d): cannot create a session on %s: %s\n",
			c->spi, c->line, rte_cryptodev_name_get(s->cdev_id),
			rte_strerror(rte_errno));
		return -rte_errno ? -rte_errno : -EINVAL;
	}
	rte_cryptodev_sym_session_opaque_data_set(s->cses, (uint64_t)(uintptr_t)&s->ss);
	memset(&s->ss, 0, sizeof(s->ss));
	s->ss.sa = s->sa;
	s->ss.type = s->action == GW_SA_CPU_CRYPTO ? RTE_SECURITY_ACTION_TYPE_CPU_CRYPTO
		: RTE_SECURITY_ACTION_TYPE_NONE;
	s->ss.crypto.ses = s->cses;
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
	char name[RTE_MEMPOOL_NAMESIZE];
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
	snprintf(name, sizeof(name), "gw_sess%u", cd->id);
	cd->sess_pool = rte_cryptodev_sym_session_pool_create(name, GW_MAX_SA + 64,
		rte_cryptodev_sym_get_private_session_size(cd->id), 0, 0, SOCKET_ID_ANY);
	if (cd->sess_pool == NULL) {
		GW_LOG(ERR, "%s: cannot create its session pool: %s", cd->name,
		       rte_strerror(rte_errno));
		return -ENOMEM;
	}
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
		rte_free(s->sa);
		s->sa = NULL;
		dp->cdev[made].used = false;
		rc = sa_init_one(dp, s, c, fam, true, false);
		if (rc != 0)
			dp->cdev[made].used = false;    /* made for this SA alone */
		if (rc != 0 || s->cdev_id != made)
			cdev_drop_unused(dp, made);
	}
	if (rc == -ENOTSUP && !quiet)
		rc = sa_init_one(dp, s, c, fam, false, false);         /* says why */
	if (rc == 0 && at_run && dp->cdev[s->cdev_id].sess_pool == NULL) {
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
 * DPDK's /ipsec/sa/list, stats and details (rte_ipsec telemetry) show the
 * SA when on: marked `telemetry` (as ipsec-secgw), or every SA with
 * --ipsec-telemetry all. Registered at most once.
 */
void
gw_sa_telemetry(const struct gw_dp *dp, struct gw_sa *s, bool marked)
{
	if (s->sa == NULL)
		return;
	rte_ipsec_telemetry_sa_del(s->sa);
	if (marked || dp->ipsec_telemetry_all)
		rte_ipsec_telemetry_sa_add(s->sa);
}

static void
sad_key(const struct gw_sa *s, union rte_ipsec_sad_key *k, int *type, bool *v6)
{
	memset(k, 0, sizeof(*k));
	if (s->mode == GW_MODE_TUN4) {
		k->v4.spi = rte_cpu_to_be_32(s->spi);
		memcpy(&k->v4.dip, s->dst.b, 4);
		memcpy(&k->v4.sip, s->src.b, 4);
		*type = RTE_IPSEC_SAD_SPI_DIP_SIP;
		*v6 = false;
	} else if (s->mode == GW_MODE_TUN6) {
		k->v6.spi = rte_cpu_to_be_32(s->spi);
		memcpy(k->v6.dip, s->dst.b, 16);
		memcpy(k->v6.sip, s->src.b, 16);
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
	int type;
	bool v6;

	sad_key(s, &k, &type, &v6);
	return rte_ipsec_sad_add(v6 ? dp->sad6 : dp->sad4, &k, type, s);
}

int
gw_sa_sad_del(struct gw_dp *dp, struct gw_sa *s)
{
	union rte_ipsec_sad_key k;
	int type;
	bool v6;

	if (s->dir != GW_DIR_IN)
		return 0;
	sad_key(s, &k, &type, &v6);
	return rte_ipsec_sad_del(v6 ? dp->sad6 : dp->sad4, &k, type);
}

static int
sad_setup(struct gw_dp *dp)
{
	struct rte_ipsec_sad_conf sc = { .socket_id = SOCKET_ID_ANY };

	/*
	 * Twice the SAs: rte_hash (cuckoo, random seed, no extension table)
	 * sized to 1024 sometimes refuses one of 1000 SAs as "no space".
	 */
	for (int i = 0; i < RTE_IPSEC_SAD_KEY_TYPE_MASK; i++)
		sc.max_sa[i] = 2 * GW_MAX_SA;
	/* lookups while the control socket adds and deletes */
	if (dp->ctrl)
		sc.flags = RTE_IPSEC_SAD_FLAG_RW_CONCURRENCY;
	dp->sad4 = rte_ipsec_sad_create("gw_sad4", &sc);
	sc.flags |= RTE_IPSEC_SAD_FLAG_IPV6;
	dp->sad6 = rte_ipsec_sad_create("gw_sad6", &sc);
	if (dp->sad4 == NULL || dp->sad6 == NULL) {
		fprintf(stderr, "vecsec-gw: cannot create the SAD: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		struct gw_sa *s = &dp->sa[i];
		int rc;

		if (!s->active || s->dir != GW_DIR_IN)
			continue;
		rc = sad_add(dp, s);
		if (rc != 0) {
			fprintf(stderr,
				"vecsec-gw: SA in %u (line %d): cannot add to the SAD: %s\n",
				s->spi, s->line, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Run time (control socket): slot i of conf, on a device already started. */
int
gw_sa_add(struct gw_dp *dp, const struct gw_conf *conf, unsigned int i, char *err,
		size_t err_len)
{
	const struct gw_sa_conf *c = &conf->sa[i];
	struct gw_sa *s = &dp->sa[i];
	int fam = gw_sa_family(conf, c);
	int rc;

	if (fam < 0) {
		snprintf(err, err_len, "SA %u: SP rules send both IPv4 and IPv6 through it",
			 c->spi);
		return -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	s->idx = (uint16_t)i;
	rc = sa_init_cdev(dp, s, c, fam, true, true);
	if (rc == 0)
		rc = sa_session(dp, s, c);
	if (rc == 0 && s->dir == GW_DIR_IN)
		rc = sad_add(dp, s);
	if (rc != 0) {
		snprintf(err, err_len, "SA %s %u: %s%s", c->dir == GW_DIR_IN ? "in" : "out", c->spi,
			rc == -ENOTSUP ? "no cryptodev supports it" : strerror(-rc),
			rc == -ENOTSUP && sa_is_aria(c) ? " (ARIA needs crypto_vecsec)" : "");
		gw_sa_free(s);
		return rc;
	}
	for (unsigned int w = 0; w < dp->nb_workers; w++)
		memset(&dp->worker[w].sa_st[i], 0, sizeof(dp->worker[w].sa_st[i]));
	if (i >= dp->nb_sa)
		dp->nb_sa = i + 1;
	__atomic_store_n(&s->active, true, __ATOMIC_RELEASE);
	return 0;
}

/* Free what slot s holds; no worker may reach it any more. */
void
gw_sa_free(struct gw_sa *s)
{
	s->active = false;
	if (s->cses != NULL && s->action == GW_SA_LOOKASIDE_PROTOCOL)
		rte_security_session_destroy(rte_cryptodev_get_sec_ctx(s->cdev_id), s->cses);
	else if (s->cses != NULL)
		rte_cryptodev_sym_session_free(s->cdev_id, s->cses);   /* wipes the key */
	if (s->sa != NULL) {
		rte_ipsec_telemetry_sa_del(s->sa);
		rte_ipsec_sa_fini(s->sa);
		rte_free(s->sa);
	}
	rte_free(s->rw);
	s->cses = NULL;
	s->sa = NULL;
	s->rw = NULL;
}

int
gw_sa_setup(struct gw_dp *dp, const struct gw_conf *conf)
{
	int rc;

	static const struct rte_mbuf_dynfield seq_field = {
		.name = "vecsec_gw_esp_seq",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};

	dp->sa = calloc(GW_MAX_SA, sizeof(*dp->sa));
	if (dp->sa == NULL)
		return -ENOMEM;
	gw_seq_dynfield = rte_mbuf_dynfield_register(&seq_field);
	if (gw_seq_dynfield < 0) {
		fprintf(stderr, "vecsec-gw: cannot register an mbuf field: %s\n",
			rte_strerror(rte_errno));
		return -ENOSPC;
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
		int fam = gw_sa_family(conf, c);

		if (fam < 0) {          /* gw_conf_validate() refused it already */
			GW_LOG(ERR, "SA %u (line %d): SP rules send both IPv4 and IPv6 through it; "
			       "one SA carries one family", c->spi, c->line);
			return -EINVAL;
		}
		s->idx = (uint16_t)i;
		rc = sa_init_cdev(dp, s, c, fam, false, false);
		if (rc < 0)
			return rc;
		s->active = true;
		dp->nb_sa = i + 1;
	}
	/* only the devices an SA picked; SAs added later start theirs (sa_init_cdev) */
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		if (dp->cdev[id].used) {
			rc = cdev_up(dp, &dp->cdev[id]);
			if (rc != 0)
				return rc;
		}
	}
	for (unsigned int i = 0; i < dp->nb_sa; i++) {
		rc = sa_session(dp, &dp->sa[i], &conf->sa[i]);
		if (rc != 0)
			return rc;
	}
	return sad_setup(dp);
}

void
gw_sa_teardown(struct gw_dp *dp)
{
	for (unsigned int i = 0; dp->sa != NULL && i < dp->nb_sa; i++)
		gw_sa_free(&dp->sa[i]);
	for (unsigned int id = 0; id < GW_MAX_CDEV; id++) {
		if (dp->cdev[id].sess_pool != NULL)
			rte_cryptodev_stop(dp->cdev[id].id);
		rte_mempool_free(dp->cdev[id].sess_pool);
		dp->cdev[id].sess_pool = NULL;
	}
	rte_ipsec_sad_destroy(dp->sad4);
	rte_ipsec_sad_destroy(dp->sad6);
	rte_mempool_free(sec_pool);
	sec_pool = NULL;
	free(dp->sa);
	dp->sa = NULL;
	dp->nb_sa = 0;
}
