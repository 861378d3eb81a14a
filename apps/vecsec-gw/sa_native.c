/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vecsec-gw native SAs (type native): the gateway does ESP itself for the
 * algorithms libvecsec implements, ChaCha20-Poly1305 (RFC 7634) and
 * ARIA-GCM (RFC 4106's layout, RFC 5794), with no cryptodev, session,
 * crypto op or rte_ipsec SA. This file builds such an SA's own state
 * (struct gw_nsa0 in the SA's line 0: the outbound sequence counter and
 * an IPv4 tunnel's template; struct gw_nsa opening the SA's block: the
 * key, an IPv6 tunnel's template; inbound the exact RFC 4303 window of
 * lib/esp in the SA's block) and wipes it; sa.c does what every SA type
 * shares (lifetimes, NAT-T ports, the SAD) and calls in here.
 * esp_native.c and its two direction files run the packets.
 */
#include "gw_dp.h"
#include "gw_log.h"
#include "sa_native.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_udp.h>

#include <vecsec/vecsec_aead.h>

/* The lanes engine's algorithm for an SA's configured one; NONE: not native-capable. */
static enum vecsec_aead_alg
native_alg(const struct gw_sa_conf *c)
{
	if (!c->aead || c->digest_len != VECSEC_AEAD_TAG_LEN)
		return VECSEC_AEAD_NONE;
	if (c->aead_algo == RTE_CRYPTO_AEAD_CHACHA20_POLY1305 && c->cipher_key_len == 32)
		return VECSEC_AEAD_CHACHA20_POLY1305;
	if (c->aead_algo == GW_AEAD_ARIA_GCM &&
	    (c->cipher_key_len == 16 || c->cipher_key_len == 24 || c->cipher_key_len == 32))
		return VECSEC_AEAD_ARIA_GCM;
	return VECSEC_AEAD_NONE;
}

bool
gw_sa_native_capable(const struct gw_sa_conf *c)
{
	return native_alg(c) != VECSEC_AEAD_NONE;
}

bool
gw_sa_native_want(const struct gw_dp *dp, const struct gw_sa_conf *c)
{
	if (c->action == GW_SA_NATIVE)
		return true;
	return dp->force_native && c->action != GW_SA_LOOKASIDE_PROTOCOL &&
		gw_sa_native_capable(c);
}

/*
 * The outer header of a tunnel (as rte_ipsec's template: TTL / hop limit
 * 64, nothing else set but the addresses and the protocol), then NAT-T's
 * UDP header with the SA's ports; lengths, the IPv4 ID and checksums are
 * filled per packet (esp_native_out.c) and on tx (port_io.h).
 */
static void
nsa_template(struct gw_sa *s, const struct gw_sa_conf *c)
{
	struct gw_nsa0 *n = &s->nsa0;
	uint8_t proto = s->natt ? IPPROTO_UDP : IPPROTO_ESP;
	uint8_t *t = c->mode == GW_MODE_TUN6 ? n->nsa->tmpl6 : n->tmpl4;

	RTE_BUILD_BUG_ON(sizeof(struct gw_nsa0) > RTE_CACHE_LINE_SIZE ||
			 offsetof(struct gw_nsa0, zero) != offsetof(struct rte_ipsec_session, sa) ||
			 sizeof(n->tmpl4) < sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr) ||
			 sizeof(n->nsa->tmpl6) < sizeof(struct rte_ipv6_hdr) + sizeof(struct rte_udp_hdr));
	if (c->mode == GW_MODE_TUN4) {
		struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)t;

		h->version_ihl = RTE_IPV4_VHL_DEF;
		h->time_to_live = 64;
		h->next_proto_id = proto;
		memcpy(&h->src_addr, c->src.b, 4);
		memcpy(&h->dst_addr, c->dst.b, 4);
		n->tmpl_len = sizeof(*h);
	} else if (c->mode == GW_MODE_TUN6) {
		struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)t;

		h->vtc_flow = rte_cpu_to_be_32(6u << 28);
		h->proto = proto;
		h->hop_limits = 64;
		memcpy(h->src_addr, c->src.b, 16);
		memcpy(h->dst_addr, c->dst.b, 16);
		n->tmpl_len = sizeof(*h);
	}
	if (s->natt && c->mode != GW_MODE_TRANS) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(t + n->tmpl_len);

		u->src_port = rte_cpu_to_be_16(s->natt_sport);
		u->dst_port = rte_cpu_to_be_16(s->natt_dport);
		n->udp_ofs = n->tmpl_len;
		n->tmpl_len += sizeof(*u);
	}
}

/*
 * The SA's block: struct gw_nsa (its first line the key object when it
 * fits there, ChaCha20), then an ARIA key object, then inbound the window.
 */
static int
nsa_key(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, size_t rw_sz)
{
	struct gw_sa_cold *cold = &dp->sa_cold[s->idx];
	enum vecsec_aead_alg alg = native_alg(c);
	size_t ksz = vecsec_aead_key_size(alg, c->cipher_key_len);
	size_t head = RTE_ALIGN_CEIL(sizeof(struct gw_nsa), RTE_CACHE_LINE_SIZE);
	uint8_t keymat[GW_MAX_KEY + 4];
	struct gw_nsa *n;
	struct vecsec_aead_key *k;
	int rc;

	RTE_BUILD_BUG_ON(sizeof(n->key_line) != 64 || sizeof(struct gw_nsa0) != 64);
	if (ksz == 0)
		return -ENOTSUP;
	cold->blk_size = head + (ksz > sizeof(n->key_line) ? ksz : 0) + rw_sz;
	cold->blk = rte_zmalloc("gw_nsa", cold->blk_size, RTE_CACHE_LINE_SIZE);
	if (cold->blk == NULL) {
		cold->blk_size = 0;
		return -ENOMEM;
	}
	dp->mem_blk += cold->blk_size;
	n = cold->blk;
	s->nsa0.nsa = n;
	k = ksz <= sizeof(n->key_line) ? (struct vecsec_aead_key *)(void *)n->key_line :
		(struct vecsec_aead_key *)(void *)((uint8_t *)cold->blk + head);
	memcpy(keymat, c->cipher_key, c->cipher_key_len);
	memcpy(keymat + c->cipher_key_len, &c->salt, 4);
	rc = vecsec_esp_key_init(k, alg, keymat, c->cipher_key_len + 4u);
	memset(keymat, 0, sizeof(keymat));
	__asm__ volatile("" : : "r"(keymat) : "memory");       /* the wipe is kept */
	if (rc != 0)
		return rc;
	n->key = k;
	if (rw_sz != 0)
		s->rw = (struct vecsec_esp_replay *)((uint8_t *)cold->blk + cold->blk_size - rw_sz);
	return 0;
}

/*
 * Slot s as a native SA: sa.c has filled what every type shares (sa_fill:
 * SPI, direction, mode, lifetimes, NAT-T ports; outbound the hard packet
 * limit from the numbers left). first: outbound, the first number to send;
 * win: inbound, the replay window (0: anti-replay off, the top still kept
 * for ESN).
 */
int
gw_sa_native_init(struct gw_dp *dp, struct gw_sa *s, const struct gw_sa_conf *c, uint64_t first,
		  uint32_t win, bool esn)
{
	size_t rw_sz = 0;
	int rc;

	if (!gw_sa_native_capable(c)) {
		fprintf(stderr, "vecsec-gw: SA %s %u (line %d, %s): type native takes "
			"ChaCha20-Poly1305 and ARIA-GCM with a 16-byte ICV only\n",
			c->dir == GW_DIR_IN ? "in" : "out", c->spi, c->line, c->algo_name);
		return -EINVAL;
	}
	s->action = GW_SA_NATIVE;
	s->nsa0.esn = esn;
	if (c->dir == GW_DIR_IN) {
		rw_sz = vecsec_esp_replay_size(win);
		if (rw_sz == 0 && win != 0)
			return -EINVAL;
		if (rw_sz == 0)
			rw_sz = vecsec_esp_replay_size(0);
	}
	rc = nsa_key(dp, s, c, rw_sz);
	if (rc != 0)
		return rc;
	if (c->dir == GW_DIR_OUT) {
		nsa_template(s, c);
		return vecsec_esp_seq_init(&s->nsa0.seq, esn, first - 1);
	}
	if (vecsec_esp_replay_init(s->rw, rw_sz, win, esn, c->esn_init) != 0) {
		fprintf(stderr, "vecsec-gw: SA in %u (line %d): the last sequence number seen "
			"(%" PRIu64 ") needs ESN\n", c->spi, c->line, c->esn_init);
		return -EINVAL;
	}
	s->rw_esn = esn;
	s->rw_shared = dp->nb_workers > 1;
	rte_rwlock_init(&s->rw_lock);
	return 0;
}

/* Wipe a native SA's key and its lines (before sa.c frees its block). */
void
gw_sa_native_wipe(struct gw_dp *dp, struct gw_sa *s)
{
	struct gw_nsa *n = s->nsa0.nsa;

	(void)dp;
	if (s->action != GW_SA_NATIVE)
		return;
	if (n != NULL) {
		if (n->key != NULL)
			vecsec_aead_key_wipe((struct vecsec_aead_key *)(uintptr_t)n->key);
		memset(n, 0, sizeof(*n));
		__asm__ volatile("" : : "r"(n) : "memory");
	}
	memset(&s->nsa0, 0, sizeof(s->nsa0));  /* ss.sa NULL again too */
	__asm__ volatile("" : : "r"(&s->nsa0) : "memory");
}
