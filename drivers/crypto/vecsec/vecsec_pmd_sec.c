/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * crypto_vecsec rte_security context: lookaside-protocol IPsec ESP sessions
 * (RFC 4303; tunnel and transport, egress and ingress, ESN, anti-replay)
 * with ChaCha20-Poly1305 (RFC 7634) or ARIA-GCM (RFC 4106 layout). This
 * file: capabilities, session create/destroy/size/stats, the context each
 * device carries. The per-packet work is vecsec_pmd_sec_dp.c: each session
 * is given its direction's struct vecsec_pmd_dp_ops here, at creation.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cryptodev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>
#include <rte_security.h>
#include <rte_security_driver.h>
#include <cryptodev_pmd.h>

#include "vecsec/vecsec.h"
#include "vecsec/vecsec_aead.h"
#include "vecsec/vecsec_esp.h"

#include "vecsec_pmd_private.h"

/* What vecsec_pmd_dp.c calls for an ESP session's ops, by the session's dp. */
const struct vecsec_pmd_dp_ops *const vecsec_pmd_sec_dp[2] = {
	[VECSEC_PMD_DP_ESP_INGRESS] = &vecsec_pmd_sec_ingress_dp,
	[VECSEC_PMD_DP_ESP_EGRESS] = &vecsec_pmd_sec_egress_dp,
};

/* The AEADs an ESP session can use; the IV is the 8-byte ESP IV. */
/*
 * The session's line 1 as vecsec_pmd_private.h promises: an egress IPv4
 * tunnel's template and an ingress window's header (lib/esp's object
 * without bitmap words) end in it.
 */
#define SEC_LINE1_END (2 * RTE_CACHE_LINE_SIZE)
_Static_assert(offsetof(struct vecsec_pmd_sec_session, key) == RTE_CACHE_LINE_SIZE &&
	       offsetof(struct vecsec_pmd_sec_session, tun_hdr) + sizeof(struct rte_ipv4_hdr) <=
	       SEC_LINE1_END &&
	       offsetof(struct vecsec_pmd_sec_session, replay) + VECSEC_ESP_REPLAY_SIZE_WORDS(0) <=
	       SEC_LINE1_END,
	       "struct vecsec_pmd_sec_session: a packet's fields spill out of line 1");

#define ESP_AEAD_CAP(alg, kmin, kmax, kinc) { \
	.op = RTE_CRYPTO_OP_TYPE_SYMMETRIC, \
	.sym = { \
		.xform_type = RTE_CRYPTO_SYM_XFORM_AEAD, \
		.aead = { \
			.algo = (alg), \
			.block_size = 1, \
			.key_size = { .min = (kmin), .max = (kmax), .increment = (kinc) }, \
			.digest_size = { .min = 16, .max = 16, .increment = 0 }, \
			.aad_size = { .min = 8, .max = 12, .increment = 4 }, \
			.iv_size = { .min = 8, .max = 12, .increment = 4 }, \
		}, \
	}, \
}

static const struct rte_cryptodev_capabilities esp_crypto_caps[] = {
	ESP_AEAD_CAP(RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, 32, 0),
	ESP_AEAD_CAP(RTE_PMD_VECSEC_AEAD_ARIA_GCM, 16, 32, 8),
	RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

static const struct rte_cryptodev_capabilities esp_crypto_caps_noaria[] = {
	ESP_AEAD_CAP(RTE_CRYPTO_AEAD_CHACHA20_POLY1305, 32, 32, 0),
	RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

#define ESP_SEC_CAP(m, d, caps) { \
	.action = RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL, \
	.protocol = RTE_SECURITY_PROTOCOL_IPSEC, \
	.ipsec = { \
		.proto = RTE_SECURITY_IPSEC_SA_PROTO_ESP, \
		.mode = (m), \
		.direction = (d), \
		.options = { .esn = 1, .stats = 1 }, \
		.replay_win_sz_max = VECSEC_PMD_REPLAY_WIN_MAX, \
	}, \
	.crypto_capabilities = (caps), \
	.ol_flags = 0, \
}

#define ESP_SEC_CAPS(caps) \
	ESP_SEC_CAP(RTE_SECURITY_IPSEC_SA_MODE_TUNNEL, RTE_SECURITY_IPSEC_SA_DIR_EGRESS, caps), \
	ESP_SEC_CAP(RTE_SECURITY_IPSEC_SA_MODE_TUNNEL, RTE_SECURITY_IPSEC_SA_DIR_INGRESS, caps), \
	ESP_SEC_CAP(RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT, RTE_SECURITY_IPSEC_SA_DIR_EGRESS, caps), \
	ESP_SEC_CAP(RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT, RTE_SECURITY_IPSEC_SA_DIR_INGRESS, caps), \
	{ .action = RTE_SECURITY_ACTION_TYPE_NONE }

static const struct rte_security_capability sec_caps[] = { ESP_SEC_CAPS(esp_crypto_caps) };
static const struct rte_security_capability sec_caps_noaria[] = {
	ESP_SEC_CAPS(esp_crypto_caps_noaria)
};

static const struct rte_security_capability *
sec_capabilities_get(void *device)
{
	const struct rte_cryptodev *dev = device;
	const struct vecsec_pmd_private *priv = dev->data->dev_private;

	return priv->aria ? sec_caps : sec_caps_noaria;
}

static unsigned int
sec_session_get_size(void *device __rte_unused)
{
	return sizeof(struct vecsec_pmd_sec_session);
}

/* Outer header template (tunnel egress): lengths and checksum left 0. */
static int
tunnel_template(struct vecsec_pmd_sec_session *s, const struct rte_security_ipsec_tunnel_param *t)
{
	if (t->type == RTE_SECURITY_IPSEC_TUNNEL_IPV4) {
		struct rte_ipv4_hdr h;

		if (t->ipv4.dscp > 63)
			return -EINVAL;
		memset(&h, 0, sizeof(h));
		h.version_ihl = RTE_IPV4_VHL_DEF;
		h.type_of_service = (uint8_t)(t->ipv4.dscp << 2);
		h.fragment_offset = rte_cpu_to_be_16(t->ipv4.df ? RTE_IPV4_HDR_DF_FLAG : 0);
		h.time_to_live = t->ipv4.ttl != 0 ? t->ipv4.ttl : 64;
		h.next_proto_id = IPPROTO_ESP;
		memcpy(&h.src_addr, &t->ipv4.src_ip, 4);
		memcpy(&h.dst_addr, &t->ipv4.dst_ip, 4);
		memcpy(s->tun_hdr, &h, sizeof(h));
		s->tun_hdr_len = sizeof(h);
		s->tun_v6 = 0;
		s->tun_csum = rte_raw_cksum(&h, sizeof(h));
		return 0;
	}
	if (t->type == RTE_SECURITY_IPSEC_TUNNEL_IPV6) {
		struct rte_ipv6_hdr h;

		if (t->ipv6.dscp > 63 || t->ipv6.flabel > 0xfffff)
			return -EINVAL;
		memset(&h, 0, sizeof(h));
		h.vtc_flow = rte_cpu_to_be_32((6u << 28) | ((uint32_t)t->ipv6.dscp << 22) |
					      t->ipv6.flabel);
		h.proto = IPPROTO_ESP;
		h.hop_limits = t->ipv6.hlimit != 0 ? t->ipv6.hlimit : 64;
		memcpy(h.src_addr, &t->ipv6.src_addr, 16);
		memcpy(h.dst_addr, &t->ipv6.dst_addr, 16);
		memcpy(s->tun_hdr, &h, sizeof(h));
		s->tun_hdr_len = sizeof(h);
		s->tun_v6 = 1;
		return 0;
	}
	return -EINVAL;
}

/*
 * Key and algorithm: the AEAD xform alone, key material key || salt; the
 * key inline when it fits, else in rte_malloc memory on socket (s->key_heap).
 */
static int
session_key(struct vecsec_pmd_sec_session *s, const struct rte_crypto_sym_xform *x,
	    uint32_t salt, bool aria, int socket)
{
	uint8_t keymat[32 + VECSEC_ESP_SALT_LEN];
	struct vecsec_aead_key *k;
	enum vecsec_aead_alg alg;
	int rc;

	if (x == NULL || x->next != NULL || x->type != RTE_CRYPTO_SYM_XFORM_AEAD)
		return -ENOTSUP;
	if (x->aead.algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305 && x->aead.key.length == 32)
		alg = VECSEC_AEAD_CHACHA20_POLY1305;
	else if (aria && x->aead.algo == RTE_PMD_VECSEC_AEAD_ARIA_GCM &&
		 (x->aead.key.length == 16 || x->aead.key.length == 24 ||
		  x->aead.key.length == 32))
		alg = VECSEC_AEAD_ARIA_GCM;
	else
		return -ENOTSUP;
	if (x->aead.key.data == NULL)
		return -EINVAL;
	if (x->aead.digest_length != VECSEC_ESP_ICV_LEN)
		return -ENOTSUP;
	/* the salt as its 4 bytes lie in memory, as rte_ipsec and ipsec-secgw keep it */
	k = vecsec_pmd_key_storage(s->key_line, NULL, 0, socket, alg, x->aead.key.length,
				   &s->key_heap);
	if (k == NULL)
		return -ENOMEM;
	s->key = k;
	memcpy(keymat, x->aead.key.data, x->aead.key.length);
	memcpy(keymat + x->aead.key.length, &salt, VECSEC_ESP_SALT_LEN);
	rc = vecsec_esp_key_init(k, alg, keymat, x->aead.key.length + VECSEC_ESP_SALT_LEN);
	vecsec_memzero(keymat, sizeof(keymat));
	return rc;
}

static int
sec_session_create(void *device, struct rte_security_session_conf *conf,
		   struct rte_security_session *sess)
{
	const struct rte_cryptodev *dev = device;
	const struct vecsec_pmd_private *priv = dev->data->dev_private;
	const struct rte_security_ipsec_xform *ix;
	struct vecsec_pmd_sec_session *s;
	int rc;

	if (conf == NULL || sess == NULL)
		return -EINVAL;
	s = SECURITY_GET_SESS_PRIV(sess);
	if (((uintptr_t)s & (_Alignof(struct vecsec_pmd_sec_session) - 1)) != 0) {
		VECSEC_PMD_LOG(ERR, "security session data %p not 64-byte aligned", (void *)s);
		return -EINVAL;
	}
	if (conf->action_type != RTE_SECURITY_ACTION_TYPE_LOOKASIDE_PROTOCOL ||
	    conf->protocol != RTE_SECURITY_PROTOCOL_IPSEC)
		return -ENOTSUP;
	ix = &conf->ipsec;
	if (ix->proto != RTE_SECURITY_IPSEC_SA_PROTO_ESP || ix->options.udp_encap ||
	    ix->options.copy_dscp || ix->options.copy_flabel || ix->options.copy_df ||
	    ix->options.dec_ttl || ix->options.ecn || ix->options.iv_gen_disable ||
	    ix->options.tunnel_hdr_verify || ix->options.udp_ports_verify) {
		VECSEC_PMD_LOG(DEBUG, "ESP session: option not supported");
		return -ENOTSUP;
	}
	if (ix->replay_win_sz > VECSEC_PMD_REPLAY_WIN_MAX)
		return -ENOTSUP;
	memset(s, 0, sizeof(*s));
	if (ix->mode == RTE_SECURITY_IPSEC_SA_MODE_TUNNEL)
		s->tunnel = 1;
	else if (ix->mode != RTE_SECURITY_IPSEC_SA_MODE_TRANSPORT)
		return -ENOTSUP;
	if (ix->direction == RTE_SECURITY_IPSEC_SA_DIR_EGRESS)
		s->egress = 1;
	else if (ix->direction != RTE_SECURITY_IPSEC_SA_DIR_INGRESS)
		return -EINVAL;
	if (s->tunnel && s->egress) {
		rc = tunnel_template(s, &ix->tunnel);
		if (rc != 0)
			return rc;
	}
	s->spi = ix->spi;
	s->esn = ix->options.esn;
	s->stats = ix->options.stats;
	if (s->egress) {
		/*
		 * the first packet carries esn.value (at least 1), as rte_ipsec
		 * does; the counter never wraps (RFC 4303 3.3.3)
		 */
		if (vecsec_esp_seq_init(&s->seq, s->esn,
					ix->esn.value > 1 ? ix->esn.value - 1 : 0) != 0)
			return -EINVAL;
	} else {
		/*
		 * esn.value is the highest number already seen; replay_win_sz is
		 * the window in packets, exactly (0: anti-replay off)
		 */
		s->win = ix->replay_win_sz;
		if (vecsec_esp_replay_init(vecsec_pmd_sec_window(s), sizeof(s->replay), s->win,
					   s->esn, ix->esn.value) != 0)
			return -EINVAL;
		rte_spinlock_init(&s->lock);
	}
	rc = session_key(s, conf->crypto_xform, ix->salt, priv->aria, dev->data->socket_id);
	if (rc != 0) {
		/* a key taken before the failure is wiped and freed */
		vecsec_pmd_key_release(s->key, s->key_heap);
		vecsec_memzero(s, sizeof(*s));
		VECSEC_PMD_LOG(DEBUG, "ESP session: crypto xform refused (%d)", rc);
		return rc;
	}
	/* the data path chosen once: no per-op direction test (vecsec_pmd_dp.c) */
	s->dp = s->egress ? VECSEC_PMD_DP_ESP_EGRESS : VECSEC_PMD_DP_ESP_INGRESS;
	s->magic = VECSEC_PMD_SEC_MAGIC;
	return 0;
}

static int
sec_session_destroy(void *device __rte_unused, struct rte_security_session *sess)
{
	struct vecsec_pmd_sec_session *s;

	if (sess == NULL)
		return -EINVAL;
	s = SECURITY_GET_SESS_PRIV(sess);
	if (s->magic == VECSEC_PMD_SEC_MAGIC)
		vecsec_pmd_key_release(s->key, s->key_heap);
	vecsec_memzero(s, sizeof(*s));
	return 0;
}

static int
sec_session_stats_get(void *device __rte_unused, struct rte_security_session *sess,
		      struct rte_security_stats *stats)
{
	const struct vecsec_pmd_sec_session *s;
	uint64_t pkts, bytes, errors;

	if (sess == NULL || stats == NULL)
		return -EINVAL;   /* no device-wide totals */
	s = SECURITY_GET_SESS_PRIV(sess);
	if (s->magic != VECSEC_PMD_SEC_MAGIC)
		return -EINVAL;
	if (!s->stats)
		return -ENOTSUP;   /* made without options.stats */
	pkts = __atomic_load_n(&s->pkts, __ATOMIC_RELAXED);
	bytes = __atomic_load_n(&s->bytes, __ATOMIC_RELAXED);
	errors = __atomic_load_n(&s->errors, __ATOMIC_RELAXED);
	memset(stats, 0, sizeof(*stats));
	stats->protocol = RTE_SECURITY_PROTOCOL_IPSEC;
	if (s->egress) {
		stats->ipsec.opackets = pkts;
		stats->ipsec.obytes = bytes;
		stats->ipsec.oerrors = errors;
	} else {
		stats->ipsec.ipackets = pkts;
		stats->ipsec.ibytes = bytes;
		stats->ipsec.ierrors = errors;
	}
	return 0;
}

static const struct rte_security_ops vecsec_pmd_sec_ops = {
	.session_create = sec_session_create,
	.session_get_size = sec_session_get_size,
	.session_stats_get = sec_session_stats_get,
	.session_destroy = sec_session_destroy,
	.capabilities_get = sec_capabilities_get,
};

int
vecsec_pmd_sec_ctx_create(struct rte_cryptodev *dev)
{
	static const struct rte_mbuf_dynflag replay_flag = {
		.name = RTE_PMD_VECSEC_DYNFLAG_REPLAY_NAME,
	};
	static const struct rte_mbuf_dynflag dummy_flag = {
		.name = RTE_PMD_VECSEC_DYNFLAG_DUMMY_NAME,
	};
	struct rte_security_ctx *ctx;
	int bit;

	bit = rte_mbuf_dynflag_register(&replay_flag);
	if (bit < 0) {
		VECSEC_PMD_LOG(ERR, "cannot register the replay mbuf flag");
		return -ENOSPC;
	}
	vecsec_pmd_replay_flag = RTE_BIT64(bit);
	bit = rte_mbuf_dynflag_register(&dummy_flag);
	if (bit < 0) {
		VECSEC_PMD_LOG(ERR, "cannot register the dummy-packet mbuf flag");
		return -ENOSPC;
	}
	vecsec_pmd_dummy_flag = RTE_BIT64(bit);
	ctx = rte_zmalloc("crypto_vecsec sec ctx", sizeof(*ctx), RTE_CACHE_LINE_SIZE);
	if (ctx == NULL)
		return -ENOMEM;
	ctx->device = dev;
	ctx->ops = &vecsec_pmd_sec_ops;
	ctx->sess_cnt = 0;
	dev->security_ctx = ctx;
	return 0;
}

void
vecsec_pmd_sec_ctx_destroy(struct rte_cryptodev *dev)
{
	rte_free(dev->security_ctx);
	dev->security_ctx = NULL;
}
